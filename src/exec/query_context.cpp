// Failing a query from any thread; cancelling its pools from the driver thread.
#include "exec/query_context.h"

#include <algorithm>

#include "ember/error.h"

namespace ember {

namespace {

bool is_cancelled_error(std::exception_ptr e) {
  try {
    std::rethrow_exception(e);
  } catch (const Cancelled&) {
    return true;
  } catch (...) {
    return false;
  }
}

}  // namespace

QueryContext::QueryContext(std::vector<std::unique_ptr<ActorPool>>& pools,
                           const std::vector<std::string>& downloads)
    : pools_(pools) {
  for (const std::string& name : downloads)
    download_rejected_.push_back(std::make_unique<RejectedRows>(name));
}

Table QueryContext::rejected_table() {
  std::vector<const RejectedRows*> all;
  for (const auto& r : rejected()) all.push_back(r.get());
  for (const auto& r : download_rejected_) all.push_back(r.get());
  return ember::rejected_table(all);
}

void QueryContext::make_rejected_locked() {
  for (size_t i = rejected_.size(); i < pools_.size(); ++i) {
    rejected_.push_back(std::make_unique<RejectedRows>(FailurePolicy(pools_[i]->spec())));
  }
}

RejectedRows& QueryContext::rejected(int i) {
  std::lock_guard<std::mutex> lock(rejected_mu_);
  make_rejected_locked();
  return *rejected_.at(static_cast<size_t>(i));
}

const std::vector<std::unique_ptr<RejectedRows>>& QueryContext::rejected() {
  std::lock_guard<std::mutex> lock(rejected_mu_);
  make_rejected_locked();
  return rejected_;
}

void QueryContext::fail(std::exception_ptr e) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!error_ && !is_cancelled_error(e)) error_ = e;
  cancelled_.store(true, std::memory_order_release);
  if (on_cancel_) on_cancel_();
}

std::exception_ptr QueryContext::error() const {
  std::lock_guard<std::mutex> lock(mu_);
  return error_;
}

void QueryContext::on_cancel(std::function<void()> wake) {
  std::lock_guard<std::mutex> lock(mu_);
  on_cancel_ = std::move(wake);
}

void QueryContext::cancel_pools() {
  if (pools_cancelled_) return;
  pools_cancelled_ = true;
  // Every pool at once and without waiting, so that none goes on starting workers while another
  // finishes a long call; the executor joins the pools when the query ends.
  for (auto& p : pools_) p->cancel();
}

void QueryContext::give_up_pools() {
  for (auto& p : pools_)
    if (p) p->give_up_running();
}

std::chrono::milliseconds QueryContext::teardown_grace() const {
  std::chrono::milliseconds grace{0};
  for (const auto& p : pools_)
    if (p) grace = std::max(grace, p->teardown_grace());
  return grace;
}

}  // namespace ember

// Shares of partial states on their way between ranks: the message, a worker rank's inbox of
// them, and rank 0's splitting of its own partitions' states.
#include "dist/share_exchange.h"

#include <utility>

namespace ember::dist {

std::string share_message(uint64_t query, int partition, const Sink::Share& share) {
  process::MessageWriter out;
  out.begin(process::Op::Partial);
  out.put(query);
  out.put(static_cast<int32_t>(partition));
  out.put(share.rows);
  out.put_string(share.bytes);
  return out.bytes();
}

int64_t send_shares(Transport& transport, uint64_t query, int partition,
                    const std::vector<Sink::Share>& shares, int self) {
  int64_t sent = 0;
  for (size_t q = 1; q < shares.size(); ++q) {
    transport.send(static_cast<int>(q), kTagQuery, share_message(query, partition, shares[q]));
    if (static_cast<int>(q) != self) sent += shares[q].rows;
  }
  return sent;
}

void ShareInbox::take(int source, process::MessageReader& in) {
  Piece piece;
  piece.source = source;
  piece.partition = in.get<int32_t>();
  piece.rows = in.get<int64_t>();
  piece.bytes = std::string(in.get_string());
  {
    std::lock_guard lock(mu_);
    pieces_.push_back(std::move(piece));
  }
  arrived_.notify_all();
}

std::optional<ShareInbox::Piece> ShareInbox::next() {
  std::unique_lock lock(mu_);
  arrived_.wait(lock, [&] { return !pieces_.empty() || cancelled_; });
  if (cancelled_) return std::nullopt;
  Piece piece = std::move(pieces_.front());
  pieces_.pop_front();
  return piece;
}

void ShareInbox::cancel() {
  {
    std::lock_guard lock(mu_);
    cancelled_ = true;
  }
  arrived_.notify_all();
}

namespace {

struct SharingLocal final : LocalSinkState {
  int partition = 0;
  std::unique_ptr<LocalSinkState> inner;
};

}  // namespace

std::unique_ptr<LocalSinkState> SharingSink::local_state(GlobalSinkState& global,
                                                         int partition) const {
  auto local = std::make_unique<SharingLocal>();
  local->partition = partition;
  local->inner = inner_.local_state(global, partition);
  return local;
}

bool SharingSink::ready(GlobalSinkState& global, LocalSinkState& local,
                        const std::function<void()>& wake) const {
  return inner_.ready(global, *local.as<SharingLocal>().inner, wake);
}

void SharingSink::sink(GlobalSinkState& global, LocalSinkState& local, const Batch& batch) const {
  inner_.sink(global, *local.as<SharingLocal>().inner, batch);
}

void SharingSink::combine(GlobalSinkState& global, LocalSinkState& local) const {
  auto& mine = local.as<SharingLocal>();
  const std::vector<Share> shares =
      inner_.encode_partial_shares(global, *mine.inner, transport_.ranks());
  sent_.fetch_add(send_shares(transport_, query_, mine.partition, shares, 0),
                  std::memory_order_relaxed);
  // Rank 0's share joins the state as every other rank's partitions' share 0 does.
  std::unique_ptr<LocalSinkState> kept = inner_.local_state(global, mine.partition);
  inner_.adopt_partial(global, *kept, shares.at(0).bytes);
  inner_.combine(global, *kept);
}

}  // namespace ember::dist

// Shares of partial states on their way between ranks: the message, a worker rank's inbox of
// them, and rank 0's splitting of its own partitions' states.
#include "dist/share_exchange.h"

#include <utility>

namespace ember::dist {

GatherMessage share_message(uint64_t query, int partition, Sink::Share share) {
  process::MessageWriter head;
  head.begin(process::Op::Partial);
  head.put(query);
  head.put(static_cast<int32_t>(partition));
  head.put(share.rows);
  head.put_length(share.bytes.size());  // the bytes themselves follow as the message's body
  auto bytes = std::make_shared<const std::string>(std::move(share.bytes));
  GatherMessage out;
  out.head = head.bytes();
  if (!bytes->empty()) out.pieces.push_back({bytes->data(), bytes->size()});
  out.keep = std::move(bytes);
  return out;
}

int64_t send_shares(Transport& transport, uint64_t query, int partition,
                    std::vector<Sink::Share>& shares, int self) {
  int64_t sent = 0;
  for (size_t q = 1; q < shares.size(); ++q) {
    if (static_cast<int>(q) != self) sent += shares[q].rows;
    transport.send(static_cast<int>(q), kTagQuery,
                   share_message(query, partition, std::move(shares[q])));
  }
  return sent;
}

void ShareInbox::take(Incoming&& message, process::MessageReader& in) {
  Piece piece;
  piece.source = message.source;
  piece.partition = in.get<int32_t>();
  piece.rows = in.get<int64_t>();
  const std::string_view bytes = in.get_string();
  piece.offset = static_cast<size_t>(bytes.data() - message.bytes().data());
  piece.size = bytes.size();
  piece.message = std::move(message);
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
  std::vector<Share> shares = inner_.encode_partial_shares(global, *mine.inner, transport_.ranks());
  sent_.fetch_add(send_shares(transport_, query_, mine.partition, shares, 0),
                  std::memory_order_relaxed);
  // Rank 0's share joins the state as every other rank's partitions' share 0 does.
  std::unique_ptr<LocalSinkState> kept = inner_.local_state(global, mine.partition);
  inner_.adopt_partial(global, *kept, shares.at(0).bytes);
  inner_.combine(global, *kept);
}

}  // namespace ember::dist

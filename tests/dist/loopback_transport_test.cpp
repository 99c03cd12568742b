// The loopback transport on its own: per-sender order, columns received into pooled memory as
// MPI's receive puts them, messages in pieces joined, and the ends of delivery (stop drains,
// halt and cut drop).
#include "dist/loopback_transport.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "ember/error.h"

namespace ember::dist {
namespace {

/// What an endpoint's handler received, for a test to wait on.
struct Received {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<Incoming> messages;
  Transport::Handler handler() {
    return [this](Incoming m) {
      std::lock_guard lock(mu);
      messages.push_back(std::move(m));
      cv.notify_all();
    };
  }
  bool wait_for(size_t n) {
    std::unique_lock lock(mu);
    return cv.wait_for(lock, std::chrono::seconds(10), [&] { return messages.size() >= n; });
  }
};

TEST(LoopbackTransport, MessagesFromOneRankArriveInTheOrderSent) {
  LoopbackNetwork net(3);
  Received at2;
  net.endpoint(2).start(at2.handler());
  for (int i = 0; i < 200; ++i) {
    net.endpoint(0).send(2, kTagControl, "zero " + std::to_string(i));
    net.endpoint(1).send(2, kTagControl, "one " + std::to_string(i));
  }
  ASSERT_TRUE(at2.wait_for(400));
  int next[2] = {0, 0};
  for (const Incoming& m : at2.messages) {
    ASSERT_TRUE(m.source == 0 || m.source == 1);
    const std::string want = (m.source == 0 ? "zero " : "one ") + std::to_string(next[m.source]++);
    EXPECT_EQ(m.bytes(), want);
    EXPECT_EQ(m.tag, kTagControl);
  }
  EXPECT_EQ(next[0], 200);
  EXPECT_EQ(next[1], 200);
  EXPECT_EQ(net.endpoint(1).rank(), 1);
  EXPECT_EQ(net.endpoint(1).ranks(), 3);
}

TEST(LoopbackTransport, ColumnsArriveInPooledMemoryAndPiecesJoined) {
  LoopbackNetwork net(2);
  Received at1;
  net.endpoint(1).start(at1.handler());
  const std::vector<int64_t> values = {1, 2, 3, 4, 5};
  GatherMessage m;
  m.head = "head:";
  m.pieces.push_back({values.data(), values.size() * sizeof(int64_t)});
  m.pieces.push_back({"tail", 4});
  net.endpoint(0).send(1, kTagData, std::move(m));
  net.endpoint(0).send(1, kTagControl, "small");
  ASSERT_TRUE(at1.wait_for(2));
  const Incoming& data = at1.messages[0];
  ASSERT_NE(data.data, nullptr);  // a receive into pooled memory, which columns then wrap
  EXPECT_TRUE(data.control.empty());
  const std::string_view got = data.bytes();
  ASSERT_EQ(got.size(), 5 + 5 * sizeof(int64_t) + 4);
  EXPECT_EQ(got.substr(0, 5), "head:");
  EXPECT_EQ(std::memcmp(got.data() + 5, values.data(), 5 * sizeof(int64_t)), 0);
  EXPECT_EQ(got.substr(got.size() - 4), "tail");
  EXPECT_EQ(at1.messages[1].data, nullptr);
  EXPECT_EQ(at1.messages[1].bytes(), "small");
}

TEST(LoopbackTransport, MessagesSentBeforeStartWaitForIt) {
  LoopbackNetwork net(2);
  net.endpoint(0).send(1, kTagControl, "early");
  Received at1;
  net.endpoint(1).start(at1.handler());
  ASSERT_TRUE(at1.wait_for(1));
  EXPECT_EQ(at1.messages[0].bytes(), "early");
}

TEST(LoopbackTransport, StopDeliversWhatIsQueuedAndHaltDropsIt) {
  LoopbackNetwork net(3);
  std::mutex gate;
  std::unique_lock hold(gate);  // the handlers wait here until the test lets them go
  Received at1, at2;
  auto slow = [&gate](Received& r) {
    return [&gate, &r, h = r.handler()](Incoming m) {
      { std::lock_guard wait(gate); }
      h(std::move(m));
    };
  };
  net.endpoint(1).start(slow(at1));
  net.endpoint(2).start(slow(at2));
  for (int i = 0; i < 5; ++i) {
    net.endpoint(0).send(1, kTagControl, "m");
    net.endpoint(0).send(2, kTagControl, "m");
  }
  std::thread stopper([&] { net.endpoint(1).stop(); });
  std::thread halter([&] { EXPECT_TRUE(net.endpoint(2).halt(std::chrono::seconds(5))); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  hold.unlock();
  stopper.join();
  halter.join();
  EXPECT_EQ(at1.messages.size(), 5u);
  EXPECT_LE(at2.messages.size(), 1u);                     // at most the one its handler had begun
  net.endpoint(0).send(1, kTagControl, "after the end");  // dropped, not an error
  EXPECT_EQ(at1.messages.size(), 5u);
}

TEST(LoopbackTransport, ACutRankSendsAndReceivesNothing) {
  LoopbackNetwork net(3);
  Received at0, at1;
  net.endpoint(0).start(at0.handler());
  net.endpoint(1).start(at1.handler());
  net.cut(2);
  net.endpoint(2).send(0, kTagControl, "from the cut rank");
  net.endpoint(0).send(2, kTagControl, "to the cut rank");
  net.endpoint(1).send(0, kTagControl, "from a live rank");
  ASSERT_TRUE(at0.wait_for(1));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_EQ(at0.messages.size(), 1u);
  EXPECT_EQ(at0.messages[0].source, 1);
}

TEST(LoopbackTransport, NoRankOutsideTheNetwork) {
  LoopbackNetwork net(2);
  EXPECT_THROW(net.endpoint(0).send(2, kTagControl, "x"), InvalidArgument);
  EXPECT_THROW(LoopbackNetwork(0), InvalidArgument);
}

}  // namespace
}  // namespace ember::dist

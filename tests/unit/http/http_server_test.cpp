#include "http/http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <thread>

namespace gpuwatch {
namespace {

// Three pieces, then the end.
class CountingStream final : public HttpStream {
 public:
  bool next(const std::function<bool(std::string_view)>& write) override {
    if (sent_ == 3) return false;
    return write("piece " + std::to_string(++sent_) + "\n");
  }

 private:
  int sent_ = 0;
};

class Serving {
 public:
  explicit Serving(HttpHandler handler, const HttpLimits& limits = HttpLimits{})
      : server_(parse_listen_address("127.0.0.1:0"), limits, std::move(handler)),
        thread_([this] { server_.run(); }) {}
  ~Serving() {
    server_.stop();
    thread_.join();
  }
  [[nodiscard]] int port() const { return server_.port(); }

 private:
  HttpServer server_;
  std::thread thread_;
};

TEST(HttpServer, TheHandlerSeesTheTargetUndecodedAndTheAuthorization) {
  std::mutex mutex;
  std::string target;
  std::string authorization;
  Serving serving([&](const HttpRequest& r) {
    std::lock_guard lock(mutex);
    target = r.target;
    authorization = r.authorization;
    HttpReply reply;
    reply.status = 418;
    reply.content_type = "application/json";
    reply.body = "{}";
    reply.headers = "Cache-Control: no-store\nX-Test:  two words\n";
    return reply;
  });
  httplib::Client client("127.0.0.1", serving.port());
  const auto res = client.Get("/a%2F..%2Fb?x=1&y=%20", {{"Authorization", "Bearer t0k"}});
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 418);
  EXPECT_EQ(res->body, "{}");
  EXPECT_EQ(res->get_header_value("Content-Type"), "application/json");
  EXPECT_EQ(res->get_header_value("Cache-Control"), "no-store");
  EXPECT_EQ(res->get_header_value("X-Test"), "two words");
  std::lock_guard lock(mutex);
  EXPECT_EQ(target, "/a%2F..%2Fb?x=1&y=%20");
  EXPECT_EQ(authorization, "Bearer t0k");
}

TEST(HttpServer, AStreamIsSentPieceByPieceUntilItEnds) {
  Serving serving([](const HttpRequest&) {
    HttpReply reply;
    reply.content_type = "text/event-stream";
    reply.stream = std::make_unique<CountingStream>();
    return reply;
  });
  httplib::Client client("127.0.0.1", serving.port());
  const auto res = client.Get("/live");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->body, "piece 1\npiece 2\npiece 3\n");
  EXPECT_EQ(res->get_header_value("Content-Type"), "text/event-stream");
}

TEST(HttpServer, AHandlerThatThrowsIsA500AndTheServerGoesOn) {
  Serving serving([](const HttpRequest& r) -> HttpReply {
    if (r.target == "/boom") throw std::runtime_error("store gone");
    return HttpReply{};
  });
  httplib::Client client("127.0.0.1", serving.port());
  const auto boom = client.Get("/boom");
  ASSERT_TRUE(boom);
  EXPECT_EQ(boom->status, 500);
  EXPECT_NE(boom->body.find("store gone"), std::string::npos);
  const auto fine = client.Get("/fine");
  ASSERT_TRUE(fine);
  EXPECT_EQ(fine->status, 200);
}

TEST(HttpServer, OnlyGetReachesTheHandler) {
  std::atomic<int> calls = 0;
  Serving serving([&](const HttpRequest&) {
    ++calls;
    return HttpReply{};
  });
  httplib::Client client("127.0.0.1", serving.port());
  const auto post = client.Post("/api/runs", "{}", "application/json");
  ASSERT_TRUE(post);
  EXPECT_NE(post->status, 200);
  const auto del = client.Delete("/api/runs/x");
  ASSERT_TRUE(del);
  EXPECT_NE(del->status, 200);
  EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace gpuwatch

namespace gpuwatch {
namespace {

using Clock = std::chrono::steady_clock;

// A client on a raw socket, to send what no HTTP library would.
class RawClient {
 public:
  explicit RawClient(int port) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) == 0;
  }
  ~RawClient() { ::close(fd_); }
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;

  [[nodiscard]] bool connected() const { return connected_; }
  // False once the server has closed its side for good.
  bool send(std::string_view data) {
    return ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(data.size());
  }
  // What came until the server closed, or `wait` passed.
  std::string receive(std::chrono::milliseconds wait) {
    std::string out;
    const Clock::time_point until = Clock::now() + wait;
    while (Clock::now() < until) {
      pollfd p{fd_, POLLIN, 0};
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()).count();
      if (::poll(&p, 1, static_cast<int>(std::max<long long>(left, 1))) <= 0) break;
      char buffer[4096];
      const ssize_t n = ::recv(fd_, buffer, sizeof(buffer), 0);
      if (n <= 0) {
        closed_ = true;
        break;
      }
      out.append(buffer, static_cast<std::size_t>(n));
    }
    return out;
  }
  [[nodiscard]] bool closed() const { return closed_; }

 private:
  int fd_;
  bool connected_ = false;
  bool closed_ = false;
};

int status_of(std::string_view answer) {
  if (!answer.starts_with("HTTP/1.")) return 0;
  return std::atoi(std::string(answer.substr(9, 3)).c_str());
}

HttpReply ok_reply(const HttpRequest&) {
  HttpReply reply;
  reply.body = "ok\n";
  return reply;
}

TEST(HttpServer, HeadersPastTheLimitAre431BeforeTheHandler) {
  std::atomic<int> calls = 0;
  HttpLimits limits;
  limits.max_header_bytes = 4096;
  limits.max_headers = 16;
  Serving serving([&](const HttpRequest& r) {
    ++calls;
    return ok_reply(r);
  }, limits);
  {
    RawClient big(serving.port());
    big.send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + std::string(6000, 'a') + "\r\n\r\n");
    EXPECT_EQ(status_of(big.receive(std::chrono::seconds(5))), 431);
  }
  {
    RawClient many(serving.port());
    std::string request = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n";
    for (int i = 0; i < 40; ++i) request += "X-" + std::to_string(i) + ": 1\r\n";
    many.send(request + "\r\n");
    EXPECT_EQ(status_of(many.receive(std::chrono::seconds(5))), 431);
  }
  {
    // A flood far past any buffer: refused and closed, the process not grown.
    RawClient flood(serving.port());
    flood.send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    const std::string lines = [] {
      std::string s;
      for (int i = 0; i < 1000; ++i) s += "X-Flood: " + std::to_string(i) + "\r\n";
      return s;
    }();
    for (int i = 0; i < 200 && flood.send(lines); ++i) {
    }
    const std::string answer = flood.receive(std::chrono::seconds(1));
    EXPECT_TRUE(answer.empty() || status_of(answer) == 431) << answer.substr(0, 80);
  }
  EXPECT_EQ(calls, 0);
  RawClient fine(serving.port());
  fine.send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Fine: " + std::string(1000, 'a') + "\r\n\r\n");
  EXPECT_EQ(status_of(fine.receive(std::chrono::seconds(5))), 200);
}

TEST(HttpServer, AGetWithABodyIsRefused) {
  Serving serving(ok_reply);
  RawClient client(serving.port());
  client.send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n\r\nhello");
  EXPECT_EQ(status_of(client.receive(std::chrono::seconds(5))), 413);
}

TEST(HttpServer, ARequestMustBeWholeWithinTheDeadlineHoweverItTrickles) {
  HttpLimits limits;
  limits.request_deadline_s = 1;
  Serving serving(ok_reply, limits);
  RawClient slow(serving.port());
  ASSERT_TRUE(slow.connected());
  slow.send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n");
  const Clock::time_point start = Clock::now();
  // A byte every 200 ms: never idle long, but never done either.
  while (Clock::now() - start < std::chrono::seconds(4) && slow.send("X")) {
    slow.receive(std::chrono::milliseconds(200));
    if (slow.closed()) break;
  }
  EXPECT_TRUE(slow.closed() || !slow.send("X"));
  EXPECT_LT(Clock::now() - start, std::chrono::milliseconds(3000));
}

TEST(HttpServer, AtTheCapTheOldestSilentConnectionMakesRoom) {
  HttpLimits limits;
  limits.max_connections = 2;
  Serving serving(ok_reply, limits);
  RawClient silent1(serving.port());
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  RawClient silent2(serving.port());
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  {
    // Both younger than half a second: left to send their requests, the newcomer is refused.
    RawClient early(serving.port());
    early.send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    EXPECT_EQ(status_of(early.receive(std::chrono::seconds(5))), 503);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  RawClient client(serving.port());
  client.send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(status_of(client.receive(std::chrono::seconds(5))), 200);
  silent1.receive(std::chrono::seconds(2));
  EXPECT_TRUE(silent1.closed());
  silent2.receive(std::chrono::milliseconds(200));
  EXPECT_FALSE(silent2.closed());
}

TEST(HttpServer, AtTheCapWithEveryConnectionBusyANewcomerGets503AtOnce) {
  HttpLimits limits;
  limits.max_connections = 2;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  Serving serving([released](const HttpRequest& r) {
    if (r.target == "/slow") released.wait();
    return ok_reply(r);
  }, limits);
  RawClient busy1(serving.port());
  RawClient busy2(serving.port());
  busy1.send("GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  busy2.send("GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const Clock::time_point start = Clock::now();
  RawClient late(serving.port());
  late.send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  const std::string answer = late.receive(std::chrono::seconds(5));
  EXPECT_EQ(status_of(answer), 503) << answer;
  EXPECT_NE(answer.find("schema_version"), std::string::npos);
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(1));
  release.set_value();
  EXPECT_EQ(status_of(busy1.receive(std::chrono::seconds(5))), 200);
}

// Endless pieces to a client that never reads: the stream ends once the
// buffer is full and the write deadline passes.
class EndlessStream final : public HttpStream {
 public:
  explicit EndlessStream(std::atomic<bool>& ended) : ended_(ended) {}
  ~EndlessStream() override { ended_ = true; }
  EndlessStream(const EndlessStream&) = delete;
  EndlessStream& operator=(const EndlessStream&) = delete;
  bool next(const std::function<bool(std::string_view)>& write) override { return write(std::string(16384, 'x')); }

 private:
  std::atomic<bool>& ended_;
};

TEST(HttpServer, AStreamToAClientThatDoesNotReadEndsAfterTheWriteDeadline) {
  std::atomic<bool> ended = false;
  HttpLimits limits;
  limits.write_deadline_s = 1;
  limits.stream_buffer_bytes = 64 * 1024;
  Serving serving([&](const HttpRequest&) {
    HttpReply reply;
    reply.stream = std::make_unique<EndlessStream>(ended);
    return reply;
  }, limits);
  RawClient reader(serving.port());
  reader.send("GET /live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  const Clock::time_point start = Clock::now();
  while (!ended && Clock::now() - start < std::chrono::seconds(10)) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_TRUE(ended);
}

// A stream that holds its slot, sending a comment now and then.
class HoldingStream final : public HttpStream {
 public:
  bool next(const std::function<bool(std::string_view)>& write) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return write(": waiting\n\n");
  }
};

TEST(HttpServer, MoreStreamsThanSlotsAre503AndTheApiStillAnswers) {
  HttpLimits limits;
  limits.max_streams = 1;
  Serving serving([](const HttpRequest& r) {
    HttpReply reply;
    if (r.target == "/live") {
      reply.content_type = "text/event-stream";
      reply.stream = std::make_unique<HoldingStream>();
    }
    return reply;
  }, limits);
  RawClient first(serving.port());
  first.send("GET /live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  const std::string streamed = first.receive(std::chrono::milliseconds(500));
  EXPECT_EQ(status_of(streamed), 200);
  EXPECT_NE(streamed.find(": waiting"), std::string::npos);
  RawClient second(serving.port());
  second.send("GET /live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  EXPECT_EQ(status_of(second.receive(std::chrono::milliseconds(500))), 503);
  httplib::Client client("127.0.0.1", serving.port());
  const auto api = client.Get("/api");
  ASSERT_TRUE(api);
  EXPECT_EQ(api->status, 200);
}

TEST(HttpServer, StopsWithRequestsInFlight) {
  std::promise<void> entered;
  auto server = std::make_unique<Serving>([&](const HttpRequest& r) {
    entered.set_value();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    return ok_reply(r);
  });
  RawClient client(server->port());
  client.send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  entered.get_future().wait();
  server.reset();  // joins the worker, ends the daemon: no suspended connection left
  SUCCEED();
}

}  // namespace
}  // namespace gpuwatch

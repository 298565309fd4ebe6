#include "http/http_server.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
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
  explicit Serving(HttpHandler handler)
      : server_(parse_listen_address("127.0.0.1:0"), HttpLimits{2, 1024, 5, 5, 1}, std::move(handler)),
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

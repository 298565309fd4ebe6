#include "http/metrics_server.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <thread>

namespace gpuwatch {
namespace {

TEST(MetricsServer, ServesTheLastPublishedBodyTheIndexAnd404) {
  MetricsServer server(parse_listen_address("127.0.0.1:0"));
  ASSERT_GT(server.port(), 0);
  server.publish("first 1\n");
  server.publish("gpuwatch_up 1\n");
  std::thread serving([&] { server.run(); });
  httplib::Client client("127.0.0.1", server.port());
  const auto metrics = client.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_EQ(metrics->status, 200);
  EXPECT_EQ(metrics->body, "gpuwatch_up 1\n");
  EXPECT_EQ(metrics->get_header_value("Content-Type"), kPrometheusContentType);
  const auto index = client.Get("/");
  ASSERT_TRUE(index);
  EXPECT_EQ(index->status, 200);
  EXPECT_NE(index->body.find("/metrics"), std::string::npos);
  const auto other = client.Get("/../etc/passwd");
  ASSERT_TRUE(other);
  EXPECT_EQ(other->status, 404);
  const auto post = client.Post("/metrics", "x", "text/plain");
  ASSERT_TRUE(post);
  EXPECT_NE(post->status, 200);
  server.stop();
  serving.join();
}

TEST(MetricsServer, StopBeforeRunStillEndsRun) {
  MetricsServer server(parse_listen_address("127.0.0.1:0"));
  server.stop();
  std::thread serving([&] { server.run(); });
  serving.join();
}

TEST(MetricsServer, RefusesAPortInUse) {
  MetricsServer first(parse_listen_address("127.0.0.1:0"));
  const ListenAddress same{"127.0.0.1", static_cast<std::uint16_t>(first.port())};
  EXPECT_THROW(MetricsServer second(same), HttpError);
}

}  // namespace
}  // namespace gpuwatch

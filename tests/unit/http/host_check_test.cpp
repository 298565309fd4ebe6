#include "http/host_check.h"

#include <gtest/gtest.h>

namespace gpuwatch {
namespace {

TEST(HostCheck, LoopbackHosts) {
  for (const char* host : {"127.0.0.1", "127.1.2.3", "::1", "localhost"}) EXPECT_TRUE(is_loopback_host(host)) << host;
  for (const char* host : {"0.0.0.0", "::", "10.0.0.1", "localhost.evil.example", "127", "127.evil.example",
                           "127.0.0.1.nip.io", "[::1]", ""}) {
    EXPECT_FALSE(is_loopback_host(host)) << host;
  }
}

TEST(HostCheck, HeaderNames) {
  EXPECT_EQ(host_header_name("[::1]:9400"), "::1");
  EXPECT_EQ(host_header_name("Node-1.:9400"), "node-1");
  EXPECT_EQ(host_header_name("127.0.0.1"), "127.0.0.1");
  EXPECT_EQ(host_header_name("::1"), "");  // an IPv6 address without brackets
  EXPECT_EQ(host_header_name("[::1"), "");
  EXPECT_EQ(host_header_name("[::1]x"), "");
}

TEST(HostCheck, OnLoopbackOnlyLoopback) {
  const AllowedHosts hosts({"127.0.0.1", 9400}, "node-1", {"scrape.example"});
  for (const char* ok : {"127.0.0.1:9400", "localhost:9400", "LOCALHOST", "[::1]:9400", ""}) {
    EXPECT_TRUE(hosts.allows(ok)) << ok;
  }
  for (const char* bad : {"evil.example:9400", "node-1:9400", "10.0.0.5:9400", "127.0.0.1.nip.io", "scrape.example"}) {
    EXPECT_FALSE(hosts.allows(bad)) << bad;
  }
}

TEST(HostCheck, OnEveryInterfaceAddressesAndThisMachinesNames) {
  const AllowedHosts hosts({"0.0.0.0", 9400}, "node-1.cluster.example", {"Scrape.Example"});
  for (const char* ok : {"10.0.0.5:9400", "[fe80::1]:9400", "node-1:9400", "node-1.cluster.example.", "localhost",
                         "scrape.example:9400"}) {
    EXPECT_TRUE(hosts.allows(ok)) << ok;
  }
  for (const char* bad : {"evil.example:9400", "node-2:9400", "node-1.evil.example", "10.0.0.5:9400:1"}) {
    EXPECT_FALSE(hosts.allows(bad)) << bad;
  }
  EXPECT_NE(hosts.describe().find("scrape.example"), std::string::npos);
}

TEST(HostCheck, AListenNameIsAllowed) {
  const AllowedHosts hosts({"gpu-box.example", 9400}, "", {});
  EXPECT_TRUE(hosts.allows("gpu-box.example:9400"));
  EXPECT_FALSE(hosts.allows("evil.example:9400"));
}

}  // namespace
}  // namespace gpuwatch

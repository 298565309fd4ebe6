#include "http/listen_address.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace gpuwatch {
namespace {

TEST(ListenAddress, ParsesIpv4Ipv6AndPortZero) {
  const ListenAddress a = parse_listen_address("127.0.0.1:9400");
  EXPECT_EQ(a.host, "127.0.0.1");
  EXPECT_EQ(a.port, 9400);
  EXPECT_EQ(a.text(), "127.0.0.1:9400");
  const ListenAddress b = parse_listen_address("[::1]:0");
  EXPECT_EQ(b.host, "::1");
  EXPECT_EQ(b.port, 0);
  EXPECT_EQ(b.text(), "[::1]:0");
}

TEST(ListenAddress, RefusesWhatIsNotAddrPort) {
  for (const char* bad : {"9400", "localhost", ":9400", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:94x0",
                          "::1:9400", "127.0.0.1:-1"}) {
    EXPECT_THROW((void)parse_listen_address(bad), std::invalid_argument) << bad;
  }
  try {
    (void)parse_listen_address("127.0.0.1:70000");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "'127.0.0.1:70000' is not ADDR:PORT (the port is a number from 0 to 65535)");
  }
}

}  // namespace
}  // namespace gpuwatch

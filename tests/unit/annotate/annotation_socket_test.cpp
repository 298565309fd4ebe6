#include "annotate/annotation_socket.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <mutex>
#include <vector>

#include <gtest/gtest.h>

namespace gpuwatch {
namespace {

// What a client does: a fresh unbound datagram socket, one sendto per message.
bool send_datagram(const std::filesystem::path& path, std::string_view text) {
  const int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0);
  sockaddr_un to{};
  to.sun_family = AF_UNIX;
  std::strncpy(to.sun_path, path.c_str(), sizeof to.sun_path - 1);
  const ssize_t n = sendto(fd, text.data(), text.size(), 0, reinterpret_cast<const sockaddr*>(&to), sizeof to);
  close(fd);
  return n == static_cast<ssize_t>(text.size());
}

TEST(AnnotationSocket, ReceivesParsesAndRejectsThenCleansUp) {
  std::mutex m;
  std::vector<Annotation> got;
  std::filesystem::path path;
  {
    AnnotationSocket socket([&](const Annotation& a, Timestamp) {
      std::lock_guard lock(m);
      got.push_back(a);
    });
    path = socket.path();
    EXPECT_TRUE(std::filesystem::exists(path));
    EXPECT_EQ(std::filesystem::status(path.parent_path()).permissions() & std::filesystem::perms::all,
              std::filesystem::perms::owner_all);  // nobody else can write to it
    ASSERT_TRUE(send_datagram(path, R"({"kind":"epoch","value":1})"));
    ASSERT_TRUE(send_datagram(path, "garbage"));
    ASSERT_TRUE(send_datagram(path, R"({"kind":"log","value":{"loss":0.5}})"));
    ASSERT_TRUE(send_datagram(path, std::string(kMaxDatagramBytes + 10, 'x')));
    socket.stop();  // what was queued before stopping is read
    EXPECT_EQ(socket.rejected(), 2u);
    EXPECT_EQ(socket.first_rejection(), "not valid JSON");
  }
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].kind, AnnotationKind::Epoch);
  EXPECT_EQ(got[1].values.at(0).first, "loss");
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_FALSE(std::filesystem::exists(path.parent_path()));
  // The recorder is gone: a sender gets an error at once, it does not wait.
  EXPECT_FALSE(send_datagram(path, R"({"kind":"epoch","value":2})"));
}

}  // namespace
}  // namespace gpuwatch

#include "annotate/annotation_socket.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <vector>

#include <fmt/format.h>
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

TEST(AnnotationSocket, AnswersMetricsRequestsToTheSendersAddress) {
  std::vector<std::int64_t> asked;
  std::mutex m;
  AnnotationSocket socket([](const Annotation&, Timestamp) {},
                          [&](const MetricsRequest& r) {
                            std::lock_guard lock(m);
                            asked.push_back(r.id);
                            return fmt::format(R"({{"schema_version":1,"id":{}}})", r.id);
                          });
  // The client's socket: autobound (only the family given), so it has an address.
  const int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un self{};
  self.sun_family = AF_UNIX;
  ASSERT_EQ(bind(fd, reinterpret_cast<const sockaddr*>(&self), sizeof(sa_family_t)), 0);
  sockaddr_un to{};
  to.sun_family = AF_UNIX;
  std::strncpy(to.sun_path, socket.path().c_str(), sizeof to.sun_path - 1);
  const std::string request = R"({"kind":"metrics","id":7})";
  ASSERT_EQ(sendto(fd, request.data(), request.size(), 0, reinterpret_cast<const sockaddr*>(&to), sizeof to),
            static_cast<ssize_t>(request.size()));
  timeval wait{5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
  std::array<char, 256> answer{};
  const ssize_t n = recv(fd, answer.data(), answer.size(), 0);
  ASSERT_GT(n, 0);
  EXPECT_EQ(std::string_view(answer.data(), static_cast<std::size_t>(n)), R"({"schema_version":1,"id":7})");
  close(fd);
  // An unbound sender cannot be answered: rejected, the answerer not asked.
  ASSERT_TRUE(send_datagram(socket.path(), R"({"kind":"metrics","id":8})"));
  socket.stop();
  EXPECT_EQ(socket.answered(), 1u);
  EXPECT_EQ(socket.rejected(), 1u);
  EXPECT_EQ(socket.first_rejection(), "a metrics request from an unbound socket (nowhere to answer)");
  EXPECT_EQ(asked, std::vector<std::int64_t>{7});
}

TEST(AnnotationSocket, WithoutAnAnswererRequestsAreRejected) {
  AnnotationSocket socket([](const Annotation&, Timestamp) {});
  ASSERT_TRUE(send_datagram(socket.path(), R"({"kind":"metrics","id":1})"));
  socket.stop();
  EXPECT_EQ(socket.rejected(), 1u);
  EXPECT_EQ(socket.answered(), 0u);
}

}  // namespace
}  // namespace gpuwatch

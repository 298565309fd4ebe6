// The recorder's end of GPUWATCH_SOCKET: a Unix datagram socket in a private
// directory, read on a thread of its own. Datagrams never block the sender
// (a full queue drops them on its side), and a sender with the recorder gone
// gets an error it ignores: training never waits for gpuwatch. A metrics
// request (gpuwatch.metrics()) is answered on the same thread with one
// datagram sent back to the requester's own (autobound) address, without
// waiting: an answer that does not fit the requester's queue is dropped.
#pragma once

#include <sys/socket.h>
#include <sys/un.h>

#include <atomic>
#include <filesystem>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "annotate/annotation.h"
#include "base/unique_fd.h"

namespace gpuwatch {

// Where the socket's private directory may go (the values of
// XDG_RUNTIME_DIR and TMPDIR as cli/ read them; the first writable one is
// taken, else /tmp), and the procfs root under which directories left by
// dead recorders are told apart.
struct SocketPlace {
  std::string runtime_dir;
  std::string temp_dir;
  std::filesystem::path procfs_root = "/proc";
};

class AnnotationSocket {
 public:
  using Handler = std::function<void(const Annotation&, Timestamp received)>;
  // The answer to a metrics request; must not block (it runs on the reading
  // thread). Without one, requests are rejected like malformed datagrams.
  using Answerer = std::function<std::string(const MetricsRequest&)>;

  // Binds the socket in a private directory under $XDG_RUNTIME_DIR (else the
  // temporary directory; see socket_dir.h), after removing the directories
  // that dead recorders left there, and starts reading. Throws
  // std::runtime_error when it cannot.
  explicit AnnotationSocket(Handler on_annotation, Answerer answer_request = {}, const SocketPlace& place = {});
  // Reads what is queued, then stops reading. Idempotent.
  void stop();
  // Stops; removes the socket and its directory.
  ~AnnotationSocket();
  AnnotationSocket(const AnnotationSocket&) = delete;
  AnnotationSocket& operator=(const AnnotationSocket&) = delete;

  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  // Datagrams that were not annotations, and why the first one was not.
  [[nodiscard]] std::size_t rejected() const { return rejected_.load(); }
  [[nodiscard]] std::string first_rejection() const;
  // Metrics requests answered (the answer was sent, or dropped by a full queue).
  [[nodiscard]] std::size_t answered() const { return answered_.load(); }

 private:
  void read_loop();
  // Whether the datagram was handled; else `why` says why not.
  bool handle(std::string_view text, const sockaddr_un& from, socklen_t from_size, std::string& why);

  Handler on_annotation_;
  Answerer answer_request_;
  std::filesystem::path dir_;
  UniqueFd dir_lock_;  // held while the socket lives: socket_dir.h
  std::filesystem::path path_;
  int socket_fd_ = -1;
  int stop_pipe_[2] = {-1, -1};
  std::atomic<std::size_t> rejected_{0};
  std::atomic<std::size_t> answered_{0};
  mutable std::mutex rejection_mutex_;
  std::string first_rejection_;
  std::thread thread_;
};

}  // namespace gpuwatch

// The HTTP module's workers (module-internal): a request's answer is made
// here, off the thread that reads and writes every connection, so a slow
// answer (a report over a long run) holds one worker and nothing else.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace gpuwatch::http_module {

class WorkQueue {
 public:
  // A job is told whether the queue is stopping: it should then answer at
  // once (503) rather than do its work.
  using Job = std::function<void(bool stopping)>;

  WorkQueue(int threads, int max_queued);
  ~WorkQueue() { stop(); }
  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  // False when `max_queued` jobs wait already, or the queue is stopping:
  // the job was not taken.
  bool submit(Job job);
  // Runs what is queued with stopping = true, and joins the workers.
  void stop();

 private:
  void work();

  std::size_t max_queued_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Job> jobs_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace gpuwatch::http_module

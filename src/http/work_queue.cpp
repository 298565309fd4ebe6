#include "http/work_queue.h"

#include <pthread.h>

namespace gpuwatch::http_module {

WorkQueue::WorkQueue(int threads, int max_queued) : max_queued_(static_cast<std::size_t>(max_queued)) {
  for (int i = 0; i < threads; ++i) {
    threads_.emplace_back([this] { work(); });
    ::pthread_setname_np(threads_.back().native_handle(), "gw-http-work");
  }
}

bool WorkQueue::submit(Job job) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ || jobs_.size() >= max_queued_) return false;
    jobs_.push_back(std::move(job));
  }
  ready_.notify_one();
  return true;
}

void WorkQueue::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && threads_.empty()) return;
    stopping_ = true;
  }
  ready_.notify_all();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
}

void WorkQueue::work() {
  std::unique_lock lock(mutex_);
  while (true) {
    ready_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
    if (jobs_.empty()) return;  // stopping, and nothing left to answer
    Job job = std::move(jobs_.front());
    jobs_.pop_front();
    const bool stopping = stopping_;
    lock.unlock();
    job(stopping);
    lock.lock();
  }
}

}  // namespace gpuwatch::http_module

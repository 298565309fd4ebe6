// Answers worth keeping: a finished run's report and a compare of finished
// runs cost seconds over a long run and do not change, so a second page
// asking for them gets the same bytes at once. Bounded by entries and bytes;
// the oldest goes first. A running run's answers are never kept (the caller
// leaves them out: its key says so).
#pragma once

#include <cstddef>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>

namespace gpuwatch {

class AnswerCache {
 public:
  AnswerCache(std::size_t max_entries, std::size_t max_bytes) : max_entries_(max_entries), max_bytes_(max_bytes) {}

  // The answer kept under `key`, else make() kept and returned. Two threads
  // asking for one key at once may both make it; either result is right.
  std::shared_ptr<const std::string> get(const std::string& key, const std::function<std::string()>& make);

  [[nodiscard]] std::size_t bytes() const;

 private:
  struct Entry {
    std::string key;
    std::shared_ptr<const std::string> answer;
  };
  void keep(Entry entry);  // under mutex_

  std::size_t max_entries_;
  std::size_t max_bytes_;
  mutable std::mutex mutex_;
  std::list<Entry> entries_;  // most recently used first
  std::size_t bytes_ = 0;
};

}  // namespace gpuwatch

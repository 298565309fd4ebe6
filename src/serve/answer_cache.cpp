#include "serve/answer_cache.h"

#include <algorithm>

namespace gpuwatch {

std::shared_ptr<const std::string> AnswerCache::get(const std::string& key,
                                                    const std::function<std::string()>& make) {
  {
    const std::lock_guard lock(mutex_);
    const auto found = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.key == key; });
    if (found != entries_.end()) {
      entries_.splice(entries_.begin(), entries_, found);
      return found->answer;
    }
  }
  // Made outside the lock: other answers go on while a long one is computed.
  auto answer = std::make_shared<const std::string>(make());
  const std::lock_guard lock(mutex_);
  keep({key, answer});
  return answer;
}

std::size_t AnswerCache::bytes() const {
  const std::lock_guard lock(mutex_);
  return bytes_;
}

void AnswerCache::keep(Entry entry) {
  if (entry.answer->size() > max_bytes_ || max_entries_ == 0) return;
  const auto same = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.key == entry.key; });
  if (same != entries_.end()) {
    bytes_ -= same->answer->size();
    entries_.erase(same);
  }
  bytes_ += entry.answer->size();
  entries_.push_front(std::move(entry));
  while (entries_.size() > max_entries_ || bytes_ > max_bytes_) {
    bytes_ -= entries_.back().answer->size();
    entries_.pop_back();
  }
}

}  // namespace gpuwatch

// A text that one thread replaces now and then and many threads read, such
// as the body of the next scrape: a reader copies a pointer under the lock,
// never the text, and a new text never waits for a slow reader.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <utility>

namespace gpuwatch {

class PublishedText {
 public:
  void publish(std::string text) {
    auto next = std::make_shared<const std::string>(std::move(text));
    std::lock_guard lock(mutex_);
    text_ = std::move(next);
  }
  [[nodiscard]] std::shared_ptr<const std::string> latest() const {
    std::lock_guard lock(mutex_);
    return text_;
  }

 private:
  mutable std::mutex mutex_;
  std::shared_ptr<const std::string> text_ = std::make_shared<const std::string>();
};

}  // namespace gpuwatch

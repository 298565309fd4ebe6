// Sets the TZ environment variable for one test and restores it after:
// seed files hold local times without a zone.
#pragma once

#include <stdlib.h>

#include <ctime>
#include <optional>
#include <string>

namespace gpuwatch {

class ZoneGuard {
 public:
  explicit ZoneGuard(const char* zone) {
    if (const char* old = getenv("TZ")) old_ = old;
    setenv("TZ", zone, 1);
    tzset();
  }
  ~ZoneGuard() {
    if (old_) {
      setenv("TZ", old_->c_str(), 1);
    } else {
      unsetenv("TZ");
    }
    tzset();
  }
  ZoneGuard(const ZoneGuard&) = delete;
  ZoneGuard& operator=(const ZoneGuard&) = delete;

 private:
  std::optional<std::string> old_;
};

}  // namespace gpuwatch

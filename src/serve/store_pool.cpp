#include "serve/store_pool.h"

#include <sys/stat.h>

#include <fmt/format.h>

#include "serve/run_api.h"

namespace gpuwatch {

StorePool::Lease::~Lease() {
  if (!store_) return;
  std::lock_guard lock(pool_.mutex_);
  if (pool_.idle_.size() < kMaxIdle) pool_.idle_.push_back({std::move(store_), device_, inode_});
}

StorePool::Lease StorePool::acquire() {
  struct stat st {};
  if (::stat(path_.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    throw ApiError(404, fmt::format("no run store at {}", path_.string()));
  }
  {
    std::lock_guard lock(mutex_);
    while (!idle_.empty()) {
      Idle idle = std::move(idle_.back());
      idle_.pop_back();
      if (idle.device == st.st_dev && idle.inode == st.st_ino) return Lease(*this, std::move(idle.store), st.st_dev, st.st_ino);
    }
  }
  return Lease(*this, Store::open(path_, true), st.st_dev, st.st_ino);
}

}  // namespace gpuwatch

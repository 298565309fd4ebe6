// Read-only connections to the run store, kept between requests: opening
// one (schema check, WAL set-up, the host's identity) cost more than most
// answers, so a connection is lent to a request and taken back after it.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <memory>
#include <mutex>
#include <vector>

#include "store/store.h"

namespace gpuwatch {

class StorePool {
 public:
  explicit StorePool(std::filesystem::path path) : path_(std::move(path)) {}

  // A connection lent for one request; back to the pool when destroyed.
  class Lease {
   public:
    Lease(StorePool& pool, std::unique_ptr<Store> store, dev_t device, ino_t inode)
        : pool_(pool), store_(std::move(store)), device_(device), inode_(inode) {}
    ~Lease();
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    Store& operator*() const { return *store_; }
    Store* operator->() const { return store_.get(); }
    // Keeps the connection for good (a live stream holds it).
    std::unique_ptr<Store> take() { return std::move(store_); }

   private:
    StorePool& pool_;
    std::unique_ptr<Store> store_;
    dev_t device_;
    ino_t inode_;
  };

  // Throws ApiError 404 when there is no store file. A file replaced since
  // a connection was opened (deleted and made again) gets a new one.
  Lease acquire();
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  struct Idle {
    std::unique_ptr<Store> store;
    dev_t device;
    ino_t inode;
  };
  static constexpr std::size_t kMaxIdle = 16;

  std::filesystem::path path_;
  std::mutex mutex_;
  std::vector<Idle> idle_;
};

}  // namespace gpuwatch

// Read-only connections to the run store, kept between requests: opening
// one (schema check, WAL set-up, the host's identity) cost more than most
// answers, so a connection is lent to a request and taken back after it.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <string_view>
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
    Lease(Lease&& other) noexcept
        : pool_(other.pool_), store_(std::move(other.store_)), device_(other.device_), inode_(other.inode_) {}
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

// The stores `serve` shows (--store given again, or a folder: one file per
// node of a job), a pool each. A run is looked up across them with
// store/run_lookup.h's rules; with one store, Store::resolve's.
class StorePools {
 public:
  explicit StorePools(const std::vector<std::filesystem::path>& paths);

  // A run, with a connection to its store.
  struct Found {
    StorePool::Lease store;
    RunInfo run;
    const std::filesystem::path& path;
  };
  // Throws ApiError 404 when run_ref names no run, or several.
  Found find(std::string_view run_ref);
  // Calls each(store, runs) for every store, runs as Store::list_runs gives
  // them (a missing file, or one a recorder is creating, has none).
  void for_each_store(const std::function<void(Store&, const std::vector<RunInfo>&)>& each);

 private:
  std::vector<std::unique_ptr<StorePool>> pools_;
};

}  // namespace gpuwatch

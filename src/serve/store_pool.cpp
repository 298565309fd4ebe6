#include "serve/store_pool.h"

#include <sys/stat.h>

#include <fmt/format.h>

#include "serve/run_api.h"
#include "store/run_lookup.h"

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

namespace {

// The runs of `pool`'s store; none for a missing file or one a recorder is
// creating.
std::vector<RunInfo> listed(StorePool& pool, const std::function<void(Store&, const std::vector<RunInfo>&)>& each) {
  std::vector<RunInfo> runs;
  try {
    const StorePool::Lease store = pool.acquire();
    runs = store->list_runs();
    if (each) each(*store, runs);
  } catch (const EmptyStoreError&) {
    // A recorder is creating the file: no runs yet.
  } catch (const ApiError&) {
    // No store file (yet): no runs.
  }
  return runs;
}

}  // namespace

void StorePools::for_each_store(const std::function<void(Store&, const std::vector<RunInfo>&)>& each) {
  for (const auto& pool : pools_) (void)listed(*pool, each);
}

StorePools::StorePools(const std::vector<std::filesystem::path>& paths) {
  for (const auto& path : paths) pools_.push_back(std::make_unique<StorePool>(path));
}

StorePools::Found StorePools::find(std::string_view run_ref) {
  if (pools_.size() == 1) {
    StorePool& pool = *pools_.front();
    StorePool::Lease lease = pool.acquire();
    RunInfo run = find_run(*lease, run_ref);
    return Found{std::move(lease), std::move(run), pool.path()};
  }
  std::vector<StoreRuns> lists;
  for (const auto& pool : pools_) lists.push_back({pool->path().string(), listed(*pool, nullptr)});
  RunFound found;
  try {
    found = resolve_across(lists, std::string(run_ref));
  } catch (const StoreError& e) {
    throw ApiError(404, e.what());
  }
  StorePool& pool = *pools_[found.store];
  return Found{pool.acquire(), std::move(found.run), pool.path()};
}

}  // namespace gpuwatch

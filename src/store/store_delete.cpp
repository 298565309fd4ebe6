// Deleting runs (`gpuwatch rm`, `gpuwatch prune`). Every table that belongs
// to a run references runs(id) ON DELETE CASCADE, so one DELETE per run
// removes its devices, chunks, processes and events with it.
#include <fmt/format.h>

#include "store/store_impl.h"

namespace gpuwatch {

std::size_t Store::delete_runs(const std::vector<RunInfo>& runs, bool force) {
  std::lock_guard lock(impl_->db_mutex);
  impl_->require_writable();
  // Liveness is decided again inside the write transaction: a run that was
  // finished when listed stays so, and one whose recorder died since is
  // settled as interrupted, not refused.
  sql::Transaction txn(impl_->db.get(), sql::Transaction::Kind::Write);
  sql::Stmt erase(impl_->db.get(), "DELETE FROM runs WHERE id = ?");
  std::size_t deleted = 0;
  for (const RunInfo& wanted : runs) {
    const auto found =
        impl_->query_runs("WHERE public_id = ?", [&wanted](sql::Stmt& q) { q.bind(1, wanted.id); });
    if (found.empty()) continue;  // already gone: deleting is idempotent
    const RunInfo& run = found.front();
    if (run.row_id == impl_->active_row) {
      throw StoreError(fmt::format("run {} is being recorded by this process", run.id));
    }
    if (run.status == RunStatus::Recording && !force) {
      throw StoreError(fmt::format("run {}{} is still being recorded (recorder pid {}); stop it first, or pass --force",
                                   run.id, run.name.empty() ? "" : fmt::format(" ({})", run.name), run.recorder_pid));
    }
    erase.bind(1, run.row_id).run();
    erase.reset();
    ++deleted;
  }
  txn.commit();
  return deleted;
}

void Store::vacuum() {
  std::lock_guard lock(impl_->db_mutex);
  impl_->require_writable();
  // VACUUM rewrites the whole file: it needs every other writer gone, and
  // fails with "database is locked" (a StoreError) while one records.
  sql::exec(impl_->db.get(), "VACUUM");
}

}  // namespace gpuwatch

// Deleting runs (`gpuwatch rm`, `gpuwatch prune`), beside Store rather than
// in it: a store file and run ids in, rows out.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace gpuwatch {

// Deletes the runs with these public ids from the store at `path`, with
// everything stored for them (devices, chunks, processes, events: ON DELETE
// CASCADE), all or none in one transaction; ids no longer stored are
// skipped. A run still being recorded is refused with a StoreError unless
// `force` (its recorder's later writes then fail). Returns how many were
// deleted. The file keeps its size: SQLite reuses the freed pages.
std::size_t delete_runs(const std::filesystem::path& path, const std::vector<std::string>& ids, bool force);

// Rewrites the store without its free pages (VACUUM). Fails with a
// StoreError while another process writes it.
void vacuum_store(const std::filesystem::path& path);

}  // namespace gpuwatch

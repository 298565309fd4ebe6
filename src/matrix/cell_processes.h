// The processes a cell leaves behind, found and ended when the cell ends, so
// that the next cell on the same GPUs starts alone. A cell's recorder leads
// a session of its own (ChildOutput::new_session), and everything the cell
// starts stays in it (background jobs, daemons that fork, process groups of
// their own) unless it calls setsid; what does carries the cell's
// GPUWATCH_MATRIX_CELL_ID, a value unique to this start of this cell, in
// its environment. Either is proof that a process is the cell's:
//  - the session id is the recorder's pid, which the kernel does not hand
//    out again while any process is in that session (or, before the
//    recorder is reaped, while it is a zombie);
//  - the marker is in no other process's environment.
// A process that left the session *and* cleared its environment is not
// found here (runner.cpp reports new processes on the cell's GPUs instead).
// Each process is signalled through a pidfd opened and then checked against
// the start time it was found with, so a pid reused meanwhile is never hit.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "matrix/state.h"

namespace gpuwatch::matrix {

inline constexpr std::string_view kCellIdVariable = "GPUWATCH_MATRIX_CELL_ID";

struct CellTag {
  std::uint32_t session = 0;  // the recorder's pid: the leader of the cell's session
  std::string marker;         // GPUWATCH_MATRIX_CELL_ID's value
};

struct CellProcess {
  std::uint32_t pid = 0;
  std::uint64_t start_ticks = 0;
  std::string name;      // comm
  std::string found_by;  // "session" or "environment" (LeftoverProcess)
};

// Whether a process is the cell's, from its /proc/PID/stat and
// /proc/PID/environ (NUL-separated, empty when unreadable): "session",
// "environment" or nullopt. Zombies are not (they are gone already). Pure.
std::optional<std::string> cell_membership(std::string_view stat_text, std::string_view environ_text,
                                           const CellTag& tag);

// The cell's live processes under procfs_root, but `except` (the recorder).
// Other users' environments cannot be read: their processes are found by
// session only.
std::vector<CellProcess> find_cell_processes(const std::filesystem::path& procfs_root, const CellTag& tag,
                                             std::uint32_t except);

// Ends them: SIGTERM to each, then SIGKILL to those still there after
// `grace`; processes that appear meanwhile (started by one being ended) are
// signalled too. Returns every process signalled that did not vanish before
// the signal reached it, with the signal that ended it ("" when it was still
// there a second after SIGKILL).
std::vector<LeftoverProcess> end_cell_processes(const std::filesystem::path& procfs_root, const CellTag& tag,
                                                std::uint32_t except, std::chrono::milliseconds grace);

// SIGKILL, at once, to each of the cell's processes but `except`: a cell
// that a stop (timeout, Ctrl-C) did not end within the grace. Returns how
// many were signalled.
std::size_t kill_cell_processes(const std::filesystem::path& procfs_root, const CellTag& tag, std::uint32_t except);

}  // namespace gpuwatch::matrix

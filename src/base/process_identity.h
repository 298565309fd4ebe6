// Telling a process that still runs from a dead one whose pid was reused. A
// pid alone is not an identity: pids wrap, and a SIGKILLed recorder's pid may
// belong to anything a minute later. A pid plus its start time (clock ticks
// since boot, field 22 of /proc/PID/stat) names one process for the life of a
// boot; with the boot id it names one for good. Everything is read under a
// procfs root passed in, so tests can fake any process table.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace gpuwatch {

// The largest pid Linux hands out (PID_MAX_LIMIT on 64-bit: 2^22).
inline constexpr std::uint32_t kMaxPid = 4'194'304;

struct ProcessIdentity {
  std::uint32_t pid = 0;
  // Unknown for rows written before gpuwatch stored it, or when procfs
  // could not be read: then the pid alone decides.
  std::optional<std::uint64_t> start_ticks;
};

// Start time of `pid` under `procfs_root`; nullopt when there is no such
// process or its stat cannot be read.
std::optional<std::uint64_t> process_start_ticks(const std::filesystem::path& procfs_root, std::uint32_t pid);

// This process: its pid and, when procfs shows it, its start time.
ProcessIdentity current_process(const std::filesystem::path& procfs_root);

// Whether `who` still runs: its procfs entry exists, it is not a zombie, and
// its start time matches when one is known. An entry whose stat cannot be
// read counts as alive: only what can be proven dead is dead.
bool process_alive(const std::filesystem::path& procfs_root, const ProcessIdentity& who);

// procfs_root/sys/kernel/random/boot_id without its newline; empty when it
// cannot be read.
std::string read_boot_id(const std::filesystem::path& procfs_root);

// A process id as a person types it (`record --pid`): decimal digits only,
// 1..2^31-1 (any positive pid_t; whether it exists is another question).
// Fuzzed; never throws.
std::optional<std::uint32_t> parse_pid(std::string_view text);

// The fields of /proc/PID/stat that gpuwatch reads.
struct PidStat {
  std::uint32_t pid = 0;
  std::uint32_t ppid = 0;
  std::uint32_t pgrp = 0;      // process group
  std::uint32_t session = 0;   // session id: its leader's pid (0: a kernel thread)
  std::uint64_t utime_ticks = 0;
  std::uint64_t stime_ticks = 0;
  std::uint64_t start_ticks = 0;   // since boot: tells a reused pid apart
  std::uint64_t rss_pages = 0;
  std::string comm;
};
// /proc/PID/stat; comm may contain spaces and ')' so parse from the last ')'.
// Fuzzed.
std::optional<PidStat> parse_pid_stat(std::string_view text);

// The state letter of a /proc/PID/stat line (R, S, D, Z, X, ...): the first
// field after the comm, which may itself hold spaces and ')'. Fuzzed.
std::optional<char> parse_pid_state(std::string_view stat_text);

}  // namespace gpuwatch

// Where `status` remembers how far into each run it last looked, so that
// an agent polling a run hears what changed since its previous call.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace gpuwatch::cli {

// $XDG_STATE_HOME/gpuwatch/status/<run id> (~/.local/state/... by default).
std::optional<std::int64_t> last_check_end_mono_ns(const std::string& run_id);
// A failure to remember is reported on stderr, not fatal: the verdict stands.
void remember_check(const std::string& run_id, std::int64_t end_mono_ns);
// After `rm`/`prune`: the deleted run's remembered check goes with it.
void forget_check(const std::string& run_id);

}  // namespace gpuwatch::cli

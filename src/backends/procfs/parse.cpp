// Parsers for the procfs files the host and process readers need. They see
// every process on the machine each tick, and they are fuzzed: no exceptions,
// no undefined behaviour on any input, no allocation beyond the result.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "backends/procfs/host.h"
#include "backends/procfs/process_details.h"
#include "core/lines.h"
#include "core/utf8.h"
#include "core/whole_number.h"

namespace gpuwatch {
namespace {

// Linux's NR_CPUS tops out at 8192; a bigger index is garbage, and capping it
// keeps a hostile "cpu4000000000" line from allocating gigabytes.
constexpr std::uint64_t kMaxCores = 16384;

// Whole token must be a number in range: "-1" and "+1" are malformed here.
template <typename T>
std::optional<T> to_number(std::string_view s) {
  return parse_whole_number<T>(s);
}

// What follows `key` on the first line that starts with it ("Key: value"
// files such as status and io); nullopt when no line does.
std::optional<std::string_view> value_of_key(std::string_view text, std::string_view key) {
  while (!text.empty()) {
    auto line = take_line(text);
    if (line.starts_with(key)) return line.substr(key.size());
  }
  return std::nullopt;
}

bool add(std::uint64_t& acc, std::uint64_t v) { return !__builtin_add_overflow(acc, v, &acc); }

// "user nice system idle [iowait irq softirq steal guest guest_nice]": kernels
// before 2.6 stop after idle, newer ones may append fields we do not know.
std::optional<CpuTimes> parse_cpu_fields(std::string_view rest) {
  std::uint64_t f[10] = {};
  int n = 0;
  for (; n < 10; ++n) {
    const auto token = take_token(rest);
    if (token.empty()) break;
    const auto v = to_number<std::uint64_t>(token);
    if (!v) return std::nullopt;
    f[n] = *v;
  }
  if (n < 4) return std::nullopt;
  CpuTimes t;
  // guest and guest_nice (f[8], f[9]) are already inside user and nice.
  for (const int i : {0, 1, 2, 5, 6, 7}) {
    if (!add(t.busy, f[i])) return std::nullopt;
  }
  t.total = t.busy;
  if (!add(t.total, f[3]) || !add(t.total, f[4])) return std::nullopt;
  return t;
}

}  // namespace

std::optional<ProcStat> parse_proc_stat(std::string_view text) {
  ProcStat stat;
  bool have_all = false;
  while (!text.empty()) {
    auto line = take_line(text);
    if (!line.starts_with("cpu")) continue;
    line.remove_prefix(3);
    std::size_t label_end = 0;
    while (label_end < line.size() && !is_blank(line[label_end])) ++label_end;
    const auto label = line.substr(0, label_end);
    const auto times = parse_cpu_fields(line.substr(label_end));
    if (!times) return std::nullopt;
    if (label.empty()) {
      stat.all = *times;
      have_all = true;
      continue;
    }
    const auto index = to_number<std::uint64_t>(label);
    if (!index || *index >= kMaxCores) return std::nullopt;
    if (*index >= stat.cores.size()) stat.cores.resize(*index + 1);
    stat.cores[*index] = *times;
  }
  if (!have_all) return std::nullopt;
  return stat;
}

std::optional<double> cpu_percent(const CpuTimes& before, const CpuTimes& after) {
  if (before.total == 0 || after.total <= before.total) return std::nullopt;
  const std::uint64_t elapsed = after.total - before.total;
  std::uint64_t busy = after.busy > before.busy ? after.busy - before.busy : 0;
  if (busy > elapsed) busy = elapsed;
  // Ratio first: 100.0 * busy / elapsed can round above 100 when busy == elapsed.
  return 100.0 * (static_cast<double>(busy) / static_cast<double>(elapsed));
}

std::optional<MemInfo> parse_meminfo(std::string_view text) {
  // "Key:   12345 kB". Only the two keys we use are validated; a kernel that
  // adds or garbles other lines must not cost us memory metrics.
  auto value_bytes = [](std::string_view rest) -> std::optional<std::uint64_t> {
    const auto kib = to_number<std::uint64_t>(take_token(rest));
    const auto unit = take_token(rest);
    if (!kib || !(unit.empty() || unit == "kB") || !take_token(rest).empty()) return std::nullopt;
    std::uint64_t bytes = 0;
    if (__builtin_mul_overflow(*kib, std::uint64_t{1024}, &bytes)) return std::nullopt;
    return bytes;
  };
  std::optional<std::uint64_t> total;
  std::optional<std::uint64_t> available;
  while (!text.empty()) {
    auto line = take_line(text);
    std::optional<std::uint64_t>* slot = nullptr;
    if (line.starts_with("MemTotal:")) {
      slot = &total;
    } else if (line.starts_with("MemAvailable:")) {
      slot = &available;
    } else {
      continue;
    }
    line.remove_prefix(line.find(':') + 1);
    *slot = value_bytes(line);
    if (!*slot) return std::nullopt;
  }
  if (!total) return std::nullopt;
  return MemInfo{*total, available};
}

std::optional<std::uint64_t> parse_io_read_bytes(std::string_view text) {
  auto rest = value_of_key(text, "read_bytes:");
  if (!rest) return std::nullopt;
  const auto value = to_number<std::uint64_t>(take_token(*rest));
  if (!value || !take_token(*rest).empty()) return std::nullopt;
  return value;
}

std::optional<std::uint32_t> parse_status_uid(std::string_view status_text) {
  auto rest = value_of_key(status_text, "Uid:");
  if (!rest) return std::nullopt;
  return to_number<std::uint32_t>(take_token(*rest));
}

std::string parse_cmdline(std::string_view raw, std::size_t max_bytes) {
  // The kernel ends every argument with a NUL; a process that rewrote its
  // argv (setproctitle) may leave a run of them as padding.
  while (!raw.empty() && raw.back() == '\0') raw.remove_suffix(1);
  std::string out;
  out.reserve(raw.size() < max_bytes ? raw.size() : max_bytes);
  for (std::size_t i = 0; i < raw.size();) {
    const auto c = static_cast<unsigned char>(raw[i]);
    std::size_t n = utf8_sequence_length(raw, i);
    std::string_view piece = raw.substr(i, n);
    if (c == '\0') {
      piece = " ";
    } else if (n == 0 || c < 0x20 || c == 0x7f ||
               // C1 controls (U+0080..U+009F): a terminal obeys those too.
               (n == 2 && c == 0xC2 && static_cast<unsigned char>(raw[i + 1]) < 0xA0) ||
               // Bidirectional overrides and isolates (U+202A..U+202E,
               // U+2066..U+2069): a terminal that applies them would reorder
               // the row, and the kill question with it.
               (n == 3 && c == 0xE2 && ((raw[i + 1] == '\x80' && raw[i + 2] >= '\xAA' && raw[i + 2] <= '\xAE') ||
                                        (raw[i + 1] == '\x81' && raw[i + 2] >= '\xA6' && raw[i + 2] <= '\xA9')))) {
      // Arguments are bytes, not text; escape sequences must not reach the terminal.
      piece = "?";
      if (n == 0) n = 1;
    }
    if (out.size() + piece.size() > max_bytes) break;
    out.append(piece);
    i += n;
  }
  return out;
}

}  // namespace gpuwatch

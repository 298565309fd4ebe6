#include "annotate/output_pattern.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

namespace gpuwatch {

namespace {

// Backtracking steps one line may cost before it counts as not matching:
// a pattern like (a+)+b must not stall the output it scans. A few
// milliseconds of work at most; real patterns need far fewer steps.
constexpr std::uint32_t kMatchLimit = 1'000'000;
// The JIT's own stack for deeply nested groups (its default is 32 KiB).
constexpr std::size_t kJitStackBytes = 1024 * 1024;

std::string pcre2_message(int code) {
  std::array<PCRE2_UCHAR, 256> buffer{};
  if (pcre2_get_error_message(code, buffer.data(), buffer.size()) < 0) return fmt::format("PCRE2 error {}", code);
  return std::string(reinterpret_cast<const char*>(buffer.data()));
}

std::optional<double> number_in(std::string_view s) {
  double v = 0;
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

}  // namespace

struct OutputPattern::Compiled {
  pcre2_code* code = nullptr;
  pcre2_match_data* match_data = nullptr;
  pcre2_match_context* match_context = nullptr;
  pcre2_jit_stack* jit_stack = nullptr;
  bool jit = false;

  Compiled() = default;
  Compiled(const Compiled&) = delete;
  Compiled& operator=(const Compiled&) = delete;
  ~Compiled() {
    pcre2_jit_stack_free(jit_stack);
    pcre2_match_context_free(match_context);
    pcre2_match_data_free(match_data);
    pcre2_code_free(code);
  }
};

OutputPattern::OutputPattern(std::string_view expression) : compiled_(std::make_unique<Compiled>()) {
  // UTF with UCP: \w, \d and . mean letters, digits and characters as in
  // Python's str patterns; MATCH_INVALID_UTF: output that is not UTF-8 (or a
  // line cut inside a character) is matched, never an error.
  const std::uint32_t options = PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF;
  int error = 0;
  PCRE2_SIZE offset = 0;
  Compiled& c = *compiled_;
  c.code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(expression.data()), expression.size(), options, &error,
                         &offset, nullptr);
  if (c.code == nullptr) {
    throw PatternError(fmt::format("not a valid regular expression: {} at offset {} (after \"{}\")",
                                   pcre2_message(error), offset,
                                   expression.substr(0, std::min<std::size_t>(offset, expression.size()))));
  }
  c.jit = pcre2_jit_compile(c.code, PCRE2_JIT_COMPLETE) == 0;
  c.match_data = pcre2_match_data_create_from_pattern(c.code, nullptr);
  c.match_context = pcre2_match_context_create(nullptr);
  if (c.match_data == nullptr || c.match_context == nullptr) throw std::bad_alloc();
  pcre2_set_match_limit(c.match_context, kMatchLimit);
  if (c.jit) {
    c.jit_stack = pcre2_jit_stack_create(32 * 1024, kJitStackBytes, nullptr);
    if (c.jit_stack != nullptr) pcre2_jit_stack_assign(c.match_context, nullptr, c.jit_stack);
  }

  std::uint32_t names = 0;
  std::uint32_t entry_size = 0;
  PCRE2_SPTR table = nullptr;
  pcre2_pattern_info(c.code, PCRE2_INFO_NAMECOUNT, &names);
  pcre2_pattern_info(c.code, PCRE2_INFO_NAMEENTRYSIZE, &entry_size);
  pcre2_pattern_info(c.code, PCRE2_INFO_NAMETABLE, &table);
  for (std::uint32_t i = 0; i < names; ++i) {
    // Each entry: the group number in two bytes, big-endian, then the name.
    const PCRE2_SPTR entry = table + static_cast<std::size_t>(i) * entry_size;
    const std::size_t group = (static_cast<std::size_t>(entry[0]) << 8) | entry[1];
    const std::string name(reinterpret_cast<const char*>(entry + 2));
    if (!valid_log_name(name) || name.find('.') != std::string::npos) {
      throw PatternError(fmt::format("bad group name '{}' (letters, digits and _)", name));
    }
    // (?J) lets PCRE2 take a name twice; an annotation needs one meaning.
    for (const auto& [n, existing] : named_groups_) {
      if (existing == name) throw PatternError(fmt::format("the group name '{}' is used twice", name));
    }
    named_groups_.emplace_back(group, name);
  }
  const auto scalars = std::count_if(named_groups_.begin(), named_groups_.end(), [](const auto& g) {
    return g.second != "step" && g.second != "epoch" && g.second != "epoch_end" && g.second != "phase" &&
           g.second != "mark";
  });
  if (static_cast<std::size_t>(scalars) > kMaxLogValues) {
    throw PatternError(fmt::format("at most {} named groups of logged values", kMaxLogValues));
  }
  // The table is sorted by name; annotations come in the pattern's order.
  std::sort(named_groups_.begin(), named_groups_.end());
}

OutputPattern::~OutputPattern() = default;
OutputPattern::OutputPattern(OutputPattern&&) noexcept = default;
OutputPattern& OutputPattern::operator=(OutputPattern&&) noexcept = default;

bool OutputPattern::jit() const { return compiled_->jit; }

std::vector<Annotation> OutputPattern::match(std::string_view line) const {
  line = line.substr(0, kMaxScannedLineBytes);
  std::vector<Annotation> out;
  const Compiled& c = *compiled_;
  const int rc = pcre2_match(c.code, reinterpret_cast<PCRE2_SPTR>(line.data()), line.size(), 0, 0, c.match_data,
                             c.match_context);
  // No match, or a match limit hit on this line: nothing to take from it.
  if (rc < 0) return out;
  if (named_groups_.empty()) {
    out.push_back({AnnotationKind::Mark, 0, std::string(line.substr(0, kMaxMarkBytes)), {}, std::nullopt});
    return out;
  }
  const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(c.match_data);
  const std::uint32_t pairs = pcre2_get_ovector_count(c.match_data);
  Annotation log{AnnotationKind::Log, 0, {}, {}, std::nullopt};
  for (const auto& [group, name] : named_groups_) {
    if (group >= pairs || ovector[2 * group] == PCRE2_UNSET) continue;
    const std::size_t begin = ovector[2 * group];
    const std::size_t end = ovector[2 * group + 1];
    // \K can make a group end before it starts.
    if (end < begin || end > line.size()) continue;
    const std::string_view text = line.substr(begin, end - begin);
    if (name == "phase" || name == "mark") {
      const std::size_t limit = name == "phase" ? kMaxPhaseBytes : kMaxMarkBytes;
      out.push_back({name == "phase" ? AnnotationKind::Phase : AnnotationKind::Mark, 0,
                     std::string(text.substr(0, limit)), {}, std::nullopt});
      continue;
    }
    const auto value = number_in(text);
    if (!value) continue;  // "loss nan", a group that caught a word
    if (name == "step" || name == "epoch" || name == "epoch_end") {
      if (*value < 0 || std::floor(*value) != *value || *value > 9007199254740992.0) continue;
      out.push_back({name == "step" ? AnnotationKind::Step : AnnotationKind::Epoch, static_cast<std::int64_t>(*value),
                     {}, {}, std::nullopt, name == "epoch_end"});
    } else {
      log.values.emplace_back(name, *value);
    }
  }
  if (!log.values.empty()) out.push_back(std::move(log));
  return out;
}

}  // namespace gpuwatch

// GCC 12 with -fsanitize=address warns that a std::function inside
// libstdc++'s own regex automaton (_M_insert_subexpr_begin/end) "may be used
// uninitialized": a false positive in the library's code, not in ours, and
// only where <regex> is instantiated, which is here.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include "annotate/output_pattern.h"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

namespace gpuwatch {

namespace {

struct Translated {
  std::string ecmascript;
  std::vector<std::pair<std::size_t, std::string>> named_groups;
};

// Rewrites (?<name>...) and (?P<name>...) as plain groups (ECMAScript
// regexes in std::regex have no named groups), numbering capturing groups
// the way the regex engine will.
Translated translate(std::string_view in) {
  Translated out;
  std::size_t group = 0;
  bool in_class = false;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const char c = in[i];
    if (c == '\\') {
      out.ecmascript += c;
      if (i + 1 < in.size()) out.ecmascript += in[++i];
      continue;
    }
    if (in_class) {
      in_class = c != ']';
      out.ecmascript += c;
      continue;
    }
    if (c == '[') {
      in_class = true;
      out.ecmascript += c;
      // "[]..." and "[^]..." hold a literal ']' first.
      if (i + 1 < in.size() && in[i + 1] == '^') out.ecmascript += in[++i];
      if (i + 1 < in.size() && in[i + 1] == ']') out.ecmascript += in[++i];
      continue;
    }
    if (c != '(') {
      out.ecmascript += c;
      continue;
    }
    const std::string_view rest = in.substr(i + 1);
    std::size_t name_at = 0;
    if (rest.starts_with("?P<")) {
      name_at = 3;
    } else if (rest.starts_with("?<") && !rest.starts_with("?<=") && !rest.starts_with("?<!")) {
      name_at = 2;
    }
    if (name_at == 0) {
      if (!rest.starts_with("?")) ++group;  // (?: (?= (?! do not capture
      out.ecmascript += c;
      continue;
    }
    const std::size_t close = rest.find('>', name_at);
    if (close == std::string_view::npos) throw PatternError("a named group without its closing '>'");
    const std::string name(rest.substr(name_at, close - name_at));
    if (!valid_log_name(name) || name.find('.') != std::string::npos) {
      throw PatternError(fmt::format("bad group name '{}' (letters, digits and _)", name));
    }
    for (const auto& [n, existing] : out.named_groups) {
      if (existing == name) throw PatternError(fmt::format("the group name '{}' is used twice", name));
    }
    out.named_groups.emplace_back(++group, name);
    out.ecmascript += '(';
    i += close + 1;
  }
  return out;
}

std::optional<double> number_in(std::string_view s) {
  double v = 0;
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

}  // namespace

OutputPattern::OutputPattern(std::string_view expression) {
  Translated t = translate(expression);
  try {
    regex_ = std::regex(t.ecmascript, std::regex::ECMAScript | std::regex::optimize);
  } catch (const std::regex_error& e) {
    throw PatternError(fmt::format("not a valid regular expression: {}", e.what()));
  }
  if (regex_.mark_count() < t.named_groups.size()) throw PatternError("the group count does not add up");
  named_groups_ = std::move(t.named_groups);
}

std::vector<Annotation> OutputPattern::match(std::string_view line) const {
  line = line.substr(0, kMaxScannedLineBytes);
  std::match_results<std::string_view::const_iterator> m;
  std::vector<Annotation> out;
  try {
    if (!std::regex_search(line.begin(), line.end(), m, regex_)) return out;
  } catch (const std::regex_error&) {
    return out;  // too complex for this line (error_complexity, error_stack)
  }
  if (named_groups_.empty()) {
    out.push_back({AnnotationKind::Mark, 0, std::string(line.substr(0, kMaxMarkBytes)), {}, std::nullopt});
    return out;
  }
  Annotation log{AnnotationKind::Log, 0, {}, {}, std::nullopt};
  for (const auto& [group, name] : named_groups_) {
    if (!m[group].matched) continue;
    const std::string_view text =
        line.substr(static_cast<std::size_t>(m.position(group)), static_cast<std::size_t>(m.length(group)));
    if (name == "phase" || name == "mark") {
      const std::size_t limit = name == "phase" ? kMaxPhaseBytes : kMaxMarkBytes;
      out.push_back({name == "phase" ? AnnotationKind::Phase : AnnotationKind::Mark, 0,
                     std::string(text.substr(0, limit)), {}, std::nullopt});
      continue;
    }
    const auto value = number_in(text);
    if (!value) continue;  // "loss nan", a group that caught a word
    if (name == "step" || name == "epoch") {
      if (*value < 0 || std::floor(*value) != *value || *value > 9007199254740992.0) continue;
      out.push_back({name == "step" ? AnnotationKind::Step : AnnotationKind::Epoch, static_cast<std::int64_t>(*value),
                     {}, {}, std::nullopt});
    } else {
      log.values.emplace_back(name, *value);
    }
  }
  if (!log.values.empty()) out.push_back(std::move(log));
  return out;
}

}  // namespace gpuwatch

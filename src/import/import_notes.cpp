#include "import/import_notes.h"

#include <algorithm>

#include <fmt/format.h>

namespace gpuwatch {

std::string counted(std::size_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

namespace {

constexpr std::size_t kMaxNotKeptShown = 64;
constexpr std::size_t kMaxNotKeptNameBytes = 80;

}  // namespace

void ImportNotes::not_kept(std::string_view field) {
  std::size_t n = std::min(field.size(), kMaxNotKeptNameBytes);
  while (n < field.size() && n > 0 && (static_cast<unsigned char>(field[n]) & 0xC0) == 0x80) --n;  // whole characters
  const std::string name(field.substr(0, n));
  if (not_kept_.size() < kMaxNotKeptShown) {
    not_kept_.insert(name);
  } else if (!not_kept_.contains(name)) {
    more_not_kept_ = true;
  }
}

std::string ImportNotes::where() const { return fmt::format("{} {}", unit_, number_); }

void ImportNotes::drop(std::string_view reason, std::size_t n) {
  for (auto& [why, count] : drops_) {
    if (why == reason) {
      count += n;
      return;
    }
  }
  drops_.emplace_back(reason, n);
}

std::size_t ImportNotes::samples_dropped() const {
  std::size_t total = 0;
  for (const auto& d : drops_) total += d.second;
  return total;
}

std::string ImportNotes::drop_reasons() const {
  std::string out;
  for (const auto& [why, count] : drops_) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", count, why);
  return out;
}

std::vector<std::string> ImportNotes::warnings() const {
  std::vector<std::string> out;
  if (const std::size_t n = samples_dropped()) {
    out.push_back(fmt::format("{} dropped: {}", counted(n, "sample", "samples"), drop_reasons()));
  }
  out.insert(out.end(), warnings_.begin(), warnings_.end());
  if (clean.non_finite) {
    out.push_back(
        fmt::format("{} NaN or Infinity: taken as absent", counted(clean.non_finite, "value was", "values were")));
  }
  if (clean.invalid_utf8) {
    out.push_back(fmt::format("{} not UTF-8 and became U+FFFD", counted(clean.invalid_utf8, "byte was", "bytes were")));
  }
  if (numeric_strings) {
    out.push_back(fmt::format("{} written as a string and read as a number",
                              counted(numeric_strings, "number was", "numbers were")));
  }
  if (unreadable_values) {
    out.push_back(
        fmt::format("{} not a number: taken as absent", counted(unreadable_values, "value was", "values were")));
  }
  if (!not_kept_.empty()) {
    std::string list;
    for (const auto& f : not_kept_) list += (list.empty() ? "" : ", ") + f;
    out.push_back(fmt::format("not kept (gpuwatch has no metric for them): {}{}", list,
                              more_not_kept_ ? ", and more not listed" : ""));
  }
  return out;
}

}  // namespace gpuwatch

// What an importer noticed on the way: how many samples it kept and dropped
// (and why), and values it had to interpret. Becomes an ImportResult's
// counts and warnings.
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "import/json_elements.h"

namespace gpuwatch {

class ImportNotes {
 public:
  void read(std::size_t n = 1) { read_ += n; }
  // `reason` completes "N samples dropped: ..." (e.g. "not valid JSON").
  void drop(std::string_view reason, std::size_t n = 1);
  // n samples counted as read turned out unusable after all.
  void unread(std::string_view reason, std::size_t n) {
    read_ -= n;
    drop(reason, n);
  }
  void warn(std::string message) { warnings_.push_back(std::move(message)); }
  // A field the file has and gpuwatch has no metric for. The first
  // kMaxNotKeptShown names are kept (each cut to 80 bytes): a file of a
  // million distinct keys must not hold them all.
  void not_kept(std::string_view field);

  // The record being read ("line", 12), for errors that name it.
  void at(std::string_view unit, std::uint64_t number) {
    unit_ = unit;
    number_ = number;
  }
  // "line 12"
  [[nodiscard]] std::string where() const;

  [[nodiscard]] std::size_t samples_read() const { return read_; }
  [[nodiscard]] std::size_t samples_dropped() const;
  // One sentence per kind of problem, dropped samples first.
  [[nodiscard]] std::vector<std::string> warnings() const;
  // "3 not valid JSON, 1 cut off by the end of the file"
  [[nodiscard]] std::string drop_reasons() const;

  CleanCounts clean;                  // NaN/Infinity and invalid UTF-8 met in JSON text
  std::size_t numeric_strings = 0;    // numbers written as strings ("85.0"), read as numbers
  std::size_t unreadable_values = 0;  // values that are no number (a word, a list): absent

 private:
  std::size_t read_ = 0;
  std::vector<std::pair<std::string, std::size_t>> drops_;  // in the order first met
  std::vector<std::string> warnings_;
  std::set<std::string> not_kept_;
  bool more_not_kept_ = false;  // names beyond the first kMaxNotKeptShown
  std::string_view unit_ = "record";
  std::uint64_t number_ = 0;
};

// "1 value was", "3 values were": the count that starts a warning.
std::string counted(std::size_t n, std::string_view one, std::string_view many);

}  // namespace gpuwatch

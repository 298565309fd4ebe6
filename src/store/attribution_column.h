// A process's owner (core/process_attribution.h) as the text of one column,
// processes.attribution: its fields in a fixed order, tab-separated, after a
// format number. The parser never lets a tab into a field (ids are digits and
// hex, units have no blanks), so no escaping is needed; a field added later
// goes at the end, and a reader takes the fields it knows.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/process_attribution.h"

namespace gpuwatch {

// nullopt (NULL) for an empty attribution.
std::optional<std::string> attribution_column(const ProcessAttribution& a);
// Empty for text of another format (or NULL's "").
ProcessAttribution attribution_from_column(std::string_view text);

}  // namespace gpuwatch

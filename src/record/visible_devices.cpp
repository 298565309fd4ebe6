#include "record/visible_devices.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

namespace gpuwatch {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Printable, bounded: the value comes from the environment.
std::string shown(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 64)) out += std::isprint(static_cast<unsigned char>(c)) ? c : '?';
  return s.size() > 64 ? out + "..." : out;
}

// Index of the one GPU whose UUID starts with `prefix` (case aside); -1 if
// none or several.
int by_uuid_prefix(std::string_view prefix, std::span<const DeviceInfo* const> gpus) {
  const std::string p = lower(prefix);
  int found = -1;
  for (const DeviceInfo* d : gpus) {
    if (!lower(d->uuid).starts_with(p)) continue;
    if (found >= 0) return -1;
    found = d->index;
  }
  return found;
}

}  // namespace

VisibleList parse_cuda_visible_devices(std::string_view value) {
  VisibleList out;
  if (trim(value).empty()) return out;
  while (true) {
    const auto comma = value.find(',');
    const std::string_view text = trim(value.substr(0, comma));
    VisibleEntry e;
    e.text = std::string(text);
    bool valid = true;
    if (all_digits(text)) {
      // Anything past 6 digits is out of range on any machine.
      valid = text.size() <= 6;
      if (valid) e.index = static_cast<unsigned>(std::stoul(e.text));
    } else if (text.starts_with("GPU-") && text.size() > 4) {
      e.kind = VisibleEntry::Kind::Uuid;
    } else if (text.starts_with("MIG-") && text.size() > 4) {
      e.kind = VisibleEntry::Kind::Mig;
    } else {
      valid = false;
    }
    // CUDA takes indices or ids, not both (MIG ids and UUIDs are both ids).
    if (valid && !out.entries.empty() &&
        (e.kind == VisibleEntry::Kind::Index) != (out.entries.front().kind == VisibleEntry::Kind::Index)) {
      valid = false;
    }
    if (!valid) {
      out.stopped_at = e.text.empty() ? std::string("(an empty entry)") : e.text;
      return out;
    }
    out.entries.push_back(std::move(e));
    if (comma == std::string_view::npos) return out;
    value.remove_prefix(comma + 1);
  }
}

std::optional<std::string> environ_value(std::string_view environ, std::string_view name) {
  while (!environ.empty()) {
    const auto end = environ.find('\0');
    const std::string_view entry = environ.substr(0, end);
    // The first one, as getenv() finds it.
    if (entry.size() > name.size() && entry.starts_with(name) && entry[name.size()] == '=') {
      return std::string(entry.substr(name.size() + 1));
    }
    if (end == std::string_view::npos) break;
    environ.remove_prefix(end + 1);
  }
  return std::nullopt;
}

VisibleSelection resolve_cuda_visible_devices(std::string_view value, std::string_view device_order,
                                              std::span<const DeviceInfo> devices) {
  VisibleSelection sel;
  std::vector<const DeviceInfo*> nvidia;
  for (const DeviceInfo& d : devices) {
    if (d.backend == "nvml") nvidia.push_back(&d);
  }
  // CUDA's index order: the PCI bus order, which is NVML's too.
  std::stable_sort(nvidia.begin(), nvidia.end(),
                   [](const DeviceInfo* a, const DeviceInfo* b) { return lower(a->pci_bus_id) < lower(b->pci_bus_id); });
  const bool pci_order = trim(device_order) == "PCI_BUS_ID";
  const bool one_model = std::all_of(nvidia.begin(), nvidia.end(),
                                     [&](const DeviceInfo* d) { return d->name == nvidia.front()->name; });

  const VisibleList list = parse_cuda_visible_devices(value);
  const auto stop = [&](const std::string& entry, std::string_view why) {
    sel.notes.push_back(fmt::format("CUDA_VISIBLE_DEVICES: '{}' {}; CUDA ignores it and every entry after it",
                                    shown(entry), why));
  };
  for (const VisibleEntry& e : list.entries) {
    int index = -1;
    if (e.kind == VisibleEntry::Kind::Index) {
      if (e.index >= nvidia.size()) {
        stop(e.text, fmt::format("is past the last GPU (this machine has {})", nvidia.size()));
        break;
      }
      if (!pci_order && !one_model) {
        sel.resolved = false;
        sel.notes.push_back(fmt::format(
            "CUDA_VISIBLE_DEVICES={}: CUDA counts GPUs fastest first (CUDA_DEVICE_ORDER is not PCI_BUS_ID) and "
            "these GPUs are of different models, so index {} cannot be matched for sure; watching every GPU and "
            "judging those the command uses (set CUDA_DEVICE_ORDER=PCI_BUS_ID or use GPU UUIDs to choose)",
            shown(value), e.index));
        return sel;
      }
      index = nvidia[e.index]->index;
    } else if (e.kind == VisibleEntry::Kind::Uuid) {
      index = by_uuid_prefix(e.text, nvidia);
      if (index < 0) {
        stop(e.text, "matches no GPU's UUID, or several");
        break;
      }
    } else {
      // MIG-GPU-<uuid>/<gi>/<ci> names its GPU; MIG-<uuid> names a MIG
      // instance, which gpuwatch does not list yet.
      const std::string_view id = std::string_view(e.text).substr(4);
      if (!id.starts_with("GPU-")) {
        sel.resolved = false;
        sel.notes.push_back(fmt::format(
            "CUDA_VISIBLE_DEVICES: MIG instance '{}' cannot be matched to its GPU yet; watching every GPU and "
            "judging those the command uses",
            shown(e.text)));
        return sel;
      }
      index = by_uuid_prefix(id.substr(0, id.find('/')), nvidia);
      if (index < 0) {
        stop(e.text, "names no GPU's UUID");
        break;
      }
    }
    // A MIG GPU may be listed once per instance; a plain GPU twice hides all.
    if (std::find(sel.gpus.begin(), sel.gpus.end(), index) != sel.gpus.end()) {
      if (e.kind == VisibleEntry::Kind::Mig) continue;
      sel.gpus.clear();
      sel.notes.push_back(fmt::format("CUDA_VISIBLE_DEVICES lists GPU {} twice ('{}'): CUDA then shows no GPU", index,
                                      shown(e.text)));
      return sel;
    }
    sel.gpus.push_back(index);
  }
  if (!list.stopped_at.empty() && sel.notes.empty()) stop(list.stopped_at, "is no GPU index, UUID or MIG id of the list's kind");
  return sel;
}

}  // namespace gpuwatch

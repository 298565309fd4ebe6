#include "process/visible_devices.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include <fmt/format.h>

#include "core/lines.h"

namespace gpuwatch {

namespace {

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

// Index of the one GPU whose UUID (or, of_mig_instances, one of whose MIG
// instances' UUIDs) starts with `prefix`, case aside; -1 if none or several.
int by_uuid_prefix(std::string_view prefix, std::span<const DeviceInfo* const> gpus, bool of_mig_instances = false) {
  const std::string p = lower(prefix);
  const auto matches = [&](const std::string& uuid) { return !uuid.empty() && lower(uuid).starts_with(p); };
  int found = -1;
  for (const DeviceInfo* d : gpus) {
    const auto hits = of_mig_instances ? std::count_if(d->mig_instances.begin(), d->mig_instances.end(),
                                                       [&](const MigInstance& m) { return matches(m.uuid); })
                                       : (matches(d->uuid) ? 1 : 0);
    if (hits == 0) continue;
    if (found >= 0 || hits > 1) return -1;
    found = d->index;
  }
  return found;
}

// A vendor's GPUs in its runtime's index order (the PCI bus order).
std::vector<const DeviceInfo*> gpus_of(std::span<const DeviceInfo> devices, std::string_view backend) {
  std::vector<const DeviceInfo*> out;
  for (const DeviceInfo& d : devices) {
    if (d.backend == backend) out.push_back(&d);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const DeviceInfo* a, const DeviceInfo* b) { return lower(a->pci_bus_id) < lower(b->pci_bus_id); });
  return out;
}

// One ROCm variable applied to the GPUs still in view: indices into them,
// or GPU-<unique_id> (any unique prefix, case aside). The first entry that
// names none of them ends the list, as in CUDA's rules.
std::vector<const DeviceInfo*> apply_rocm_list(std::string_view name, std::string_view value,
                                               const std::vector<const DeviceInfo*>& in_view,
                                               std::vector<std::string>& notes) {
  std::vector<const DeviceInfo*> out;
  const VisibleList list = parse_cuda_visible_devices(value);
  std::string stopped_at = list.stopped_at;
  for (const VisibleEntry& e : list.entries) {
    const DeviceInfo* found = nullptr;
    if (e.kind == VisibleEntry::Kind::Index) {
      if (e.index < in_view.size()) found = in_view[e.index];
    } else if (e.kind == VisibleEntry::Kind::Uuid) {
      // amdgpu's unique_id is the UUID without ROCm's "GPU-".
      const int index = by_uuid_prefix(std::string_view(e.text).substr(4), in_view);
      for (const DeviceInfo* d : in_view) {
        if (d->index == index) found = d;
      }
    }
    if (found == nullptr) {
      stopped_at = e.text;
      break;
    }
    if (std::find(out.begin(), out.end(), found) == out.end()) out.push_back(found);
  }
  if (!stopped_at.empty()) {
    notes.push_back(fmt::format("{}: '{}' names none of the {} AMD GPU(s) in view; it and every entry after it "
                                "are ignored",
                                name, shown(stopped_at), in_view.size()));
  }
  return out;
}

// ZE_AFFINITY_MASK's devices: "N" or "N.M[.K]"; an entry that is no such
// number or past the last device is ignored on its own.
std::vector<const DeviceInfo*> apply_ze_affinity_mask(std::string_view value,
                                                      const std::vector<const DeviceInfo*>& intel,
                                                      std::vector<std::string>& notes) {
  std::vector<const DeviceInfo*> out;
  while (true) {
    const auto comma = value.find(',');
    const std::string_view entry = trimmed(value.substr(0, comma), kIsSpace);
    const std::string_view device = entry.substr(0, entry.find('.'));
    const std::size_t n = all_digits(device) && device.size() <= 6 ? std::stoul(std::string(device)) : intel.size();
    if (n < intel.size()) {
      if (std::find(out.begin(), out.end(), intel[n]) == out.end()) out.push_back(intel[n]);
    } else {
      notes.push_back(fmt::format("ZE_AFFINITY_MASK: '{}' names none of the {} Intel GPU(s); ignored", shown(entry),
                                  intel.size()));
    }
    if (comma == std::string_view::npos) return out;
    value.remove_prefix(comma + 1);
  }
}

void add_shown(GpuVisibility& v, std::string_view backend, const std::vector<const DeviceInfo*>& gpus) {
  v.constrained_backends.emplace_back(backend);
  for (const DeviceInfo* d : gpus) v.gpus.push_back(d->index);
}

template <typename Lookup>
GpuVisibilityVariables read_visibility_variables(Lookup&& lookup) {
  GpuVisibilityVariables v;
  v.cuda_visible_devices = lookup("CUDA_VISIBLE_DEVICES");
  v.cuda_device_order = lookup("CUDA_DEVICE_ORDER").value_or("");
  v.rocr_visible_devices = lookup("ROCR_VISIBLE_DEVICES");
  v.hip_visible_devices = lookup("HIP_VISIBLE_DEVICES");
  v.ze_affinity_mask = lookup("ZE_AFFINITY_MASK");
  return v;
}

}  // namespace

VisibleList parse_cuda_visible_devices(std::string_view value) {
  VisibleList out;
  if (trimmed(value, kIsSpace).empty()) return out;
  while (true) {
    const auto comma = value.find(',');
    const std::string_view text = trimmed(value.substr(0, comma), kIsSpace);
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
  // CUDA's index order: the PCI bus order, which is NVML's too.
  const std::vector<const DeviceInfo*> nvidia = gpus_of(devices, "nvml");
  const bool pci_order = trimmed(device_order, kIsSpace) == "PCI_BUS_ID";
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
      // instance, found among the instances the driver listed.
      const std::string_view id = std::string_view(e.text).substr(4);
      if (!id.starts_with("GPU-")) {
        index = by_uuid_prefix(e.text, nvidia, /*of_mig_instances=*/true);
        if (index < 0) {
          sel.resolved = false;
          sel.notes.push_back(fmt::format(
              "CUDA_VISIBLE_DEVICES: MIG instance '{}' is none of the MIG instances the driver lists (or "
              "several); watching every GPU and judging those the command uses",
              shown(e.text)));
          return sel;
        }
      } else {
        index = by_uuid_prefix(id.substr(0, id.find('/')), nvidia);
      }
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

GpuVisibilityVariables GpuVisibilityVariables::from_environ(std::string_view environ) {
  return read_visibility_variables([&](const char* name) { return environ_value(environ, name); });
}

GpuVisibilityVariables GpuVisibilityVariables::from_lookup(const EnvironmentLookup& env) {
  return read_visibility_variables(env);
}

bool GpuVisibility::constrains(std::string_view backend) const {
  return std::find(constrained_backends.begin(), constrained_backends.end(), backend) != constrained_backends.end();
}

GpuVisibility resolve_gpu_visibility(const GpuVisibilityVariables& vars, std::span<const DeviceInfo> devices) {
  GpuVisibility v;
  const auto note_variable = [&](std::string_view name) {
    if (std::find(v.variables.begin(), v.variables.end(), name) == v.variables.end()) v.variables.emplace_back(name);
  };

  const bool has_nvidia = std::any_of(devices.begin(), devices.end(), [](const DeviceInfo& d) { return d.backend == "nvml"; });
  if (vars.cuda_visible_devices && has_nvidia) {
    VisibleSelection cuda = resolve_cuda_visible_devices(*vars.cuda_visible_devices, vars.cuda_device_order, devices);
    v.notes = std::move(cuda.notes);
    if (!cuda.resolved) {
      v.resolved = false;
      return v;
    }
    v.constrained_backends.emplace_back("nvml");
    v.gpus = std::move(cuda.gpus);
    note_variable("CUDA_VISIBLE_DEVICES");
  }

  std::vector<const DeviceInfo*> amd = gpus_of(devices, "amdgpu");
  const std::optional<std::string>& hip = vars.hip_visible_devices ? vars.hip_visible_devices : vars.cuda_visible_devices;
  if (!amd.empty() && (vars.rocr_visible_devices || hip)) {
    if (vars.rocr_visible_devices) {
      amd = apply_rocm_list("ROCR_VISIBLE_DEVICES", *vars.rocr_visible_devices, amd, v.notes);
      note_variable("ROCR_VISIBLE_DEVICES");
    }
    if (hip) {
      const char* name = vars.hip_visible_devices ? "HIP_VISIBLE_DEVICES" : "CUDA_VISIBLE_DEVICES";
      amd = apply_rocm_list(name, *hip, amd, v.notes);
      note_variable(name);
    }
    add_shown(v, "amdgpu", amd);
  }

  const std::vector<const DeviceInfo*> intel = gpus_of(devices, "intel");
  if (!intel.empty() && vars.ze_affinity_mask && !vars.ze_affinity_mask->empty()) {
    add_shown(v, "intel", apply_ze_affinity_mask(*vars.ze_affinity_mask, intel, v.notes));
    note_variable("ZE_AFFINITY_MASK");
  }
  std::sort(v.gpus.begin(), v.gpus.end());
  v.gpus.erase(std::unique(v.gpus.begin(), v.gpus.end()), v.gpus.end());
  return v;
}

}  // namespace gpuwatch

#include "backends/drm_cards.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <system_error>
#include <utility>

#include "backends/procfs/read_at.h"
#include "core/lines.h"
#include "core/whole_number.h"

namespace gpuwatch::drm_cards {
namespace {

namespace fs = std::filesystem;

std::optional<unsigned> card_number(std::string_view name) {
  if (!name.starts_with("card")) return std::nullopt;
  return parse_whole_number<unsigned>(name.substr(4));
}

// "0000:03:00.0": domain, bus, device, function in hex.
bool looks_like_pci_address(std::string_view s) {
  if (s.size() != 12 || s[4] != ':' || s[7] != ':' || s[10] != '.') return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i == 4 || i == 7 || i == 10) continue;
    const char c = s[i];
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

}  // namespace

std::vector<std::string> list_cards(const fs::path& drm_class) {
  std::vector<std::pair<unsigned, std::string>> cards;
  std::error_code ec;
  for (fs::directory_iterator it(drm_class, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (const auto n = card_number(name)) cards.emplace_back(*n, std::move(name));
  }
  std::sort(cards.begin(), cards.end());
  std::vector<std::string> names;
  names.reserve(cards.size());
  for (auto& card : cards) names.push_back(std::move(card.second));
  return names;
}

std::string pci_bus_id(const fs::path& card_dir) {
  std::error_code ec;
  std::string id = fs::read_symlink(card_dir / "device", ec).filename().string();
  if (ec || !looks_like_pci_address(id)) id = fs::canonical(card_dir / "device", ec).filename().string();
  return ec ? std::string() : id;
}

std::string driver_of(const fs::path& device) {
  std::error_code ec;
  const fs::path target = fs::read_symlink(device / "driver", ec);
  return ec ? std::string() : target.filename().string();
}

std::vector<FoundCard> find_cards(const fs::path& sysfs_root, std::string_view vendor_id,
                                  const std::vector<std::string_view>& drivers,
                                  std::vector<std::string>& other_driver) {
  std::vector<FoundCard> found;
  for (const std::string& name : list_cards(sysfs_root / "class/drm")) {
    const fs::path card_dir = sysfs_root / "class/drm" / name;
    if (read_text(card_dir / "device/vendor") != vendor_id) continue;
    FoundCard card{card_dir, pci_bus_id(card_dir), driver_of(card_dir / "device")};
    if (std::find(drivers.begin(), drivers.end(), card.driver) == drivers.end()) {
      other_driver.push_back(card.pci_bus_id + " (" + (card.driver.empty() ? "no driver" : card.driver) + ")");
      continue;
    }
    const auto same = [&](const FoundCard& c) { return c.pci_bus_id == card.pci_bus_id; };
    if (std::find_if(found.begin(), found.end(), same) != found.end()) continue;
    found.push_back(std::move(card));
  }
  return found;
}

std::string join(const std::vector<std::string>& items) {
  std::string list;
  for (const std::string& s : items) list += (list.empty() ? "" : ", ") + s;
  return list;
}

std::optional<std::string> read_text(const fs::path& path) {
  std::string buf;
  const std::optional<std::string_view> text = read_at(AT_FDCWD, path.c_str(), buf);
  if (!text) return std::nullopt;
  return std::string(trimmed(*text, kWhiteSpace));
}

bool exists_at(int dir_fd, const std::string& name) {
  return dir_fd >= 0 && !name.empty() && ::faccessat(dir_fd, name.c_str(), F_OK, 0) == 0;
}

}  // namespace gpuwatch::drm_cards

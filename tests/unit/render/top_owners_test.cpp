// top's owner rows (the o key, --group-by owner) and its JSON's "owners":
// the processes grouped by Slurm job, container, pod, unit or user, sorted
// as the process table is.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <string>

#include "render/top/process_table.h"
#include "render/top/top_json.h"
#include "render/top/top_screen.h"
#include "../core/attribution_examples.h"
#include "top_view_util.h"

namespace gpuwatch {
namespace {

using namespace simdjson;
using test::burstable_pod;
using test::make_top_view;
using test::slurm_array_task;

// Five processes of alice's make_top_view (1, 2, 3, 4, 5 GiB on GPUs 0, 1,
// 0, 1, 0): the first two of an array task, the third in a pod, the rest
// hers alone.
TopView owners_view() {
  TopView view = make_top_view(2, 10, 5);
  for (TopProcess& p : view.processes) {
    p.gpu_percent = 10;
    if (p.pid == 1000 || p.pid == 1001) p.attribution = slurm_array_task();
    if (p.pid == 1002) p.attribution = burstable_pod();
  }
  view.processes[0].attribution.step = "batch";  // another step of the same job
  return view;
}

TEST(TopOwners, GroupsAreSortedAsTheProcessesAre) {
  const TopView view = owners_view();
  const auto groups = owner_groups(view.processes, ProcessSort::GpuMemory);
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0].owner, (Owner{OwnerKind::User, "alice"}));  // 4 + 5 GiB
  EXPECT_EQ(groups[0].gpu_memory_bytes, 9 * kGiB);
  // 3 GiB each: the kinds' order decides, the job first.
  EXPECT_EQ(groups[1].owner, (Owner{OwnerKind::SlurmJob, "1233_7"}));  // 1 + 2 GiB, its two steps
  EXPECT_EQ(groups[1].gpus, (std::vector<int>{0, 1}));
  EXPECT_EQ(groups[2].owner, (Owner{OwnerKind::Container, "c0ffee112233"}));
  // CPU: make_top_view gives 50, 40, 30, 20, 10 %; the job has 50 + 40.
  const auto by_cpu = owner_groups(view.processes, ProcessSort::CpuPercent);
  EXPECT_EQ(by_cpu[0].owner.kind, OwnerKind::SlurmJob);
  const auto by_name = owner_groups(view.processes, ProcessSort::Pid);
  EXPECT_EQ(by_name[0].owner.kind, OwnerKind::SlurmJob);  // the kinds' order, then names
  EXPECT_EQ(by_name[2].owner.kind, OwnerKind::User);
}

TEST(TopOwners, OneRowPerOwnerWithItsSums) {
  TopView view = owners_view();
  view.by_owner = true;
  EXPECT_EQ(table_rows(view), 3u);
  const auto lines = process_table(view, 100, 10);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0].text(),
            "OWNER                KIND      PROCS   GPU MEM  GPU%   CPU% GPUS     USERS" + std::string(26, ' '));
  EXPECT_EQ(lines[0].spans().front().style, Style::Header);
  EXPECT_EQ(lines[1].spans().front().style, Style::Selected);
  EXPECT_EQ(lines[1].text(),
            "alice                user          2  9.00 GiB    20   30.0 0,1      alice" + std::string(26, ' '));
  EXPECT_EQ(lines[2].text(), "1233_7               slurm_job     2  3.00 GiB    20   90.0 0,1      alice");
  EXPECT_EQ(lines[3].text(), "c0ffee112233         container     1  3.00 GiB    10   30.0 0        alice");
  // The screen says which rows it shows; the keys line offers the switch.
  const Screen screen = compose_top_screen(view, 100, 40);
  EXPECT_NE(screen[0].text().find("by owner  sort: GPU memory"), std::string::npos) << screen[0].text();
  EXPECT_NE(screen.back().text().find("o owners"), std::string::npos) << screen.back().text();
}

// The o key made the line of keys wider than 80 columns: the hints the
// help lists anyway give way, "h help" stays.
TEST(TopOwners, TheKeysLineKeepsHelpOnEightyColumns) {
  const TopView view = make_top_view(1, 10, 1);
  const std::string narrow = compose_top_screen(view, 80, 24).back().text();
  EXPECT_NE(narrow.find("o owners"), std::string::npos) << narrow;
  EXPECT_NE(narrow.find("h help"), std::string::npos) << narrow;
  EXPECT_EQ(narrow.find("0-9 GPU"), std::string::npos) << narrow;
  const std::string wide = compose_top_screen(view, 100, 24).back().text();
  EXPECT_NE(wide.find("+- interval  0-9 GPU  h help"), std::string::npos) << wide;
}

TEST(TopOwners, CellsOfEachKind) {
  EXPECT_EQ(owner_cell({OwnerKind::Pod, "0a1b2c3d-4e5f-6789-abcd-ef0123456789"}), "pod:0a1b2c3d");
  EXPECT_EQ(owner_cell({OwnerKind::Unit, "session-3.scope"}), "session-3.scope");
  EXPECT_EQ(owner_cell({OwnerKind::Unknown, ""}), "(not in /proc)");
  TopView view = make_top_view(8, 10, 8);
  view.by_owner = true;
  for (TopProcess& p : view.processes) p.gpu = static_cast<int>(p.pid - 1000) == 4 ? 6 : static_cast<int>(p.pid - 1000);
  // GPUs 0-3, 5 and 6 (the fifth process moved to 6), 7: runs of three and more as ranges.
  EXPECT_NE(process_table(view, 100, 5)[1].text().find(" 0-3,5-7 "), std::string::npos)
      << process_table(view, 100, 5)[1].text();
}

TEST(TopOwners, JsonListsEveryOwnerWhateverTheScreenShows) {
  const TopView view = owners_view();
  dom::parser parser;
  const dom::element doc = parser.parse(render_top_json(view));
  EXPECT_EQ(int64_t(doc["schema_version"]), 2);  // an added key: the version stays
  const dom::array owners = doc["owners"];
  ASSERT_EQ(owners.size(), 3u);
  const dom::element job = owners.at(1);
  EXPECT_EQ(std::string_view(job["owner"]), "1233_7");
  EXPECT_EQ(std::string_view(job["kind"]), "slurm_job");
  EXPECT_EQ(uint64_t(job["processes"]), 2u);
  EXPECT_EQ(uint64_t(job["pids"].at(0)), 1000u);
  EXPECT_EQ(int64_t(job["gpus"].at(1)), 1);
  EXPECT_EQ(std::string_view(job["users"].at(0)), "alice");
  EXPECT_EQ(uint64_t(job["gpu_memory_bytes"]), 3 * kGiB);
  EXPECT_DOUBLE_EQ(double(job["gpu_util_percent_sum"]), 20);
  EXPECT_DOUBLE_EQ(double(job["cpu_percent_sum"]), 90);
  EXPECT_TRUE(job["pod_uid"].is_null());
  const dom::element pod = owners.at(2);
  EXPECT_EQ(std::string_view(pod["kind"]), "container");
  EXPECT_EQ(std::string_view(pod["container_runtime"]), "crio");
  EXPECT_EQ(std::string_view(pod["pod_uid"]), "0a1b2c3d-4e5f-6789-abcd-ef0123456789");
  EXPECT_EQ(std::string_view(pod["qos"]), "Burstable");
  TopView gone = make_top_view(1, 10, 1);
  gone.processes[0].user.clear();
  gone.processes[0].gpu_memory_bytes.reset();
  gone.processes[0].cpu_percent.reset();
  const dom::element unknown = parser.parse(render_top_json(gone))["owners"].at(0);
  EXPECT_TRUE(unknown["owner"].is_null());
  EXPECT_EQ(std::string_view(unknown["kind"]), "unknown");
  EXPECT_TRUE(unknown["gpu_memory_bytes"].is_null());
  EXPECT_TRUE(unknown["gpu_util_percent_sum"].is_null());
  EXPECT_EQ(dom::array(unknown["users"]).size(), 0u);
}

}  // namespace
}  // namespace gpuwatch

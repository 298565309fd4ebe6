// A process's owner where it is shown: the report's process table and JSON,
// top's table (the OWNER column) and its JSON snapshot.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <string>

#include "render/report.h"
#include "render/top/process_table.h"
#include "render/top/top_json.h"
#include "../core/attribution_examples.h"
#include "report_test_util.h"
#include "top_view_util.h"

namespace gpuwatch {
namespace {

using namespace simdjson;
using test::make_top_view;
using test::slurm_array_task;
using test::burstable_pod;


TEST(AttributionRender, ReportTableHasAnOwnerColumnOnlyWhereSomeProcessHasOne) {
  RunReport r = report_test::report(60);
  ProcessRecord p;
  p.pid = 42;
  p.name = "python3";
  r.processes.push_back(p);
  EXPECT_EQ(render_report_text(r).find("owner"), std::string::npos);
  r.processes[0].attribution = slurm_array_task();
  p.pid = 43;
  r.processes.push_back(p);
  const std::string text = render_report_text(r);
  EXPECT_NE(text.find("owner"), std::string::npos) << text;
  EXPECT_NE(text.find("1233_7.0"), std::string::npos) << text;
}

TEST(AttributionRender, ReportJsonHasEveryKeyNullWhereUnknown) {
  RunReport r = report_test::report(60);
  ProcessRecord p;
  p.pid = 42;
  p.attribution = burstable_pod();
  r.processes.push_back(p);
  p.pid = 43;
  p.attribution = {};
  r.processes.push_back(p);
  dom::parser parser;
  const dom::element doc = parser.parse(render_report_json(r));
  const dom::element a = doc["processes"].at(0)["attribution"];
  EXPECT_EQ(std::string_view(a["pod_uid"]), "0a1b2c3d-4e5f-6789-abcd-ef0123456789");
  EXPECT_EQ(std::string_view(a["qos"]), "Burstable");
  EXPECT_EQ(std::string_view(a["container_short"]), "c0ffee112233");
  EXPECT_EQ(std::string_view(a["container_runtime"]), "crio");
  EXPECT_TRUE(a["job"].is_null());
  EXPECT_TRUE(a["slurm_job"].is_null());
  const dom::element none = doc["processes"].at(1)["attribution"];
  for (const char* key : {"job", "step", "array_job", "array_task", "slurm_job", "container", "container_short",
                          "container_runtime", "pod_uid", "qos", "unit"}) {
    EXPECT_TRUE(none[key].is_null()) << key;
  }
}

TEST(AttributionRender, TopOwnerColumnAndOtherNamespace) {
  TopView view = make_top_view(1, 10, 2);
  EXPECT_EQ(process_table(view, 140, 5)[0].text().find("OWNER"), std::string::npos);
  view.processes[0].attribution = slurm_array_task();
  view.processes[1].attribution = burstable_pod();
  const auto lines = process_table(view, 140, 5);
  EXPECT_NE(lines[0].text().find("OWNER"), std::string::npos);
  EXPECT_NE(lines[1].text().find(" 1233_7.0 "), std::string::npos) << lines[1].text();
  EXPECT_NE(lines[2].text().find(" c0ffee112233 "), std::string::npos) << lines[2].text();
  // The OWNER header sits over the owners (in columns: "–" is 3 bytes).
  const auto columns = [](std::string s) {
    for (auto at = s.find("–"); at != std::string::npos; at = s.find("–")) s.replace(at, 3, "-");
    return s;
  };
  EXPECT_EQ(columns(lines[0].text()).find("OWNER"), columns(lines[1].text()).find("1233_7.0"));
  view.processes[1].command.clear();
  EXPECT_NE(process_table(view, 140, 5)[2].text().find("(not in /proc here)"), std::string::npos);
  view.processes[1].other_pid_namespace = true;
  EXPECT_NE(process_table(view, 140, 5)[2].text().find("(other PID namespace)"), std::string::npos);
  dom::parser parser;
  const dom::element doc = parser.parse(render_top_json(view));
  EXPECT_EQ(std::string_view(doc["processes"].at(0)["attribution"]["slurm_job"]), "1233_7.0");
  EXPECT_TRUE(bool(doc["processes"].at(1)["other_pid_namespace"]));
}

}  // namespace
}  // namespace gpuwatch

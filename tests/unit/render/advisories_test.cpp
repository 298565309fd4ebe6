#include "render/advisories.h"

#include <gtest/gtest.h>

#include <string>

namespace gpuwatch {
namespace {

Advisory input_bound() {
  return {"util.input_bound",
          Severity::Warning,
          0,
          "utilization 3 % over 60 s with 21 idle gaps, one every 1.0 s: the GPU waits for its input",
          {{"util_mean_percent", 3.2, "percent"},
           {"idle_gaps", 21, "count"},
           {"window_s", 60, "seconds"},
           {"tree_read_bytes_per_second", 300.0 * 1024 * 1024, "bytes_per_second"},
           {"mem_total_bytes", 80.0 * 1024 * 1024 * 1024, "bytes"}},
          "Feed it faster: more DataLoader workers (num_workers), pin_memory, a deeper prefetch, faster "
          "storage; then a larger batch.",
          true};
}

Advisory imbalance() {
  return {"balance.imbalance", Severity::Info, std::nullopt, "the load \"is\" imbalanced", {}, "", false};
}

TEST(Advisories, TextIsALinePlusEvidenceAndSuggestion) {
  const std::vector<Advisory> list{input_bound(), imbalance()};
  const std::string text = advisories_text(list);
  EXPECT_EQ(text,
            "[warning] util.input_bound GPU 0: utilization 3 % over 60 s with 21 idle gaps, one every 1.0 s: the\n"
            "    GPU waits for its input\n"
            "    evidence: util_mean_percent 3.2 %, idle_gaps 21, window_s 60.0 s, tree_read_bytes_per_second\n"
            "      300.0 MiB/s, mem_total_bytes 80.00 GiB\n"
            "    suggestion: Feed it faster: more DataLoader workers (num_workers), pin_memory, a deeper\n"
            "      prefetch, faster storage; then a larger batch.\n"
            "[info] balance.imbalance: the load \"is\" imbalanced\n");
  EXPECT_EQ(advisories_text({}), "");
}

TEST(Advisories, ChangesSayWhatMoved) {
  Advisory worse = input_bound();
  worse.severity = Severity::Critical;
  const std::vector<AdvisoryChange> changes{{ChangeKind::SeverityChanged, worse, Severity::Warning},
                                            {ChangeKind::Cleared, imbalance(), std::nullopt}};
  const std::string text = advisory_changes_text(changes);
  EXPECT_EQ(text.substr(0, text.find('\n')),
            "[critical] util.input_bound GPU 0 (was warning): utilization 3 % over 60 s with 21 idle gaps, one");
  EXPECT_NE(text.find("\n[cleared] balance.imbalance\n"), std::string::npos) << text;
}

TEST(Advisories, Json) {
  std::string out;
  JsonWriter w(out);
  const std::vector<Advisory> list{input_bound(), imbalance()};
  write_advisories_json(w, list);
  EXPECT_EQ(out.substr(0, out.find(",\"evidence\"")),
            "[{\"id\":\"util.input_bound\",\"severity\":\"warning\",\"gpu\":0,\"summary\":\"utilization 3 % "
            "over 60 s with 21 idle gaps, one every 1.0 s: the GPU waits for its input\"");
  EXPECT_NE(out.find("\"evidence\":[{\"name\":\"util_mean_percent\",\"value\":3.2,\"unit\":\"percent\"},"),
            std::string::npos);
  EXPECT_NE(out.find("\"underuse\":true,\"action\":\"\",\"explains\":[],\"explained_by\":null}"), std::string::npos);
  EXPECT_NE(out.find("{\"id\":\"balance.imbalance\",\"severity\":\"info\",\"gpu\":null,\"summary\":\"the load "
                     "\\\"is\\\" imbalanced\",\"evidence\":[],\"suggestion\":\"\",\"underuse\":false,"
                     "\"action\":\"\",\"explains\":[],\"explained_by\":null}]"),
            std::string::npos)
      << out;

  std::string changes;
  JsonWriter c(changes);
  const std::vector<AdvisoryChange> list2{{ChangeKind::SeverityChanged, input_bound(), Severity::Info},
                                          {ChangeKind::Appeared, imbalance(), std::nullopt}};
  write_advisory_changes_json(c, list2);
  EXPECT_EQ(changes.substr(0, changes.find(",\"severity\"")),
            "[{\"change\":\"severity_changed\",\"previous_severity\":\"info\",\"id\":\"util.input_bound\"");
  EXPECT_NE(changes.find("{\"change\":\"appeared\",\"previous_severity\":null,\"id\":\"balance.imbalance\""),
            std::string::npos);
}

TEST(Advisories, EvidenceValuesInTheirUnits) {
  EXPECT_EQ(format_evidence_value({"a", 38, "percent"}), "38 %");
  EXPECT_EQ(format_evidence_value({"a", 49.96, "percent"}), "50 %");
  EXPECT_EQ(format_evidence_value({"a", 49.6, "percent"}), "49.6 %");
  EXPECT_EQ(format_evidence_value({"waiting_gpu", 3, "gpu"}), "GPU 3");  // job.hung, util.collective_wait
  EXPECT_EQ(format_evidence_value({"a", 3.0 * 1024 * 1024 * 1024, "bytes_per_minute"}), "3.00 GiB/min");
  EXPECT_EQ(format_evidence_value({"a", 86e6, "params"}), "86.0 M");
  EXPECT_EQ(format_evidence_value({"a", 16, "lanes"}), "x16");
  EXPECT_EQ(format_evidence_value({"a", 87, "celsius"}), "87 °C");
  EXPECT_EQ(format_evidence_value({"a", 2.5, "furlongs"}), "2.5 furlongs");
}

}  // namespace
}  // namespace gpuwatch

namespace gpuwatch {
namespace {

TEST(Advisories, CausesInTextAndJson) {
  std::vector<Advisory> list(2);
  list[0].id = "util.input_bound";
  list[0].device_index = 0;
  list[0].summary = "waits";
  list[0].action = "feed_faster";
  list[0].explains = {{"memory.batch_too_small", 0}};
  list[1].id = "memory.batch_too_small";
  list[1].device_index = 0;
  list[1].summary = "small";
  list[1].explained_by = AdvisoryRef{"util.input_bound", 0};
  const std::string text = advisories_text(list);
  EXPECT_NE(text.find("[info] util.input_bound GPU 0: waits\n    explains: memory.batch_too_small GPU 0\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("[info] memory.batch_too_small GPU 0 (explained by util.input_bound GPU 0): small\n"),
            std::string::npos)
      << text;
  std::string out;
  JsonWriter w(out);
  write_advisories_json(w, list);
  EXPECT_NE(out.find("\"action\":\"feed_faster\",\"explains\":[{\"id\":\"memory.batch_too_small\",\"gpu\":0}],"
                     "\"explained_by\":null"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("\"explained_by\":{\"id\":\"util.input_bound\",\"gpu\":0}}]"), std::string::npos) << out;
}

}  // namespace
}  // namespace gpuwatch

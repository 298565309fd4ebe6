// `gpuwatch import`: a file streamed into the store (import.h). Kept apart
// from import.cpp so that the fuzzer, which builds the parsers alone, needs
// no store.
#include "import/import.h"
#include "import/import_source.h"
#include "store/store.h"

namespace gpuwatch {

namespace {

// Into the store, a chunk at a time (RunImport); the store is opened when
// the run begins, so a file that is not read leaves no store behind.
class StoreSink final : public RunSink {
 public:
  explicit StoreSink(std::filesystem::path store_path) : store_path_(std::move(store_path)) {}
  void begin(RunInfo& run, const std::vector<DeviceInfo>& devices, const RunShape&) override {
    store_ = Store::open(store_path_, false);
    import_ = store_->begin_import(run, devices);
    run_ = run;
  }
  void device(const DeviceSample& sample) override { import_->append(sample); }
  void host(const HostSample& sample) override { import_->append(sample); }
  void event(const Event& event) override { import_->add_event(event); }
  void process(const ProcessRecord& process) override { import_->add_process(process); }
  // Commits; the run's facts.
  RunInfo commit() {
    import_->commit();
    return run_;
  }
  void build_rollups() { import_->build_rollups(); }

 private:
  std::filesystem::path store_path_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<RunImport> import_;  // before the store goes
  RunInfo run_;
};

}  // namespace

ImportResult import_file_to_store(const std::filesystem::path& path, const std::filesystem::path& store_path,
                                  const std::string& run_name, const std::filesystem::path& spill_dir) {
  return naming_file(path, [&] {
    TextSource in(path);
    ImportNotes notes;
    StoreSink sink(store_path);
    std::string format;
    {
      RunBuilder builder(spill_dir);
      format = read_source(in, builder, notes);
      builder.write(run_name.empty() ? path.stem().string() : run_name, notes, sink);
    }  // the spill and the time line go before the rollups are built
    ImportResult result = import_counts(std::move(format), notes);
    result.data.run = sink.commit();
    sink.build_rollups();
    return result;
  });
}

}  // namespace gpuwatch

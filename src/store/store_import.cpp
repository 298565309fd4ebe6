// Writing a whole run at once: runs that were recorded elsewhere (imported
// files). The same row and chunk writers as recording, in one transaction.
#include "store/rollups.h"
#include "store/store_impl.h"

namespace gpuwatch {

Store::Impl::Pending Store::Impl::pending_from(const RunData& data) {
  Pending p;
  for (const DeviceSeries& series : data.devices) {
    auto& rows = p.devices[series.info.index];
    rows.reserve(series.mono_ns.size());
    for (std::size_t i = 0; i < series.mono_ns.size(); ++i) rows.push_back(device_sample_at(series, i));
    if (series.lost_at_wall_ns) p.lost.emplace_back(series.info.index, *series.lost_at_wall_ns);
  }
  p.host.reserve(data.host.mono_ns.size());
  for (std::size_t i = 0; i < data.host.mono_ns.size(); ++i) p.host.push_back(host_sample_at(data.host, i));
  for (const ProcessRecord& proc : data.processes) p.processes.try_emplace({proc.device_index, proc.pid}, proc);
  p.events = data.events;
  return p;
}

std::string Store::import_run(RunData& data) {
  std::lock_guard lock(impl_->db_mutex);
  impl_->require_writable();
  RunInfo& run = data.run;
  if (run.status == RunStatus::Recording) run.status = RunStatus::Finished;
  if (run.heartbeat_wall_ns == 0) run.heartbeat_wall_ns = run.end_wall_ns.value_or(run.start_wall_ns);
  std::vector<DeviceInfo> devices;
  for (const DeviceSeries& series : data.devices) devices.push_back(series.info);
  const Impl::Pending samples = Impl::pending_from(data);

  sql::Transaction txn(impl_->db.get(), sql::Transaction::Kind::Write);
  impl_->insert_run(run, devices);
  impl_->write_pending(samples, run.row_id);
  txn.commit();
  build_rollups_quietly(impl_->path, run.row_id);
  return run.id;
}

struct RunImport::State {
  explicit State(Store::Impl& store) : impl(store), txn(store.db.get(), sql::Transaction::Kind::Write) {}
  Store::Impl& impl;
  sql::Transaction txn;
  std::int64_t run_row = 0;
  std::string id;
  Store::Impl::Pending pending;
  bool committed = false;
};

std::unique_ptr<RunImport> Store::begin_import(RunInfo& run, const std::vector<DeviceInfo>& devices) {
  std::lock_guard lock(impl_->db_mutex);
  impl_->require_writable();
  if (run.status == RunStatus::Recording) run.status = RunStatus::Finished;
  if (run.heartbeat_wall_ns == 0) run.heartbeat_wall_ns = run.end_wall_ns.value_or(run.start_wall_ns);
  auto state = std::make_unique<RunImport::State>(*impl_);
  impl_->insert_run(run, devices);
  state->run_row = run.row_id;
  state->id = run.id;
  return std::unique_ptr<RunImport>(new RunImport(std::move(state)));
}

RunImport::RunImport(std::unique_ptr<State> state) : state_(std::move(state)) {}

RunImport::~RunImport() {
  // The transaction's own destructor rolls back what was not committed.
  std::lock_guard lock(state_->impl.db_mutex);
  state_.reset();
}

void RunImport::flush_device(int device) {
  Store::Impl::Pending one;
  auto& rows = state_->pending.devices[device];
  one.devices[device].swap(rows);
  rows.reserve(kImportChunkRows);  // grown once, not by doubling
  state_->impl.write_pending(one, state_->run_row);
}

void RunImport::flush_host() {
  Store::Impl::Pending one;
  one.host.swap(state_->pending.host);
  state_->impl.write_pending(one, state_->run_row);
}

void RunImport::append(const DeviceSample& sample) {
  std::lock_guard lock(state_->impl.db_mutex);
  auto& rows = state_->pending.devices[sample.device_index];
  rows.push_back(sample);
  if (rows.size() >= kImportChunkRows) flush_device(sample.device_index);
}

void RunImport::append(const HostSample& sample) {
  std::lock_guard lock(state_->impl.db_mutex);
  state_->pending.host.push_back(sample);
  if (state_->pending.host.size() >= kImportChunkRows) flush_host();
}

void RunImport::add_process(const ProcessRecord& process) {
  std::lock_guard lock(state_->impl.db_mutex);
  Store::Impl::Pending one;  // written at once: a name may be long, and processes are few
  one.processes.try_emplace({process.device_index, process.pid}, process);
  state_->impl.write_pending(one, state_->run_row);
}

void RunImport::add_event(const Event& event) {
  std::lock_guard lock(state_->impl.db_mutex);
  Store::Impl::Pending one;  // written at once: a message may be long
  one.events.push_back(event);
  state_->impl.write_pending(one, state_->run_row);
}

std::string RunImport::commit() {
  std::lock_guard lock(state_->impl.db_mutex);
  state_->impl.write_pending(state_->pending, state_->run_row);
  state_->pending = {};
  state_->txn.commit();
  state_->committed = true;
  return state_->id;
}

void RunImport::build_rollups() noexcept {
  if (state_->committed) build_rollups_quietly(state_->impl.path, state_->run_row);
}

}  // namespace gpuwatch

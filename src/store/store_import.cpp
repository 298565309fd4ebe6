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

}  // namespace gpuwatch

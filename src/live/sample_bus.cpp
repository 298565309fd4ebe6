#include "live/sample_bus.h"

namespace gpuwatch {

void SampleBus::on_device_sample(const DeviceSample& sample) {
  for (SampleSink* s : subscribers_) s->on_device_sample(sample);
}

void SampleBus::on_host_sample(const HostSample& sample) {
  for (SampleSink* s : subscribers_) s->on_host_sample(sample);
}

void SampleBus::on_processes(const std::vector<GpuProcess>& processes, Timestamp seen) {
  for (SampleSink* s : subscribers_) s->on_processes(processes, seen);
}

void SampleBus::on_device_lost(int device_index, Timestamp when) {
  for (SampleSink* s : subscribers_) s->on_device_lost(device_index, when);
}

void SampleBus::on_device_event(const Event& event) {
  for (SampleSink* s : subscribers_) s->on_device_event(event);
}

void SampleBus::on_tick(Timestamp tick_time) {
  for (SampleSink* s : subscribers_) s->on_tick(tick_time);
}

}  // namespace gpuwatch

// A stored run's rows in time order, one chunk per series decoded at a time
// (core/row_cursor.h): `export` of a run of any length holds a chunk of each
// GPU and of the host, never the run (issue 25: Store::load of 10 M
// device-samples took 3.7 GiB before the first byte was written).
#pragma once

#include <memory>

#include "core/row_cursor.h"
#include "store/store.h"

namespace gpuwatch {

class SampleCursor final : public RowCursor {
 public:
  // Reads in one read transaction on `store`'s connection, which it holds
  // (with its mutex) until destroyed: the rows are one consistent snapshot
  // while a recorder goes on writing, and nothing else may use `store` in
  // between. Throws StoreError when the run is not in the store.
  SampleCursor(Store& store, const RunInfo& run, const RowSelection& selection);
  ~SampleCursor() override;
  SampleCursor(const SampleCursor&) = delete;
  SampleCursor& operator=(const SampleCursor&) = delete;

  [[nodiscard]] const RunData& base() const override;
  // Rows as Store::load's columns hold them (a chunk that does not decode
  // is left out and comes as a store_corrupt_chunk event row instead).
  bool next(RunRow& row) override;
  std::optional<DeviceSample> first_slow_read(std::size_t device) override;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Opens SampleCursors over `run` on `store`, which must outlive what it
// returns; one cursor at a time.
OpenRows stored_rows(Store& store, RunInfo run);

}  // namespace gpuwatch

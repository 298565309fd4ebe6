// The pieces of a TensorBoard event file: TFRecord framing (length, then
// data, each with a masked CRC-32C) and the few protobuf encodings an Event
// of scalars needs. Written from the formats' public definitions (the
// TFRecord layout and event.proto/summary.proto field numbers), no library.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace gpuwatch::tensorboard {

// CRC-32C (Castagnoli), as TFRecord uses it.
std::uint32_t crc32c(std::string_view data);
// TFRecord's mask over a CRC: rotated right by 15 bits, plus a constant.
std::uint32_t masked_crc32c(std::string_view data);

// One record: uint64 length, its masked CRC, the data, the data's masked CRC
// (little-endian), appended to `out`.
void append_record(std::string& out, std::string_view data);

// Protobuf wire format, appended to `out`.
void append_varint(std::string& out, std::uint64_t v);
void append_double_field(std::string& out, int field, double v);  // wire type 1
void append_float_field(std::string& out, int field, float v);    // wire type 5
void append_varint_field(std::string& out, int field, std::uint64_t v);
void append_bytes_field(std::string& out, int field, std::string_view bytes);  // wire type 2

// An Event (event.proto) of one scalar: wall_time (1), step (2), and a
// Summary (5) holding one Value with tag (1) and simple_value (2).
std::string scalar_event(double wall_time_s, std::int64_t step, std::string_view tag, float value);
// The first event of every file: file_version (3) "brain.Event:2".
std::string file_version_event(double wall_time_s);

}  // namespace gpuwatch::tensorboard

#include "render/tensorboard/tfrecord.h"

#include <array>
#include <bit>

namespace gpuwatch::tensorboard {

namespace {

constexpr std::uint32_t kCastagnoliReversed = 0x82F63B78U;
constexpr std::uint32_t kMaskDelta = 0xA282EAD8U;

constexpr std::array<std::uint32_t, 256> make_table() {
  std::array<std::uint32_t, 256> table{};
  for (std::uint32_t i = 0; i < 256; ++i) {
    std::uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1U) != 0 ? (c >> 1) ^ kCastagnoliReversed : c >> 1;
    table[i] = c;
  }
  return table;
}

constexpr std::array<std::uint32_t, 256> kTable = make_table();

template <typename T>
void append_little_endian(std::string& out, T v) {
  for (std::size_t i = 0; i < sizeof(T); ++i) out += static_cast<char>((v >> (8 * i)) & 0xFFU);
}

void append_key(std::string& out, int field, int wire_type) {
  append_varint(out, (static_cast<std::uint64_t>(field) << 3) | static_cast<std::uint64_t>(wire_type));
}

}  // namespace

std::uint32_t crc32c(std::string_view data) {
  std::uint32_t c = 0xFFFFFFFFU;
  for (const char ch : data) c = kTable[(c ^ static_cast<std::uint8_t>(ch)) & 0xFFU] ^ (c >> 8);
  return c ^ 0xFFFFFFFFU;
}

std::uint32_t masked_crc32c(std::string_view data) {
  const std::uint32_t crc = crc32c(data);
  return ((crc >> 15) | (crc << 17)) + kMaskDelta;
}

void append_record(std::string& out, std::string_view data) {
  std::string length;
  append_little_endian<std::uint64_t>(length, data.size());
  out += length;
  append_little_endian<std::uint32_t>(out, masked_crc32c(length));
  out += data;
  append_little_endian<std::uint32_t>(out, masked_crc32c(data));
}

void append_varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80U) {
    out += static_cast<char>((v & 0x7FU) | 0x80U);
    v >>= 7;
  }
  out += static_cast<char>(v);
}

void append_double_field(std::string& out, int field, double v) {
  append_key(out, field, 1);
  append_little_endian<std::uint64_t>(out, std::bit_cast<std::uint64_t>(v));
}

void append_float_field(std::string& out, int field, float v) {
  append_key(out, field, 5);
  append_little_endian<std::uint32_t>(out, std::bit_cast<std::uint32_t>(v));
}

void append_varint_field(std::string& out, int field, std::uint64_t v) {
  append_key(out, field, 0);
  append_varint(out, v);
}

void append_bytes_field(std::string& out, int field, std::string_view bytes) {
  append_key(out, field, 2);
  append_varint(out, bytes.size());
  out += bytes;
}

std::string scalar_event(double wall_time_s, std::int64_t step, std::string_view tag, float value) {
  std::string summary_value;
  append_bytes_field(summary_value, 1, tag);
  append_float_field(summary_value, 2, value);
  std::string summary;
  append_bytes_field(summary, 1, summary_value);
  std::string event;
  append_double_field(event, 1, wall_time_s);
  // int64 as protobuf encodes it: negative steps take ten bytes.
  append_varint_field(event, 2, static_cast<std::uint64_t>(step));
  append_bytes_field(event, 5, summary);
  return event;
}

std::string file_version_event(double wall_time_s) {
  std::string event;
  append_double_field(event, 1, wall_time_s);
  append_bytes_field(event, 3, "brain.Event:2");
  return event;
}

}  // namespace gpuwatch::tensorboard

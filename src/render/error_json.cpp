#include "render/error_json.h"

#include "base/json_writer.h"

namespace gpuwatch {

std::string render_error_json(std::string_view kind, std::string_view message, int exit_code) {
  std::string out;
  JsonWriter w(out, true);
  w.begin_object();
  w.field("schema_version", 1);
  w.key("error").begin_object();
  w.field("kind", kind);
  w.field("message", message);
  w.field("exit_code", exit_code);
  w.end_object();
  w.end_object();
  out.push_back('\n');
  return out;
}

}  // namespace gpuwatch

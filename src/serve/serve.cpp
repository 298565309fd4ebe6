#include "serve/serve.h"

#include <malloc.h>
#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <thread>

#include <fmt/format.h>

#include "base/host_name.h"
#include "base/stop_signals.h"
#include "base/json_writer.h"
#include "render/plot/style.h"
#include "serve/access_token.h"
#include "serve/request_target.h"
#include "serve/run_api.h"
#include "serve/training_api.h"
#include "serve/web_assets.h"

namespace gpuwatch {

namespace {

// Browsers open six connections a page and keep them; an idle connection
// costs a socket and a few KiB, so 1,024 are allowed and a thousand clients
// that say nothing leave room. Four workers answer the API (a long run's
// report holds one for a second); live streams are pumped by threads of
// their own (LiveStreams::kMaxStreams), so they never take a worker. Headers
// up to 16 KiB: a browser sends every cookie of localhost, whatever port set
// it. An answer must be taken within 30 s, a request sent within 10 s.
constexpr HttpLimits kDashboardLimits{.worker_threads = 4,
                                      .max_queued = 64,
                                      .max_connections = 1024,
                                      .max_streams = LiveStreams::kMaxStreams,
                                      .max_header_bytes = 16384,
                                      .max_headers = 100,
                                      .request_deadline_s = 10,
                                      .write_deadline_s = 30,
                                      .stream_buffer_bytes = std::size_t{1} << 20};

constexpr std::string_view kCommonHeaders =
    "X-Content-Type-Options: nosniff\n"
    "Referrer-Policy: no-referrer\n"
    "Cache-Control: no-store\n";
// The pages load only their own script and styles, and no site may frame them.
constexpr std::string_view kPageHeaders =
    "Content-Security-Policy: default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'\n";

HttpReply json_reply(int status, std::string body) {
  HttpReply reply;
  reply.status = status;
  reply.content_type = "application/json";
  reply.body = std::move(body);
  return reply;
}

HttpReply error_reply(int status, std::string_view message) { return json_reply(status, error_json(message)); }

// The answer of a request that read a long run (a report, its status, its
// host samples, training or summary, a compare): the
// hundreds of MB it worked in are free by now, but glibc keeps freed heap
// for reuse, and with four worker threads (an arena each) serve stayed at
// gigabytes after a few such answers. Given back to the system here, at the
// cost of a walk over the free lists (milliseconds).
HttpReply after_large_work(std::string body) {
  ::malloc_trim(0);
  return json_reply(200, std::move(body));
}

HttpReply asset_reply(const WebAsset& asset) {
  HttpReply reply;
  reply.content_type = std::string(asset.content_type);
  reply.body = std::string(asset.body);
  if (asset.content_type.starts_with("text/html")) reply.headers = std::string(kPageHeaders);
  return reply;
}

// The plots' palette holds this many colours; series past them repeat it dashed.
constexpr std::size_t kGpuColorCount = 8;

// "#0072b2"
std::string rgb_text(const plot::Rgb& c) {
  const auto byte = [](double x) { return static_cast<int>(std::lround(std::clamp(x, 0.0, 1.0) * 255)); };
  return fmt::format("#{:02x}{:02x}{:02x}", byte(c.r), byte(c.g), byte(c.b));
}

// GET /api/info: what the page's header shows.
std::string info_json(const std::vector<ServeLink>& links, bool metrics) {
  std::string out;
  JsonWriter w(out);
  w.begin_object().field("schema_version", kServeSchemaVersion);
  w.field("version", GPUWATCH_VERSION).field("metrics", metrics);
  w.key("links").begin_array();
  for (const ServeLink& link : links) w.begin_object().field("name", link.name).field("url", link.url).end_object();
  w.end_array();
  // The plots' colours, so that GPU i has one colour on the page and in every picture.
  w.key("gpu_colors").begin_array();
  for (std::size_t i = 0; i < kGpuColorCount; ++i) w.value(rgb_text(plot::series_color(i)));
  w.end_array().end_object();
  return out;
}

}  // namespace

std::optional<ServeLink> parse_serve_link(std::string_view text, std::string& why) {
  const std::size_t eq = text.find('=');
  if (eq == std::string_view::npos) {
    why = "expected NAME=URL, e.g. Grafana=http://grafana:3000/d/gpuwatch";
    return std::nullopt;
  }
  ServeLink link{std::string(text.substr(0, eq)), std::string(text.substr(eq + 1))};
  const auto control = [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; };
  if (link.name.empty() || link.name.size() > 40 || std::any_of(link.name.begin(), link.name.end(), control)) {
    why = "the name must be 1 to 40 characters";
    return std::nullopt;
  }
  // A page link: never javascript: or data:, and nothing the browser would
  // read otherwise than written.
  const bool web = link.url.starts_with("http://") || link.url.starts_with("https://");
  if (!web || link.url.size() > 2000 ||
      std::any_of(link.url.begin(), link.url.end(), [&](char c) { return c == ' ' || control(c); })) {
    why = "the URL must start with http:// or https:// and hold no blanks";
    return std::nullopt;
  }
  return link;
}

HttpReply Dashboard::answer(const HttpRequest& request) {
  HttpReply reply;
  try {
    reply = route(request);
  } catch (const ApiError& e) {
    reply = error_reply(e.status(), e.what());
  } catch (const StoreError& e) {
    reply = error_reply(500, e.what());
  } catch (const std::exception& e) {
    reply = error_reply(500, e.what());  // still with the headers below
  }
  reply.headers = std::string(kCommonHeaders) + reply.headers;
  return reply;
}

HttpReply Dashboard::route(const HttpRequest& request) {
  const std::optional<RequestTarget> target = parse_request_target(request.target);
  if (!target) return error_reply(400, "not a path this server answers");
  // Without a token (loopback only), only a Host that names loopback: a page
  // of another site whose name was pointed at 127.0.0.1 (DNS rebinding)
  // sends its own name.
  if (token_.empty() && !hosts_.allows(request.host)) {
    return error_reply(403, "this server answers only to Host: " + hosts_.describe());
  }
  // The page and its script hold no data: a browser loads them without the
  // token, which the script then puts on every API request.
  const std::vector<std::string>& s = target->segments;
  if (s.empty()) return asset_reply(*find_web_asset("/"));
  if (s[0] == "static" && s.size() == 2) {
    if (const WebAsset* asset = find_web_asset("/static/" + s[1])) return asset_reply(*asset);
    return error_reply(404, "no such file");
  }
  const bool metrics_path = s.size() == 1 && s[0] == "metrics";
  if (!metrics_path && (s[0] != "api" || s.size() < 2)) return error_reply(404, "no such page");
  if (!token_.empty() &&
      !token_matches(token_, presented_token(request.authorization, target->param("token").value_or("")))) {
    return error_reply(401, "a token is required: open the URL gpuwatch serve printed");
  }
  if (metrics_path) {
    if (!metrics_) return error_reply(404, "no /metrics here: start gpuwatch serve with --metrics");
    HttpReply reply;
    reply.content_type = std::string(kPrometheusContentType);
    reply.body = *metrics_body_.latest();
    return reply;
  }
  if (s[1] == "info" && s.size() == 2) return json_reply(200, info_json(links_, metrics_));
  if (s[1] == "runs" && s.size() == 2) return json_reply(200, runs_json(stores_));
  if (s[1] == "runs" && s.size() == 3) return json_reply(200, run_json(stores_, s[2]));
  if (s[1] == "runs" && s.size() == 4 && s[3] == "series") return json_reply(200, series_json(stores_, s[2], *target));
  if (s[1] == "runs" && s.size() == 4 && s[3] == "host") return after_large_work(host_series_json(stores_, s[2], *target));
  if (s[1] == "runs" && s.size() == 4 && s[3] == "report") {
    return after_large_work(report_json(stores_, s[2], advisor_, advisor_given_, answers_));
  }
  if (s[1] == "runs" && s.size() == 4 && s[3] == "status") return after_large_work(status_json(stores_, s[2], advisor_, advisor_given_));
  if (s[1] == "runs" && s.size() == 4 && s[3] == "training") return after_large_work(training_json(stores_, s[2], *target));
  if (s[1] == "runs" && s.size() == 4 && s[3] == "summary") return after_large_work(summary_json(stores_, s[2], advisor_, advisor_given_));
  if (s[1] == "compare" && s.size() == 2) return after_large_work(compare_json(stores_, *target, answers_));
  if (s[1] == "live" && s.size() == 2) {
    const auto run_ref = target->param("run");
    if (!run_ref) return error_reply(400, "run is required: /api/live?run=ID");
    StorePools::Found found = stores_.find(*run_ref);
    std::optional<double> since;
    if (const auto text = target->param("since")) {
      double v = 0;
      const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
      if (ec != std::errc{} || end != text->data() + text->size() || !(v >= 0 && v <= kMaxApiSeconds)) {
        return error_reply(400, fmt::format("since must be seconds from 0 to {}", kMaxApiSeconds));
      }
      since = v;
    }
    if (!streams_.acquire()) return error_reply(503, "too many live streams open; close a page");
    HttpReply reply;
    reply.content_type = "text/event-stream";
    try {
      reply.stream = open_live_stream(streams_, found.store.take(), std::move(found.run), since);
    } catch (...) {
      streams_.release();  // the stream, which gives the slot back, was never made
      throw;
    }
    return reply;
  }
  return error_reply(404, "no such API path");
}

namespace {

// Without --metrics nothing else needs the main thread: it waits for the
// stop signal alone.
void wait_for(int fd) {
  pollfd wake{fd, POLLIN, 0};
  while (::poll(&wake, 1, -1) < 0 && errno == EINTR) {
  }
}

}  // namespace

int run_serve(const SystemPaths& paths, const ServeOptions& options) {
  StopSignals stop;
  Dashboard dashboard(options.stores, options.token, AllowedHosts(options.listen, host_name(), {}), options.advisor,
                      options.metrics.has_value(), options.links);
  dashboard.set_advisor_given(options.advisor_given);
  HttpLimits limits = kDashboardLimits;
  if (options.max_connections > 0) limits.max_connections = options.max_connections;
  HttpServer server(options.listen, limits, [&](const HttpRequest& r) { return dashboard.answer(r); });
  // After the port is bound (a taken port fails before a driver is opened).
  std::optional<MetricsFeed> feed;
  if (options.metrics) feed.emplace(paths, *options.metrics);
  std::thread serving([&] { server.run(); });
  if (options.on_listening) {
    const ListenAddress bound{options.listen.host, static_cast<std::uint16_t>(server.port())};
    // A token given to serve is never printed (logs keep what a terminal
    // shows); one made here is, as the only way to learn it.
    const std::string query = options.token_generated ? "?token=" + options.token : "";
    options.on_listening(fmt::format("http://{}/{}", bound.text(), query));
  }
  if (feed) {
    feed->run_until(stop.fd(), [&](std::string body) { dashboard.publish_metrics(std::move(body)); });
  } else {
    wait_for(stop.fd());
  }
  // A second Ctrl-C ends the process at once, should a client hold a thread
  // (a trickling request, an idle keep-alive) while the server stops.
  stop.unblock();
  dashboard.stop();
  server.stop();
  serving.join();
  return 0;
}

}  // namespace gpuwatch

#include "serve/serve.h"

#include <pthread.h>
#include <signal.h>

#include <charconv>
#include <cstdio>
#include <thread>

#include <fmt/format.h>

#include "serve/access_token.h"
#include "serve/request_target.h"
#include "serve/run_api.h"
#include "serve/web_assets.h"

namespace gpuwatch {

namespace {

// Browsers open several connections and keep them; live streams hold a
// thread each (LiveStreams::kMaxStreams), the rest answer the API.
constexpr HttpLimits kDashboardLimits{16, 1024, 5, 5, 100};

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

// Without a token, only a Host that names loopback: a page of another site
// whose name was pointed at 127.0.0.1 (DNS rebinding) sends its own name.
bool loopback_host_header(std::string_view host) {
  if (host.empty()) return true;  // HTTP/1.0 without Host: not a browser
  std::string_view name = host;
  if (name.front() == '[') {
    name = name.substr(1, name.find(']') == std::string_view::npos ? 0 : name.find(']') - 1);
  } else if (const std::size_t colon = name.rfind(':'); colon != std::string_view::npos) {
    name = name.substr(0, colon);
  }
  return is_loopback_host(name);
}

HttpReply asset_reply(const WebAsset& asset) {
  HttpReply reply;
  reply.content_type = std::string(asset.content_type);
  reply.body = std::string(asset.body);
  if (asset.content_type.starts_with("text/html")) reply.headers = std::string(kPageHeaders);
  return reply;
}

}  // namespace

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
  if (token_.empty() && !loopback_host_header(request.host)) {
    return error_reply(403, "this server answers only to 127.0.0.1");
  }
  // The page and its script hold no data: a browser loads them without the
  // token, which the script then puts on every API request.
  const std::vector<std::string>& s = target->segments;
  if (s.empty()) return asset_reply(*find_web_asset("/"));
  if (s[0] == "static" && s.size() == 2) {
    if (const WebAsset* asset = find_web_asset("/static/" + s[1])) return asset_reply(*asset);
    return error_reply(404, "no such file");
  }
  if (s[0] != "api" || s.size() < 2) return error_reply(404, "no such page");
  if (!token_.empty() &&
      !token_matches(token_, presented_token(request.authorization, target->param("token").value_or("")))) {
    return error_reply(401, "a token is required: open the URL gpuwatch serve printed");
  }
  if (s[1] == "runs" && s.size() == 2) return json_reply(200, runs_json(stores_));
  if (s[1] == "runs" && s.size() == 3) return json_reply(200, run_json(stores_, s[2]));
  if (s[1] == "runs" && s.size() == 4 && s[3] == "series") return json_reply(200, series_json(stores_, s[2], *target));
  if (s[1] == "runs" && s.size() == 4 && s[3] == "report") return json_reply(200, report_json(stores_, s[2]));
  if (s[1] == "runs" && s.size() == 4 && s[3] == "status") return json_reply(200, status_json(stores_, s[2], advisor_));
  if (s[1] == "compare" && s.size() == 2) return json_reply(200, compare_json(stores_, *target));
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

int run_serve(const ServeOptions& options) {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  // The server's threads inherit the mask; this thread waits for them.
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  Dashboard dashboard(options.stores, options.token, options.advisor);
  HttpServer server(options.listen, kDashboardLimits, [&](const HttpRequest& r) { return dashboard.answer(r); });
  std::thread serving([&] { server.run(); });
  if (options.on_listening) {
    const ListenAddress bound{options.listen.host, static_cast<std::uint16_t>(server.port())};
    const std::string query = options.token.empty() ? "" : "?token=" + options.token;
    options.on_listening(fmt::format("http://{}/{}", bound.text(), query));
  }
  int signal_number = 0;
  while (sigwait(&signals, &signal_number) != 0) {
  }
  // A second Ctrl-C ends the process at once, should a client hold a thread
  // (a trickling request, an idle keep-alive) while the server stops.
  pthread_sigmask(SIG_UNBLOCK, &signals, nullptr);
  dashboard.stop();
  server.stop();
  serving.join();
  return 0;
}

}  // namespace gpuwatch

#include <cstdio>
#include <stdexcept>

#include "cli/advisor_options.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "serve/access_token.h"
#include "serve/serve.h"

namespace gpuwatch::cli {

void add_serve(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("serve", "Dashboard of the stored runs in a browser: timelines, live runs, compare");
  struct Flags {
    std::string listen{kDefaultServeListen};
    std::string token;
    std::vector<std::string> store;
    AdvisorFlags advisor;
  };
  auto flags = std::make_shared<Flags>();
  cmd->add_option("--listen", flags->listen,
                  "ADDR:PORT to serve on; any address but loopback needs a token (one is made and printed)")
      ->capture_default_str();
  cmd->add_option("--token", flags->token, "The token every request must carry (?token= or Authorization: Bearer)");
  add_stores_option(*cmd, flags->store);
  add_advisor_options(*cmd, flags->advisor);
  cmd->callback([flags, &exit_code] {
    ServeOptions options;
    try {
      options.listen = parse_listen_address(flags->listen);
    } catch (const std::invalid_argument& e) {
      throw CLI::ValidationError("--listen", e.what());
    }
    options.stores = StoreList(flags->store).paths();
    options.advisor = advisor_config(flags->advisor);
    options.token = flags->token;
    if (!options.token.empty() && !is_token_text(options.token)) {
      throw CLI::ValidationError("--token", "use letters, digits and . _ ~ - only (it goes into a URL as it is)");
    }
    if (options.token.empty() && !is_loopback_host(options.listen.host)) options.token = generate_access_token();
    options.on_listening = [](const std::string& url) {
      std::printf("gpuwatch serve: open %s (Ctrl-C stops)\n", url.c_str());
      std::fflush(stdout);
    };
    exit_code = run_serve(options);
  });
}

}  // namespace gpuwatch::cli

// The tessera command line.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>

#include "apps/tessera/commands.h"
#include "tessera/runtime/error.h"

int main(int argc, char** argv) {
  CLI::App app{"tessera: tile-language LLM kernels and inference engine"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "tessera 0.1.0");
  tessera::cli::add_info_command(app);
  tessera::cli::add_ops_command(app);
  tessera::cli::add_bench_command(app);
  tessera::cli::add_tune_command(app);
  tessera::cli::add_generate_command(app);
  tessera::cli::add_chat_command(app);
  tessera::cli::add_bench_model_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Help and --version exit 0; a bad command line is a usage error, exit code 2 like every other error.
    return app.exit(e) == 0 ? 0 : 2;
  } catch (const tessera::Error& e) {
    std::fprintf(stderr, "tessera: error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tessera: error: %s\n", e.what());
    return 2;
  }
  return tessera::cli::exit_code();
}

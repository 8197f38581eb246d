// Subcommands of the tessera command line. Each adds itself to the app and runs from its callback.
#pragma once
#include <CLI/CLI.hpp>

namespace tessera::cli {

void add_info_command(CLI::App& app);
void add_ops_command(CLI::App& app);
void add_bench_command(CLI::App& app);
void add_tune_command(CLI::App& app);
void add_generate_command(CLI::App& app);
void add_chat_command(CLI::App& app);
void add_bench_model_command(CLI::App& app);

// The exit code the command that ran asked for (0 unless it set one).
int exit_code();
void set_exit_code(int code);

}  // namespace tessera::cli

// `tessera generate`: one prompt in, generated text streamed to stdout.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>

#include "apps/tessera/commands.h"
#include "apps/tessera/model_args.h"
#include "tessera/engine/generate.h"
#include "tessera/runtime/error.h"

namespace tessera::cli {

namespace {
struct GenerateArgs {
  ModelArgs model;
  std::string prompt, prompt_ids, dump_logits;
  bool has_prompt = false, print_ids = false, ignore_eos = false;
  GraphArgs graphs;
  int max_tokens = 128;
  int max_context = 0;
  engine::SamplerConfig sampler;
  std::vector<std::string> stops;
};

void run_generate(const GenerateArgs& a) {
  // Flags first, so a bad value fails before a model is loaded.
  if (a.has_prompt == !a.prompt_ids.empty()) invalid_argument("give exactly one of --prompt and --prompt-ids");
  if (a.max_tokens < 0) invalid_argument("--max-tokens must be >= 0, got " + std::to_string(a.max_tokens));
  if (a.max_context < 0) invalid_argument("--max-context must be >= 0 (0: the model's), got " + std::to_string(a.max_context));
  engine::validate(a.sampler);
  model_options(a.model);
  std::vector<int> prompt = a.prompt_ids.empty() ? std::vector<int>{} : parse_id_list(a.prompt_ids, "--prompt-ids");

  const std::optional<engine::Tokenizer> tok = open_tokenizer(a.model);
  if (a.has_prompt) {
    if (!tok) invalid_argument("--prompt needs " + a.model.model_dir + "/tokenizer.json; give --prompt-ids instead");
    prompt = tok->encode(a.prompt, true);
    if (prompt.empty()) invalid_argument("--prompt encodes to no tokens");
  }
  const engine::Model model = open_model(a.model);
  for (int id : prompt)
    if (id >= model.config.vocab_size)
      invalid_argument("prompt token id " + std::to_string(id) + " is outside the vocabulary (size " + std::to_string(model.config.vocab_size) + ")");

  std::ofstream dump;
  if (!a.dump_logits.empty()) {
    dump.open(a.dump_logits, std::ios::binary);
    if (!dump) fail(Status::io_error, "--dump-logits: cannot write " + a.dump_logits);
  }
  const int context = engine::generation_context(model.config, a.max_context);
  if (a.max_tokens > 0 && prompt.size() >= size_t(context))
    invalid_argument("the prompt has " + std::to_string(prompt.size()) + " tokens; the context holds " + std::to_string(context) +
                     ", the prompt and what it generates (--max-context, else the model's max_position_embeddings)");
  engine::GenerateOptions opt;
  opt.max_tokens = a.max_tokens;
  opt.max_context = a.max_context;
  opt.sampler = a.sampler;
  opt.cuda_graphs = a.graphs.use(model);
  opt.logits_to_callback = dump.is_open();
  if (!a.ignore_eos) opt.stop_ids = engine::stop_token_ids(a.model.model_dir, model.config);
  std::optional<engine::StreamDecoder> decoder;
  if (tok) decoder.emplace(*tok, true);
  engine::StopStringMatcher stops(a.stops);
  const auto start = std::chrono::steady_clock::now();
  double first_token_s = 0;
  int generated = 0;
  const auto out = engine::generate(model, {prompt}, opt, [&](int, int token, std::span<const float> logits) {
    if (generated++ == 0) first_token_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (dump.is_open()) dump.write(reinterpret_cast<const char*>(logits.data()), std::streamsize(logits.size() * sizeof(float)));
    if (decoder) {
      write_text(stops.put(decoder->put(token)));
    }
    return !stops.stopped();
  });
  const double total_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (decoder) {
    write_text(stops.put(decoder->flush()));
    write_text(stops.flush() + "\n");
  }
  if (a.print_ids || !decoder) {
    std::string line;
    for (int id : out[0]) line += (line.empty() ? "" : ",") + std::to_string(id);
    std::printf("%s\n", line.c_str());
  }
  std::fflush(stdout);
  if (dump.is_open() && !dump.flush()) fail(Status::io_error, "--dump-logits: writing " + a.dump_logits + " failed");
  const int n = int(out[0].size());
  const bool stop_id = n > 0 && std::find(opt.stop_ids.begin(), opt.stop_ids.end(), out[0].back()) != opt.stop_ids.end();
  if (n < a.max_tokens && prompt.size() + size_t(n) >= size_t(context) && !stop_id && !stops.stopped())
    std::fprintf(stderr, "tessera: stopped at the end of the context, %d tokens (--max-context sets it)\n", context);
  std::fprintf(stderr, "tessera: prompt %zu tokens, generated %d; first token %.3f s (%.1f prompt tokens/s), decode %.2f tokens/s\n",
               prompt.size(), n, first_token_s, first_token_s > 0 ? double(prompt.size()) / first_token_s : 0.0,
               n > 1 && total_s > first_token_s ? double(n - 1) / (total_s - first_token_s) : 0.0);
}
}  // namespace

void add_generate_command(CLI::App& app) {
  auto a = std::make_shared<GenerateArgs>();
  CLI::App* cmd = app.add_subcommand("generate", "generate text from a prompt, streamed to stdout");
  add_model_options(cmd, a->model);
  cmd->add_option_function<std::string>("--prompt", [a](const std::string& p) { a->prompt = p; a->has_prompt = true; }, "prompt text");
  cmd->add_option("--prompt-ids", a->prompt_ids, "prompt as token ids: 1,2,3");
  cmd->add_option("--max-tokens", a->max_tokens, "tokens to generate (default 128)");
  cmd->add_option("--max-context", a->max_context,
                  "tokens the prompt and the generated text may hold together (default 0: the model's max_position_embeddings)");
  cmd->add_option("--temperature", a->sampler.temperature, "0 = greedy (default 1)");
  cmd->add_option("--top-k", a->sampler.top_k, "keep the k most likely tokens (0 = off)");
  cmd->add_option("--top-p", a->sampler.top_p, "nucleus sampling mass (1 = off)");
  cmd->add_option("--min-p", a->sampler.min_p, "drop tokens below min-p times the top probability (0 = off)");
  cmd->add_option("--repetition-penalty", a->sampler.repetition_penalty, "penalty on tokens seen before (1 = off)");
  cmd->add_option("--seed", a->sampler.seed, "sampling seed");
  cmd->add_option("--stop", a->stops, "stop string (repeatable)");
  cmd->add_flag("--print-ids", a->print_ids, "print the generated ids as one comma-separated line at the end");
  cmd->add_flag("--ignore-eos", a->ignore_eos, "do not stop at end-of-sequence tokens");
  add_graph_flags(cmd, a->graphs);
  cmd->add_option("--dump-logits", a->dump_logits, "write each step's logits (float32, vocab per row) to FILE");
  cmd->callback([a] { run_generate(*a); });
}

}  // namespace tessera::cli

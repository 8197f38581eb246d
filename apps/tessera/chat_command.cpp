// `tessera chat`: a conversation on stdin/stdout, one user line per turn, in the model's chat format where it
// is a known simple one (Llama 3 headers, ChatML), else a plain "User:/Assistant:" transcript.
#include <algorithm>
#include <cstdio>
#include <iostream>

#include "apps/tessera/commands.h"
#include "apps/tessera/model_args.h"
#include "tessera/engine/generate.h"
#include "tessera/runtime/error.h"

namespace tessera::cli {

namespace {
struct ChatArgs {
  ModelArgs model;
  int max_tokens = 512;
  int max_context = 0;
  engine::SamplerConfig sampler;
  std::string system;
  GraphArgs graphs;
};

enum class ChatFormat { llama3, chatml, plain };

struct Message {
  std::string role, content;
};

ChatFormat detect_format(const engine::Tokenizer& tok) {
  if (tok.token_to_id("<|start_header_id|>") && tok.token_to_id("<|eot_id|>")) return ChatFormat::llama3;
  if (tok.token_to_id("<|im_start|>") && tok.token_to_id("<|im_end|>")) return ChatFormat::chatml;
  return ChatFormat::plain;
}

// The conversation so far, ending where the assistant's reply starts. Special tokens are written as text:
// the tokenizer splits added tokens out before BPE.
std::vector<int> render(const engine::Tokenizer& tok, ChatFormat f, const std::vector<Message>& msgs) {
  std::string text;
  switch (f) {
    case ChatFormat::llama3:
      text = "<|begin_of_text|>";
      for (const auto& m : msgs) text += "<|start_header_id|>" + m.role + "<|end_header_id|>\n\n" + m.content + "<|eot_id|>";
      text += "<|start_header_id|>assistant<|end_header_id|>\n\n";
      return tok.encode(text, false);
    case ChatFormat::chatml:
      for (const auto& m : msgs) text += "<|im_start|>" + m.role + "\n" + m.content + "<|im_end|>\n";
      text += "<|im_start|>assistant\n";
      return tok.encode(text, false);
    case ChatFormat::plain:
      for (const auto& m : msgs)
        text += (m.role == "user" ? "User: " : m.role == "system" ? "" : "Assistant: ") + m.content + "\n";
      text += "Assistant:";
      return tok.encode(text, true);
  }
  return {};
}

// The conversation rendered so that it leaves room in a context of `context` tokens for a reply of up to
// `reply` tokens: the oldest exchanges after the system message leave `msgs` until it does (or only the last
// message is left). Returns the prompt and how many messages were left out; a prompt that fills the context even so
// cannot be answered (the caller checks).
std::pair<std::vector<int>, size_t> render_within(const engine::Tokenizer& tok, ChatFormat f, std::vector<Message>& msgs,
                                                  size_t context, size_t reply) {
  const size_t first = !msgs.empty() && msgs.front().role == "system" ? 1 : 0;
  size_t dropped = 0;
  std::vector<int> prompt = render(tok, f, msgs);
  while (prompt.size() + reply > context && msgs.size() > first + 1) {
    // An exchange is a user message and the reply to it; the last message is the new user line.
    const size_t n = msgs.size() - first >= 3 ? 2 : 1;
    msgs.erase(msgs.begin() + std::ptrdiff_t(first), msgs.begin() + std::ptrdiff_t(first + n));
    dropped += n;
    prompt = render(tok, f, msgs);
  }
  return {std::move(prompt), dropped};
}

void run_chat(const ChatArgs& a) {
  if (a.max_tokens <= 0) invalid_argument("--max-tokens must be > 0, got " + std::to_string(a.max_tokens));
  if (a.max_context < 0) invalid_argument("--max-context must be >= 0 (0: the model's), got " + std::to_string(a.max_context));
  engine::validate(a.sampler);
  model_options(a.model);
  const std::optional<engine::Tokenizer> tok = open_tokenizer(a.model);
  if (!tok) invalid_argument("chat needs " + a.model.model_dir + "/tokenizer.json");
  const engine::Model model = open_model(a.model);
  const ChatFormat format = detect_format(*tok);
  engine::GenerateOptions opt;
  opt.max_tokens = a.max_tokens;
  opt.max_context = a.max_context;
  opt.sampler = a.sampler;
  opt.logits_to_callback = false;
  const size_t context = size_t(engine::generation_context(model.config, a.max_context));
  // A reply may use up to half the context before older turns give way to it.
  const size_t reply_room = std::min(size_t(a.max_tokens), context / 2);
  opt.cuda_graphs = a.graphs.use(model);
  opt.stop_ids = engine::stop_token_ids(a.model.model_dir, model.config);
  for (const char* end : {"<|eot_id|>", "<|im_end|>"})
    if (auto id = tok->token_to_id(end)) opt.stop_ids.push_back(*id);
  const std::vector<std::string> stop_strings = format == ChatFormat::plain ? std::vector<std::string>{"\nUser:"} : std::vector<std::string>{};
  std::vector<Message> msgs;
  size_t system_tokens = 0;
  if (!a.system.empty()) {
    msgs.push_back({"system", a.system});
    // It is never left out: one that leaves no room for a message and a reply makes every turn fail.
    system_tokens = render(*tok, format, msgs).size();
    if (system_tokens + 2 > context)
      invalid_argument("--system: the system message takes " + std::to_string(system_tokens) + " tokens with the chat format; the context holds " +
                       std::to_string(context) + " (--max-context, else the model's max_position_embeddings)");
  }
  std::fprintf(stderr, "tessera chat (%s format); one line per turn, end with Ctrl-D\n",
               format == ChatFormat::llama3 ? "Llama 3" : format == ChatFormat::chatml ? "ChatML" : "plain");
  std::string line;
  for (;;) {
    std::fputs("> ", stderr);
    if (!std::getline(std::cin, line)) break;
    if (line.empty()) continue;
    msgs.push_back({"user", line});
    const auto [prompt, dropped] = render_within(*tok, format, msgs, context, reply_room);
    if (dropped > 0)
      std::fprintf(stderr, "tessera: %zu earlier message%s left out to fit the context of %zu tokens\n", dropped, dropped == 1 ? "" : "s", context);
    if (prompt.size() >= context) {
      std::string system_share;
      if (system_tokens > 0) system_share = ", " + std::to_string(system_tokens) + " of them the system message";
      std::fprintf(stderr, "tessera: that message does not fit the context of %zu tokens (%zu with the chat format%s); not sent\n",
                   context, prompt.size(), system_share.c_str());
      msgs.pop_back();
      continue;
    }
    // Each turn prefills the whole conversation again (a fresh cache).
    engine::StreamDecoder decoder(*tok, true);
    engine::StopStringMatcher stops(stop_strings);
    std::string reply;
    engine::generate(model, {prompt}, opt, [&](int, int token, std::span<const float>) {
      const std::string piece = stops.put(decoder.put(token));
      reply += piece;
      write_text(piece);
      return !stops.stopped();
    });
    const std::string rest = stops.put(decoder.flush()) + stops.flush();
    reply += rest;
    write_text(rest + "\n");
    msgs.push_back({"assistant", reply});
  }
}
}  // namespace

void add_chat_command(CLI::App& app) {
  auto a = std::make_shared<ChatArgs>();
  CLI::App* cmd = app.add_subcommand("chat", "chat with a model on stdin/stdout");
  add_model_options(cmd, a->model, false);
  cmd->add_option("--max-tokens", a->max_tokens, "longest reply in tokens (default 512)");
  cmd->add_option("--max-context", a->max_context,
                  "tokens the conversation and the reply may hold together, older turns left out past it (default 0: the "
                  "model's max_position_embeddings)");
  cmd->add_option("--temperature", a->sampler.temperature, "0 = greedy (default 1)");
  cmd->add_option("--top-k", a->sampler.top_k, "keep the k most likely tokens (0 = off)");
  cmd->add_option("--top-p", a->sampler.top_p, "nucleus sampling mass (1 = off)");
  cmd->add_option("--min-p", a->sampler.min_p, "min-p filter (0 = off)");
  cmd->add_option("--repetition-penalty", a->sampler.repetition_penalty, "penalty on tokens seen before (1 = off)");
  cmd->add_option("--seed", a->sampler.seed, "sampling seed");
  cmd->add_option("--system", a->system, "a system message");
  add_graph_flags(cmd, a->graphs);
  cmd->callback([a] { run_chat(*a); });
}

}  // namespace tessera::cli

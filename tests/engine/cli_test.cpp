// The tessera command line on tiny checkpoints: generate (ids, dumped logits against the fp64 reference, streamed
// text equal to the tokenizer's decode, stop strings), bench-model, and the error cases (exit code 2 and a
// message naming the problem).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

#include "common/test_util.h"
#include "engine/tiny_model.h"
#include "tessera/engine/tokenizer.h"

namespace tessera::testing {
namespace {
namespace fs = std::filesystem;

struct RunResult {
  int rc = -1;
  std::string out, err;
};

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A fresh directory for one test, removed when the test ends (also when it fails or is skipped).
struct ScratchDir {
  fs::path path;
  ScratchDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path = fs::temp_directory_path() / ("tessera_cli_" + std::string(info->name()) + "_" + std::to_string(::getpid()));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~ScratchDir() { fs::remove_all(path); }
};

RunResult run(const std::string& args, const fs::path& dir, const std::string& input = "") {
  const fs::path out = dir / "stdout.txt", err = dir / "stderr.txt", in = dir / "stdin.txt";
  std::ofstream(in) << input;
  const std::string cmd = std::string(TESSERA_CLI_PATH) + " " + args + " > " + out.string() + " 2> " + err.string() + " < " + in.string();
  const int status = std::system(cmd.c_str());
  RunResult r;
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_file(out);
  r.err = read_file(err);
  return r;
}

// A byte-level-fallback tokenizer.json over `vocab` ids: <unk> <s> </s>, the 256 byte tokens, then a few
// words. Enough for --prompt and for streaming multi-byte characters.
std::string tiny_tokenizer(int vocab) {
  nlohmann::json v = {{"<unk>", 0}, {"<s>", 1}, {"</s>", 2}};
  char name[8];
  for (int b = 0; b < 256; ++b) {
    std::snprintf(name, sizeof(name), "<0x%02X>", b);
    v[name] = 3 + b;
  }
  const char* pieces[] = {"\u2581", "a", "b", "\u2581a", "ab", "\u2581ab"};
  int id = 259;
  for (const char* p : pieces)
    if (id < vocab) v[p] = id++;
  nlohmann::json j = {
      {"added_tokens", {{{"id", 0}, {"content", "<unk>"}, {"special", true}},
                        {{"id", 1}, {"content", "<s>"}, {"special", true}},
                        {{"id", 2}, {"content", "</s>"}, {"special", true}}}},
      {"normalizer", {{"type", "Sequence"}, {"normalizers", {{{"type", "Prepend"}, {"prepend", "\u2581"}},
                                                           {{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", "\u2581"}}}}}},
      {"pre_tokenizer", nullptr},
      {"post_processor", {{"type", "TemplateProcessing"},
                          {"single", {{{"SpecialToken", {{"id", "<s>"}, {"type_id", 0}}}}, {{"Sequence", {{"id", "A"}, {"type_id", 0}}}}}},
                          {"special_tokens", {{"<s>", {{"id", "<s>"}, {"ids", {1}}, {"tokens", {"<s>"}}}}}}}},
      {"decoder", {{"type", "Sequence"}, {"decoders", {{{"type", "Replace"}, {"pattern", {{"String", "\u2581"}}}, {"content", " "}},
                                                     {{"type", "ByteFallback"}}, {{"type", "Fuse"}},
                                                     {{"type", "Strip"}, {"content", " "}, {"start", 1}, {"stop", 0}}}}}},
      {"model", {{"type", "BPE"}, {"unk_token", "<unk>"}, {"fuse_unk", true}, {"byte_fallback", true}, {"vocab", v},
                 {"merges", nlohmann::json::array({"\u2581 a", "a b", "\u2581a b"})}}}};
  return j.dump();
}

TinySpec cli_spec() {
  TinySpec s = tiny_specs()[0];  // Llama with llama3 rope scaling and GQA
  s.vocab = 265;
  return s;
}

std::vector<int> parse_ids(const std::string& line) {
  std::vector<int> ids;
  std::stringstream ss(line);
  std::string item;
  while (std::getline(ss, item, ',')) ids.push_back(std::stoi(item));
  return ids;
}

TEST(Cli, GenerateGreedyIdsAndDumpedLogitsMatchTheReference) {
  const ScratchDir scratch;
  const fs::path& dir = scratch.path;
  const TinySpec spec = cli_spec();
  const auto w = tiny_weights(spec, seed());
  write_tiny_model(dir / "model", spec, w);
  const int n = 5;
  const auto r = run("generate --model " + (dir / "model").string() + " --prompt-ids 1,17,200,33 --max-tokens " + std::to_string(n) +
                         " --temperature 0 --ignore-eos --print-ids --dump-logits " + (dir / "logits.bin").string(), dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  // No tokenizer: the ids are the output, one comma-separated line.
  const std::vector<int> ids = parse_ids(r.out.substr(0, r.out.find('\n')));
  ASSERT_EQ(ids.size(), size_t(n)) << r.out;
  const std::string bytes = read_file(dir / "logits.bin");
  ASSERT_EQ(bytes.size(), size_t(n) * size_t(spec.vocab) * sizeof(float));
  std::vector<int> seq = {1, 17, 200, 33};
  for (int row = 0; row < n; ++row) {
    const auto want = ref::forward(spec, w, seq).back();
    std::vector<float> got(size_t(spec.vocab));
    std::memcpy(got.data(), bytes.data() + size_t(row) * got.size() * sizeof(float), got.size() * sizeof(float));
    double scale = 0;
    for (double x : want) scale = std::max(scale, std::fabs(x));
    for (int v = 0; v < spec.vocab; ++v) ASSERT_NEAR(got[size_t(v)], want[size_t(v)], 2e-4 * (1 + scale)) << "row " << row << " id " << v;
    EXPECT_EQ(ids[size_t(row)], int(std::max_element(got.begin(), got.end()) - got.begin())) << "row " << row;
    seq.push_back(ids[size_t(row)]);
  }
}

TEST(Cli, StreamedTextIsTheDecodeOfTheIdsAndStopsAtAStopString) {
  const ScratchDir scratch;
  const fs::path& dir = scratch.path;
  const TinySpec spec = cli_spec();
  write_tiny_model(dir / "model", spec, tiny_weights(spec, seed()));
  std::ofstream(dir / "model" / "tokenizer.json") << tiny_tokenizer(spec.vocab);
  const engine::Tokenizer tok = engine::Tokenizer::load((dir / "model").string());
  const std::string common = "generate --model " + (dir / "model").string() + " --prompt 'ab a' --max-tokens 12 --temperature 1.5 --seed 5 --ignore-eos --print-ids";
  const auto r = run(common, dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  // stdout: the text, a newline, then the ids line.
  const size_t last_nl = r.out.rfind('\n', r.out.size() - 2);
  ASSERT_NE(last_nl, std::string::npos) << r.out;
  const std::vector<int> ids = parse_ids(r.out.substr(last_nl + 1));
  ASSERT_EQ(ids.size(), 12u);
  const std::string text = r.out.substr(0, last_nl);
  EXPECT_EQ(text, tok.decode(ids, true));
  // The same seed gives the same output; a stop string cut from that text ends the output before it.
  EXPECT_EQ(run(common, dir).out, r.out);
  // A stop string taken from the second half of the text: two bytes that can go through argv in quotes.
  const std::string body = tok.decode(ids, true);
  std::string stop;
  for (size_t i = body.size() / 2; i + 2 <= body.size() && stop.empty(); ++i)
    if (body[i] != '\0' && body[i + 1] != '\0' && body[i] != '\'' && body[i + 1] != '\'')
      stop = body.substr(i, 2);
  if (stop.empty()) GTEST_SKIP() << "no usable pair of bytes in the generated text to stop at";
  const auto s = run(common + " --stop '" + stop + "'", dir);
  ASSERT_EQ(s.rc, 0) << s.err;
  const std::string shown = s.out.substr(0, s.out.rfind('\n', s.out.size() - 2));
  EXPECT_EQ(shown, body.substr(0, body.find(stop)));
}

TEST(Cli, ChatAnswersEachLineInThePlainFormat) {
  const ScratchDir scratch;
  const fs::path& dir = scratch.path;
  const TinySpec spec = cli_spec();
  write_tiny_model(dir / "model", spec, tiny_weights(spec, seed()));
  std::ofstream(dir / "model" / "tokenizer.json") << tiny_tokenizer(spec.vocab);
  const auto r = run("chat --model " + (dir / "model").string() + " --max-tokens 6 --temperature 0", dir, "ab\n\na b\n");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("plain format"), std::string::npos) << r.err;
  // Two user lines (the empty one is skipped): two replies, each ended by a newline (a reply may hold more).
  EXPECT_GE(std::count(r.out.begin(), r.out.end(), '\n'), 2) << r.out;
}

// Generation ends where the prompt and the generated tokens fill the context (the model's 96 positions, or
// --max-context), and says so; a chat leaves out its oldest turns to stay inside it.
TEST(Cli, GenerationAndChatStayInsideTheContext) {
  const ScratchDir scratch;
  const fs::path& dir = scratch.path;
  const TinySpec spec = cli_spec();
  write_tiny_model(dir / "model", spec, tiny_weights(spec, seed()));
  const std::string m = "generate --model " + (dir / "model").string() + " --prompt-ids 1,17,200,33 --temperature 0 --ignore-eos --print-ids";
  for (const auto& [flags, n] : {std::pair<std::string, int>{" --max-tokens 500", spec.max_positions - 4}, {" --max-tokens 500 --max-context 12", 8}}) {
    const auto r = run(m + flags, dir);
    ASSERT_EQ(r.rc, 0) << flags << "\n" << r.err;
    EXPECT_EQ(parse_ids(r.out.substr(0, r.out.find('\n'))).size(), size_t(n)) << flags;
    EXPECT_NE(r.err.find("stopped at the end of the context, " + std::to_string(n + 4) + " tokens"), std::string::npos) << r.err;
  }
  // Ended by --max-tokens before the context: no such note.
  const auto r = run(m + " --max-tokens 3 --max-context 12", dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.err.find("end of the context"), std::string::npos) << r.err;

  std::ofstream(dir / "model" / "tokenizer.json") << tiny_tokenizer(spec.vocab);
  const auto chat = run("chat --model " + (dir / "model").string() + " --max-tokens 4 --max-context 24 --temperature 0", dir,
                        "ab\na b ab\nb a\nab ab ab\n");
  ASSERT_EQ(chat.rc, 0) << chat.err;
  EXPECT_NE(chat.err.find("left out to fit the context of 24 tokens"), std::string::npos) << chat.err;
  EXPECT_GE(std::count(chat.out.begin(), chat.out.end(), '\n'), 4) << chat.out;

  // The system message is never left out: one that fills the context is refused at the start, and a message
  // that does not fit beside it says how much of the prompt the system message is.
  std::string long_system, line;
  for (int i = 0; i < 40; ++i) long_system += "ab ";
  for (int i = 0; i < 12; ++i) line += "a b ";
  const std::string chat_at_24 = "chat --model " + (dir / "model").string() + " --max-tokens 4 --max-context 24 --temperature 0";
  const auto refused = run(chat_at_24 + " --system '" + long_system + "'", dir, "ab\n");
  EXPECT_EQ(refused.rc, 2) << refused.err;
  EXPECT_NE(refused.err.find("--system: the system message takes"), std::string::npos) << refused.err;
  const auto crowded = run(chat_at_24 + " --system 'ab ab'", dir, line + "\nab\n");
  ASSERT_EQ(crowded.rc, 0) << crowded.err;
  EXPECT_NE(crowded.err.find("of them the system message); not sent"), std::string::npos) << crowded.err;
  EXPECT_GE(std::count(crowded.out.begin(), crowded.out.end(), '\n'), 1) << crowded.out;
}

TEST(Cli, BenchModelWithRandomWeights) {
  const ScratchDir scratch;
  const fs::path& dir = scratch.path;
  std::ofstream(dir / "config.json") << tiny_config_json(tiny_specs()[3]);  // Qwen3: q/k norms
  const auto r = run("bench-model --model " + dir.string() + " --random-weights --prompt-len 9 --batch 1,3 --decode-steps 4", dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("decode_tok/s"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n3 "), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("decode step 4/4"), std::string::npos) << r.err;
}

TEST(Cli, ErrorsExitWithCode2AndSayWhatIsWrong) {
  const ScratchDir scratch;
  const fs::path& dir = scratch.path;
  const TinySpec spec = cli_spec();
  const auto w = tiny_weights(spec, seed());
  write_tiny_model(dir / "model", spec, w);
  write_tiny_model(dir / "broken", spec, w, {"model.norm.weight"});
  fs::create_directories(dir / "empty");
  fs::create_directories(dir / "alien");
  std::ofstream(dir / "alien" / "config.json") << R"({"model_type": "rwkv", "architectures": ["RwkvForCausalLM"]})";
  const std::string m = " --model " + (dir / "model").string();
  const std::pair<std::string, std::string> cases[] = {
      {"generate --model " + (dir / "nowhere").string() + " --prompt-ids 1", "not a directory"},
      {"generate --model " + (dir / "nowhere").string() + " --prompt hello", "not a directory"},
      {"generate --model " + (dir / "empty").string() + " --prompt-ids 1", "config.json"},
      {"generate --model " + (dir / "broken").string() + " --prompt-ids 1", "model.norm.weight"},
      {"generate --model " + (dir / "alien").string() + " --prompt-ids 1", "rwkv"},
      {"generate" + m + " --prompt-ids 1,x", "'x' is not a token id"},
      {"generate" + m + " --prompt-ids 1,999", "token id 999"},
      {"generate" + m + " --prompt-ids 1 --top-p 2", "top_p"},
      {"generate" + m + " --prompt-ids 1 --temperature -1", "temperature"},
      {"generate" + m + " --prompt-ids 1 --min-p 3", "min_p"},
      {"generate" + m + " --prompt-ids 1 --repetition-penalty 0", "repetition_penalty"},
      {"generate" + m + " --prompt-ids 1 --max-tokens -3", "--max-tokens"},
      {"generate" + m + " --prompt-ids 1 --device tpu", "--device tpu"},
      {"generate" + m + " --prompt-ids 1 --dtype f64", "--dtype f64"},
      {"generate" + m + " --prompt hello", "tokenizer.json"},
      {"generate" + m + " --prompt hi --prompt-ids 1", "exactly one of --prompt and --prompt-ids"},
      {"generate" + m + " --prompt-ids 1 --max-tokens many", "--max-tokens"},
      {"generate" + m + " --prompt-ids 1 --max-context -2", "--max-context must be >= 0"},
      {"generate" + m + " --prompt-ids 1,2,3,4,5 --max-context 5", "the prompt has 5 tokens; the context holds 5"},
      {"chat" + m + " --max-context -2", "--max-context must be >= 0"},
      {"generate --prompt-ids 1", "--model"},
      {"chat" + m, "tokenizer.json"},
      {"bench-model" + m + " --batch 0", "--batch"},
      {"generate" + m + " --prompt-ids 1 --cuda-graph", "CUDA graphs need a model on a CUDA device"},
      {"bench-model" + m + " --prompt-len 0", "--prompt-len"},
      {"ops check --op nothing", "--op nothing has no check (known: "},
  };
  std::vector<std::pair<std::string, std::string>> all(std::begin(cases), std::end(cases));
  if (!cuda_available()) all.push_back({"generate" + m + " --prompt-ids 1 --device cuda", "CUDA"});
  for (const auto& [args, needle] : all) {
    const auto r = run(args, dir);
    EXPECT_EQ(r.rc, 2) << args << "\n" << r.err;
    EXPECT_NE((r.err + r.out).find(needle), std::string::npos) << args << "\nstderr: " << r.err;
  }
}

}  // namespace
}  // namespace tessera::testing

// config.json -> ModelConfig, and RoPE frequency tables.
#include "tessera/engine/config.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tessera/runtime/error.h"

namespace tessera::engine {

using nlohmann::json;

const char* arch_name(Arch arch) {
  switch (arch) {
    case Arch::gpt2: return "gpt2";
    case Arch::llama: return "llama";
    case Arch::mistral: return "mistral";
    case Arch::qwen2: return "qwen2";
    case Arch::qwen3: return "qwen3";
  }
  return "?";
}

namespace {

// Field readers that name the file and the field in their errors.
struct Reader {
  const json& j;
  const std::string& source;

  bool has(const char* key) const { return j.contains(key) && !j[key].is_null(); }
  [[noreturn]] void bad(const char* key, const std::string& why) const {
    invalid_argument("config: " + source + ": '" + key + "' " + why);
  }
  int integer(const char* key) const {
    if (!has(key)) bad(key, "is missing");
    if (!j[key].is_number_integer()) bad(key, "is not an integer");
    int64_t v = j[key].get<int64_t>();
    if (v <= 0 || v > INT32_MAX) bad(key, "must be a positive integer, is " + std::to_string(v));
    return int(v);
  }
  int integer(const char* key, int fallback) const { return has(key) ? integer(key) : fallback; }
  float number(const json& obj, const char* key, float fallback) const {
    if (!obj.contains(key) || obj[key].is_null()) return fallback;
    if (!obj[key].is_number()) bad(key, "is not a number");
    return obj[key].get<float>();
  }
  float number(const char* key, float fallback) const { return number(j, key, fallback); }
  bool boolean(const char* key, bool fallback) const {
    if (!has(key)) return fallback;
    if (!j[key].is_boolean()) bad(key, "is not true or false");
    return j[key].get<bool>();
  }
  std::string string(const char* key, const std::string& fallback) const {
    if (!has(key)) return fallback;
    if (!j[key].is_string()) bad(key, "is not a string");
    return j[key].get<std::string>();
  }
};

Arch arch_from(const json& j, const std::string& source, std::string& model_type) {
  static const std::pair<const char*, Arch> types[] = {
      {"gpt2", Arch::gpt2}, {"llama", Arch::llama}, {"mistral", Arch::mistral}, {"qwen2", Arch::qwen2}, {"qwen3", Arch::qwen3}};
  static const std::pair<const char*, Arch> classes[] = {
      {"GPT2LMHeadModel", Arch::gpt2},     {"LlamaForCausalLM", Arch::llama}, {"MistralForCausalLM", Arch::mistral},
      {"Qwen2ForCausalLM", Arch::qwen2},   {"Qwen3ForCausalLM", Arch::qwen3}};
  std::string cls;
  if (j.contains("architectures") && j["architectures"].is_array() && !j["architectures"].empty() &&
      j["architectures"][0].is_string())
    cls = j["architectures"][0].get<std::string>();
  if (j.contains("model_type") && j["model_type"].is_string()) {
    model_type = j["model_type"].get<std::string>();
    for (auto& [name, arch] : types)
      if (model_type == name) return arch;
    invalid_argument("config: " + source + ": unsupported architecture '" + model_type + "'" +
                     (cls.empty() ? "" : " (" + cls + ")") + "; tessera knows gpt2, llama, mistral, qwen2, qwen3");
  }
  for (auto& [name, arch] : classes)
    if (cls == name) {
      model_type = arch_name(arch);
      return arch;
    }
  invalid_argument("config: " + source + ": unsupported architecture '" + (cls.empty() ? "(none given)" : cls) +
                   "'; tessera knows gpt2, llama, mistral, qwen2, qwen3");
}

// rope_scaling (transformers < 5) or rope_parameters (transformers >= 5, which also carries rope_theta).
void read_rope(const Reader& r, ModelConfig& c) {
  const json* rope = nullptr;
  if (r.has("rope_parameters")) rope = &r.j["rope_parameters"];
  else if (r.has("rope_scaling")) rope = &r.j["rope_scaling"];
  if (!rope) return;
  const char* key = r.has("rope_parameters") ? "rope_parameters" : "rope_scaling";
  if (!rope->is_object()) r.bad(key, "is not an object");
  c.rope_theta = r.number(*rope, "rope_theta", c.rope_theta);
  c.partial_rotary_factor = r.number(*rope, "partial_rotary_factor", c.partial_rotary_factor);
  std::string type = "default";
  if (rope->contains("rope_type") && (*rope)["rope_type"].is_string()) type = (*rope)["rope_type"].get<std::string>();
  else if (rope->contains("type") && (*rope)["type"].is_string()) type = (*rope)["type"].get<std::string>();
  RopeScaling& s = c.rope_scaling;
  s.type = type;
  if (type == "default") return;
  s.factor = r.number(*rope, "factor", 0.0f);
  if (!(s.factor > 0.0f)) r.bad(key, "of type " + type + " needs a positive factor");
  if (type == "linear") return;
  if (type == "llama3") {
    s.low_freq_factor = r.number(*rope, "low_freq_factor", 1.0f);
    s.high_freq_factor = r.number(*rope, "high_freq_factor", 4.0f);
    const json& o = (*rope)["original_max_position_embeddings"];
    if (!o.is_number_integer() || o.get<int64_t>() <= 0)
      r.bad(key, "of type llama3 needs a positive integer original_max_position_embeddings");
    s.original_max_position_embeddings = o.get<int>();
    if (!(s.high_freq_factor > s.low_freq_factor)) r.bad(key, "of type llama3 needs high_freq_factor > low_freq_factor");
    return;
  }
  unsupported("config: " + r.source + ": rope scaling type '" + type + "' is not supported (default, linear, llama3)");
}

}  // namespace

ModelConfig parse_config(const std::string& text, const std::string& source) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    invalid_argument("config: " + source + ": malformed JSON: " + e.what());
  }
  if (!j.is_object()) invalid_argument("config: " + source + ": not a JSON object");
  Reader r{j, source};
  ModelConfig c;
  c.arch = arch_from(j, source, c.model_type);

  if (c.arch == Arch::gpt2) {
    c.vocab_size = r.integer("vocab_size");
    c.hidden_size = r.integer("n_embd");
    c.num_layers = r.integer("n_layer");
    c.num_heads = r.integer("n_head");
    c.num_kv_heads = c.num_heads;
    c.max_position_embeddings = r.integer("n_positions");
    c.intermediate_size = r.integer("n_inner", 4 * c.hidden_size);
    c.norm_eps = r.number("layer_norm_epsilon", 1e-5f);
    c.hidden_act = r.string("activation_function", "gelu_new");
    c.qkv_bias = c.o_bias = c.mlp_bias = true;
    c.tie_word_embeddings = r.boolean("tie_word_embeddings", true);
  } else {
    c.vocab_size = r.integer("vocab_size");
    c.hidden_size = r.integer("hidden_size");
    c.intermediate_size = r.integer("intermediate_size");
    c.num_layers = r.integer("num_hidden_layers");
    c.num_heads = r.integer("num_attention_heads");
    c.num_kv_heads = r.integer("num_key_value_heads", c.num_heads);
    c.max_position_embeddings = r.integer("max_position_embeddings");
    c.norm_eps = r.number("rms_norm_eps", 1e-6f);
    c.hidden_act = r.string("hidden_act", "silu");
    c.rope_theta = r.number("rope_theta", 10000.0f);
    c.partial_rotary_factor = r.number("partial_rotary_factor", 1.0f);
    c.tie_word_embeddings = r.boolean("tie_word_embeddings", false);
    const bool attention_bias = r.boolean("attention_bias", false);
    c.qkv_bias = c.arch == Arch::qwen2 ? true : attention_bias;  // Qwen2 always has q/k/v biases, never o's
    c.o_bias = c.arch == Arch::qwen2 ? false : attention_bias;
    c.mlp_bias = r.boolean("mlp_bias", false);
    c.qk_norm = c.arch == Arch::qwen3;
    if (c.arch == Arch::mistral) c.sliding_window = r.integer("sliding_window", 0);
    if (c.arch == Arch::qwen2 || c.arch == Arch::qwen3)
      if (r.boolean("use_sliding_window", false)) c.sliding_window = r.integer("sliding_window", 0);
    read_rope(r, c);
  }
  if (c.hidden_size % c.num_heads != 0 && !r.has("head_dim"))
    invalid_argument("config: " + source + ": hidden size " + std::to_string(c.hidden_size) +
                     " is not a multiple of the " + std::to_string(c.num_heads) + " heads");
  c.head_dim = r.integer("head_dim", c.hidden_size / c.num_heads);
  if (c.num_heads % c.num_kv_heads != 0)
    invalid_argument("config: " + source + ": " + std::to_string(c.num_heads) + " heads are not a multiple of " +
                     std::to_string(c.num_kv_heads) + " key/value heads");
  const int rotary = int(float(c.head_dim) * c.partial_rotary_factor);
  if (c.arch != Arch::gpt2 && (rotary <= 0 || rotary % 2 != 0 || rotary > c.head_dim))
    invalid_argument("config: " + source + ": rotary dimension " + std::to_string(rotary) + " of head_dim " +
                     std::to_string(c.head_dim) + " must be even and positive");
  if (!(c.norm_eps > 0.0f)) invalid_argument("config: " + source + ": norm epsilon must be positive");
  if (c.arch != Arch::gpt2 && !(c.rope_theta > 0.0f)) invalid_argument("config: " + source + ": rope_theta must be positive");

  // Tokens: bos may be absent; eos may be an int or a list of ints.
  if (r.has("bos_token_id")) {
    if (!j["bos_token_id"].is_number_integer()) r.bad("bos_token_id", "is not an integer");
    c.bos_token_id = j["bos_token_id"].get<int>();
  }
  if (r.has("eos_token_id")) {
    const json& e = j["eos_token_id"];
    if (e.is_number_integer()) c.eos_token_ids.push_back(e.get<int>());
    else if (e.is_array()) {
      for (auto& x : e) {
        if (!x.is_number_integer()) r.bad("eos_token_id", "holds a non-integer");
        c.eos_token_ids.push_back(x.get<int>());
      }
    } else r.bad("eos_token_id", "is neither an integer nor a list of integers");
  }
  c.dtype = r.string("dtype", r.string("torch_dtype", "float32"));
  return c;
}

ModelConfig load_config(const std::string& path) {
  std::filesystem::path p(path);
  std::error_code ec;
  if (std::filesystem::is_directory(p, ec)) p /= "config.json";
  std::ifstream in(p, std::ios::binary);
  if (!in) fail(Status::io_error, "config: cannot open " + p.string());
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_config(ss.str(), p.string());
}

std::vector<float> rope_inv_freq(const ModelConfig& c) {
  const int dim = int(float(c.head_dim) * c.partial_rotary_factor);
  std::vector<float> out(size_t(dim / 2));
  const RopeScaling& s = c.rope_scaling;
  for (int i = 0; i < dim / 2; ++i) {
    double f = 1.0 / std::pow(double(c.rope_theta), double(2 * i) / double(dim));
    if (s.type == "linear") f /= s.factor;
    else if (s.type == "llama3") {
      // Wavelengths longer than the original context / low_freq_factor are slowed by `factor`; shorter than
      // context / high_freq_factor are kept; in between, a linear blend in (context / wavelength).
      const double context = s.original_max_position_embeddings;
      const double low_wavelen = context / s.low_freq_factor, high_wavelen = context / s.high_freq_factor;
      const double wavelen = 2.0 * M_PI / f;
      if (wavelen > low_wavelen) f /= s.factor;
      else if (wavelen >= high_wavelen) {
        const double smooth = (context / wavelen - s.low_freq_factor) / (s.high_freq_factor - s.low_freq_factor);
        f = (1.0 - smooth) * f / s.factor + smooth * f;
      }
    }
    out[size_t(i)] = float(f);
  }
  return out;
}

}  // namespace tessera::engine

// config.json parsing for each architecture (configs modelled on the Hugging Face ones), and RoPE tables.
#include "tessera/engine/config.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "tessera/runtime/error.h"

using namespace tessera;
using namespace tessera::engine;

namespace {

const char* kGpt2 = R"({
  "activation_function": "gelu_new", "architectures": ["GPT2LMHeadModel"], "attn_pdrop": 0.1,
  "bos_token_id": 50256, "embd_pdrop": 0.1, "eos_token_id": 50256, "initializer_range": 0.02,
  "layer_norm_epsilon": 1e-05, "model_type": "gpt2", "n_ctx": 1024, "n_embd": 768, "n_head": 12,
  "n_layer": 12, "n_positions": 1024, "resid_pdrop": 0.1, "summary_activation": null,
  "task_specific_params": {"text-generation": {"do_sample": true, "max_length": 50}}, "vocab_size": 50257})";

const char* kLlama2 = R"({
  "architectures": ["LlamaForCausalLM"], "bos_token_id": 1, "eos_token_id": 2, "hidden_act": "silu",
  "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 11008, "max_position_embeddings": 4096,
  "model_type": "llama", "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 32,
  "pretraining_tp": 1, "rms_norm_eps": 1e-05, "rope_scaling": null, "tie_word_embeddings": false,
  "torch_dtype": "float16", "transformers_version": "4.31.0.dev0", "use_cache": true, "vocab_size": 32000})";

const char* kLlama31 = R"({
  "architectures": ["LlamaForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
  "bos_token_id": 128000, "eos_token_id": [128001, 128008, 128009], "hidden_act": "silu", "hidden_size": 4096,
  "initializer_range": 0.02, "intermediate_size": 14336, "max_position_embeddings": 131072, "mlp_bias": false,
  "model_type": "llama", "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8,
  "pretraining_tp": 1, "rms_norm_eps": 1e-05,
  "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                   "original_max_position_embeddings": 8192, "rope_type": "llama3"},
  "rope_theta": 500000.0, "tie_word_embeddings": false, "torch_dtype": "bfloat16",
  "transformers_version": "4.43.0.dev0", "use_cache": true, "vocab_size": 128256})";

// Llama 3.2 1B as transformers 5 writes it: rope_parameters carries theta and scaling; "dtype".
const char* kLlama32v5 = R"({
  "architectures": ["LlamaForCausalLM"], "bos_token_id": 128000, "eos_token_id": 128001, "head_dim": 64,
  "hidden_size": 2048, "intermediate_size": 8192, "max_position_embeddings": 131072, "model_type": "llama",
  "num_attention_heads": 32, "num_hidden_layers": 16, "num_key_value_heads": 8, "rms_norm_eps": 1e-05,
  "rope_parameters": {"factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                      "original_max_position_embeddings": 8192, "rope_theta": 500000.0, "rope_type": "llama3"},
  "tie_word_embeddings": true, "dtype": "bfloat16", "vocab_size": 128256})";

const char* kMistral = R"({
  "architectures": ["MistralForCausalLM"], "bos_token_id": 1, "eos_token_id": 2, "hidden_act": "silu",
  "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 14336, "max_position_embeddings": 32768,
  "model_type": "mistral", "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8,
  "rms_norm_eps": 1e-05, "rope_theta": 10000.0, "sliding_window": 4096, "tie_word_embeddings": false,
  "torch_dtype": "bfloat16", "transformers_version": "4.34.0.dev0", "use_cache": true, "vocab_size": 32000})";

const char* kQwen2 = R"({
  "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643, "eos_token_id": 151645,
  "hidden_act": "silu", "hidden_size": 896, "initializer_range": 0.02, "intermediate_size": 4864,
  "max_position_embeddings": 32768, "max_window_layers": 21, "model_type": "qwen2", "num_attention_heads": 14,
  "num_hidden_layers": 24, "num_key_value_heads": 2, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
  "sliding_window": 32768, "tie_word_embeddings": true, "torch_dtype": "bfloat16",
  "transformers_version": "4.43.1", "use_cache": true, "use_sliding_window": false, "vocab_size": 151936})";

const char* kQwen3 = R"({
  "architectures": ["Qwen3ForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
  "bos_token_id": 151643, "eos_token_id": 151645, "head_dim": 128, "hidden_act": "silu", "hidden_size": 1024,
  "initializer_range": 0.02, "intermediate_size": 3072, "max_position_embeddings": 40960, "max_window_layers": 28,
  "model_type": "qwen3", "num_attention_heads": 16, "num_hidden_layers": 28, "num_key_value_heads": 8,
  "rms_norm_eps": 1e-06, "rope_scaling": null, "rope_theta": 1000000, "sliding_window": null,
  "tie_word_embeddings": true, "torch_dtype": "bfloat16", "transformers_version": "4.51.0", "use_cache": true,
  "use_sliding_window": false, "vocab_size": 151936})";

// Expects parse_config to fail with a message holding `needle`.
void expect_error(const std::string& text, const std::string& needle) {
  try {
    parse_config(text);
    ADD_FAILURE() << "parsed: " << text;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << "'" << needle << "' not in: " << e.what();
  }
}

// Hugging Face's _compute_llama3_parameters, transcribed step by step (masks, float32 like torch).
std::vector<float> hf_llama3_inv_freq(float theta, int dim, float factor, float low, float high, int original) {
  std::vector<float> inv(size_t(dim / 2)), out(size_t(dim / 2));
  for (int i = 0; i < dim / 2; ++i) inv[size_t(i)] = 1.0f / std::pow(theta, float(2 * i) / float(dim));
  const float low_wavelen = float(original) / low, high_wavelen = float(original) / high;
  for (size_t i = 0; i < inv.size(); ++i) {
    const float wavelen = 2.0f * float(M_PI) / inv[i];
    float llama = wavelen > low_wavelen ? inv[i] / factor : inv[i];
    const float smooth = (float(original) / wavelen - low) / (high - low);
    const float smoothed = (1 - smooth) * llama / factor + smooth * llama;
    const bool medium = !(wavelen < high_wavelen) && !(wavelen > low_wavelen);
    out[i] = medium ? smoothed : llama;
  }
  return out;
}

void expect_close(const std::vector<float>& got, const std::vector<float>& want, double rel) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], rel * std::fabs(want[i])) << "inv_freq[" << i << "]";
}

}  // namespace

TEST(Config, Gpt2) {
  ModelConfig c = parse_config(kGpt2);
  EXPECT_EQ(c.arch, Arch::gpt2);
  EXPECT_EQ(c.vocab_size, 50257);
  EXPECT_EQ(c.hidden_size, 768);
  EXPECT_EQ(c.num_layers, 12);
  EXPECT_EQ(c.num_heads, 12);
  EXPECT_EQ(c.num_kv_heads, 12);
  EXPECT_EQ(c.head_dim, 64);
  EXPECT_EQ(c.intermediate_size, 3072);
  EXPECT_EQ(c.max_position_embeddings, 1024);
  EXPECT_FLOAT_EQ(c.norm_eps, 1e-5f);
  EXPECT_EQ(c.hidden_act, "gelu_new");
  EXPECT_TRUE(c.tie_word_embeddings);
  EXPECT_TRUE(c.qkv_bias && c.o_bias && c.mlp_bias);
  EXPECT_EQ(c.bos_token_id, 50256);
  EXPECT_EQ(c.eos_token_ids, std::vector<int>{50256});
}

TEST(Config, Llama2) {
  ModelConfig c = parse_config(kLlama2);
  EXPECT_EQ(c.arch, Arch::llama);
  EXPECT_EQ(c.model_type, "llama");
  EXPECT_EQ(c.intermediate_size, 11008);
  EXPECT_EQ(c.num_kv_heads, 32);
  EXPECT_EQ(c.head_dim, 128);
  EXPECT_FLOAT_EQ(c.rope_theta, 10000.0f);
  EXPECT_EQ(c.rope_scaling.type, "default");
  EXPECT_FALSE(c.tie_word_embeddings);
  EXPECT_FALSE(c.qkv_bias || c.o_bias || c.qk_norm);
  EXPECT_EQ(c.dtype, "float16");
  EXPECT_EQ(c.bos_token_id, 1);
  EXPECT_EQ(c.eos_token_ids, std::vector<int>{2});
  // Standard RoPE: theta^(-2i/d).
  std::vector<float> inv = rope_inv_freq(c);
  ASSERT_EQ(inv.size(), 64u);
  for (int i = 0; i < 64; ++i) EXPECT_NEAR(inv[size_t(i)], std::pow(10000.0, -2.0 * i / 128.0), 1e-7 * 1.0);
}

TEST(Config, Llama31WithLlama3RopeScaling) {
  ModelConfig c = parse_config(kLlama31);
  EXPECT_EQ(c.num_kv_heads, 8);
  EXPECT_EQ(c.eos_token_ids, (std::vector<int>{128001, 128008, 128009}));
  EXPECT_EQ(c.rope_scaling.type, "llama3");
  EXPECT_FLOAT_EQ(c.rope_scaling.factor, 8.0f);
  EXPECT_FLOAT_EQ(c.rope_scaling.low_freq_factor, 1.0f);
  EXPECT_FLOAT_EQ(c.rope_scaling.high_freq_factor, 4.0f);
  EXPECT_EQ(c.rope_scaling.original_max_position_embeddings, 8192);
  EXPECT_FLOAT_EQ(c.rope_theta, 500000.0f);
  EXPECT_EQ(c.dtype, "bfloat16");
  std::vector<float> inv = rope_inv_freq(c);
  expect_close(inv, hf_llama3_inv_freq(500000.0f, 128, 8.0f, 1.0f, 4.0f, 8192), 2e-6);
  // The three regimes: short wavelengths untouched, long ones divided by 8, a blend between.
  EXPECT_FLOAT_EQ(inv[0], 1.0f);
  EXPECT_NEAR(inv[63], std::pow(500000.0, -126.0 / 128.0) / 8.0, 1e-12);
  int kept = 0, scaled = 0, blended = 0;
  for (int i = 0; i < 64; ++i) {
    const double base = std::pow(500000.0, -2.0 * i / 128.0);
    const double r = inv[size_t(i)] / base;
    if (std::fabs(r - 1) < 1e-5) ++kept;
    else if (std::fabs(r - 0.125) < 1e-5) ++scaled;
    else {
      ++blended;
      EXPECT_TRUE(r > 0.125 && r < 1.0);
    }
  }
  EXPECT_GT(kept, 0);
  EXPECT_GT(scaled, 0);
  EXPECT_GT(blended, 0);
}

TEST(Config, Llama32Transformers5RopeParameters) {
  ModelConfig c = parse_config(kLlama32v5);
  EXPECT_EQ(c.head_dim, 64);
  EXPECT_TRUE(c.tie_word_embeddings);
  EXPECT_FLOAT_EQ(c.rope_theta, 500000.0f);
  EXPECT_EQ(c.rope_scaling.type, "llama3");
  EXPECT_FLOAT_EQ(c.rope_scaling.factor, 32.0f);
  EXPECT_EQ(c.dtype, "bfloat16");
  expect_close(rope_inv_freq(c), hf_llama3_inv_freq(500000.0f, 64, 32.0f, 1.0f, 4.0f, 8192), 2e-6);
}

TEST(Config, Mistral) {
  ModelConfig c = parse_config(kMistral);
  EXPECT_EQ(c.arch, Arch::mistral);
  EXPECT_EQ(c.sliding_window, 4096);
  EXPECT_EQ(c.num_kv_heads, 8);
  EXPECT_EQ(c.head_dim, 128);
}

TEST(Config, Qwen2HasQkvBias) {
  ModelConfig c = parse_config(kQwen2);
  EXPECT_EQ(c.arch, Arch::qwen2);
  EXPECT_TRUE(c.qkv_bias);
  EXPECT_FALSE(c.o_bias);
  EXPECT_FALSE(c.qk_norm);
  EXPECT_EQ(c.head_dim, 64);
  EXPECT_EQ(c.num_kv_heads, 2);
  EXPECT_EQ(c.sliding_window, 0);  // use_sliding_window: false
  EXPECT_TRUE(c.tie_word_embeddings);
  EXPECT_FLOAT_EQ(c.norm_eps, 1e-6f);
  EXPECT_FLOAT_EQ(c.rope_theta, 1e6f);
}

TEST(Config, Qwen3HasQkNormAndExplicitHeadDim) {
  ModelConfig c = parse_config(kQwen3);
  EXPECT_EQ(c.arch, Arch::qwen3);
  EXPECT_TRUE(c.qk_norm);
  EXPECT_FALSE(c.qkv_bias);
  EXPECT_EQ(c.head_dim, 128);  // not 1024 / 16
  EXPECT_EQ(c.hidden_size, 1024);
  EXPECT_EQ(rope_inv_freq(c).size(), 64u);
}

TEST(Config, LinearScaling) {
  std::string text = kLlama2;
  text.replace(text.find("\"rope_scaling\": null"), 20, R"("rope_scaling": {"type": "linear", "factor": 4.0})");
  ModelConfig c = parse_config(text);
  std::vector<float> inv = rope_inv_freq(c);
  for (int i = 0; i < 64; ++i) EXPECT_NEAR(inv[size_t(i)], std::pow(10000.0, -2.0 * i / 128.0) / 4.0, 1e-8);
}

TEST(Config, Errors) {
  expect_error(R"({"model_type": "deepseek_v2", "architectures": ["DeepseekV2ForCausalLM"]})", "deepseek_v2");
  expect_error(R"({"architectures": ["MambaForCausalLM"]})", "MambaForCausalLM");
  expect_error("{}", "architecture");
  expect_error("{not json", "malformed JSON");
  std::string text = kLlama2;
  expect_error(text.replace(text.find("\"hidden_size\": 4096,"), 20, ""), "hidden_size");
  text = kLlama2;
  expect_error(text.replace(text.find("\"num_key_value_heads\": 32"), 25, "\"num_key_value_heads\": 5"), "key/value heads");
  text = kLlama2;
  expect_error(text.replace(text.find("\"rope_scaling\": null"), 20, R"("rope_scaling": {"type": "yarn", "factor": 4.0})"), "yarn");
  text = kLlama31;
  expect_error(text.replace(text.find("\"original_max_position_embeddings\": 8192,"), 41, ""), "original_max_position_embeddings");
  text = kLlama2;
  expect_error(text.replace(text.find("\"eos_token_id\": 2"), 17, "\"eos_token_id\": \"x\""), "eos_token_id");
}

TEST(Config, LoadFromDirectory) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("tessera_config_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "config.json") << kQwen3;
  EXPECT_EQ(load_config(dir.string()).arch, Arch::qwen3);
  fs::remove_all(dir);
  EXPECT_THROW(load_config(dir.string()), Error);
}

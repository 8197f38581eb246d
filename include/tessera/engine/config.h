// A model's shape and hyper-parameters, read from a Hugging Face config.json.
#pragma once
#include <string>
#include <vector>

namespace tessera::engine {

enum class Arch { gpt2, llama, mistral, qwen2, qwen3 };
const char* arch_name(Arch arch);

// How RoPE frequencies are scaled: "default" (none), "linear" (positions / factor) or "llama3" (Llama 3.1+:
// long wavelengths divided by factor, short ones kept, a smooth blend between).
struct RopeScaling {
  std::string type = "default";
  float factor = 1.0f;
  float low_freq_factor = 1.0f;
  float high_freq_factor = 4.0f;
  int original_max_position_embeddings = 0;
};

struct ModelConfig {
  Arch arch = Arch::llama;
  std::string model_type;           // as written: "llama", "qwen2", ...
  int vocab_size = 0;
  int hidden_size = 0;
  int intermediate_size = 0;
  int num_layers = 0;
  int num_heads = 0;
  int num_kv_heads = 0;             // == num_heads without grouped-query attention
  int head_dim = 0;                 // hidden_size / num_heads unless the config says otherwise (Qwen3)
  int max_position_embeddings = 0;
  float norm_eps = 1e-5f;           // rms_norm_eps, or GPT-2's layer_norm_epsilon
  std::string hidden_act = "silu";  // GPT-2: activation_function ("gelu_new")
  // Positions
  float rope_theta = 10000.0f;      // unused by GPT-2 (learned positions)
  float partial_rotary_factor = 1.0f;
  RopeScaling rope_scaling;
  int sliding_window = 0;           // 0: full attention (Mistral may set it)
  // Which projections carry a bias, and other per-architecture switches.
  bool qkv_bias = false;            // Qwen2: true; Llama/Qwen3: attention_bias; GPT-2: true
  bool o_bias = false;              // Llama/Qwen3: attention_bias; GPT-2: true
  bool mlp_bias = false;            // Llama: mlp_bias; GPT-2: true
  bool qk_norm = false;             // Qwen3: RMSNorm on each head of q and k
  bool tie_word_embeddings = false;
  // Tokens
  int bos_token_id = -1;            // -1: none
  std::vector<int> eos_token_ids;   // config.json may give one id or a list
  std::string dtype = "float32";    // torch_dtype (transformers < 5) or dtype (transformers >= 5)
};

// Parses config.json text. `source` names the file in errors. Unknown architectures (model_type or
// architectures[0]) and missing or nonsensical required fields are invalid_argument errors naming them.
ModelConfig parse_config(const std::string& json_text, const std::string& source = "config.json");
// Reads `path`: a config.json, or a directory holding one.
ModelConfig load_config(const std::string& path);

// RoPE inverse frequencies, one per rotated pair: theta^(-2i/d) for i < d/2, d = head_dim * partial_rotary_factor,
// then scaled as config.rope_scaling says.
std::vector<float> rope_inv_freq(const ModelConfig& config);

}  // namespace tessera::engine

// Building a Model's weights: names and shapes per architecture, fused q/k/v and gate/up, one conversion to
// the compute dtype at load.
#include <cmath>
#include <filesystem>
#include <memory>

#include "engine/model/weight_source.h"
#include "tessera/ops/elementwise.h"
#include "tessera/engine/model.h"

namespace tessera::engine {

namespace {
const Init kMatrixInit{0.f, 1.f};  // spread replaced by sqrt(3 / fan_in) below
const Init kNormInit{1.f, 0.1f};
const Init kBiasInit{0.f, 0.1f};
const Init kEmbeddingInit{0.f, 1.f};

Init matrix_init(int64_t fan_in) { return {0.f, float(std::sqrt(3.0 / double(fan_in)))}; }

// Allocates one [rows, cols] tensor and fills consecutive row blocks of it from the named source tensors
// (each [rows_i, cols]). With a single part this is just the tensor itself.
Tensor fused_rows(const Model& m, WeightSource& src, const std::vector<std::pair<std::string, int64_t>>& parts,
                  int64_t cols, Init init) {
  int64_t rows = 0;
  for (const auto& p : parts) rows += p.second;
  Tensor out = Tensor::empty({rows, cols}, m.dtype, m.device);
  auto* base = static_cast<uint8_t*>(out.data());
  int64_t row = 0;
  for (const auto& [name, n] : parts) {
    const Tensor slice = Tensor::view(base + size_t(row * cols) * dtype_size(m.dtype), {n, cols}, m.dtype, m.device);
    src.fill(name, {n, cols}, init, slice);
    row += n;
  }
  return out;
}

Tensor vector_param(const Model& m, WeightSource& src, const std::string& name, int64_t n, Init init) {
  Tensor out = Tensor::empty({n}, m.dtype, m.device);
  src.fill(name, {n}, init, out);
  return out;
}

// A bias fused like its weight: [q | k | v] or [gate | up].
Tensor fused_vector(const Model& m, WeightSource& src, const std::vector<std::pair<std::string, int64_t>>& parts, Init init) {
  int64_t n = 0;
  for (const auto& p : parts) n += p.second;
  Tensor out = Tensor::empty({n}, m.dtype, m.device);
  auto* base = static_cast<uint8_t*>(out.data());
  int64_t at = 0;
  for (const auto& [name, len] : parts) {
    src.fill(name, {len}, init, Tensor::view(base + size_t(at) * dtype_size(m.dtype), {len}, m.dtype, m.device));
    at += len;
  }
  return out;
}

void build_llama(Model& m, WeightSource& src) {
  const ModelConfig& c = m.config;
  const int64_t H = c.hidden_size, I = c.intermediate_size, D = c.head_dim;
  const int64_t q_out = int64_t(c.num_heads) * D, kv_out = int64_t(c.num_kv_heads) * D;
  Weights& w = m.weights;
  w.token_embedding = fused_rows(m, src, {{"model.embed_tokens.weight", c.vocab_size}}, H, kEmbeddingInit);
  for (int l = 0; l < c.num_layers; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    LayerWeights L;
    L.attn_norm = vector_param(m, src, p + "input_layernorm.weight", H, kNormInit);
    L.qkv.weight = fused_rows(m, src, {{p + "self_attn.q_proj.weight", q_out}, {p + "self_attn.k_proj.weight", kv_out},
                                       {p + "self_attn.v_proj.weight", kv_out}}, H, matrix_init(H));
    if (c.qkv_bias)
      L.qkv.bias = fused_vector(m, src, {{p + "self_attn.q_proj.bias", q_out}, {p + "self_attn.k_proj.bias", kv_out},
                                         {p + "self_attn.v_proj.bias", kv_out}}, kBiasInit);
    if (c.qk_norm) {
      L.q_norm = vector_param(m, src, p + "self_attn.q_norm.weight", D, kNormInit);
      L.k_norm = vector_param(m, src, p + "self_attn.k_norm.weight", D, kNormInit);
    }
    L.o.weight = fused_rows(m, src, {{p + "self_attn.o_proj.weight", H}}, q_out, matrix_init(q_out));
    if (c.o_bias) L.o.bias = vector_param(m, src, p + "self_attn.o_proj.bias", H, kBiasInit);
    L.mlp_norm = vector_param(m, src, p + "post_attention_layernorm.weight", H, kNormInit);
    L.gate_up.weight = fused_rows(m, src, {{p + "mlp.gate_proj.weight", I}, {p + "mlp.up_proj.weight", I}}, H, matrix_init(H));
    if (c.mlp_bias)
      L.gate_up.bias = fused_vector(m, src, {{p + "mlp.gate_proj.bias", I}, {p + "mlp.up_proj.bias", I}}, kBiasInit);
    L.down.weight = fused_rows(m, src, {{p + "mlp.down_proj.weight", H}}, I, matrix_init(I));
    if (c.mlp_bias) L.down.bias = vector_param(m, src, p + "mlp.down_proj.bias", H, kBiasInit);
    w.layers.push_back(std::move(L));
  }
  w.final_norm = vector_param(m, src, "model.norm.weight", H, kNormInit);
  // Tied: the checkpoint has no lm_head (or one equal to the embedding); use the embedding.
  if (c.tie_word_embeddings) w.lm_head.weight = w.token_embedding;
  else w.lm_head.weight = fused_rows(m, src, {{"lm_head.weight", c.vocab_size}}, H, matrix_init(H));
  const std::vector<float> inv_freq = rope_inv_freq(c);
  w.rope_inv_freq = Tensor::view(const_cast<float*>(inv_freq.data()), {int64_t(inv_freq.size())}, DType::f32).to(m.device);
}

// GPT-2: Conv1D weights are stored [in, out]; each is transposed once here to [out, in], so every matmul of
// the forward uses the same [N, K] layout. c_attn is already q/k/v fused.
void build_gpt2(Model& m, WeightSource& src) {
  const ModelConfig& c = m.config;
  const int64_t H = c.hidden_size, I = c.intermediate_size;
  const std::string root = src.has("transformer.wte.weight") ? "transformer." : "";
  Weights& w = m.weights;
  auto conv1d = [&](const std::string& name, int64_t in, int64_t out) {
    const Tensor stored = fused_rows(m, src, {{name + ".weight", in}}, out, matrix_init(in));
    Linear lin;
    lin.weight = Tensor::empty({out, in}, m.dtype, m.device);
    ops::transpose(stored, lin.weight);
    lin.bias = vector_param(m, src, name + ".bias", out, kBiasInit);
    return lin;
  };
  w.token_embedding = fused_rows(m, src, {{root + "wte.weight", c.vocab_size}}, H, kEmbeddingInit);
  w.position_embedding = fused_rows(m, src, {{root + "wpe.weight", c.max_position_embeddings}}, H, Init{0.f, 0.5f});
  for (int l = 0; l < c.num_layers; ++l) {
    const std::string p = root + "h." + std::to_string(l) + ".";
    LayerWeights L;
    L.attn_norm = vector_param(m, src, p + "ln_1.weight", H, kNormInit);
    L.attn_norm_bias = vector_param(m, src, p + "ln_1.bias", H, kBiasInit);
    L.qkv = conv1d(p + "attn.c_attn", H, 3 * H);
    L.o = conv1d(p + "attn.c_proj", H, H);
    L.mlp_norm = vector_param(m, src, p + "ln_2.weight", H, kNormInit);
    L.mlp_norm_bias = vector_param(m, src, p + "ln_2.bias", H, kBiasInit);
    L.gate_up = conv1d(p + "mlp.c_fc", H, I);
    L.down = conv1d(p + "mlp.c_proj", I, H);
    w.layers.push_back(std::move(L));
  }
  w.final_norm = vector_param(m, src, root + "ln_f.weight", H, kNormInit);
  w.final_norm_bias = vector_param(m, src, root + "ln_f.bias", H, kBiasInit);
  if (c.tie_word_embeddings || !src.has("lm_head.weight")) w.lm_head.weight = w.token_embedding;
  else w.lm_head.weight = fused_rows(m, src, {{"lm_head.weight", c.vocab_size}}, H, matrix_init(H));
}

Model empty_model(const ModelConfig& config, const ModelOptions& options) {
  Model m;
  m.config = config;
  m.device = options.device;
  m.dtype = options.dtype ? *options.dtype : default_dtype(options.device);
  check(m.dtype == DType::f32 || m.dtype == DType::f16 || m.dtype == DType::bf16,
        "model: compute dtype must be f32, f16 or bf16, not " + std::string(dtype_name(m.dtype)));
  if (m.device.is_cuda() && !cuda_available())
    unsupported("model: --device cuda was asked for, but " +
                std::string(built_with_cuda() ? "no CUDA device is available" : "tessera was built without CUDA"));
  return m;
}
}  // namespace

DType default_dtype(Device device) { return device.is_cuda() ? DType::bf16 : DType::f32; }

void build_weights(Model& m, WeightSource& src) {
  switch (m.config.arch) {
    case Arch::gpt2: build_gpt2(m, src); break;
    case Arch::llama: case Arch::mistral: case Arch::qwen2: case Arch::qwen3: build_llama(m, src); break;
    default: unsupported(std::string("model: no forward for architecture ") + arch_name(m.config.arch));
  }
}

Model load_model(const std::string& dir, const ModelOptions& options) {
  namespace fs = std::filesystem;
  if (!fs::is_directory(dir)) invalid_argument("model: '" + dir + "' is not a directory");
  Model m = empty_model(load_config(dir), options);
  CheckpointSource src(Safetensors::open(dir), "the checkpoint in " + dir);
  build_weights(m, src);
  return m;
}

Model random_model(const ModelConfig& config, const ModelOptions& options, uint64_t seed) {
  Model m = empty_model(config, options);
  RandomSource src(seed);
  build_weights(m, src);
  return m;
}

}  // namespace tessera::engine

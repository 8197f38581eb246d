// A model: its config and its weights as tessera tensors on one device, in one compute dtype, laid out once at
// load for the forward's matmuls (q/k/v fused into one weight, gate/up fused into one).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tessera/engine/config.h"
#include "tessera/runtime/tensor.h"

namespace tessera::engine {

// A linear layer y = x W^T + b with W [out, in] (nn.Linear's layout, BLayout::nk). GPT-2's Conv1D weights,
// stored [in, out], are transposed to it at load.
struct Linear {
  Tensor weight;
  Tensor bias;  // [out], or undefined
};

struct LayerWeights {
  Tensor attn_norm, attn_norm_bias;  // [hidden]; the bias only for GPT-2's LayerNorm
  Linear qkv;                        // out = [q heads | k heads | v heads]
  Tensor q_norm, k_norm;             // [head_dim], Qwen3 only
  Linear o;                          // attention output projection
  Tensor mlp_norm, mlp_norm_bias;    // [hidden]
  Linear gate_up;                    // Llama family: out = [gate | up] (2 x intermediate); GPT-2: c_fc
  Linear down;                       // back to hidden
};

struct Weights {
  Tensor token_embedding;     // [vocab, hidden]
  Tensor position_embedding;  // [max_positions, hidden], GPT-2 only
  std::vector<LayerWeights> layers;
  Tensor final_norm, final_norm_bias;
  Linear lm_head;             // the token embedding itself when the embeddings are tied
  Tensor rope_inv_freq;       // [rotary_dim / 2] f32 on the device (Llama family)
};

struct Model {
  ModelConfig config;
  Device device;
  DType dtype = DType::f32;  // the compute dtype of weights and activations
  Weights weights;
  int rotary_dim() const { return int(float(config.head_dim) * config.partial_rotary_factor); }
};

struct ModelOptions {
  Device device = Device::cpu();
  std::optional<DType> dtype;  // default: f32 on the CPU, bf16 on CUDA
};

DType default_dtype(Device device);

// Loads config.json and model.safetensors (or a sharded index) from `dir`. A missing tensor is an error naming
// it and the checkpoint; an unknown architecture is an error naming it.
Model load_model(const std::string& dir, const ModelOptions& options = {});

// A model of `config`'s shapes with random weights drawn from `seed` (the same seed gives the same weights):
// matrices uniform with variance 1 / fan_in, norm weights near 1, small biases. For benchmarks of full-size
// shapes without a checkpoint.
Model random_model(const ModelConfig& config, const ModelOptions& options = {}, uint64_t seed = 0);

}  // namespace tessera::engine

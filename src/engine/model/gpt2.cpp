// GPT-2: learned position embeddings, pre-norm layers with LayerNorm, biases everywhere, a GELU (tanh) MLP.
// Conv1D weights were transposed to [out, in] at load. Every line is one op call.
#include "engine/model/step.h"
#include "tessera/ops/attention.h"
#include "tessera/ops/elementwise.h"
#include "tessera/ops/embedding.h"
#include "tessera/ops/matmul.h"
#include "tessera/ops/norm.h"

namespace tessera::engine {

namespace {
ops::Activation mlp_activation(const std::string& act) {
  if (act == "gelu_new" || act == "gelu_pytorch_tanh" || act == "gelu_fast") return ops::Activation::gelu_tanh;
  if (act == "gelu") return ops::Activation::gelu;
  if (act == "relu") return ops::Activation::relu;
  unsupported("gpt2: activation_function '" + act + "' is not supported (gelu_new, gelu, relu)");
}
}  // namespace

// x = wte[ids] + wpe[positions]
void gpt2_embed(const Model& model, const Step& s) {
  embed_f32(s.ids, model.weights.token_embedding, s.x, s.xn, s.opt);
  embed_f32(s.positions, model.weights.position_embedding, s.positional, s.xn, s.opt);
  ops::add(s.x, s.positional, s.x, s.opt);
}

void gpt2_layers(const Model& model, const PagedKvCache& cache, const Step& s) {
  const ModelConfig& c = model.config;
  const Weights& w = model.weights;
  const float eps = c.norm_eps;
  const ops::Activation act = mlp_activation(c.hidden_act);

  for (int l = 0; l < c.num_layers; ++l) {
    const LayerWeights& L = w.layers[size_t(l)];
    ops::layer_norm(s.x, L.attn_norm, L.attn_norm_bias, s.xn, eps, s.opt);
    ops::matmul(s.xn, L.qkv.weight, s.qkv, ops::BLayout::nk, epilogue(L.qkv.bias), s.opt);
    ops::kv_cache_append(s.k, s.v, cache.layers[size_t(l)], s.slots, s.opt);
    attention(model, cache, s, l);
    ops::matmul(s.attn, L.o.weight, s.x, ops::BLayout::nk, epilogue_plus(L.o.bias, s.x), s.opt);
    ops::layer_norm(s.x, L.mlp_norm, L.mlp_norm_bias, s.xn, eps, s.opt);
    ops::matmul(s.xn, L.gate_up.weight, s.mlp_in, ops::BLayout::nk, epilogue(L.gate_up.bias, act), s.opt);
    ops::matmul(s.mlp_in, L.down.weight, s.x, ops::BLayout::nk, epilogue_plus(L.down.bias, s.x), s.opt);
  }
}

}  // namespace tessera::engine

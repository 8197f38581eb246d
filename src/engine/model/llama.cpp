// The Llama family (Llama 1-3, Mistral, Qwen2, Qwen3): pre-norm decoder layers with RMSNorm, fused q/k/v
// (Qwen2: with bias; Qwen3: RMSNorm on each head of q and k), NeoX-layout RoPE, grouped-query attention and a
// SwiGLU MLP. Every line is one op call.
#include "engine/model/step.h"
#include "tessera/ops/activation.h"
#include "tessera/ops/attention.h"
#include "tessera/ops/embedding.h"
#include "tessera/ops/matmul.h"
#include "tessera/ops/norm.h"
#include "tessera/ops/rope.h"

namespace tessera::engine {

void llama_embed(const Model& model, const Step& s) {
  embed_f32(s.ids, model.weights.token_embedding, s.x, s.xn, s.opt);
}

void llama_layers(const Model& model, const PagedKvCache& cache, const Step& s) {
  const ModelConfig& c = model.config;
  const Weights& w = model.weights;
  const float eps = c.norm_eps;
  const int64_t D = c.head_dim;

  for (int l = 0; l < c.num_layers; ++l) {
    const LayerWeights& L = w.layers[size_t(l)];
    // Attention block: x += o_proj(attention(rope(q), rope(k), v)) of rms_norm(x); rope(k) and v join the cache.
    ops::rms_norm(s.x, L.attn_norm, s.xn, eps, s.opt);
    if (c.qk_norm) {
      // Separate q, k, v outputs (row blocks of the fused weight), then RMSNorm over each head's D features.
      const int64_t q_out = s.q2.size(1), kv_out = s.k2.size(1), H = c.hidden_size;
      const size_t elem = dtype_size(model.dtype);
      auto* wq = static_cast<uint8_t*>(L.qkv.weight.data());
      const Tensor wk = Tensor::view(wq + size_t(q_out * H) * elem, {kv_out, H}, model.dtype, model.device);
      const Tensor wv = Tensor::view(wq + size_t((q_out + kv_out) * H) * elem, {kv_out, H}, model.dtype, model.device);
      const Tensor wq_rows = Tensor::view(wq, {q_out, H}, model.dtype, model.device);
      Tensor bq, bk, bv;  // row blocks of the fused bias, when there is one
      if (L.qkv.bias.defined() && L.qkv.bias.numel() > 0) {
        auto* b = static_cast<uint8_t*>(L.qkv.bias.data());
        bq = Tensor::view(b, {q_out}, model.dtype, model.device);
        bk = Tensor::view(b + size_t(q_out) * elem, {kv_out}, model.dtype, model.device);
        bv = Tensor::view(b + size_t(q_out + kv_out) * elem, {kv_out}, model.dtype, model.device);
      }
      ops::matmul(s.xn, wq_rows, s.q2, ops::BLayout::nk, epilogue(bq), s.opt);
      ops::matmul(s.xn, wk, s.k2, ops::BLayout::nk, epilogue(bk), s.opt);
      ops::matmul(s.xn, wv, s.v2, ops::BLayout::nk, epilogue(bv), s.opt);
      const Tensor q_heads = s.q2.reshape({s.tokens * c.num_heads, D});
      const Tensor k_heads = s.k2.reshape({s.tokens * c.num_kv_heads, D});
      ops::rms_norm(q_heads, L.q_norm, q_heads, eps, s.opt);
      ops::rms_norm(k_heads, L.k_norm, k_heads, eps, s.opt);
      ops::rope_kv_cache_append(s.q, s.k, s.v, s.positions, w.rope_inv_freq, ops::RopeLayout::neox, model.rotary_dim(),
                                cache.layers[size_t(l)], s.slots, s.opt);
    } else {  // one op: for a decode step at batch 1, one kernel projects, rotates and appends
      ops::qkv_rope_kv_cache_append(s.xn, L.qkv.weight, L.qkv.bias, s.qkv, s.positions, w.rope_inv_freq,
                                    ops::RopeLayout::neox, model.rotary_dim(), cache.layers[size_t(l)], s.slots, s.opt);
    }
    attention(model, cache, s, l);
    ops::matmul(s.attn, L.o.weight, s.x, ops::BLayout::nk, epilogue_plus(L.o.bias, s.x), s.opt);
    // MLP block: x += down(silu(gate) * up) of rms_norm(x).
    ops::rms_norm(s.x, L.mlp_norm, s.xn, eps, s.opt);
    if (L.gate_up.bias.data() == nullptr) {  // one op: for a decode step, one kernel that never writes [T, 2I]
      ops::matmul_silu_and_mul(s.xn, L.gate_up.weight, s.mlp_act, s.mlp_in, s.opt);
    } else {
      ops::matmul(s.xn, L.gate_up.weight, s.mlp_in, ops::BLayout::nk, epilogue(L.gate_up.bias), s.opt);
      ops::silu_and_mul(s.mlp_in, s.mlp_act, s.opt);
    }
    ops::matmul(s.mlp_act, L.down.weight, s.x, ops::BLayout::nk, epilogue_plus(L.down.bias, s.x), s.opt);
  }
}

}  // namespace tessera::engine

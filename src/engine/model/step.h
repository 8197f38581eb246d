// One step's tensors: views of the leading rows of the step buffers, shaped for this step's tokens. Shared by
// the per-architecture forwards.
#pragma once
#include "tessera/engine/forward.h"
#include "tessera/ops/matmul.h"

namespace tessera::engine {

struct Step {
  int64_t tokens = 0, batch = 0;
  bool decode = false;        // fmha_decode over the cache, else fmha_varlen over the new tokens
  Tensor ids, positions, slots, cu_seqlens, seq_lens, last_rows, block_table;
  Tensor x;                   // [T, hidden], the residual stream: always f32, so 16-bit models do not round
                              // it at every layer (their error against an fp32 forward stays well below
                              // that of a 16-bit stream)
  Tensor xn;                  // [T, hidden], normalised, in the compute dtype
  Tensor qkv;                 // [T, q + k + v features] when fused (no q/k norm), else undefined
  Tensor q2, k2, v2;          // [T, heads * D], the matmul outputs of the unfused layout
  Tensor q, k, v;             // [T, heads, D] views (strided when fused)
  Tensor attn;                // [T, Hq * D]
  Tensor mlp_in, mlp_act;     // [T, 2I] (or [T, I] for GPT-2) and [T, I]
  Tensor positional;          // [T, hidden], GPT-2's position embeddings, f32
  ops::Options opt;           // every op of the step runs on one stream (StepBuffers::stream)
};

// Matmul epilogues of a linear layer: its bias, and optionally an activation or a residual added last.
inline ops::Epilogue epilogue(const Tensor& bias, ops::Activation activation = ops::Activation::none) {
  ops::Epilogue e;
  e.bias = bias;
  e.activation = activation;
  return e;
}
inline ops::Epilogue epilogue_plus(const Tensor& bias, const Tensor& residual) {
  ops::Epilogue e = epilogue(bias);
  e.residual = residual;
  return e;
}

// Writes the rows of `table` named by ids into the f32 tensor out, through scratch (rows in the table's
// dtype) when the table is 16-bit.
void embed_f32(const Tensor& ids, const Tensor& table, const Tensor& out, const Tensor& scratch, const ops::Options& opt);

// Writes attention of q over the cache (this step's k and v already appended) into step.attn.
void attention(const Model& model, const PagedKvCache& cache, const Step& step, int layer);
// Applies the final norm and the lm_head to each sequence's last token: buffers.logits [B, vocab].
void logits_of_last_tokens(const Model& model, const Step& step, StepBuffers& buffers);

// The per-architecture forwards, in two parts: the embedding (token ids -> step.x) and the layer stack
// (step.x -> the final hidden state in step.x).
void llama_embed(const Model& model, const Step& step);
void llama_layers(const Model& model, const PagedKvCache& cache, const Step& step);
void gpt2_embed(const Model& model, const Step& step);
void gpt2_layers(const Model& model, const PagedKvCache& cache, const Step& step);

}  // namespace tessera::engine

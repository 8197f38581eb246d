// Attention: fused prefill attention (fmha), decode attention over a paged or contiguous KV cache
// (fmha_decode), and the KV-cache append that fills the pages.
//
// Index tensors (cu_q, cu_k, seq_lens, block_table, slots) are validated by the front-end when they live on the
// CPU, and by the reference backend wherever they live; the tile-cuda kernels do not read them back to the host
// (no synchronisation) but never access memory outside the tensors whatever they hold.
//
// Layouts. Every tensor is indexed as named below; any strides are accepted except that the last (feature)
// dim must be unit-stride. So a [tokens, heads, dim] buffer written by a fused qkv matmul is passed as a
// strided view without a copy. Query head h attends with KV head h / (Hq / Hkv) (GQA; MQA when Hkv = 1).
// Inputs are f16 or bf16 (f32 too, for the reference and host checks); softmax statistics are fp32.
#pragma once
#include <cstdint>

#include "tessera/dispatch/dispatch.h"
#include "tessera/ops/rope.h"
#include "tessera/runtime/tensor.h"

namespace tessera::ops {

using dispatch::Options;

struct AttentionParams {
  float scale = 0.f;           // logits = scale * q.k; 0 means 1 / sqrt(Dqk)
  bool causal = false;         // query i may see key j when j <= i + (Sk - Sq) (bottom-right aligned)
  int64_t window_left = -1;    // sliding window: also masks j < i + (Sk - Sq) - window_left; -1 = unlimited
  float softcap = 0.f;         // logit soft-capping: logits = softcap * tanh(logits / softcap); 0 = off
};

// o = softmax(scale * q k^T + mask) v, per batch and query head.
// q [B, Hq, Sq, Dqk], k [B, Hkv, Sk, Dqk], v [B, Hkv, Sk, Dv], o [B, Hq, Sq, Dv] (dtype of q);
// lse, when defined: [B, Hq, Sq] f32, the natural-log log-sum-exp of each row's scaled logits
// (-inf for a row that sees no key; its o row is 0).
void fmha(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& o, const Tensor& lse = {},
          const AttentionParams& params = {}, const Options& options = {});

// fmha with fp8 e4m3 inputs and per-tensor scales: q, k and v hold q / q_scale, k / k_scale and v / v_scale (the
// values are scale * stored), so o = softmax(scale * (q_scale q8)(k_scale k8)^T + mask) (v_scale v8). o is bf16 or
// f16; shapes, lse and params as for fmha. The scales fold into the logits' scale and the output's, and the
// fp8 values are widened to o's dtype exactly (e4m3 fits both): on the GPU into scratch, after which the 16-bit
// kernels run (the staged one on Hopper); on the CPU tile by tile as the generic kernel loads them.
void fmha_fp8(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& o, float q_scale, float k_scale,
              float v_scale, const Tensor& lse = {}, const AttentionParams& params = {}, const Options& options = {});

// Gradients of fmha from its saved outputs: given o and lse (the forward call's, with the same params) and d_o
// [B, Hq, Sq, Dv], the gradient of a loss with respect to o, writes dq [B, Hq, Sq, Dqk], dk [B, Hkv, Sk, Dqk] and
// dv [B, Hkv, Sk, Dv] (dtype of q; dk and dv sum over the query heads that share each KV head). The
// probabilities are recomputed from lse; masks, softcap and scale as in the forward call. The tile kernels
// (f16/bf16, head dim 64 or 128 for both q and v, Hopper on the GPU) accumulate every gradient in fp32 in one
// block, without atomics; other calls run on the reference, which recomputes the softmax from q and k.
void fmha_backward(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& o, const Tensor& d_o,
                   const Tensor& lse, const Tensor& dq, const Tensor& dk, const Tensor& dv,
                   const AttentionParams& params = {}, const Options& options = {});
// The same without the forward's outputs: runs fmha first for o and lse (allocating them).
void fmha_backward(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& d_o, const Tensor& dq,
                   const Tensor& dk, const Tensor& dv, const AttentionParams& params = {}, const Options& options = {});

// The packed variable-length form: sequence b owns query rows [cu_q[b], cu_q[b+1]) of q [Tq, Hq, Dqk] and
// key rows [cu_k[b], cu_k[b+1]) of k [Tk, Hkv, Dqk] / v [Tk, Hkv, Dv]; cu_q, cu_k: [B + 1] i32, starting at 0,
// non-decreasing. o [Tq, Hq, Dv]; lse, when defined, [Tq, Hq] f32. Masks align each sequence bottom-right.
void fmha_varlen(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& cu_q, const Tensor& cu_k,
                 const Tensor& o, const Tensor& lse = {}, const AttentionParams& params = {},
                 const Options& options = {});

// A KV cache: pages of page_size token slots. k_pages [num_pages, page_size, Hkv, Dk],
// v_pages [num_pages, page_size, Hkv, Dv]. Token t of sequence b lives in page block_table[b, t / page_size]
// at slot t % page_size. A contiguous cache is the same thing with block_table undefined: then
// k_pages is [B, S_max, Hkv, Dk] (one "page" per sequence).
struct KvCache {
  Tensor k_pages, v_pages;
  Tensor block_table;  // [B, max_pages_per_seq] i32, or undefined for a contiguous cache
  // A promise to fmha_decode: of these pages, the block table and seq_lens, the kernel launched just before it
  // in the stream wrote at most the newest Sq tokens of each sequence (a decode step that appends its tokens
  // and then attends). The GPU kernel then reads the older tokens while that kernel finishes. Leave it false
  // when unsure: a broken promise reads stale rows.
  bool older_tokens_settled = false;
};

// Decode attention: q [B, Sq, Hq, Dk] holds the newest Sq (1 to 8) tokens of each sequence, which are already
// in the cache; seq_lens [B] i32 counts each sequence's cached tokens including them (so query i sits at
// position seq_lens[b] - Sq + i, and attends causally). o [B, Sq, Hq, Dv]. Sequences of different lengths
// share a batch; a sequence of length 0 gives zeros (as does a query whose position is negative).
// Decode is always causal (params.causal is not read); window_left, softcap and scale apply as for fmha.
// Block-table entries past a sequence's last page are never read (they may be -1).
// Long contexts are split over several blocks whose partial results go to fp32 scratch that the tile-cuda
// backend keeps per device and stream (allocated on the first call that needs more, then reused).
void fmha_decode(const Tensor& q, const KvCache& cache, const Tensor& seq_lens, const Tensor& o,
                 const AttentionParams& params = {}, const Options& options = {});

// MLA decode (DeepSeek-V2/V3, projections absorbed): every query head attends to one shared latent cache.
// q [B, Sq, H, R + P] holds each head's absorbed no-rope query (q_nope @ W_UK, R = kv_lora_rank, e.g. 512)
// followed by its rope part (P, e.g. 64); latent_pages [num_pages, page_size, R + P] holds the compressed
// c_kv (R) followed by the shared rope key (P) of each token; o [B, Sq, H, R] is the attention-weighted c_kv
// (the caller applies W_UV). R = o.size(-1). Logits are scale * (q_nope . c_kv + q_rope . k_rope) with scale
// 0 meaning 1 / sqrt(R + P); pass the model's softmax scale (DeepSeek uses 1 / sqrt(qk_nope + qk_rope) times
// its YaRN factor). block_table, seq_lens and params as for fmha_decode. This is fmha_decode with one KV head,
// K = the whole latent row and V = its first R columns (a view, no copy).
void mla_decode(const Tensor& q, const Tensor& latent_pages, const Tensor& block_table, const Tensor& seq_lens,
                const Tensor& o, const AttentionParams& params = {}, const Options& options = {});

// Writes k [T, Hkv, Dk] and v [T, Hkv, Dv] into the cache: token i goes to flat slot slots[i]
// (slots [T] i64: page * page_size + offset; for a contiguous cache b * S_max + position). A negative slot
// skips the token (padding).
void kv_cache_append(const Tensor& k, const Tensor& v, const KvCache& cache, const Tensor& slots,
                     const Options& options = {});

// RoPE on q [T, Hq, D] and k [T, Hkv, D] in place, then k (rotated) and v [T, Hkv, Dv] appended to the cache:
// rope(q, ..., q), rope(k, ..., k) and kv_cache_append(k, v, cache, slots) in one launch (a decode step's
// smallest kernels). positions, inv_freq, layout and rotary_dim as for rope; k, v, cache and slots as for
// kv_cache_append. Everything is checked before anything is written.
void rope_kv_cache_append(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& positions,
                          const Tensor& inv_freq, RopeLayout layout, int64_t rotary_dim, const KvCache& cache,
                          const Tensor& slots, const Options& options = {});

// The q, k and v column blocks of a fused projection's rows qkv [T, (Hq + 2 Hkv) D] (last dim unit-stride), as
// [T, Hq, D], [T, Hkv, D] and [T, Hkv, D] views with qkv's row stride: what qkv_rope_kv_cache_append rotates and
// appends, and what a model passes to attention.
struct QkvHeads {
  Tensor q, k, v;
};
QkvHeads qkv_heads(const Tensor& qkv, int64_t q_heads, int64_t kv_heads, int64_t head_dim);

// A layer's attention input in one call: the fused q/k/v projection, then rope_kv_cache_append on its q, k and
// v column blocks. Exactly matmul(x, w, qkv, BLayout::nk, {bias}) followed by rope_kv_cache_append(q, k, v, ...)
// where q, k and v are the [T, H, D] views of qkv's columns [0, Hq D), [Hq D, (Hq + Hkv) D) and the rest: qkv
// holds the projection with q and k rotated, the cache the rotated k and v. For one token (a decode step at
// batch 1) on the GPU one kernel does it all, and the projection is rotated in fp32 before its only rounding.
// x: [T, K]; w: [(Hq + 2 Hkv) D, K] (the q rows, then the k rows, then the v rows); bias: [(Hq + 2 Hkv) D] or
// empty; qkv: [T, (Hq + 2 Hkv) D], not overlapping x; all of one dtype (f32, f16, bf16). The cache's pages give
// Hkv and D (Dk = Dv = D); Hq is what remains of w's rows, a multiple of Hkv. positions, inv_freq, layout,
// rotary_dim and slots as for rope_kv_cache_append. Everything is checked before anything is written.
void qkv_rope_kv_cache_append(const Tensor& x, const Tensor& w, const Tensor& bias, const Tensor& qkv,
                              const Tensor& positions, const Tensor& inv_freq, RopeLayout layout, int64_t rotary_dim,
                              const KvCache& cache, const Tensor& slots, const Options& options = {});

}  // namespace tessera::ops

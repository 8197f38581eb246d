// Argument structs of the attention family and the entry points of each backend. The front-end
// (attention.cpp) has checked every tensor and resolved params.scale (never 0 here).
#pragma once
#include "tessera/dispatch/dispatch.h"
#include "tessera/ops/attention.h"
#include "tessera/runtime/tensor.h"

namespace tessera::ops {

// A tensor argument the caller left out (a default-constructed Tensor), as opposed to a given but broken one.
inline bool is_absent(const Tensor& t) { return t.data() == nullptr && t.ndim() == 0; }

struct FmhaArgs {
  Tensor q, k, v, o, lse;  // lse may be absent
  AttentionParams params;
};

// fmha on fp8 e4m3 q, k, v: params.scale already holds q_scale * k_scale (the front-end folds it in), and o is
// v_scale times the attention of the stored values.
struct FmhaFp8Args {
  Tensor q, k, v, o, lse;  // lse may be absent
  AttentionParams params;
  float v_scale = 1.f;
};

struct FmhaBackwardArgs {
  Tensor q, k, v, o, d_o, lse, dq, dk, dv;  // o and lse: the forward's (the reference recomputes them)
  AttentionParams params;
};

struct FmhaVarlenArgs {
  Tensor q, k, v, cu_q, cu_k, o, lse;  // lse may be absent
  AttentionParams params;
};

struct FmhaDecodeArgs {
  Tensor q;
  KvCache cache;
  Tensor seq_lens, o;
  AttentionParams params;
};

struct KvCacheAppendArgs {
  Tensor k, v;
  KvCache cache;
  Tensor slots;
};

struct RopeKvCacheAppendArgs {
  Tensor q, k, v;                    // rotated in place: q and k
  Tensor positions, inv_freq;
  RopeLayout layout = RopeLayout::neox;
  int64_t rotary_dim = 0;            // resolved by the front-end
  KvCache cache;
  Tensor slots;
};

struct QkvRopeKvCacheAppendArgs {
  Tensor x, w, bias, qkv;            // bias: empty or [N]
  RopeKvCacheAppendArgs rope;        // q, k, v: the [T, H, D] views of qkv's column blocks
};

#define TESSERA_ATTENTION_BACKEND_DECLS                                                       \
  void fmha(const FmhaArgs& args, const dispatch::Options& opt);                              \
  void fmha_fp8(const FmhaFp8Args& args, const dispatch::Options& opt);                       \
  void fmha_varlen(const FmhaVarlenArgs& args, const dispatch::Options& opt);                 \
  void fmha_decode(const FmhaDecodeArgs& args, const dispatch::Options& opt);                 \
  void kv_cache_append(const KvCacheAppendArgs& args, const dispatch::Options& opt);          \
  void rope_kv_cache_append(const RopeKvCacheAppendArgs& args, const dispatch::Options& opt);          \
  void qkv_rope_kv_cache_append(const QkvRopeKvCacheAppendArgs& args, const dispatch::Options& opt);
namespace reference {
TESSERA_ATTENTION_BACKEND_DECLS
void fmha_backward(const FmhaBackwardArgs& args, const dispatch::Options& opt);
}
#define TESSERA_ATTENTION_BACKWARD_DECLS                                \
  void fmha_backward(const FmhaBackwardArgs& args, const dispatch::Options& opt); \
  dispatch::Refusal fmha_backward_refusal(const FmhaBackwardArgs& args);
namespace tile_host { TESSERA_ATTENTION_BACKEND_DECLS TESSERA_ATTENTION_BACKWARD_DECLS }
namespace tile_cuda { TESSERA_ATTENTION_BACKEND_DECLS TESSERA_ATTENTION_BACKWARD_DECLS }
#undef TESSERA_ATTENTION_BACKWARD_DECLS
#undef TESSERA_ATTENTION_BACKEND_DECLS

}  // namespace tessera::ops

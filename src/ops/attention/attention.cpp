// Front-ends of the attention family: argument checks (shapes, dtypes, devices, strides, and the values of
// index tensors that live on the CPU), then dispatch. Nothing is written when a check fails.
#include "tessera/ops/attention.h"

#include <algorithm>
#include <cmath>

#include "ops/attention/args.h"
#include "ops/attention/masks.h"
#include "ops/common/registry.h"
#include "ops/common/views.h"
#include "ops/rope/args.h"

namespace tessera::ops {

namespace {
const std::initializer_list<DType> kFloatTypes = {DType::f32, DType::f16, DType::bf16};

// What the tile kernels cannot run (the call then falls back to the reference): head dims past the largest
// compiled pair, and sizes whose positions or slots would not fit the kernels' 32-bit index tiles.
dispatch::Refusal head_dims_refusal(int64_t dqk, int64_t dv) {
  if (dqk > 256 || dv > 256)
    return "no tile kernel for head dims " + std::to_string(dqk) + " / " + std::to_string(dv) + " (at most 256)";
  return std::nullopt;
}
dispatch::Refusal index_refusal(int64_t largest, const char* what) {
  if (largest >= (int64_t(1) << 31) - 128) return std::string(what) + " exceed the kernels' 32-bit indices";
  return std::nullopt;
}

// What the prefill kernels refuse for q [B, Hq, Sq, Dqk], k [B, Hkv, Sk, Dqk], v [B, Hkv, Sk, Dv].
template <class Args>
dispatch::Refusal prefill_refusal(const Args& a) {
  if (auto r = head_dims_refusal(a.q.size(3), a.v.size(3))) return r;
  return index_refusal(std::max(a.q.size(2), a.k.size(2)), "sequence lengths");
}

dispatch::Op<FmhaArgs>& fmha_op() {
  static dispatch::Op<FmhaArgs>& op = register_op<FmhaArgs>(
      "fmha", &reference::fmha, &tile_host::fmha, TESSERA_CUDA_FN(tile_cuda::fmha), &prefill_refusal<FmhaArgs>);
  return op;
}
dispatch::Op<FmhaFp8Args>& fmha_fp8_op() {
  static dispatch::Op<FmhaFp8Args>& op = register_op<FmhaFp8Args>(
      "fmha_fp8", &reference::fmha_fp8, &tile_host::fmha_fp8, TESSERA_CUDA_FN(tile_cuda::fmha_fp8),
      &prefill_refusal<FmhaFp8Args>);
  return op;
}
// The backward kernels' limits differ by backend (the GPU's need Hopper): each backend says what it refuses.
dispatch::Op<FmhaBackwardArgs>& fmha_backward_op() {
  static dispatch::Op<FmhaBackwardArgs>& op = [] () -> dispatch::Op<FmhaBackwardArgs>& {
    auto& o = register_op<FmhaBackwardArgs>("fmha_backward", &reference::fmha_backward, nullptr, nullptr);
    auto refusal = [](auto backend_refusal) {
      return [backend_refusal](const FmhaBackwardArgs& a) {
        if (auto r = index_refusal(std::max(a.q.size(2), a.k.size(2)), "sequence lengths")) return r;
        return backend_refusal(a);
      };
    };
    o.add(dispatch::Backend::tile_host, &tile_host::fmha_backward, refusal(&tile_host::fmha_backward_refusal));
#if TESSERA_WITH_CUDA
    o.add(dispatch::Backend::tile_cuda, &tile_cuda::fmha_backward, refusal(&tile_cuda::fmha_backward_refusal));
#endif
    return o;
  }();
  return op;
}
dispatch::Op<FmhaVarlenArgs>& fmha_varlen_op() {
  static dispatch::Op<FmhaVarlenArgs>& op = register_op<FmhaVarlenArgs>(
      "fmha_varlen", &reference::fmha_varlen, &tile_host::fmha_varlen, TESSERA_CUDA_FN(tile_cuda::fmha_varlen),
      [](const FmhaVarlenArgs& a) {
        if (auto r = head_dims_refusal(a.q.size(2), a.v.size(2))) return r;
        return index_refusal(std::max(a.q.size(0), a.k.size(0)), "token counts");
      });
  return op;
}
dispatch::Op<FmhaDecodeArgs>& fmha_decode_op() {
  static dispatch::Op<FmhaDecodeArgs>& op = register_op<FmhaDecodeArgs>(
      "fmha_decode", &reference::fmha_decode, &tile_host::fmha_decode, TESSERA_CUDA_FN(tile_cuda::fmha_decode),
      [](const FmhaDecodeArgs& a) {
        // Decode also compiles the MLA pair (576, 512).
        if (a.q.size(3) > 576 || a.cache.v_pages.size(3) > 512)
          return dispatch::Refusal("no decode tile kernel for head dims " + std::to_string(a.q.size(3)) + " / " +
                                   std::to_string(a.cache.v_pages.size(3)) + " (at most 576 / 512)");
        return index_refusal(a.cache.k_pages.size(0) * a.cache.k_pages.size(1), "cache slots");
      });
  return op;
}
dispatch::Op<RopeKvCacheAppendArgs>& rope_kv_cache_append_op() {
  static dispatch::Op<RopeKvCacheAppendArgs>& op = register_op<RopeKvCacheAppendArgs>(
      "rope_kv_cache_append", &reference::rope_kv_cache_append, &tile_host::rope_kv_cache_append,
      TESSERA_CUDA_FN(tile_cuda::rope_kv_cache_append));
  return op;
}
dispatch::Op<QkvRopeKvCacheAppendArgs>& qkv_rope_kv_cache_append_op() {
  static dispatch::Op<QkvRopeKvCacheAppendArgs>& op = register_op<QkvRopeKvCacheAppendArgs>(
      "qkv_rope_kv_cache_append", &reference::qkv_rope_kv_cache_append, &tile_host::qkv_rope_kv_cache_append,
      TESSERA_CUDA_FN(tile_cuda::qkv_rope_kv_cache_append));
  return op;
}
dispatch::Op<KvCacheAppendArgs>& kv_cache_append_op() {
  static dispatch::Op<KvCacheAppendArgs>& op = register_op<KvCacheAppendArgs>(
      "kv_cache_append", &reference::kv_cache_append, &tile_host::kv_cache_append,
      TESSERA_CUDA_FN(tile_cuda::kv_cache_append), [](const KvCacheAppendArgs& a) {
        if (auto r = index_refusal(a.cache.k_pages.size(0) * a.cache.k_pages.size(1), "cache slots")) return r;
        return index_refusal(a.k.size(0) * a.k.size(1), "token rows");
      });
  return op;
}

// A floating-point operand: present, of rank `rank` (whose dims `dims` names, e.g. "[B, Hq, Sq, Dqk]"), unit
// stride in its last dim, with the dtype and device of `like` (named like_name) when that is given.
void check_operand(const Checker& c, const Tensor& t, const char* name, int rank, const char* dims, const Tensor* like = nullptr,
                   const char* like_name = nullptr) {
  c.defined(t, name);
  c.require(t.ndim() == rank, [&] {
    return std::string(name) + " is " + t.str() + "; expected " + std::to_string(rank) + " dims " + dims;
  });
  if (like) {
    c.same_dtype(*like, like_name, t, name);
    c.same_device(*like, like_name, t, name);
  } else {
    c.dtype_in(t, name, kFloatTypes);
  }
  c.last_dim_contiguous(t, name);
}

// An integer index tensor: present, contiguous, of `dtype` and `shape`, on the device of `like`.
void check_index(const Checker& c, const Tensor& t, const char* name, DType dtype, const Shape& shape, const Tensor& like,
                 const char* like_name) {
  c.defined(t, name);
  c.dtype_in(t, name, {dtype});
  c.shape_is(t, name, shape);
  c.same_device(like, like_name, t, name);
  c.require(t.is_contiguous(), [&] {
    return std::string(name) + " is " + t.str() + " with strides " + shape_str(t.strides()) + "; it must be contiguous";
  });
}

void check_heads(const Checker& c, int64_t hq, int64_t hkv, const char* kv_name) {
  c.require(hkv >= 1 && hq % hkv == 0, [&] {
    return "q has " + std::to_string(hq) + " heads and " + kv_name + " has " + std::to_string(hkv) +
           "; the query heads must be a multiple (>= 1) of the KV heads";
  });
}

void check_head_dims(const Checker& c, int64_t dqk, int64_t dv) {
  c.require(dqk >= 1, [&] { return "q has head dim " + std::to_string(dqk) + "; it must be at least 1"; });
  c.require(dv >= 1, [&] { return "v has head dim " + std::to_string(dv) + "; it must be at least 1"; });
}

// The log-sum-exp output, when given: f32 of `shape` on q's device.
void check_lse(const Checker& c, const Tensor& lse, const Shape& shape, const Tensor& q) {
  if (is_absent(lse)) return;
  c.defined(lse, "lse");
  c.dtype_in(lse, "lse", {DType::f32});
  c.shape_is(lse, "lse", shape);
  c.same_device(q, "q", lse, "lse");
  c.last_dim_contiguous(lse, "lse");
}

// The shapes of a prefill call (fmha, fmha_fp8) agree: k, v and o against q's [B, Hq, Sq, Dqk], heads, head
// dims, lse. Returns Dqk.
int64_t check_prefill_shapes(const Checker& c, const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& o,
                             const Tensor& lse) {
  const int64_t B = q.size(0), Hq = q.size(1), Sq = q.size(2), Dqk = q.size(3);
  const int64_t Hkv = k.size(1), Sk = k.size(2), Dv = v.size(3);
  c.shape_is(k, "k", {B, Hkv, Sk, Dqk});
  c.shape_is(v, "v", {B, Hkv, Sk, Dv});
  c.shape_is(o, "o", {B, Hq, Sq, Dv});
  check_heads(c, Hq, Hkv, "k");
  check_head_dims(c, Dqk, Dv);
  check_lse(c, lse, {B, Hq, Sq}, q);
  return Dqk;
}

// Checks the parameters and returns them with the scale resolved (0 -> 1 / sqrt(dqk)).
AttentionParams resolved(const Checker& c, AttentionParams p, int64_t dqk) {
  c.require(std::isfinite(p.scale),
            [&] { return "params.scale is " + std::to_string(p.scale) + "; it must be finite"; });
  c.require(std::isfinite(p.softcap) && p.softcap >= 0, [&] {
    return "params.softcap is " + std::to_string(p.softcap) + "; it must be finite and >= 0 (0 = off)";
  });
  c.require(p.window_left >= -1, [&] {
    return "params.window_left is " + std::to_string(p.window_left) + "; it must be >= -1 (-1 = unlimited)";
  });
  if (p.scale == 0.f) p.scale = float(1.0 / std::sqrt(double(dqk)));
  return p;
}
}  // namespace

void fmha(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& o, const Tensor& lse,
          const AttentionParams& params, const Options& options) {
  const Checker c{"fmha"};
  check_operand(c, q, "q", 4, "[B, Hq, Sq, Dqk]");
  check_operand(c, k, "k", 4, "[B, Hkv, Sk, Dqk]", &q, "q");
  check_operand(c, v, "v", 4, "[B, Hkv, Sk, Dv]", &q, "q");
  check_operand(c, o, "o", 4, "[B, Hq, Sq, Dv]", &q, "q");
  const int64_t Dqk = check_prefill_shapes(c, q, k, v, o, lse);
  const AttentionParams p = resolved(c, params, Dqk);
  if (o.numel() == 0) return;
  fmha_op()({q, k, v, o, lse, p}, q.device(), options);
}

void fmha_fp8(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& o, float q_scale, float k_scale,
              float v_scale, const Tensor& lse, const AttentionParams& params, const Options& options) {
  const Checker c{"fmha_fp8"};
  c.defined(q, "q");
  c.dtype_in(q, "q", {DType::fp8_e4m3});
  check_operand(c, q, "q", 4, "[B, Hq, Sq, Dqk]", &q, "q");
  check_operand(c, k, "k", 4, "[B, Hkv, Sk, Dqk]", &q, "q");
  check_operand(c, v, "v", 4, "[B, Hkv, Sk, Dv]", &q, "q");
  c.defined(o, "o");
  c.dtype_in(o, "o", {DType::bf16, DType::f16});
  check_operand(c, o, "o", 4, "[B, Hq, Sq, Dv]");
  c.same_device(q, "q", o, "o");
  const int64_t Dqk = check_prefill_shapes(c, q, k, v, o, lse);
  c.require(std::isfinite(q_scale) && std::isfinite(k_scale) && std::isfinite(v_scale), [&] {
    return "q_scale, k_scale and v_scale are " + std::to_string(q_scale) + ", " + std::to_string(k_scale) + ", " +
           std::to_string(v_scale) + "; they must be finite";
  });
  AttentionParams p = resolved(c, params, Dqk);
  p.scale *= q_scale * k_scale;
  c.require(std::isfinite(p.scale), [&] {
    return "scale * q_scale * k_scale overflows float (" + std::to_string(params.scale) + " * " + std::to_string(q_scale) +
           " * " + std::to_string(k_scale) + ")";
  });
  if (o.numel() == 0) return;
  fmha_fp8_op()({q, k, v, o, lse, p, v_scale}, q.device(), options);
}

void fmha_backward(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& o, const Tensor& d_o,
                   const Tensor& lse, const Tensor& dq, const Tensor& dk, const Tensor& dv, const AttentionParams& params,
                   const Options& options) {
  const Checker c{"fmha_backward"};
  check_operand(c, q, "q", 4, "[B, Hq, Sq, Dqk]");
  check_operand(c, k, "k", 4, "[B, Hkv, Sk, Dqk]", &q, "q");
  check_operand(c, v, "v", 4, "[B, Hkv, Sk, Dv]", &q, "q");
  check_operand(c, o, "o", 4, "[B, Hq, Sq, Dv]", &q, "q");
  check_operand(c, d_o, "d_o", 4, "[B, Hq, Sq, Dv]", &q, "q");
  check_operand(c, dq, "dq", 4, "[B, Hq, Sq, Dqk]", &q, "q");
  check_operand(c, dk, "dk", 4, "[B, Hkv, Sk, Dqk]", &q, "q");
  check_operand(c, dv, "dv", 4, "[B, Hkv, Sk, Dv]", &q, "q");
  const int64_t B = q.size(0), Hq = q.size(1), Sq = q.size(2), Dqk = q.size(3);
  const int64_t Hkv = k.size(1), Sk = k.size(2), Dv = v.size(3);
  c.shape_is(k, "k", {B, Hkv, Sk, Dqk});
  c.shape_is(v, "v", {B, Hkv, Sk, Dv});
  c.shape_is(o, "o", {B, Hq, Sq, Dv});
  c.shape_is(d_o, "d_o", {B, Hq, Sq, Dv});
  c.shape_is(dq, "dq", q.shape());
  c.shape_is(dk, "dk", k.shape());
  c.shape_is(dv, "dv", v.shape());
  check_heads(c, Hq, Hkv, "k");
  check_head_dims(c, Dqk, Dv);
  c.defined(lse, "lse");
  check_lse(c, lse, {B, Hq, Sq}, q);
  const AttentionParams p = resolved(c, params, Dqk);
  if (dq.numel() + dk.numel() + dv.numel() == 0) return;
  fmha_backward_op()({q, k, v, o, d_o, lse, dq, dk, dv, p}, q.device(), options);
}

void fmha_backward(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& d_o, const Tensor& dq,
                   const Tensor& dk, const Tensor& dv, const AttentionParams& params, const Options& options) {
  const Checker c{"fmha_backward"};
  check_operand(c, q, "q", 4, "[B, Hq, Sq, Dqk]");
  check_operand(c, d_o, "d_o", 4, "[B, Hq, Sq, Dv]", &q, "q");
  c.require(d_o.size(0) == q.size(0) && d_o.size(1) == q.size(1) && d_o.size(2) == q.size(2), [&] {
    return "d_o is " + d_o.str() + " and q is " + q.str() + "; d_o must be [B, Hq, Sq, Dv]";
  });
  // The forward pass's o and lse, then the backward from them.
  const Tensor o = Tensor::empty(d_o.shape(), q.dtype(), q.device());
  const Tensor lse = Tensor::empty({q.size(0), q.size(1), q.size(2)}, DType::f32, q.device());
  fmha(q, k, v, o, lse, params, options);
  fmha_backward(q, k, v, o, d_o, lse, dq, dk, dv, params, options);
}

void fmha_varlen(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& cu_q, const Tensor& cu_k,
                 const Tensor& o, const Tensor& lse, const AttentionParams& params, const Options& options) {
  const Checker c{"fmha_varlen"};
  check_operand(c, q, "q", 3, "[Tq, Hq, Dqk]");
  check_operand(c, k, "k", 3, "[Tk, Hkv, Dqk]", &q, "q");
  check_operand(c, v, "v", 3, "[Tk, Hkv, Dv]", &q, "q");
  check_operand(c, o, "o", 3, "[Tq, Hq, Dv]", &q, "q");
  const int64_t Tq = q.size(0), Hq = q.size(1), Dqk = q.size(2);
  const int64_t Tk = k.size(0), Hkv = k.size(1), Dv = v.size(2);
  c.shape_is(k, "k", {Tk, Hkv, Dqk});
  c.shape_is(v, "v", {Tk, Hkv, Dv});
  c.shape_is(o, "o", {Tq, Hq, Dv});
  check_heads(c, Hq, Hkv, "k");
  check_head_dims(c, Dqk, Dv);
  c.defined(cu_q, "cu_q");
  c.require(cu_q.ndim() == 1 && cu_q.size(0) >= 1, [&] { return "cu_q is " + cu_q.str() + "; expected [B + 1]"; });
  check_index(c, cu_q, "cu_q", DType::i32, cu_q.shape(), q, "q");
  check_index(c, cu_k, "cu_k", DType::i32, cu_q.shape(), q, "q");
  check_lse(c, lse, {Tq, Hq}, q);
  const AttentionParams p = resolved(c, params, Dqk);
  if (o.numel() == 0) return;
  // CPU lengths are checked here; lengths on a GPU by the reference (which copies them) or trusted by the
  // kernels, which never read outside q, k and v whatever they hold.
  if (cu_q.device().is_cpu()) {
    if (const auto bad = check_cumulative_lengths(to_int_vector(cu_q), Tq, "cu_q", "q")) c.fail(*bad);
    if (const auto bad = check_cumulative_lengths(to_int_vector(cu_k), Tk, "cu_k", "k")) c.fail(*bad);
  }
  fmha_varlen_op()({q, k, v, cu_q, cu_k, o, lse, p}, q.device(), options);
}

void fmha_decode(const Tensor& q, const KvCache& cache, const Tensor& seq_lens, const Tensor& o,
                 const AttentionParams& params, const Options& options) {
  const Checker c{"fmha_decode"};
  check_operand(c, q, "q", 4, "[B, Sq, Hq, Dk]");
  check_operand(c, cache.k_pages, "k_pages", 4, "[num_pages, page_size, Hkv, Dk]", &q, "q");
  check_operand(c, cache.v_pages, "v_pages", 4, "[num_pages, page_size, Hkv, Dv]", &q, "q");
  check_operand(c, o, "o", 4, "[B, Sq, Hq, Dv]", &q, "q");
  const int64_t B = q.size(0), Sq = q.size(1), Hq = q.size(2), Dk = q.size(3);
  const int64_t num_pages = cache.k_pages.size(0), page_size = cache.k_pages.size(1), Hkv = cache.k_pages.size(2);
  const int64_t Dv = cache.v_pages.size(3);
  c.require(Sq >= 1 && Sq <= 8,
            [&] { return "q is " + q.str() + "; decode takes 1 to 8 query tokens per sequence (dim 1)"; });
  c.shape_is(cache.k_pages, "k_pages", {num_pages, page_size, Hkv, Dk});
  c.shape_is(cache.v_pages, "v_pages", {num_pages, page_size, Hkv, Dv});
  c.require(page_size >= 1,
            [&] { return "k_pages is " + cache.k_pages.str() + "; the page size (dim 1) must be at least 1"; });
  check_heads(c, Hq, Hkv, "k_pages");
  check_head_dims(c, Dk, Dv);
  c.shape_is(o, "o", {B, Sq, Hq, Dv});
  check_index(c, seq_lens, "seq_lens", DType::i32, {B}, q, "q");
  const bool paged = !is_absent(cache.block_table);
  if (paged) {
    c.defined(cache.block_table, "block_table");
    c.require(cache.block_table.ndim() == 2 && cache.block_table.size(0) == B, [&] {
      return "block_table is " + cache.block_table.str() +
             "; expected [B, max_pages_per_seq] with B = " + std::to_string(B);
    });
    check_index(c, cache.block_table, "block_table", DType::i32, cache.block_table.shape(), q, "q");
  } else {
    c.require(num_pages == B, [&] {
      return "k_pages is " + cache.k_pages.str() +
             " and there is no block_table: a contiguous cache is [B, S_max, Hkv, Dk] with B = " + std::to_string(B) +
             " (q's batch)";
    });
  }
  const AttentionParams p = resolved(c, params, Dk);
  if (o.numel() == 0) return;
  if (seq_lens.device().is_cpu()) {
    const auto table = paged ? to_int_vector(cache.block_table) : std::vector<int64_t>{};
    if (const auto bad = check_decode_indices(to_int_vector(seq_lens), table, paged ? cache.block_table.size(1) : 1,
                                              num_pages, page_size, paged))
      c.fail(*bad);
  }
  fmha_decode_op()({q, cache, seq_lens, o, p}, q.device(), options);
}

void mla_decode(const Tensor& q, const Tensor& latent_pages, const Tensor& block_table, const Tensor& seq_lens,
                const Tensor& o, const AttentionParams& params, const Options& options) {
  const Checker c{"mla_decode"};
  check_operand(c, q, "q", 4, "[B, Sq, H, R + P]");
  check_operand(c, latent_pages, "latent_pages", 3, "[num_pages, page_size, R + P]", &q, "q");
  check_operand(c, o, "o", 4, "[B, Sq, H, R]", &q, "q");
  const int64_t width = q.size(3), rank = o.size(3);
  c.require(latent_pages.size(2) == width, [&] {
    return "latent_pages is " + latent_pages.str() + " and q is " + q.str() + ": their last dims (R + P) differ";
  });
  c.require(rank >= 1 && rank <= width, [&] {
    return "o is " + o.str() + "; its last dim R must be in [1, " + std::to_string(width) + "] (q's R + P)";
  });
  // One KV head: the latent row is the key, its first R columns the value.
  const Tensor k = Tensor::view(latent_pages.data(), {latent_pages.size(0), latent_pages.size(1), 1, width}, q.dtype(),
                                latent_pages.device(), {latent_pages.stride(0), latent_pages.stride(1), width, 1});
  const Tensor v = Tensor::view(latent_pages.data(), {latent_pages.size(0), latent_pages.size(1), 1, rank}, q.dtype(),
                                latent_pages.device(), {latent_pages.stride(0), latent_pages.stride(1), width, 1});
  fmha_decode(q, {k, v, block_table}, seq_lens, o, params, options);
}

namespace {
// kv_cache_append's checks; false when there is nothing to write.
bool check_kv_cache_append(const Checker& c, const Tensor& k, const Tensor& v, const KvCache& cache, const Tensor& slots) {
  check_operand(c, k, "k", 3, "[T, Hkv, Dk]");
  check_operand(c, v, "v", 3, "[T, Hkv, Dv]", &k, "k");
  check_operand(c, cache.k_pages, "k_pages", 4, "[num_pages, page_size, Hkv, Dk]", &k, "k");
  check_operand(c, cache.v_pages, "v_pages", 4, "[num_pages, page_size, Hkv, Dv]", &k, "k");
  const int64_t T = k.size(0), Hkv = k.size(1), Dk = k.size(2), Dv = v.size(2);
  const int64_t num_pages = cache.k_pages.size(0), page_size = cache.k_pages.size(1);
  c.shape_is(v, "v", {T, Hkv, Dv});
  c.shape_is(cache.k_pages, "k_pages", {num_pages, page_size, Hkv, Dk});
  c.shape_is(cache.v_pages, "v_pages", {num_pages, page_size, Hkv, Dv});
  check_index(c, slots, "slots", DType::i64, {T}, k, "k");
  if (T == 0 || Hkv == 0) return false;
  if (slots.device().is_cpu()) {
    const auto s = to_int_vector(slots);
    for (int64_t i = 0; i < T; ++i)
      c.require(s[size_t(i)] < num_pages * page_size, [&] {
        return "slots[" + std::to_string(i) + "] = " + std::to_string(s[size_t(i)]) + " is outside the cache's " +
               std::to_string(num_pages * page_size) + " slots; nothing was written";
      });
  }
  return true;
}
}  // namespace

void kv_cache_append(const Tensor& k, const Tensor& v, const KvCache& cache, const Tensor& slots, const Options& options) {
  const Checker c{"kv_cache_append"};
  if (!check_kv_cache_append(c, k, v, cache, slots)) return;
  kv_cache_append_op()({k, v, cache, slots}, k.device(), options);
}

void rope_kv_cache_append(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& positions,
                          const Tensor& inv_freq, RopeLayout layout, int64_t rotary_dim, const KvCache& cache,
                          const Tensor& slots, const Options& options) {
  const Checker c{"rope_kv_cache_append"};
  const int64_t rotary = check_rope(c, q, positions, inv_freq, q, layout, rotary_dim, "q");
  check_rope(c, k, positions, inv_freq, k, layout, rotary, "k");
  c.same_dtype(q, "q", k, "k");
  c.same_device(q, "q", k, "k");
  if (!check_kv_cache_append(c, k, v, cache, slots)) {
    rope(q, positions, inv_freq, q, layout, rotary, options);  // no KV heads: only q to rotate
    return;
  }
  rope_kv_cache_append_op()({q, k, v, positions, inv_freq, layout, rotary, cache, slots}, k.device(), options);
}

QkvHeads qkv_heads(const Tensor& qkv, int64_t q_heads, int64_t kv_heads, int64_t head_dim) {
  const int64_t T = qkv.size(0), W = qkv.stride(0), D = head_dim;
  auto* base = static_cast<uint8_t*>(qkv.data());
  const size_t elem = dtype_size(qkv.dtype());
  auto block = [&](int64_t first_head, int64_t heads) {
    return Tensor::view(base + size_t(first_head * D) * elem, {T, heads, D}, qkv.dtype(), qkv.device(), {W, D, 1});
  };
  return {block(0, q_heads), block(q_heads, kv_heads), block(q_heads + kv_heads, kv_heads)};
}

void qkv_rope_kv_cache_append(const Tensor& x, const Tensor& w, const Tensor& bias, const Tensor& qkv,
                              const Tensor& positions, const Tensor& inv_freq, RopeLayout layout, int64_t rotary_dim,
                              const KvCache& cache, const Tensor& slots, const Options& options) {
  const Checker c{"qkv_rope_kv_cache_append"};
  c.defined(x, "x");
  c.defined(w, "w");
  c.defined(qkv, "qkv");
  c.require(x.ndim() == 2, [&] { return "x is " + x.str() + "; expected 2 dims [T, K]"; });
  c.require(w.ndim() == 2, [&] { return "w is " + w.str() + "; expected 2 dims [(Hq + 2 Hkv) D, K]"; });
  c.require(qkv.ndim() == 2, [&] { return "qkv is " + qkv.str() + "; expected 2 dims [T, (Hq + 2 Hkv) D]"; });
  c.dtype_in(x, "x", kFloatTypes);
  c.same_dtype(x, "x", w, "w");
  c.same_dtype(x, "x", qkv, "qkv");
  c.same_device(x, "x", w, "w");
  c.same_device(x, "x", qkv, "qkv");
  for (auto [t, name] : {std::pair{&x, "x"}, std::pair{&w, "w"}, std::pair{&qkv, "qkv"}}) c.last_dim_contiguous(*t, name);
  check_operand(c, cache.k_pages, "k_pages", 4, "[num_pages, page_size, Hkv, D]", &x, "x");
  const int64_t T = x.size(0), K = x.size(1), N = w.size(0), Hkv = cache.k_pages.size(2), D = cache.k_pages.size(3);
  c.inner_dims_match(x, "x", K, w, "w", w.size(1));
  c.require(Hkv > 0 && D > 0 && N % D == 0 && N / D > 2 * Hkv && (N / D - 2 * Hkv) % Hkv == 0, [&] {
    return "w is " + w.str() + "; its rows must be (Hq + 2 Hkv) x D with the cache's Hkv = " + std::to_string(Hkv) +
           " and D = " + std::to_string(D) + ", Hq a positive multiple of Hkv";
  });
  c.shape_is(qkv, "qkv", {T, N});
  c.bias_fits(bias, N, x, "x");
  c.require(!overlaps(x, qkv), "x and qkv overlap: the projection cannot be written over its input");
  const auto [q, k, v] = qkv_heads(qkv, N / D - 2 * Hkv, Hkv, D);  // D > 0: checked above
  const int64_t rotary = check_rope(c, q, positions, inv_freq, q, layout, rotary_dim, "q");
  if (!check_kv_cache_append(c, k, v, cache, slots)) return;  // no tokens
  qkv_rope_kv_cache_append_op()({x, w, bias, qkv, {q, k, v, positions, inv_freq, layout, rotary, cache, slots}},
                                x.device(), options);
}

void register_attention_ops() {
  fmha_op();
  fmha_fp8_op();
  fmha_backward_op();
  fmha_varlen_op();
  fmha_decode_op();
  kv_cache_append_op();
  rope_kv_cache_append_op();
  qkv_rope_kv_cache_append_op();
}

}  // namespace tessera::ops

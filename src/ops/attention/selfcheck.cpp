// Self-checks of the attention family for `tessera ops check`: one prefill, one packed, one decode, one append,
// one rotate-and-append and one project-rotate-and-append shape each, on fresh random inputs against the reference.
#include "ops/common/selfcheck_util.h"
#include "tessera/ops/attention.h"

namespace tessera::ops {

namespace {
using selfcheck::compare;
using selfcheck::poisoned;
using selfcheck::random;

// o is a convex combination of values in [-1, 1]; p @ v runs in the input dtype, hence a looser bound for it.
double attention_tolerance(DType dt) { return dt == DType::f32 ? 2e-4 : dt == DType::f16 ? 4e-3 : 2e-2; }

Tensor int_tensor(const std::vector<float>& values, const Shape& shape, DType dt, Device dev) {
  Tensor t = Tensor::empty(shape, dt, dev);
  write_float_vector(t, values);
  return t;
}

SelfCheckResult worse(SelfCheckResult a, const SelfCheckResult& b) {
  a.passed = a.passed && b.passed;
  a.max_abs_error = std::max(a.max_abs_error, b.max_abs_error);
  return a;
}
}  // namespace

void add_attention_self_checks(std::vector<SelfCheck>& out) {
  out.push_back({"fmha", [](dispatch::Backend b, DType dt, Device dev, uint64_t seed) {
                   std::mt19937_64 gen(seed);
                   const int64_t B = 2, Hq = 8, Hkv = 2, S = 77, D = 128;
                   Tensor q = random(gen, {B, Hq, S, D}, dt, dev, -2, 2), k = random(gen, {B, Hkv, S, D}, dt, dev, -2, 2);
                   Tensor v = random(gen, {B, Hkv, S, D}, dt, dev);
                   Tensor o = poisoned({B, Hq, S, D}, dt, dev), o_ref = poisoned({B, Hq, S, D}, dt, dev);
                   Tensor lse = poisoned({B, Hq, S}, DType::f32, dev), lse_ref = poisoned({B, Hq, S}, DType::f32, dev);
                   const AttentionParams params{0.f, true, -1, 0.f};
                   fmha(q, k, v, o, lse, params, {b});
                   fmha(q, k, v, o_ref, lse_ref, params, {dispatch::Backend::reference});
                   return worse(compare(o, o_ref, attention_tolerance(dt)), compare(lse, lse_ref, 1e-4));
                 }});
  out.push_back({"fmha_fp8", [](dispatch::Backend b, DType dt, Device dev, uint64_t seed) {
                   // fp8 inputs; the sweep's dtype is the output's (f16 in the f32 sweep: o is 16-bit).
                   std::mt19937_64 gen(seed);
                   const DType out = dt == DType::f32 ? DType::f16 : dt;
                   const int64_t B = 1, Hq = 4, Hkv = 2, Sq = 45, Sk = 77, D = 64;
                   Tensor q = random(gen, {B, Hq, Sq, D}, DType::fp8_e4m3, dev, -4, 4);
                   Tensor k = random(gen, {B, Hkv, Sk, D}, DType::fp8_e4m3, dev, -4, 4);
                   Tensor v = random(gen, {B, Hkv, Sk, D}, DType::fp8_e4m3, dev, -4, 4);
                   Tensor o = poisoned({B, Hq, Sq, D}, out, dev), o_ref = poisoned({B, Hq, Sq, D}, out, dev);
                   Tensor lse = poisoned({B, Hq, Sq}, DType::f32, dev), lse_ref = poisoned({B, Hq, Sq}, DType::f32, dev);
                   const AttentionParams params{0.f, true, -1, 0.f};
                   fmha_fp8(q, k, v, o, 0.5f, 0.25f, 0.25f, lse, params, {b});
                   fmha_fp8(q, k, v, o_ref, 0.5f, 0.25f, 0.25f, lse_ref, params, {dispatch::Backend::reference});
                   return worse(compare(o, o_ref, attention_tolerance(out)), compare(lse, lse_ref, 1e-4));
                 }});
  out.push_back({"fmha_varlen", [](dispatch::Backend b, DType dt, Device dev, uint64_t seed) {
                   std::mt19937_64 gen(seed);
                   const int64_t Hq = 4, Hkv = 1, D = 64, Tq = 50, Tk = 50;
                   Tensor q = random(gen, {Tq, Hq, D}, dt, dev, -2, 2), k = random(gen, {Tk, Hkv, D}, dt, dev, -2, 2);
                   Tensor v = random(gen, {Tk, Hkv, D}, dt, dev);
                   Tensor cu = int_tensor({0, 13, 13, 50}, {4}, DType::i32, dev);
                   Tensor o = poisoned({Tq, Hq, D}, dt, dev), o_ref = poisoned({Tq, Hq, D}, dt, dev);
                   const AttentionParams params{0.f, true, 8, 0.f};
                   fmha_varlen(q, k, v, cu, cu, o, {}, params, {b});
                   fmha_varlen(q, k, v, cu, cu, o_ref, {}, params, {dispatch::Backend::reference});
                   return compare(o, o_ref, attention_tolerance(dt));
                 }});
  out.push_back({"fmha_decode", [](dispatch::Backend b, DType dt, Device dev, uint64_t seed) {
                   std::mt19937_64 gen(seed);
                   const int64_t B = 3, Hq = 32, Hkv = 8, D = 128, page = 16, per_seq = 20, pages = B * per_seq;
                   Tensor q = random(gen, {B, 1, Hq, D}, dt, dev, -2, 2);
                   KvCache cache{random(gen, {pages, page, Hkv, D}, dt, dev, -2, 2), random(gen, {pages, page, Hkv, D}, dt, dev), {}};
                   std::vector<float> table;
                   for (int64_t i = 0; i < pages; ++i) table.push_back(float((i * 7) % pages));  // a permutation: gcd(7, 60) = 1
                   cache.block_table = int_tensor(table, {B, per_seq}, DType::i32, dev);
                   Tensor lens = int_tensor({1, 317, 120}, {B}, DType::i32, dev);
                   Tensor o = poisoned({B, 1, Hq, D}, dt, dev), o_ref = poisoned({B, 1, Hq, D}, dt, dev);
                   fmha_decode(q, cache, lens, o, {}, {b});
                   fmha_decode(q, cache, lens, o_ref, {}, {dispatch::Backend::reference});
                   return compare(o, o_ref, attention_tolerance(dt));
                 }});
  out.push_back({"kv_cache_append", [](dispatch::Backend b, DType dt, Device dev, uint64_t seed) {
                   std::mt19937_64 gen(seed);
                   const int64_t T = 21, Hkv = 4, D = 128, pages = 4, page = 16;
                   Tensor k = random(gen, {T, Hkv, D}, dt, dev), v = random(gen, {T, Hkv, D}, dt, dev);
                   std::vector<float> slots;
                   for (int64_t i = 0; i < T; ++i) slots.push_back(i == 5 ? -1.f : float((i * 3 + 1) % (pages * page)));
                   Tensor s = int_tensor(slots, {T}, DType::i64, dev);
                   KvCache got{random(gen, {pages, page, Hkv, D}, dt, dev), random(gen, {pages, page, Hkv, D}, dt, dev), {}};
                   KvCache want{Tensor::empty(got.k_pages.shape(), dt, dev), Tensor::empty(got.v_pages.shape(), dt, dev), {}};
                   want.k_pages.copy_from(got.k_pages);
                   want.v_pages.copy_from(got.v_pages);
                   kv_cache_append(k, v, got, s, {b});
                   kv_cache_append(k, v, want, s, {dispatch::Backend::reference});
                   return worse(compare(got.k_pages, want.k_pages, 0), compare(got.v_pages, want.v_pages, 0));
                 }});
  out.push_back({"rope_kv_cache_append", [](dispatch::Backend b, DType dt, Device dev, uint64_t seed) {
                   std::mt19937_64 gen(seed);
                   const int64_t T = 9, Hq = 8, Hkv = 2, D = 128, pages = 3, page = 16;
                   std::vector<float> slots, positions;
                   for (int64_t i = 0; i < T; ++i) {
                     slots.push_back(i == 4 ? -1.f : float((i * 5 + 2) % (pages * page)));
                     positions.push_back(float(std::uniform_int_distribution<int>(0, 4095)(gen)));
                   }
                   const Tensor s = int_tensor(slots, {T}, DType::i64, dev), pos = int_tensor(positions, {T}, DType::i32, dev);
                   const std::vector<float> freq = rope_inv_freq(D, 500000.0);
                   Tensor inv_freq = Tensor::empty({D / 2}, DType::f32, dev);
                   write_float_vector(inv_freq, freq);
                   Tensor q = random(gen, {T, Hq, D}, dt, dev), k = random(gen, {T, Hkv, D}, dt, dev), v = random(gen, {T, Hkv, D}, dt, dev);
                   Tensor q_ref = Tensor::empty(q.shape(), dt, dev), k_ref = Tensor::empty(k.shape(), dt, dev);
                   q_ref.copy_from(q);
                   k_ref.copy_from(k);
                   KvCache got{random(gen, {pages, page, Hkv, D}, dt, dev), random(gen, {pages, page, Hkv, D}, dt, dev), {}};
                   KvCache want{Tensor::empty(got.k_pages.shape(), dt, dev), Tensor::empty(got.v_pages.shape(), dt, dev), {}};
                   want.k_pages.copy_from(got.k_pages);
                   want.v_pages.copy_from(got.v_pages);
                   rope_kv_cache_append(q, k, v, pos, inv_freq, RopeLayout::neox, 0, got, s, {b});
                   rope_kv_cache_append(q_ref, k_ref, v, pos, inv_freq, RopeLayout::neox, 0, want, s, {dispatch::Backend::reference});
                   // Angles up to 4096 rad in fp32 carry ~1e-3 of absolute error.
                   const double tol = attention_tolerance(dt) + 1e-3;
                   SelfCheckResult r = worse(compare(q, q_ref, tol), compare(k, k_ref, tol));
                   r = worse(r, compare(got.k_pages, want.k_pages, tol));
                   return worse(r, compare(got.v_pages, want.v_pages, 0));
                 }});
  // One decode token (the fused kernel where it runs) of a Llama-like layer, K not a multiple of the kernel's tiles.
  out.push_back({"qkv_rope_kv_cache_append", [](dispatch::Backend b, DType dt, Device dev, uint64_t seed) {
                   std::mt19937_64 gen(seed);
                   const int64_t K = 1100, Hq = 8, Hkv = 2, D = 128, N = (Hq + 2 * Hkv) * D, pages = 3, page = 16;
                   const Tensor s = int_tensor({float(std::uniform_int_distribution<int>(0, pages * page - 1)(gen))}, {1}, DType::i64, dev);
                   const Tensor pos = int_tensor({float(std::uniform_int_distribution<int>(0, 4095)(gen))}, {1}, DType::i32, dev);
                   Tensor inv_freq = Tensor::empty({D / 2}, DType::f32, dev);
                   write_float_vector(inv_freq, rope_inv_freq(D, 500000.0));
                   // Weights of ~1 / sqrt(K), so the projections stay O(1) as the angle tolerance assumes.
                   const float range = 1.f / std::sqrt(float(K));
                   Tensor x = random(gen, {1, K}, dt, dev), w = random(gen, {N, K}, dt, dev, -range, range);
                   Tensor bias = random(gen, {N}, dt, dev);
                   Tensor got_qkv = Tensor::empty({1, N}, dt, dev), want_qkv = Tensor::empty({1, N}, dt, dev);
                   KvCache got{random(gen, {pages, page, Hkv, D}, dt, dev), random(gen, {pages, page, Hkv, D}, dt, dev), {}};
                   KvCache want{Tensor::empty(got.k_pages.shape(), dt, dev), Tensor::empty(got.v_pages.shape(), dt, dev), {}};
                   want.k_pages.copy_from(got.k_pages);
                   want.v_pages.copy_from(got.v_pages);
                   qkv_rope_kv_cache_append(x, w, bias, got_qkv, pos, inv_freq, RopeLayout::neox, 0, got, s, {b});
                   qkv_rope_kv_cache_append(x, w, bias, want_qkv, pos, inv_freq, RopeLayout::neox, 0, want, s,
                                            {dispatch::Backend::reference});
                   // The reference rounds the projection before rotating it; angles up to 4096 rad carry ~1e-3.
                   const double tol = 2 * attention_tolerance(dt) + 1e-3;
                   SelfCheckResult r = worse(compare(got_qkv, want_qkv, tol), compare(got.k_pages, want.k_pages, tol));
                   return worse(r, compare(got.v_pages, want.v_pages, tol));
                 }});
}

}  // namespace tessera::ops

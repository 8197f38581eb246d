// Test cases of the attention family, instantiated for the host (tests/ops) and the GPU (tests/gpu).
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "common/test_util.h"
#include "tessera/dispatch/autotune.h"
#include "tessera/ops/attention.h"

namespace tessera::testing {

inline int64_t written_elements(const Tensor& t) {
  int64_t n = 0;
  for (float x : floats(t)) n += !std::isnan(x);
  return n;
}

// Output tolerance: o is a convex combination of v rows in [-1, 1]; the kernels round p to the input dtype for
// the p @ v product, so 16-bit inputs carry that rounding on top of the output's own.
inline Tolerance attention_tolerance(DType dt) {
  switch (dt) {
    case DType::f32: return {2e-5, 2e-4};
    case DType::f16: return {3e-3, 4e-3};
    default: return {2e-2, 2e-2};
  }
}
// lse is computed from fp32 logits in every dtype.
inline constexpr Tolerance kLseTolerance{1e-4, 1e-4};

inline std::string params_str(const ops::AttentionParams& p) {
  return std::string(p.causal ? " causal" : "") + (p.window_left >= 0 ? " window " + std::to_string(p.window_left) : "") +
         (p.softcap > 0 ? " softcap " + std::to_string(p.softcap) : "") + (p.scale != 0 ? " scale " + std::to_string(p.scale) : "");
}

inline Tensor on_device(const Tensor& cpu, Device dev) { return dev.is_cpu() ? cpu : cpu.to(dev); }

struct FmhaCase {
  int64_t B, Hq, Hkv, Sq, Sk, Dqk, Dv;
  ops::AttentionParams params;
  bool strided = false;  // q and o as [B, S, H, D] buffers viewed as [B, H, S, D]
};

inline std::string fmha_case_str(const FmhaCase& c) {
  return "B " + std::to_string(c.B) + " Hq " + std::to_string(c.Hq) + " Hkv " + std::to_string(c.Hkv) + " Sq " +
         std::to_string(c.Sq) + " Sk " + std::to_string(c.Sk) + " D " + std::to_string(c.Dqk) + "/" + std::to_string(c.Dv) +
         params_str(c.params) + (c.strided ? " strided" : "");
}

// Head counts 1, 8, 32 with GQA ratios 1, 4, 8; lengths 1, 9, 127, Sq < Sk and Sq > Sk; head dims 64, 128, 256,
// 192/128 and odd ones; causal, sliding window, softcap, an explicit scale.
inline const FmhaCase kFmhaCases[] = {
    {1, 1, 1, 1, 1, 64, 64, {}},
    {2, 8, 2, 9, 9, 64, 64, {0.f, true, -1, 0.f}},
    {1, 8, 8, 9, 9, 128, 128, {}, true},
    {1, 4, 1, 127, 127, 128, 128, {0.f, true, -1, 0.f}},
    {1, 8, 1, 9, 127, 64, 64, {0.f, true, -1, 0.f}},
    {1, 32, 8, 9, 9, 64, 64, {0.f, true, -1, 0.f}, true},
    {2, 2, 2, 127, 127, 64, 64, {0.f, true, 20, 0.f}},
    {1, 2, 1, 33, 70, 64, 64, {0.f, false, 10, 0.f}},
    {1, 2, 2, 40, 40, 64, 64, {0.f, true, -1, 5.f}},
    {1, 2, 1, 20, 50, 192, 128, {0.f, true, -1, 0.f}},
    {1, 1, 1, 9, 65, 256, 256, {0.3f, false, -1, 0.f}},
    {1, 2, 2, 7, 9, 16, 24, {}},
    {1, 3, 1, 5, 3, 64, 64, {0.f, true, -1, 0.f}},
    // Two query tiles and three key tiles of the staged kernel (128 each), edges inside the tiles.
    {1, 2, 1, 200, 300, 128, 128, {0.f, true, -1, 0.f}},
    // The same with keys wider than values (MLA prefill): each stage's key tile in two parts.
    {1, 4, 2, 200, 300, 192, 128, {0.f, false, -1, 15.f}},
};

// q (random in [-bound, bound], dtype `in`) and a poisoned o (dtype `out`) of a case: [B, H, S, D] tensors, or
// views of [B, S, H, D] buffers when the case is strided (the buffers own their memory).
struct QueryAndOutput {
  Tensor q, o, q_buf, o_buf;
};
inline QueryAndOutput query_and_output(const FmhaCase& c, DType in, DType out, Device dev, float bound) {
  QueryAndOutput t;
  if (c.strided) {
    t.q_buf = random_tensor({c.B, c.Sq, c.Hq, c.Dqk}, in, dev, -bound, bound);
    t.q = Tensor::view(t.q_buf.data(), {c.B, c.Hq, c.Sq, c.Dqk}, in, dev, {c.Sq * c.Hq * c.Dqk, c.Dqk, c.Hq * c.Dqk, 1});
    t.o_buf = poisoned({c.B, c.Sq, c.Hq, c.Dv}, out, dev);
    t.o = Tensor::view(t.o_buf.data(), {c.B, c.Hq, c.Sq, c.Dv}, out, dev, {c.Sq * c.Hq * c.Dv, c.Dv, c.Hq * c.Dv, 1});
  } else {
    t.q = random_tensor({c.B, c.Hq, c.Sq, c.Dqk}, in, dev, -bound, bound);
    t.o = poisoned({c.B, c.Hq, c.Sq, c.Dv}, out, dev);
  }
  return t;
}

inline void check_fmha(Device dev, dispatch::Backend backend, DType dt, const FmhaCase& c) {
  SCOPED_TRACE(std::string(dtype_name(dt)) + " " + fmha_case_str(c));
  const QueryAndOutput qo = query_and_output(c, dt, dt, dev, 2);
  const Tensor &q = qo.q, &o = qo.o;
  Tensor k = random_tensor({c.B, c.Hkv, c.Sk, c.Dqk}, dt, dev, -2, 2), v = random_tensor({c.B, c.Hkv, c.Sk, c.Dv}, dt, dev);
  Tensor lse = poisoned({c.B, c.Hq, c.Sq}, DType::f32, dev);
  Tensor o_ref = poisoned({c.B, c.Hq, c.Sq, c.Dv}, dt, dev), lse_ref = poisoned({c.B, c.Hq, c.Sq}, DType::f32, dev);
  ops::fmha(q, k, v, o, lse, c.params, {backend});
  ops::fmha(q, k, v, o_ref, lse_ref, c.params, {dispatch::Backend::reference});
  EXPECT_TRUE(all_close(o, o_ref, attention_tolerance(dt)));
  EXPECT_TRUE(all_close(lse, lse_ref, kLseTolerance));
  // Without lse.
  Tensor o2 = poisoned({c.B, c.Hq, c.Sq, c.Dv}, dt, dev);
  ops::fmha(q, k, v, o2, {}, c.params, {backend});
  EXPECT_TRUE(all_close(o2, o_ref, attention_tolerance(dt)));
}

// fmha_fp8 against the reference: fp8 e4m3 q, k, v up to 4 in magnitude (e4m3's coarse steps and subnormals
// both occur) with scales that bring q to [-2, 2], k to [-1, 1] and v to [-1, 1]; o in `out`.
inline void check_fmha_fp8(Device dev, dispatch::Backend backend, DType out, const FmhaCase& c) {
  SCOPED_TRACE("fp8_e4m3->" + std::string(dtype_name(out)) + " " + fmha_case_str(c));
  constexpr float q_scale = 0.5f, k_scale = 0.25f, v_scale = 0.25f;
  const DType in = DType::fp8_e4m3;
  const QueryAndOutput qo = query_and_output(c, in, out, dev, 4);
  const Tensor &q = qo.q, &o = qo.o;
  Tensor k = random_tensor({c.B, c.Hkv, c.Sk, c.Dqk}, in, dev, -4, 4), v = random_tensor({c.B, c.Hkv, c.Sk, c.Dv}, in, dev, -4, 4);
  Tensor lse = poisoned({c.B, c.Hq, c.Sq}, DType::f32, dev);
  Tensor o_ref = poisoned({c.B, c.Hq, c.Sq, c.Dv}, out, dev), lse_ref = poisoned({c.B, c.Hq, c.Sq}, DType::f32, dev);
  ops::fmha_fp8(q, k, v, o, q_scale, k_scale, v_scale, lse, c.params, {backend});
  ops::fmha_fp8(q, k, v, o_ref, q_scale, k_scale, v_scale, lse_ref, c.params, {dispatch::Backend::reference});
  EXPECT_TRUE(all_close(o, o_ref, attention_tolerance(out)));
  EXPECT_TRUE(all_close(lse, lse_ref, kLseTolerance));
  // The scales are the tensors' own: doubling q_scale while halving k_scale changes nothing but rounding, and
  // the dequantised tensors give the same attention through fmha (f32, the reference).
  if (backend == dispatch::Backend::reference) return;
  Tensor o2 = poisoned({c.B, c.Hq, c.Sq, c.Dv}, out, dev);
  ops::fmha_fp8(q, k, v, o2, 2 * q_scale, k_scale / 2, v_scale, {}, c.params, {backend});
  EXPECT_TRUE(all_close(o2, o_ref, attention_tolerance(out)));
}

inline void check_fmha_fp8_all(Device dev, dispatch::Backend backend) {
  for (const auto& c : kFmhaCases) check_fmha_fp8(dev, backend, DType::f16, c);
  for (size_t i = 0; i < std::size(kFmhaCases); i += 3) check_fmha_fp8(dev, backend, DType::bf16, kFmhaCases[i]);
}

// fp8 against fmha on the dequantised tensors, by value: q_scale * q8 etc. written as f32.
inline void check_fmha_fp8_dequantised(Device dev, dispatch::Backend backend) {
  const int64_t B = 1, H = 2, Sq = 33, Sk = 70, D = 128;
  const DType in = DType::fp8_e4m3;
  Tensor q = random_tensor({B, H, Sq, D}, in, dev, -4, 4), k = random_tensor({B, H, Sk, D}, in, dev, -4, 4);
  Tensor v = random_tensor({B, H, Sk, D}, in, dev, -4, 4);
  auto dequantised = [&](const Tensor& t, float scale) {
    std::vector<float> x = floats(t);
    for (float& e : x) e *= scale;
    return on_device(from_floats(x, t.shape(), DType::f32), dev);
  };
  const ops::AttentionParams params{0.f, true, -1, 0.f};
  Tensor o = poisoned({B, H, Sq, D}, DType::f16, dev), want = poisoned({B, H, Sq, D}, DType::f32, dev);
  ops::fmha_fp8(q, k, v, o, 0.5f, 0.125f, 0.25f, {}, params, {backend});
  ops::fmha(dequantised(q, 0.5f), dequantised(k, 0.125f), dequantised(v, 0.25f), want, {}, params,
            {dispatch::Backend::reference});
  EXPECT_TRUE(all_close(o, want, attention_tolerance(DType::f16)));
}

inline void check_fmha_fp8_bad_input(Device dev, dispatch::Backend backend) {
  const DType in = DType::fp8_e4m3;
  Tensor q = random_tensor({1, 4, 9, 64}, in, dev), k = random_tensor({1, 2, 13, 64}, in, dev);
  Tensor v = random_tensor({1, 2, 13, 64}, in, dev), o = poisoned({1, 4, 9, 64}, DType::bf16, dev);
  const ops::Options opt{backend};
  auto call = [&](const Tensor& q_, const Tensor& k_, const Tensor& v_, const Tensor& o_, float qs = 1.f, float ks = 1.f) {
    ops::fmha_fp8(q_, k_, v_, o_, qs, ks, 1.f, {}, {}, opt);
  };
  expect_invalid_argument([&] { call(random_tensor({1, 4, 9, 64}, DType::bf16, dev), k, v, o); }, "q is bf16");
  expect_invalid_argument([&] { call(q, random_tensor({1, 2, 13, 64}, DType::fp8_e5m2, dev), v, o); }, "k");
  expect_invalid_argument([&] { call(q, k, v, poisoned({1, 4, 9, 64}, DType::f32, dev)); }, "o is f32");
  expect_invalid_argument([&] { call(q, k, v, poisoned({1, 4, 9, 64}, DType::fp8_e4m3, dev)); }, "o is fp8_e4m3");
  expect_invalid_argument([&] { call(q, k, random_tensor({1, 2, 12, 64}, in, dev), o); }, "v");
  expect_invalid_argument([&] { call(q, random_tensor({1, 3, 13, 64}, in, dev), random_tensor({1, 3, 13, 64}, in, dev), o); },
                          "multiple");
  expect_invalid_argument([&] { call(q, k, v, o, NAN); }, "finite");
  expect_invalid_argument([&] { call(q, k, v, o, 1e30f, 1e30f); }, "overflows");
  expect_invalid_argument([&] { call(q, k, v, Tensor()); }, "o is missing");
  for (float x : floats(o)) ASSERT_TRUE(std::isnan(x));
}

// Backward cases for the tile kernels (16-bit, head dim 64 or 128): lengths 1, 9, 127 and several tiles of
// either kernel (128 rows, 64-row tiles) with edges inside them; Sq < Sk and Sq > Sk (rows that see no key);
// GQA 1, 4, 8; causal, windows, softcap, an explicit scale.
inline const FmhaCase kFmhaBackwardCases[] = {
    {1, 1, 1, 1, 1, 64, 64, {}},
    {2, 8, 2, 9, 9, 64, 64, {0.f, true, -1, 0.f}},
    {1, 4, 1, 127, 127, 128, 128, {0.f, true, -1, 0.f}},
    {1, 8, 1, 9, 127, 64, 64, {0.f, true, -1, 0.f}},
    {1, 3, 1, 5, 3, 64, 64, {0.f, true, -1, 0.f}},
    {2, 2, 2, 127, 127, 64, 64, {0.f, true, 20, 0.f}},
    {1, 2, 1, 33, 70, 64, 64, {0.f, false, 10, 0.f}},
    {1, 2, 2, 40, 40, 64, 64, {0.f, true, -1, 5.f}},
    {1, 2, 1, 200, 300, 128, 128, {0.f, true, -1, 0.f}},
    {1, 1, 1, 131, 257, 128, 128, {0.3f, false, -1, 0.f}},
};

// |got - want| within a fraction of the largest |want| (gradients sum many rounded products: P and dS are
// rounded to the input dtype for the tensor cores, as in FlashAttention), plus a relative part.
inline ::testing::AssertionResult gradient_close(const Tensor& got, const Tensor& want, DType dt) {
  const auto w = floats(want);
  double largest = 0;
  for (float x : w) largest = std::max(largest, double(std::fabs(x)));
  const double frac = dt == DType::f32 ? 1e-4 : dt == DType::f16 ? 4e-3 : 2e-2;
  return all_close(floats(got), w, {frac * largest + 1e-6, frac});
}

// The backward on `backend` from the forward's o and lse on the same backend, against the reference backward
// (which recomputes the softmax from q and k alone).
inline void check_fmha_backward(Device dev, dispatch::Backend backend, DType dt, const FmhaCase& c) {
  SCOPED_TRACE(std::string(dtype_name(dt)) + " backward " + fmha_case_str(c));
  Tensor q = random_tensor({c.B, c.Hq, c.Sq, c.Dqk}, dt, dev, -2, 2), k = random_tensor({c.B, c.Hkv, c.Sk, c.Dqk}, dt, dev, -2, 2);
  Tensor v = random_tensor({c.B, c.Hkv, c.Sk, c.Dv}, dt, dev), d_o = random_tensor({c.B, c.Hq, c.Sq, c.Dv}, dt, dev);
  Tensor o = poisoned({c.B, c.Hq, c.Sq, c.Dv}, dt, dev), lse = poisoned({c.B, c.Hq, c.Sq}, DType::f32, dev);
  ops::fmha(q, k, v, o, lse, c.params, {backend});
  Tensor dq = poisoned(q.shape(), dt, dev), dk = poisoned(k.shape(), dt, dev), dv = poisoned(v.shape(), dt, dev);
  ops::fmha_backward(q, k, v, o, d_o, lse, dq, dk, dv, c.params, {backend});
  Tensor dq_ref = poisoned(q.shape(), dt, dev), dk_ref = poisoned(k.shape(), dt, dev), dv_ref = poisoned(v.shape(), dt, dev);
  ops::fmha_backward(q, k, v, d_o, dq_ref, dk_ref, dv_ref, c.params, {dispatch::Backend::reference});
  EXPECT_TRUE(gradient_close(dq, dq_ref, dt)) << "dq";
  EXPECT_TRUE(gradient_close(dk, dk_ref, dt)) << "dk";
  EXPECT_TRUE(gradient_close(dv, dv_ref, dt)) << "dv";
}

// Every configuration of the backward kernels, forced through the autotuner.
inline void check_fmha_backward_configs(Device dev, dispatch::Backend backend) {
  namespace at = dispatch::autotune;
  const std::pair<int64_t, std::vector<const char*>> configs[] = {
      {64, {"dq_bn64_s4_dkv_bq64_s4", "dq_bn128_s3_dkv_bq64_s4"}},
      {128, {"dq_bn64_s2_dkv_bq64_s3", "dq_bn128_s2_dkv_bq64_s3"}}};
  const ClearForcedChoice clear{"fmha_backward"};
  for (const auto& [d, names] : configs)
    for (const char* name : names) {
      SCOPED_TRACE(std::string("configuration ") + name);
      at::force("fmha_backward", name);
      for (const FmhaCase& c : {FmhaCase{1, 4, 1, 200, 300, d, d, {0.f, true, -1, 0.f}},
                                FmhaCase{1, 2, 2, 130, 129, d, d, {0.f, false, 40, 3.f}}})
        check_fmha_backward(dev, backend, DType::bf16, c);
    }
}

// Bad input to the backward: named in the error, nothing written.
inline void check_fmha_backward_bad_input(Device dev, dispatch::Backend backend) {
  const ops::Options opt{backend};
  const DType f = DType::bf16;
  Tensor q = random_tensor({1, 4, 5, 64}, f, dev), k = random_tensor({1, 2, 7, 64}, f, dev), v = random_tensor({1, 2, 7, 64}, f, dev);
  Tensor o = random_tensor({1, 4, 5, 64}, f, dev), d_o = random_tensor({1, 4, 5, 64}, f, dev), lse = random_tensor({1, 4, 5}, DType::f32, dev);
  Tensor dq = poisoned(q.shape(), f, dev), dk = poisoned(k.shape(), f, dev), dv = poisoned(v.shape(), f, dev);
  expect_invalid_argument([&] { ops::fmha_backward(q, k, v, o, d_o, {}, dq, dk, dv, {}, opt); }, {"lse"});
  expect_invalid_argument([&] { ops::fmha_backward(q, k, v, o, d_o, random_tensor({1, 4, 6}, DType::f32, dev), dq, dk, dv, {}, opt); },
                         {"lse is"});
  expect_invalid_argument([&] { ops::fmha_backward(q, k, v, random_tensor({1, 4, 5, 32}, f, dev), d_o, lse, dq, dk, dv, {}, opt); },
                         {"o is"});
  expect_invalid_argument([&] { ops::fmha_backward(q, k, v, o, random_tensor({1, 4, 4, 64}, f, dev), lse, dq, dk, dv, {}, opt); },
                         {"d_o is"});
  expect_invalid_argument([&] { ops::fmha_backward(q, k, v, o, d_o, lse, dq, poisoned({1, 2, 8, 64}, f, dev), dv, {}, opt); },
                         {"dk is"});
  expect_invalid_argument([&] { ops::fmha_backward(q, k, v, o, d_o, lse, poisoned(q.shape(), DType::f16, dev), dk, dv, {}, opt); },
                         {"dq is", "dtypes differ"});
  expect_invalid_argument([&] { ops::fmha_backward(q, k, v, random_tensor({1, 4, 4, 64}, f, dev), dq, dk, dv, {}, opt); }, {"d_o is"});
  EXPECT_EQ(written_elements(dq), 0);
  EXPECT_EQ(written_elements(dk), 0);
  EXPECT_EQ(written_elements(dv), 0);
}

struct VarlenCase {
  std::vector<int64_t> sq, sk;  // per sequence
  int64_t Hq, Hkv, Dqk, Dv;
  ops::AttentionParams params;
  int64_t padding_rows = 0;  // rows of q past cu_q[B]
};

// Empty sequences (no queries, no keys, both), lengths 1, 9, 127, and padding rows past the last sequence.
inline const VarlenCase kVarlenCases[] = {
    {{3, 0, 9, 1, 0}, {4, 2, 9, 5, 0}, 4, 2, 64, 64, {0.f, true, -1, 0.f}},
    {{127, 9, 1}, {127, 20, 0}, 8, 1, 64, 64, {}, 5},
    {{40, 2}, {40, 70}, 4, 4, 128, 128, {0.f, true, 16, 0.f}},
    {{17}, {33}, 2, 1, 192, 128, {0.f, true, -1, 10.f}},
    {{150, 0, 130}, {260, 3, 130}, 2, 1, 64, 64, {0.f, true, 40, 0.f}, 2},
};

inline Tensor cumulative(const std::vector<int64_t>& lens, Device dev) {
  std::vector<float> cu{0.f};
  for (int64_t n : lens) cu.push_back(cu.back() + float(n));
  return on_device(from_floats(cu, {int64_t(cu.size())}, DType::i32), dev);
}

inline void check_fmha_varlen(Device dev, dispatch::Backend backend, DType dt, const VarlenCase& c) {
  int64_t Tq = c.padding_rows, Tk = 0;
  std::ostringstream trace;
  trace << dtype_name(dt) << " lens";
  for (size_t b = 0; b < c.sq.size(); ++b) {
    Tq += c.sq[b];
    Tk += c.sk[b];
    trace << " (" << c.sq[b] << "," << c.sk[b] << ")";
  }
  trace << " H " << c.Hq << "/" << c.Hkv << " D " << c.Dqk << "/" << c.Dv << params_str(c.params) << " padding " << c.padding_rows;
  SCOPED_TRACE(trace.str());
  Tensor q = random_tensor({Tq, c.Hq, c.Dqk}, dt, dev, -2, 2), k = random_tensor({Tk, c.Hkv, c.Dqk}, dt, dev, -2, 2);
  Tensor v = random_tensor({Tk, c.Hkv, c.Dv}, dt, dev);
  Tensor cu_q = cumulative(c.sq, dev), cu_k = cumulative(c.sk, dev);
  Tensor o = poisoned({Tq, c.Hq, c.Dv}, dt, dev), lse = poisoned({Tq, c.Hq}, DType::f32, dev);
  Tensor o_ref = poisoned({Tq, c.Hq, c.Dv}, dt, dev), lse_ref = poisoned({Tq, c.Hq}, DType::f32, dev);
  ops::fmha_varlen(q, k, v, cu_q, cu_k, o, lse, c.params, {backend});
  ops::fmha_varlen(q, k, v, cu_q, cu_k, o_ref, lse_ref, c.params, {dispatch::Backend::reference});
  EXPECT_TRUE(all_close(o, o_ref, attention_tolerance(dt)));
  EXPECT_TRUE(all_close(lse, lse_ref, kLseTolerance));
}

struct DecodeCase {
  std::vector<int64_t> lens;  // cached tokens per sequence, the Sq queries included
  int64_t Sq, Hq, Hkv, Dk, Dv, page_size;
  bool paged;
  ops::AttentionParams params;
};

// Page size 16 and 7 (not a divisor of the key tile), empty and full pages, seq_len 0, Sq 1 to 8, GQA groups
// of 1, 4, 8 and MQA, a contiguous cache, window and softcap, 192/128 dims; long contexts split the keys.
inline const DecodeCase kDecodeCases[] = {
    {{0, 1, 37}, 1, 8, 2, 64, 64, 16, true, {}},
    {{16, 130}, 4, 32, 8, 128, 128, 16, true, {}},
    {{100}, 8, 8, 1, 64, 64, 7, true, {}},
    {{50, 3}, 2, 4, 4, 64, 64, 50, false, {}},
    {{200, 65}, 3, 4, 1, 64, 64, 16, true, {0.f, true, 40, 30.f}},
    {{77}, 1, 4, 1, 192, 128, 16, true, {}},
    {{300, 5, 64}, 1, 2, 2, 128, 128, 16, true, {0.2f, true, -1, 0.f}},
    {{9, 9}, 5, 16, 2, 64, 64, 16, true, {}},
};

// The cache of one case, on the CPU: pages in a shuffled order, every slot that holds no token NaN (so reading
// one shows), block table entries past a sequence's pages -1.
struct DecodeCache {
  Tensor k_pages, v_pages, block_table, seq_lens;
};

inline DecodeCache make_decode_cache(const DecodeCase& c, DType dt) {
  const int64_t B = int64_t(c.lens.size());
  int64_t max_len = 0, pages_needed = 0;
  for (int64_t n : c.lens) {
    max_len = std::max(max_len, n);
    pages_needed += (n + c.page_size - 1) / c.page_size;
  }
  DecodeCache cache;
  std::vector<float> lens_f(c.lens.begin(), c.lens.end());
  cache.seq_lens = from_floats(lens_f, {B}, DType::i32);
  const int64_t per_seq = c.paged ? (max_len + c.page_size - 1) / c.page_size + 1 : 1;
  const int64_t num_pages = c.paged ? pages_needed + 3 : B;
  const int64_t slots_per_page = c.page_size;
  Tensor k = random_tensor({num_pages, slots_per_page, c.Hkv, c.Dk}, DType::f32, Device::cpu(), -2, 2);
  Tensor v = random_tensor({num_pages, slots_per_page, c.Hkv, c.Dv}, DType::f32);
  std::vector<float> kf = floats(k), vf = floats(v);
  std::vector<bool> used(size_t(num_pages * slots_per_page), false);
  std::vector<float> table(size_t(B * per_seq), -1.f);
  // Pages handed out in a scrambled order: page p of the sequence order goes to (p * 5 + 2) mod num_pages
  // when that is a permutation (num_pages not a multiple of 5), else in reverse.
  std::vector<int64_t> order(static_cast<size_t>(num_pages));
  for (int64_t i = 0; i < num_pages; ++i) order[size_t(i)] = num_pages % 5 ? (i * 5 + 2) % num_pages : num_pages - 1 - i;
  int64_t next = 0;
  for (int64_t b = 0; b < B; ++b) {
    const int64_t n = c.lens[size_t(b)];
    for (int64_t t = 0; t < n; ++t) {
      int64_t page = b;
      if (c.paged) {
        if (t % c.page_size == 0) table[size_t(b * per_seq + t / c.page_size)] = float(order[size_t(next++)]);
        page = int64_t(table[size_t(b * per_seq + t / c.page_size)]);
      }
      used[size_t(page * slots_per_page + t % c.page_size)] = true;
    }
  }
  for (size_t slot = 0; slot < used.size(); ++slot) {
    if (used[slot]) continue;
    for (int64_t i = 0; i < c.Hkv * c.Dk; ++i) kf[slot * size_t(c.Hkv * c.Dk) + size_t(i)] = NAN;
    for (int64_t i = 0; i < c.Hkv * c.Dv; ++i) vf[slot * size_t(c.Hkv * c.Dv) + size_t(i)] = NAN;
  }
  cache.k_pages = from_floats(kf, k.shape(), dt);
  cache.v_pages = from_floats(vf, v.shape(), dt);
  if (c.paged) cache.block_table = from_floats(table, {B, per_seq}, DType::i32);
  return cache;
}

inline void check_fmha_decode(Device dev, dispatch::Backend backend, DType dt, const DecodeCase& c) {
  std::ostringstream trace;  // (a stream: string concatenation in a loop trips a GCC -Wrestrict false positive)
  trace << dtype_name(dt) << " lens";
  for (int64_t n : c.lens) trace << " " << n;
  trace << " Sq " << c.Sq << " H " << c.Hq << "/" << c.Hkv << " D " << c.Dk << "/" << c.Dv << " page " << c.page_size
        << (c.paged ? "" : " contiguous") << params_str(c.params);
  SCOPED_TRACE(trace.str());
  const DecodeCache cpu = make_decode_cache(c, dt);
  const int64_t B = int64_t(c.lens.size());
  ops::KvCache cache{on_device(cpu.k_pages, dev), on_device(cpu.v_pages, dev),
                     c.paged ? on_device(cpu.block_table, dev) : Tensor()};
  Tensor seq_lens = on_device(cpu.seq_lens, dev);
  Tensor q = random_tensor({B, c.Sq, c.Hq, c.Dk}, dt, dev, -2, 2);
  Tensor o = poisoned({B, c.Sq, c.Hq, c.Dv}, dt, dev), o_ref = poisoned({B, c.Sq, c.Hq, c.Dv}, dt, dev);
  ops::fmha_decode(q, cache, seq_lens, o, c.params, {backend});
  ops::fmha_decode(q, cache, seq_lens, o_ref, c.params, {dispatch::Backend::reference});
  EXPECT_TRUE(all_close(o, o_ref, attention_tolerance(dt)));
  // Run twice more: the split scratch is reused, and results do not depend on what it held.
  Tensor o2 = poisoned({B, c.Sq, c.Hq, c.Dv}, dt, dev);
  ops::fmha_decode(q, cache, seq_lens, o2, c.params, {backend});
  EXPECT_TRUE(all_equal(o2, o));
}

// fmha_decode launched right after the kernel that appends the step's newest Sq tokens, with the cache marked
// older_tokens_settled: on Hopper the staged kernels' producers then read the older tokens while the append
// runs, and must wait for it before the tile that holds a newest token. Those rows hold NaN until the append
// writes them, and the append is lengthened by `padding` skipped tokens (slot -1) ahead of the real ones, so a
// tile read too early shows. Each round starts again from the NaN rows.
inline void check_fmha_decode_after_append(Device dev, dispatch::Backend backend, DType dt, const DecodeCase& c,
                                           int64_t padding, int rounds) {
  std::ostringstream trace;
  trace << dtype_name(dt) << " lens";
  for (int64_t n : c.lens) trace << " " << n;
  trace << " Sq " << c.Sq << " H " << c.Hq << "/" << c.Hkv << " D " << c.Dk << " page " << c.page_size
        << (c.paged ? "" : " contiguous") << params_str(c.params);
  SCOPED_TRACE(trace.str());
  const DecodeCache cpu = make_decode_cache(c, dt);
  const int64_t B = int64_t(c.lens.size()), T = B * c.Sq;
  const std::vector<float> table = c.paged ? floats(cpu.block_table) : std::vector<float>{};
  const int64_t per_seq = c.paged ? cpu.block_table.size(1) : 0;
  std::vector<float> newest(size_t(T), -1.f), padded(size_t(padding), -1.f);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t i = 0; i < c.Sq; ++i) {
      const int64_t t = c.lens[size_t(b)] - c.Sq + i;  // negative: a query before the sequence, nothing to append
      if (t < 0) continue;
      const int64_t page = c.paged ? int64_t(table[size_t(b * per_seq + t / c.page_size)]) : b;
      newest[size_t(b * c.Sq + i)] = float(page * c.page_size + t % c.page_size);
    }
  padded.insert(padded.end(), newest.begin(), newest.end());
  const auto copy = [&](const Tensor& t) { return from_floats(floats(t), t.shape(), t.dtype()); };
  const ops::Options reference{dispatch::Backend::reference};
  // The cache the decode should see (the append done), and the one it starts from (the newest rows NaN).
  const Tensor k_new = random_tensor({padding + T, c.Hkv, c.Dk}, dt, Device::cpu(), -2, 2);
  const Tensor v_new = random_tensor({padding + T, c.Hkv, c.Dv}, dt, Device::cpu(), -2, 2);
  const Tensor slots = from_floats(padded, {padding + T}, DType::i64);
  const ops::KvCache appended{copy(cpu.k_pages), copy(cpu.v_pages), cpu.block_table};
  ops::kv_cache_append(k_new, v_new, appended, slots, reference);
  const ops::KvCache stale{copy(cpu.k_pages), copy(cpu.v_pages), cpu.block_table};
  std::vector<float> nan_k(size_t(T * c.Hkv * c.Dk), NAN), nan_v(size_t(T * c.Hkv * c.Dv), NAN);
  ops::kv_cache_append(from_floats(nan_k, {T, c.Hkv, c.Dk}, dt), from_floats(nan_v, {T, c.Hkv, c.Dv}, dt), stale,
                       from_floats(newest, {T}, DType::i64), reference);
  const Tensor q = random_tensor({B, c.Sq, c.Hq, c.Dk}, dt, Device::cpu(), -2, 2);
  const Tensor o_ref = poisoned({B, c.Sq, c.Hq, c.Dv}, dt);
  ops::fmha_decode(q, appended, cpu.seq_lens, o_ref, c.params, reference);

  ops::KvCache cache{on_device(copy(stale.k_pages), dev), on_device(copy(stale.v_pages), dev),
                     c.paged ? on_device(cpu.block_table, dev) : Tensor()};
  cache.older_tokens_settled = true;
  const Tensor stale_k = on_device(stale.k_pages, dev), stale_v = on_device(stale.v_pages, dev);
  const Tensor k_dev = on_device(k_new, dev), v_dev = on_device(v_new, dev), slots_dev = on_device(slots, dev);
  const Tensor q_dev = on_device(q, dev), lens_dev = on_device(cpu.seq_lens, dev);
  for (int round = 0; round < rounds; ++round) {
    copy_bytes(cache.k_pages.data(), dev, stale_k.data(), dev, size_t(stale_k.nbytes()));
    copy_bytes(cache.v_pages.data(), dev, stale_v.data(), dev, size_t(stale_v.nbytes()));
    const Tensor o = poisoned({B, c.Sq, c.Hq, c.Dv}, dt, dev);
    ops::kv_cache_append(k_dev, v_dev, cache, slots_dev, {backend});
    ops::fmha_decode(q_dev, cache, lens_dev, o, c.params, {backend});
    EXPECT_TRUE(all_close(o, o_ref, attention_tolerance(dt))) << "round " << round;
  }
}

// check_fmha_decode_after_append for each staged decode configuration, forced through the autotuner (or, with
// every_configuration false, the tuner's choice alone: on the host nothing overlaps, and the cases are what counts).
inline void check_fmha_decode_after_append_configs(Device dev, dispatch::Backend backend, int64_t padding, int rounds,
                                                   bool every_configuration) {
  namespace at = dispatch::autotune;
  const ClearForcedChoice clear{"fmha_decode"};
  const auto each = [&](std::vector<const char*> names, const auto& check) {
    if (!every_configuration) names = {nullptr};
    for (const char* name : names) {
      SCOPED_TRACE(std::string("configuration ") + (name ? name : "(tuned)"));
      if (name) at::force("fmha_decode", name);
      check();
    }
  };
  each({"bn128_s4", "bn128_s4_short", "sliced_bn128_s4", "sliced_bn128_s4_short"}, [&] {
    check_fmha_decode_after_append(dev, backend, DType::bf16, {{0, 1, 37, 129}, 1, 8, 2, 64, 64, 16, true, {}}, padding, rounds);
    check_fmha_decode_after_append(dev, backend, DType::f16, {{65, 200}, 3, 4, 4, 64, 64, 203, false, {}}, padding, rounds);
  });
  each({"bn64_s3_x2", "bn64_s4", "bn64_s3_x2_short", "bn64_s4_short", "bn32_s6_x2", "bn32_s6_x2_short", "sliced_bn64_s3_x2",
        "sliced_bn64_s3_x2_short", "sliced_bn64_s4"},
       [&] {
         check_fmha_decode_after_append(dev, backend, DType::bf16, {{1, 17, 300, 2048}, 1, 32, 8, 128, 128, 16, true, {}}, padding, rounds);
         check_fmha_decode_after_append(dev, backend, DType::bf16, {{1000, 63}, 4, 8, 2, 128, 128, 32, true, {0.f, true, 100, 0.f}},
                                        padding, rounds);
         check_fmha_decode_after_append(dev, backend, DType::f16, {{130, 64}, 2, 8, 8, 128, 128, 200, false, {}}, padding, rounds);
       });
}

// MLA decode: the latent cache [pages, page_size, 512 + 64] is both key and (its first 512 columns) value.
// Checked against the reference, and the reference against fmha_decode over separate K and V copies.
struct MlaCase {
  std::vector<int64_t> lens;
  int64_t Sq, H, page_size;
  ops::AttentionParams params{0.f, true, -1, 0.f};
};
// Pages of 16k tokens take the staged MLA kernel (mla_decode_launch.h; in host mode too): empty, one-token,
// whole-tile and tile-plus-one sequences, 96 query rows (a partial second row tile) with the causal edge
// inside a tile, a window with a soft cap, and (pages of 7) the generic kernel.
inline const MlaCase kMlaCases[] = {{{0, 300, 45}, 1, 16, 16},
                                    {{70}, 2, 8, 7},
                                    {{0, 1, 64, 65, 129}, 1, 16, 16},
                                    {{300, 17}, 3, 32, 32},
                                    {{777}, 1, 128, 64, {0.f, true, 100, 20.f}}};

inline void check_mla_decode(Device dev, dispatch::Backend backend, DType dt, const MlaCase& m) {
  constexpr int64_t R = 512, P = 64;
  std::ostringstream trace;
  trace << dtype_name(dt) << " mla lens";
  for (int64_t n : m.lens) trace << " " << n;
  trace << " Sq " << m.Sq << " H " << m.H << " page " << m.page_size << " window " << m.params.window_left << " softcap "
        << m.params.softcap;
  SCOPED_TRACE(trace.str());
  const DecodeCase c{m.lens, m.Sq, m.H, 1, R + P, R, m.page_size, true, {}};
  const DecodeCache cpu = make_decode_cache(c, dt);
  const int64_t B = int64_t(m.lens.size()), pages = cpu.k_pages.size(0);
  Tensor latent = on_device(cpu.k_pages.reshape({pages, m.page_size, R + P}), dev);
  // The value copy: the first R columns of every latent row.
  std::vector<float> lf = floats(cpu.k_pages), vf;
  for (size_t row = 0; row < lf.size() / size_t(R + P); ++row)
    vf.insert(vf.end(), lf.begin() + long(row * size_t(R + P)), lf.begin() + long(row * size_t(R + P) + size_t(R)));
  Tensor k_copy = on_device(cpu.k_pages, dev), v_copy = on_device(from_floats(vf, {pages, m.page_size, 1, R}, dt), dev);
  Tensor table = on_device(cpu.block_table, dev), lens = on_device(cpu.seq_lens, dev);
  Tensor q = random_tensor({B, m.Sq, m.H, R + P}, dt, dev, -1, 1);
  Tensor o = poisoned({B, m.Sq, m.H, R}, dt, dev), o_ref = poisoned({B, m.Sq, m.H, R}, dt, dev);
  Tensor o_split = poisoned({B, m.Sq, m.H, R}, dt, dev);
  const ops::AttentionParams params = m.params;
  ops::mla_decode(q, latent, table, lens, o, params, {backend});
  ops::mla_decode(q, latent, table, lens, o_ref, params, {dispatch::Backend::reference});
  ops::fmha_decode(q, {k_copy, v_copy, table}, lens, o_split, params, {dispatch::Backend::reference});
  EXPECT_TRUE(all_equal(o_ref, o_split));
  EXPECT_TRUE(all_close(o, o_ref, attention_tolerance(dt)));
}

// Appends tokens (some skipped with -1, slots in scrambled order across pages) and compares the whole cache
// bit for bit with the reference's, both starting from the same poisoned cache.
inline void check_kv_cache_append(Device dev, dispatch::Backend backend, DType dt, int64_t T, int64_t Hkv, int64_t Dk, int64_t Dv,
                                  int64_t num_pages, int64_t page_size) {
  SCOPED_TRACE(std::string(dtype_name(dt)) + " T " + std::to_string(T) + " Hkv " + std::to_string(Hkv) + " D " +
               std::to_string(Dk) + "/" + std::to_string(Dv) + " pages " + std::to_string(num_pages) + " x " + std::to_string(page_size));
  const int64_t capacity = num_pages * page_size;
  std::vector<float> slots(static_cast<size_t>(T));
  for (int64_t i = 0; i < T; ++i) slots[size_t(i)] = i % 5 == 3 ? -1.f : float((i * 7 + 3) % capacity);
  // (i * 7 + 3) mod capacity is distinct for i < capacity when gcd(7, capacity) = 1.
  Tensor s = on_device(from_floats(slots, {T}, DType::i64), dev);
  Tensor k = random_tensor({T, Hkv, Dk}, dt, dev), v = random_tensor({T, Hkv, Dv}, dt, dev);
  Tensor kp = poisoned({num_pages, page_size, Hkv, Dk}, dt, dev), vp = poisoned({num_pages, page_size, Hkv, Dv}, dt, dev);
  Tensor kp_ref = poisoned({num_pages, page_size, Hkv, Dk}, dt, dev), vp_ref = poisoned({num_pages, page_size, Hkv, Dv}, dt, dev);
  ops::kv_cache_append(k, v, {kp, vp, {}}, s, {backend});
  ops::kv_cache_append(k, v, {kp_ref, vp_ref, {}}, s, {dispatch::Backend::reference});
  EXPECT_TRUE(all_equal(kp, kp_ref));
  EXPECT_TRUE(all_equal(vp, vp_ref));
}

inline void check_kv_cache_append_all(Device dev, dispatch::Backend backend) {
  for (DType dt : kFloatDTypes) {
    check_kv_cache_append(dev, backend, dt, 1, 1, 64, 64, 3, 16);
    check_kv_cache_append(dev, backend, dt, 37, 8, 128, 128, 5, 16);
    check_kv_cache_append(dev, backend, dt, 20, 2, 192, 130, 4, 9);
  }
}

// Wrong shapes, dtypes, devices, null data, bad parameters and bad index values: each is an error naming the
// tensor at fault, and nothing is written.
inline void check_attention_bad_input(Device dev, dispatch::Backend backend) {
  const ops::Options opt{backend};
  const DType f = DType::f16;
  Tensor q = random_tensor({2, 4, 5, 16}, f, dev), k = random_tensor({2, 2, 7, 16}, f, dev), v = random_tensor({2, 2, 7, 8}, f, dev);
  Tensor o = poisoned({2, 4, 5, 8}, f, dev), lse = poisoned({2, 4, 5}, DType::f32, dev);
  expect_invalid_argument([&] { ops::fmha(q, random_tensor({2, 2, 7, 15}, f, dev), v, o, lse, {}, opt); }, {"k is", "expected shape"});
  expect_invalid_argument([&] { ops::fmha(q, k, random_tensor({2, 2, 6, 8}, f, dev), o, lse, {}, opt); }, {"v is"});
  expect_invalid_argument([&] { ops::fmha(q, k, v, poisoned({2, 4, 5, 9}, f, dev), lse, {}, opt); }, {"o is"});
  expect_invalid_argument([&] { ops::fmha(q, k, v, poisoned({2, 4, 5, 8}, DType::bf16, dev), lse, {}, opt); }, {"o is", "dtypes differ"});
  expect_invalid_argument([&] { ops::fmha(q, k, v, o, poisoned({2, 4, 5}, DType::f16, dev), {}, opt); }, {"lse is", "f32"});
  expect_invalid_argument([&] { ops::fmha(q, k, v, o, poisoned({2, 4, 6}, DType::f32, dev), {}, opt); }, {"lse is"});
  expect_invalid_argument([&] { ops::fmha(q, random_tensor({2, 3, 7, 16}, f, dev), random_tensor({2, 3, 7, 8}, f, dev), o, lse, {}, opt); },
                         {"heads", "multiple"});
  expect_invalid_argument([&] { ops::fmha(Tensor::view(nullptr, {2, 4, 5, 16}, f, dev), k, v, o, lse, {}, opt); }, {"null"});
  expect_invalid_argument([&] { ops::fmha(random_tensor({4, 5, 16}, f, dev), k, v, o, lse, {}, opt); }, {"q is", "4 dims"});
  expect_invalid_argument([&] { ops::fmha(random_tensor({2, 4, 5, 16}, DType::i32, dev), k, v, o, lse, {}, opt); }, {"q is", "dtype"});
  {  // a transposed view of q: last dim not unit-stride
    Tensor qt = random_tensor({2, 4, 16, 5}, f, dev);
    Tensor qv = Tensor::view(qt.data(), {2, 4, 5, 16}, f, dev, {4 * 16 * 5, 16 * 5, 1, 5});
    expect_invalid_argument([&] { ops::fmha(qv, k, v, o, lse, {}, opt); }, {"q is", "stride"});
  }
  expect_invalid_argument([&] { ops::fmha(q, k, v, o, lse, {0.f, false, -2, 0.f}, opt); }, {"window_left"});
  expect_invalid_argument([&] { ops::fmha(q, k, v, o, lse, {0.f, false, -1, -1.f}, opt); }, {"softcap"});
  expect_invalid_argument([&] { ops::fmha(q, k, v, o, lse, {NAN, false, -1, 0.f}, opt); }, {"scale"});
  if (dev.is_cuda()) expect_invalid_argument([&] { ops::fmha(q, k.to(Device::cpu()), v, o, lse, {}, opt); }, {"k is", "devices differ"});
  EXPECT_EQ(written_elements(o), 0);
  EXPECT_EQ(written_elements(lse), 0);

  // varlen: cumulative lengths that decrease, overrun q, or do not start at 0 (checked when on the CPU).
  Tensor vq = random_tensor({6, 4, 16}, f, dev), vk = random_tensor({9, 2, 16}, f, dev), vv = random_tensor({9, 2, 8}, f, dev);
  Tensor vo = poisoned({6, 4, 8}, f, dev);
  auto cu = [&](std::vector<float> x) { return from_floats(x, {int64_t(x.size())}, DType::i32, Device::cpu()); };
  const Tensor good_q = cu({0, 2, 6}), good_k = cu({0, 4, 9});
  auto on_dev = [&](const Tensor& t) { return dev.is_cpu() ? t : t.to(dev); };
  expect_invalid_argument([&] { ops::fmha_varlen(vq, vk, vv, on_dev(good_q), on_dev(cu({0, 4})), vo, {}, {}, opt); }, {"cu_k is"});
  expect_invalid_argument([&] { ops::fmha_varlen(vq, vk, vv, on_dev(from_floats({0, 2, 6}, {3}, DType::i64)), on_dev(good_k), vo, {}, {}, opt); },
                         {"cu_q is", "i32"});
  if (dev.is_cpu()) {
    expect_invalid_argument([&] { ops::fmha_varlen(vq, vk, vv, cu({0, 3, 2}), good_k, vo, {}, {}, opt); }, {"cu_q[2] = 2", "decrease"});
    expect_invalid_argument([&] { ops::fmha_varlen(vq, vk, vv, good_q, cu({0, 4, 10}), vo, {}, {}, opt); }, {"cu_k[2] = 10", "rows of k"});
    expect_invalid_argument([&] { ops::fmha_varlen(vq, vk, vv, cu({1, 2, 6}), good_k, vo, {}, {}, opt); }, {"cu_q[0] = 1"});
  }
  EXPECT_EQ(written_elements(vo), 0);

  // decode and append: cache shapes, index dtypes, and (CPU) index values.
  const int64_t P = 5, page = 4;
  Tensor dq = random_tensor({2, 1, 4, 16}, f, dev), kp = random_tensor({P, page, 2, 16}, f, dev), vp = random_tensor({P, page, 2, 8}, f, dev);
  Tensor bt = on_dev(from_floats({0, 1, 2, 3}, {2, 2}, DType::i32)), lens = on_dev(from_floats({5, 8}, {2}, DType::i32));
  Tensor d_o = poisoned({2, 1, 4, 8}, f, dev);
  expect_invalid_argument([&] { ops::fmha_decode(dq, {kp, random_tensor({P, page, 2, 8}, DType::bf16, dev), bt}, lens, d_o, {}, opt); },
                         {"v_pages is", "dtypes differ"});
  expect_invalid_argument([&] { ops::fmha_decode(dq, {kp, random_tensor({P, page + 1, 2, 8}, f, dev), bt}, lens, d_o, {}, opt); },
                         {"v_pages is", "expected shape"});
  expect_invalid_argument([&] { ops::fmha_decode(dq, {kp, vp, bt}, on_dev(from_floats({5, 8}, {2}, DType::i64)), d_o, {}, opt); },
                         {"seq_lens is", "i32"});
  expect_invalid_argument([&] { ops::fmha_decode(dq, {kp, vp, on_dev(from_floats({0, 1, 2}, {3, 1}, DType::i32))}, lens, d_o, {}, opt); },
                         {"block_table is"});
  expect_invalid_argument([&] { ops::fmha_decode(dq, {kp, vp, {}}, lens, d_o, {}, opt); }, {"contiguous cache"});
  expect_invalid_argument([&] { ops::fmha_decode(random_tensor({2, 9, 4, 16}, f, dev), {kp, vp, bt}, lens, poisoned({2, 9, 4, 8}, f, dev), {}, opt); },
                         {"1 to 8"});
  expect_invalid_argument([&] { ops::fmha_decode(dq, {kp, vp, bt}, lens, poisoned({2, 1, 4, 9}, f, dev), {}, opt); }, {"o is"});
  if (dev.is_cpu()) {
    expect_invalid_argument([&] { ops::fmha_decode(dq, {kp, vp, bt}, from_floats({5, 9}, {2}, DType::i32), d_o, {}, opt); },
                           {"seq_lens[1] = 9", "[0, 8]"});
    expect_invalid_argument([&] { ops::fmha_decode(dq, {kp, vp, from_floats({0, 1, 2, 5}, {2, 2}, DType::i32)}, lens, d_o, {}, opt); },
                           {"block_table[1, 1] = 5", "[0, 5)"});
  }
  EXPECT_EQ(written_elements(d_o), 0);

  {
    Tensor mq = random_tensor({2, 1, 4, 24}, f, dev), lat = random_tensor({P, page, 24}, f, dev);
    Tensor mo = poisoned({2, 1, 4, 16}, f, dev);
    expect_invalid_argument([&] { ops::mla_decode(mq, random_tensor({P, page, 20}, f, dev), bt, lens, mo, {}, opt); },
                           {"latent_pages is", "last dims"});
    expect_invalid_argument([&] { ops::mla_decode(mq, lat, bt, lens, poisoned({2, 1, 4, 30}, f, dev), {}, opt); }, {"o is", "R must be"});
    expect_invalid_argument([&] { ops::mla_decode(mq, random_tensor({P, page, 2, 24}, f, dev), bt, lens, mo, {}, opt); },
                           {"latent_pages is", "3 dims"});
    EXPECT_EQ(written_elements(mo), 0);
  }

  Tensor ak = random_tensor({3, 2, 16}, f, dev), av = random_tensor({3, 2, 8}, f, dev);
  Tensor pk = poisoned({P, page, 2, 16}, f, dev), pv = poisoned({P, page, 2, 8}, f, dev);
  Tensor slots = on_dev(from_floats({0, -1, 19}, {3}, DType::i64));
  expect_invalid_argument([&] { ops::kv_cache_append(ak, random_tensor({3, 2, 9}, f, dev), {pk, pv, {}}, slots, opt); }, {"v_pages is", "[5, 4, 2, 9]"});
  expect_invalid_argument([&] { ops::kv_cache_append(ak, av, {pk, pv, {}}, on_dev(from_floats({0, 1, 2}, {3}, DType::i32)), opt); },
                         {"slots is", "i64"});
  expect_invalid_argument([&] { ops::kv_cache_append(ak, av, {poisoned({P, page, 3, 16}, f, dev), pv, {}}, slots, opt); }, {"k_pages is"});
  if (dev.is_cpu())
    expect_invalid_argument([&] { ops::kv_cache_append(ak, av, {pk, pv, {}}, from_floats({0, -1, 20}, {3}, DType::i64), opt); },
                           {"slots[2] = 20", "20 slots"});
  EXPECT_EQ(written_elements(pk), 0);
  EXPECT_EQ(written_elements(pv), 0);
}

// Every configuration of the staged (Hopper) prefill kernel for head dims 64, 128, 256 and 192 / 128, forced
// through the autotuner, on cases with several query and key tiles and edges inside them: the tuner picks by
// time, so each must be right.
inline void check_fmha_staged_configs(Device dev, dispatch::Backend backend, bool long_cases) {
  namespace at = dispatch::autotune;
  struct HeadDims {
    int64_t d, dv;
    std::vector<const char*> names;
    std::vector<const char*> persistent_only;  // overlapped work items: fmha's persistent grid alone offers them
  };
  const HeadDims configs[] = {{128, 128, {"bn128_s6", "bn64_s8"}, {"bn128_s5_overlap"}},
                              {64, 64, {"bn128_s8", "bn64_s12"}, {"bn128_s8_overlap"}},
                              {256, 256, {"bn64_s4"}, {}},
                              {192, 128, {"bn128_s3", "bn64_s6"}, {}}};
  const ClearForcedChoice clear_fmha{"fmha"}, clear_varlen{"fmha_varlen"};
  for (const auto& [d, dv, names, persistent_only] : configs) {
    const FmhaCase dense[] = {{1, 2, 1, 200, 300, d, dv, {0.f, true, -1, 0.f}},
                              {1, 2, 2, 130, 130, d, dv, {0.f, false, 40, 0.f}},
                              {2, 8, 2, 1000, 1500, d, dv, {0.f, true, -1, 0.f}},
                              {1, 4, 4, 700, 700, d, dv, {0.f, false, -1, 0.f}},
                              // causal persistent grids pair query tiles: an odd count (the middle alone), and more
                              // queries than keys (the first tiles see none)
                              {1, 3, 1, 300, 300, d, dv, {0.f, true, -1, 0.f}},
                              {1, 2, 2, 390, 130, d, dv, {0.f, true, -1, 0.f}}};
    const VarlenCase packed[] = {{{150, 0, 130}, {260, 3, 130}, 2, 1, d, dv, {0.f, true, -1, 0.f}, 2},
                                 {{700, 129}, {700, 300}, 8, 2, d, dv, {0.f, true, -1, 0.f}, 3}};
    // fmha offers each configuration also as a persistent grid (blocks that run several work items in turn).
    std::vector<std::pair<const char*, bool>> forced;  // (name, persistent)
    for (const char* name : names) forced.insert(forced.end(), {{name, false}, {name, true}});
    for (const char* name : persistent_only) forced.push_back({name, true});
    for (const auto& [name, persistent] : forced) {
      const std::string fmha_name = std::string(name) + (persistent ? "_persistent" : "");
      SCOPED_TRACE("configuration " + fmha_name + ", head dims " + std::to_string(d) + " / " + std::to_string(dv));
      at::force("fmha", fmha_name);
      at::force("fmha_varlen", name);
      for (DType dt : {DType::bf16, DType::f16}) {
        for (const auto& c : dense)
          if (long_cases || c.Sq * c.Sk < 100000) check_fmha(dev, backend, dt, c);
        if (!persistent)
          for (const auto& c : packed)
            if (long_cases || c.sq[0] < 500) check_fmha_varlen(dev, backend, dt, c);
      }
    }
  }
}

// Every configuration of the staged (Hopper) decode kernels (64 query rows a block, and sliced: 16), forced
// through the autotuner: paged caches with
// 16- and 32-token pages and contiguous ones of any length, lengths 0, 1 and off the key tile, several splits
// (more than 32 on the GPU), more than 64 query rows (two row tiles), GQA 4 and 16, MQA, window and softcap.
// Unused slots hold NaN.
inline void check_fmha_decode_staged_configs(Device dev, dispatch::Backend backend, bool long_cases) {
  namespace at = dispatch::autotune;
  struct HeadDim {
    std::vector<const char*> configs;
    std::vector<DecodeCase> cases;
  };
  const HeadDim dims[] = {
      {{"bn128_s4", "bn128_s4_short", "sliced_bn128_s4", "sliced_bn128_s4_short"},
       {{{0, 1, 37, 129}, 1, 8, 2, 64, 64, 16, true, {}},
        {{500}, 4, 16, 2, 64, 64, 48, true, {0.f, true, 100, 0.f}},
        {{33, 200}, 3, 4, 4, 64, 64, 203, false, {}}}},
      {{"bn64_s3_x2", "bn64_s4", "bn64_s3_x2_short", "bn64_s4_short", "bn32_s6_x2", "bn32_s6_x2_short",
        "sliced_bn64_s3_x2", "sliced_bn64_s3_x2_short", "sliced_bn64_s4"},
       {{{1, 17, 300}, 1, 32, 8, 128, 128, 16, true, {}},
        {{1000}, 8, 32, 2, 128, 128, 32, true, {}},
        {{130, 64}, 2, 8, 8, 128, 128, 200, false, {0.f, true, 50, 20.f}},
        {{4095, 0, 2}, 1, 8, 1, 128, 128, 64, true, {}},
        {{8200}, 1, 4, 1, 128, 128, 16, true, {}}}},  // more splits than the merge's tile of 32 (on the GPU)
  };
  const ClearForcedChoice clear{"fmha_decode"};
  for (const auto& dim : dims)
    for (const char* name : dim.configs) {
      SCOPED_TRACE(std::string("configuration ") + name);
      at::force("fmha_decode", name);
      for (DType dt : {DType::bf16, DType::f16})
        for (const auto& c : dim.cases)
          if (long_cases || c.lens[0] < 2000) check_fmha_decode(dev, backend, dt, c);
    }
}

}  // namespace tessera::testing

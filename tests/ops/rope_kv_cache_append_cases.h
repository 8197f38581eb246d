// Test cases of the fused RoPE + KV-cache append (attention family), for the host (tests/ops) and the GPU
// (tests/gpu): against rope and kv_cache_append run one after the other on the reference backend.
#pragma once
#include <gtest/gtest.h>

#include <cstring>

#include "common/test_util.h"
#include "ops/rope_cases.h"
#include "tessera/ops/attention.h"
#include "tessera/ops/rope.h"

namespace tessera::testing {

struct RopeAppendCase {
  int64_t tokens, hq, hkv, dk, dv, rotary;  // rotary 0: dk
  int64_t num_pages, page_size;
  RopeLayout layout;
  bool fused_rows;  // q, k and v as views into one [T, (hq + 2 hkv) * D] buffer, as the engine's qkv matmul writes
};

// One decode token of Llama-3 shapes, prime counts, partial rotary, Dk != Dv, the interleaved layout, many
// tokens (the 32-head blocks), and the engine's fused qkv rows.
inline const RopeAppendCase kRopeAppendCases[] = {
    {1, 32, 8, 128, 128, 0, 5, 16, RopeLayout::neox, true},     {3, 5, 1, 64, 64, 32, 3, 4, RopeLayout::interleaved, false},
    {37, 12, 4, 128, 128, 0, 6, 8, RopeLayout::neox, false},    {67, 40, 8, 128, 128, 0, 9, 16, RopeLayout::neox, true},
    {5, 4, 2, 256, 256, 64, 2, 5, RopeLayout::neox, false},     {6, 8, 2, 192, 128, 64, 3, 3, RopeLayout::interleaved, false},
    {9, 7, 7, 80, 80, 64, 4, 4, RopeLayout::neox, true}};

// A contiguous copy of any tensor, on its device (exact: every float dtype converts to f32 and back).
inline Tensor copy_of(const Tensor& t) { return from_floats(floats(t), t.shape(), t.dtype(), t.device()); }

inline void check_rope_kv_cache_append(Device dev, dispatch::Backend backend, DType dt, const RopeAppendCase& c, DType pdt) {
  SCOPED_TRACE(std::string(dtype_name(dt)) + " T " + std::to_string(c.tokens) + " heads " + std::to_string(c.hq) + "/" +
               std::to_string(c.hkv) + " D " + std::to_string(c.dk) + "/" + std::to_string(c.dv) + " rotary " +
               std::to_string(c.rotary) + (c.layout == RopeLayout::neox ? " neox" : " interleaved") +
               (c.fused_rows ? " fused rows" : "") + " positions " + std::string(dtype_name(pdt)));
  const int64_t T = c.tokens, capacity = c.num_pages * c.page_size, max_pos = 4096;
  Tensor q, k, v, qkv;
  if (c.fused_rows) {
    const int64_t W = (c.hq + 2 * c.hkv) * c.dk;  // the engine's layout: Dk == Dv
    qkv = random_tensor({T, W}, dt, dev);
    auto* base = static_cast<uint8_t*>(qkv.data());
    const size_t e = dtype_size(dt);
    q = Tensor::view(base, {T, c.hq, c.dk}, dt, dev, {W, c.dk, 1});
    k = Tensor::view(base + size_t(c.hq * c.dk) * e, {T, c.hkv, c.dk}, dt, dev, {W, c.dk, 1});
    v = Tensor::view(base + size_t((c.hq + c.hkv) * c.dk) * e, {T, c.hkv, c.dv}, dt, dev, {W, c.dv, 1});
  } else {
    q = random_tensor({T, c.hq, c.dk}, dt, dev);
    k = random_tensor({T, c.hkv, c.dk}, dt, dev);
    v = random_tensor({T, c.hkv, c.dv}, dt, dev);
  }
  const Tensor q_want = copy_of(q), k_want = copy_of(k);
  const Tensor pos = random_ints({T}, pdt, 0, max_pos - 1, dev);
  const int64_t rotary = c.rotary == 0 ? c.dk : c.rotary;
  const std::vector<float> freq = ops::rope_inv_freq(rotary, 10000.0);
  const Tensor inv_freq = from_floats(freq, {rotary / 2}, DType::f32, dev);
  // Distinct slots in scrambled order ((i * 7 + 3) mod capacity: distinct for i < capacity when gcd(7, capacity)
  // = 1), every fifth token skipped.
  ASSERT_LE(T, capacity);
  ASSERT_NE(capacity % 7, 0);
  std::vector<float> slot_values(static_cast<size_t>(T));
  for (int64_t i = 0; i < T; ++i) slot_values[size_t(i)] = i % 5 == 3 ? -1.f : float((i * 7 + 3) % capacity);
  const Tensor slots = from_floats(slot_values, {T}, DType::i64, dev);
  const Shape kp_shape{c.num_pages, c.page_size, c.hkv, c.dk}, vp_shape{c.num_pages, c.page_size, c.hkv, c.dv};
  const ops::KvCache cache{poisoned(kp_shape, dt, dev), poisoned(vp_shape, dt, dev), {}};
  const ops::KvCache cache_want{poisoned(kp_shape, dt, dev), poisoned(vp_shape, dt, dev), {}};

  const ops::Options ref{dispatch::Backend::reference};
  ops::rope(q_want, pos, inv_freq, q_want, c.layout, c.rotary, ref);
  ops::rope(k_want, pos, inv_freq, k_want, c.layout, c.rotary, ref);
  ops::kv_cache_append(k_want, v, cache_want, slots, ref);
  const Tensor v_before = copy_of(v);
  ops::rope_kv_cache_append(q, k, v, pos, inv_freq, c.layout, c.rotary, cache, slots, {backend});

  const Tolerance tol = rope_tolerance(dt, double(max_pos));
  EXPECT_TRUE(all_close(q, q_want, tol));
  EXPECT_TRUE(all_close(k, k_want, tol));
  EXPECT_TRUE(all_close(cache.k_pages, cache_want.k_pages, tol));  // untouched slots: NaN poison on both sides
  EXPECT_TRUE(all_equal(cache.v_pages, cache_want.v_pages));       // a copy, bit for bit
  EXPECT_TRUE(all_equal(copy_of(v), v_before));
}

inline void check_rope_kv_cache_append_all(Device dev, dispatch::Backend backend) {
  for (DType dt : kFloatDTypes)
    for (const auto& c : kRopeAppendCases)
      for (DType pdt : kPositionDTypes) check_rope_kv_cache_append(dev, backend, dt, c, pdt);
}

// Bad arguments are errors naming the tensor at fault, and nothing is written: q and k stay unrotated.
inline void check_rope_kv_cache_append_bad_input(Device dev, dispatch::Backend backend) {
  const ops::Options o{backend};
  const DType f = DType::f32;
  Tensor q = random_tensor({3, 4, 16}, f, dev), k = random_tensor({3, 2, 16}, f, dev), v = random_tensor({3, 2, 16}, f, dev);
  const Tensor q0 = copy_of(q), k0 = copy_of(k);
  const Tensor pos = random_ints({3}, DType::i32, 0, 100, dev);
  const Tensor inv = from_floats(ops::rope_inv_freq(16, 10000.0), {8}, f, dev);
  const ops::KvCache cache{poisoned({5, 4, 2, 16}, f, dev), poisoned({5, 4, 2, 16}, f, dev), {}};
  const Tensor slots = from_floats({0, -1, 19}, {3}, DType::i64, dev);
  auto call = [&](const Tensor& qq, const Tensor& kk, const Tensor& vv, const Tensor& pp, int64_t rotary, const ops::KvCache& cc,
                  const Tensor& ss) { ops::rope_kv_cache_append(qq, kk, vv, pp, inv, RopeLayout::neox, rotary, cc, ss, o); };
  expect_invalid_argument([&] { call(random_tensor({3, 4, 16}, DType::bf16, dev), k, v, pos, 0, cache, slots); }, "dtype");
  expect_invalid_argument([&] { call(q, random_tensor({3, 2, 8}, f, dev), v, pos, 0, cache, slots); }, "head_dim = 8");
  expect_invalid_argument([&] { call(q, k, v, random_ints({4}, DType::i32, 0, 9, dev), 0, cache, slots); }, "positions");
  expect_invalid_argument([&] { call(q, k, v, pos, 15, cache, slots); }, "rotary_dim");
  expect_invalid_argument([&] { call(q, k, random_tensor({3, 3, 16}, f, dev), pos, 0, cache, slots); }, "v is");
  expect_invalid_argument([&] { call(q, k, v, pos, 0, cache, from_floats({0, 1, 2}, {3}, DType::i32, dev)); }, "slots");
  if (dev.is_cpu()) expect_invalid_argument([&] { call(q, k, v, pos, 0, cache, from_floats({0, -1, 20}, {3}, DType::i64, dev)); }, "slots[2] = 20");
  EXPECT_TRUE(all_equal(q, q0));
  EXPECT_TRUE(all_equal(k, k0));
  for (float x : floats(cache.k_pages)) ASSERT_TRUE(std::isnan(x));
  for (float x : floats(cache.v_pages)) ASSERT_TRUE(std::isnan(x));
}

}  // namespace tessera::testing

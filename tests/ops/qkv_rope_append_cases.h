// Test cases of qkv_rope_kv_cache_append (attention family), for the host (tests/ops) and the GPU (tests/gpu):
// against the matmul and rope_kv_cache_append run one after the other on the reference backend, each of its
// configurations forced.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "common/test_util.h"
#include "ops/rope_cases.h"
#include "tessera/dispatch/autotune.h"
#include "tessera/ops/attention.h"
#include "tessera/ops/elementwise.h"
#include "tessera/ops/rope.h"

namespace tessera::testing {

struct QkvRopeCase {
  int64_t tokens, k, hq, hkv, d, rotary;  // rotary 0: d
  RopeLayout layout;
  bool bias;
  int64_t slot;       // the first token's slot (-1: not cached); the others follow it
  int64_t row_pad;    // qkv's rows this many elements wider than its columns (a window of a wider buffer)
};

// One token (the fused kernel): Llama's shape ratios, K off the 1024-wide weight tiles and over two of them,
// small and odd head dims (D = 6: pairs of one, only the one-pair form), both layouts, a bias, the token not
// cached, qkv a window of wider rows; K of whole 2048-column groups and K past one group and not a whole number
// of them (the default's two choices). Partial rotary and several tokens: the two ops, whatever is forced.
inline const QkvRopeCase kQkvRopeCases[] = {
    {1, 512, 8, 2, 128, 0, RopeLayout::neox, false, 21, 0},     {1, 300, 4, 2, 64, 0, RopeLayout::interleaved, true, 5, 8},
    {1, 2056, 5, 1, 32, 0, RopeLayout::neox, true, 0, 0},       {1, 77, 3, 3, 12, 0, RopeLayout::neox, false, 33, 0},
    {1, 64, 2, 1, 6, 0, RopeLayout::interleaved, true, 7, 0},   {1, 128, 4, 2, 16, 0, RopeLayout::neox, false, -1, 0},
    {1, 128, 4, 2, 64, 32, RopeLayout::neox, true, 3, 0},       {5, 200, 4, 2, 16, 0, RopeLayout::neox, true, 9, 4},
    {1, 4096, 4, 1, 64, 0, RopeLayout::neox, true, 50, 0},      {1, 3000, 2, 1, 32, 0, RopeLayout::interleaved, false, 2, 0}};

// settled: the call promises Options::weights_settled, and x is written by the kernel right before it (a cast into
// x, which held NaN): the one-token kernel asks for its first weight tiles before it waits for that kernel.
inline void check_qkv_rope_kv_cache_append(Device dev, dispatch::Backend backend, DType dt, const QkvRopeCase& c, DType pdt,
                                           bool settled = false) {
  SCOPED_TRACE(std::string(dtype_name(dt)) + " T " + std::to_string(c.tokens) + " K " + std::to_string(c.k) + " heads " +
               std::to_string(c.hq) + "/" + std::to_string(c.hkv) + " D " + std::to_string(c.d) + " rotary " +
               std::to_string(c.rotary) + (c.layout == RopeLayout::neox ? " neox" : " interleaved") + (c.bias ? " bias" : "") +
               " slot " + std::to_string(c.slot) + " row pad " + std::to_string(c.row_pad) + " positions " +
               std::string(dtype_name(pdt)) + (settled ? " weights settled" : ""));
  const int64_t T = c.tokens, N = (c.hq + 2 * c.hkv) * c.d, num_pages = 7, page_size = 8, max_pos = 4096;
  // Weights scaled so the projections stay O(1), as rope's tolerance assumes.
  const float w_range = 1.f / std::sqrt(float(c.k));
  const Tensor x_values = random_tensor({T, c.k}, DType::f32, dev), x = poisoned({T, c.k}, dt, dev);
  ops::cast(x_values, x, {dispatch::Backend::reference});
  const Tensor w = random_tensor({N, c.k}, dt, dev, -w_range, w_range);
  const Tensor bias = c.bias ? random_tensor({N}, dt, dev) : Tensor();
  const int64_t W = N + c.row_pad;
  const Tensor qkv_rows = poisoned({T, W}, dt, dev), want = poisoned({T, N}, dt, dev);
  const Tensor qkv = Tensor::view(qkv_rows.data(), {T, N}, dt, dev, {W, 1});
  const Tensor pos = random_ints({T}, pdt, 0, max_pos - 1, dev);
  const int64_t rotary = c.rotary == 0 ? c.d : c.rotary;
  const Tensor inv_freq = from_floats(ops::rope_inv_freq(rotary, 10000.0), {rotary / 2}, DType::f32, dev);
  std::vector<float> slot_values(static_cast<size_t>(T));
  for (int64_t i = 0; i < T; ++i) slot_values[size_t(i)] = c.slot < 0 ? -1.f : float((c.slot + 3 * i) % (num_pages * page_size));
  const Tensor slots = from_floats(slot_values, {T}, DType::i64, dev);
  const Shape pages{num_pages, page_size, c.hkv, c.d};
  const ops::KvCache cache{poisoned(pages, dt, dev), poisoned(pages, dt, dev), {}};
  const ops::KvCache cache_want{poisoned(pages, dt, dev), poisoned(pages, dt, dev), {}};

  ops::qkv_rope_kv_cache_append(x, w, bias, want, pos, inv_freq, c.layout, c.rotary, cache_want, slots,
                                {dispatch::Backend::reference});
  if (settled) {
    const Tensor poison = poisoned(x.shape(), dt, dev);
    copy_bytes(x.data(), dev, poison.data(), dev, size_t(x.nbytes()));
    ops::cast(x_values, x, {backend});
  }
  ops::qkv_rope_kv_cache_append(x, w, bias, qkv, pos, inv_freq, c.layout, c.rotary, cache, slots, {backend, nullptr, settled});

  // The reference rounds the projection before rotating it; the fused kernel rotates the fp32 sums.
  Tolerance tol = tolerance_for(dt);
  if (dt == DType::f32) tol = {1e-5 * std::sqrt(double(c.k)) + 1e-6, 1e-4};
  else tol = {2 * tol.abs, 2 * tol.rel};
  tol.abs += 2.5e-7 * double(max_pos);
  EXPECT_TRUE(all_close(qkv, want, tol));
  EXPECT_TRUE(all_close(cache.k_pages, cache_want.k_pages, tol));  // slots not written: NaN poison on both sides
  EXPECT_TRUE(all_close(cache.v_pages, cache_want.v_pages, tol));
  // Nothing written past qkv's columns.
  for (float v : floats(Tensor::view(static_cast<uint8_t*>(qkv_rows.data()) + size_t(N) * dtype_size(dt), {T, c.row_pad},
                                     dt, dev, {W, 1})))
    ASSERT_TRUE(std::isnan(v)) << "written past qkv's columns";
}

inline void check_qkv_rope_kv_cache_append_configs(Device dev, dispatch::Backend backend) {
  const ClearForcedChoice clear{"qkv_rope_kv_cache_append"};
  for (const char* name : {"", "unfused", "rows1_bi2_x2", "rows1_bi1_x4"}) {
    SCOPED_TRACE(std::string("configuration ") + (*name ? name : "(default)"));
    dispatch::autotune::force("qkv_rope_kv_cache_append", name);
    for (DType dt : kFloatDTypes)
      for (const auto& c : kQkvRopeCases) {
        if (std::string(name) == "rows1_bi2_x2" && c.d % 4 != 0) continue;  // no two pairs in a half head
        for (DType pdt : kPositionDTypes) check_qkv_rope_kv_cache_append(dev, backend, dt, c, pdt);
        if (std::string(name) != "unfused") check_qkv_rope_kv_cache_append(dev, backend, dt, c, kPositionDTypes[0], true);
      }
  }
}

// Bad arguments are errors naming the tensor at fault, and nothing is written.
inline void check_qkv_rope_kv_cache_append_bad_input(Device dev, dispatch::Backend backend) {
  const ops::Options o{backend};
  const DType f = DType::bf16;
  const int64_t K = 32, D = 16, N = (4 + 2 * 2) * D;
  const Tensor x = random_tensor({1, K}, f, dev), w = random_tensor({N, K}, f, dev);
  const Tensor qkv = poisoned({1, N}, f, dev);
  const Tensor pos = random_ints({1}, DType::i32, 0, 100, dev);
  const Tensor inv = from_floats(ops::rope_inv_freq(D, 10000.0), {D / 2}, DType::f32, dev);
  const ops::KvCache cache{poisoned({5, 4, 2, D}, f, dev), poisoned({5, 4, 2, D}, f, dev), {}};
  const Tensor slots = from_floats({3}, {1}, DType::i64, dev);
  auto call = [&](const Tensor& xx, const Tensor& ww, const Tensor& bb, const Tensor& out) {
    ops::qkv_rope_kv_cache_append(xx, ww, bb, out, pos, inv, RopeLayout::neox, 0, cache, slots, o);
  };
  expect_invalid_argument([&] { call(x, random_tensor({N, K + 1}, f, dev), {}, qkv); }, "inner dimensions");
  expect_invalid_argument([&] { call(x, random_tensor({N + D, K}, f, dev), {}, qkv); }, "(Hq + 2 Hkv) x D");
  expect_invalid_argument([&] { call(x, random_tensor({5 * D, K}, f, dev), {}, poisoned({1, 5 * D}, f, dev)); }, "multiple of Hkv");
  expect_invalid_argument([&] { call(x, w, {}, poisoned({1, N - 1}, f, dev)); }, "qkv");
  expect_invalid_argument([&] { call(x, w, random_tensor({N - 1}, f, dev), qkv); }, "bias");
  expect_invalid_argument([&] { call(x, random_tensor({N, K}, DType::f16, dev), {}, qkv); }, "dtypes differ");
  expect_invalid_argument([&] { call(random_tensor({1, K}, DType::f32, dev), w, {}, qkv); }, "dtypes differ");
  // x inside qkv's own row.
  const Tensor wide = poisoned({1, N + K}, f, dev);
  const Tensor inside = Tensor::view(wide.data(), {1, K}, f, dev, {N + K, 1});
  expect_invalid_argument([&] { call(inside, w, {}, Tensor::view(wide.data(), {1, N}, f, dev, {N + K, 1})); }, "overlap");
  if (dev.is_cpu())  // slots on a GPU are not read back: one outside the cache writes nothing there
    expect_invalid_argument(
        [&] { ops::qkv_rope_kv_cache_append(x, w, {}, qkv, pos, inv, RopeLayout::neox, 0, cache, from_floats({41}, {1}, DType::i64, dev), o); },
        "slots[0] = 41");
  for (float v : floats(qkv)) ASSERT_TRUE(std::isnan(v));
  for (float v : floats(cache.k_pages)) ASSERT_TRUE(std::isnan(v));
  for (float v : floats(cache.v_pages)) ASSERT_TRUE(std::isnan(v));
}

}  // namespace tessera::testing

// Test cases of matmul, instantiated for the host (tests/ops) and the GPU (tests/gpu).
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <span>
#include <utility>
#include <vector>

#include "common/test_util.h"
#include "tessera/dispatch/autotune.h"
#include "tessera/ops/elementwise.h"
#include "tessera/ops/matmul.h"

namespace tessera::testing {

struct MatmulShape {
  Shape a;
  int64_t n;
  int64_t rows() const {  // M: every dimension of a but the last
    int64_t m = 1;
    for (size_t d = 0; d + 1 < a.size(); ++d) m *= a[d];
    return m;
  }
};
inline const MatmulShape kMatmulShapes[] = {{{1, 1}, 1}, {{3, 7}, 5}, {{64, 32}, 64}, {{65, 97}, 130},
                                            {{2, 3, 64}, 31}, {{128, 256}, 96}, {{1, 300}, 257},
                                            // 16-byte aligned rows (the staged kernel): K not a multiple of
                                            // its 64-wide slices, M and N not multiples of its tiles
                                            {{67, 200}, 300}, {{257, 136}, 520},
                                            // skinny M with a long K: split over blocks
                                            {{5, 1024}, 100}, {{33, 776}, 264}};

inline Tolerance matmul_tolerance(DType in, DType out, int64_t k) {
  // Inputs are exact in the dtype; only accumulation order and the output rounding differ.
  Tolerance t = tolerance_for(out == DType::f32 ? in : out);
  if (out == DType::f32) t = {1e-5 * std::sqrt(double(k)) + 1e-6, 1e-4};
  return t;
}

inline void check_matmul(Device dev, dispatch::Backend backend, DType dt, DType out, const MatmulShape& s, ops::BLayout layout,
                         ops::Activation act, bool bias, bool residual, bool in_place) {
  SCOPED_TRACE(std::string(dtype_name(dt)) + "->" + std::string(dtype_name(out)) + " a" + shape_str(s.a) + " n=" +
               std::to_string(s.n) + (layout == ops::BLayout::kn ? " kn" : " nk") + " act=" + std::to_string(int(act)) +
               (bias ? " bias" : "") + (residual ? " residual" : "") + (in_place ? " in-place" : ""));
  const int64_t k = s.a.back();
  Shape cs = s.a;
  cs.back() = s.n;
  Tensor a = random_tensor(s.a, dt, dev);
  Tensor b = layout == ops::BLayout::nk ? random_tensor({s.n, k}, dt, dev) : random_tensor({k, s.n}, dt, dev);
  ops::Epilogue e;
  e.activation = act;
  e.alpha = act == ops::Activation::none ? 1.f : 0.75f;
  if (bias) e.bias = random_tensor({s.n}, dt, dev);
  Tensor c = poisoned(cs, out, dev), c_ref = poisoned(cs, out, dev);
  if (residual) {
    Tensor r = random_tensor(cs, out, dev);
    if (in_place) {
      c.copy_from(r);
      c_ref.copy_from(r);
    } else {
      e.residual = r;
    }
  }
  ops::Epilogue e_ref = e;
  if (in_place) { e.residual = c; e_ref.residual = c_ref; }
  ops::matmul(a, b, c, layout, e, {backend});
  ops::matmul(a, b, c_ref, layout, e_ref, {dispatch::Backend::reference});
  EXPECT_TRUE(all_close(c, c_ref, matmul_tolerance(dt, out, k)));
}

inline void check_matmul_sweep(Device dev, dispatch::Backend backend) {
  using ops::Activation;
  for (DType dt : kFloatDTypes)
    for (const auto& s : kMatmulShapes)
      for (auto layout : {ops::BLayout::nk, ops::BLayout::kn}) check_matmul(dev, backend, dt, dt, s, layout, Activation::none, false, false, false);
  for (DType dt : {DType::f16, DType::bf16}) check_matmul(dev, backend, dt, DType::f32, kMatmulShapes[3], ops::BLayout::nk, Activation::none, true, false, false);
  for (auto act : {Activation::gelu, Activation::gelu_tanh, Activation::silu, Activation::relu})
    check_matmul(dev, backend, DType::bf16, DType::bf16, kMatmulShapes[3], ops::BLayout::nk, act, true, false, false);
  check_matmul(dev, backend, DType::f32, DType::f32, kMatmulShapes[4], ops::BLayout::nk, Activation::none, true, true, false);
  check_matmul(dev, backend, DType::bf16, DType::bf16, kMatmulShapes[7], ops::BLayout::nk, Activation::silu, true, true, false);
  check_matmul(dev, backend, DType::f16, DType::f16, kMatmulShapes[8], ops::BLayout::nk, Activation::none, false, true, true);
  check_matmul(dev, backend, DType::bf16, DType::f32, kMatmulShapes[8], ops::BLayout::nk, Activation::gelu_tanh, true, true, false);
  check_matmul(dev, backend, DType::bf16, DType::bf16, kMatmulShapes[3], ops::BLayout::kn, Activation::none, false, true, true);
  check_matmul(dev, backend, DType::bf16, DType::bf16, kMatmulShapes[9], ops::BLayout::nk, Activation::gelu, true, true, false);
  check_matmul(dev, backend, DType::f16, DType::f32, kMatmulShapes[10], ops::BLayout::nk, Activation::none, true, true, true);
}

// Skinny products split K over blocks, the last split of each tile finishing it: repeated calls (which reuse
// the per-tile arrival counters) give bit-identical results whichever split arrives last, with and without
// an epilogue that reads the output (in-place residual).
inline void check_matmul_split_k_repeatable(Device dev, dispatch::Backend backend) {
  for (const MatmulShape& s : {MatmulShape{{3, 2048}, 384}, MatmulShape{{61, 4096}, 136}}) {
    SCOPED_TRACE(std::string("a") + shape_str(s.a) + " n=" + std::to_string(s.n));
    const int64_t m = s.a[0], k = s.a[1];
    Tensor a = random_tensor(s.a, DType::bf16, dev), b = random_tensor({s.n, k}, DType::bf16, dev);
    Tensor first = poisoned({m, s.n}, DType::bf16, dev), want = poisoned({m, s.n}, DType::bf16, dev);
    ops::matmul(a, b, first, ops::BLayout::nk, {}, {backend});
    ops::matmul(a, b, want, ops::BLayout::nk, {}, {dispatch::Backend::reference});
    EXPECT_TRUE(all_close(first, want, matmul_tolerance(DType::bf16, DType::bf16, k)));
    for (int rep = 0; rep < 3; ++rep) {
      Tensor again = poisoned({m, s.n}, DType::bf16, dev);
      ops::matmul(a, b, again, ops::BLayout::nk, {}, {backend});
      EXPECT_TRUE(all_equal(again, first)) << "repeat " << rep;
    }
    // c += a @ b^T in place, twice: each call must see the previous call's finished output.
    Tensor c = random_tensor({m, s.n}, DType::bf16, dev), c_ref = poisoned({m, s.n}, DType::bf16, dev);
    c_ref.copy_from(c);
    for (int rep = 0; rep < 2; ++rep) {
      ops::Epilogue e, e_ref;
      e.residual = c;
      e_ref.residual = c_ref;
      ops::matmul(a, b, c, ops::BLayout::nk, e, {backend});
      ops::matmul(a, b, c_ref, ops::BLayout::nk, e_ref, {dispatch::Backend::reference});
    }
    EXPECT_TRUE(all_close(c, c_ref, matmul_tolerance(DType::bf16, DType::bf16, k)));
  }
}

// Each named configuration forced through the autotuner: every shape plain in bf16 and in f16 with silu, a bias
// and a residual; then bf16 -> f32 with gelu and a bias (shapes[1]), f16 -> f32 with the residual in place
// (shapes[4]), gelu_tanh with the residual in place (shapes[5]) and relu with a bias (shapes[0]).
inline void check_forced_matmul_configs(Device dev, dispatch::Backend backend, std::span<const char* const> names,
                                        std::span<const MatmulShape> shapes) {
  namespace at = dispatch::autotune;
  using ops::Activation;
  ASSERT_GE(shapes.size(), 6u);
  const ClearForcedChoice clear{"matmul"};
  for (const char* name : names) {
    SCOPED_TRACE(std::string("configuration ") + name);
    at::force("matmul", name);
    for (const auto& s : shapes) {
      check_matmul(dev, backend, DType::bf16, DType::bf16, s, ops::BLayout::nk, Activation::none, false, false, false);
      check_matmul(dev, backend, DType::f16, DType::f16, s, ops::BLayout::nk, Activation::silu, true, true, false);
    }
    check_matmul(dev, backend, DType::bf16, DType::f32, shapes[1], ops::BLayout::nk, Activation::gelu, true, false, false);
    check_matmul(dev, backend, DType::f16, DType::f32, shapes[4], ops::BLayout::nk, Activation::none, true, true, true);
    check_matmul(dev, backend, DType::bf16, DType::bf16, shapes[5], ops::BLayout::nk, Activation::gelu_tanh, true, true, true);
    check_matmul(dev, backend, DType::bf16, DType::bf16, shapes[0], ops::BLayout::nk, Activation::relu, true, false, false);
  }
}

// Every swap-AB configuration (the decode kernel, M <= 64), forced through the autotuner: M from 1 to 64 (each
// padding width: 16, 32, 64), N not a multiple of the weight tiles, K not a multiple of their slices, K long
// enough to be split over blocks, every epilogue, 16- and 32-bit outputs. Outputs start poisoned.
inline void check_matmul_swapab_configs(Device dev, dispatch::Backend backend) {
  const MatmulShape shapes[] = {{{1, 72}, 200},     {{2, 1024}, 100},   {{7, 776}, 4099}, {{16, 4096}, 136},
                                {{33, 520}, 264},   {{64, 2048}, 96},   {{2, 3, 256}, 130}, {{17, 8}, 65}};
  const char* const names[] = {"swapab_bw128_bk64", "swapab_bw64_bk128", "swapab_bw128_bk64_reduce", "swapab_bw64_bk128_wave",
                               "swapab_bw64_bk128_streamk"};
  check_forced_matmul_configs(dev, backend, names, shapes);
}

// Every few-rows configuration (decode at batch 1 to 4), forced through the autotuner: one row, and 2-4 rows
// padded to 4; N of 1, primes and off the weight tiles; K below one 1024-wide weight tile, off it and several
// tiles long, unaligned rows (K odd) included; every epilogue; 16- and 32-bit outputs, the residual in place.
inline void check_matmul_few_rows_configs(Device dev, dispatch::Backend backend) {
  namespace at = dispatch::autotune;
  using ops::Activation;
  struct Configs {
    std::vector<const char*> names;
    std::vector<MatmulShape> shapes;
  };
  const Configs configs[] = {
      {{"rows1_bn4_x2", "rows1_bn2_x4", "rows1_bn4_x2_chunked"}, {{{1, 72}, 200}, {{1, 8}, 1}, {{1, 4099}, 131}, {{1, 3000}, 2051}, {{1, 1, 520}, 7}, {{1, 77}, 5}, {{1, 4096}, 67}}},
      {{"rows4_bn1_x2"}, {{{2, 72}, 200}, {{3, 1000}, 131}, {{4, 2056}, 33}, {{2, 2, 264}, 130}, {{4, 13}, 3}, {{3, 4096}, 5}}},
  };
  const ClearForcedChoice clear{"matmul"};
  for (const auto& group : configs)
    for (const char* name : group.names) {
      SCOPED_TRACE(std::string("configuration ") + name);
      at::force("matmul", name);
      for (const auto& s : group.shapes) {
        check_matmul(dev, backend, DType::bf16, DType::bf16, s, ops::BLayout::nk, Activation::none, false, false, false);
        check_matmul(dev, backend, DType::f16, DType::f16, s, ops::BLayout::nk, Activation::silu, true, true, false);
      }
      const MatmulShape& s = group.shapes[0];
      check_matmul(dev, backend, DType::bf16, DType::f32, s, ops::BLayout::nk, Activation::gelu, true, false, false);
      check_matmul(dev, backend, DType::bf16, DType::f32, group.shapes[2], ops::BLayout::nk, Activation::none, false, true, true);
      check_matmul(dev, backend, DType::f16, DType::f32, group.shapes[3], ops::BLayout::nk, Activation::none, true, true, true);
      check_matmul(dev, backend, DType::bf16, DType::bf16, s, ops::BLayout::nk, Activation::gelu_tanh, true, true, true);
      check_matmul(dev, backend, DType::bf16, DType::bf16, s, ops::BLayout::nk, Activation::relu, true, false, false);
    }
}

// C as a column window of a wider buffer (rows 16-byte aligned, as a slice of a fused output is): every staged
// configuration, forced, writes the window exactly and nothing of the buffer around it. The window's width is
// a whole number of 16-byte pieces (the copy engine stores it) or not (the copy engine would write past each
// row's end: the kernel stores from registers).
inline const std::vector<const char*> kHopperStagedConfigs = {
    "staged_bm128_bn256", "staged_bm128_bn128", "staged_bm64_bn128", "staged_pingpong_bm128_bn128",
    "staged_pingpong_bm128_bn128_c2", "staged_bm64_bn64_c2", "staged_bm128_bn256_c2", "staged_bm128_bn64"};
// The staged kernel on the sm_80 pipeline (GPUs before Hopper; all of them on the host).
inline const std::vector<const char*> kSm80StagedConfigs = {"sm80_bm128_bn128_s4", "sm80_bm128_bn128_s3", "sm80_bm64_bn128_s4"};

inline void check_matmul_into_column_window(Device dev, dispatch::Backend backend,
                                            const std::vector<const char*>& configs = kHopperStagedConfigs) {
  namespace at = dispatch::autotune;
  const int64_t m = 200, k = 136;
  const ClearForcedChoice clear{"matmul"};
  for (const char* name : configs) {
    at::force("matmul", name);
    for (DType out : {DType::bf16, DType::f32})
      for (int64_t n : {int64_t(136), int64_t(133), int64_t(9)}) {
        SCOPED_TRACE(std::string("configuration ") + name + ", " + std::string(dtype_name(out)) + " C " + std::to_string(m) +
                     " x " + std::to_string(n) + " in a 16-byte aligned buffer of " + std::to_string(n + 11) + "+ columns");
        const int64_t per_piece = 16 / int64_t(dtype_size(out)), stride = (n + 11 + per_piece - 1) / per_piece * per_piece;
        Tensor a = random_tensor({m, k}, DType::bf16, dev), b = random_tensor({n, k}, DType::bf16, dev);
        Tensor buffer = poisoned({m, stride}, out, dev), want = poisoned({m, n}, out, dev);
        Tensor c = Tensor::view(buffer.data(), {m, n}, out, dev, {stride, 1});
        ops::matmul(a, b, c, ops::BLayout::nk, {}, {backend});
        ops::matmul(a, b, want, ops::BLayout::nk, {}, {dispatch::Backend::reference});
        const std::vector<float> got = floats(buffer.to(Device::cpu())), ref = floats(want.to(Device::cpu()));
        int64_t wrong = 0, written_outside = 0;
        const Tolerance tol = matmul_tolerance(DType::bf16, out, k);
        for (int64_t r = 0; r < m; ++r)
          for (int64_t col = 0; col < stride; ++col) {
            const float g = got[size_t(r * stride + col)];
            if (col >= n) written_outside += !std::isnan(g);
            else wrong += !(std::abs(g - ref[size_t(r * n + col)]) <= tol.abs + tol.rel * std::abs(ref[size_t(r * n + col)]));
          }
        EXPECT_EQ(wrong, 0) << "elements of C off the reference";
        EXPECT_EQ(written_outside, 0) << "elements written past C's columns";
      }
  }
}

// Every configuration of the staged kernel on the sm_80 pipeline, forced: M, N and K off the tiles and the
// 64-wide k slices, one row and one tile, K split over blocks (skinny M, long K), a batch of rows, every
// epilogue, 16- and 32-bit outputs, the residual in place. Outputs start poisoned.
inline void check_matmul_sm80_staged_configs(Device dev, dispatch::Backend backend) {
  const MatmulShape shapes[] = {{{67, 200}, 300}, {{257, 136}, 520}, {{1, 72}, 9},    {{5, 1024}, 100},
                                {{33, 776}, 264}, {{130, 4104}, 136}, {{2, 3, 256}, 130}, {{128, 64}, 128}};
  check_forced_matmul_configs(dev, backend, kSm80StagedConfigs, shapes);
}

inline void check_matmul_bad_input(Device dev, dispatch::Backend backend) {
  Tensor a = random_tensor({4, 8}, DType::f32, dev), b = random_tensor({6, 8}, DType::f32, dev);
  Tensor c = poisoned({4, 6}, DType::f32, dev);
  const ops::Options o{backend};
  expect_invalid_argument([&] { ops::matmul(a, random_tensor({6, 7}, DType::f32, dev), c, ops::BLayout::nk, {}, o); }, "inner dimensions");
  expect_invalid_argument([&] { ops::matmul(a, b, poisoned({4, 5}, DType::f32, dev), ops::BLayout::nk, {}, o); }, "expected shape");
  expect_invalid_argument([&] { ops::matmul(a, random_tensor({6, 8}, DType::bf16, dev), c, ops::BLayout::nk, {}, o); }, "dtypes differ");
  ops::Epilogue wrong_bias;
  wrong_bias.bias = random_tensor({5}, DType::f32, dev);
  expect_invalid_argument([&] { ops::matmul(a, b, c, ops::BLayout::nk, wrong_bias, o); }, "bias");
  expect_invalid_argument([&] { ops::matmul(a, b, c, ops::BLayout(7), {}, o); }, "b_layout");
  ops::Epilogue bad_act;
  bad_act.activation = ops::Activation(42);
  expect_invalid_argument([&] { ops::matmul(a, b, c, ops::BLayout::nk, bad_act, o); }, "activation");
  for (float v : floats(c)) ASSERT_TRUE(std::isnan(v));
}

// c = silu(g) * u where g and u are products that `tol` bounds. Their errors reach c multiplied by the other
// factor and by silu's slope, |silu(g)| e_u + |silu'(g) u| e_g, which can be tens of times `tol` where g or u is
// large and c is not; a fixed tolerance on c fails at random there (fp32 with K = 1000 did, once in ~40 seeds).
inline ::testing::AssertionResult glu_close(const Tensor& c, const Tensor& c_ref, const Tensor& a, const Tensor& w,
                                            Tolerance tol) {
  const int64_t n = c.size(-1), m = c.numel() / n;
  Tensor products = Tensor::empty({m, 2 * n}, DType::f32, Device::cpu());  // [g | u], the reference's products
  ops::matmul(a.reshape({m, a.size(-1)}).to(Device::cpu()), w.to(Device::cpu()), products, ops::BLayout::nk, {},
              {dispatch::Backend::reference});
  const auto got = floats(c), want = floats(c_ref), gu = floats(products);
  int64_t bad = 0, first = -1;
  double first_bound = 0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const double g = gu[size_t(i * 2 * n + j)], u = gu[size_t(i * 2 * n + n + j)];
      const double sigmoid = 1 / (1 + std::exp(-g)), silu = g * sigmoid, slope = sigmoid * (1 + g * (1 - sigmoid));
      const double want_ij = want[size_t(i * n + j)], got_ij = got[size_t(i * n + j)];
      const double bound = std::abs(silu) * (tol.abs + tol.rel * std::abs(u)) +
                           std::abs(slope * u) * (tol.abs + tol.rel * std::abs(g)) + tol.abs + tol.rel * std::abs(want_ij);
      if (!(std::abs(got_ij - want_ij) <= bound) && !bad++) first = i * n + j, first_bound = bound;
    }
  if (!bad) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " of " << m * n << " elements off; first at " << first << ": got "
                                       << got[size_t(first)] << ", want " << want[size_t(first)] << ", bound " << first_bound;
}

// matmul_silu_and_mul: c = silu(a @ Wg^T) * (a @ Wu^T), against the reference, for each of its configurations
// forced and the default choice. Up to 64 rows (decode): the swap-AB kernel at each padding width of M, I not a
// multiple of its weight tiles, K long enough to be split over blocks and not a multiple of its slices. Past 64
// (prefill): the staged kernel's tiles, M, I and K not multiples of them, one tile and several per block. Both:
// the unfused path with and without a scratch; 16-bit and 32-bit inputs. Outputs start poisoned.
inline void check_matmul_silu_and_mul(Device dev, dispatch::Backend backend) {
  namespace at = dispatch::autotune;
  struct Case { Shape a; int64_t i; };
  const Case decode[] = {{{1, 64}, 1},    {{1, 72}, 200},   {{5, 1000}, 130}, {{16, 4096}, 33},
                         {{33, 520}, 96}, {{64, 2048}, 65}, {{2, 3, 256}, 130}};
  const Case prefill[] = {{{67, 200}, 72}, {{129, 1000}, 130}, {{300, 64}, 257}, {{2, 100, 136}, 64}};
  auto check = [&](DType dt, const Case& cs, bool with_scratch) {
    SCOPED_TRACE(std::string(dtype_name(dt)) + " a" + shape_str(cs.a) + " I=" + std::to_string(cs.i) +
                 (with_scratch ? " scratch" : ""));
    const int64_t k = cs.a.back();
    Shape out = cs.a, wide = cs.a;
    out.back() = cs.i;
    wide.back() = 2 * cs.i;
    Tensor a = random_tensor(cs.a, dt, dev), w = random_tensor({2 * cs.i, k}, dt, dev);
    Tensor c = poisoned(out, dt, dev), c_ref = poisoned(out, dt, dev);
    const Tensor scratch = with_scratch ? poisoned(wide, dt, dev) : Tensor();
    ops::matmul_silu_and_mul(a, w, c, scratch, {backend});
    ops::matmul_silu_and_mul(a, w, c_ref, {}, {dispatch::Backend::reference});
    // The unfused path rounds the product to the dtype before silu_and_mul: two roundings more than the fused.
    Tolerance tol = matmul_tolerance(dt, dt, k);
    if (dt != DType::f32) tol = {tol.abs * 3, tol.rel * 3};
    EXPECT_TRUE(glu_close(c, c_ref, a, w, tol));
  };
  const ClearForcedChoice clear{"matmul_silu_and_mul"};
  // The swap-AB and staged configurations are the Hopper kernels'.
  const bool hopper = backend != dispatch::Backend::tile_cuda || cuda_hopper_kernels();
  // One row on the GPU never runs unfused (the fused few-rows kernel is its only form there).
  auto offered = [&](const char* name, const Case& cs) {
    int64_t rows = 1;
    for (size_t d = 0; d + 1 < cs.a.size(); ++d) rows *= cs.a[d];
    return !(std::string(name) == "unfused" && rows == 1 && backend == dispatch::Backend::tile_cuda);
  };
  auto each_configuration = [&](std::initializer_list<const char*> names, std::span<const Case> cases) {
    for (const char* name : names) {
      if (!hopper && std::string(name) != "unfused" && *name != '\0') continue;
      SCOPED_TRACE(std::string("configuration ") + (*name ? name : "(default)"));
      at::force("matmul_silu_and_mul", name);
      for (const auto& cs : cases)
        if (offered(name, cs)) check(DType::bf16, cs, std::string(name) == "unfused");
      if (offered(name, cases[1])) check(DType::f16, cases[1], false);
      if (offered(name, cases.back())) check(DType::f16, cases.back(), true);
    }
  };
  each_configuration({"swapab_bw64_bk128", "swapab_bw128_bk64", "swapab_bw64_bk128_streamk", "unfused", ""}, decode);
  // One row: the few-rows candidates too (listed for one row only). K off the 1024-column tile and its groups.
  const Case one_row[] = {{{1, 64}, 1}, {{1, 72}, 200}, {{1, 4099}, 131}, {{1, 1, 3000}, 7}, {{1, 2048}, 33}};
  each_configuration({"rows1_bi2_x2", "rows1_bi1_x4", ""}, one_row);
  each_configuration({"staged_bm128_bi128", "staged_bm128_bi64", "staged_pingpong_bm128_bi64", "unfused", ""}, prefill);
  check(DType::f32, decode[2], true);
  check(DType::f32, decode[0], false);
  check(DType::f32, prefill[1], false);
}

inline void check_matmul_silu_and_mul_bad_input(Device dev, dispatch::Backend backend) {
  Tensor a = random_tensor({4, 8}, DType::f32, dev), w = random_tensor({6, 8}, DType::f32, dev);
  Tensor c = poisoned({4, 3}, DType::f32, dev);
  const ops::Options o{backend};
  expect_invalid_argument([&] { ops::matmul_silu_and_mul(a, random_tensor({6, 7}, DType::f32, dev), c, {}, o); },
                          "inner dimensions");
  expect_invalid_argument([&] { ops::matmul_silu_and_mul(a, random_tensor({5, 8}, DType::f32, dev), poisoned({4, 2}, DType::f32, dev), {}, o); },
                          "even");
  expect_invalid_argument([&] { ops::matmul_silu_and_mul(a, w, poisoned({4, 6}, DType::f32, dev), {}, o); }, "expected shape");
  expect_invalid_argument([&] { ops::matmul_silu_and_mul(a, random_tensor({6, 8}, DType::bf16, dev), c, {}, o); }, "dtypes differ");
  expect_invalid_argument([&] { ops::matmul_silu_and_mul(a, w, c, poisoned({4, 3}, DType::f32, dev), o); }, "scratch");
  expect_invalid_argument([&] { ops::matmul_silu_and_mul(a, w, c, poisoned({4, 6}, DType::bf16, dev), o); }, "scratch");
  expect_invalid_argument([&] { ops::matmul_silu_and_mul(a, w, Tensor(), {}, o); }, "c");
  for (float v : floats(c)) ASSERT_TRUE(std::isnan(v));
}

// The one-row projections with Options::weights_settled, right after the kernel that writes their activations
// (a cast into `a`, which held NaN before it): they ask for their first weight tiles before they wait for that
// kernel, and must read `a` only after it. The few-rows configurations of matmul (with a residual) and of
// matmul_silu_and_mul, forced; K shorter and longer than the tiles asked for early (2 x 1024 or 4 x 1024
// columns); three rounds each. `large` adds the shapes of a decode projection (slow on the host).
inline void check_few_rows_with_settled_weights(Device dev, dispatch::Backend backend, bool large) {
  namespace at = dispatch::autotune;
  const DType dt = DType::bf16;
  const ops::Options settled{backend, nullptr, true}, reference{dispatch::Backend::reference};
  // The activations as the reference sees them, and `a`, which each round poisons and then casts them into.
  struct Activations {
    Tensor values, want, a, poison;
  };
  const auto activations = [&](int64_t k) {
    Activations x{random_tensor({1, k}, DType::f32, dev, -2, 2), poisoned({1, k}, dt, dev), poisoned({1, k}, dt, dev),
                  poisoned({1, k}, dt, dev)};
    ops::cast(x.values, x.want, reference);
    return x;
  };
  const auto rounds = [&](const Activations& x, const auto& call) {
    for (int round = 0; round < 3; ++round) {
      SCOPED_TRACE("round " + std::to_string(round));
      copy_bytes(x.a.data(), dev, x.poison.data(), dev, size_t(x.a.nbytes()));
      ops::cast(x.values, x.a, {backend});
      call();
    }
  };
  std::vector<std::pair<int64_t, int64_t>> shapes = {{3000, 72}, {1000, 5}, {4100, 3}};  // K, N (or I)
  if (large) shapes.insert(shapes.end(), {{4096, 4096}, {8200, 130}});
  {
    const ClearForcedChoice clear{"matmul"};
    for (const char* name : {"rows1_bn4_x2", "rows1_bn2_x4", "rows1_bn4_x2_chunked"})
      for (const auto& [k, n] : shapes) {
        SCOPED_TRACE(std::string(name) + " K " + std::to_string(k) + " N " + std::to_string(n));
        at::force("matmul", name);
        const Activations x = activations(k);
        const Tensor b = random_tensor({n, k}, dt, dev), want = poisoned({1, n}, dt, dev);
        ops::Epilogue e;
        e.residual = random_tensor({1, n}, dt, dev);
        ops::matmul(x.want, b, want, ops::BLayout::nk, e, reference);
        rounds(x, [&] {
          const Tensor c = poisoned({1, n}, dt, dev);
          ops::matmul(x.a, b, c, ops::BLayout::nk, e, settled);
          EXPECT_TRUE(all_close(c, want, matmul_tolerance(dt, dt, k)));
        });
      }
  }
  const ClearForcedChoice clear{"matmul_silu_and_mul"};
  for (const char* name : {"rows1_bi2_x2", "rows1_bi1_x4"})
    for (const auto& [k, i] : shapes) {
      SCOPED_TRACE(std::string(name) + " K " + std::to_string(k) + " I " + std::to_string(i));
      at::force("matmul_silu_and_mul", name);
      const Activations x = activations(k);
      const Tensor w = random_tensor({2 * i, k}, dt, dev), want = poisoned({1, i}, dt, dev);
      ops::matmul_silu_and_mul(x.want, w, want, {}, reference);
      rounds(x, [&] {
        const Tensor c = poisoned({1, i}, dt, dev);
        ops::matmul_silu_and_mul(x.a, w, c, {}, settled);
        EXPECT_TRUE(glu_close(c, want, x.want, w, matmul_tolerance(dt, dt, k)));
      });
    }
}

}  // namespace tessera::testing

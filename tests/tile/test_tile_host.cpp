// The host tile library (the specification of every tile operation) on small inputs with hand-computed
// expectations.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <limits>
#include <sstream>
#include <vector>

#include "tessera/tile/host.h"

namespace tessera::tile {
namespace {

namespace th = tessera::tile::host;
using th::Tile;

constexpr float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

template <class T, int R, int C>
Tile<T, R, C> make(std::initializer_list<T> values) {
  Tile<T, R, C> t;
  EXPECT_EQ(values.size(), size_t(R * C));
  int i = 0;
  for (T v : values) t.v[i++] = v;
  return t;
}

template <class T>
bool same(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
    return a == b && std::signbit(a) == std::signbit(b);
  } else {
    return a == b;
  }
}

// Exact equality (NaN equals NaN), reporting the first differing element.
template <class T, int R, int C>
::testing::AssertionResult tile_eq(const Tile<T, R, C>& got, std::initializer_list<double> want) {
  if (want.size() != size_t(R * C)) return ::testing::AssertionFailure() << "expected " << want.size() << " values";
  int i = 0;
  for (double w : want) {
    if (!same(got.v[i], T(w)))
      return ::testing::AssertionFailure() << "element (" << i / C << ", " << i % C << ") of " << R << "x" << C
                                           << ": got " << got.v[i] << ", want " << T(w);
    ++i;
  }
  return ::testing::AssertionSuccess();
}

View2<float> view_of(std::vector<float>& buf, int64_t rows, int64_t cols, int64_t row_stride, int64_t col_stride = 1,
                     int64_t offset = 0) {
  View2<float> v;
  v.data = buf.data() + offset;
  v.extent[0] = rows; v.extent[1] = cols;
  v.stride[0] = row_stride; v.stride[1] = col_stride;
  return v;
}

// 5 x 7 matrix, element (r, c) = 10 r + c.
std::vector<float> matrix57() {
  std::vector<float> m(35);
  for (int r = 0; r < 5; ++r)
    for (int c = 0; c < 7; ++c) m[r * 7 + c] = float(10 * r + c);
  return m;
}

const th::Block blk{};

// ---- creation ----

TEST(TileHost, FullZerosArangeFullLike) {
  EXPECT_TRUE(tile_eq(th::full<float, 2, 3>(blk, 1.5f), {1.5f, 1.5f, 1.5f, 1.5f, 1.5f, 1.5f}));
  EXPECT_TRUE(tile_eq(th::zeros<int, 1, 4>(blk), {0, 0, 0, 0}));
  EXPECT_TRUE(tile_eq(th::full<float, 1, 2>(blk, -kInf), {-kInf, -kInf}));
  EXPECT_TRUE(tile_eq(th::arange<3, 4>(blk, 0), {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2}));
  EXPECT_TRUE(tile_eq(th::arange<3, 4>(blk, 1), {0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3}));
  EXPECT_TRUE(tile_eq(th::arange<1, 1>(blk, 1), {0}));
  const auto like = th::full_like(th::zeros<int, 2, 2>(blk), 2.5f);
  static_assert(std::is_same_v<decltype(like), const Tile<float, 2, 2>>);
  EXPECT_TRUE(tile_eq(like, {2.5f, 2.5f, 2.5f, 2.5f}));
  const auto b = th::full<bf16, 1, 2>(blk, from_float<bf16>(3.f));
  EXPECT_EQ(b.v[1].bits, from_float<bf16>(3.f).bits);
}

// ---- load ----

TEST(TileHost, LoadInsideAndAtEveryEdge) {
  auto m = matrix57();
  const auto v = view_of(m, 5, 7, 7);
  EXPECT_TRUE(tile_eq(th::load<2, 3>(blk, v, {1, 2}), {12, 13, 14, 22, 23, 24}));
  // bottom-right corner: rows 3, 4 and cols 5, 6 exist
  EXPECT_TRUE(tile_eq(th::load<4, 4>(blk, v, {3, 5}, -1.f),
                      {35, 36, -1, -1, 45, 46, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1}));
  // top-left, negative coordinates
  EXPECT_TRUE(tile_eq(th::load<3, 4>(blk, v, {-2, -3}, -1.f), {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0}));
  EXPECT_TRUE(tile_eq(th::load<2, 2>(blk, v, {-1, 6}, 9.f), {9, 9, 6, 9}));
  EXPECT_TRUE(tile_eq(th::load<2, 2>(blk, v, {4, -1}, 9.f), {9, 40, 9, 9}));
  // entirely outside: all padding, default pad 0
  EXPECT_TRUE(tile_eq(th::load<1, 2>(blk, v, {5, 0}), {0, 0}));
  EXPECT_TRUE(tile_eq(th::load<1, 2>(blk, v, {0, 7}), {0, 0}));
  EXPECT_TRUE(tile_eq(th::load<1, 2>(blk, v, {-1, -2}, kNaN), {kNaN, kNaN}));
  // an empty view reads only padding
  EXPECT_TRUE(tile_eq(th::load<1, 2>(blk, view_of(m, 0, 7, 7), {0, 0}, 5.f), {5, 5}));
  // a tile wider and taller than the whole view
  const auto big = th::load<8, 8>(blk, v, {0, 0}, -1.f);
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 8; ++c) ASSERT_EQ(big(r, c), r < 5 && c < 7 ? float(10 * r + c) : -1.f) << r << "," << c;
}

TEST(TileHost, LoadStridedAndWindowedViews) {
  auto m = matrix57();
  // Every second column: view column j is matrix column 2 j (0, 2, 4, 6).
  const auto cols2 = view_of(m, 5, 4, 7, 2);
  EXPECT_TRUE(tile_eq(th::load<2, 4>(blk, cols2, {1, 1}, -1.f), {12, 14, 16, -1, 22, 24, 26, -1}));
  EXPECT_TRUE(tile_eq(th::load<1, 4>(blk, cols2, {4, -2}, -1.f), {-1, -1, 40, 42}));
  // Every second row and a transposed view (row stride 1, column stride 7).
  EXPECT_TRUE(tile_eq(th::load<3, 2>(blk, view_of(m, 3, 7, 14), {0, 0}), {0, 1, 20, 21, 40, 41}));
  EXPECT_TRUE(tile_eq(th::load<2, 5>(blk, view_of(m, 7, 5, 1, 7), {5, 0}, -1.f), {5, 15, 25, 35, 45, 6, 16, 26, 36, 46}));
  // Windows clip their extents to the parent.
  const auto w = view_of(m, 5, 7, 7).window(3, 4, 4, 4);
  EXPECT_EQ(w.extent[0], 2);
  EXPECT_EQ(w.extent[1], 3);
  EXPECT_TRUE(tile_eq(th::load<2, 4>(blk, w, {0, 0}, -1.f), {34, 35, 36, -1, 44, 45, 46, -1}));
  const auto outside = view_of(m, 5, 7, 7).window(6, 8, 2, 2);
  EXPECT_EQ(outside.extent[0], 0);
  EXPECT_EQ(outside.extent[1], 0);
  // Slicing a rank-3 view.
  View3<float> v3;
  v3.data = m.data();
  v3.extent[0] = 5; v3.extent[1] = 1; v3.extent[2] = 7;
  v3.stride[0] = 7; v3.stride[1] = 7; v3.stride[2] = 1;
  EXPECT_EQ(v3(2, 0, 3), 23.f);
  EXPECT_EQ(v3[3](0, 6), 36.f);
}

TEST(TileHost, LoadConvertsThePadding) {
  std::vector<bf16> b(4);
  for (int i = 0; i < 4; ++i) b[i] = from_float<bf16>(float(i + 1));
  View2<const bf16> v;
  v.data = b.data();
  v.extent[0] = 2; v.extent[1] = 2; v.stride[0] = 2; v.stride[1] = 1;
  const auto t = th::load<2, 4>(blk, v, {0, 0}, -kInf);
  static_assert(std::is_same_v<decltype(t), const Tile<bf16, 2, 4>>);
  EXPECT_TRUE(tile_eq(th::cast<float>(t), {1, 2, -kInf, -kInf, 3, 4, -kInf, -kInf}));
  std::vector<int> ints{7, 8, 9};
  View2<int> vi;
  vi.data = ints.data();
  vi.extent[0] = 1; vi.extent[1] = 3; vi.stride[0] = 3; vi.stride[1] = 1;
  EXPECT_TRUE(tile_eq(th::load<1, 4>(blk, vi, {0, 0}, -1.f), {7, 8, 9, -1}));
}

// ---- store ----

TEST(TileHost, StoreMasksEveryEdge) {
  const auto t = make<float, 3, 3>({1, 2, 3, 4, 5, 6, 7, 8, 9});
  auto check_store = [&](Coord at, std::vector<std::pair<int, float>> written) {
    std::vector<float> m(20, -99.f);
    th::store(blk, view_of(m, 4, 5, 5), at, t);
    std::vector<float> want(20, -99.f);
    for (auto [i, x] : written) want[i] = x;
    for (int i = 0; i < 20; ++i)
      EXPECT_EQ(m[i], want[i]) << "store at (" << at.row << ", " << at.col << "): element " << i / 5 << "," << i % 5;
  };
  check_store({0, 0}, {{0, 1}, {1, 2}, {2, 3}, {5, 4}, {6, 5}, {7, 6}, {10, 7}, {11, 8}, {12, 9}});
  check_store({2, 3}, {{13, 1}, {14, 2}, {18, 4}, {19, 5}});                   // bottom-right
  check_store({-1, -2}, {{0, 6}, {5, 9}});                                      // top-left
  check_store({-2, 4}, {{4, 7}});                                               // top-right
  check_store({3, -1}, {{15, 2}, {16, 3}});                                     // bottom-left
  check_store({4, 0}, {});                                                      // below
  check_store({0, 5}, {});                                                      // right
  check_store({-3, -3}, {});                                                    // above-left
}

TEST(TileHost, FragmentsComeBackFromTheirScratchSlot) {
  const auto a = make<float, 2, 3>({1, 2, 3, 4, 5, 6});
  const auto b = make<float, 2, 3>({-1, kNaN, kInf, 0, -0.f, 7});
  std::vector<float> scratch(3 * 6, -99.f);
  View1<float> v;
  v.data = scratch.data();
  v.extent[0] = 18;
  v.stride[0] = 1;
  th::store_fragments(blk, v, 2, a);
  th::store_fragments(blk, v, 0, b);
  EXPECT_TRUE(tile_eq(th::load_fragments(blk, a, v, 2), {1, 2, 3, 4, 5, 6}));
  EXPECT_TRUE(tile_eq(th::load_fragments(blk, a, v, 0), {-1, kNaN, kInf, 0, -0.f, 7}));
  for (int i = 6; i < 12; ++i) EXPECT_EQ(scratch[i], -99.f) << "slot 1 was not written";
}

TEST(TileHost, StoreThroughStridedViews) {
  // Every second column of a 3 x 8 buffer; the columns between stay untouched.
  std::vector<float> m(24, -99.f);
  const auto v = view_of(m, 3, 4, 8, 2);
  th::store(blk, v, {1, 2}, make<float, 2, 3>({1, 2, 3, 4, 5, 6}));
  std::vector<float> want(24, -99.f);
  want[8 + 4] = 1; want[8 + 6] = 2; want[16 + 4] = 4; want[16 + 6] = 5;
  EXPECT_EQ(m, want);
  // Round trip through a strided load.
  EXPECT_TRUE(tile_eq(th::load<2, 2>(blk, v, {1, 2}), {1, 2, 4, 5}));
  // bf16 tiles into bf16 memory, after a cast.
  std::vector<bf16> b(4, bf16{0xffff});
  View2<bf16> vb;
  vb.data = b.data();
  vb.extent[0] = 2; vb.extent[1] = 2; vb.stride[0] = 2; vb.stride[1] = 1;
  th::store(blk, vb, {1, 0}, th::cast<bf16>(make<float, 1, 4>({1.5f, -2.f, 3.f, 4.f})));
  EXPECT_EQ(b[0].bits, 0xffff);
  EXPECT_EQ(b[1].bits, 0xffff);
  EXPECT_EQ(to_float(b[2]), 1.5f);
  EXPECT_EQ(to_float(b[3]), -2.f);
}

// ---- cast ----

TEST(TileHost, Cast) {
  const auto f = make<float, 1, 6>({2.7f, -2.7f, 0.f, 1.f + 0x1p-9f, 70000.f, -0.f});
  EXPECT_TRUE(tile_eq(th::cast<int>(f), {2, -2, 0, 1, 70000, 0}));  // toward zero
  EXPECT_TRUE(tile_eq(th::cast<float>(th::cast<bf16>(f)), {2.703125f, -2.703125f, 0.f, 1.f, 70144.f, -0.f}));
  EXPECT_TRUE(tile_eq(th::cast<float>(th::cast<f16>(f)), {2.69921875f, -2.69921875f, 0.f, 1.f + 0x1p-9f, kInf, -0.f}));
  EXPECT_TRUE(tile_eq(th::cast<float>(th::cast<fp8_e4m3>(f)), {2.75f, -2.75f, 0.f, 1.f, kNaN, -0.f}));
  EXPECT_TRUE(tile_eq(th::cast<float>(th::cast<fp8_e5m2>(f)), {2.5f, -2.5f, 0.f, 1.f, kInf, -0.f}));
  EXPECT_TRUE(tile_eq(th::cast<float>(make<int, 1, 3>({-3, 0, 16777217})), {-3.f, 0.f, 16777216.f}));
  EXPECT_TRUE(tile_eq(th::cast<float>(make<bool, 1, 2>({true, false})), {1.f, 0.f}));
  EXPECT_TRUE(tile_eq(th::cast<bool>(make<float, 1, 3>({0.f, -0.5f, kNaN})), {false, true, true}));
  // Storage to storage goes through float.
  EXPECT_EQ(th::cast<bf16>(th::cast<f16>(make<float, 1, 1>({3.f}))).v[0].bits, from_float<bf16>(3.f).bits);
}

// ---- elementwise ----

TEST(TileHost, ArithmeticWithBroadcasting) {
  const auto a = make<float, 2, 3>({1, 2, 3, 4, 5, 6});
  const auto b = make<float, 2, 3>({6, 5, 4, 3, 2, 1});
  const auto col = make<float, 2, 1>({10, 20});
  const auto row = make<float, 1, 3>({1, 2, 4});
  const auto one = make<float, 1, 1>({0.5f});
  EXPECT_TRUE(tile_eq(a + b, {7, 7, 7, 7, 7, 7}));
  EXPECT_TRUE(tile_eq(a - b, {-5, -3, -1, 1, 3, 5}));
  EXPECT_TRUE(tile_eq(a * b, {6, 10, 12, 12, 10, 6}));
  EXPECT_TRUE(tile_eq(a / b, {1.f / 6, 2.f / 5, 3.f / 4, 4.f / 3, 5.f / 2, 6.f}));
  EXPECT_TRUE(tile_eq(a + col, {11, 12, 13, 24, 25, 26}));
  EXPECT_TRUE(tile_eq(col - a, {9, 8, 7, 16, 15, 14}));
  EXPECT_TRUE(tile_eq(a * row, {1, 4, 12, 4, 10, 24}));
  EXPECT_TRUE(tile_eq(row / a, {1, 1, 4.f / 3, 0.25f, 0.4f, 4.f / 6}));
  EXPECT_TRUE(tile_eq(a * 2.f, {2, 4, 6, 8, 10, 12}));
  EXPECT_TRUE(tile_eq(1.f - a, {0, -1, -2, -3, -4, -5}));
  EXPECT_TRUE(tile_eq(a / one, {2, 4, 6, 8, 10, 12}));
  EXPECT_TRUE(tile_eq(one - a, {-0.5f, -1.5f, -2.5f, -3.5f, -4.5f, -5.5f}));
  // outer broadcast: (R,1) op (1,C) -> (R,C)
  const auto outer = col + row;
  static_assert(std::is_same_v<decltype(outer), const Tile<float, 2, 3>>);
  EXPECT_TRUE(tile_eq(outer, {11, 12, 14, 21, 22, 24}));
  EXPECT_TRUE(tile_eq(row * col, {10, 20, 40, 20, 40, 80}));
  EXPECT_TRUE(tile_eq(th::fma(a, row, col), {11, 14, 22, 24, 30, 44}));
  EXPECT_TRUE(tile_eq(th::fma(a, 2.f, 1.f), {3, 5, 7, 9, 11, 13}));
  EXPECT_TRUE(tile_eq(-a, {-1, -2, -3, -4, -5, -6}));
  EXPECT_TRUE(tile_eq(th::broadcast_to<2, 3>(col), {10, 10, 10, 20, 20, 20}));
  EXPECT_TRUE(tile_eq(th::broadcast_to<2, 3>(row), {1, 2, 4, 1, 2, 4}));
  EXPECT_TRUE(tile_eq(th::broadcast_to<2, 2>(one), {0.5f, 0.5f, 0.5f, 0.5f}));
  // int tiles: integer arithmetic
  const auto i = make<int, 1, 4>({7, -7, 9, 0});
  EXPECT_TRUE(tile_eq(i / 2, {3, -3, 4, 0}));
  EXPECT_TRUE(tile_eq(i * i - 1, {48, 48, 80, -1}));
  EXPECT_TRUE(tile_eq(-i, {-7, 7, -9, 0}));
  // int with float promotes to float
  const auto mixed = i + 0.5f;
  static_assert(std::is_same_v<decltype(mixed), const Tile<float, 1, 4>>);
  EXPECT_TRUE(tile_eq(mixed, {7.5f, -6.5f, 9.5f, 0.5f}));
}

TEST(TileHost, ComparisonsLogicAndWhere) {
  const auto a = make<float, 2, 3>({1, 2, 3, 4, kNaN, 6});
  const auto row = make<float, 1, 3>({2, 2, 2});
  EXPECT_TRUE(tile_eq(a < row, {true, false, false, false, false, false}));
  EXPECT_TRUE(tile_eq(a <= 2.f, {true, true, false, false, false, false}));
  EXPECT_TRUE(tile_eq(a > row, {false, false, true, true, false, true}));
  EXPECT_TRUE(tile_eq(a >= 4.f, {false, false, false, true, false, true}));
  EXPECT_TRUE(tile_eq(a == 2.f, {false, true, false, false, false, false}));
  EXPECT_TRUE(tile_eq(a != a, {false, false, false, false, true, false}));  // NaN
  const auto m1 = a > 1.f, m2 = a < 6.f;
  EXPECT_TRUE(tile_eq(m1 & m2, {false, true, true, true, false, false}));
  EXPECT_TRUE(tile_eq(m1 | (a != a), {false, true, true, true, true, true}));
  // where with tiles, scalars and broadcast operands
  const auto b = make<float, 2, 3>({10, 20, 30, 40, 50, 60});
  EXPECT_TRUE(tile_eq(th::where(m1, a, b), {10, 2, 3, 4, 50, 6}));
  EXPECT_TRUE(tile_eq(th::where(m1, 1.f, 0.f), {0, 1, 1, 1, 0, 1}));
  EXPECT_TRUE(tile_eq(th::where(m1, a, -kInf), {-kInf, 2, 3, 4, -kInf, 6}));
  EXPECT_TRUE(tile_eq(th::where(m1, row, b), {10, 2, 2, 2, 50, 2}));
  const auto colmask = make<bool, 2, 1>({true, false});
  EXPECT_TRUE(tile_eq(th::where(colmask, a, b), {1, 2, 3, 40, 50, 60}));
  const auto rowmask = make<bool, 1, 3>({false, true, false});
  EXPECT_TRUE(tile_eq(th::where(rowmask, make<float, 2, 1>({7, 8}), 0.f), {0, 7, 0, 0, 8, 0}));
  // causal-style mask from two aranges: (R,1) >= (1,C)
  const auto causal = th::arange<3, 1>(blk, 0) >= th::arange<1, 3>(blk, 1);
  EXPECT_TRUE(tile_eq(causal, {true, false, false, true, true, false, true, true, true}));
  // int and float operands of where: common type float
  const auto w = th::where(make<bool, 1, 2>({true, false}), make<int, 1, 2>({3, 4}), 0.5f);
  static_assert(std::is_same_v<decltype(w), const Tile<float, 1, 2>>);
  EXPECT_TRUE(tile_eq(w, {3.f, 0.5f}));
}

TEST(TileHost, MaximumMinimumPropagateNaN) {
  const auto a = make<float, 1, 5>({1, -2, kNaN, 3, -kInf});
  const auto b = make<float, 1, 5>({0, 5, 1, kNaN, -1});
  EXPECT_TRUE(tile_eq(th::maximum(a, b), {1, 5, kNaN, kNaN, -1}));
  EXPECT_TRUE(tile_eq(th::minimum(a, b), {0, -2, kNaN, kNaN, -kInf}));
  EXPECT_TRUE(tile_eq(th::maximum(a, 0.f), {1, 0, kNaN, 3, 0}));
  EXPECT_TRUE(tile_eq(th::minimum(make<float, 2, 1>({1, 4}), make<float, 1, 2>({2, 3})), {1, 1, 2, 3}));
  EXPECT_TRUE(tile_eq(th::maximum(make<int, 1, 3>({1, 5, -3}), 2), {2, 5, 2}));
}

TEST(TileHost, UnaryMath) {
  const auto x = make<float, 1, 4>({0.25f, 1.f, 2.f, 9.f});
  const auto s = make<float, 1, 4>({-1.5f, 0.f, 0.5f, 3.f});
  auto expect_map = [](const auto& got, const auto& in, auto f, const char* name) {
    for (int i = 0; i < 4; ++i) EXPECT_TRUE(same(got.v[i], float(f(in.v[i])))) << name << "(" << in.v[i] << ")";
  };
  expect_map(th::exp(s), s, [](float v) { return std::exp(v); }, "exp");
  expect_map(th::exp2(s), s, [](float v) { return std::exp2(v); }, "exp2");
  expect_map(th::log(x), x, [](float v) { return std::log(v); }, "log");
  expect_map(th::log2(x), x, [](float v) { return std::log2(v); }, "log2");
  expect_map(th::sqrt(x), x, [](float v) { return std::sqrt(v); }, "sqrt");
  expect_map(th::rsqrt(x), x, [](float v) { return 1.f / std::sqrt(v); }, "rsqrt");
  expect_map(th::tanh(s), s, [](float v) { return std::tanh(v); }, "tanh");
  expect_map(th::sigmoid(s), s, [](float v) { return 1.f / (1.f + std::exp(-v)); }, "sigmoid");
  expect_map(th::erf(s), s, [](float v) { return std::erf(v); }, "erf");
  expect_map(th::sin(s), s, [](float v) { return std::sin(v); }, "sin");
  expect_map(th::cos(s), s, [](float v) { return std::cos(v); }, "cos");
  expect_map(th::abs(s), s, [](float v) { return std::fabs(v); }, "abs");
  expect_map(th::normal_cdf(s), s, [](float v) { return 0.5 * std::erfc(double(v) * -0.70710678118654752); }, "normal_cdf");
  expect_map(th::normal_cdf_coarse(s), s, [](float v) { return 0.5 * std::erfc(double(v) * -0.70710678118654752); }, "normal_cdf_coarse");
  const auto [c, sn] = th::cos_sin(s);
  expect_map(c, s, [](float v) { return std::cos(v); }, "cos_sin.cos");
  expect_map(sn, s, [](float v) { return std::sin(v); }, "cos_sin.sin");
  // Values that are exact by definition.
  EXPECT_TRUE(tile_eq(th::exp2(s), {0x1.6a09e6p-2f, 1.f, std::exp2(0.5f), 8.f}));
  EXPECT_TRUE(tile_eq(th::sqrt(x), {0.5f, 1.f, std::sqrt(2.f), 3.f}));
  EXPECT_TRUE(tile_eq(th::rsqrt(x), {2.f, 1.f, 1.f / std::sqrt(2.f), 1.f / 3}));
  EXPECT_TRUE(tile_eq(th::log2(x), {-2.f, 0.f, 1.f, std::log2(9.f)}));
  EXPECT_TRUE(tile_eq(th::abs(make<float, 1, 3>({-0.f, -kInf, kNaN})), {0.f, kInf, kNaN}));
  EXPECT_TRUE(tile_eq(th::sigmoid(make<float, 1, 3>({0.f, -kInf, kInf})), {0.5f, 0.f, 1.f}));
  EXPECT_TRUE(tile_eq(th::normal_cdf(make<float, 1, 4>({0.f, -kInf, kInf, kNaN})), {0.5f, 0.f, 1.f, kNaN}));
  EXPECT_TRUE(tile_eq(th::log(make<float, 1, 2>({0.f, -1.f})), {-kInf, kNaN}));
}

// ---- reductions ----

TEST(TileHost, RowAndColumnReductions) {
  const auto a = make<float, 3, 4>({1, 5, -2, 5,     //
                                    0, 0, 0, 0,      //
                                    -3, -1, -7, 2});
  EXPECT_TRUE(tile_eq(th::row_sum(a), {9, 0, -9}));
  EXPECT_TRUE(tile_eq(th::row_max(a), {5, 0, 2}));
  EXPECT_TRUE(tile_eq(th::row_min(a), {-2, 0, -7}));
  EXPECT_TRUE(tile_eq(th::row_argmax(a), {1, 0, 3}));  // ties: smallest index
  EXPECT_TRUE(tile_eq(th::col_sum(a), {-2, 4, -9, 7}));
  EXPECT_TRUE(tile_eq(th::col_max(a), {1, 5, 0, 5}));
  EXPECT_TRUE(tile_eq(th::col_min(a), {-3, -1, -7, 0}));
  EXPECT_TRUE(tile_eq(th::col_argmax(a), {0, 0, 1, 0}));
  static_assert(std::is_same_v<decltype(th::row_sum(a)), Tile<float, 3, 1>>);
  static_assert(std::is_same_v<decltype(th::col_argmax(a)), Tile<int, 1, 4>>);
  // the result of a row reduction broadcasts back over the rows
  EXPECT_TRUE(tile_eq(a - th::row_max(a), {-4, 0, -7, 0, 0, 0, 0, 0, -5, -3, -9, 0}));
  EXPECT_TRUE(tile_eq(a - th::col_max(a), {0, 0, -2, 0, -1, -5, 0, -5, -4, -6, -7, -3}));
  // int reductions
  const auto i = make<int, 2, 3>({4, -9, 4, -1, -1, -2});
  EXPECT_TRUE(tile_eq(th::row_sum(i), {-1, -4}));
  EXPECT_TRUE(tile_eq(th::row_max(i), {4, -1}));
  EXPECT_TRUE(tile_eq(th::row_min(i), {-9, -2}));
  EXPECT_TRUE(tile_eq(th::row_argmax(i), {0, 0}));
  EXPECT_TRUE(tile_eq(th::col_sum(i), {3, -10, 2}));
  EXPECT_TRUE(tile_eq(th::col_argmax(i), {0, 1, 0}));
  // sums run in order of increasing index: ((3 + 3) + 1e8) - 1e8 = 8 in float (a tree would give 6)
  EXPECT_TRUE(tile_eq(th::row_sum(make<float, 1, 4>({3.f, 3.f, 1e8f, -1e8f})), {8.f}));
  EXPECT_TRUE(tile_eq(th::col_sum(make<float, 4, 1>({3.f, 3.f, 1e8f, -1e8f})), {8.f}));
}

TEST(TileHost, ChunkSumsAddRunsOfEightColumns) {
  Tile<float, 2, 16> a;
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 16; ++c) a(r, c) = float((r + 1) * (c + 1));
  const auto s = th::chunk_sums(a);  // row 0: 1 + ... + 8 = 36, 9 + ... + 16 = 100; row 1 twice that
  static_assert(std::is_same_v<decltype(s), const Tile<float, 2, 2>>);
  EXPECT_TRUE(tile_eq(s, {36, 100, 72, 200}));
  EXPECT_TRUE(tile_eq(th::row_sum(s), {136, 272}));
  EXPECT_TRUE(tile_eq(th::row_sum(s + th::chunk_sums(a)), {272, 544}));  // a running sum of chunk sums
  // Narrower than a chunk: one chunk a row.
  EXPECT_TRUE(tile_eq(th::chunk_sums(make<float, 2, 4>({1, 2, 3, 4, 5, 6, 7, 8})), {10, 26}));
  static_assert(th::chunk_width(4) == 4 && th::chunk_width(1024) == 8);
}

TEST(TileHost, ReductionsOfInfinitiesAndNaN) {
  const auto a = make<float, 4, 3>({-kInf, -kInf, -kInf,   // all -inf
                                    kNaN, kNaN, kNaN,      // all NaN
                                    kNaN, 2, kNaN,         // NaN is ignored
                                    kNaN, -kInf, -kInf});  // NaN, then -inf ties
  EXPECT_TRUE(tile_eq(th::row_max(a), {-kInf, -kInf, 2, -kInf}));
  EXPECT_TRUE(tile_eq(th::row_min(a), {-kInf, kInf, 2, -kInf}));
  EXPECT_TRUE(tile_eq(th::row_argmax(a), {0, 0, 1, 1}));
  EXPECT_TRUE(tile_eq(th::col_max(a), {-kInf, 2, -kInf}));
  EXPECT_TRUE(tile_eq(th::col_argmax(a), {0, 2, 0}));
  // column argmax when NaN precedes the (-inf) maximum
  EXPECT_TRUE(tile_eq(th::col_argmax(make<float, 3, 2>({kNaN, kNaN, -kInf, kNaN, 1, kNaN})), {2, 0}));
  EXPECT_TRUE(tile_eq(th::row_sum(make<float, 1, 3>({kInf, 1, -kInf})), {kNaN}));
  EXPECT_TRUE(tile_eq(th::row_sum(make<float, 1, 2>({1, kNaN})), {kNaN}));
  EXPECT_TRUE(tile_eq(th::row_max(make<float, 1, 2>({kInf, 1})), {kInf}));
}

// ---- transpose, mma ----

TEST(TileHost, Transpose) {
  const auto a = make<float, 2, 3>({1, 2, 3, 4, 5, 6});
  const auto t = th::transpose(a);
  static_assert(std::is_same_v<decltype(t), const Tile<float, 3, 2>>);
  EXPECT_TRUE(tile_eq(t, {1, 4, 2, 5, 3, 6}));
  EXPECT_TRUE(tile_eq(th::transpose(t), {1, 2, 3, 4, 5, 6}));
  EXPECT_TRUE(tile_eq(th::transpose(make<int, 1, 3>({7, 8, 9})), {7, 8, 9}));
}

TEST(TileHost, Mma) {
  const auto a = make<float, 2, 3>({1, 2, 3, 4, 5, 6});
  const auto b = make<float, 3, 2>({7, 8, 9, 10, 11, 12});
  auto acc = make<float, 2, 2>({1, -1, 0.5f, 0});
  th::mma(acc, a, b);
  EXPECT_TRUE(tile_eq(acc, {59, 63, 139.5f, 154}));
  th::mma(acc, a, b);  // accumulates
  EXPECT_TRUE(tile_eq(acc, {117, 127, 278.5f, 308}));
  // 16-bit operands widen exactly; products and sums in float
  auto acc2 = th::zeros<float, 2, 2>(blk);
  th::mma(acc2, th::cast<bf16>(a), th::cast<f16>(b));
  EXPECT_TRUE(tile_eq(acc2, {58, 64, 139, 154}));
  // 1 x K times K x 1: a dot product
  auto dot = th::zeros<float, 1, 1>(blk);
  th::mma(dot, make<float, 1, 4>({1, 2, 3, 4}), make<float, 4, 1>({-1, 1, -1, 1}));
  EXPECT_TRUE(tile_eq(dot, {2}));
  // identity times b is b
  auto id = th::cast<float>(th::arange<3, 1>(blk, 0) == th::arange<1, 3>(blk, 1));
  auto c = th::zeros<float, 3, 2>(blk);
  th::mma(c, id, b);
  EXPECT_TRUE(tile_eq(c, {7, 8, 9, 10, 11, 12}));
  // mma_nt takes b as its rows (b^T): the same sums, accumulated
  auto nt = th::zeros<float, 2, 2>(blk);
  th::mma_nt(nt, th::cast<bf16>(a), th::cast<bf16>(th::transpose(b)));
  th::mma_nt(nt, th::cast<bf16>(a), th::cast<bf16>(th::transpose(b)));
  EXPECT_TRUE(tile_eq(nt, {116, 128, 278, 308}));
  // mma_accumulator starts at zero (the GPU lays it out for the tensor cores) and accumulates like any tile
  auto frag = th::mma_accumulator<2, 2>(blk);
  static_assert(std::is_same_v<decltype(frag), Tile<float, 2, 2>>);
  EXPECT_TRUE(tile_eq(frag, {0, 0, 0, 0}));
  th::mma_nt(frag, th::cast<bf16>(a), th::cast<bf16>(th::transpose(b)));
  EXPECT_TRUE(tile_eq(frag, {58, 64, 139, 154}));
}

// ---- atomic_add and launches ----

struct AtomicAddKernel {
  static constexpr int threads = 64;
  struct Params { View2<float> out; };
  template <class Block>
  void operator()(Block& b, const Params& p) const {
    // Every block adds a 3x3 tile of ones (times its z+1) at (bid(1) - 1, bid(0) - 1): tiles overlap and
    // hang over every edge.
    const float w = float(b.bid(2) + 1);
    th::atomic_add(b, p.out, {b.bid(1) - 1, b.bid(0) - 1}, th::full<float, 3, 3>(b, w));
  }
};

TEST(TileHost, AtomicAddAccumulatesAcrossBlocksAndMasksEdges) {
  std::vector<float> m(4 * 5, 0.f);
  const auto v = view_of(m, 4, 5, 5);
  th::atomic_add(blk, v, {3, 4}, th::full<float, 2, 2>(blk, 1.f));
  EXPECT_EQ(m[19], 1.f);
  EXPECT_EQ(std::count(m.begin(), m.end(), 0.f), 19);
  m.assign(20, 0.f);
  // grid x = 5 columns, y = 4 rows, z = 3 weights 1 + 2 + 3 = 6 per covering tile
  th::launch<AtomicAddKernel>({5, 4, 3}, {v});
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 5; ++c) {
      const int nr = (r > 0) + 1 + (r < 3), nc = (c > 0) + 1 + (c < 4);  // tiles covering (r, c)
      EXPECT_EQ(m[r * 5 + c], float(6 * nr * nc)) << r << "," << c;
    }
}

struct GridKernel {
  static constexpr int threads = 32;
  struct Params { View3<int> seen; View3<int> dims; };
  template <class Block>
  void operator()(Block& b, const Params& p) const {
    p.seen(b.bid(2), b.bid(1), b.bid(0)) += 1;  // each block owns its own cell
    p.dims(b.bid(2), b.bid(1), b.bid(0)) = int(b.num_blocks(0) * 10000 + b.num_blocks(1) * 100 + b.num_blocks(2));
  }
};

TEST(TileHost, LaunchRunsEveryBlockOfA3DGridExactlyOnce) {
  const int X = 7, Y = 5, Z = 3;
  std::vector<int> seen(X * Y * Z, 0), dims(X * Y * Z, 0);
  auto view3 = [&](std::vector<int>& v) {
    View3<int> w;
    w.data = v.data();
    w.extent[0] = Z; w.extent[1] = Y; w.extent[2] = X;
    w.stride[0] = Y * X; w.stride[1] = X; w.stride[2] = 1;
    return w;
  };
  th::launch<GridKernel>({X, Y, Z}, {view3(seen), view3(dims)});
  for (int i = 0; i < X * Y * Z; ++i) {
    EXPECT_EQ(seen[i], 1) << "block " << i % X << "," << i / X % Y << "," << i / (X * Y);
    EXPECT_EQ(dims[i], 70503);
  }
  // An empty grid runs nothing.
  th::launch<GridKernel>({0, Y, Z}, {view3(seen), view3(dims)});
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), X * Y * Z);
}

// A launch hint changes nothing but the CUDA register budget: on the host the hinted kernel is the kernel.
TEST(TileHost, MinBlocksPerSmHintRunsTheSameKernel) {
  using Hinted = MinBlocksPerSm<GridKernel, 4>;
  static_assert(Hinted::min_blocks_per_sm == 4 && Hinted::threads == GridKernel::threads);
  static_assert(std::is_same_v<Hinted::Params, GridKernel::Params>);
  const int X = 3, Y = 2, Z = 2;
  std::vector<int> seen(X * Y * Z, 0), dims(X * Y * Z, 0);
  View3<int> s, d;
  s.data = seen.data();
  d.data = dims.data();
  for (View3<int>* w : {&s, &d}) {
    w->extent[0] = Z; w->extent[1] = Y; w->extent[2] = X;
    w->stride[0] = Y * X; w->stride[1] = X; w->stride[2] = 1;
  }
  th::launch<Hinted>({X, Y, Z}, {s, d});
  for (int i = 0; i < X * Y * Z; ++i) {
    EXPECT_EQ(seen[i], 1) << "block " << i;
    EXPECT_EQ(dims[i], 30202);
  }
}

struct ThrowingKernel {
  static constexpr int threads = 32;
  struct Params { int bad_block; };
  template <class Block>
  void operator()(Block& b, const Params& p) const {
    if (b.bid(0) == p.bad_block) throw std::runtime_error("block failed");
  }
};

TEST(TileHost, LaunchRethrowsABlockFailure) {
  EXPECT_THROW(th::launch<ThrowingKernel>({64}, {17}), std::runtime_error);
  EXPECT_NO_THROW(th::launch<ThrowingKernel>({64}, {-1}));
}

}  // namespace
}  // namespace tessera::tile

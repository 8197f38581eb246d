// Host elementwise operations with broadcasting. Shapes combine as in NumPy: (R,C) with (R,C), (R,1), (1,C)
// or (1,1), and (R,1) with (1,C) gives (R,C). A plain scalar broadcasts everywhere.
// Arithmetic is defined on float and int tiles; 16- and 8-bit floats must be cast to float first.
#pragma once
#include <algorithm>
#include <cmath>

#include "tessera/tile/host/tile.h"

namespace tessera::tile::host {

namespace detail {
template <class X> struct shape_of { static constexpr int rows = 1, cols = 1; using value_type = X; };
template <class T, int R, int C> struct shape_of<Tile<T, R, C>> { static constexpr int rows = R, cols = C; using value_type = T; };

template <class X>
inline auto at(const X& x, int r, int c) {
  if constexpr (is_tile_v<X>) {
    constexpr int R = X::rows, C = X::cols;
    return x(R == 1 ? 0 : r, C == 1 ? 0 : c);
  } else {
    (void)r; (void)c;
    return x;
  }
}

template <int A, int B>
inline constexpr int broadcast_dim() {
  static_assert(A == B || A == 1 || B == 1, "tile shapes do not broadcast");
  return A > B ? A : B;
}

template <class A, class B>
inline constexpr bool any_tile_v = is_tile_v<A> || is_tile_v<B>;

template <class T>
inline constexpr void require_arithmetic() {
  static_assert(!is_storage_float_v<T>, "tile arithmetic needs float tiles: cast<float>(tile) first");
}

template <class F, class A, class B>
auto zip(const A& a, const B& b, F f) {
  using SA = shape_of<A>;
  using SB = shape_of<B>;
  constexpr int R = broadcast_dim<SA::rows, SB::rows>(), C = broadcast_dim<SA::cols, SB::cols>();
  using Out = decltype(f(at(a, 0, 0), at(b, 0, 0)));
  Tile<Out, R, C> out;
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) out(r, c) = f(at(a, r, c), at(b, r, c));
  return out;
}

template <class F, class T, int R, int C>
auto map(const Tile<T, R, C>& a, F f) {
  require_arithmetic<T>();
  Tile<decltype(f(a.v[0])), R, C> out;
  for (int i = 0; i < R * C; ++i) out.v[i] = f(a.v[i]);
  return out;
}
}  // namespace detail

#define TESSERA_HOST_BINARY(NAME, EXPR)                                                         \
  template <class A, class B, std::enable_if_t<detail::any_tile_v<A, B>, int> = 0>              \
  auto NAME(const A& a, const B& b) {                                                            \
    detail::require_arithmetic<typename detail::shape_of<A>::value_type>();                      \
    detail::require_arithmetic<typename detail::shape_of<B>::value_type>();                      \
    return detail::zip(a, b, [](auto x, auto y) { return EXPR; });                               \
  }

TESSERA_HOST_BINARY(operator+, x + y)
TESSERA_HOST_BINARY(operator-, x - y)
TESSERA_HOST_BINARY(operator*, x * y)
TESSERA_HOST_BINARY(operator/, x / y)
TESSERA_HOST_BINARY(operator<, x < y)
TESSERA_HOST_BINARY(operator<=, x <= y)
TESSERA_HOST_BINARY(operator>, x > y)
TESSERA_HOST_BINARY(operator>=, x >= y)
TESSERA_HOST_BINARY(operator==, x == y)
TESSERA_HOST_BINARY(operator!=, x != y)
TESSERA_HOST_BINARY(operator&, x && y)
TESSERA_HOST_BINARY(operator|, x || y)
// max/min return the larger/smaller operand; if either is NaN the result is NaN for float tiles.
TESSERA_HOST_BINARY(maximum, (x != x || y != y) ? (x + y) : (x > y ? x : y))
TESSERA_HOST_BINARY(minimum, (x != x || y != y) ? (x + y) : (x < y ? x : y))
#undef TESSERA_HOST_BINARY

template <class T, int R, int C>
Tile<T, R, C> operator-(const Tile<T, R, C>& a) { return detail::map(a, [](T x) { return T(-x); }); }

#define TESSERA_HOST_UNARY(NAME, EXPR)                                          \
  template <class T, int R, int C>                                              \
  Tile<float, R, C> NAME(const Tile<T, R, C>& a) {                              \
    static_assert(std::is_same_v<T, float>, #NAME ": needs a float tile");      \
    return detail::map(a, [](float x) { return float(EXPR); });                 \
  }

TESSERA_HOST_UNARY(exp, std::exp(x))
TESSERA_HOST_UNARY(exp2, std::exp2(x))
TESSERA_HOST_UNARY(log, std::log(x))
TESSERA_HOST_UNARY(log2, std::log2(x))
TESSERA_HOST_UNARY(sqrt, std::sqrt(x))
TESSERA_HOST_UNARY(rsqrt, 1.f / std::sqrt(x))
TESSERA_HOST_UNARY(tanh, std::tanh(x))
TESSERA_HOST_UNARY(sigmoid, 1.f / (1.f + std::exp(-x)))
TESSERA_HOST_UNARY(erf, std::erf(x))
// Phi(x) = (1 + erf(x / sqrt 2)) / 2, through erfc so that the tail keeps its relative precision.
TESSERA_HOST_UNARY(normal_cdf, 0.5 * std::erfc(double(x) * -0.70710678118654752))
TESSERA_HOST_UNARY(sin, std::sin(x))
TESSERA_HOST_UNARY(cos, std::cos(x))
TESSERA_HOST_UNARY(abs, std::fabs(x))
#undef TESSERA_HOST_UNARY
// Phi as well: the CUDA backend computes it only to a relative error of 6.5e-5 (for 16-bit results).
template <class T, int R, int C>
Tile<float, R, C> normal_cdf_coarse(const Tile<T, R, C>& a) { return normal_cdf(a); }

// cos and sin of the same angles (the CUDA backend reduces them once).
template <int R, int C>
struct CosSin {
  Tile<float, R, C> cos, sin;
};
template <class T, int R, int C>
CosSin<R, C> cos_sin(const Tile<T, R, C>& a) {
  static_assert(std::is_same_v<T, float>, "cos_sin: needs a float tile");
  return {cos(a), sin(a)};
}

// a * b + c, elementwise with broadcasting.
template <class A, class B, class D>
auto fma(const A& a, const B& b, const D& c) { return a * b + c; }

// mask ? a : b, elementwise with broadcasting; a and b may be tiles or scalars.
template <int R, int C, class A, class B>
auto where(const Tile<bool, R, C>& mask, const A& a, const B& b) {
  using SA = detail::shape_of<A>;
  using SB = detail::shape_of<B>;
  using Out = std::common_type_t<typename SA::value_type, typename SB::value_type>;
  constexpr int RR = detail::broadcast_dim<R, detail::broadcast_dim<SA::rows, SB::rows>()>();
  constexpr int CC = detail::broadcast_dim<C, detail::broadcast_dim<SA::cols, SB::cols>()>();
  Tile<Out, RR, CC> out;
  for (int r = 0; r < RR; ++r)
    for (int c = 0; c < CC; ++c)
      out(r, c) = detail::at(mask, r, c) ? Out(detail::at(a, r, c)) : Out(detail::at(b, r, c));
  return out;
}

// acc = where(rows, acc * factor, acc) for a float tile and row vectors [R, 1]: the rows marked scaled, the
// others as they were. An online softmax rescales its output rows only where their running maximum moved;
// on the GPU, groups of rows none of which is marked skip the multiplications.
template <int R, int C, class F>
void scale_rows_where(Tile<float, R, C>& acc, const Tile<bool, R, 1>& rows, const Tile<F, R, 1>& factor) {
  for (int r = 0; r < R; ++r)
    if (rows(r, 0))
      for (int c = 0; c < C; ++c) acc(r, c) *= factor(r, 0);
}

// Broadcasts a (R,1), (1,C) or (1,1) tile to R x C.
template <int R, int C, class T, int R0, int C0>
Tile<T, R, C> broadcast_to(const Tile<T, R0, C0>& a) {
  static_assert((R0 == R || R0 == 1) && (C0 == C || C0 == 1), "broadcast_to: shapes do not broadcast");
  Tile<T, R, C> out;
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) out(r, c) = a(R0 == 1 ? 0 : r, C0 == 1 ? 0 : c);
  return out;
}

}  // namespace tessera::tile::host

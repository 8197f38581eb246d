// CUDA elementwise operations: the same names and broadcasting as host/math.h.
#pragma once
#include "tessera/tile/cuda/tile.h"

namespace tessera::tile::cuda {

namespace detail {
template <class X> struct operand { using layout = Blocked<1, 1, 32>; using value_type = X; static constexpr bool tile = false; };
template <class T, class L> struct operand<Tile<T, L>> { using layout = L; using value_type = T; static constexpr bool tile = true; };

template <class A, class B> struct layout_of_pair;

template <class X> using layout_t = typename operand<X>::layout;

// The result layout of operands A and B (scalars adopt the tile's layout).
template <class A, class B>
struct result_layout {
  using type = std::conditional_t<!operand<A>::tile, layout_t<B>,
                                  std::conditional_t<!operand<B>::tile, layout_t<A>, void>>;
};
template <class TA, class LA, class TB, class LB>
struct result_layout<Tile<TA, LA>, Tile<TB, LB>> { using type = common_layout_t<LA, LB>; };
template <class A, class B> using result_layout_t = typename result_layout<A, B>::type;

template <class L, class X>
__device__ __forceinline__ auto get(const X& x, int e) {
  if constexpr (operand<X>::tile) return x.v[broadcast_index<typename X::layout, L>(e)];
  else return x;
}

template <class T>
__device__ __forceinline__ constexpr void require_arithmetic() {
  static_assert(!is_storage_float_v<T>, "tile arithmetic needs float tiles: cast<float>(tile) first");
}

template <class F, class A, class B>
__device__ __forceinline__ auto zip(const A& a, const B& b, F f) {
  using L = result_layout_t<A, B>;
  using Out = decltype(f(get<L>(a, 0), get<L>(b, 0)));
  Tile<Out, L> out;
#pragma unroll
  for (int e = 0; e < L::size; ++e) out.v[e] = f(get<L>(a, e), get<L>(b, e));
  return out;
}

template <class F, class T, class L>
__device__ __forceinline__ auto map(const Tile<T, L>& a, F f) {
  require_arithmetic<T>();
  Tile<decltype(f(a.v[0])), L> out;
#pragma unroll
  for (int e = 0; e < L::size; ++e) out.v[e] = f(a.v[e]);
  return out;
}

template <class A, class B>
inline constexpr bool any_tile_v = operand<A>::tile || operand<B>::tile;
}  // namespace detail

#define TESSERA_CUDA_BINARY(NAME, EXPR)                                                          \
  template <class A, class B, std::enable_if_t<detail::any_tile_v<A, B>, int> = 0>               \
  __device__ __forceinline__ auto NAME(const A& a, const B& b) {                                 \
    detail::require_arithmetic<typename detail::operand<A>::value_type>();                       \
    detail::require_arithmetic<typename detail::operand<B>::value_type>();                       \
    return detail::zip(a, b, [](auto x, auto y) { return EXPR; });                               \
  }

TESSERA_CUDA_BINARY(operator+, x + y)
TESSERA_CUDA_BINARY(operator-, x - y)
TESSERA_CUDA_BINARY(operator*, x * y)
TESSERA_CUDA_BINARY(operator/, x / y)
TESSERA_CUDA_BINARY(operator<, x < y)
TESSERA_CUDA_BINARY(operator<=, x <= y)
TESSERA_CUDA_BINARY(operator>, x > y)
TESSERA_CUDA_BINARY(operator>=, x >= y)
TESSERA_CUDA_BINARY(operator==, x == y)
TESSERA_CUDA_BINARY(operator!=, x != y)
TESSERA_CUDA_BINARY(operator&, x && y)
TESSERA_CUDA_BINARY(operator|, x || y)
TESSERA_CUDA_BINARY(maximum, (x != x || y != y) ? (x + y) : (x > y ? x : y))
TESSERA_CUDA_BINARY(minimum, (x != x || y != y) ? (x + y) : (x < y ? x : y))
#undef TESSERA_CUDA_BINARY

template <class T, class L>
__device__ __forceinline__ Tile<T, L> operator-(const Tile<T, L>& a) { return detail::map(a, [](T x) { return T(-x); }); }

#define TESSERA_CUDA_UNARY(NAME, EXPR)                                           \
  template <class T, class L>                                                    \
  __device__ __forceinline__ Tile<float, L> NAME(const Tile<T, L>& a) {          \
    static_assert(std::is_same_v<T, float>, #NAME ": needs a float tile");       \
    return detail::map(a, [](float x) { return float(EXPR); });                  \
  }

TESSERA_CUDA_UNARY(exp, expf(x))
// The multi-function unit's 2^x alone (relative error about 2^-22, results below 2^-126 flushed to zero):
// exp2f adds a range fix-up of three instructions around it, which a softmax pays for every score.
__device__ __forceinline__ float exp2_approx(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
TESSERA_CUDA_UNARY(exp2, exp2_approx(x))
// The multi-function unit's 1/x alone (about 1 ulp; denormal results flushed to zero): IEEE division adds a
// Newton step and a slow path.
__device__ __forceinline__ float rcp_approx(float x) {
  float y;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
// 1 / (1 + e^-x) from one 2^x and one reciprocal: relative error a few ulp, 0 and 1 at the infinities.
__device__ __forceinline__ float sigmoid_fast(float x) { return rcp_approx(1.f + exp2_approx(x * -1.4426950408889634f)); }
// c0 + t (c1 + t (c2 + ...)): one fused multiply-add a coefficient.
__device__ __forceinline__ float horner(float, float c) { return c; }
template <class... C>
__device__ __forceinline__ float horner(float t, float c, C... rest) { return fmaf(horner(t, rest...), t, c); }
// The standard normal distribution function Phi(x) = (1 + erf(x / sqrt 2)) / 2. Its tail Phi(-|x|) is
// t 2^(Q(t) - x^2 log2(e) / 2) with t = 1 / (1 + |x| / sqrt 8) and Q a polynomial fitted by
// scripts/fit_normal_cdf.py (q_of_t computes it), so gelu = x Phi(x) keeps its precision for negative x,
// where 1 + erf cancels.
template <class Q>
__device__ __forceinline__ float normal_cdf_from_tail(float x, Q q_of_t) {
  const float a = fabsf(x);
  const float t = rcp_approx(fmaf(a, 0.353553391f, 1.f));
  const float tail = t * exp2_approx(fmaf(a * -0.721347520f, a, q_of_t(t)));
  return x > 0.f ? 1.f - tail : tail;
}
// Degree 7: relative error of the tail below 3.2e-6 for |x| <= 5 and 1.2e-5 beyond (the fp32 rounding of the
// exponent).
__device__ __forceinline__ float normal_cdf_fast(float x) {
  return normal_cdf_from_tail(x, [](float t) {
    return horner(t, -2.82573938f, 1.44195497f, 0.555956542f, -0.00290140416f, 0.37953186f, -1.28724945f,
                  0.983073294f, -0.24462612f);
  });
}
// Degree 5: relative error of the tail below 6.5e-5, under a quarter of an ulp of a 16-bit result (fp16's is
// 2^-13 = 1.2e-4): two instructions fewer, for kernels that round Phi's products to 16 bits.
__device__ __forceinline__ float normal_cdf_coarse_fast(float x) {
  return normal_cdf_from_tail(x, [](float t) {
    return horner(t, -2.82583117f, 1.44934201f, 0.457092196f, 0.500079691f, -0.851373911f, 0.270659387f);
  });
}
TESSERA_CUDA_UNARY(log, logf(x))
TESSERA_CUDA_UNARY(log2, log2f(x))
TESSERA_CUDA_UNARY(sqrt, sqrtf(x))
TESSERA_CUDA_UNARY(rsqrt, 1.f / sqrtf(x))
TESSERA_CUDA_UNARY(tanh, tanhf(x))
TESSERA_CUDA_UNARY(sigmoid, sigmoid_fast(x))
TESSERA_CUDA_UNARY(erf, erff(x))
TESSERA_CUDA_UNARY(normal_cdf, normal_cdf_fast(x))
TESSERA_CUDA_UNARY(normal_cdf_coarse, normal_cdf_coarse_fast(x))
TESSERA_CUDA_UNARY(sin, sinf(x))
TESSERA_CUDA_UNARY(cos, cosf(x))
TESSERA_CUDA_UNARY(abs, fabsf(x))
#undef TESSERA_CUDA_UNARY

// cos and sin of the same angles, from one reduction: the quadrant k = rint(x 2 / pi) and r = x - k pi / 2 in
// three fused steps (fp32 pi / 2 and two corrections), then the multi-function unit's sin and cos of r in
// [-pi/4, pi/4] (absolute error about 2^-21), swapped and negated by quadrant. A quarter of the instructions
// of cosf and sinf (which also branch to a slow reduction past 105615). Accurate while |k| < 2^22, i.e. angles
// below 6.5e6 radians, where an fp32 angle itself is already 0.25 radians coarse.
__device__ __forceinline__ void cos_sin_fast(float x, float& c, float& s) {
  constexpr float kRound = 12582912.f;  // 1.5 * 2^23: x * 2 / pi + kRound holds rint(x * 2 / pi) in its low bits
  const float shifted = fmaf(x, 0.636619772f, kRound);
  const float k = shifted - kRound;
  const int quadrant = __float_as_int(shifted);
  float r = fmaf(k, -1.57079637f, x);
  r = fmaf(k, 4.37113883e-08f, r);
  r = fmaf(k, 1.71512451e-15f, r);
  float cr, sr;
  asm("cos.approx.ftz.f32 %0, %1;" : "=f"(cr) : "f"(r));
  asm("sin.approx.ftz.f32 %0, %1;" : "=f"(sr) : "f"(r));
  const bool swap = quadrant & 1;
  c = __int_as_float(__float_as_int(swap ? sr : cr) ^ (((quadrant + 1) & 2) << 30));
  s = __int_as_float(__float_as_int(swap ? cr : sr) ^ ((quadrant & 2) << 30));
}

template <class L>
struct CosSin {
  Tile<float, L> cos, sin;
};
template <class T, class L>
__device__ __forceinline__ CosSin<L> cos_sin(const Tile<T, L>& a) {
  static_assert(std::is_same_v<T, float>, "cos_sin: needs a float tile");
  CosSin<L> out;
#pragma unroll
  for (int e = 0; e < L::size; ++e) cos_sin_fast(a.v[e], out.cos.v[e], out.sin.v[e]);
  return out;
}

template <class A, class B, class D>
__device__ __forceinline__ auto fma(const A& a, const B& b, const D& c) { return a * b + c; }

template <class L, class A, class B>
__device__ __forceinline__ auto where(const Tile<bool, L>& mask, const A& a, const B& b) {
  using LAB = std::conditional_t<detail::any_tile_v<A, B>, detail::result_layout_t<A, B>, L>;
  using LO = common_layout_t<L, LAB>;
  using Out = std::common_type_t<typename detail::operand<A>::value_type, typename detail::operand<B>::value_type>;
  Tile<Out, LO> out;
#pragma unroll
  for (int e = 0; e < LO::size; ++e)
    out.v[e] = detail::get<LO>(mask, e) ? Out(detail::get<LO>(a, e)) : Out(detail::get<LO>(b, e));
  return out;
}

// acc = where(rows, acc * factor, acc) (host/math.h): elementwise here; accumulator layouts skip the
// multiplications per warp (hopper/wgmma.h).
template <class L, class LR, class F>
__device__ __forceinline__ void scale_rows_where(Tile<float, L>& acc, const Tile<bool, LR>& rows, const Tile<F, LR>& factor) {
  acc = where(rows, acc * factor, acc);
}

template <int R, int C, class T, class L>
__device__ __forceinline__ auto broadcast_to(const Tile<T, L>& a) {
  using LO = Blocked<R, C, L::threads>;
  static_assert(std::is_same_v<common_layout_t<L, LO>, LO>, "broadcast_to: shapes do not broadcast");
  Tile<T, LO> out;
#pragma unroll
  for (int e = 0; e < LO::size; ++e) out.v[e] = a.v[broadcast_index<L, LO>(e)];
  return out;
}

}  // namespace tessera::tile::cuda

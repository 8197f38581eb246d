// Storage types for 16- and 8-bit floats, identical on the host and in CUDA kernels.
// They are plain bit containers: arithmetic happens in float after to_float().
// Rounding is round-to-nearest-even everywhere, so host and device agree bit for bit.
#pragma once
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#define TESSERA_HD __host__ __device__ __forceinline__
#else
#define TESSERA_HD inline
#endif

namespace tessera {

struct bf16 { uint16_t bits; };
struct f16 { uint16_t bits; };
struct fp8_e4m3 { uint8_t bits; };
struct fp8_e5m2 { uint8_t bits; };

namespace detail {
TESSERA_HD uint32_t float_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  uint32_t u; std::memcpy(&u, &f, 4); return u;
#endif
}
TESSERA_HD float bits_float(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f; std::memcpy(&f, &u, 4); return f;
#endif
}

// Generic IEEE-style narrowing with round-to-nearest-even. EXP/MAN are the target's field widths.
// `finite_only` formats (e4m3fn) have no infinity: overflow and inf saturate to NaN per OCP spec.
template <int EXP, int MAN, bool FINITE_ONLY>
TESSERA_HD uint32_t narrow(float f) {
  const uint32_t u = float_bits(f);
  const uint32_t sign = (u >> 31) << (EXP + MAN);
  const uint32_t abs = u & 0x7fffffffu;
  constexpr int bias = (1 << (EXP - 1)) - 1;
  constexpr uint32_t nan_code = FINITE_ONLY ? ((1u << (EXP + MAN)) - 1) : (((1u << EXP) - 1) << MAN) | (1u << (MAN - 1));
  constexpr uint32_t inf_code = FINITE_ONLY ? nan_code : (((1u << EXP) - 1) << MAN);
  // largest finite magnitude code: e4m3fn's all-ones exponent is still finite except mantissa 111
  constexpr uint32_t max_code = FINITE_ONLY ? ((1u << (EXP + MAN)) - 2) : ((((1u << EXP) - 2) << MAN) | ((1u << MAN) - 1));
  if (abs > 0x7f800000u) return sign | nan_code;
  if (abs == 0x7f800000u) return sign | inf_code;
  const int exp = int(abs >> 23) - 127;
  uint32_t man = abs & 0x7fffffu;
  if (exp < 1 - bias) {  // subnormal in target (or zero)
    if (exp < 1 - bias - MAN - 1) return sign;  // below half the smallest subnormal
    man |= 0x800000u;
    const int shift = (1 - bias - exp) + (23 - MAN);
    uint32_t q = man >> shift;
    const uint32_t rem = man & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (q & 1))) ++q;
    return sign | q;  // q may round up into the smallest normal: the encoding carries over correctly
  }
  uint32_t code = (uint32_t(exp + bias) << MAN) | (man >> (23 - MAN));
  const uint32_t rem = man & ((1u << (23 - MAN)) - 1), half = 1u << (22 - MAN);
  if (rem > half || (rem == half && (code & 1))) ++code;
  if (code > max_code) return sign | (FINITE_ONLY ? nan_code : inf_code);
  return sign | code;
}

template <int EXP, int MAN, bool FINITE_ONLY>
TESSERA_HD float widen(uint32_t v) {
  constexpr int bias = (1 << (EXP - 1)) - 1;
  const uint32_t sign = (v >> (EXP + MAN)) & 1u;
  const uint32_t e = (v >> MAN) & ((1u << EXP) - 1);
  const uint32_t m = v & ((1u << MAN) - 1);
  uint32_t out;
  if (FINITE_ONLY && e == (1u << EXP) - 1 && m == (1u << MAN) - 1) {
    out = 0x7fc00000u;
  } else if (!FINITE_ONLY && e == (1u << EXP) - 1) {
    out = m ? (0x7fc00000u | (m << (23 - MAN))) : 0x7f800000u;
  } else if (e == 0) {
    if (m == 0) { out = 0; }
    else {  // subnormal: normalise
      int shift = 0; uint32_t mm = m;
      while (!(mm & (1u << MAN))) { mm <<= 1; ++shift; }
      out = (uint32_t(127 - bias + 1 - shift) << 23) | ((mm & ((1u << MAN) - 1)) << (23 - MAN));
    }
  } else {
    out = (uint32_t(int(e) - bias + 127) << 23) | (m << (23 - MAN));
  }
  return bits_float(out | (sign << 31));
}
}  // namespace detail

TESSERA_HD float to_float(float x) { return x; }
TESSERA_HD float to_float(bf16 x) { return detail::bits_float(uint32_t(x.bits) << 16); }
// On the GPU f16 and e4m3 convert in hardware (cvt: one or two instructions for the software form's dozen
// and its loop over subnormals); both give the same values.
TESSERA_HD float to_float(f16 x) {
#if defined(__CUDA_ARCH__)
  return __half2float(__ushort_as_half(x.bits));
#else
  return detail::widen<5, 10, false>(x.bits);
#endif
}
TESSERA_HD float to_float(fp8_e4m3 x) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  return __half2float(__half(__nv_cvt_fp8_to_halfraw(__nv_fp8_storage_t(x.bits), __NV_E4M3)));
#else
  return detail::widen<4, 3, true>(x.bits);
#endif
}
TESSERA_HD float to_float(fp8_e5m2 x) { return detail::widen<5, 2, false>(x.bits); }

template <class T> TESSERA_HD T from_float(float f);
template <> TESSERA_HD float from_float<float>(float f) { return f; }
template <> TESSERA_HD bf16 from_float<bf16>(float f) {
  const uint32_t u = detail::float_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return bf16{uint16_t((u >> 16) | 0x40u)};  // quiet NaN, sign kept
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  // The hardware conversion rounds to nearest even like the integer form below (one instruction instead of
  // four; memory-bound kernels convert every element they write).
  return bf16{__bfloat16_as_ushort(__float2bfloat16_rn(f))};
#else
  return bf16{uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16)};
#endif
}
template <> TESSERA_HD f16 from_float<f16>(float f) {
#if defined(__CUDA_ARCH__)
  return f16{__half_as_ushort(__float2half_rn(f))};  // round to nearest even, as the software form
#else
  return f16{uint16_t(detail::narrow<5, 10, false>(f))};
#endif
}
template <> TESSERA_HD fp8_e4m3 from_float<fp8_e4m3>(float f) { return fp8_e4m3{uint8_t(detail::narrow<4, 3, true>(f))}; }
template <> TESSERA_HD fp8_e5m2 from_float<fp8_e5m2>(float f) { return fp8_e5m2{uint8_t(detail::narrow<5, 2, false>(f))}; }

}  // namespace tessera

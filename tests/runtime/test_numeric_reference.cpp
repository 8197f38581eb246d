// 16- and 8-bit float conversions of numeric.h against independent references:
//  - f16: GCC's _Float16 (IEEE round-to-nearest-even in libgcc / F16C),
//  - bf16: a straightforward rounding of the upper 16 bits written here,
//  - fp8 e4m3 (OCP e4m3fn) and e5m2: a brute-force search for the nearest representable value in exact
//    integer arithmetic.
//
// Conventions numeric.h follows and these tests pin down:
//  - NaN stays NaN and keeps its sign; f16 NaN payloads are not preserved (every NaN narrows to the quiet
//    NaN 0x7e00 / 0xfe00); bf16 NaNs keep their upper payload bits and are quieted (bit 6 set).
//  - e4m3fn (OCP "fn": finite, NaN = S.1111.111, max 448) has no infinity. numeric.h converts WITHOUT
//    saturation, as cuda_fp8.h's __NV_NOSAT does: a value that rounds beyond 448 (|x| > 464; 464 itself
//    is a tie and rounds to the even code 448) and +-inf become NaN (0x7f / 0xff). The brute-force
//    reference models this with a virtual code 0x7f = 480 one step beyond 448 that maps to NaN.
//  - e5m2 is IEEE-like: max 57344, |x| >= 61440 rounds to inf, NaN narrows to 0x7e / 0xfe.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <vector>

#include "common/test_util.h"
#include "tessera/runtime/numeric.h"

namespace tessera {
namespace {

uint32_t bits_of(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
float float_of(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
std::string hex(uint32_t u) { std::ostringstream s; s << "0x" << std::hex << u; return s.str(); }

// ---------------------------------------------------------------------------------------------------------
// f16 against _Float16

uint16_t ref_f16_bits(float f) {
  const _Float16 h = static_cast<_Float16>(f);
  uint16_t b; std::memcpy(&b, &h, 2);
  return b;
}
float ref_f16_to_float(uint16_t b) {
  _Float16 h; std::memcpy(&h, &b, 2);
  return static_cast<float>(h);
}
bool f16_is_nan(uint16_t b) { return (b & 0x7c00) == 0x7c00 && (b & 0x3ff) != 0; }

// from_float<f16>(f) against _Float16; NaN only for NaN-ness and sign.
::testing::AssertionResult f16_matches(float f) {
  const uint16_t got = from_float<f16>(f).bits, want = ref_f16_bits(f);
  if (std::isnan(f)) {
    if (f16_is_nan(got) && (got & 0x8000) == (bits_of(f) & 0x80000000u) >> 16) return ::testing::AssertionSuccess();
  } else if (got == want) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "from_float<f16>(" << f << " = " << hex(bits_of(f)) << ") = " << hex(got)
                                       << ", _Float16 gives " << hex(want);
}

TEST(NumericRefF16, EveryPatternWidensLikeFloat16) {
  for (uint32_t b = 0; b < 65536; ++b) {
    const float got = to_float(f16{uint16_t(b)});
    const float want = ref_f16_to_float(uint16_t(b));
    if (f16_is_nan(uint16_t(b))) {
      ASSERT_TRUE(std::isnan(got)) << "f16 " << hex(b);
      ASSERT_EQ(std::signbit(got), bool(b & 0x8000)) << "f16 " << hex(b);
    } else {
      ASSERT_EQ(bits_of(got), bits_of(want)) << "to_float(f16 " << hex(b) << ")";
    }
  }
}

TEST(NumericRefF16, EveryPatternRoundTrips) {
  for (uint32_t b = 0; b < 65536; ++b) {
    const uint16_t back = from_float<f16>(to_float(f16{uint16_t(b)})).bits;
    if (f16_is_nan(uint16_t(b))) {
      ASSERT_TRUE(f16_is_nan(back)) << "f16 NaN " << hex(b) << " came back as " << hex(back);
      ASSERT_EQ(back & 0x8000, b & 0x8000) << "f16 NaN " << hex(b) << " lost its sign";
    } else {
      ASSERT_EQ(back, b) << "f16 " << hex(b) << " -> " << to_float(f16{uint16_t(b)}) << " -> " << hex(back);
    }
  }
}

// Every float whose upper 19 bits take each value, with the low 13 bits (those rounded away for a normal
// f16) at the patterns where rounding decides: exact, just above, just below / at / above halfway, all ones.
// Subnormal f16 results round at higher bits, which the exhaustive upper bits cover.
TEST(NumericRefF16, NarrowingMatchesFloat16OnRoundingBoundaries) {
  const uint32_t lows[] = {0x0000, 0x0001, 0x0fff, 0x1000, 0x1001, 0x1fff, 0x0800, 0x17ff};
  for (uint32_t hi = 0; hi < (1u << 19); ++hi)
    for (uint32_t lo : lows) ASSERT_TRUE(f16_matches(float_of((hi << 13) | lo)));
}

TEST(NumericRefF16, NarrowingMatchesFloat16OnRandomFloats) {
  auto& g = testing::rng();
  std::uniform_int_distribution<uint32_t> any;
  std::uniform_int_distribution<int> exp_in_range(127 - 30, 127 + 17);  // below subnormal f16 .. overflow
  for (int i = 0; i < 2'000'000; ++i) {
    uint32_t u = any(g);
    if (i % 2) u = (u & 0x807fffffu) | (uint32_t(exp_in_range(g)) << 23);
    ASSERT_TRUE(f16_matches(float_of(u)));
  }
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const float named[] = {0.f, -0.f, 65504.f, 65519.99f, 65520.f, -65520.f, 1e30f, inf, -inf, nan, -nan,
                         float_of(0x7f800001u), float_of(0xff800001u), 0x1p-24f, 0x1p-25f, 0x1.000002p-25f,
                         0x1.8p-24f, 0x1p-14f, 0x1.ffcp-15f, 0x1.ffep-15f, std::numeric_limits<float>::denorm_min(),
                         -std::numeric_limits<float>::denorm_min()};
  for (float f : named) EXPECT_TRUE(f16_matches(f));
  EXPECT_EQ(from_float<f16>(65520.f).bits, 0x7c00);   // halfway to 65536 rounds to even: inf
  EXPECT_EQ(from_float<f16>(65519.99f).bits, 0x7bff);
  EXPECT_EQ(from_float<f16>(0x1p-25f).bits, 0x0000);  // half the smallest subnormal: ties to even (0)
  EXPECT_EQ(from_float<f16>(0x1.000002p-25f).bits, 0x0001);
  EXPECT_EQ(from_float<f16>(-0x1p-25f).bits, 0x8000);
  EXPECT_EQ(from_float<f16>(0x1.ffep-15f).bits, 0x0400);  // subnormal rounds up into the smallest normal
  EXPECT_EQ(from_float<f16>(nan).bits, 0x7e00);
}

// ---------------------------------------------------------------------------------------------------------
// bf16 against a straightforward rounding of the upper half

uint16_t ref_bf16_bits(float f) {
  const uint32_t u = bits_of(f);
  uint32_t upper = u >> 16;
  const uint32_t lower = u & 0xffffu;
  if (std::isnan(f)) return uint16_t(upper | 0x40u);
  if (lower > 0x8000u || (lower == 0x8000u && (upper & 1u))) ++upper;  // carries into the exponent, up to inf
  return uint16_t(upper);
}
bool bf16_is_nan(uint16_t b) { return (b & 0x7f80) == 0x7f80 && (b & 0x7f) != 0; }

::testing::AssertionResult bf16_matches(float f) {
  const uint16_t got = from_float<bf16>(f).bits, want = ref_bf16_bits(f);
  if (std::isnan(f)) {
    if (bf16_is_nan(got) && (got & 0x8000) == ((bits_of(f) >> 16) & 0x8000)) return ::testing::AssertionSuccess();
  } else if (got == want) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "from_float<bf16>(" << f << " = " << hex(bits_of(f)) << ") = " << hex(got)
                                       << ", expected " << hex(want);
}

TEST(NumericRefBF16, EveryPatternWidensExactlyAndRoundTrips) {
  for (uint32_t b = 0; b < 65536; ++b) {
    const float f = to_float(bf16{uint16_t(b)});
    ASSERT_EQ(bits_of(f), b << 16) << "to_float(bf16 " << hex(b) << ")";
    const uint16_t back = from_float<bf16>(f).bits;
    if (bf16_is_nan(uint16_t(b))) {
      ASSERT_TRUE(bf16_is_nan(back)) << "bf16 NaN " << hex(b) << " came back as " << hex(back);
      ASSERT_EQ(back & 0x8000, b & 0x8000);
    } else {
      ASSERT_EQ(back, b) << "bf16 " << hex(b) << " did not round-trip";
    }
  }
}

TEST(NumericRefBF16, NarrowingMatchesReferenceOnBoundariesAndRandomFloats) {
  // Each bf16 pattern with the dropped half at the interesting points (exact, halfway, either side).
  const uint32_t lows[] = {0x0000, 0x0001, 0x7fff, 0x8000, 0x8001, 0xffff};
  for (uint32_t hi = 0; hi < 65536; ++hi)
    for (uint32_t lo : lows) ASSERT_TRUE(bf16_matches(float_of((hi << 16) | lo)));
  auto& g = testing::rng();
  std::uniform_int_distribution<uint32_t> any;
  for (int i = 0; i < 2'000'000; ++i) {
    uint32_t u = any(g);
    if (i % 4 == 1) u &= 0x807fffffu;                 // float subnormals
    if (i % 4 == 2) u = (u & 0xffff0000u) | 0x8000u;  // exact halfway cases
    if (i % 4 == 3) u |= 0x7f000000u;                 // huge values: overflow to inf (and NaNs)
    ASSERT_TRUE(bf16_matches(float_of(u)));
  }
  EXPECT_EQ(from_float<bf16>(float_of(0x7f7fffffu)).bits, 0x7f80);  // FLT_MAX rounds to inf
  EXPECT_EQ(from_float<bf16>(float_of(0xff7f8000u)).bits, 0xff80);  // halfway above bf16 max (odd): -inf
  EXPECT_EQ(from_float<bf16>(float_of(0x7f7f7fffu)).bits, 0x7f7f);
  EXPECT_EQ(from_float<bf16>(float_of(0x3f808000u)).bits, 0x3f80);  // tie, even stays
  EXPECT_EQ(from_float<bf16>(float_of(0x3f818000u)).bits, 0x3f82);  // tie, odd rounds up
  EXPECT_EQ(from_float<bf16>(float_of(0x00008000u)).bits, 0x0000);  // subnormal tie to even zero
  EXPECT_EQ(from_float<bf16>(float_of(0x007fffffu)).bits, 0x0080);  // largest subnormal rounds to min normal
  EXPECT_EQ(from_float<bf16>(float_of(0x7f800001u)).bits, 0x7fc0);  // NaN with only low payload: still NaN
  EXPECT_EQ(from_float<bf16>(float_of(0xff800001u)).bits, 0xffc0);
  EXPECT_EQ(from_float<bf16>(std::numeric_limits<float>::infinity()).bits, 0x7f80);
}

// ---------------------------------------------------------------------------------------------------------
// fp8 against brute force

struct Fp8Format {
  const char* name;
  int exp, man;
  bool finite_only;  // e4m3fn
};
constexpr Fp8Format kE4M3{"e4m3", 4, 3, true};
constexpr Fp8Format kE5M2{"e5m2", 5, 2, false};

// The value of a magnitude code (sign bit clear), decoded from the format's definition.
double fp8_value(const Fp8Format& f, uint32_t code) {
  const int bias = (1 << (f.exp - 1)) - 1;
  const uint32_t e = code >> f.man, m = code & ((1u << f.man) - 1);
  if (e == 0) return std::ldexp(double(m), 1 - bias - f.man);
  return std::ldexp(double((1u << f.man) | m), int(e) - bias - f.man);
}
bool fp8_is_nan(const Fp8Format& f, uint32_t code) {
  code &= 0x7f;
  if (f.finite_only) return code == 0x7f;
  return (code >> f.man) == (1u << f.exp) - 1 && (code & ((1u << f.man) - 1)) != 0;
}
bool fp8_is_inf(const Fp8Format& f, uint32_t code) { return !f.finite_only && (code & 0x7f) == 0x7c; }
uint32_t fp8_max_code(const Fp8Format& f) { return f.finite_only ? 0x7e : 0x7b; }

uint32_t fp8_from(const Fp8Format& f, float x) {
  return f.finite_only ? from_float<fp8_e4m3>(x).bits : from_float<fp8_e5m2>(x).bits;
}
float fp8_to(const Fp8Format& f, uint32_t code) {
  return f.finite_only ? to_float(fp8_e4m3{uint8_t(code)}) : to_float(fp8_e5m2{uint8_t(code)});
}

using i128 = __int128;
// x * 2^64 as an exact integer (|x| in [2^-20, 2^20]: floats there are multiples of 2^-43).
i128 scaled(double x) { return i128(std::ldexp(x, 64)); }

// Nearest representable value by exhaustive search, ties to the even code. One virtual code beyond the
// largest finite one stands for overflow: it becomes inf (e5m2) or NaN (e4m3fn).
uint32_t ref_fp8(const Fp8Format& f, float x) {
  const uint32_t sign = std::signbit(x) ? 0x80u : 0u;
  const uint32_t nan = f.finite_only ? 0x7f : 0x7e, inf = f.finite_only ? 0x7f : 0x7c;
  if (std::isnan(x)) return sign | nan;
  const double a = std::fabs(double(x));
  const uint32_t max = fp8_max_code(f), virt = max + 1;
  const double virt_value = 2 * fp8_value(f, max) - fp8_value(f, max - 1);
  if (std::isinf(x) || a >= 0x1p20) return sign | inf;
  if (a < 0x1p-20) return sign;  // far below half the smallest subnormal of either format
  const i128 xs = scaled(a);
  uint32_t best = 0;
  i128 best_d = xs;  // distance to code 0
  for (uint32_t c = 1; c <= virt; ++c) {
    const i128 v = scaled(c == virt ? virt_value : fp8_value(f, c));
    const i128 d = xs > v ? xs - v : v - xs;
    if (d < best_d || (d == best_d && (c & 1u) == 0)) { best = c; best_d = d; }
  }
  if (best == virt) return sign | inf;
  return sign | best;
}

void check_fp8_patterns(const Fp8Format& f) {
  int nans = 0;
  for (uint32_t c = 0; c < 256; ++c) {
    const float v = fp8_to(f, c);
    const uint32_t back = fp8_from(f, v);
    if (fp8_is_nan(f, c)) {
      ++nans;
      ASSERT_TRUE(std::isnan(v)) << f.name << " " << hex(c) << " should widen to NaN";
      ASSERT_EQ(std::signbit(v), bool(c & 0x80)) << f.name << " NaN " << hex(c) << " sign";
      ASSERT_TRUE(fp8_is_nan(f, back)) << f.name << " NaN " << hex(c) << " came back as " << hex(back);
      ASSERT_EQ(back & 0x80, c & 0x80) << f.name << " NaN " << hex(c) << " lost its sign";
      continue;
    }
    if (fp8_is_inf(f, c)) {
      ASSERT_TRUE(std::isinf(v) && std::signbit(v) == bool(c & 0x80)) << f.name << " " << hex(c);
    } else {
      const double want = (c & 0x80 ? -1 : 1) * fp8_value(f, c & 0x7f);
      ASSERT_EQ(double(v), want) << f.name << " " << hex(c);
      ASSERT_EQ(std::signbit(v), bool(c & 0x80)) << f.name << " " << hex(c) << " sign";
    }
    ASSERT_EQ(back, c) << f.name << " " << hex(c) << " -> " << v << " -> " << hex(back);
  }
  EXPECT_EQ(nans, f.finite_only ? 2 : 6) << f.name;
}

TEST(NumericRefFp8, E4M3EveryPatternRoundTrips) {
  check_fp8_patterns(kE4M3);
  EXPECT_EQ(to_float(fp8_e4m3{0x7e}), 448.f);
  EXPECT_EQ(to_float(fp8_e4m3{0x78}), 256.f);  // exponent field 1111 is still finite in e4m3fn
  EXPECT_EQ(to_float(fp8_e4m3{0x01}), 0x1p-9f);
  EXPECT_EQ(to_float(fp8_e4m3{0x08}), 0x1p-6f);
  EXPECT_TRUE(std::isnan(to_float(fp8_e4m3{0xff})));
}
TEST(NumericRefFp8, E5M2EveryPatternRoundTrips) {
  check_fp8_patterns(kE5M2);
  EXPECT_EQ(to_float(fp8_e5m2{0x7b}), 57344.f);
  EXPECT_EQ(to_float(fp8_e5m2{0x01}), 0x1p-16f);
  EXPECT_TRUE(std::isinf(to_float(fp8_e5m2{0x7c})));
}

void check_fp8_rounding(const Fp8Format& f) {
  std::vector<float> xs;
  // Every representable value, the midpoints between neighbours, and one float ulp either side of each.
  for (uint32_t c = 0; c <= fp8_max_code(f); ++c) {
    const double v = fp8_value(f, c);
    const double next = c < fp8_max_code(f) ? fp8_value(f, c + 1) : 2 * v - fp8_value(f, c - 1);
    for (double p : {v, (v + next) / 2}) {
      const float pf = float(p);
      xs.insert(xs.end(), {pf, std::nextafter(pf, 0.f), std::nextafter(pf, 1e30f)});
    }
  }
  // Random floats across and beyond the format's range, including float subnormals.
  auto& g = testing::rng();
  std::uniform_int_distribution<uint32_t> any;
  std::uniform_int_distribution<int> exps(127 - 24, 127 + 20);
  for (int i = 0; i < 300'000; ++i) {
    uint32_t u = any(g);
    if (i % 3 == 0) u = (u & 0x807fffffu) | (uint32_t(exps(g)) << 23);
    if (i % 3 == 1) u &= 0x80ffffffu;  // tiny and subnormal floats
    xs.push_back(float_of(u));
  }
  const float inf = std::numeric_limits<float>::infinity();
  xs.insert(xs.end(), {inf, std::numeric_limits<float>::quiet_NaN(), float_of(0x7fc00001u), 0.f, 1e38f});
  const size_t n = xs.size();
  for (size_t i = 0; i < n; ++i) xs.push_back(-xs[i]);
  for (float x : xs) {
    const uint32_t got = fp8_from(f, x), want = ref_fp8(f, x);
    if (fp8_is_nan(f, want)) {
      ASSERT_TRUE(fp8_is_nan(f, got) && (got & 0x80) == (want & 0x80))
          << f.name << "(" << x << " = " << hex(bits_of(x)) << ") = " << hex(got) << ", expected NaN " << hex(want);
    } else {
      ASSERT_EQ(got, want) << f.name << "(" << x << " = " << hex(bits_of(x)) << ")";
    }
  }
}

TEST(NumericRefFp8, E4M3RoundsToNearestEven) {
  check_fp8_rounding(kE4M3);
  // The non-saturating e4m3fn choice, spelled out.
  EXPECT_EQ(from_float<fp8_e4m3>(448.f).bits, 0x7e);
  EXPECT_EQ(from_float<fp8_e4m3>(463.99f).bits, 0x7e);
  EXPECT_EQ(from_float<fp8_e4m3>(464.f).bits, 0x7e);  // tie between 448 (even) and 480 (the NaN code)
  EXPECT_EQ(from_float<fp8_e4m3>(464.01f).bits, 0x7f);
  EXPECT_EQ(from_float<fp8_e4m3>(-1000.f).bits, 0xff);
  EXPECT_EQ(from_float<fp8_e4m3>(std::numeric_limits<float>::infinity()).bits, 0x7f);
  EXPECT_EQ(from_float<fp8_e4m3>(-std::numeric_limits<float>::infinity()).bits, 0xff);
  EXPECT_EQ(from_float<fp8_e4m3>(0x1p-10f).bits, 0x00);   // half the smallest subnormal: even (0)
  EXPECT_EQ(from_float<fp8_e4m3>(0x1.8p-9f).bits, 0x02);  // 1.5 subnormal steps: even (2)
  EXPECT_EQ(from_float<fp8_e4m3>(0x1.ep-7f).bits, 0x08);  // 7.5 steps rounds up into the smallest normal
}

TEST(NumericRefFp8, E5M2RoundsToNearestEven) {
  check_fp8_rounding(kE5M2);
  EXPECT_EQ(from_float<fp8_e5m2>(57344.f).bits, 0x7b);
  EXPECT_EQ(from_float<fp8_e5m2>(61439.f).bits, 0x7b);
  EXPECT_EQ(from_float<fp8_e5m2>(61440.f).bits, 0x7c);  // tie: rounds to even, which is inf
  EXPECT_EQ(from_float<fp8_e5m2>(-1e9f).bits, 0xfc);
  EXPECT_EQ(from_float<fp8_e5m2>(0x1p-17f).bits, 0x00);
  EXPECT_EQ(from_float<fp8_e5m2>(0x1.000002p-17f).bits, 0x01);
}

}  // namespace
}  // namespace tessera

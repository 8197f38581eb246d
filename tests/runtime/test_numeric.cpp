// Conversions of the 16- and 8-bit float types, over every bit pattern, against independent references:
// GCC's _Float16 for f16, and for bf16 and fp8 a brute-force search for the nearest representable value.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "tessera/runtime/dtype.h"

namespace tessera {
namespace {

uint32_t bits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
float from_bits(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }

// Floats that exercise rounding: random values over the whole range, and for every value of the narrow
// format its neighbours and the exact midpoints to the next value.
template <class Decode>
std::vector<float> probe_floats(int codes, Decode decode) {
  std::vector<float> out;
  std::mt19937 gen(12345);
  for (int i = 0; i < 20000; ++i) out.push_back(from_bits(gen()));
  for (int c = 0; c < codes; ++c) {
    const double v = decode(c);
    if (!std::isfinite(v)) continue;
    out.push_back(float(v));
    out.push_back(std::nextafter(float(v), INFINITY));
    out.push_back(std::nextafter(float(v), -INFINITY));
    const double next = decode(c + 1);
    if (c + 1 < codes && std::isfinite(next) && std::signbit(next) == std::signbit(v)) {
      const double mid = (v + next) / 2;  // exact in float for these narrow formats
      out.push_back(float(mid));
      out.push_back(std::nextafter(float(mid), INFINITY));
      out.push_back(std::nextafter(float(mid), -INFINITY));
    }
  }
  out.push_back(0.f);
  out.push_back(-0.f);
  out.push_back(INFINITY);
  out.push_back(-INFINITY);
  out.push_back(std::numeric_limits<float>::quiet_NaN());
  out.push_back(std::numeric_limits<float>::denorm_min());
  return out;
}

TEST(Numeric, F16DecodesEveryPatternLikeFloat16) {
  for (uint32_t b = 0; b < 65536; ++b) {
    _Float16 h;
    const uint16_t b16 = uint16_t(b);
    std::memcpy(&h, &b16, 2);
    const float want = float(h), got = to_float(f16{b16});
    if (std::isnan(want)) ASSERT_TRUE(std::isnan(got)) << b;
    else ASSERT_EQ(bits(got), bits(want)) << "pattern " << b;
  }
}

TEST(Numeric, F16RoundsLikeFloat16) {
  auto decode = [](int c) {
    _Float16 h;
    const uint16_t b = uint16_t(c);
    std::memcpy(&h, &b, 2);
    return double(h);
  };
  for (float f : probe_floats(65536, decode)) {
    const _Float16 want = _Float16(f);
    uint16_t wb;
    std::memcpy(&wb, &want, 2);
    const uint16_t got = from_float<f16>(f).bits;
    if (std::isnan(f)) ASSERT_TRUE(std::isnan(to_float(f16{got})));
    else ASSERT_EQ(got, wb) << "float " << f << " (bits " << bits(f) << ")";
  }
}

// The value of a code of a format with EXP exponent and MAN mantissa bits (IEEE-style, or e4m3fn).
double decode_small(int code, int exp_bits, int man_bits, bool finite_only) {
  const int bias = (1 << (exp_bits - 1)) - 1;
  const int s = (code >> (exp_bits + man_bits)) & 1, e = (code >> man_bits) & ((1 << exp_bits) - 1), m = code & ((1 << man_bits) - 1);
  double v;
  if (finite_only && e == (1 << exp_bits) - 1 && m == (1 << man_bits) - 1) return NAN;
  if (!finite_only && e == (1 << exp_bits) - 1) return m ? NAN : (s ? -INFINITY : INFINITY);
  if (e == 0) v = std::ldexp(double(m), 1 - bias - man_bits);
  else v = std::ldexp(1.0 + double(m) / (1 << man_bits), e - bias);
  return s ? -v : v;
}

// Round to nearest, ties to the even code, by searching every finite code; beyond the largest finite
// value by at least half a step: overflow (inf for IEEE-style formats, NaN for e4m3fn).
template <int EXP, int MAN, bool FINITE_ONLY>
int brute_force_encode(float f) {
  constexpr int codes = 1 << (1 + EXP + MAN), half = codes / 2;
  if (std::isnan(f)) return -1;
  const int sign = std::signbit(f) ? half : 0;
  const double a = std::fabs(double(f));
  int best = -1;
  double best_d = INFINITY;
  int largest = 0;
  for (int c = 0; c < half; ++c) {
    const double v = decode_small(c, EXP, MAN, FINITE_ONLY);
    if (!std::isfinite(v)) continue;
    largest = c;
    const double d = std::fabs(v - a);
    if (d < best_d || (d == best_d && (c & 1) == 0)) { best_d = d; best = c; }
  }
  const double max_v = decode_small(largest, EXP, MAN, FINITE_ONLY);
  const double step = max_v - decode_small(largest - 1, EXP, MAN, FINITE_ONLY);
  const double limit = max_v + step / 2;
  if (a > limit || (a == limit && (largest & 1)) || std::isinf(a)) return -2;  // overflow
  return sign | best;
}

template <class T, int EXP, int MAN, bool FINITE_ONLY>
void check_small_float() {
  constexpr int codes = 1 << (1 + EXP + MAN);
  for (int c = 0; c < codes; ++c) {
    const double want = decode_small(c, EXP, MAN, FINITE_ONLY);
    const float got = to_float(T{uint8_t(c)});
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(got)) << c;
    } else {
      ASSERT_EQ(double(got), want) << "code " << c;
    }
    if (!std::isnan(want)) {
      ASSERT_EQ(from_float<T>(got).bits, c) << "round trip of code " << c;
    }
  }
  for (float f : probe_floats(codes, [](int c) { return decode_small(c, EXP, MAN, FINITE_ONLY); })) {
    const int want = brute_force_encode<EXP, MAN, FINITE_ONLY>(f);
    const uint8_t got = from_float<T>(f).bits;
    if (want == -1) {
      ASSERT_TRUE(std::isnan(to_float(T{got}))) << f;
    } else if (want == -2) {
      if (FINITE_ONLY) ASSERT_TRUE(std::isnan(to_float(T{got}))) << "overflow of " << f << " is NaN in e4m3fn";
      else ASSERT_TRUE(std::isinf(to_float(T{got})) && std::signbit(to_float(T{got})) == std::signbit(f)) << "overflow of " << f;
    } else {
      ASSERT_EQ(int(got), want) << "float " << f;
    }
  }
}

TEST(Numeric, Fp8E4m3EveryPatternAndRounding) { check_small_float<fp8_e4m3, 4, 3, true>(); }
TEST(Numeric, Fp8E5m2EveryPatternAndRounding) { check_small_float<fp8_e5m2, 5, 2, false>(); }

TEST(Numeric, Bf16EveryPatternAndRounding) {
  auto decode = [](int c) { return double(from_bits(uint32_t(c) << 16)); };
  for (uint32_t b = 0; b < 65536; ++b) {
    const float got = to_float(bf16{uint16_t(b)});
    if (std::isnan(decode(int(b)))) ASSERT_TRUE(std::isnan(got));
    else ASSERT_EQ(bits(got), b << 16);
  }
  for (float f : probe_floats(65536, decode)) {
    const uint16_t got = from_float<bf16>(f).bits;
    if (std::isnan(f)) { ASSERT_TRUE(std::isnan(to_float(bf16{got}))); continue; }
    // Independent: the two bf16 neighbours by truncation, the nearer wins, ties to an even last bit.
    const uint32_t u = bits(f);
    const uint16_t lo = uint16_t(u >> 16), hi = uint16_t(lo + 1);
    const double dl = std::fabs(double(f) - decode(lo)), dh = std::isinf(f) ? INFINITY : std::fabs(double(f) - decode(hi));
    const uint16_t want = (u & 0xffff) == 0 ? lo : (dl < dh ? lo : dh < dl ? hi : ((lo & 1) ? hi : lo));
    ASSERT_EQ(got, want) << "float " << f;
  }
}

TEST(Numeric, DtypeFacts) {
  EXPECT_EQ(dtype_size(DType::bf16), 2u);
  EXPECT_EQ(dtype_size(DType::i64), 8u);
  EXPECT_EQ(dtype_name(DType::fp8_e4m3), "fp8_e4m3");
  EXPECT_EQ(dtype_from_name("bfloat16"), DType::bf16);
  EXPECT_FALSE(dtype_from_name("f24").has_value());
  EXPECT_FALSE(is_valid_dtype(9));
  EXPECT_FALSE(is_valid_dtype(-1));
  EXPECT_TRUE(is_floating(DType::f16));
  EXPECT_FALSE(is_floating(DType::i32));
}

}  // namespace
}  // namespace tessera

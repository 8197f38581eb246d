// The attention references against facts that do not need another implementation: a single visible key
// returns its value row, a zero query averages the visible values (lse = log of their count), a hand-worked
// softcapped row, and the references agreeing with each other (varlen = per-sequence fmha, paged decode =
// fmha over the gathered cache, append then read back).
#include <gtest/gtest.h>

#include <cmath>
#include <tuple>

#include "common/test_util.h"
#include "ops/attention/args.h"
#include "tessera/ops/attention.h"

namespace tessera::testing {
namespace {
const ops::Options kRef{dispatch::Backend::reference};

std::vector<float> zeros(size_t n) { return std::vector<float>(n, 0.f); }

TEST(AttentionReference, ZeroQueryAveragesTheVisibleValues) {
  // q = 0: every visible key has logit 0, so o is the mean of the visible v rows and lse = log(count).
  const int64_t B = 2, Hq = 4, Hkv = 2, Sq = 3, Sk = 5, D = 3, Dv = 2;
  for (bool causal : {false, true})
    for (int64_t window : {-1, 1}) {
      SCOPED_TRACE(std::string(causal ? "causal" : "full") + " window " + std::to_string(window));
      Tensor q = from_floats(zeros(B * Hq * Sq * D), {B, Hq, Sq, D}, DType::f32);
      Tensor k = random_tensor({B, Hkv, Sk, D}, DType::f32), v = random_tensor({B, Hkv, Sk, Dv}, DType::f32);
      Tensor o = poisoned({B, Hq, Sq, Dv}, DType::f32), lse = poisoned({B, Hq, Sq}, DType::f32);
      ops::fmha(q, k, v, o, lse, {0.f, causal, window, 0.f}, kRef);
      const auto vv = floats(v), oo = floats(o), ll = floats(lse);
      for (int64_t b = 0; b < B; ++b)
        for (int64_t h = 0; h < Hq; ++h)
          for (int64_t i = 0; i < Sq; ++i) {
            const int64_t pos = i + Sk - Sq, hk = h / (Hq / Hkv);
            const int64_t lo = window >= 0 ? std::max<int64_t>(0, pos - window) : 0, hi = causal ? pos + 1 : Sk;
            const int64_t row = (b * Hq + h) * Sq + i;
            EXPECT_NEAR(ll[size_t(row)], std::log(double(hi - lo)), 1e-6);
            for (int64_t c = 0; c < Dv; ++c) {
              double mean = 0;
              for (int64_t j = lo; j < hi; ++j) mean += vv[size_t(((b * Hkv + hk) * Sk + j) * Dv + c)];
              EXPECT_NEAR(oo[size_t(row * Dv + c)], mean / double(hi - lo), 1e-6);
            }
          }
    }
}

TEST(AttentionReference, OneVisibleKeyGivesItsValueAndRowsWithoutKeysGiveZero) {
  // Causal with Sq > Sk: query 0 sits at position -2 (sees nothing), query 2 at 0 (sees key 0 only).
  Tensor q = random_tensor({1, 1, 3, 4}, DType::f32), k = random_tensor({1, 1, 1, 4}, DType::f32);
  Tensor v = random_tensor({1, 1, 1, 5}, DType::f32);
  Tensor o = poisoned({1, 1, 3, 5}, DType::f32), lse = poisoned({1, 1, 3}, DType::f32);
  ops::fmha(q, k, v, o, lse, {0.5f, true, -1, 0.f}, kRef);
  const auto oo = floats(o), vv = floats(v), ll = floats(lse), qq = floats(q), kk = floats(k);
  for (int c = 0; c < 5; ++c) {
    EXPECT_EQ(oo[size_t(c)], 0.f);
    EXPECT_EQ(oo[size_t(5 + c)], 0.f);
    EXPECT_FLOAT_EQ(oo[size_t(10 + c)], vv[size_t(c)]);
  }
  EXPECT_EQ(ll[0], -INFINITY);
  EXPECT_EQ(ll[1], -INFINITY);
  double dot = 0;
  for (int c = 0; c < 4; ++c) dot += double(qq[size_t(8 + c)]) * kk[size_t(c)];
  EXPECT_NEAR(ll[2], 0.5 * dot, 1e-6);
}

TEST(AttentionReference, SoftcapByHand) {
  // Two keys, q.k = 3 and -1, scale 2, softcap 4: logits 4 tanh(6/4) and 4 tanh(-2/4).
  Tensor q = from_floats({1.f, 0.f}, {1, 1, 1, 2}, DType::f32);
  Tensor k = from_floats({3.f, 7.f, -1.f, 9.f}, {1, 1, 2, 2}, DType::f32);
  Tensor v = from_floats({10.f, 20.f}, {1, 1, 2, 1}, DType::f32);
  Tensor o = poisoned({1, 1, 1, 1}, DType::f32), lse = poisoned({1, 1, 1}, DType::f32);
  ops::fmha(q, k, v, o, lse, {2.f, false, -1, 4.f}, kRef);
  const double s0 = 4 * std::tanh(1.5), s1 = 4 * std::tanh(-0.5);
  const double p0 = 1 / (1 + std::exp(s1 - s0));
  EXPECT_NEAR(floats(o)[0], 10 * p0 + 20 * (1 - p0), 1e-5);
  EXPECT_NEAR(floats(lse)[0], std::log(std::exp(s0) + std::exp(s1)), 1e-6);
}

TEST(AttentionReference, VarlenMatchesPerSequenceFmha) {
  const int64_t Hq = 4, Hkv = 2, D = 8, Dv = 6;
  const std::vector<int64_t> sq = {3, 0, 5, 1}, sk = {4, 2, 5, 0};
  std::vector<float> cq{0}, ck{0};
  for (size_t b = 0; b < sq.size(); ++b) { cq.push_back(cq.back() + float(sq[b])); ck.push_back(ck.back() + float(sk[b])); }
  const int64_t Tq = int64_t(cq.back()), Tk = int64_t(ck.back()), B = int64_t(sq.size());
  Tensor q = random_tensor({Tq, Hq, D}, DType::f32), k = random_tensor({Tk, Hkv, D}, DType::f32);
  Tensor v = random_tensor({Tk, Hkv, Dv}, DType::f32);
  Tensor cu_q = from_floats(cq, {B + 1}, DType::i32), cu_k = from_floats(ck, {B + 1}, DType::i32);
  const ops::AttentionParams params{0.f, true, 2, 0.f};
  Tensor o = poisoned({Tq, Hq, Dv}, DType::f32), lse = poisoned({Tq, Hq}, DType::f32);
  ops::fmha_varlen(q, k, v, cu_q, cu_k, o, lse, params, kRef);
  const auto oo = floats(o), ll = floats(lse), qq = floats(q), kk = floats(k), vv = floats(v);
  for (int64_t b = 0; b < B; ++b) {
    if (sq[size_t(b)] == 0) continue;
    const int64_t q0 = int64_t(cq[size_t(b)]), k0 = int64_t(ck[size_t(b)]), n = sq[size_t(b)], m = sk[size_t(b)];
    // The sequence as a batch of one in [1, H, S, D] layout.
    auto slice = [](const std::vector<float>& src, int64_t r0, int64_t rows, int64_t H, int64_t d) {
      std::vector<float> out(size_t(rows * H * d));
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t h = 0; h < H; ++h)
          for (int64_t c = 0; c < d; ++c) out[size_t((h * rows + r) * d + c)] = src[size_t(((r0 + r) * H + h) * d + c)];
      return out;
    };
    Tensor qs = from_floats(slice(qq, q0, n, Hq, D), {1, Hq, n, D}, DType::f32);
    Tensor ks = from_floats(slice(kk, k0, m, Hkv, D), {1, Hkv, m, D}, DType::f32);
    Tensor vs = from_floats(slice(vv, k0, m, Hkv, Dv), {1, Hkv, m, Dv}, DType::f32);
    Tensor os = poisoned({1, Hq, n, Dv}, DType::f32), ls = poisoned({1, Hq, n}, DType::f32);
    ops::fmha(qs, ks, vs, os, ls, params, kRef);
    EXPECT_EQ(slice(oo, q0, n, Hq, Dv), floats(os)) << "sequence " << b;
    EXPECT_EQ(slice(ll, q0, n, Hq, 1), floats(ls)) << "sequence " << b;
  }
}

TEST(AttentionReference, PagedDecodeMatchesFmhaOverTheGatheredCacheAndAppendWritesSlots) {
  const int64_t B = 3, Sq = 2, Hq = 8, Hkv = 2, D = 4, page = 3, pages_per_seq = 4, num_pages = 13;
  const std::vector<int64_t> lens = {7, 2, 0};
  // Sequence b's page p is page 1 + (b * pages_per_seq + p) * 7 % 12: scattered, page 0 never used.
  std::vector<float> table;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t p = 0; p < pages_per_seq; ++p) table.push_back(float(1 + (b * pages_per_seq + p) * 7 % 12));
  Tensor bt = from_floats(table, {B, pages_per_seq}, DType::i32);
  Tensor kp = poisoned({num_pages, page, Hkv, D}, DType::f32), vp = poisoned({num_pages, page, Hkv, D}, DType::f32);
  // Fill the cache through kv_cache_append, one call with every token of every sequence plus a skipped one.
  std::vector<float> slots;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < lens[size_t(b)]; ++t)
      slots.push_back(table[size_t(b * pages_per_seq + t / page)] * float(page) + float(t % page));
  slots.push_back(-1.f);
  const int64_t T = int64_t(slots.size());
  Tensor k_new = random_tensor({T, Hkv, D}, DType::f32), v_new = random_tensor({T, Hkv, D}, DType::f32);
  ops::KvCache cache{kp, vp, bt};
  ops::kv_cache_append(k_new, v_new, cache, from_floats(slots, {T}, DType::i64), kRef);
  const auto kc = floats(kp), kn = floats(k_new);
  for (int64_t i = 0; i + 1 < T; ++i)
    for (int64_t c = 0; c < Hkv * D; ++c) ASSERT_EQ(kc[size_t(int64_t(slots[size_t(i)]) * Hkv * D + c)], kn[size_t(i * Hkv * D + c)]);
  int64_t untouched = 0;
  for (float x : kc) untouched += std::isnan(x);
  EXPECT_EQ(untouched, (num_pages * page - (T - 1)) * Hkv * D) << "append wrote outside its slots";

  Tensor q = random_tensor({B, Sq, Hq, D}, DType::f32);
  Tensor o = poisoned({B, Sq, Hq, D}, DType::f32);
  const ops::AttentionParams params{0.3f, false, 4, 0.f};
  ops::fmha_decode(q, cache, from_floats({7, 2, 0}, {B}, DType::i32), o, params, kRef);
  const auto oo = floats(o), qq = floats(q), kn2 = floats(k_new), vn = floats(v_new);
  int64_t first_token = 0;
  for (int64_t b = 0; b < B; ++b) {
    const int64_t n = lens[size_t(b)];
    // The sequence's tokens, in order, are rows first_token .. first_token + n of k_new / v_new.
    std::vector<float> qs(size_t(Hq * Sq * D)), ks(size_t(Hkv * n * D)), vs(size_t(Hkv * n * D));
    for (int64_t i = 0; i < Sq; ++i)
      for (int64_t h = 0; h < Hq; ++h)
        for (int64_t c = 0; c < D; ++c) qs[size_t((h * Sq + i) * D + c)] = qq[size_t(((b * Sq + i) * Hq + h) * D + c)];
    for (int64_t t = 0; t < n; ++t)
      for (int64_t h = 0; h < Hkv; ++h)
        for (int64_t c = 0; c < D; ++c) {
          ks[size_t((h * n + t) * D + c)] = kn2[size_t(((first_token + t) * Hkv + h) * D + c)];
          vs[size_t((h * n + t) * D + c)] = vn[size_t(((first_token + t) * Hkv + h) * D + c)];
        }
    first_token += n;
    std::vector<float> want(size_t(Hq * Sq * D), 0.f);
    if (n > 0) {
      Tensor os = poisoned({1, Hq, Sq, D}, DType::f32);
      ops::fmha(from_floats(qs, {1, Hq, Sq, D}, DType::f32), from_floats(ks, {1, Hkv, n, D}, DType::f32),
                from_floats(vs, {1, Hkv, n, D}, DType::f32), os, {}, {0.3f, true, 4, 0.f}, kRef);
      want = floats(os);
    }
    for (int64_t i = 0; i < Sq; ++i)
      for (int64_t h = 0; h < Hq; ++h)
        for (int64_t c = 0; c < D; ++c)
          EXPECT_EQ(oo[size_t(((b * Sq + i) * Hq + h) * D + c)], want[size_t((h * Sq + i) * D + c)]) << "b " << b;
  }
}

}  // namespace
}  // namespace tessera::testing

namespace tessera::testing {
namespace {
// The backward reference against central finite differences of L = sum(o * d_o) through the forward reference,
// in fp32 on small values (GQA 2:1, Sq < Sk, causal with a window and softcap, and plain full attention).
TEST(AttentionReference, BackwardMatchesFiniteDifferences) {
  const int64_t B = 1, Hq = 2, Hkv = 1, Sq = 3, Sk = 5, D = 4, Dv = 3;
  for (const ops::AttentionParams params : {ops::AttentionParams{0.f, true, 2, 3.f}, ops::AttentionParams{0.7f, false, -1, 0.f}}) {
    SCOPED_TRACE(params.causal ? "causal window softcap" : "full");
    Tensor q = random_tensor({B, Hq, Sq, D}, DType::f32), k = random_tensor({B, Hkv, Sk, D}, DType::f32);
    Tensor v = random_tensor({B, Hkv, Sk, Dv}, DType::f32), d_o = random_tensor({B, Hq, Sq, Dv}, DType::f32);
    Tensor dq = poisoned(q.shape(), DType::f32), dk = poisoned(k.shape(), DType::f32), dv = poisoned(v.shape(), DType::f32);
    ops::fmha_backward(q, k, v, d_o, dq, dk, dv, params, kRef);
    const auto g = floats(d_o);
    auto loss = [&] {
      Tensor o = poisoned({B, Hq, Sq, Dv}, DType::f32);
      ops::fmha(q, k, v, o, {}, params, kRef);
      double sum = 0;
      const auto oo = floats(o);
      for (size_t i = 0; i < oo.size(); ++i) sum += double(oo[i]) * g[i];
      return sum;
    };
    for (auto [x, grad, name] : {std::tuple{&q, &dq, "dq"}, std::tuple{&k, &dk, "dk"}, std::tuple{&v, &dv, "dv"}}) {
      const auto analytic = floats(*grad);
      float* data = x->data_as<float>();
      for (int64_t i = 0; i < x->numel(); ++i) {
        const float keep = data[i], h = 1e-2f;
        data[i] = keep + h;
        const double up = loss();
        data[i] = keep - h;
        const double down = loss();
        data[i] = keep;
        EXPECT_NEAR(analytic[size_t(i)], (up - down) / (2 * h), 2e-3) << name << " element " << i;
      }
    }
  }
}
}  // namespace
}  // namespace tessera::testing

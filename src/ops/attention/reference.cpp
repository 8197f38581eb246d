// Plain C++ references of the attention family: straightforward loops in double precision over float copies
// of the tensors, independent of the tile language. They also validate the index tensors they read
// (cumulative lengths, sequence lengths, block table, slots), wherever those live, before writing anything.
#include <cmath>
#include <limits>
#include <string>

#include "ops/attention/args.h"
#include "ops/attention/masks.h"
#include "ops/matmul/args.h"
#include "ops/common/views.h"
#include "ops/rope/args.h"

namespace tessera::ops::reference {

namespace {
constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// The logit of one (query, key) pair: scale * q.k, soft-capped when asked.
double logit(const float* q, const float* k, int64_t d, const AttentionParams& p) {
  double dot = 0;
  for (int64_t i = 0; i < d; ++i) dot += double(q[i]) * double(k[i]);
  double s = double(p.scale) * dot;
  if (p.softcap > 0) s = double(p.softcap) * std::tanh(s / double(p.softcap));
  return s;
}

// One query row against the keys [range.begin, range.end): o = softmax(logits) v. Returns the natural-log
// log-sum-exp of the logits, -inf (and o = 0) when the range is empty. key(j) / value(j) give key j's rows.
template <class KeyFn, class ValueFn>
double attend_row(const float* q, int64_t dqk, int64_t dv, KeyRange range, KeyFn key, ValueFn value,
                  const AttentionParams& p, float* o) {
  for (int64_t c = 0; c < dv; ++c) o[c] = 0.f;
  if (range.empty()) return kNegInf;
  std::vector<double> s(size_t(range.end - range.begin));
  double m = kNegInf;
  for (int64_t j = range.begin; j < range.end; ++j) {
    s[size_t(j - range.begin)] = logit(q, key(j), dqk, p);
    m = std::max(m, s[size_t(j - range.begin)]);
  }
  double l = 0;
  std::vector<double> acc(size_t(dv), 0.0);
  for (int64_t j = range.begin; j < range.end; ++j) {
    const double e = std::exp(s[size_t(j - range.begin)] - m);
    l += e;
    const float* vj = value(j);
    for (int64_t c = 0; c < dv; ++c) acc[size_t(c)] += e * double(vj[c]);
  }
  for (int64_t c = 0; c < dv; ++c) o[c] = float(acc[size_t(c)] / l);
  return m + std::log(l);
}

std::string at(const char* name, int64_t i) { return std::string(name) + "[" + std::to_string(i) + "]"; }
}  // namespace

namespace {
// fmha over float copies of q, k, v (any dtype); o is out_scale times the attention.
void fmha_rows(const FmhaArgs& a, float out_scale) {
  const int64_t B = a.q.size(0), Hq = a.q.size(1), Sq = a.q.size(2), Dqk = a.q.size(3);
  const int64_t Hkv = a.k.size(1), Sk = a.k.size(2), Dv = a.v.size(3);
  const auto q = to_float_vector(a.q), k = to_float_vector(a.k), v = to_float_vector(a.v);
  std::vector<float> o(size_t(B * Hq * Sq * Dv));
  std::vector<float> lse(size_t(B * Hq * Sq));
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < Hq; ++h) {
      const int64_t hk = h / (Hq / Hkv);
      const float* kh = k.data() + (b * Hkv + hk) * Sk * Dqk;
      const float* vh = v.data() + (b * Hkv + hk) * Sk * Dv;
      for (int64_t i = 0; i < Sq; ++i) {
        const int64_t row = (b * Hq + h) * Sq + i;
        const KeyRange range = visible_keys(i + Sk - Sq, Sk, a.params.causal, a.params.window_left);
        lse[size_t(row)] = float(attend_row(
            q.data() + row * Dqk, Dqk, Dv, range, [&](int64_t j) { return kh + j * Dqk; },
            [&](int64_t j) { return vh + j * Dv; }, a.params, o.data() + row * Dv));
      }
    }
  if (out_scale != 1.f)
    for (float& x : o) x *= out_scale;
  write_float_vector(a.o, o);
  if (!is_absent(a.lse)) write_float_vector(a.lse, lse);
}
}  // namespace

void fmha(const FmhaArgs& a, const dispatch::Options&) { fmha_rows(a, 1.f); }

// The stored fp8 values widened to float; q_scale * k_scale is already in params.scale.
void fmha_fp8(const FmhaFp8Args& a, const dispatch::Options&) { fmha_rows({a.q, a.k, a.v, a.o, a.lse, a.params}, a.v_scale); }

// With x = scale * q.k and s = softcap * tanh(x / softcap) (or s = x), p = softmax(s) over the visible keys:
//   dv_j += p_ij do_i;   dp_ij = do_i . v_j;   ds_ij = p_ij (dp_ij - sum_j' p_ij' dp_ij')
//   dx_ij = ds_ij (1 - (s_ij / softcap)^2)  (or ds_ij);   dq_i += scale dx_ij k_j;   dk_j += scale dx_ij q_i
void fmha_backward(const FmhaBackwardArgs& a, const dispatch::Options&) {
  const int64_t B = a.q.size(0), Hq = a.q.size(1), Sq = a.q.size(2), Dqk = a.q.size(3);
  const int64_t Hkv = a.k.size(1), Sk = a.k.size(2), Dv = a.v.size(3);
  const auto q = to_float_vector(a.q), k = to_float_vector(a.k), v = to_float_vector(a.v), d_o = to_float_vector(a.d_o);
  std::vector<double> dq(q.size(), 0.0), dk(k.size(), 0.0), dv(v.size(), 0.0);
  const AttentionParams& p = a.params;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < Hq; ++h) {
      const int64_t kv = b * Hkv + h / (Hq / Hkv);
      for (int64_t i = 0; i < Sq; ++i) {
        const int64_t row = (b * Hq + h) * Sq + i;
        const KeyRange range = visible_keys(i + Sk - Sq, Sk, p.causal, p.window_left);
        if (range.empty()) continue;
        const float* qi = q.data() + row * Dqk;
        const float* doi = d_o.data() + row * Dv;
        const size_t n = size_t(range.end - range.begin);
        std::vector<double> s(n), prob(n), dp(n);
        double m = kNegInf, l = 0, d_sum = 0;
        for (size_t j = 0; j < n; ++j) {
          s[j] = logit(qi, k.data() + (kv * Sk + range.begin + int64_t(j)) * Dqk, Dqk, p);
          m = std::max(m, s[j]);
        }
        for (size_t j = 0; j < n; ++j) l += std::exp(s[j] - m);
        for (size_t j = 0; j < n; ++j) {
          const int64_t key = kv * Sk + range.begin + int64_t(j);
          prob[j] = std::exp(s[j] - m) / l;
          dp[j] = 0;
          for (int64_t c = 0; c < Dv; ++c) {
            dp[j] += double(doi[c]) * v[size_t(key * Dv + c)];
            dv[size_t(key * Dv + c)] += prob[j] * doi[c];
          }
          d_sum += prob[j] * dp[j];
        }
        for (size_t j = 0; j < n; ++j) {
          const int64_t key = kv * Sk + range.begin + int64_t(j);
          double dx = prob[j] * (dp[j] - d_sum);
          if (p.softcap > 0) dx *= 1 - (s[j] / p.softcap) * (s[j] / p.softcap);
          for (int64_t c = 0; c < Dqk; ++c) {
            dq[size_t(row * Dqk + c)] += p.scale * dx * k[size_t(key * Dqk + c)];
            dk[size_t(key * Dqk + c)] += p.scale * dx * qi[c];
          }
        }
      }
    }
  auto as_float = [](const std::vector<double>& x) { return std::vector<float>(x.begin(), x.end()); };
  write_float_vector(a.dq, as_float(dq));
  write_float_vector(a.dk, as_float(dk));
  write_float_vector(a.dv, as_float(dv));
}

void fmha_varlen(const FmhaVarlenArgs& a, const dispatch::Options&) {
  const int64_t Tq = a.q.size(0), Hq = a.q.size(1), Dqk = a.q.size(2);
  const int64_t Tk = a.k.size(0), Hkv = a.k.size(1), Dv = a.v.size(2);
  const auto cu_q = to_int_vector(a.cu_q), cu_k = to_int_vector(a.cu_k);
  if (const auto bad = check_cumulative_lengths(cu_q, Tq, "cu_q", "q")) invalid_argument("fmha_varlen: " + *bad);
  if (const auto bad = check_cumulative_lengths(cu_k, Tk, "cu_k", "k")) invalid_argument("fmha_varlen: " + *bad);
  const auto q = to_float_vector(a.q), k = to_float_vector(a.k), v = to_float_vector(a.v);
  // Rows that belong to no sequence (beyond cu_q[B]) are written as zeros with lse -inf.
  std::vector<float> o(size_t(Tq * Hq * Dv), 0.f);
  std::vector<float> lse(size_t(Tq * Hq), -std::numeric_limits<float>::infinity());
  const int64_t B = int64_t(cu_q.size()) - 1;
  for (int64_t b = 0; b < B; ++b) {
    const int64_t q0 = cu_q[size_t(b)], sq = cu_q[size_t(b) + 1] - q0;
    const int64_t k0 = cu_k[size_t(b)], sk = cu_k[size_t(b) + 1] - k0;
    for (int64_t h = 0; h < Hq; ++h) {
      const int64_t hk = h / (Hq / Hkv);
      for (int64_t i = 0; i < sq; ++i) {
        const int64_t row = (q0 + i) * Hq + h;
        const KeyRange range = visible_keys(i + sk - sq, sk, a.params.causal, a.params.window_left);
        lse[size_t(row)] = float(attend_row(
            q.data() + row * Dqk, Dqk, Dv, range, [&](int64_t j) { return k.data() + ((k0 + j) * Hkv + hk) * Dqk; },
            [&](int64_t j) { return v.data() + ((k0 + j) * Hkv + hk) * Dv; }, a.params, o.data() + row * Dv));
      }
    }
  }
  write_float_vector(a.o, o);
  if (!is_absent(a.lse)) write_float_vector(a.lse, lse);
}

void fmha_decode(const FmhaDecodeArgs& a, const dispatch::Options&) {
  const int64_t B = a.q.size(0), Sq = a.q.size(1), Hq = a.q.size(2), Dk = a.q.size(3);
  const Tensor& kp = a.cache.k_pages;
  const int64_t num_pages = kp.size(0), page_size = kp.size(1), Hkv = kp.size(2), Dv = a.cache.v_pages.size(3);
  const auto seq_lens = to_int_vector(a.seq_lens);
  const bool paged = !is_absent(a.cache.block_table);
  const auto table = paged ? to_int_vector(a.cache.block_table) : std::vector<int64_t>{};
  const int64_t pages_per_seq = paged ? a.cache.block_table.size(1) : 1;
  if (const auto bad = check_decode_indices(seq_lens, table, pages_per_seq, num_pages, page_size, paged))
    invalid_argument("fmha_decode: " + *bad);
  const auto q = to_float_vector(a.q), k = to_float_vector(kp), v = to_float_vector(a.cache.v_pages);
  // Token t of sequence b: its page and slot, as a flat row index of [num_pages * page_size, Hkv, D].
  auto token_row = [&](int64_t b, int64_t t) {
    const int64_t page = paged ? table[size_t(b * pages_per_seq + t / page_size)] : b;
    return page * page_size + t % page_size;
  };
  std::vector<float> o(size_t(B * Sq * Hq * Dv));
  for (int64_t b = 0; b < B; ++b)
    for (int64_t i = 0; i < Sq; ++i) {
      const int64_t len = seq_lens[size_t(b)];
      const KeyRange range = visible_keys(len - Sq + i, len, /*causal=*/true, a.params.window_left);
      for (int64_t h = 0; h < Hq; ++h) {
        const int64_t hk = h / (Hq / Hkv);
        const int64_t row = (b * Sq + i) * Hq + h;
        attend_row(
            q.data() + row * Dk, Dk, Dv, range, [&](int64_t t) { return k.data() + (token_row(b, t) * Hkv + hk) * Dk; },
            [&](int64_t t) { return v.data() + (token_row(b, t) * Hkv + hk) * Dv; }, a.params, o.data() + row * Dv);
      }
    }
  write_float_vector(a.o, o);
}

void kv_cache_append(const KvCacheAppendArgs& a, const dispatch::Options&) {
  const Tensor &kp = a.cache.k_pages, &vp = a.cache.v_pages;
  const int64_t T = a.k.size(0), Hkv = a.k.size(1);
  const int64_t capacity = kp.size(0) * kp.size(1), page_size = kp.size(1);
  const auto slots = to_int_vector(a.slots);
  for (int64_t i = 0; i < T; ++i)
    if (slots[size_t(i)] >= capacity)
      invalid_argument("kv_cache_append: " + at("slots", i) + " = " + std::to_string(slots[size_t(i)]) +
                       " is outside the cache's " + std::to_string(capacity) + " slots; nothing was written");
  // A copy of bytes, row by row (same dtype; no arithmetic), so untouched slots keep their exact bits.
  const size_t elt = dtype_size(a.k.dtype());
  auto copy_row = [&](const Tensor& src, int64_t i, int64_t h, const Tensor& pages, int64_t slot) {
    const auto* from = static_cast<const char*>(src.data()) + size_t(i * src.stride(0) + h * src.stride(1)) * elt;
    auto* to = static_cast<char*>(pages.data()) +
               size_t((slot / page_size) * pages.stride(0) + (slot % page_size) * pages.stride(1) + h * pages.stride(2)) * elt;
    copy_bytes(to, pages.device(), from, src.device(), size_t(src.size(2)) * elt);
  };
  for (int64_t i = 0; i < T; ++i) {
    const int64_t slot = slots[size_t(i)];
    if (slot < 0) continue;
    for (int64_t h = 0; h < Hkv; ++h) {
      copy_row(a.k, i, h, kp, slot);
      copy_row(a.v, i, h, vp, slot);
    }
  }
}

// rope and kv_cache_append composed: the rotated k goes to the cache first (kv_cache_append checks every slot
// before it writes), then q and k are rotated in place.
void rope_kv_cache_append(const RopeKvCacheAppendArgs& a, const dispatch::Options& opt) {
  const Tensor k_rotated = Tensor::empty(a.k.shape(), a.k.dtype(), a.k.device());
  rope({a.k, a.positions, a.inv_freq, k_rotated, a.layout, a.rotary_dim}, opt);
  kv_cache_append({k_rotated, a.v, a.cache, a.slots}, opt);
  rope({a.q, a.positions, a.inv_freq, a.q, a.layout, a.rotary_dim}, opt);
  rope({a.k, a.positions, a.inv_freq, a.k, a.layout, a.rotary_dim}, opt);
}

// The two ops it fuses, one after the other: the projection (rounded to qkv's dtype), then the rotations and
// the append on its column blocks.
void qkv_rope_kv_cache_append(const QkvRopeKvCacheAppendArgs& a, const dispatch::Options& opt) {
  Epilogue e;
  e.bias = a.bias;
  matmul({a.x, a.w, a.qkv, BLayout::nk, e}, opt);
  rope_kv_cache_append(a.rope, opt);
}

}  // namespace tessera::ops::reference

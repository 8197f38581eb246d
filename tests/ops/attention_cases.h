// Test cases of the attention family, instantiated for the host (tests/ops) and the GPU (tests/gpu).
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "common/test_util.h"
#include "tessera/ops/attention.h"

namespace tessera::testing {

// Runs f, which must throw invalid_argument whose message contains every needle.
template <class F>
void expect_attention_error(F f, std::initializer_list<std::string> needles) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one mentioning " << *needles.begin();
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::invalid_argument) << e.what();
    for (const auto& n : needles) EXPECT_NE(std::string(e.what()).find(n), std::string::npos) << "missing '" << n << "' in: " << e.what();
  }
}

inline int64_t written_elements(const Tensor& t) {
  int64_t n = 0;
  for (float x : floats(t)) n += !std::isnan(x);
  return n;
}

// Wrong shapes, dtypes, devices, null data, bad parameters and bad index values: each is an error naming the
// tensor at fault, and nothing is written.
inline void check_attention_bad_input(Device dev, dispatch::Backend backend) {
  const ops::Options opt{backend};
  const DType f = DType::f16;
  Tensor q = random_tensor({2, 4, 5, 16}, f, dev), k = random_tensor({2, 2, 7, 16}, f, dev), v = random_tensor({2, 2, 7, 8}, f, dev);
  Tensor o = poisoned({2, 4, 5, 8}, f, dev), lse = poisoned({2, 4, 5}, DType::f32, dev);
  expect_attention_error([&] { ops::fmha(q, random_tensor({2, 2, 7, 15}, f, dev), v, o, lse, {}, opt); }, {"k is", "expected shape"});
  expect_attention_error([&] { ops::fmha(q, k, random_tensor({2, 2, 6, 8}, f, dev), o, lse, {}, opt); }, {"v is"});
  expect_attention_error([&] { ops::fmha(q, k, v, poisoned({2, 4, 5, 9}, f, dev), lse, {}, opt); }, {"o is"});
  expect_attention_error([&] { ops::fmha(q, k, v, poisoned({2, 4, 5, 8}, DType::bf16, dev), lse, {}, opt); }, {"o is", "dtypes differ"});
  expect_attention_error([&] { ops::fmha(q, k, v, o, poisoned({2, 4, 5}, DType::f16, dev), {}, opt); }, {"lse is", "f32"});
  expect_attention_error([&] { ops::fmha(q, k, v, o, poisoned({2, 4, 6}, DType::f32, dev), {}, opt); }, {"lse is"});
  expect_attention_error([&] { ops::fmha(q, random_tensor({2, 3, 7, 16}, f, dev), random_tensor({2, 3, 7, 8}, f, dev), o, lse, {}, opt); },
                         {"heads", "multiple"});
  expect_attention_error([&] { ops::fmha(Tensor::view(nullptr, {2, 4, 5, 16}, f, dev), k, v, o, lse, {}, opt); }, {"null"});
  expect_attention_error([&] { ops::fmha(random_tensor({4, 5, 16}, f, dev), k, v, o, lse, {}, opt); }, {"q is", "4 dims"});
  expect_attention_error([&] { ops::fmha(random_tensor({2, 4, 5, 16}, DType::i32, dev), k, v, o, lse, {}, opt); }, {"q is", "dtype"});
  {  // a transposed view of q: last dim not unit-stride
    Tensor qt = random_tensor({2, 4, 16, 5}, f, dev);
    Tensor qv = Tensor::view(qt.data(), {2, 4, 5, 16}, f, dev, {4 * 16 * 5, 16 * 5, 1, 5});
    expect_attention_error([&] { ops::fmha(qv, k, v, o, lse, {}, opt); }, {"q is", "stride"});
  }
  expect_attention_error([&] { ops::fmha(q, k, v, o, lse, {0.f, false, -2, 0.f}, opt); }, {"window_left"});
  expect_attention_error([&] { ops::fmha(q, k, v, o, lse, {0.f, false, -1, -1.f}, opt); }, {"softcap"});
  expect_attention_error([&] { ops::fmha(q, k, v, o, lse, {NAN, false, -1, 0.f}, opt); }, {"scale"});
  if (dev.is_cuda()) expect_attention_error([&] { ops::fmha(q, k.to(Device::cpu()), v, o, lse, {}, opt); }, {"k is", "devices differ"});
  EXPECT_EQ(written_elements(o), 0);
  EXPECT_EQ(written_elements(lse), 0);

  // varlen: cumulative lengths that decrease, overrun q, or do not start at 0 (checked when on the CPU).
  Tensor vq = random_tensor({6, 4, 16}, f, dev), vk = random_tensor({9, 2, 16}, f, dev), vv = random_tensor({9, 2, 8}, f, dev);
  Tensor vo = poisoned({6, 4, 8}, f, dev);
  auto cu = [&](std::vector<float> x) { return from_floats(x, {int64_t(x.size())}, DType::i32, Device::cpu()); };
  const Tensor good_q = cu({0, 2, 6}), good_k = cu({0, 4, 9});
  auto on_dev = [&](const Tensor& t) { return dev.is_cpu() ? t : t.to(dev); };
  expect_attention_error([&] { ops::fmha_varlen(vq, vk, vv, on_dev(good_q), on_dev(cu({0, 4})), vo, {}, {}, opt); }, {"cu_k is"});
  expect_attention_error([&] { ops::fmha_varlen(vq, vk, vv, on_dev(from_floats({0, 2, 6}, {3}, DType::i64)), on_dev(good_k), vo, {}, {}, opt); },
                         {"cu_q is", "i32"});
  if (dev.is_cpu()) {
    expect_attention_error([&] { ops::fmha_varlen(vq, vk, vv, cu({0, 3, 2}), good_k, vo, {}, {}, opt); }, {"cu_q[2] = 2", "decrease"});
    expect_attention_error([&] { ops::fmha_varlen(vq, vk, vv, good_q, cu({0, 4, 10}), vo, {}, {}, opt); }, {"cu_k[2] = 10", "rows of k"});
    expect_attention_error([&] { ops::fmha_varlen(vq, vk, vv, cu({1, 2, 6}), good_k, vo, {}, {}, opt); }, {"cu_q[0] = 1"});
  }
  EXPECT_EQ(written_elements(vo), 0);

  // decode and append: cache shapes, index dtypes, and (CPU) index values.
  const int64_t P = 5, page = 4;
  Tensor dq = random_tensor({2, 1, 4, 16}, f, dev), kp = random_tensor({P, page, 2, 16}, f, dev), vp = random_tensor({P, page, 2, 8}, f, dev);
  Tensor bt = on_dev(from_floats({0, 1, 2, 3}, {2, 2}, DType::i32)), lens = on_dev(from_floats({5, 8}, {2}, DType::i32));
  Tensor d_o = poisoned({2, 1, 4, 8}, f, dev);
  expect_attention_error([&] { ops::fmha_decode(dq, {kp, random_tensor({P, page, 2, 8}, DType::bf16, dev), bt}, lens, d_o, {}, opt); },
                         {"v_pages is", "dtypes differ"});
  expect_attention_error([&] { ops::fmha_decode(dq, {kp, random_tensor({P, page + 1, 2, 8}, f, dev), bt}, lens, d_o, {}, opt); },
                         {"v_pages is", "expected shape"});
  expect_attention_error([&] { ops::fmha_decode(dq, {kp, vp, bt}, on_dev(from_floats({5, 8}, {2}, DType::i64)), d_o, {}, opt); },
                         {"seq_lens is", "i32"});
  expect_attention_error([&] { ops::fmha_decode(dq, {kp, vp, on_dev(from_floats({0, 1, 2}, {3, 1}, DType::i32))}, lens, d_o, {}, opt); },
                         {"block_table is"});
  expect_attention_error([&] { ops::fmha_decode(dq, {kp, vp, {}}, lens, d_o, {}, opt); }, {"contiguous cache"});
  expect_attention_error([&] { ops::fmha_decode(random_tensor({2, 9, 4, 16}, f, dev), {kp, vp, bt}, lens, poisoned({2, 9, 4, 8}, f, dev), {}, opt); },
                         {"1 to 8"});
  expect_attention_error([&] { ops::fmha_decode(dq, {kp, vp, bt}, lens, poisoned({2, 1, 4, 9}, f, dev), {}, opt); }, {"o is"});
  if (dev.is_cpu()) {
    expect_attention_error([&] { ops::fmha_decode(dq, {kp, vp, bt}, from_floats({5, 9}, {2}, DType::i32), d_o, {}, opt); },
                           {"seq_lens[1] = 9", "[0, 8]"});
    expect_attention_error([&] { ops::fmha_decode(dq, {kp, vp, from_floats({0, 1, 2, 5}, {2, 2}, DType::i32)}, lens, d_o, {}, opt); },
                           {"block_table[1, 1] = 5", "[0, 5)"});
  }
  EXPECT_EQ(written_elements(d_o), 0);

  Tensor ak = random_tensor({3, 2, 16}, f, dev), av = random_tensor({3, 2, 8}, f, dev);
  Tensor pk = poisoned({P, page, 2, 16}, f, dev), pv = poisoned({P, page, 2, 8}, f, dev);
  Tensor slots = on_dev(from_floats({0, -1, 19}, {3}, DType::i64));
  expect_attention_error([&] { ops::kv_cache_append(ak, random_tensor({3, 2, 9}, f, dev), {pk, pv, {}}, slots, opt); }, {"v_pages is", "[5, 4, 2, 9]"});
  expect_attention_error([&] { ops::kv_cache_append(ak, av, {pk, pv, {}}, on_dev(from_floats({0, 1, 2}, {3}, DType::i32)), opt); },
                         {"slots is", "i64"});
  expect_attention_error([&] { ops::kv_cache_append(ak, av, {poisoned({P, page, 3, 16}, f, dev), pv, {}}, slots, opt); }, {"k_pages is"});
  if (dev.is_cpu())
    expect_attention_error([&] { ops::kv_cache_append(ak, av, {pk, pv, {}}, from_floats({0, -1, 20}, {3}, DType::i64), opt); },
                           {"slots[2] = 20", "20 slots"});
  EXPECT_EQ(written_elements(pk), 0);
  EXPECT_EQ(written_elements(pv), 0);
}

}  // namespace tessera::testing

#include "ops/common/selfcheck_util.h"
#include "tessera/ops/matmul.h"

namespace tessera::ops {

void add_matmul_self_checks(std::vector<SelfCheck>& out) {
  using namespace selfcheck;
  out.push_back({"matmul", [](dispatch::Backend b, DType dt, Device dev, uint64_t seed) {
                   std::mt19937_64 gen(seed);
                   const int64_t m = 67, n = 130, k = 97;
                   Tensor a = random(gen, {m, k}, dt, dev), w = random(gen, {n, k}, dt, dev), bias = random(gen, {n}, dt, dev);
                   Tensor c = poisoned({m, n}, dt, dev), c_ref = poisoned({m, n}, dt, dev);
                   Epilogue e{bias, Activation::silu, 0.5f, {}};
                   matmul(a, w, c, BLayout::nk, e, {b});
                   matmul(a, w, c_ref, BLayout::nk, e, {dispatch::Backend::reference});
                   return compare(c, c_ref, tolerance(dt));
                 }});
  out.push_back({"matmul_silu_and_mul", [](dispatch::Backend b, DType dt, Device dev, uint64_t seed) {
                   // Decode-sized: one kernel on the GPU (16-bit, 16-byte rows), I not a multiple of its tiles.
                   std::mt19937_64 gen(seed);
                   const int64_t m = 3, i = 130, k = 1000;
                   // Weights of size 1/sqrt(k) keep gate and up near 1: the product's rounding error is
                   // |up|*err(gate) + |gate|*err(up), which a tolerance relative to the product alone does
                   // not bound when one factor is large and the other near zero.
                   const float scale = 1.f / std::sqrt(float(k));
                   Tensor a = random(gen, {m, k}, dt, dev), w = random(gen, {2 * i, k}, dt, dev, -scale, scale);
                   Tensor c = poisoned({m, i}, dt, dev), c_ref = poisoned({m, i}, dt, dev);
                   matmul_silu_and_mul(a, w, c, {}, {b});
                   matmul_silu_and_mul(a, w, c_ref, {}, {dispatch::Backend::reference});
                   return compare(c, c_ref, tolerance(dt));
                 }});
  out.push_back({"bmm", [](dispatch::Backend b, DType dt, Device dev, uint64_t seed) {
                   std::mt19937_64 gen(seed);
                   const int64_t batch = 3, m = 67, n = 45, k = 97;
                   Tensor a = random(gen, {batch, m, k}, dt, dev), w = random(gen, {batch, k, n}, dt, dev);
                   Tensor c = poisoned({batch, m, n}, dt, dev), c_ref = poisoned({batch, m, n}, dt, dev);
                   Epilogue e{random(gen, {n}, dt, dev), Activation::gelu, 0.5f, {}};
                   bmm(a, w, c, BLayout::kn, e, {b});
                   bmm(a, w, c_ref, BLayout::kn, e, {dispatch::Backend::reference});
                   return compare(c, c_ref, tolerance(dt));
                 }});
  out.push_back({"group_gemm", [](dispatch::Backend b, DType dt, Device dev, uint64_t seed) {
                   std::mt19937_64 gen(seed);
                   // Four experts of 70, 0, 1 and 60 rows.
                   const int64_t rows = 131, n = 45, k = 97;
                   Tensor offsets = Tensor::empty({5}, DType::i32);
                   const int32_t values[] = {0, 70, 70, 71, 131};
                   for (int i = 0; i < 5; ++i) offsets.data_as<int32_t>()[i] = values[i];
                   offsets = offsets.to(dev);
                   Tensor a = random(gen, {rows, k}, dt, dev), w = random(gen, {4, n, k}, dt, dev);
                   Tensor c = poisoned({rows, n}, dt, dev), c_ref = poisoned({rows, n}, dt, dev);
                   group_gemm(a, w, offsets, c, {b});
                   group_gemm(a, w, offsets, c_ref, {dispatch::Backend::reference});
                   return compare(c, c_ref, tolerance(dt));
                 }});
  out.push_back({"matmul_fp8", [](dispatch::Backend b, DType dt, Device dev, uint64_t seed) {
                   // fp8 inputs; the sweep's dtype is the output's.
                   std::mt19937_64 gen(seed);
                   const int64_t m = 67, n = 130, k = 97;
                   Tensor a = random(gen, {m, k}, DType::fp8_e4m3, dev), w = random(gen, {n, k}, DType::fp8_e4m3, dev);
                   Tensor c = poisoned({m, n}, dt, dev), c_ref = poisoned({m, n}, dt, dev);
                   matmul_fp8(a, w, c, 0.25f, 3.f, {b});
                   matmul_fp8(a, w, c_ref, 0.25f, 3.f, {dispatch::Backend::reference});
                   return compare(c, c_ref, tolerance(dt));
                 }});
}

}  // namespace tessera::ops

// Variants of the few-rows matmul (decode at batch 1: c[1, N] = a[1, K] @ W[N, K]^T) timed against the
// library's kernel, cuBLAS and a device copy of the weight bytes, in one run (session 25). The question: is a
// 1 x 4096 x 4096 projection's fixed ~4.8 us (session 23) the serial chain of DRAM round trips inside each
// block (one per BN x 1024 weight tile, loaded and used before the next is asked for), so that a block which
// asks for all its tiles first is faster? Launches are timed back to back (programmatic dependent launch, as in
// the engine), each on another copy of the weights so that none is read from L2. Build here:
//   nvcc -O3 -std=c++20 -I include -I src -gencode=arch=compute_90a,code=sm_90a --expt-relaxed-constexpr \
//     -Xcudafe --diag_suppress=177 -DNDEBUG bench/probes/few_rows_variants.cu build/libtessera.a \
//     -L/usr/local/cuda/lib64 -lcublas -o .device/probe/few_rows_variants
// Run there: .device/probe/few_rows_variants [name filter]
// What it showed (bench/results/2026-11-26-h200-session25): asking for 2 tiles of 4 x 1024 before using them
// (8 loads of 16 bytes in flight a thread) beat the one-tile kernel by 5-17% on every decode projection, and
// cuBLAS, when it kept 4 blocks a multiprocessor (126 registers; the library's form needed a hint for that).
// DEPTH x BK past K (the x8 rows at K = 4096) took the local-memory edge path and ran at 20-25% of copy.
// The NormParts rows: reading the norm's weight g next to x cost the kernel 40-90%; x in fp32 and its squares
// 0-20% (activation traffic on the chip, every block reading the whole row, is what this kernel is sensitive to).
// Session 45 added persistent blocks (bench/results/2026-11-29-h200-session45).
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "ops/matmul/matmul_rows.tile.h"
#include "random_bf16.h"
#include "tessera/tile/tile.h"

namespace probe {
using namespace tessera;
using tessera::bf16;
using tile::View2;

struct Params {
  View2<const bf16> a;  // [1, K]
  View2<const bf16> b;  // [N, K]
  View2<bf16> c;        // [N, 1]
};

// A block owns BN weight rows and asks for DEPTH tiles of BN x BK before it multiplies any of them: one round
// trip to DRAM per DEPTH tiles instead of one per tile. The tiles stay 16-bit until used.
template <int BN, int BK, int DEPTH, int THREADS>
struct Deep {
  static constexpr int threads = THREADS;
  using Params = probe::Params;
  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t n0 = blk.bid(0) * BN, K = p.a.extent[1];
    auto acc = zeros<float, BN, BK>(blk);
    for (int64_t k0 = 0; k0 < K; k0 += int64_t(BK) * DEPTH) {
      using W = decltype(load<BN, BK>(blk, p.b, {n0, k0}));
      W w[DEPTH];
      TILE_UNROLL(16)
      for (int d = 0; d < DEPTH; ++d) w[d] = load<BN, BK>(blk, p.b, {n0, k0 + d * BK}, 0.f, tile::cold_edges);
      TILE_UNROLL(16)
      for (int d = 0; d < DEPTH; ++d)
        acc = acc + cast<float>(w[d]) * cast<float>(load<1, BK>(blk, p.a, {0, k0 + d * BK}, 0.f, tile::cold_edges));
    }
    store(blk, p.c, {n0, 0}, cast<bf16>(row_sum(acc)));
  }
};

// Persistent (session 45): a grid of `blocks` blocks, each walking the row groups g = bid, bid + blocks, ... in
// chunks of DEPTH tiles (K a multiple of DEPTH x BK), the next chunk's tiles asked for before the current one is
// used: the next group's first loads are in flight while the current group is reduced and stored, and no block
// starts or ends between groups.
template <int BN, int BK, int DEPTH, int THREADS>
struct Persistent {
  static constexpr int threads = THREADS;
  using Params = probe::Params;
  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t K = p.a.extent[1], groups = (p.b.extent[0] + BN - 1) / BN, step = blk.num_blocks(0);
    const int64_t chunks_per_group = K / (int64_t(BK) * DEPTH);
    const int64_t my_groups = blk.bid(0) < groups ? (groups - blk.bid(0) + step - 1) / step : 0;
    const int64_t chunks = my_groups * chunks_per_group;
    using W = decltype(load<BN, BK>(blk, p.b, {0, 0}));
    auto chunk_origin = [&](int64_t i) {
      return tile::Coord{(blk.bid(0) + i / chunks_per_group * step) * BN, i % chunks_per_group * int64_t(BK) * DEPTH};
    };
    W next[DEPTH];
    tile::Coord at = chunk_origin(0);
    if (chunks > 0) {
      TILE_UNROLL(16)
      for (int d = 0; d < DEPTH; ++d) next[d] = load<BN, BK>(blk, p.b, {at.row, at.col + d * BK}, 0.f, tile::cold_edges);
    }
    auto acc = zeros<float, BN, BK>(blk);
    for (int64_t i = 0; i < chunks; ++i) {
      W w[DEPTH];
      TILE_UNROLL(16)
      for (int d = 0; d < DEPTH; ++d) w[d] = next[d];
      const tile::Coord ahead = chunk_origin(i + 1);
      if (i + 1 < chunks) {
        TILE_UNROLL(16)
        for (int d = 0; d < DEPTH; ++d) next[d] = load<BN, BK>(blk, p.b, {ahead.row, ahead.col + d * BK}, 0.f, tile::cold_edges);
      }
      TILE_UNROLL(16)
      for (int d = 0; d < DEPTH; ++d)
        acc = acc + cast<float>(w[d]) * cast<float>(load<1, BK>(blk, p.a, {0, at.col + d * BK}, 0.f, tile::cold_edges));
      if (i % chunks_per_group == chunks_per_group - 1) {
        store(blk, p.c, {at.row, 0}, cast<bf16>(row_sum(acc)));
        acc = zeros<float, BN, BK>(blk);
      }
      at = ahead;
    }
  }
};

// The one-row rms_norm kernel's parts, to see which costs time: G reads the norm's weight and scales x by it;
// SQUARES sums x's squares and scales the dot product at the end (session 25).
template <bool G, bool SQUARES>
struct NormParts {
  static constexpr int threads = 128;
  struct Params {
    View2<const float> a;
    View2<const bf16> b, g;
    View2<bf16> c;
  };
  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t n0 = blk.bid(0) * 4, K = p.a.extent[1];
    auto acc = zeros<float, 4, 1024>(blk);
    auto squares = zeros<float, 1, 1024>(blk);
    for (int64_t k0 = 0; k0 < K; k0 += 2048) {
      using W = decltype(load<4, 1024>(blk, p.b, {n0, k0}));
      W w[2];
      for (int d = 0; d < 2; ++d) w[d] = load<4, 1024>(blk, p.b, {n0, k0 + d * 1024}, 0.f, tile::cold_edges);
      for (int d = 0; d < 2; ++d) {
        auto x = load<1, 1024>(blk, p.a, {0, k0 + d * 1024});
        if constexpr (SQUARES) squares = squares + x * x;
        if constexpr (G) x = x * cast<float>(load<1, 1024>(blk, p.g, {0, k0 + d * 1024}));
        acc = acc + cast<float>(w[d]) * x;
      }
    }
    auto dot = row_sum(acc);
    if constexpr (SQUARES) dot = dot * rsqrt(row_sum(squares) / float(K) + 1e-5f);
    store(blk, p.c, {n0, 0}, cast<bf16>(dot));
  }
};

double bench_us(const std::function<void(int)>& launch, int copies, int reps = 15) {
  static cudaEvent_t a = nullptr, b = nullptr;
  if (a == nullptr) { cudaEventCreate(&a); cudaEventCreate(&b); }
  for (int i = 0; i < copies; ++i) launch(i);
  std::vector<float> t;
  const int burst = 4 * copies;
  for (int r = 0; r < reps; ++r) {
    cudaEventRecord(a);
    for (int i = 0; i < burst; ++i) launch(i % copies);
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    t.push_back(ms * 1000.f / float(burst));
  }
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) { std::printf("CUDA error: %s\n", cudaGetErrorString(e)); std::exit(1); }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

float to_float(uint16_t v) {
  const uint32_t u = uint32_t(v) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

int run(const char* filter) {
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  std::printf("%s, %d SMs\n", prop.name, prop.multiProcessorCount);
  cublasHandle_t handle;
  cublasCreate(&handle);
  const size_t pool_bytes = size_t(2) << 30;  // weight copies rotate through 2 GiB: none stays in L2
  void *pool = nullptr, *a = nullptr, *c = nullptr, *c_ref = nullptr, *copy_dst = nullptr;
  cudaMalloc(&pool, pool_bytes);
  cudaMalloc(&copy_dst, pool_bytes / 2);
  cudaMalloc(&a, 1 << 20);
  cudaMalloc(&c, 1 << 20);
  cudaMalloc(&c_ref, 1 << 20);
  fill_random_bf16(pool, pool_bytes, 1, 1.f);
  fill_random_bf16(a, 1 << 20, 2, 1.f);
  void* x_f32 = nullptr;  // a residual stream row for the fused rms_norm kernel: fp32 values in [-1, 1)
  {
    std::vector<float> h(16384);
    for (size_t i = 0; i < h.size(); ++i) h[i] = float((i * 2654435761u) % 2000) / 1000.f - 1.f;
    cudaMalloc(&x_f32, h.size() * 4);
    cudaMemcpy(x_f32, h.data(), h.size() * 4, cudaMemcpyHostToDevice);
  }

  const std::pair<int64_t, int64_t> shapes[] = {{4096, 4096}, {6144, 4096}, {28672, 4096}, {4096, 14336}, {128256, 4096}};
  for (auto [N, K] : shapes) {
    const size_t wbytes = size_t(N * K * 2);
    const int copies = int(std::max<size_t>(1, std::min<size_t>(16, pool_bytes / wbytes)));
    const double bytes = double(wbytes);
    auto weights = [&](int i) { return static_cast<const bf16*>(pool) + size_t(i) * size_t(N * K); };
    const View2<const bf16> av{static_cast<const bf16*>(a), {1, K}, {K, 1}};
    const View2<bf16> cv{static_cast<bf16*>(c), {N, 1}, {1, 1}};
    const double copy_us = bench_us([&](int i) {
      cudaMemcpyAsync(copy_dst, weights(i), wbytes / 2, cudaMemcpyDeviceToDevice);
    }, copies);  // half the bytes read, half written: wbytes in all
    std::printf("== 1 x %lld x %lld bf16, %.1f MB of weights, %d copies; copy of the same bytes %.1f us (%.2f TB/s)\n",
                (long long)N, (long long)K, bytes * 1e-6, copies, copy_us, bytes / copy_us * 1e-6);

    // cuBLAS reference output of copy 0, for checking every variant
    const float one = 1.f, zero = 0.f;
    auto cublas = [&](int i, void* out) {
      cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, int(N), 1, int(K), &one, weights(i), CUDA_R_16BF, int(K), a,
                   CUDA_R_16BF, int(K), &zero, out, CUDA_R_16BF, int(N), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    };
    cublas(0, c_ref);
    std::vector<uint16_t> ref(static_cast<size_t>(N)), got(static_cast<size_t>(N));
    cudaMemcpy(ref.data(), c_ref, size_t(N) * 2, cudaMemcpyDeviceToHost);

    double cublas_us = 0;
    auto report = [&](const std::string& name, const std::function<void(int)>& launch) {
      if (filter != nullptr && name.find(filter) == std::string::npos) return;
      cudaMemset(c, 0xff, size_t(N) * 2);
      launch(0);
      cudaMemcpy(got.data(), c, size_t(N) * 2, cudaMemcpyDeviceToHost);
      double worst = 0;
      for (int64_t i = 0; i < N; ++i)
        worst = std::max(worst, double(std::fabs(to_float(got[size_t(i)]) - to_float(ref[size_t(i)]))) /
                                    (std::fabs(to_float(ref[size_t(i)])) + 0.05));
      const double us = bench_us(launch, copies);
      if (cublas_us == 0) cublas_us = us;
      std::printf("  %-40s %8.2f us  %5.2f TB/s  %5.1f%% of copy  %.2fx cuBLAS  err %.1e%s\n", name.c_str(), us,
                  bytes / us * 1e-6, 100.0 * copy_us / us, cublas_us / us, worst, worst > 0.05 ? "  WRONG" : "");
    };
    report("cublas", [&](int i) { cublas(i, c); });

    // The library's kernel: one tile at a time (DEPTH 1) as before session 25, and as kept (rows1_bn4_x2).
    auto lib = [&]<int BN, int DEPTH, int MB>(const char* name) {
      using Kern = tile::MinBlocksPerSm<ops::kernels::MatmulFewRows<bf16, bf16, 1, BN, 1024, 128, DEPTH>, MB>;
      report(name, [&](int i) {
        typename Kern::Params p{};
        p.a = av;
        p.b = View2<const bf16>{weights(i), {N, K}, {K, 1}};
        p.c = cv;
        p.epilogue.alpha = 1.f;
        tile::cuda::launch<Kern>({(N + BN - 1) / BN}, p, nullptr);
      });
    };
    lib.template operator()<4, 1, 1>("library rows1_bn4 (before)");
    lib.template operator()<2, 1, 1>("library rows1_bn2 (before)");
    lib.template operator()<4, 2, 4>("library rows1_bn4_x2 mb4 (kept)");
    // The parts of a one-row rms_norm folded into the projection (rms_norm_matmul, measured and not kept in
    // session 25: bench/results/2026-11-26-h200-session25/experiment_rms_norm_matmul.diff).
    auto parts = [&]<bool G, bool SQ>(const char* name) {
      using Kern = tile::MinBlocksPerSm<NormParts<G, SQ>, 4>;
      if (filter != nullptr && std::string(name).find(filter) == std::string::npos) return;
      const double us = bench_us([&](int i) {
        typename Kern::Params p{View2<const float>{static_cast<const float*>(x_f32), {1, K}, {K, 1}},
                                View2<const bf16>{weights(i), {N, K}, {K, 1}},
                                View2<const bf16>{static_cast<const bf16*>(a) + 4096 * 16, {1, K}, {K, 1}}, cv};
        tile::cuda::launch<Kern>({(N + 3) / 4}, p, nullptr);
      }, copies);
      std::printf("  %-40s %8.2f us  %5.2f TB/s  %5.1f%% of copy  %.2fx cuBLAS\n", name, us, bytes / us * 1e-6,
                  100.0 * copy_us / us, cublas_us / us);
    };
    parts.template operator()<false, false>("rms parts: x f32 only");
    parts.template operator()<false, true>("rms parts: x f32 + squares");
    parts.template operator()<true, false>("rms parts: x f32 * g");
    parts.template operator()<true, true>("rms parts: x f32 * g + squares");

    auto deep = [&]<int BN, int BK, int DEPTH, int THREADS, int MB>() {
      using Kern = tile::MinBlocksPerSm<Deep<BN, BK, DEPTH, THREADS>, MB>;
      const std::string name = "deep bn" + std::to_string(BN) + " bk" + std::to_string(BK) + " x" +
                               std::to_string(DEPTH) + " t" + std::to_string(THREADS) + " mb" + std::to_string(MB);
      report(name, [&](int i) {
        Params p{av, View2<const bf16>{weights(i), {N, K}, {K, 1}}, cv};
        tile::cuda::launch<Kern>({(N + BN - 1) / BN}, p, nullptr);
      });
    };
    deep.template operator()<4, 1024, 4, 128, 1>();
    deep.template operator()<4, 1024, 2, 128, 1>();
    deep.template operator()<2, 1024, 4, 128, 1>();
    deep.template operator()<2, 1024, 4, 128, 6>();
    deep.template operator()<2, 1024, 8, 128, 1>();
    deep.template operator()<1, 1024, 4, 128, 1>();
    deep.template operator()<1, 1024, 8, 128, 1>();
    deep.template operator()<2, 2048, 2, 256, 1>();
    deep.template operator()<1, 2048, 4, 256, 1>();
    deep.template operator()<4, 512, 4, 64, 1>();
    deep.template operator()<2, 512, 8, 64, 1>();
    deep.template operator()<8, 1024, 1, 128, 4>();
    deep.template operator()<8, 1024, 1, 128, 3>();
    deep.template operator()<4, 1024, 3, 128, 3>();
    deep.template operator()<8, 512, 2, 64, 6>();

    // Persistent blocks: `per_sm` a multiprocessor (session 45).
    auto persistent = [&]<int BN, int DEPTH, int MB>(int per_sm) {
      if (K % (int64_t(DEPTH) * 1024) != 0) return;  // the variant walks whole chunks of DEPTH tiles only
      using Kern = tile::MinBlocksPerSm<Persistent<BN, 1024, DEPTH, 128>, MB>;
      const std::string name = "persistent bn" + std::to_string(BN) + " x" + std::to_string(DEPTH) + " mb" +
                               std::to_string(MB) + " grid " + std::to_string(per_sm) + "/SM";
      report(name, [&](int i) {
        Params p{av, View2<const bf16>{weights(i), {N, K}, {K, 1}}, cv};
        tile::cuda::launch<Kern>({int64_t(prop.multiProcessorCount) * per_sm}, p, nullptr);
      });
    };
    persistent.template operator()<4, 2, 4>(4);
    persistent.template operator()<4, 2, 4>(3);
    persistent.template operator()<2, 2, 4>(4);
    persistent.template operator()<2, 4, 4>(4);
    persistent.template operator()<1, 2, 8>(8);
  }
  return 0;
}
}  // namespace probe

int main(int argc, char** argv) { return probe::run(argc > 1 ? argv[1] : nullptr); }

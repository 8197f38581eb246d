// Launch-configuration sweep of the memory-bound tile kernels (bf16), kernel time only. The norms and softmax
// are the one-pass kernels (rows up to COLS); "mbN" is the MinBlocksPerSm hint.
//
// Each kernel is launched back to back from C++ (no Python or C-API overhead in the timing) over input sets
// that together exceed 3x L2, timed with CUDA events; bandwidth counts the bytes the op must move. A bench
// tool, not library code: it instantiates the kernels directly so one build compares many configurations.
//
// Build (sm_90a only, ~3 min on 2 cores):
//   nvcc -std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a --expt-relaxed-constexpr -Xcudafe \
//        --diag_suppress=177 -Iinclude -Isrc bench/membound_sweep.cu -o membound_sweep
// Run: ./membound_sweep   (prints one line per op, shape and configuration)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include "ops/activation/gelu.tile.h"
#include "ops/activation/silu_and_mul.tile.h"
#include "ops/embedding/embedding.tile.h"
#include "ops/norm/layer_norm.tile.h"
#include "ops/norm/rms_norm.tile.h"
#include "ops/rope/rope.tile.h"
#include "ops/softmax/softmax.tile.h"
#include "tessera/tile/tile.h"

using tessera::bf16;
namespace tl = tessera::tile;
namespace kn = tessera::ops::kernels;

#define CK(x)                                                                          \
  do {                                                                                 \
    cudaError_t e_ = (x);                                                              \
    if (e_ != cudaSuccess) { std::printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); std::exit(1); } \
  } while (0)

// A kernel with a minimum-blocks-per-SM hint (caps registers so that many blocks fit).
template <class K, int MIN_BLOCKS>
struct WithMinBlocks : K {
  static constexpr int min_blocks_per_sm = MIN_BLOCKS;
};

// Random data is made on the host and copied: this tool launches only tessera's tile kernels.
static void fill_bf16(bf16* p, size_t n, uint32_t seed) {
  std::vector<bf16> h(n);
  for (size_t i = 0; i < n; ++i) {
    uint32_t x = uint32_t(i) * 2654435761u ^ seed;
    x ^= x >> 13; x *= 0x5bd1e995u; x ^= x >> 15;
    h[i] = tessera::from_float<bf16>(float(x & 0xffffff) / float(0x1000000) * 4.f - 2.f);  // uniform in [-2, 2)
  }
  CK(cudaMemcpy(p, h.data(), n * sizeof(bf16), cudaMemcpyHostToDevice));
}
static void fill_ids(int32_t* p, size_t n, int32_t vocab) {
  std::vector<int32_t> h(n);
  for (size_t i = 0; i < n; ++i) h[i] = int32_t((uint32_t(i) * 2654435761u) % uint32_t(vocab));
  CK(cudaMemcpy(p, h.data(), n * sizeof(int32_t), cudaMemcpyHostToDevice));
}

static bf16* alloc_bf16(size_t n, uint32_t seed) {
  bf16* p;
  CK(cudaMalloc(&p, n * sizeof(bf16)));
  fill_bf16(p, n, seed);
  return p;
}

static double g_copy_tbs = 0;
static size_t g_l2 = 0;

// Median over 5 trials of the mean time of `reps` back-to-back calls of run(set), sets rotating.
static double time_us(int sets, const std::function<void(int)>& run, int reps = 30) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) run(i % sets);
  std::vector<double> trials;
  for (int t = 0; t < 5; ++t) {
    CK(cudaEventRecord(a));
    for (int i = 0; i < reps; ++i) run(i % sets);
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    trials.push_back(ms * 1e3 / reps);
  }
  CK(cudaGetLastError());
  std::sort(trials.begin(), trials.end());
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  return trials[2];
}

static void report(const char* op, int64_t m, int64_t k, const char* cfg, double bytes, double us) {
  const double tbs = bytes / (us * 1e-6) / 1e12;
  std::printf("%-18s %6lldx%-6lld %-22s %9.2f us %6.3f TB/s %5.1f%%\n", op, (long long)m, (long long)k, cfg, us, tbs,
              100 * tbs / g_copy_tbs);
  std::fflush(stdout);
}

template <class T>
static tl::View2<T> rows_view(T* p, int64_t m, int64_t k, int64_t ld) {
  tl::View2<T> v;
  v.data = p;
  v.extent[0] = m;
  v.extent[1] = k;
  v.stride[0] = ld;
  v.stride[1] = 1;
  return v;
}

struct Buffers {
  int sets;
  std::vector<bf16*> x, r, y;
  bf16 *w, *b;
};

static int sets_for(double bytes_per_set) { return std::max(1, int(3.0 * g_l2 / bytes_per_set + 0.999)); }

template <class K>
static void rms(const char* cfg, Buffers& B, int64_t m, int64_t k, int rows_per_block, bool residual) {
  const double us = time_us(B.sets, [&](int s) {
    typename K::Params p{};
    p.x = rows_view<const bf16>(B.x[s], m, k, k);
    p.weight = rows_view<const bf16>(B.w, 1, k, k);
    p.y = rows_view<bf16>(B.y[s], m, k, k);
    p.eps = 1e-6f;
    p.has_residual = residual;
    if (residual) {
      p.residual = rows_view<const bf16>(B.r[s], m, k, k);
      p.sum_out = rows_view<bf16>(B.r[s], m, k, k);
    }
    tl::cuda::launch<K>({(m + rows_per_block - 1) / rows_per_block}, p, nullptr);
  });
  report(residual ? "rms_norm_residual" : "rms_norm", m, k, cfg, (residual ? 4.0 : 2.0) * m * k * 2, us);
}

template <class K>
static void layer(const char* cfg, Buffers& B, int64_t m, int64_t k, int rows_per_block) {
  const double us = time_us(B.sets, [&](int s) {
    typename K::Params p{};
    p.x = rows_view<const bf16>(B.x[s], m, k, k);
    p.weight = rows_view<const bf16>(B.w, 1, k, k);
    p.bias = rows_view<const bf16>(B.b, 1, k, k);
    p.y = rows_view<bf16>(B.y[s], m, k, k);
    p.eps = 1e-5f;
    tl::cuda::launch<K>({(m + rows_per_block - 1) / rows_per_block}, p, nullptr);
  });
  report("layer_norm", m, k, cfg, 2.0 * m * k * 2, us);
}

template <class K>
static void softmax(const char* cfg, Buffers& B, int64_t m, int64_t k, int rows_per_block) {
  const double us = time_us(B.sets, [&](int s) {
    typename K::Params p{};
    p.x = rows_view<const bf16>(B.x[s], m, k, k);
    p.y = rows_view<bf16>(B.y[s], m, k, k);
    p.sign = 1.f;
    p.k = 1.4426950408889634f;
    tl::cuda::launch<K>({(m + rows_per_block - 1) / rows_per_block}, p, nullptr);
  });
  report("softmax", m, k, cfg, 2.0 * m * k * 2, us);
}

// gelu on a contiguous tensor: one long row, as the launcher does.
template <class K, int COLS>
static void gelu(const char* cfg, Buffers& B, int64_t m, int64_t k) {
  const double us = time_us(B.sets, [&](int s) {
    typename K::Params p{};
    p.x = rows_view<const bf16>(B.x[s], 1, m * k, m * k);
    p.y = rows_view<bf16>(B.y[s], 1, m * k, m * k);
    p.col_blocks = (m * k + COLS - 1) / COLS;
    tl::cuda::launch<K>({p.col_blocks}, p, nullptr);
  });
  report("gelu", m, k, cfg, 2.0 * m * k * 2, us);
}

// silu_and_mul: x is [m, 2k] (the x and r buffers of a set, each m x k, serve as one m x 2k buffer).
template <class K, int ROWS, int COLS>
static void silu(const char* cfg, std::vector<bf16*>& xx, Buffers& B, int64_t m, int64_t k) {
  const int sets = int(xx.size());
  const double us = time_us(sets, [&](int s) {
    typename K::Params p{};
    p.gate = rows_view<const bf16>(xx[s], m, k, 2 * k);
    p.up = rows_view<const bf16>(xx[s] + k, m, k, 2 * k);
    p.y = rows_view<bf16>(B.y[s % B.sets], m, k, k);
    p.col_blocks = (k + COLS - 1) / COLS;
    tl::cuda::launch<K>({(m + ROWS - 1) / ROWS * p.col_blocks}, p, nullptr);
  });
  report("silu_and_mul", m, k, cfg, 3.0 * m * k * 2, us);
}

// rope in place over [m, k / 128, 128], neox layout, int32 positions.
template <class K, int HEADS>
static void rope(const char* cfg, Buffers& B, int32_t* pos, float* inv_freq, int64_t m, int64_t k) {
  const int64_t heads = k / 128;
  const double us = time_us(B.sets, [&](int s) {
    typename K::Params p{};
    p.x.data = B.x[s];
    p.y.data = B.x[s];
    const int64_t ext[3] = {m, heads, 128}, str[3] = {k, 128, 1};
    for (int d = 0; d < 3; ++d) {
      p.x.extent[d] = p.y.extent[d] = ext[d];
      p.x.stride[d] = p.y.stride[d] = str[d];
    }
    p.pos32.data = pos;
    p.pos32.extent[0] = m;
    p.pos32.stride[0] = 1;
    p.inv_freq = rows_view<const float>(inv_freq, 1, 64, 64);
    p.rotary = 128;
    tl::cuda::launch<K>({m, (heads + HEADS - 1) / HEADS}, p, nullptr);
  });
  report("rope", m, k, cfg, 2.0 * m * k * 2, us);
}

template <class K, int ROWS, int COLS>
static void gather(const char* cfg, Buffers& B, bf16* table, int32_t* ids, int64_t vocab, int64_t m, int64_t k) {
  const double us = time_us(B.sets, [&](int s) {
    typename K::Params p{};
    p.ids32 = rows_view<const int32_t>(ids, 1, m, m);
    p.table = rows_view<const bf16>(table, vocab, k, k);
    p.y = rows_view<bf16>(B.y[s], m, k, k);
    tl::cuda::launch<K>({(m + ROWS - 1) / ROWS, (k + COLS - 1) / COLS}, p, nullptr);
  });
  report("embedding_gather", m, k, cfg, 2.0 * m * k * 2, us);
}

#define RMS(R, C, TH, MB) rms<WithMinBlocks<kn::RmsNorm<bf16, bf16, R, C, TH, true>, MB>>(#R "x" #C "/" #TH " mb" #MB, B, m, k, R, res)
#define LN(R, C, TH, MB) layer<WithMinBlocks<kn::LayerNorm<bf16, bf16, R, C, TH, true>, MB>>(#R "x" #C "/" #TH " mb" #MB, B, m, k, R)
#define SM(R, C, TH, MB) softmax<WithMinBlocks<kn::Softmax<bf16, R, C, TH, true>, MB>>(#R "x" #C "/" #TH " mb" #MB, B, m, k, R)
#define GELU(R, C, TH, MB) gelu<WithMinBlocks<kn::Gelu<bf16, R, C, TH, false>, MB>, C>(#R "x" #C "/" #TH " mb" #MB, B, m, k)
#define SILU(R, C, TH, MB) silu<WithMinBlocks<kn::SiluAndMul<bf16, R, C, TH>, MB>, R, C>(#R "x" #C "/" #TH " mb" #MB, xx, B, m, k)
#define ROPE(H, HALF, TH, MB) rope<WithMinBlocks<kn::Rope<bf16, H, HALF, TH>, MB>, H>(#H "x" #HALF "/" #TH " mb" #MB, B, pos, inv_freq, m, k)
#define GATHER(R, C, TH) gather<kn::EmbeddingGather<bf16, R, C, TH>, R, C>(#R "x" #C "/" #TH, B, table, ids, vocab, m, k)

int main() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  g_l2 = prop.l2CacheSize;
  {
    const size_t n = size_t(1) << 30;
    void *src, *dst;
    CK(cudaMalloc(&src, n));
    CK(cudaMalloc(&dst, n));
    const double us = time_us(1, [&](int) { CK(cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToDevice)); }, 10);
    g_copy_tbs = 2.0 * n / (us * 1e-6) / 1e12;
    CK(cudaFree(src));
    CK(cudaFree(dst));
  }
  std::printf("%s: %d SMs, L2 %zu MB, copy %.3f TB/s (read + write)\n", prop.name, prop.multiProcessorCount, g_l2 >> 20,
              g_copy_tbs);

  const int64_t shapes[2][2] = {{16384, 8192}, {4096, 4096}};
  for (auto& sh : shapes) {
    const int64_t m = sh[0], k = sh[1];
    Buffers B;
    B.sets = sets_for(3.0 * m * k * 2);
    for (int s = 0; s < B.sets; ++s) {
      B.x.push_back(alloc_bf16(m * k, 11 + s));
      B.r.push_back(alloc_bf16(m * k, 23 + s));
      bf16* y;
      CK(cudaMalloc(&y, m * k * 2));
      B.y.push_back(y);
    }
    B.w = alloc_bf16(k, 5);
    B.b = alloc_bf16(k, 7);
    CK(cudaDeviceSynchronize());

    for (bool res : {false, true}) {
      if (k == 8192) {
        RMS(1, 8192, 256, 3);
        RMS(1, 8192, 256, 4);
      } else {
        RMS(1, 4096, 128, 6);
        RMS(1, 4096, 128, 8);
        RMS(1, 4096, 256, 4);
      }
    }
    if (k == 8192) {
      LN(1, 8192, 256, 2);
      LN(1, 8192, 256, 3);
      LN(1, 8192, 256, 4);
      SM(1, 8192, 256, 2);
      SM(1, 8192, 256, 3);
      SM(1, 8192, 256, 4);
    } else {
      LN(1, 4096, 128, 4);
      LN(1, 4096, 128, 6);
      LN(1, 4096, 256, 4);
      SM(1, 4096, 128, 4);
      SM(1, 4096, 128, 6);
      SM(1, 4096, 256, 4);
    }
    GELU(1, 2048, 128, 1);
    GELU(1, 2048, 128, 8);
    GELU(1, 2048, 256, 8);
    GELU(1, 1024, 128, 16);
    {
      std::vector<bf16*> xx;  // m x 2k buffers
      for (int s = 0; s < std::max(1, B.sets / 2); ++s) xx.push_back(alloc_bf16(m * 2 * k, 31 + s));
      CK(cudaDeviceSynchronize());
      SILU(1, 2048, 128, 1);
      SILU(1, 2048, 128, 8);
      SILU(1, 2048, 256, 8);
      SILU(1, 1024, 128, 16);
      for (bf16* p : xx) CK(cudaFree(p));
    }
    {
      int32_t* pos;
      float* inv_freq;
      CK(cudaMalloc(&pos, m * 4));
      fill_ids(pos, m, 4096);
      std::vector<float> f(64);
      for (int i = 0; i < 64; ++i) f[i] = float(1.0 / std::pow(10000.0, 2.0 * i / 128));
      CK(cudaMalloc(&inv_freq, 64 * 4));
      CK(cudaMemcpy(inv_freq, f.data(), 256, cudaMemcpyHostToDevice));
      ROPE(32, 64, 64, 1);
      ROPE(32, 64, 64, 8);
      ROPE(32, 64, 64, 16);
      ROPE(32, 64, 128, 8);
      ROPE(16, 64, 64, 16);
      CK(cudaFree(pos));
      CK(cudaFree(inv_freq));
    }
    {
      const int64_t vocab = 32000;
      bf16* table = alloc_bf16(vocab * k, 3);
      int32_t* ids;
      CK(cudaMalloc(&ids, m * 4));
      fill_ids(ids, m, int32_t(vocab));
      CK(cudaDeviceSynchronize());
      GATHER(1, 2048, 128);
      CK(cudaFree(table));
      CK(cudaFree(ids));
    }
    for (int s = 0; s < B.sets; ++s) {
      CK(cudaFree(B.x[s]));
      CK(cudaFree(B.r[s]));
      CK(cudaFree(B.y[s]));
    }
    CK(cudaFree(B.w));
    CK(cudaFree(B.b));
  }
  return 0;
}

// What the warp-level tensor cores (mma.sync m16n8k16, bf16 -> fp32) give on this GPU, and what the staged
// matmul's sm_80 main loop can get from them with its operands read by ldmatrix (session 42). Three loops, each
// warp repeating the same k steps on resident data (no global memory, so only the tensor cores, the issue
// slots and shared memory bound them):
//   mma_only        8 independent mma.sync a step on registers: the instruction's peak
//   rows16_cols128  the sm_80 consumer's k step: a warp's 16 rows x 128 columns, 1 ldmatrix.x4 of A and 8 of B
//                   for 16 mma.sync (each warp reads the whole B tile), 8 warps a block (two consumer warpgroups) or 4
//   rows32_cols128  the same with 32 rows a warp (two 16-row slices): 2 ldmatrix of A and 8 of B for 32 mma.sync
// Shared tiles use the copy engine's 128-byte swizzle, as the library's. One block a multiprocessor x `waves`.
// Build here:
//   nvcc -O3 -std=c++20 -I include -gencode=arch=compute_90a,code=sm_90a bench/probes/mma_sync_ceiling.cu -o .device/mma_sync_ceiling
// Run there: .device/mma_sync_ceiling
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>

#include "median_time.h"
#include "tessera/tile/cuda/warp_mma.h"

namespace {
constexpr int kSteps = 4096;  // k steps (of 16) a warp runs

// The library's warp-level instructions (tessera/tile/cuda/warp_mma.h).
__device__ __forceinline__ void mma(float* d, const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  tessera::tile::cuda::warp::mma_m16n8k16<tessera::bf16>(d, a, b0, b1);
}
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], uint32_t addr) {
  tessera::tile::cuda::warp::ldmatrix_x4<false>(r, addr);
}
// The copy engine's 128-byte swizzle of a tile 64 elements (one 128-byte row) wide.
__device__ __forceinline__ uint32_t swizzled(int r, int c) { return uint32_t(r * 128 + (((c / 8) ^ (r % 8)) * 16)); }

__global__ void mma_only(float* out) {
  float acc[8][4] = {};
  uint32_t a[4] = {threadIdx.x, threadIdx.x * 3u, threadIdx.x * 5u, threadIdx.x * 7u};
  const uint32_t b0 = threadIdx.x * 11u, b1 = threadIdx.x * 13u;
  for (int s = 0; s < kSteps; ++s)
#pragma unroll
    for (int j = 0; j < 8; ++j) mma(acc[j], a, b0, b1);
  float sum = 0;
#pragma unroll
  for (int j = 0; j < 8; ++j) sum += acc[j][0] + acc[j][1] + acc[j][2] + acc[j][3];
  if (sum == 1.2345f) out[0] = sum;  // keeps the products
}

template <int SLICES>
__global__ void __launch_bounds__(256) warp_tile(float* out) {
  __shared__ alignas(1024) unsigned char tiles[(128 + 128) * 128];  // A [128 x 64] then B [128 x 64], bf16
  for (int i = threadIdx.x; i < int(sizeof(tiles)) / 4; i += blockDim.x) reinterpret_cast<uint32_t*>(tiles)[i] = i * 2654435761u;
  __syncthreads();
  const uint32_t a_base = uint32_t(__cvta_generic_to_shared(tiles)), b_base = a_base + 128 * 128;
  const int l = threadIdx.x % 32, w = threadIdx.x / 32;
  float acc[SLICES][16][4] = {};
  for (int s = 0; s < kSteps / 4; ++s)
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
      uint32_t af[SLICES][4];
#pragma unroll
      for (int sl = 0; sl < SLICES; ++sl)
        ldmatrix_x4(af[sl], a_base + swizzled((16 * SLICES * w + 16 * sl + l % 16) % 128, 16 * kk + 8 * (l / 16)));
#pragma unroll
      for (int j = 0; j < 16; j += 2) {
        uint32_t bf[4];
        ldmatrix_x4(bf, b_base + swizzled(8 * j + 8 * (l / 16) + l % 8, 16 * kk + 8 * ((l / 8) % 2)));
#pragma unroll
        for (int sl = 0; sl < SLICES; ++sl) {
          mma(acc[sl][j], af[sl], bf[0], bf[1]);
          mma(acc[sl][j + 1], af[sl], bf[2], bf[3]);
        }
      }
    }
  float sum = 0;
#pragma unroll
  for (int sl = 0; sl < SLICES; ++sl)
#pragma unroll
    for (int j = 0; j < 16; ++j) sum += acc[sl][j][0] + acc[sl][j][3];
  if (sum == 1.2345f) out[0] = sum;
}
}  // namespace

int main() {
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  float* out = nullptr;
  cudaMalloc(&out, 4);
  constexpr double kMmaFlops = 2.0 * 16 * 8 * 16;
  std::printf("%s, %d SMs\n", prop.name, sms);
  for (int warps : {4, 8, 16}) {
    const int blocks = sms * 4;
    const double us = probe::median_us([&](int) { mma_only<<<blocks, 32 * warps>>>(out); });
    const double flops = double(blocks) * warps * kSteps * 8 * kMmaFlops;
    std::printf("mma_only        %2d warps a block, %d blocks: %8.1f us  %6.1f TFLOP/s\n", warps, blocks, us, flops / us * 1e-6);
  }
  // 8 warps: the sm_80 form's two consumer warpgroups; 4 warps: one (a 128-row tile is then 32 rows a warp).
  for (int warps : {8, 4})
    for (int per_sm : {1, 2}) {
      const int blocks = sms * per_sm;
      const double us16 = probe::median_us([&](int) { warp_tile<1><<<blocks, 32 * warps>>>(out); });
      const double us32 = probe::median_us([&](int) { warp_tile<2><<<blocks, 32 * warps>>>(out); });
      const double f16 = double(blocks) * warps * kSteps * 16 * kMmaFlops, f32 = 2 * f16;
      std::printf("rows16_cols128  %d warps a block, %d a multiprocessor: %8.1f us  %6.1f TFLOP/s\n", warps, per_sm, us16, f16 / us16 * 1e-6);
      std::printf("rows32_cols128  %d warps a block, %d a multiprocessor: %8.1f us  %6.1f TFLOP/s\n", warps, per_sm, us32, f32 / us32 * 1e-6);
    }
  return 0;
}

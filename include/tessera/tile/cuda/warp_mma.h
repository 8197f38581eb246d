// The warp-level tensor-core instructions of sm_80 and later (Ampere, Ada, Hopper): ldmatrix, which reads 8 x 8
// matrices of 16-bit elements from shared memory into the fragment layout of mma.sync, and mma.sync m16n8k16.
// Used by the generic mma (cuda/reduce.h) and by sliced tiles (cuda/hopper/slices.h). A thread of a warp holds,
// of a 16 x 8 fp32 fragment d, rows lane / 4 and lane / 4 + 8 at columns 2 (lane % 4) and 2 (lane % 4) + 1.
#pragma once
#include <cstdint>
#include <type_traits>

#include "tessera/tile/common.h"

namespace tessera::tile::cuda::warp {

// Four 8 x 8 matrices of 16-bit elements, row i of matrix j at the address lane 8 j + i gives; TRANS: each
// transposed (a thread gets column pairs instead of row pairs).
template <bool TRANS>
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], uint32_t addr) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (TRANS)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr) : "memory");
  else
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr) : "memory");
#else
  (void)r; (void)addr; __trap();
#endif
}

// Two 8 x 8 matrices, row i of matrix j at the address lane 8 j + i gives (lanes 0-15; the others' addresses
// are not read).
template <bool TRANS>
__device__ __forceinline__ void ldmatrix_x2(uint32_t (&r)[2], uint32_t addr) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (TRANS)
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(addr) : "memory");
  else
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(addr) : "memory");
#else
  (void)r; (void)addr; __trap();
#endif
}

// d += a b for one m16n8k16 fragment: a row-major 16 x 16, b 16 x 8 (two registers, k pairs), d fp32 16 x 8.
template <class T>
__device__ __forceinline__ void mma_m16n8k16(float* d, const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  static_assert(std::is_same_v<T, bf16> || std::is_same_v<T, f16>, "mma.sync m16n8k16: bf16 or f16 operands");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (std::is_same_v<T, bf16>)
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                 "{%0, %1, %2, %3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  else
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                 "{%0, %1, %2, %3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#else
  (void)d; (void)a; (void)b0; (void)b1; __trap();
#endif
}

}  // namespace tessera::tile::cuda::warp

// CUDA tiles: a block's threads share each tile (see layout.h); loads and stores are 16-byte vectors where
// the view allows and element by element at its edges.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <type_traits>

#include "tessera/tile/cuda/layout.h"

namespace tessera::tile::cuda {

template <int TH>
struct Block {
  static constexpr int threads = TH;
  __device__ int64_t bid(int axis) const { return axis == 0 ? blockIdx.x : axis == 1 ? blockIdx.y : blockIdx.z; }
  __device__ int64_t num_blocks(int axis) const { return axis == 0 ? gridDim.x : axis == 1 ? gridDim.y : gridDim.z; }
};

template <class T, class L>
struct Tile {
  using value_type = T;
  using layout = L;
  static constexpr int rows = L::rows, cols = L::cols;
  T v[L::size];
};

template <class X> struct is_tile : std::false_type {};
template <class T, class L> struct is_tile<Tile<T, L>> : std::true_type {};
template <class X> inline constexpr bool is_tile_v = is_tile<std::remove_cvref_t<X>>::value;

// ---- creation ----

template <class T, int R, int C, int TH>
__device__ __forceinline__ Tile<T, Blocked<R, C, TH>> full(const Block<TH>&, T value) {
  Tile<T, Blocked<R, C, TH>> t;
#pragma unroll
  for (int e = 0; e < Blocked<R, C, TH>::size; ++e) t.v[e] = value;
  return t;
}
template <class T, int R, int C, int TH>
__device__ __forceinline__ Tile<T, Blocked<R, C, TH>> zeros(const Block<TH>& blk) { return full<T, R, C>(blk, T(0)); }

template <class T, class U, class L>
__device__ __forceinline__ Tile<T, L> full_like(const Tile<U, L>&, T value) {
  Tile<T, L> t;
#pragma unroll
  for (int e = 0; e < L::size; ++e) t.v[e] = value;
  return t;
}

template <int R, int C, int TH>
__device__ __forceinline__ Tile<int, Blocked<R, C, TH>> arange(const Block<TH>&, int axis) {
  using L = Blocked<R, C, TH>;
  Tile<int, L> t;
#pragma unroll
  for (int e = 0; e < L::size; ++e) t.v[e] = axis == 0 ? L::row(e) : L::col(e);
  return t;
}

// The row (axis 0) or column (axis 1) index of each element of a tile laid out like `like`.
template <class T, class L>
__device__ __forceinline__ Tile<int, L> arange_like(const Tile<T, L>&, int axis) {
  Tile<int, L> t;
#pragma unroll
  for (int e = 0; e < L::size; ++e) t.v[e] = axis == 0 ? L::row(e) : L::col(e);
  return t;
}

// ---- memory ----

namespace detail {
template <int BYTES> struct vec;
template <> struct vec<1> { using type = uint8_t; };
template <> struct vec<2> { using type = uint16_t; };
template <> struct vec<4> { using type = uint32_t; };
template <> struct vec<8> { using type = uint2; };
template <> struct vec<16> { using type = uint4; };

// Copies V contiguous elements with the widest accesses the size allows; both pointers aligned to `unit`.
template <class U, int V>
struct chunk_copy {
  static constexpr int bytes = V * int(sizeof(U));
  static constexpr int unit = bytes < 16 ? bytes : 16;
  using W = typename vec<unit>::type;
  __device__ static bool aligned(const void* p) { return (reinterpret_cast<uintptr_t>(p) % unit) == 0; }
  __device__ static void run(U* dst, const U* src) {
#pragma unroll
    for (int i = 0; i < bytes / unit; ++i) reinterpret_cast<W*>(dst)[i] = reinterpret_cast<const W*>(src)[i];
  }
};

// chunk_copy's load for the ReadOnce hint: 16-byte units are read with L1's evict-first policy (their lines are
// the first to leave L1, whose other lines then stay with what the kernel reads again); narrower chunks (a tile
// narrower than 16 bytes a thread) load as chunk_copy does. Measured on an H200 against the other L1 forms
// (bench/results/2026-11-30-h200-session52, run 5: batch-1 decode step against unhinted loads, evict-first
// -2.0%, L1::no_allocate -1.8%, nc.L1::no_allocate -1.0%). No L2 policy here: with one (evict-first, as the copy
// engine's ReadOnce loads carry), the batch-1 decode step was 1.4% slower (same notes, run 3).
template <class U, int V>
struct chunk_read_once {
  using Copy = chunk_copy<U, V>;
  __device__ static void run(U* dst, const U* src) {
    if constexpr (Copy::unit == 16) {
#pragma unroll
      for (int i = 0; i < Copy::bytes / 16; ++i) {
        uint4 w;
        asm volatile("ld.global.L1::evict_first.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(w.x), "=r"(w.y), "=r"(w.z), "=r"(w.w)
                     : "l"(reinterpret_cast<const uint4*>(src) + i));
        reinterpret_cast<uint4*>(dst)[i] = w;
      }
    } else {
      Copy::run(dst, src);
    }
  }
};
}  // namespace detail

namespace detail {
// True when every element of the R x C tile at `at` lies inside the view, rows are unit-stride and every chunk
// start is aligned for the widest copy: then each chunk is one unpredicated vector access. Checked once per
// tile (uniform over the block), so interior tiles pay no per-chunk bounds or alignment tests.
template <class L, class U>
__device__ __forceinline__ bool tile_inside(const View2<U>& view, Coord at) {
  using Copy = chunk_copy<std::remove_const_t<U>, L::V>;
  constexpr int64_t unit_elems = Copy::unit / int64_t(sizeof(U));
  return at.row >= 0 && at.col >= 0 && at.row + L::rows <= view.extent[0] && at.col + L::cols <= view.extent[1] &&
         view.stride[1] == 1 && (L::rows == 1 || view.stride[0] % unit_elems == 0) &&
         Copy::aligned(view.data + at.row * view.stride[0] + at.col);
}

// Offset of chunk k of the calling thread from the tile's first element, in a view of unit column stride.
template <class L>
__device__ __forceinline__ int64_t chunk_offset(int k, int64_t row_stride) {
  const int ch = L::chunk(k);
  const int col = (ch % L::nc) * L::V;
  if constexpr (L::rows == 1) return col;
  else return int64_t(ch / L::nc) * row_stride + col;
}
}  // namespace detail

namespace detail {
// Chunk by chunk, for a Blocked tile that may cross its view's edges (or is unaligned, or column-strided): a
// vector copy where the chunk is whole, inside and aligned, element by element otherwise (`padv` outside the
// extents on loads; writes outside them dropped on stores).
template <class L, class U, class T>
__device__ __forceinline__ void load_edge_chunks(U* v, const View2<T>& view, Coord at, U padv) {
  using Copy = chunk_copy<U, L::V>;
#pragma unroll
  for (int k = 0; k < L::chunks; ++k) {
    const int ch = L::chunk(k);
    const int64_t gr = at.row + ch / L::nc;
    const int64_t gc = at.col + (ch % L::nc) * L::V;
    const bool row_in = gr >= 0 && gr < view.extent[0];
    const U* src = view.data + gr * view.stride[0] + gc * view.stride[1];
    if (row_in && gc >= 0 && gc + L::V <= view.extent[1] && view.stride[1] == 1 && Copy::aligned(src)) {
      Copy::run(&v[k * L::V], src);
    } else {
#pragma unroll
      for (int i = 0; i < L::V; ++i) {
        const bool in = row_in && gc + i >= 0 && gc + i < view.extent[1];
        v[k * L::V + i] = in ? view.data[gr * view.stride[0] + (gc + i) * view.stride[1]] : padv;
      }
    }
  }
}

template <class L, class U>
__device__ __forceinline__ void store_edge_chunks(const View2<U>& view, Coord at, const U* v) {
  using Copy = chunk_copy<U, L::V>;
#pragma unroll
  for (int k = 0; k < L::chunks; ++k) {
    const int ch = L::chunk(k);
    const int64_t gr = at.row + ch / L::nc;
    const int64_t gc = at.col + (ch % L::nc) * L::V;
    if (gr < 0 || gr >= view.extent[0]) continue;
    U* dst = view.data + gr * view.stride[0] + gc * view.stride[1];
    if (gc >= 0 && gc + L::V <= view.extent[1] && view.stride[1] == 1 && Copy::aligned(dst)) {
      Copy::run(dst, &v[k * L::V]);
    } else {
#pragma unroll
      for (int i = 0; i < L::V; ++i)
        if (gc + i >= 0 && gc + i < view.extent[1]) view.data[gr * view.stride[0] + (gc + i) * view.stride[1]] = v[k * L::V + i];
    }
  }
}

// The same, out of line (the ColdEdges hint, common.h). The tiles they fill or read live in local memory.
template <class L, class U, class T>
__device__ __noinline__ void load_edge_chunks_cold(Tile<U, L>* out, const View2<T> view, Coord at, U padv) {
  load_edge_chunks<L>(out->v, view, at, padv);
}
template <class L, class U>
__device__ __noinline__ void store_edge_chunks_cold(const View2<U> view, Coord at, const Tile<U, L>* t) {
  store_edge_chunks<L>(view, at, t->v);
}

// load and store of Blocked tiles: one unpredicated vector access per chunk when the whole tile is inside
// (tile_inside), the edge paths above otherwise, inline or (COLD) out of line. The local tiles of the
// out-of-line paths are aligned for the vector accesses of their whole chunks.
template <bool COLD, bool ONCE, int R, int C, int TH, class T>
__device__ __forceinline__ Tile<std::remove_const_t<T>, Blocked<R, C, TH>> load_blocked(const View2<T>& view, Coord at,
                                                                                       float pad) {
  using U = std::remove_const_t<T>;
  using L = Blocked<R, C, TH>;
  using Copy = chunk_copy<U, L::V>;
  Tile<U, L> t;
  if (tile_inside<L>(view, at)) {
    const U* base = view.data + at.row * view.stride[0] + at.col;
    if constexpr (ONCE) {
#pragma unroll
      for (int k = 0; k < L::chunks; ++k) chunk_read_once<U, L::V>::run(&t.v[k * L::V], base + chunk_offset<L>(k, view.stride[0]));
    } else {
#pragma unroll
      for (int k = 0; k < L::chunks; ++k) Copy::run(&t.v[k * L::V], base + chunk_offset<L>(k, view.stride[0]));
    }
  } else if constexpr (COLD) {
    alignas(16) Tile<U, L> edges;
    load_edge_chunks_cold(&edges, view, at, convert_element<U>(pad));
    t = edges;
  } else {
    load_edge_chunks<L>(t.v, view, at, convert_element<U>(pad));
  }
  return t;
}

template <bool COLD, class U, class L>
__device__ __forceinline__ void store_blocked(const View2<U>& view, Coord at, const Tile<U, L>& t) {
  using Copy = chunk_copy<U, L::V>;
  if (!L::owner(0)) return;
  if (tile_inside<L>(view, at)) {
    U* base = view.data + at.row * view.stride[0] + at.col;
#pragma unroll
    for (int k = 0; k < L::chunks; ++k) Copy::run(base + chunk_offset<L>(k, view.stride[0]), &t.v[k * L::V]);
    return;
  }
  if constexpr (COLD) {
    alignas(16) const Tile<U, L> edges = t;
    store_edge_chunks_cold(view, at, &edges);
  } else {
    store_edge_chunks<L>(view, at, t.v);
  }
}
}  // namespace detail

// The R x C tile at view(at.row, at.col), `pad` outside the extents. Same contract as host::load.
template <int R, int C, int TH, class T>
__device__ __forceinline__ Tile<std::remove_const_t<T>, Blocked<R, C, TH>> load(const Block<TH>&, const View2<T>& view,
                                                                               Coord at) {
  return detail::load_blocked<false, false, R, C, TH>(view, at, 0.f);
}
// With hints (ColdEdges, ReadOnce: common.h): the same result.
template <int R, int C, int TH, class T, class... Hints>
__device__ __forceinline__ Tile<std::remove_const_t<T>, Blocked<R, C, TH>> load(const Block<TH>&, const View2<T>& view,
                                                                               Coord at, float pad, Hints...) {
  static_assert(only_load_hints<Hints...>, "load: hints are ColdEdges and ReadOnce");
  return detail::load_blocked<has_hint<ColdEdges, Hints...>, has_hint<ReadOnce, Hints...>, R, C, TH>(view, at, pad);
}

template <class T, class U, class L, int TH>
__device__ __forceinline__ void store(const Block<TH>&, const View2<T>& view, Coord at, const Tile<U, L>& t) {
  static_assert(std::is_same_v<T, U>, "store: the tile's element type must equal the view's: cast first");
  if constexpr (std::is_same_v<L, Blocked<L::rows, L::cols, TH>>) {
    detail::store_blocked<false>(view, at, t);
  } else {
#pragma unroll
    for (int e = 0; e < L::size; ++e) {
      if (!L::owner(e)) continue;
      const int64_t gr = at.row + L::row(e), gc = at.col + L::col(e);
      if (gr >= 0 && gr < view.extent[0] && gc >= 0 && gc < view.extent[1])
        view.data[gr * view.stride[0] + gc * view.stride[1]] = t.v[e];
    }
  }
}
// With the ColdEdges hint: the same writes.
template <class T, class U, int R, int C, int TH>
__device__ __forceinline__ void store(const Block<TH>&, const View2<T>& view, Coord at, const Tile<U, Blocked<R, C, TH>>& t,
                                      ColdEdges) {
  static_assert(std::is_same_v<T, U>, "store: the tile's element type must equal the view's: cast first");
  detail::store_blocked<true>(view, at, t);
}

template <class L, int TH>
__device__ __forceinline__ void atomic_add(const Block<TH>&, const View2<float>& view, Coord at, const Tile<float, L>& t) {
#pragma unroll
  for (int e = 0; e < L::size; ++e) {
    if (!L::owner(e)) continue;
    const int64_t gr = at.row + L::row(e), gc = at.col + L::col(e);
    if (gr >= 0 && gr < view.extent[0] && gc >= 0 && gc < view.extent[1])
      atomicAdd(view.data + gr * view.stride[0] + gc * view.stride[1], t.v[e]);
  }
}

// ---- conversion ----

template <class To, class T, class L>
__device__ __forceinline__ Tile<To, L> cast(const Tile<T, L>& t) {
  Tile<To, L> out;
  if constexpr (std::is_same_v<T, float> && std::is_same_v<To, bf16> && L::size % 2 == 0) {
    // The hardware's paired round-to-nearest-even conversion (the same result as convert_element).
#pragma unroll
    for (int e = 0; e < L::size; e += 2) {
      const __nv_bfloat162 h = __floats2bfloat162_rn(t.v[e], t.v[e + 1]);
      out.v[e].bits = __bfloat16_as_ushort(h.x);
      out.v[e + 1].bits = __bfloat16_as_ushort(h.y);
    }
  } else if constexpr (std::is_same_v<T, float> && std::is_same_v<To, f16> && L::size % 2 == 0) {
#pragma unroll
    for (int e = 0; e < L::size; e += 2) {
      const __half2 h = __floats2half2_rn(t.v[e], t.v[e + 1]);
      out.v[e].bits = __half_as_ushort(h.x);
      out.v[e + 1].bits = __half_as_ushort(h.y);
    }
  } else if constexpr (std::is_same_v<T, fp8_e4m3> && std::is_same_v<To, float> && L::size % 2 == 0) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
    // Two elements a conversion (e4m3x2 -> f16x2, the first element in the low byte and the low half), then
    // each half to f32: a decode matmul on fp8 weights converts every byte it reads.
#pragma unroll
    for (int e = 0; e < L::size; e += 2) {
      const uint16_t bytes = uint16_t(t.v[e].bits | (uint32_t(t.v[e + 1].bits) << 8));
      const float2 f = __half22float2(__half2(__nv_cvt_fp8x2_to_halfraw2(__nv_fp8x2_storage_t(bytes), __NV_E4M3)));
      out.v[e] = f.x;
      out.v[e + 1] = f.y;
    }
#else
#pragma unroll
    for (int e = 0; e < L::size; ++e) out.v[e] = convert_element<To>(t.v[e]);
#endif
  } else if constexpr (std::is_same_v<T, bf16> && std::is_same_v<To, float> && L::size % 2 == 0) {
    // Two elements a 32-bit word: each widens with one instruction (a shift or a mask) where one at a time
    // takes two (a byte permute, then a shift): 18 instead of 22 SASS instructions for 8 elements. The words
    // are still split and joined again around the join of the vector and edge load paths.
#pragma unroll
    for (int e = 0; e < L::size; e += 2) {
      uint32_t pair;
      memcpy(&pair, &t.v[e], sizeof(pair));
      out.v[e] = __uint_as_float(pair << 16);
      out.v[e + 1] = __uint_as_float(pair & 0xffff0000u);
    }
  } else {
#pragma unroll
    for (int e = 0; e < L::size; ++e) out.v[e] = convert_element<To>(t.v[e]);
  }
  return out;
}

}  // namespace tessera::tile::cuda

// What kernel code and both tile-library backends share: views of global memory, coordinates, the grid.
//
// A tile kernel is a struct:
//
//   struct MyKernel {
//     static constexpr int threads = 256;   // CUDA threads that cooperate on one block; the host ignores it
//     struct Params { ... views and scalars ... };
//     template <class Block> TILE_DEVICE void operator()(Block& blk, const Params& p) const { ... }
//   };
//
// Its body uses only tile operations (load, store, math, reductions, mma ...). Those are found by
// argument-dependent lookup on `blk` and on the tiles, so the same source compiles against
// tessera::tile::host (every operation is a whole-tile loop: the specification) and
// tessera::tile::cuda (the block's threads share each tile). Control flow in kernel code may depend only on
// values that are the same for the whole block: block coordinates, parameters, scalars read from memory.
#pragma once
#include <cstdint>
#include <type_traits>

#include "tessera/runtime/numeric.h"

#if defined(__CUDACC__)
#define TILE_DEVICE __device__ __forceinline__
#define TILE_HD __host__ __device__ __forceinline__
#else
#define TILE_DEVICE inline
#define TILE_HD inline
#endif

// Unrolls the next loop of a kernel `n` times: for loops whose iterations' loads do not depend on each other,
// so that several are in flight at once (the GPU waits for memory once per unrolled group, not per iteration).
#define TILE_PRAGMA(x) _Pragma(#x)
#if defined(__CUDACC__)
#define TILE_UNROLL(n) TILE_PRAGMA(unroll n)
#else
#define TILE_UNROLL(n) TILE_PRAGMA(GCC unroll n)
#endif

namespace tessera::tile {

// A strided N-dimensional window onto global memory. Extents bound every load and store: elements outside
// them read as the load's padding value and are never written.
template <class T, int N>
struct View {
  T* data = nullptr;
  int64_t extent[N] = {};
  int64_t stride[N] = {};

  TILE_HD int64_t size(int d) const { return extent[d]; }
  // Drops the leading dimension at index i.
  TILE_HD View<T, N - 1> operator[](int64_t i) const {
    static_assert(N > 1, "a rank-1 view cannot be sliced further");
    View<T, N - 1> v;
    v.data = data + i * stride[0];
    for (int d = 1; d < N; ++d) { v.extent[d - 1] = extent[d]; v.stride[d - 1] = stride[d]; }
    return v;
  }
  // A scalar read, the same value for every thread of the block.
  template <class... I>
  TILE_HD T& operator()(I... idx) const {
    static_assert(sizeof...(I) == N, "one index per dimension");
    const int64_t is[] = {int64_t(idx)...};
    int64_t off = 0;
    for (int d = 0; d < N; ++d) off += is[d] * stride[d];
    return data[off];
  }
  // The window of `rows` x `cols` elements starting at (r0, c0) (rank 2 only); extents are clipped.
  TILE_HD View window(int64_t r0, int64_t c0, int64_t rows, int64_t cols) const {
    static_assert(N == 2, "window is for rank-2 views");
    View v = *this;
    v.data = data + r0 * stride[0] + c0 * stride[1];
    v.extent[0] = rows < extent[0] - r0 ? rows : extent[0] - r0;
    v.extent[1] = cols < extent[1] - c0 ? cols : extent[1] - c0;
    if (v.extent[0] < 0) v.extent[0] = 0;
    if (v.extent[1] < 0) v.extent[1] = 0;
    return v;
  }
  // A one-row view repeated `rows` times (row stride 0), rank 2 only: a row vector read as a tile in which
  // every row is the same (statistics of queries broadcast down a tile whose rows are keys).
  TILE_HD View broadcast_rows(int64_t rows) const {
    static_assert(N == 2, "broadcast_rows is for rank-2 views");
    View v = *this;
    v.extent[0] = extent[0] > 0 ? rows : 0;
    v.stride[0] = 0;
    return v;
  }
};

template <class T> using View1 = View<T, 1>;
template <class T> using View2 = View<T, 2>;
template <class T> using View3 = View<T, 3>;
template <class T> using View4 = View<T, 4>;

// Element offset of a tile's first element inside a rank-2 view.
struct Coord {
  int64_t row = 0;
  int64_t col = 0;
};

// A launch hint: Kernel, run with at least N blocks resident on each GPU multiprocessor. The CUDA backend caps
// the kernel's registers so that N blocks fit (memory-bound kernels want the loads of several blocks in
// flight); the host backend ignores it. The kernel itself is unchanged.
template <class Kernel, int N>
struct MinBlocksPerSm : Kernel {
  static constexpr int min_blocks_per_sm = N;
};

// The first element of the tile that block `blk` of a one-dimensional grid covers, when the grid walks a
// (row tiles) x (col_tiles) grid of ROWS x COLS tiles row by row. Elementwise kernels use one grid axis so
// that any number of rows fits (CUDA's second and third grid axes stop at 65535).
template <int ROWS, int COLS, class Block>
TILE_HD Coord tile_origin(const Block& blk, int64_t col_tiles) {
  return {blk.bid(0) / col_tiles * ROWS, blk.bid(0) % col_tiles * COLS};
}

// A hint to load and store: a tile that crosses its view's edges (or is unaligned, or column-strided) takes
// the element-by-element path out of line. Inlined, that path raises the registers of the vector path too
// (96 vs 72 for a 2 x 8192 bf16 tile, weight and bias over 512 threads; the likely cause, not confirmed in
// SASS: 16-bit elements held one to a register); out of line, the vector path keeps its registers but every
// kernel that uses the hint carries a call (its register allocation then respects the call's conventions).
// For kernels whose tiles are nearly all inside and whose occupancy is limited by registers: layer_norm
// 47% -> 57% and silu_and_mul 77% -> 84% of copy bandwidth on an H200, where gelu and rope lost 5-9% with it
// (bench/results/2026-11-24-h200-session13). The host backend ignores it.
struct ColdEdges {};
inline constexpr ColdEdges cold_edges{};

// A hint to load (and to the copy engine's load_async): the kernel reads each byte of this view once (a decode
// step's weights, each read by one block; decode attention's keys and values), so caching it only pushes out
// what the kernel reads again. Loads into registers leave L1 first (evict-first), where every block keeps the
// activation row it multiplies each weight tile by; the copy engine's loads (no L1 on their way) mark their
// lines in L2 first to leave. Measured on an H200 (bench/results/2026-11-30-h200-session52, run 5): the one-row
// projections' weights evict-first in L1, batch-1 decode steps 2% faster than with plain loads; the copy
// engine's weight and K/V tiles evict-first, batch 2-32 steps 2-5% faster. The host backend ignores it.
struct ReadOnce {};
inline constexpr ReadOnce read_once{};

template <class Hint, class... Hints>
inline constexpr bool has_hint = (std::is_same_v<Hint, Hints> || ...);
template <class... Hints>
inline constexpr bool only_load_hints = ((std::is_same_v<Hints, ColdEdges> || std::is_same_v<Hints, ReadOnce>) && ...);

// A mask that holds everywhere: where(everywhere, a, b) is a. A kernel whose tiles are padded only at a row's
// end passes it where the row fills the tile, and the column mask there costs nothing (a mask of 32 elements a
// thread costs a compare, a select and, past the predicate registers, bit packing: 3-5 instructions each).
struct Everywhere {};
inline constexpr Everywhere everywhere{};
template <class A, class B>
TILE_HD A where(Everywhere, const A& a, const B&) {
  return a;  // a copy: `a` may be a temporary, and the result is often bound to a name
}

// How many columns of a row of n lie in the COLS-wide tile starting at column c0, as the 32-bit bound of a
// column mask (`col < columns_inside<COLS>(n, c0)`): a 64-bit bound costs five instructions an element.
template <int COLS>
TILE_HD int columns_inside(int64_t n, int64_t c0) {
  return int(n - c0 < COLS ? n - c0 : COLS);
}

struct Grid {
  int64_t x = 1, y = 1, z = 1;
  int64_t count() const { return x * y * z; }
};

template <class T> inline constexpr bool is_pow2(T v) { return v > 0 && (v & (v - 1)) == 0; }

// Tile element types: float and int32 are computed on, 16-bit floats and bool are carried and cast.
template <class T> inline constexpr bool is_storage_float_v =
    std::is_same_v<T, bf16> || std::is_same_v<T, f16> || std::is_same_v<T, fp8_e4m3> || std::is_same_v<T, fp8_e5m2>;

// Converts between any two tile element types (through float for the 16- and 8-bit floats).
template <class To, class From>
TILE_HD To convert_element(From x) {
  if constexpr (std::is_same_v<To, From>) {
    return x;
  } else if constexpr (is_storage_float_v<From>) {
    return convert_element<To>(to_float(x));
  } else if constexpr (is_storage_float_v<To>) {
    return from_float<To>(float(x));
  } else {
    return To(x);
  }
}

}  // namespace tessera::tile

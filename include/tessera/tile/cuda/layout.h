// How a tile's elements are spread over the threads of a CUDA block.
//
// Blocked<R, C, TH>: the tile is cut into chunks of V = min(8, C) consecutive elements of a row (one 16-byte
// access for 16-bit types). Chunks are numbered row-major; thread t holds chunks t, t + TH, t + 2 TH, ...
// When the tile has fewer chunks than the block has threads, thread t holds chunk t % N: the tile is
// replicated, and only the first copy stores.
//
// RowSlice<R, C, TH>: the R x 1 result of a row reduction over a Blocked<R, C, TH> tile. Each thread holds
// the rows that its chunks of the parent touch, so a column vector broadcasts over the parent without data
// movement. A Blocked<1, C, TH> row vector likewise holds exactly the columns a parent thread needs.
//
// Every mapping from a thread's local element to a slot of a broadcast operand is a compile-time function of
// the element index: tiles stay in registers.
#pragma once
#include <type_traits>

#include "tessera/tile/common.h"

namespace tessera::tile::cuda {

__device__ __forceinline__ int thread_rank() { return int(threadIdx.x); }

template <int R, int C, int TH>
struct Blocked {
  static_assert(is_pow2(R) && is_pow2(C), "tile extents must be powers of two (pad the tile, mask the view)");
  static_assert(is_pow2(TH) && TH >= 32, "a block has a power-of-two number of threads, at least one warp");
  static constexpr int rows = R, cols = C, threads = TH;
  static constexpr int V = C < 8 ? C : 8;       // elements per chunk
  static constexpr int nc = C / V;              // chunks per row
  static constexpr int N = R * nc;              // chunks in the tile
  static constexpr bool replicated = N < TH;
  static constexpr int chunks = replicated ? 1 : N / TH;  // chunks per thread
  static constexpr int size = chunks * V;                  // elements per thread

  __device__ static int chunk(int k) { return replicated ? thread_rank() % N : thread_rank() + k * TH; }
  __device__ static int row(int e) { return chunk(e / V) / nc; }
  __device__ static int col(int e) { return (chunk(e / V) % nc) * V + e % V; }
  __device__ static bool owner(int) { return !replicated || thread_rank() < N; }
};

template <int R, int C, int TH>
struct RowSlice {
  using Parent = Blocked<R, C, TH>;
  static constexpr int rows = R, cols = 1, threads = TH;
  static constexpr bool all_rows = !Parent::replicated && Parent::nc >= TH;  // every thread touches every row
  static constexpr int size = Parent::replicated ? 1 : (all_rows ? R : Parent::chunks);
  // Threads that share one row of the parent, consecutive and aligned.
  static constexpr int group = Parent::replicated ? Parent::nc : (Parent::nc < TH ? Parent::nc : TH);

  __host__ __device__ static constexpr int slot_of_chunk(int k) {
    return Parent::replicated ? 0 : (all_rows ? k / (Parent::nc / TH) : k);
  }
  __device__ static int row(int s) {
    if constexpr (Parent::replicated) return (thread_rank() % Parent::N) / Parent::nc;
    else if constexpr (all_rows) return s;
    else return (thread_rank() + s * TH) / Parent::nc;
  }
  __device__ static int col(int) { return 0; }
  __device__ static bool owner(int) {
    const int t = thread_rank();
    if constexpr (Parent::replicated) return t < Parent::N && t % Parent::nc == 0;
    else if constexpr (all_rows) return t == 0;
    else return t % Parent::nc == 0;
  }
};

// ChunkSums<R, C, TH>: a Blocked<R, C, TH> tile with each chunk (V consecutive elements of a row) summed
// (chunk_sums): R x C / V, one value per chunk, held by the thread that holds the chunk, so no data moves. A
// running sum of chunk sums keeps one register per chunk instead of V, and its row sum is the parent's.
template <int R, int C, int TH>
struct ChunkSums {
  using Parent = Blocked<R, C, TH>;
  static constexpr int rows = R, cols = C / Parent::V, threads = TH;
  static constexpr int size = Parent::chunks;
  __device__ static int row(int e) { return Parent::row(e * Parent::V); }
  __device__ static int col(int e) { return Parent::col(e * Parent::V) / Parent::V; }
  __device__ static bool owner(int e) { return Parent::owner(e * Parent::V); }
};

template <class L> inline constexpr bool is_scalar_layout_v = L::rows * L::cols == 1;

// The layout of an elementwise result of operands laid out as A and B.
template <class A, class B, class = void>
struct common_layout {
  static_assert(sizeof(A) == 0,
                "these tile layouts do not broadcast: operands must have the same shape, or be the row vector "
                "(1 x C) or row-reduction result (R x 1) of the same R x C tile shape");
};
template <class A> struct common_layout<A, A> { using type = A; };
template <class A, class B>
struct common_layout<A, B, std::enable_if_t<!std::is_same_v<A, B> && is_scalar_layout_v<A>>> { using type = B; };
template <class A, class B>
struct common_layout<A, B, std::enable_if_t<!std::is_same_v<A, B> && !is_scalar_layout_v<A> && is_scalar_layout_v<B>>> { using type = A; };
template <int R, int C, int TH>
struct common_layout<Blocked<R, C, TH>, Blocked<1, C, TH>, std::enable_if_t<(R > 1 && C > 1)>> { using type = Blocked<R, C, TH>; };
template <int R, int C, int TH>
struct common_layout<Blocked<1, C, TH>, Blocked<R, C, TH>, std::enable_if_t<(R > 1 && C > 1)>> { using type = Blocked<R, C, TH>; };
template <int R, int C, int TH>
struct common_layout<Blocked<R, C, TH>, RowSlice<R, C, TH>, std::enable_if_t<(R > 1 && C > 1)>> { using type = Blocked<R, C, TH>; };
template <int R, int C, int TH>
struct common_layout<RowSlice<R, C, TH>, Blocked<R, C, TH>, std::enable_if_t<(R > 1 && C > 1)>> { using type = Blocked<R, C, TH>; };
template <int R, int C, int TH>
struct common_layout<Blocked<1, C, TH>, RowSlice<R, C, TH>, std::enable_if_t<(R > 1 && C > 1)>> { using type = Blocked<R, C, TH>; };
template <int R, int C, int TH>
struct common_layout<RowSlice<R, C, TH>, Blocked<1, C, TH>, std::enable_if_t<(R > 1 && C > 1)>> { using type = Blocked<R, C, TH>; };
// A 1 x C row slice of a 1 x C tile, or an R x 1 slice of an R x 1 tile, is the blocked layout itself.
template <int R, int TH>
struct common_layout<RowSlice<R, 1, TH>, Blocked<R, 1, TH>, std::enable_if_t<(R > 1)>> { using type = Blocked<R, 1, TH>; };
template <int R, int TH>
struct common_layout<Blocked<R, 1, TH>, RowSlice<R, 1, TH>, std::enable_if_t<(R > 1)>> { using type = Blocked<R, 1, TH>; };

template <class A, class B> using common_layout_t = typename common_layout<A, B>::type;

// Index into a thread's elements of a tile laid out as S that holds the value of local element e of D.
template <class S, class D>
__host__ __device__ constexpr int broadcast_index(int e) {
  if constexpr (std::is_same_v<S, D>) {
    return e;
  } else if constexpr (requires { S::template slot_of<D>(0); }) {  // a layout that says where its rows live
    return S::template slot_of<D>(e);
  } else if constexpr (is_scalar_layout_v<S>) {
    return 0;
  } else if constexpr (S::rows == 1) {  // Blocked<1, C> over Blocked<R, C>
    const int k = e / D::V;
    const int j = D::nc >= D::threads ? k % (D::nc / D::threads) : 0;
    return j * D::V + e % D::V;
  } else if constexpr (S::cols == 1 && D::cols == 1) {  // RowSlice<R, 1> and Blocked<R, 1> coincide
    return e;
  } else {  // RowSlice<R, C> over Blocked<R, C>
    return S::slot_of_chunk(e / D::V);
  }
}

}  // namespace tessera::tile::cuda

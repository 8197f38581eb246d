// Work that the first consumer warpgroup of a column-shares pipeline does alone and hands to every consumer
// (tile/solo.h has the contract). What it hands out meets the others in static shared memory: a 16-bit
// accumulator-layout tile as a swizzled shared tile, which products read from there (wgmma.h: mma with a
// shared left operand and an accumulator in column shares), and row results (WgmmaRows) as themselves.
//
// Two named barriers order the hand-over: the others arrive on `free` once their products that read the last
// hand-out are done, then wait on `ready`; the soloist waits on `free`, writes, and arrives on `ready` without
// waiting, so its next work runs while the others multiply.
#pragma once
#include <tuple>
#include <type_traits>

#include "tessera/tile/cuda/hopper/pipeline.h"

namespace tessera::tile::cuda {

namespace detail {
inline constexpr int kSoloFree = 6, kSoloReady = 7;  // named barriers (1 .. 3: consumer-wide, 8 ..: mma turns)

// What a hand-out of a tile of type X becomes on every consumer.
template <class X>
struct Handed { using type = X; };  // row results: themselves
template <class T, int M, int K>
struct Handed<Tile<T, WgmmaAcc<M, K, 1>>> { using type = SharedTile<T, M, K>; };

template <class Tuple>
struct HandedAll;
template <class... X>
struct HandedAll<std::tuple<X...>> { using type = std::tuple<typename Handed<X>::type...>; };

// The shared memory where element I of a hand-out meets the others.
template <int I, class T, int M, int K>
__device__ __forceinline__ T* solo_tile_buffer() {
  __shared__ alignas(1024) T buffer[M * K];  // K-major in 128-byte swizzled panels, as the copy engine lays tiles
  return buffer;
}
template <int I, class T, int M>
__device__ __forceinline__ T* solo_rows_buffer() {
  __shared__ T buffer[M];
  return buffer;
}

template <int I, class T, int M, int K>
__device__ __forceinline__ void solo_write(const Tile<T, WgmmaAcc<M, K, 1>>& t, SharedTile<T, M, K>& out) {
  T* buffer = solo_tile_buffer<I, T, M, K>();
  store_swizzled<T, M>(t, buffer);
  out.data = buffer;
}
template <int I, class T, int M>
__device__ __forceinline__ void solo_write(const Tile<T, WgmmaRows<M, 1>>& t, Tile<T, WgmmaRows<M, 1>>& out) {
  using R = WgmmaRows<M, 1>;
  T* buffer = solo_rows_buffer<I, T, M>();
  if (R::owner(0)) {
#pragma unroll
    for (int s = 0; s < R::size; ++s) buffer[R::row(s)] = t.v[s];
  }
  out = t;
}

template <int I, class T, int M, int K>
__device__ __forceinline__ void solo_read(SharedTile<T, M, K>& out) { out.data = solo_tile_buffer<I, T, M, K>(); }
template <int I, class T, int M>
__device__ __forceinline__ void solo_read(Tile<T, WgmmaRows<M, 1>>& out) {
  using R = WgmmaRows<M, 1>;
  const T* buffer = solo_rows_buffer<I, T, M>();
#pragma unroll
  for (int s = 0; s < R::size; ++s) out.v[s] = buffer[R::row(s)];
}
}  // namespace detail

template <class Shape, Role ROLE>
class Solo {
 public:
  // mma_accumulator(solo) gives a tile the soloist holds whole.
  static constexpr Consumers mode = Consumers::pingpong;
  static constexpr int consumers_per_tile = 1, consumer_count = 1;

  template <class F>
  __device__ auto run(F&& f) {
    using Given = decltype(f());
    using Out = typename detail::HandedAll<Given>::type;
    static_assert(Shape::mode == Consumers::column_shares, "solo: consumers in column shares");
    constexpr int threads = 128 * Shape::consumers, n = std::tuple_size_v<Given>;
    Out out{};
    if constexpr (ROLE == Role::consumer) {
      if (hopper::warpgroup() == 0) {
        const Given given = f();
        hopper::wgmma_wait<0>();  // its own products that read the last hand-out, before it is overwritten
        hopper::consumer_sync(detail::kSoloFree, threads);
        [&]<size_t... I>(std::index_sequence<I...>) {
          (detail::solo_write<int(I)>(std::get<I>(given), std::get<I>(out)), ...);
        }(std::make_index_sequence<n>{});
        hopper::fence_proxy_async_shared();
        hopper::consumer_arrive(detail::kSoloReady, threads);
      } else {
        hopper::wgmma_wait<0>();  // this warpgroup's products that read the last hand-out
        hopper::consumer_arrive(detail::kSoloFree, threads);
        hopper::consumer_sync(detail::kSoloReady, threads);
        [&]<size_t... I>(std::index_sequence<I...>) {
          (detail::solo_read<int(I)>(std::get<I>(out)), ...);
        }(std::make_index_sequence<n>{});
      }
    } else {
      (void)f;
    }
    return out;
  }
};

template <class Shape, Role ROLE>
__device__ __forceinline__ Solo<Shape, ROLE> solo(Pipeline<Shape, ROLE>&) { return {}; }

}  // namespace tessera::tile::cuda

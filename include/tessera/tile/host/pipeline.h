// Host implementation of staged kernels (see tessera/tile/staged.h): the specification of the pipeline.
// One CPU thread plays every role: the producer's load function is kept, and each stage of the consumers'
// k loop is filled by it just before the loop body sees it. Shared tiles are row-major arrays.
#pragma once
#include <atomic>
#include <functional>
#include <memory>
#include <vector>

#include "tessera/runtime/error.h"
#include "tessera/tile/host/slices.h"
#include "tessera/tile/host/tile.h"
#include "tessera/tile/staged.h"

namespace tessera::tile::host {

template <class Shape>
class Pipeline {
 public:
  using StageT = typename Shape::Stage;
  static constexpr int consumers_per_tile = Shape::consumers_per_tile;

  using ResidentT = typename Shape::Resident;

  // One buffer per stage (a k loop fills them in turn, so up to `stages` can be held at once), then the
  // resident tiles.
  Pipeline() : storage_(new unsigned char[StageT::bytes * Shape::stages + ResidentT::bytes]) {
    for (int s = 0; s < Shape::stages; ++s) slots_[s] = tiles_at<StageT>(storage_.get() + s * StageT::bytes, nullptr);
    resident_ = tiles_at<ResidentT>(storage_.get() + Shape::stages * StageT::bytes, nullptr);
  }

  // Resident tiles (see the CUDA pipeline): loaded at once; release has nothing to do.
  template <class F>
  void load_resident(F&& load) { load(resident_); }
  ResidentT resident() { return resident_; }
  void release_resident() {}

  // Keeps load(stage, k) for the next k loop.
  template <class F>
  void producer(int64_t, F&& load) {
    load_ = load;
    next_ = 0;
  }

  // See the CUDA pipeline: kernels run one after another on the host, nothing to wait for.
  void wait_for_predecessor() {}

  // See the CUDA pipeline: the next stage of the k loop, filled now; release has nothing to do.
  struct Held : StageT {
    int index;
  };
  Held acquire() {
    Held h;
    h.index = int(next_ % Shape::stages);
    static_cast<StageT&>(h) = slots_[h.index];
    load_(h, next_++);
    return h;
  }
  void release(const Held&) {}

  // Turns at the tensor cores (see the CUDA pipeline): one thread plays every role, nothing to order.
  struct MmaTurns {
    struct Turn {};
    Turn take() { return {}; }
  };
  MmaTurns mma_turns(int64_t) { return {}; }

  template <class F>
  void consumers(F&& f) { f(); }

  class StageRange {
   public:
    StageRange(Pipeline& p, int64_t n) : p_(p), n_(n) {}
    struct iterator {
      Pipeline* p;
      int64_t k;
      const StageT& operator*() const {
        StageT& s = p->slots_[k % Shape::stages];
        p->load_(s, k);
        return s;
      }
      iterator& operator++() { ++k; return *this; }
      bool operator!=(const iterator& o) const { return k != o.k; }
    };
    iterator begin() { return {&p_, 0}; }
    iterator end() { return {&p_, n_}; }
   private:
    Pipeline& p_;
    int64_t n_;
  };

  template <class... Accs>
  StageRange stages(int64_t k_tiles, Accs&...) { return StageRange(*this, k_tiles); }

  // The consumers are done with the current stage (see the CUDA pipeline): nothing to do on the host.
  void release(const StageT&) {}

  // See the CUDA pipeline: true for the last of `arrivals` parts to arrive at `counter`, which it resets.
  // Blocks run on several CPU threads: the count is atomic, and its acquire-release orders the parts' stores.
  bool last_arrival(int32_t* counter, int64_t arrivals) {
    std::atomic_ref<int32_t> count(*counter);
    if (count.fetch_add(1, std::memory_order_acq_rel) != arrivals - 1) return false;
    count.store(0, std::memory_order_relaxed);
    return true;
  }

  // See the CUDA pipeline: the tile written to the tensor, what falls outside it dropped.
  template <class T, int BR, int BC, int M, int N>
  void store_async(const Block& blk, const TmaTensor<T, BR, BC>& dst, Coord at, const Tile<T, M, N>& t) {
    if (!tma_store_compatible(dst.view))  // the GPU's rule, so that host mode finds a launcher that breaks it
      invalid_argument("store_async: the copy engine cannot write this view (rows must be whole 16-byte pieces)");
    View2<T> out;
    out.data = const_cast<T*>(dst.view.data);
    for (int d = 0; d < 2; ++d) {
      out.extent[d] = dst.view.extent[d];
      out.stride[d] = dst.view.stride[d];
    }
    store(blk, out, at, t);
  }
  // See the CUDA pipeline: the tile written to plane `plane` of a stack of matrices, clipped to the plane.
  template <class T, int BR, int BC, int M, int N>
  void store_async(const Block& blk, const TmaTensor<T, BR, BC, 3>& dst, int64_t plane, Coord at, const Tile<T, M, N>& t) {
    if (!tma_store_compatible(dst.view))
      invalid_argument("store_async: the copy engine cannot write this view (rows must be whole 16-byte pieces)");
    if (plane < 0 || plane >= dst.view.extent[0]) return;
    TmaTensor<T, BR, BC> matrix;
    matrix.view = dst.view[plane];
    store_async(blk, matrix, at, t);
  }
  // See the CUDA pipeline: the same, staged in `through` (a shared tile of the tile's shape that its consumers
  // no longer read), which holds the tile afterwards as on the GPU.
  template <class T, int BR, int BC, int M, int N>
  void store_async(const Block& blk, const TmaTensor<T, BR, BC, 3>& dst, int64_t plane, Coord at, const Tile<T, M, N>& t,
                   const SharedTile<T, M, N>& through) {
    for (int r = 0; r < M; ++r)
      for (int c = 0; c < N; ++c) through.data[int64_t(r) * N + c] = t(r, c);
    store_async(blk, dst, plane, at, t);
  }
  // See the CUDA pipeline: T(t + add), add read at the same place (it may be dst itself).
  template <class T, int BR, int BC, int M, int N>
  void store_async(const Block& blk, const TmaTensor<T, BR, BC>& dst, Coord at, const Tile<float, M, N>& t,
                   const TmaTensor<T, BR, BC>& add) {
    store_async(blk, dst, at, cast<T>(t + cast<float>(load<M, N>(blk, add.view, at))));
  }

  // Rows [first_row, R) of a stage's tile read as zeros from here on (values past a sequence's end may hold
  // anything, and 0 * NaN is NaN). All consumer threads of the tile call it, after the stage is full.
  template <class T, int R, int C>
  void zero_rows(const SharedTile<T, R, C>& t, int first_row) {
    for (int64_t i = int64_t(first_row < 0 ? 0 : first_row) * C; i < int64_t(R) * C; ++i) t.data[i] = T{};
  }

  // Combinations over the slices of a sliced tile (host/slices.h): row r of the result is the max or the sum
  // of row r of every slice.
  template <int M, int C>
  Tile<float, kSliceRows, C> slice_max(const Tile<float, M, C>& t) {
    return detail::combine_slices(t, [](float x, float y) { return y > x ? y : x; });
  }
  template <int M, int C>
  Tile<float, kSliceRows, C> slice_sum(const Tile<float, M, C>& t) {
    return detail::combine_slices(t, [](float x, float y) { return x + y; });
  }

 private:
  std::unique_ptr<unsigned char[]> storage_;
  StageT slots_[Shape::stages];
  ResidentT resident_;
  int64_t next_ = 0;
  std::function<void(StageT&, int64_t)> load_;
};

template <class Shape>
Pipeline<Shape> make_pipeline(const Block&) { return {}; }

// L2 prefetch (cuda/hopper/tma.h): nothing to do on the host.
template <class T, int R, int C>
void prefetch(const Block&, const TmaTensor<T, R, C>&, Coord) {}

// Copies the box at (at.row, at.col) of src into dst, zeros outside src's extents. The ReadOnce hint (common.h)
// changes only how the GPU caches the copy.
template <class T, int R, int C, class... Hints>
void load_async(const Block&, const SharedTile<T, R, C>& dst, const TmaTensor<T, R, C>& src, Coord at, Hints...) {
  static_assert((std::is_same_v<Hints, ReadOnce> && ...), "load_async: the one hint is ReadOnce");
  const auto& v = src.view;
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) {
      const int64_t gr = at.row + r, gc = at.col + c;
      const bool in = gr >= 0 && gr < v.extent[0] && gc >= 0 && gc < v.extent[1];
      dst.data[r * C + c] = in ? v.data[gr * v.stride[0] + gc * v.stride[1]] : T{};
    }
}

// A tile every block of a cluster loads (cuda/hopper/tma.h: each fetches BR of its rows for all): on the host
// each block loads all R rows itself.
template <class T, int R, int C, int BR>
void load_async_multicast(const Block& blk, const SharedTile<T, R, C>& dst, const TmaTensor<T, BR, C>& src, Coord at) {
  static_assert(R % BR == 0 && BR % 8 == 0, "shares of whole 8-row swizzle atoms that tile the rows");
  TmaTensor<T, R, C> whole;
  whole.view = src.view;
  load_async(blk, dst, whole, at);
}

// The same from plane `plane` of a stack of matrices; zeros outside the plane.
template <class T, int R, int C>
void load_async(const Block& blk, const SharedTile<T, R, C>& dst, const TmaTensor<T, R, C, 3>& src, int64_t plane, Coord at) {
  TmaTensor<T, R, C> matrix;
  const auto& v = src.view;
  const bool in = plane >= 0 && plane < v.extent[0];
  matrix.view.data = v.data + (in ? plane * v.stride[0] : 0);
  matrix.view.extent[0] = in ? v.extent[1] : 0;
  matrix.view.extent[1] = v.extent[2];
  matrix.view.stride[0] = v.stride[1];
  matrix.view.stride[1] = v.stride[2];
  load_async(blk, dst, matrix, at);
}

// Fills rows [first_row, first_row + BR) of dst with the BR-row box at (at.row, at.col) of plane `plane`.
// The ReadOnce hint (common.h) changes only how the GPU caches the copies.
template <class T, int R, int C, int BR, class... Hints>
void load_rows_async(const Block& blk, const SharedTile<T, R, C>& dst, int first_row, const TmaTensor<T, BR, C, 3>& src,
                     int64_t plane, Coord at, Hints...) {
  static_assert(R % BR == 0 && BR % 8 == 0, "boxes of whole 8-row swizzle atoms that tile the rows");
  static_assert((std::is_same_v<Hints, ReadOnce> && ...), "load_rows_async: the one hint is ReadOnce");
  SharedTile<T, BR, C> rows;
  rows.data = dst.data + int64_t(first_row) * C;
  TmaTensor<T, BR, C, 3> box_src;
  box_src.view = src.view;
  load_async(blk, rows, box_src, plane, at);
}

// See the CUDA version: dst is left out of this fill of its stage. What it holds is undefined until a later
// fill loads it: the host fills it with NaN, so that a kernel that reads it shows.
template <class T, int R, int C>
void leave_unloaded(const Block&, const SharedTile<T, R, C>& dst) {
  for (int64_t i = 0; i < int64_t(R) * C; ++i) dst.data[i] = convert_element<T>(NAN);
}

template <int BOX_ROWS, int BOX_COLS, class T>
TmaTensor<T, BOX_ROWS, BOX_COLS> make_tma_tensor(const View2<const T>& view) {
  TmaTensor<T, BOX_ROWS, BOX_COLS> t;
  t.view = view;
  return t;
}
template <int BOX_ROWS, int BOX_COLS, class T>
TmaTensor<T, BOX_ROWS, BOX_COLS, 3> make_tma_tensor(const View3<const T>& view) {
  TmaTensor<T, BOX_ROWS, BOX_COLS, 3> t;
  t.view = view;
  return t;
}

template <int M, int N, class Pipe>
Tile<float, M, N> mma_accumulator(const Pipe&) { return full<float, M, N>(Block{}, 0.f); }

// acc += a @ b^T for shared tiles a [M, K] and b [N, K]; k in increasing order for each element.
template <class T, int M, int N, int K>
void mma(Tile<float, M, N>& acc, const SharedTile<T, M, K>& a, const Transposed<SharedTile<T, N, K>>& b) {
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      float s = acc(m, n);
      for (int k = 0; k < K; ++k) s += to_float(a.data[m * K + k]) * to_float(b.tile.data[n * K + k]);
      acc(m, n) = s;
    }
}

// acc = a @ b^T (see tile::overwrite).
template <class T, int M, int N, int K>
void mma(Tile<float, M, N>& acc, const SharedTile<T, M, K>& a, const Transposed<SharedTile<T, N, K>>& b, Overwrite) {
  acc = full<float, M, N>(Block{}, 0.f);
  mma(acc, a, b);
}

// acc += a @ b^T for a [M, K] register tile and b [N, K] in shared memory.
template <class T, int M, int N, int K>
void mma(Tile<float, M, N>& acc, const Tile<T, M, K>& a, const Transposed<SharedTile<T, N, K>>& b) {
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      float s = acc(m, n);
      for (int k = 0; k < K; ++k) s += to_float(a(m, k)) * to_float(b.tile.data[n * K + k]);
      acc(m, n) = s;
    }
}

// acc += a @ b for a [M, K] register tile and b [K, N] in shared memory.
template <class T, int M, int N, int K>
void mma(Tile<float, M, N>& acc, const Tile<T, M, K>& a, const SharedTile<T, K, N>& b) {
  for (int m = 0; m < M; ++m)
    for (int k = 0; k < K; ++k) {
      const float x = to_float(a(m, k));
      for (int n = 0; n < N; ++n) acc(m, n) += x * to_float(b.data[k * N + n]);
    }
}

// mma is synchronous on the host: nothing to wait for.
template <int PENDING = 0, class... Tiles>
void mma_wait(Tiles&...) {}

// A tile shaped like `like`, read from view at `at` (pad outside): on the host, load<R, C>.
template <class T, class U, int R, int C>
Tile<std::remove_const_t<T>, R, C> load_like(const Block& blk, const Tile<U, R, C>&, const View2<T>& view, Coord at,
                                             float pad = 0.f) {
  return load<R, C>(blk, view, at, pad);
}

}  // namespace tessera::tile::host

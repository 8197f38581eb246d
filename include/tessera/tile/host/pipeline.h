// Host implementation of staged kernels (see tessera/tile/staged.h): the specification of the pipeline.
// One CPU thread plays every role: the producer's load function is kept, and each stage of the consumers'
// k loop is filled by it just before the loop body sees it. Shared tiles are row-major arrays.
#pragma once
#include <functional>
#include <memory>
#include <vector>

#include "tessera/tile/host/tile.h"
#include "tessera/tile/staged.h"

namespace tessera::tile::host {

template <class Shape>
class Pipeline {
 public:
  using StageT = typename Shape::Stage;
  static constexpr int consumer_groups = Shape::consumers;

  Pipeline() : storage_(new unsigned char[StageT::bytes]) {
    unsigned char* p = storage_.get();
    stage_.for_each([&](auto& t) {
      using Tl = std::remove_reference_t<decltype(t)>;
      t.data = reinterpret_cast<typename Tl::value_type*>(p);
      p += Tl::bytes;
    });
  }

  // Keeps load(stage, k) for the next k loop.
  template <class F>
  void producer(int64_t, F&& load) { load_ = load; }

  template <class F>
  void consumers(F&& f) { f(); }

  class StageRange {
   public:
    StageRange(Pipeline& p, int64_t n) : p_(p), n_(n) {}
    struct iterator {
      Pipeline* p;
      int64_t k;
      const StageT& operator*() const {
        p->load_(p->stage_, k);
        return p->stage_;
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

  template <class Acc>
  StageRange stages(int64_t k_tiles, Acc&) { return StageRange(*this, k_tiles); }

 private:
  std::unique_ptr<unsigned char[]> storage_;
  StageT stage_;
  std::function<void(StageT&, int64_t)> load_;
};

template <class Shape>
Pipeline<Shape> make_pipeline(const Block&) { return {}; }

// Copies the box at (at.row, at.col) of src into dst, zeros outside src's extents.
template <class T, int R, int C>
void load_async(const Block&, const SharedTile<T, R, C>& dst, const TmaTensor<T, R, C>& src, Coord at) {
  const auto& v = src.view;
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) {
      const int64_t gr = at.row + r, gc = at.col + c;
      const bool in = gr >= 0 && gr < v.extent[0] && gc >= 0 && gc < v.extent[1];
      dst.data[r * C + c] = in ? v.data[gr * v.stride[0] + gc * v.stride[1]] : T{};
    }
}

template <int BOX_ROWS, int BOX_COLS, class T>
TmaTensor<T, BOX_ROWS, BOX_COLS> make_tma_tensor(const View2<const T>& view) {
  TmaTensor<T, BOX_ROWS, BOX_COLS> t;
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

// A tile shaped like `like`, read from view at `at` (pad outside): on the host, load<R, C>.
template <class T, class U, int R, int C>
Tile<std::remove_const_t<T>, R, C> load_like(const Block& blk, const Tile<U, R, C>&, const View2<T>& view, Coord at,
                                             float pad = 0.f) {
  return load<R, C>(blk, view, at, pad);
}

}  // namespace tessera::tile::host

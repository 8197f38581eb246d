// Launchers of the sampling family, compiled once per tile backend (host.cpp and cuda.cu include this file).
// argmax: one row per block of 1024 threads, 32768 columns a tile (32 entries a thread), so a 128k-entry
// vocabulary row is four tiles. A decode step's logits rows are few and long: when the rows alone would leave
// most multiprocessors idle, each row is cut into parts of 4096-column tiles (one 512-thread block each, 32 parts
// for 128k entries) and a second small kernel takes the argmax of the parts' results (one block a
// multiprocessor streamed a 128k-entry fp32 row in 27 us on an H200).
#pragma once
#include <algorithm>

#include "ops/common/views.h"
#include "ops/sampling/args.h"
#include "ops/sampling/argmax.tile.h"
#include "tessera/runtime/workspace.h"

namespace tessera::ops::TESSERA_TILE_BACKEND {

namespace {
template <class T, int COLS, int THREADS>
void launch_argmax(const ArgmaxArgs& a, const dispatch::Options& opt) {
  using K = kernels::RowArgmax<T, COLS, THREADS>;
  typename K::Params p{};
  p.x = as_rows<const T>(a.x);
  p.out.data = static_cast<int32_t*>(a.out.data());
  p.out.extent[0] = p.x.extent[0];
  p.out.extent[1] = 1;
  p.out.stride[0] = 1;
  p.out.stride[1] = 1;
  tile::active::launch<K>({p.x.extent[0]}, p, opt.stream);
}

constexpr int kPartCols = 4096, kMaxParts = 256;

template <class T>
void launch_argmax_in_parts(const ArgmaxArgs& a, const dispatch::Options& opt) {
  using Parts = kernels::RowArgmaxParts<T, kPartCols, 512>;
  using Finish = kernels::RowArgmaxOfParts<kMaxParts, 128>;
  typename Parts::Params p{};
  p.x = as_rows<const T>(a.x);
  const int64_t rows = p.x.extent[0], n = p.x.extent[1];
  const int64_t tiles = (n + kPartCols - 1) / kPartCols;
  p.span = (tiles + kMaxParts - 1) / kMaxParts * kPartCols;
  p.parts = (n + p.span - 1) / p.span;
  const size_t cells = size_t(rows * p.parts);
  p.best = {static_cast<float*>(workspace("argmax.part_best", cells * sizeof(float), a.x.device(), opt.stream)), {rows, p.parts}, {p.parts, 1}};
  p.arg = {static_cast<int32_t*>(workspace("argmax.part_arg", cells * sizeof(int32_t), a.x.device(), opt.stream)), {rows, p.parts}, {p.parts, 1}};
  tile::active::launch<Parts>({rows * p.parts}, p, opt.stream);
  typename Finish::Params f{};
  f.best = {p.best.data, {rows, p.parts}, {p.parts, 1}};
  f.arg = {p.arg.data, {rows, p.parts}, {p.parts, 1}};
  f.out = {static_cast<int32_t*>(a.out.data()), {rows, 1}, {1, 1}};
  tile::active::launch<Finish>({rows}, f, opt.stream);
}
}  // namespace

void argmax(const ArgmaxArgs& a, const dispatch::Options& opt) {
  const int64_t n = a.x.size(-1), rows = a.x.numel() / std::max<int64_t>(n, 1);
  // In parts when a row is several part tiles long and there are few rows (up to about half an H100/H200's
  // multiprocessors; on the CPU, the parts spread one row over the workers too).
  const bool in_parts = n > 2 * kPartCols && rows <= 64;
  visit_float_dtype(a.x.dtype(), [&](auto t) {
    if (in_parts) launch_argmax_in_parts<decltype(t)>(a, opt);
    else launch_argmax<decltype(t), 32768, 1024>(a, opt);
  });
}

}  // namespace tessera::ops::TESSERA_TILE_BACKEND

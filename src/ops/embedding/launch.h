// Launchers of the embedding family, compiled once per tile backend (host.cpp and cuda.cu include this file).
// The check scans 1024 ids per block of 128 threads; the gather copies one row x 2048 columns per block of 128
// threads (two 16-byte accesses per thread for 16-bit tables, both in flight at once; a block of 4 rows
// copied them one after the other: 61% vs 89% of copy bandwidth on an H200), the grid's second axis
// covering the columns. Checking reads the per-block results back, which waits for the caller's stream (one
// round trip, ~10 us; the first version allocated its result tensor and synchronised the whole device: 200+
// us a call). A stream being captured into a CUDA graph cannot be waited for: there the ids go unchecked, and
// the gather's bounds-checked loads write zeros for a row whose id is outside the table.
#pragma once
#include <algorithm>
#include <climits>
#include <vector>

#include "ops/common/views.h"
#include "ops/embedding/args.h"
#include "tessera/runtime/workspace.h"
#include "ops/embedding/embedding.tile.h"

namespace tessera::ops::TESSERA_TILE_BACKEND {

namespace {
constexpr int kCheckCols = 1024, kCheckThreads = 128;
constexpr int kRows = 1, kCols = 2048, kThreads = 128;

// n contiguous elements as a [1, n] view.
template <class T>
tile::View2<T> one_row(T* data, int64_t n) {
  tile::View2<T> v;
  v.data = data;
  v.extent[0] = 1;
  v.extent[1] = n;
  v.stride[0] = n;
  v.stride[1] = 1;
  return v;
}

template <class I>
tile::View2<const I> flat_ids(const Tensor& ids) {
  return one_row(static_cast<const I*>(ids.data()), ids.numel());
}

// Throws (through bad_id_error) when an id is outside [0, vocab); runs on the ids' device.
template <class I>
void check_ids(const EmbeddingArgs& a, const dispatch::Options& opt) {
  using K = kernels::EmbeddingCheck<I, kCheckCols, kCheckThreads>;
  if (stream_is_capturing(opt.stream)) return;
  const int64_t n = a.ids.numel(), blocks = (n + kCheckCols - 1) / kCheckCols;
  int* first = static_cast<int*>(workspace("embedding.first_bad", size_t(blocks) * sizeof(int), a.ids.device(), opt.stream));
  typename K::Params p{};
  p.ids = flat_ids<I>(a.ids);
  p.first = one_row(first, blocks);
  p.vocab = a.table.size(0);
  tile::active::launch<K>({blocks}, p, opt.stream);
  std::vector<int> firsts(size_t(blocks), 0);
  copy_bytes_after(firsts.data(), Device::cpu(), first, a.ids.device(), firsts.size() * sizeof(int), opt.stream);
  const int64_t pos = *std::min_element(firsts.begin(), firsts.end());
  if (pos != INT_MAX) bad_id_error(a, pos);
}

template <class T>
void gather(const EmbeddingArgs& a, const dispatch::Options& opt) {
  using K = kernels::EmbeddingGather<T, kRows, kCols, kThreads>;
  typename K::Params p{};
  p.ids_i64 = a.ids.dtype() == DType::i64;
  if (p.ids_i64) p.ids64 = flat_ids<int64_t>(a.ids);
  else p.ids32 = flat_ids<int32_t>(a.ids);
  p.table = as_rows<const T>(a.table);
  p.y = as_rows<T>(a.y);
  const int64_t n = a.ids.numel(), dim = a.table.size(1);
  tile::active::launch<K>({(n + kRows - 1) / kRows, (dim + kCols - 1) / kCols}, p, opt.stream);
}
}  // namespace

void embedding(const EmbeddingArgs& a, const dispatch::Options& opt) {
  if (a.ids.dtype() == DType::i64) check_ids<int64_t>(a, opt);
  else check_ids<int32_t>(a, opt);
  visit_float_dtype(a.table.dtype(), [&](auto t) { gather<decltype(t)>(a, opt); });
}

}  // namespace tessera::ops::TESSERA_TILE_BACKEND

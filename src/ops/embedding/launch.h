// Launchers of the embedding family, compiled once per tile backend (host.cpp and cuda.cu include this file).
// The check scans every id in one block of 1024 threads (8192 ids a step; the gather waits for it either way);
// the gather copies one row x 2048 columns per block of 128 threads (two 16-byte accesses per thread for 16-bit
// tables, both in flight at once; a block of 4 rows copied them one after the other: 61% vs 89% of copy
// bandwidth on an H200), the grid's second axis covering the columns; rows of a multiple of 8192 columns one
// row x 8192 columns per block of 256 threads (four accesses a thread: 16384 x 8192 bf16 at 93.1-94.1% of copy
// against 91.6-92.4%, H200, session 58; over 5120 columns, masked past them, the wide blocks ran at 65% of the
// harness's copy). The gather is queued right behind the check and writes only if the check found no bad id;
// the check's one result is read back after both (one round trip a call). A stream being captured into a CUDA
// graph cannot be waited for: there the ids go unchecked, as where the caller promised them in range, and the
// gather's bounds-checked loads write zeros for a row whose id is outside the table.
#pragma once
#include <climits>

#include "ops/common/views.h"
#include "ops/embedding/args.h"
#include "tessera/runtime/workspace.h"
#include "ops/embedding/embedding.tile.h"

namespace tessera::ops::TESSERA_TILE_BACKEND {

namespace {
constexpr int kCheckCols = 8192, kCheckThreads = 1024;

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

// Queues the check of the ids and returns where its result will be; nothing where the caller promised the ids
// in range (Options::ids_in_range) or while the stream is being captured.
template <class I>
const int* queue_id_check(const EmbeddingArgs& a, const dispatch::Options& opt) {
  using K = kernels::EmbeddingCheck<I, kCheckCols, kCheckThreads>;
  if (opt.ids_in_range || stream_is_capturing(opt.stream)) return nullptr;
  int* first = static_cast<int*>(workspace("embedding.first_bad", sizeof(int), a.ids.device(), opt.stream));
  typename K::Params p{};
  p.ids = flat_ids<I>(a.ids);
  p.first = one_row(first, 1);
  p.vocab = a.table.size(0);
  tile::active::launch<K>({1}, p, opt.stream);
  return first;
}

template <class T, int COLS, int THREADS>
void gather(const EmbeddingArgs& a, const dispatch::Options& opt, const int* first_bad) {
  using K = kernels::EmbeddingGather<T, 1, COLS, THREADS>;
  typename K::Params p{};
  p.ids_i64 = a.ids.dtype() == DType::i64;
  if (p.ids_i64) p.ids64 = flat_ids<int64_t>(a.ids);
  else p.ids32 = flat_ids<int32_t>(a.ids);
  p.table = as_rows<const T>(a.table);
  p.y = as_rows<T>(a.y);
  p.checked = first_bad != nullptr;
  if (p.checked) p.first_bad = one_row(first_bad, 1);
  const int64_t n = a.ids.numel(), dim = a.table.size(1);
  tile::active::launch<K>({n, (dim + COLS - 1) / COLS}, p, opt.stream);
}
}  // namespace

// Throws (through bad_id_error) when an id is outside [0, vocab), after the gather wrote nothing.
void embedding(const EmbeddingArgs& a, const dispatch::Options& opt) {
  const int* first_bad = a.ids.dtype() == DType::i64 ? queue_id_check<int64_t>(a, opt) : queue_id_check<int32_t>(a, opt);
  visit_float_dtype(a.table.dtype(), [&](auto t) {
    if (a.table.size(1) % 8192 == 0) gather<decltype(t), 8192, 256>(a, opt, first_bad);
    else gather<decltype(t), 2048, 128>(a, opt, first_bad);
  });
  if (first_bad == nullptr) return;
  int first = INT_MAX;
  copy_bytes_after(&first, Device::cpu(), first_bad, a.ids.device(), sizeof(first), opt.stream);
  if (first != INT_MAX) bad_id_error(a, first);
}

}  // namespace tessera::ops::TESSERA_TILE_BACKEND

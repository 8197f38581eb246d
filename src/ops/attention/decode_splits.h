// What both decode kernels (fmha_decode.tile.h, fmha_decode_staged.tile.h) do with a split of the keys: fp32
// partial results o [splits, B, Sq, Hq, Dv] and m, l [splits, B, Sq, Hq] in per-stream scratch, merged into o by
// DecodeMerge or DecodeMergeRows. Compiled once per tile backend.
#pragma once
#include <algorithm>

#include "ops/attention/args.h"
#include "ops/attention/fmha_decode.tile.h"
#include "ops/common/views.h"

namespace tessera::ops::TESSERA_TILE_BACKEND {

// Per-device (and per-stream) fp32 scratch, grown on demand and then reused (defined in launch.h).
float* decode_scratch(Device device, StreamHandle stream, int64_t floats);

// How the keys of a full cache are split: `splits` parts of tokens_per_split keys (a multiple of the key tile).
// The kernels take only the count: each sequence's own length is shared over the splits on the device
// (split_key_range, fmha_decode.tile.h).
struct KeySplits {
  int64_t splits = 1, tokens_per_split = 0;
};

// Blocks of a decode kernel the current device runs at once when each multiprocessor holds `blocks_per_sm` of
// them (defined per backend: cuda.cu asks the device, host.cpp says 16).
int64_t decode_slots(int64_t blocks_per_sm);

// Splits caches of `capacity` tokens per sequence, read in tiles of `key_tile`, for a launch of `blocks` blocks
// per split on a device that runs `slots` blocks at once: the split count whose waves of blocks end first,
// counting a block's start and end (and its share of the merge) as kBlockOverheadTiles key tiles, each split at
// least `min_tiles` tiles long. Blocks of a last, partial wave cost as much as a full one, so 320 blocks on 264
// slots lose to 256. Capacity, not the sequence lengths, which are on the device: the choice depends on shapes
// only, so a captured decode step replays it (and sequences shorter than the cache get shorter splits).
inline KeySplits split_keys(int64_t capacity, int64_t key_tile, int64_t blocks, int64_t slots, int64_t min_tiles = 1) {
  constexpr int64_t kBlockOverheadTiles = 2;
  const int64_t key_tiles = std::max<int64_t>(1, (capacity + key_tile - 1) / key_tile);
  const int64_t most = std::clamp<int64_t>(key_tiles / std::max<int64_t>(min_tiles, 1), 1, std::max<int64_t>(slots, 1));
  KeySplits best{1, key_tiles * key_tile};
  int64_t best_cost = -1;
  for (int64_t wanted = 1; wanted <= most; ++wanted) {
    const int64_t tiles_per_split = (key_tiles + wanted - 1) / wanted;
    const int64_t splits = (key_tiles + tiles_per_split - 1) / tiles_per_split;
    const int64_t waves = (blocks * splits + slots - 1) / std::max<int64_t>(slots, 1);
    const int64_t cost = waves * (tiles_per_split + kBlockOverheadTiles);
    if (best_cost < 0 || cost < best_cost) {
      best_cost = cost;
      best = {splits, tiles_per_split * key_tile};
    }
  }
  return best;
}

struct DecodePartials {
  float *o = nullptr, *m = nullptr, *l = nullptr;
  int64_t splits = 1, B = 0, Sq = 0, Hq = 0, Dv = 0;

  DecodePartials(Device device, StreamHandle stream, int64_t splits_, int64_t B_, int64_t Sq_, int64_t Hq_, int64_t Dv_)
      : splits(splits_), B(B_), Sq(Sq_), Hq(Hq_), Dv(Dv_) {
    const int64_t rows = splits * B * Sq * Hq;
    o = decode_scratch(device, stream, rows * (Dv + 2));
    m = o + rows * Dv;
    l = m + rows;
  }
  // As the kernels write them: [splits * B, Sq, Hq, dim] (dim 1 for m and l).
  tile::View4<float> o_view() const { return view(o, Dv); }
  tile::View4<float> m_view() const { return view(m, 1); }
  tile::View4<float> l_view() const { return view(l, 1); }

 private:
  tile::View4<float> view(float* data, int64_t dim) const {
    return {data, {splits * B, Sq, Hq, dim}, {Sq * Hq * dim, Hq * dim, dim, 1}};
  }
};

// o [B, Sq, Hq, Dv] = the splits' partials combined (DecodeMerge): a block per (token, head) row and column
// chunk, SPLITS splits a tile.
template <class T, int DV, int SPLITS>
void merge_decode_partials_by(const DecodePartials& s, const Tensor& o, StreamHandle stream) {
  constexpr int kThreads = 128;
  using M = kernels::DecodeMerge<T, SPLITS, DV, kThreads>;
  typename M::Params mp{};
  // The partials [splits, B, Sq * Hq, dim] seen as [B, Sq * Hq, splits, dim].
  const int64_t rows = s.Sq * s.Hq, B = s.B, Dv = s.Dv;
  mp.o_part = {s.o, {B, rows, s.splits, Dv}, {rows * Dv, Dv, B * rows * Dv, 1}};
  mp.m_part = {s.m, {B, rows, s.splits, 1}, {rows, 1, B * rows, 1}};
  mp.l_part = {s.l, {B, rows, s.splits, 1}, {rows, 1, B * rows, 1}};
  mp.o = as_view<T, 4>(o);
  tile::active::launch<M>({s.Hq, s.Sq, B * M::chunks}, mp, stream);
}

// Many rows and few splits (a batch's decode step): DecodeMergeRows, 8 rows a block, split after split.
template <class T, int DV>
void merge_decode_partials_rows(const DecodePartials& s, const Tensor& o, StreamHandle stream) {
  constexpr int kRows = 8, kThreads = 128;
  using M = kernels::DecodeMergeRows<T, kRows, DV, kThreads>;
  typename M::Params mp{};
  // The rows (token, head) of a sequence are Sq * Hq consecutive rows of the partials.
  const int64_t rows = s.Sq * s.Hq, B = s.B, Dv = s.Dv;
  mp.o_part = {s.o, {s.splits, B, rows, Dv}, {B * rows * Dv, rows * Dv, Dv, 1}};
  mp.m_part = {s.m, {s.splits, B, rows, 1}, {B * rows, rows, 1, 1}};
  mp.l_part = {s.l, {s.splits, B, rows, 1}, {B * rows, rows, 1, 1}};
  mp.o = as_view<T, 4>(o);
  tile::active::launch<M>({(rows + kRows - 1) / kRows, B, DV / M::cols}, mp, stream);
}

// Few rows (batch 1) or many splits: a block per row, the splits in parallel, tiles of 8 splits up to 8 and
// of 32 past that. Many rows with at most 8 splits: 8 rows a block, split after split.
template <class T, int DV>
void merge_decode_partials(const DecodePartials& s, const Tensor& o, StreamHandle stream) {
  if (s.splits <= 8 && s.B * s.Sq * s.Hq >= 128) merge_decode_partials_rows<T, DV>(s, o, stream);
  else if (s.splits <= 8) merge_decode_partials_by<T, DV, 8>(s, o, stream);
  else merge_decode_partials_by<T, DV, 32>(s, o, stream);
}

// Launches split decode kernel K (its parameters extend DecodeSplitParams, filled here from `a`; the rest is
// the caller's) on `grid`, then with several splits merges the fp32 partials of DV columns into a.o.
template <class K, class T, int DV>
void launch_split_decode(typename K::Params p, const FmhaDecodeArgs& a, tile::Grid grid, int64_t group, int64_t row_tiles,
                         int64_t splits, StreamHandle stream) {
  const bool paged = !is_absent(a.cache.block_table);
  if (paged) p.block_table = as_view<const int32_t, 2>(a.cache.block_table);
  p.seq_lens = as_view<const int32_t, 1>(a.seq_lens);
  p.o = as_view<T, 4>(a.o);
  p.paged = paged;
  p.page_size = a.cache.k_pages.size(1);
  p.group = group;
  p.row_tiles = row_tiles;
  p.splits = splits;
  p.window_left = a.params.window_left;
  p.logits = {a.params.scale, a.params.softcap};
  p.older_tokens_settled = a.cache.older_tokens_settled;
  if (splits == 1) {
    tile::active::launch<K>(grid, p, stream);
    return;
  }
  const DecodePartials parts(a.q.device(), stream, splits, a.q.size(0), a.q.size(1), a.q.size(2), DV);
  p.o_part = parts.o_view();
  p.m_part = parts.m_view();
  p.l_part = parts.l_view();
  tile::active::launch<K>(grid, p, stream);
  merge_decode_partials<T, DV>(parts, a.o, stream);
}

}  // namespace tessera::ops::TESSERA_TILE_BACKEND

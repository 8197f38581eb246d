// Stream-K: a persistent grid's reduction work cut into equal shares whatever the number of tiles.
//
// A tile schedule hands out whole tiles (or whole splits of them). Where a kernel only streams an operand (a
// decode matmul reads each weight byte once) a last wave that leaves multiprocessors idle costs bandwidth
// directly: 224 weight tiles on 132 blocks keep 85% of them busy, and splitting every tile evenly adds a
// partial store and a fix-up to every work item. Here the work is the tiles' reduction slices laid end to end,
// tiles x k_tiles of them, and block b of `blocks` takes slices [b W / blocks, (b + 1) W / blocks): every
// block the same amount of streaming to within one slice. A block's range crosses tile boundaries, so it
// visits segments: the part of one tile's slices that falls in its range. A tile whose slices one block holds
// is computed whole; a tile that several blocks share (at most two for ranges longer than a tile) is summed by
// the last of them to finish, from the others' partial results.
//
//   for (const tile::KSegment w : stream_k_segments(blk, schedule)) {
//     ... accumulate slices w.k_first .. w.k_first + w.k_count of tile w.tile ...
//     if (w.parts == 1) store the tile;
//     else store the partial as part w.part of w.parts; the last to arrive adds them all and stores the tile
//   }
#pragma once
#include <cstdint>

#include "tessera/tile/common.h"

namespace tessera::tile {

// One block's share of one tile: slices [k_first, k_first + k_count) of tile `tile`, the part numbered `part`
// of the `parts` blocks that share it (in block order, so in the order of their slices).
struct KSegment {
  int64_t tile = 0;
  int64_t k_first = 0, k_count = 0;
  int64_t part = 0, parts = 1;
};

struct StreamKSchedule {
  int64_t tiles = 0, k_tiles = 0, blocks = 1;

  // A schedule over at most `max_blocks` blocks, none of them without work.
  static StreamKSchedule over(int64_t tiles, int64_t k_tiles, int64_t max_blocks) {
    const int64_t work = tiles * k_tiles;
    return {tiles, k_tiles, work < max_blocks ? (work > 0 ? work : 1) : max_blocks};
  }

  TILE_HD int64_t work() const { return tiles * k_tiles; }
  // The first slice of block b's range.
  TILE_HD int64_t range_begin(int64_t b) const { return b * work() / blocks; }
  // The block whose range holds slice x: the last b with range_begin(b) <= x.
  TILE_HD int64_t owner(int64_t x) const { return ((x + 1) * blocks - 1) / work(); }

  // The segment of block b that starts at slice x (in b's range, which ends before slice `end`).
  TILE_HD KSegment segment(int64_t b, int64_t x, int64_t end) const {
    const int64_t t = x / k_tiles, tile_begin = t * k_tiles;
    const int64_t k_first = x - tile_begin;
    const int64_t k_count = end - x < k_tiles - k_first ? end - x : k_tiles - k_first;
    const int64_t first = owner(tile_begin);
    return {t, k_first, k_count, b - first, owner(tile_begin + k_tiles - 1) - first + 1};
  }

  // The most blocks that share one tile (how many partial results of a tile there may be room for). Every
  // range holds at least L = floor(work / blocks) slices, and of the ranges that meet a tile's k_tiles slices
  // all but the first and last lie inside it, beside at least one slice of each: (parts - 2) L <= k_tiles - 2.
  TILE_HD int64_t max_parts() const {
    if (k_tiles <= 1) return 1;
    const int64_t shortest = work() / blocks;
    if (shortest == 0) return k_tiles < blocks ? k_tiles : blocks;  // more blocks than slices (not from over())
    const int64_t bound = (k_tiles - 2) / shortest + 2;
    return bound < blocks ? bound : blocks;
  }
};

// The segments of one block: the last first, then the others in the order of their slices. A tile that two
// blocks share is the last segment of one and the first of the next, so both parts are done at their blocks'
// starts and the fix-up runs while the copy engine streams on; in slice order the tile's first part would be
// its block's last piece of work, and a block could end waiting for partials to come back from memory. (The
// swap-AB matmul ran within 1% of slice order either way, on different H200s: session 65.)
struct StreamKSegments {
  StreamKSchedule schedule;
  int64_t block = 0;
  struct End {};
  struct iterator {
    const StreamKSchedule* s;
    int64_t block, first, end;  // the block's range of slices
    int64_t first_tile, last_tile, i;
    TILE_HD KSegment operator*() const {
      const int64_t t = i == 0 ? last_tile : first_tile + i - 1;
      const int64_t tile_begin = t * s->k_tiles;
      return s->segment(block, tile_begin > first ? tile_begin : first, end);
    }
    TILE_HD iterator& operator++() { ++i; return *this; }
    // Past the last segment: a block's segments are its tiles first_tile..last_tile (none when last_tile <
    // first_tile). end() is a sentinel, so the range's divisions are done once, in begin().
    TILE_HD bool operator!=(End) const { return i <= last_tile - first_tile; }
  };
  // A block past the schedule's (a grid larger than it) has an empty range.
  TILE_HD int64_t range_first() const { return schedule.range_begin(block < schedule.blocks ? block : schedule.blocks); }
  TILE_HD int64_t range_end() const { return schedule.range_begin(block < schedule.blocks ? block + 1 : schedule.blocks); }
  TILE_HD iterator begin() const {
    const int64_t f = range_first(), e = range_end();
    if (f >= e) return {&schedule, block, f, e, 0, -1, 0};
    return {&schedule, block, f, e, f / schedule.k_tiles, (e - 1) / schedule.k_tiles, 0};
  }
  TILE_HD End end() const { return {}; }
};

template <class Block>
TILE_HD StreamKSegments stream_k_segments(const Block& blk, const StreamKSchedule& schedule) {
  return {schedule, blk.bid(0)};
}

}  // namespace tessera::tile

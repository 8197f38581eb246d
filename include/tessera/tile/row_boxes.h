// Filling tiles from boxes of rows that lie apart in memory (a paged cache: each box one page's run of tokens),
// two tiles at the same rows (decode attention's K and V, or MLA's latent and rope columns):
//
//   int32_t rows[BOXES] = {...};   -- box i fills rows [i BR, (i + 1) BR) of both tiles, from row rows[i]
//   load_row_boxes_async(blk, stage.a, k_cache, stage.b, v_cache, plane, rows, tile::read_once);
//
// The same as BOXES load_rows_async calls for each tile, but issued in the order the memory serves fastest:
// on the GPU, column panel by column panel across all the boxes of both tiles (every box's first 128 bytes of
// a row, then the next), not box by box. Decode attention's copies read 1.5-3.2% faster that way from 16-token
// pages at B 32 x 4k and B 64 x 8k, and 3-4% faster from a contiguous cache (H200, session 66, runs 5-7). Called by the producer role (one thread),
// as load_rows_async; an optional ReadOnce hint applies to every copy.
//
//   load_row_boxes_by_threads(blk, stage.a, k_cache, stage.b, v_cache, plane, rows);
//
// The same copies made by the producer's 128 threads with cp.async instead of the copy engine, in a pipeline of
// CopiedByThreads shape (tile/staged.h): every producer thread calls it. Decode attention's reads of a paged
// cache are 1-4% faster so (H200, session 68).
#pragma once
#include "tessera/tile/tile.h"
#if defined(__CUDACC__)
#include "tessera/tile/cuda/hopper/row_boxes.h"
#else
#include "tessera/tile/host/row_boxes.h"
#endif

// Work that one consumer does alone and hands to every consumer, for pipelines whose consumers hold an
// accumulator in column shares (Consumers::column_shares) and need a product's left operand that only a
// whole tile's worth of work makes (MLA decode: one warpgroup scores a key tile and runs the softmax; all
// multiply the probabilities by their own columns of the values):
//
//   auto scoring = solo(pipe);
//   auto s = mma_accumulator<M, N>(scoring);       -- a tile the soloist holds whole
//   auto [p, rows] = scoring.run([&] { ...; return std::tuple{cast<T>(s), row_result}; });
//   mma(acc, p, values);                            -- every consumer, its own columns
//
// run(f): the first consumer runs f, and every consumer gets what it returns: a std::tuple of 16-bit tiles
// (M x K accumulators of the soloist; every consumer gets them as shared tiles, the left operand of mma) and row
// results (M x 1; every consumer gets the same values). The others never run f: what f changes (captured by
// reference) changes for the soloist only, so state that all need (a running max) goes through run as well.
// The others wait in run until the soloist has handed out; the soloist waits only until the others are done
// with its last hand-out (their products that read it), so its next work runs under their products. All
// consumers call run the same number of times.
#pragma once
#include "tessera/tile/tile.h"
#if defined(__CUDACC__)
#include "tessera/tile/cuda/hopper/solo.h"
#else
#include "tessera/tile/host/solo.h"
#endif

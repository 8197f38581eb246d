// A k loop that streams an operand from DRAM a group of tiles at a time: the copies of a whole group are asked for
// before any of its tiles is used, so that a block pays one round trip to DRAM per group instead of per tile
// (the few-rows kernels, whose time is that chain of round trips). With the kernel before this one still
// running, the first group may be asked for before the block waits for it, when what the copies read was not
// written by that kernel (the model's weights): the first round trip then passes while that kernel ends.
//
//   GroupStream groups(K, DEPTH * BK);
//   groups.start(blk, weights_settled, ask);   // ask(0) before the wait where allowed; then the wait
//   ... what needs the wait ...
//   int64_t k0 = groups.run(ask, use);         // for each whole group: ask(k0) unless asked, use(k0)
//   for (; k0 < K; k0 += BK) ...               // what is left past the last whole group
//
// ask(k0) asks for the group at k0 (loads into registers, used later); use(k0) consumes it. A kernel that streams
// this way declares `waits_for_predecessor = true` (launch.h), since start() is where its blocks wait.
#pragma once
#include <cstdint>

#include "tessera/tile/common.h"

namespace tessera::tile {

class GroupStream {
 public:
  TILE_HD GroupStream(int64_t extent, int64_t group) : extent_(extent), group_(group) {}

  // Asks for the first group before the wait when `settled` (the kernel before did not write what ask reads)
  // and there is a whole group; then waits for the kernel before this one.
  template <class Block, class Ask>
  TILE_DEVICE void start(Block& blk, bool settled, Ask&& ask) {
    asked_first_ = settled && group_ <= extent_;
    if (asked_first_) ask(int64_t(0));
    wait_for_predecessor(blk);
  }

  // Every whole group in order: asked for (unless start() did), then used. Returns where they end.
  template <class Ask, class Use>
  TILE_DEVICE int64_t run(Ask&& ask, Use&& use) const {
    int64_t k0 = 0;
    for (; k0 + group_ <= extent_; k0 += group_) {
      if (k0 > 0 || !asked_first_) ask(k0);
      use(k0);
    }
    return k0;
  }

 private:
  int64_t extent_, group_;
  bool asked_first_ = false;
};

}  // namespace tessera::tile

// The staged test kernels on CUDA.
#include "tessera/tile/tile.h"
#include "tile_staged_launch.h"

// The register split of the staged pipeline's roles, checked where it is compiled: a block only has its launch
// bounds' share of the register file to move between its warps (setmaxnreg.inc waits forever for more).
namespace {
template <int CONSUMERS>
struct SplitShape {
  static constexpr int consumers = CONSUMERS;
};
using tessera::tile::cuda::hopper::RegisterSplit;
static_assert(RegisterSplit<SplitShape<2>, 1>::consumer == 232 && RegisterSplit<SplitShape<2>, 1>::producer == 40,
              "one block of two consumer warpgroups: 168 x 384 registers");
static_assert(RegisterSplit<SplitShape<1>, 1>::consumer == 240, "one consumer warpgroup: capped at 240");
static_assert(RegisterSplit<SplitShape<1>, 2>::consumer == 216, "two blocks of one consumer warpgroup: 128 x 256 each");
static_assert(RegisterSplit<SplitShape<2>, 2>::consumer == 104 && RegisterSplit<SplitShape<2>, 2>::producer == 24,
              "two blocks of two consumer warpgroups: 80 x 384 each, not a half of the register file");
static_assert(RegisterSplit<SplitShape<3>, 1>::consumer == 152, "three consumer warpgroups: 128 x 512");
}  // namespace

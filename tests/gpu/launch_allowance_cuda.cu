// A kernel with static shared memory beside its dynamic shared memory, launched through the tile library: the
// launcher must allow the dynamic part once both together pass 48 KB, not only when the dynamic part alone does.
// Not a tile-language kernel: it stands for the tile library's own exchange buffers (static shared arrays in
// tile operations) beside a staged pipeline's stages.
#include <cuda_runtime.h>

#include "tessera/tile/tile.h"

namespace tessera::launch_tests {
namespace {
struct StaticBesideDynamic {
  static constexpr int threads = 128;
  static constexpr int static_words = 4096;                 // 16 KB
  static constexpr size_t shared_bytes = size_t(40) << 10;  // 40 KB: under 48 alone, past it with the static part
  struct Params {
    float* out;  // [threads]
  };
  template <class Block>
  __device__ void operator()(Block&, const Params& p) const {
    __shared__ float fixed[static_words];
    extern __shared__ float dynamic_part[];
    constexpr int dynamic_words = int(shared_bytes / sizeof(float));
    const int t = int(threadIdx.x);
    for (int i = t; i < static_words; i += threads) fixed[i] = float(i);
    for (int i = t; i < dynamic_words; i += threads) dynamic_part[i] = float(2 * i);
    __syncthreads();
    // Each thread's last words of both: static_words - 1 - t and dynamic_words - 1 - t.
    p.out[t] = fixed[static_words - 1 - t] + dynamic_part[dynamic_words - 1 - t];
  }
};
}  // namespace

// Launches StaticBesideDynamic into out (128 floats, device memory) and waits for it; throws what the launch throws.
void launch_static_beside_dynamic(float* out) {
  tile::cuda::launch<StaticBesideDynamic>({1}, {out}, nullptr);
  TESSERA_CUDA_CHECK(cudaDeviceSynchronize());
}
int static_beside_dynamic_threads() { return StaticBesideDynamic::threads; }
float static_beside_dynamic_expected(int t) {
  const int static_words = StaticBesideDynamic::static_words, dynamic_words = int(StaticBesideDynamic::shared_bytes / sizeof(float));
  return float(static_words - 1 - t) + float(2 * (dynamic_words - 1 - t));
}
}  // namespace tessera::launch_tests

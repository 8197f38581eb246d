// Step 6: the staged pipeline, the shape of a fast Hopper matmul. C = A @ B^T with B as [N, K] (the weight
// layout of a linear layer), bf16 in, fp32 accumulate.
//
// Two changes from step 4, each written as tile-language constructs (tessera/tile/staged.h):
//  - a persistent grid: one block per multiprocessor, each walking the output tiles of a TileSchedule
//    (block b takes tiles b, b + blocks, ...), in groups of 8 tile rows so that the tiles computed at the
//    same time share A rows and B columns in L2;
//  - a producer and consumers: the producer fills a ring of STAGES shared-memory stages with BK-wide slices
//    of A and B (load_async: on Hopper the TMA copy engine, before Hopper cp.async from the producer's threads;
//    zeros past the edges), while the consumers take each stage as it arrives, mma it on the tensor cores
//    (wgmma; mma.sync before Hopper) and release it for refilling. Loads of slice k + STAGES - 1 overlap the
//    math of slice k.
// The consumers store their accumulator directly; the library's kernel (src/ops/matmul/matmul_staged.tile.h)
// runs step 5's epilogue there instead, and can split K over blocks when there are too few output tiles.
//
//   for each output tile t of this block:
//     producer:  for k in slices:  stage <- A[m0 : m0+BM, k], B[n0 : n0+BN, k]
//     consumers: acc = 0;  for each stage: acc += A_stage @ B_stage^T;  C[m0.., n0..] = acc
//
// Roles, barriers, the copy engine and the tensor-core instructions are the tile library's business. On the
// host the same source runs as loops: one thread plays every role, each stage loaded just before it is used.
// On the GPU this config needs an sm_80 GPU or later with 129 KB of shared memory a block (A100, Hopper) and rows
// of A and B 16-byte aligned (K a multiple of 8).
//
//   run: example_06_matmul_staged [m] [n] [k]
#include "examples/harness.h"
#include "examples/matmul_reference.h"
#include "tessera/tile/staged.h"
#include "tessera/tile/tile.h"

using namespace tessera;

template <int BM, int BN, int BK, int STAGES, int CONSUMERS>
struct MatmulStaged {
  using Stage = tile::Stage<tile::SharedTile<bf16, BM, BK>, tile::SharedTile<bf16, BN, BK>>;
  using Pipe = tile::PipelineShape<Stage, STAGES, CONSUMERS>;
  static constexpr int threads = Pipe::threads;             // GPU: one producer + CONSUMERS warpgroups
  static constexpr size_t shared_bytes = Pipe::shared_bytes;  // the ring of stages

  struct Params {
    tile::TmaTensor<bf16, BM, BK> a;  // [M, K], read in BM x BK boxes
    tile::TmaTensor<bf16, BN, BK> b;  // [N, K], read in BN x BK boxes
    tile::View2<float> c;             // [M, N]
    tile::TileSchedule schedule;
    int64_t k_slices;
  };

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    auto pipe = make_pipeline<Pipe>(blk);
    for (const tile::TileIndex t : persistent_tiles(blk, p.schedule)) {
      const int64_t m0 = t.row * BM, n0 = t.col * BN;
      pipe.producer(p.k_slices, [&](Stage& s, int64_t k) {
        load_async(blk, s.a, p.a, {m0, k * BK});
        load_async(blk, s.b, p.b, {n0, k * BK});
      });
      pipe.consumers([&] {
        auto acc = mma_accumulator<BM, BN>(pipe);
        for (const Stage& s : pipe.stages(p.k_slices, acc)) mma(acc, s.a, transpose(s.b));
        store(blk, p.c, {m0, n0}, acc);
      });
    }
  }
};

// Prints which step of the schedule computes each output tile (for small grids): tile i of the schedule
// runs on block i % blocks in wave i / blocks.
void print_schedule(const tile::TileSchedule& s, int64_t blocks) {
  std::printf("tile schedule: %lld x %lld output tiles, groups of %lld tile rows, %lld persistent blocks, %lld wave(s)\n",
              (long long)s.tile_rows, (long long)s.tile_cols, (long long)s.group, (long long)blocks,
              (long long)((s.count() + blocks - 1) / blocks));
  if (s.tile_rows > 16 || s.tile_cols > 16) return;
  std::vector<int64_t> order(size_t(s.tiles()));
  for (int64_t i = 0; i < s.count(); ++i) order[size_t(s.at(i).row * s.tile_cols + s.at(i).col)] = i;
  std::printf("visit order (row = tile row of C, column = tile column):\n");
  for (int64_t r = 0; r < s.tile_rows; ++r) {
    for (int64_t c = 0; c < s.tile_cols; ++c) std::printf(" %4lld", (long long)order[size_t(r * s.tile_cols + c)]);
    std::printf("\n");
  }
}

int main(int argc, char** argv) {
  if (!examples::backend_available()) return 0;
  constexpr int BM = 128, BN = 128, BK = 64, STAGES = 4, CONSUMERS = 2;
  const int64_t m = examples::arg(argc, argv, 1, examples::kOnGpu ? 8192 : 256);
  const int64_t n = examples::arg(argc, argv, 2, examples::kOnGpu ? 8192 : 256);
  const int64_t k = examples::arg(argc, argv, 3, examples::kOnGpu ? 8192 : 256);
  std::printf("06_matmul_staged on %s: %lld x %lld x %lld\n", examples::backend_name(), (long long)m, (long long)n,
              (long long)k);
  if (m < 1 || n < 1 || k < 8 || k % 8 != 0) { std::fprintf(stderr, "need m, n >= 1 and k a multiple of 8\n"); return 2; }
#if defined(__CUDACC__)
  if (!tile::cuda::device_is_hopper() &&
      !(tile::cuda::device_runs_sm80_pipelines() && tile::cuda::max_shared_bytes_per_block() >= MatmulStaged<BM, BN, BK, STAGES, CONSUMERS>::shared_bytes)) {
    std::printf("skipped: the staged kernel needs a Hopper GPU, or an sm_80 GPU with 129 KB of shared memory a block\n");
    return 0;
  }
#endif

  const auto a = examples::random_values<bf16>(size_t(m * k)), b = examples::random_values<bf16>(size_t(n * k));
  examples::Buffer<bf16> da(a), db(b);
  examples::Buffer<float> dc{size_t(m * n)};
  dc.poison();

  using K = MatmulStaged<BM, BN, BK, STAGES, CONSUMERS>;
  K::Params p{};
  p.a = tile::active::make_tma_tensor<BM, BK>(examples::matrix<const bf16>(da.data(), m, k));
  p.b = tile::active::make_tma_tensor<BN, BK>(examples::matrix<const bf16>(db.data(), n, k));
  p.c = examples::matrix(dc.data(), m, n);
  p.k_slices = (k + BK - 1) / BK;
  p.schedule = {(m + BM - 1) / BM, (n + BN - 1) / BN, /*group=*/8, /*splits=*/1};
  const int64_t blocks = std::min<int64_t>(p.schedule.count(), tile::active::multiprocessor_count());
  print_schedule(p.schedule, blocks);
  auto run = [&] { tile::active::launch<K>({blocks}, p, nullptr); };

  run();
  examples::synchronize();
  const auto rows = examples::rows_to_check(m, n, k);
  const auto want = examples::matmul_reference(examples::to_floats(a), examples::to_floats(b), rows, n, k, examples::BLayout::nk);
  const bool pass = examples::check("C = A @ B^T", examples::pick_rows(dc.download(), rows, n), want, examples::matmul_tolerance(k));

  const double ms = examples::median_ms(run, examples::kOnGpu ? 20 : 5, 1);
  examples::print_matmul_rate(m, n, k, ms);
  return pass ? 0 : 1;
}

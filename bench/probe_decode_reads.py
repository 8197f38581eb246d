#!/usr/bin/env python3
"""How fast can a decode-attention block read its KV head's K and V rows from a paged cache when its own threads
copy them (cp.async, 16 bytes a thread, whole 256-byte rows), as cuDNN's decode kernel does, instead of the copy
engine (TMA boxes, tessera's producer)? A probe on the GPU machine, not a kernel of the library:

    python3 bench/probe_decode_reads.py 32 4096

One block a (sequence, KV head), as tessera's and cuDNN's decode kernels run at these shapes: it streams the
sequence's K and V rows, a tile of 16-64 tokens at a time, through a ring of shared-memory stages (cp.async groups; a tile's
copies are waited for STAGES - 1 tiles later) and does nothing else with them. Prints the read rate of each
variant (threads a block, stages, pages scrambled or a contiguous cache): CUDA events around 10 back-to-back
launches, warm-up, median of 20.
GQA 8 KV heads, D 128, bf16, 16-token pages.
"""
import argparse

import cupy as cp
import numpy as np

SOURCE = r"""
// THREADS a block, ROWS_A_PASS = THREADS / 16 rows copied a pass (16 threads a 256-byte row), so that the page of
// each pass's rows is known at compile time and a tile's block table entries are read once, before its copies.
extern "C" __global__ void __launch_bounds__(THREADS) read_rows(const char* __restrict__ k, const char* __restrict__ v,
                                                                const int* __restrict__ table, int seq_len, int pages_per_seq,
                                                                unsigned long long* sink) {
  constexpr int ROW = 256, PIECES = ROW / 16, STAGE = 2 * TILE * ROW, ROWS_A_PASS = THREADS / PIECES;
  constexpr int PAGES_A_TILE = TILE >= PAGE ? TILE / PAGE : 1;
  static_assert(PAGE % ROWS_A_PASS == 0 || ROWS_A_PASS % PAGE == 0, "passes of whole pages or pages of whole passes");
  extern __shared__ __align__(128) char ring[];
  const int h = blockIdx.x % HKV, b = blockIdx.x / HKV;
  const int tiles = seq_len / TILE, piece = threadIdx.x % PIECES, first_row = threadIdx.x / PIECES;
  const int* seq_table = table + b * pages_per_seq;
  const unsigned base = (unsigned)__cvta_generic_to_shared(ring);
  for (int t = 0; t < tiles + STAGES - 1; ++t) {
    if (t < tiles) {
      const int stage = t % STAGES;
      int page_of[PAGES_A_TILE];
#pragma unroll
      for (int j = 0; j < PAGES_A_TILE; ++j) page_of[j] = seq_table[(t * TILE) / PAGE + j];
#pragma unroll
      for (int tensor = 0; tensor < 2; ++tensor) {
#pragma unroll
        for (int pass = 0; pass < TILE / ROWS_A_PASS; ++pass) {
          const int r = first_row + pass * ROWS_A_PASS;
          const int token_in_page = (t * TILE + r) % PAGE;
          const int slot = page_of[(pass * ROWS_A_PASS) / PAGE] * PAGE + token_in_page;
          const char* src = (tensor ? v : k) + ((size_t)slot * HKV + h) * ROW + piece * 16;
          const unsigned dst = base + stage * STAGE + tensor * TILE * ROW + r * ROW + piece * 16;
          asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" :: "r"(dst), "l"(src) : "memory");
        }
      }
    }
    asm volatile("cp.async.commit_group;\n" ::: "memory");
    asm volatile("cp.async.wait_group %0;\n" :: "n"(STAGES - 1) : "memory");
    __syncthreads();
  }
  asm volatile("cp.async.wait_all;\n" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) sink[blockIdx.x] = *(const unsigned long long*)(ring + (blockIdx.x % 64) * 8);
}
"""


def time_kernel(fn, reps=20, calls=10, warmup=3):
    """Median over reps of the mean time of `calls` back-to-back launches (the launch gaps amortized), in us."""
    for _ in range(warmup):
        fn()
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for _ in range(reps):
        start.record()
        for _ in range(calls):
            fn()
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop) * 1e3 / calls)
    return float(np.median(times))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("b", type=int)
    p.add_argument("s", type=int)
    p.add_argument("--threads", default="128,256", help="threads a block that copy, a comma-separated list (default 128,256)")
    p.add_argument("--tiles", default="64x2,64x3,32x4,32x6,16x8", help="tokens a tile x stages, a comma-separated list")
    a = p.parse_args()
    hkv, page, row = 8, 16, 256
    assert a.s % 64 == 0, "S a multiple of 64"
    pages_per_seq = a.s // page
    pages = a.b * pages_per_seq
    rng = np.random.default_rng()
    k = cp.asarray(rng.integers(0, 255, size=pages * page * hkv * row, dtype=np.uint8))
    v = cp.asarray(rng.integers(0, 255, size=pages * page * hkv * row, dtype=np.uint8))
    sink = cp.zeros(a.b * hkv, dtype=cp.uint64)
    tables = {"scrambled pages": cp.asarray(rng.permutation(pages).astype(np.int32)),
              "contiguous": cp.arange(pages, dtype=cp.int32)}
    kv_bytes = 2 * a.b * a.s * hkv * row
    print(f"B {a.b} S {a.s} Hkv {hkv} D 128 bf16, {kv_bytes / 1e6:.0f} MB of K and V, {a.b * hkv} blocks")
    # (tokens a tile, stages): 64 or 96 KB a block, so that two blocks fit an SM and all are resident at once.
    threads_list = [int(t) for t in a.threads.split(",")]
    for tile, stages in (tuple(int(x) for x in spec.split("x")) for spec in a.tiles.split(",")):
        smem = stages * 2 * tile * row
        for threads in threads_list:
            module = cp.RawModule(code=SOURCE, options=("--std=c++17", f"-DHKV={hkv}", f"-DPAGE={page}", f"-DTILE={tile}",
                                                        f"-DSTAGES={stages}", f"-DTHREADS={threads}"))
            kernel = module.get_function("read_rows")
            kernel.max_dynamic_shared_size_bytes = smem
            for name, table in tables.items():
                us = time_kernel(lambda: kernel((a.b * hkv,), (threads,), (k, v, table, np.int32(a.s), np.int32(pages_per_seq), sink),
                                                shared_mem=smem))
                print(f"  {tile}-token tiles x {stages} stages ({smem // 1024} KB), {threads} threads, {name}: {us:.1f} us, "
                      f"{kv_bytes / us / 1e6:.3f} TB/s", flush=True)


if __name__ == "__main__":
    main()

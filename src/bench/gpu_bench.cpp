#include "bench/gpu_bench.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <memory>

#include "bench/cublas_loader.h"
#include "dispatch/l2_flush.h"
#include "ops/matmul/args.h"
#include "tessera/dispatch/autotune.h"
#include "tessera/dispatch/dispatch.h"
#include "tessera/ops/activation.h"
#include "tessera/ops/attention.h"
#include "tessera/ops/embedding.h"
#include "tessera/ops/matmul.h"
#include "tessera/ops/norm.h"
#include "tessera/ops/rope.h"
#include "tessera/ops/softmax.h"
#include "tessera/runtime/error.h"
#include "tessera/runtime/numeric.h"

#if TESSERA_WITH_CUDA
#include <cuda_runtime.h>
#include "tessera/runtime/cuda_check.h"
#endif

namespace tessera::bench {

std::vector<std::string> bench_ops() {
  return {"matmul", "matmul_fp8", "bmm", "group_gemm", "rms_norm", "rms_norm_residual", "layer_norm", "softmax", "gelu",
          "silu_and_mul", "rope", "embedding", "fmha", "fmha_fp8", "fmha_backward", "fmha_decode", "mla_decode",
          "qkv_rope_append"};
}

int shape_rank(const std::string& op) {
  if (op == "matmul" || op == "matmul_fp8") return 3;
  if (op == "bmm" || op == "group_gemm" || op == "fmha" || op == "fmha_fp8" || op == "fmha_backward" ||
      op == "qkv_rope_append")
    return 4;
  if (op == "fmha_decode") return 5;
  return 2;
}

// Ops whose shapes share a rank with another family's (bmm and group_gemm with fmha, mla_decode with the row
// ops) take only shapes written for them ("bmm:8x512x512x512").
bool takes_shapes_by_rank(const std::string& op) {
  return op != "bmm" && op != "group_gemm" && op != "mla_decode" && op != "qkv_rope_append";
}

ShapeSpec parse_shape_spec(const std::string& text) {
  ShapeSpec spec;
  std::string dims = text;
  if (const size_t colon = text.find(':'); colon != std::string::npos) {
    spec.op = text.substr(0, colon);
    dims = text.substr(colon + 1);
    const auto all = bench_ops();
    if (std::find(all.begin(), all.end(), spec.op) == all.end())
      invalid_argument("--shapes " + text + ": unknown op '" + spec.op + "'");
  }
  spec.dims = parse_dims(dims, "--shapes " + text);
  // Prefill attention written for its op may name a value head dim of its own (MLA: fmha:4x16x4096x192x128),
  // and MLA decode its query head count (mla_decode:64x4096x16; 128 when left out).
  const bool with_dv = (spec.op == "fmha" || spec.op == "fmha_fp8") && spec.dims.size() == 5;
  const bool with_heads = spec.op == "mla_decode" && spec.dims.size() == 3;
  if (!spec.op.empty() && int(spec.dims.size()) != shape_rank(spec.op) && !with_dv && !with_heads)
    invalid_argument("--shapes " + text + ": " + spec.op + " takes " + std::to_string(shape_rank(spec.op)) + " numbers" +
                     (spec.op == "fmha" || spec.op == "fmha_fp8" ? " (or 5: BxHxSxDqkxDv)" : "") +
                     (spec.op == "mla_decode" ? " (or 3: BxSxH)" : ""));
  return spec;
}

std::vector<long long> parse_dims(const std::string& text, const std::string& what) {
  std::vector<long long> dims;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t x = std::min(text.find('x', pos), text.size());
    const std::string part = text.substr(pos, x - pos);
    if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos || part.size() > 12)
      invalid_argument(what + " '" + text + "' is not a list of positive integers joined by 'x'");
    dims.push_back(std::stoll(part));
    if (dims.back() <= 0) invalid_argument(what + " '" + text + "' has a zero dimension");
    pos = x + 1;
  }
  return dims;
}

namespace {
// A pool of random values in the tensor's dtype, copied cyclically into device buffers: generating every
// element of a 1 GB weight on the host would take longer than timing it.
template <class T>
std::vector<T> random_pool(size_t count, uint64_t seed) {
  std::vector<T> pool(count);
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
  for (auto& v : pool) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    const float u = float(s >> 40) / float(1ull << 24) * 2.f - 1.f;
    v = from_float<T>(u);
  }
  return pool;
}
}  // namespace

void fill_random(const Tensor& t, uint64_t seed) {
  check(t.is_contiguous(), "fill_random: the tensor must be contiguous");
  constexpr size_t kPool = size_t(1) << 22;
  std::vector<uint8_t> bytes;
  const size_t elem = dtype_size(t.dtype());
  auto make = [&](auto tag) {
    using T = decltype(tag);
    auto pool = random_pool<T>(kPool, seed);
    bytes.assign(reinterpret_cast<const uint8_t*>(pool.data()), reinterpret_cast<const uint8_t*>(pool.data() + pool.size()));
  };
  switch (t.dtype()) {
    case DType::f32: make(float{}); break;
    case DType::f16: make(f16{}); break;
    case DType::bf16: make(bf16{}); break;
    case DType::fp8_e4m3: make(fp8_e4m3{}); break;
    default: invalid_argument("fill_random: f32, f16, bf16 or fp8_e4m3 only, not " + std::string(dtype_name(t.dtype())));
  }
  const size_t total = t.nbytes();
  // An odd element offset per chunk, so equal rows do not repeat with the pool's period.
  size_t done = 0, shift = 0;
  while (done < total) {
    const size_t start = (shift * 7919 % kPool) * elem;
    const size_t n = std::min(total - done, bytes.size() - start);
    copy_bytes(static_cast<uint8_t*>(t.data()) + done, t.device(), bytes.data() + start, Device::cpu(), n);
    done += n;
    ++shift;
  }
}

std::vector<std::string> check_options(const BenchOptions& opt) {
  if (opt.dtype != DType::bf16 && opt.dtype != DType::f16)
    invalid_argument("tessera bench: --dtype must be bf16 or f16, not " + std::string(dtype_name(opt.dtype)));
  if (!(opt.batch_us >= 1 && opt.batch_us <= 1e5)) {
    char given[32];
    std::snprintf(given, sizeof given, "%g", opt.batch_us);
    invalid_argument("tessera bench: --batch-us must be 1 to 100000 microseconds, not " + std::string(given));
  }
  const auto all = bench_ops();
  std::string known;
  for (const auto& op : all) known += (known.empty() ? "" : ", ") + op;
  for (const auto& op : opt.ops)
    if (std::find(all.begin(), all.end(), op) == all.end())
      invalid_argument("tessera bench: unknown op '" + op + "' (known: " + known + ")");
  for (const auto& s : opt.shapes)
    if (const auto spec = parse_shape_spec(s); spec.op.empty() && (spec.dims.size() < 2 || spec.dims.size() > 5))
      invalid_argument("--shapes " + s + ": give ROWSxCOLS (norms, softmax, activations, rope, embedding), MxNxK (matmul, "
                       "matmul_fp8), BxHxSxD (fmha, fmha_fp8, fmha_backward) or BxSxHqxHkvxD (fmha_decode); "
                       "bmm:BxMxNxK, group_gemm:GxMxNxK and mla_decode:BxS[xH] name their op");
  return opt.ops.empty() ? all : opt.ops;
}

#if TESSERA_WITH_CUDA
namespace {

struct DeviceInfo {
  std::string name;
  int sms = 0;
  size_t l2 = 0;
};

DeviceInfo device_info() {
  DeviceInfo d;
  int dev = 0;
  TESSERA_CUDA_CHECK(cudaGetDevice(&dev));
  cudaDeviceProp prop{};
  TESSERA_CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
  d.name = prop.name;
  d.sms = prop.multiProcessorCount;
  d.l2 = size_t(prop.l2CacheSize);
  return d;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// What runs before each timed batch: it keeps the GPU busy while the host enqueues the batch, so host-side
// launch overhead is hidden as it is in a steady stream of work (or a CUDA graph). It must outlast the host's
// work for the batch's first call, or the GPU waits for it inside the timed batch: with 32 MB a decode
// attention call (two launches, two tensor maps) was timed 2-4 us longer than with 256 MB (H200, session 59).
// It reads (the autotuner's L2 flush kernel), not writes: a memset left the L2 full of dirty lines, and the
// batch's first call paid for writing them back (~60 MB, some 15 us of the memory's time; session 46 found the
// same in the tuner's flush).
struct LeadBuffer {
  dispatch::autotune::detail::L2FlushBuffer flush{size_t(256) << 20};
  LeadBuffer() {
    if (!flush.ok()) fail(Status::cuda_error, "bench: cannot allocate the 256 MB lead buffer on the GPU");
  }
  void run(cudaStream_t stream, int i) const {
    if (!flush.run(stream, i)) fail(Status::cuda_error, "bench: cannot queue the lead before a timed batch");
  }
};

// Times fn(i) (i counts calls, so the caller can rotate buffers). After warm-up, calls are timed in batches
// of k back-to-back calls between a pair of events (k chosen so a batch lasts about batch_us, at most 50
// calls), and the median of the per-call batch averages is returned, in microseconds. The number of batches
// adapts to the call's length, so a sweep takes seconds, not minutes. Each later call of a batch may start
// under the end of the one before (dependent launch), the first only behind the lead: short batches (the
// default 200 us, two calls of 80 us) charge that first start to few calls, long ones (--batch-us 2000) give
// the time a call takes in a steady stream of them, as inside a model's step.
double median_us(const std::function<void(int)>& fn, cudaStream_t stream, const BenchOptions& opt, const LeadBuffer& lead) {
  const bool quick = opt.quick;
  const int warmup = quick ? 2 : 5;
  int calls = 0;
  for (int i = 0; i < warmup; ++i) fn(calls++);
  TESSERA_CUDA_CHECK(cudaStreamSynchronize(stream));
  cudaEvent_t a, b;
  TESSERA_CUDA_CHECK(cudaEventCreate(&a));
  TESSERA_CUDA_CHECK(cudaEventCreate(&b));
  auto timed_batch = [&](int k) {
    lead.run(stream, calls);
    TESSERA_CUDA_CHECK(cudaEventRecord(a, stream));
    for (int i = 0; i < k; ++i) fn(calls++);
    TESSERA_CUDA_CHECK(cudaEventRecord(b, stream));
    TESSERA_CUDA_CHECK(cudaEventSynchronize(b));
    float ms = 0;
    TESSERA_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
    return double(ms) * 1e3 / k;
  };
  const double estimate = timed_batch(3);
  const int k = std::clamp(int(opt.batch_us / std::max(estimate, 0.1)), 1, 50);
  const double budget_us = quick ? 2e4 : 3e5;
  const int batches = std::clamp(int(budget_us / (estimate * k)), quick ? 3 : 9, quick ? 10 : 200);
  std::vector<double> us;
  for (int i = 0; i < batches; ++i) us.push_back(timed_batch(k));
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}

// How many copies of a working set of `bytes` make one round exceed the L2 cache three times, within a
// memory budget.
int rotation_copies(size_t bytes, size_t l2) {
  size_t free_b = 0, total_b = 0;
  TESSERA_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  const size_t want = (3 * l2 + bytes - 1) / std::max<size_t>(bytes, 1);
  const size_t fit = std::max<size_t>(1, free_b / 2 / std::max<size_t>(bytes, 1));
  return int(std::clamp<size_t>(want, 1, std::min<size_t>(fit, 64)));
}

// Samples of a device tensor as floats (at most `limit` leading elements).
std::vector<float> sample(const Tensor& t, size_t limit) {
  const size_t n = std::min<size_t>(size_t(t.numel()), limit);
  std::vector<uint16_t> raw(n);
  copy_bytes(raw.data(), Device::cpu(), t.data(), t.device(), n * 2);
  std::vector<float> out(n);
  for (size_t i = 0; i < n; ++i)
    out[i] = t.dtype() == DType::bf16 ? to_float(bf16{raw[i]}) : to_float(f16{raw[i]});
  return out;
}

// max |a - b| over max |b|: small when two matmuls agree up to accumulation order.
double relative_difference(const std::vector<float>& a, const std::vector<float>& b) {
  double diff = 0, scale = 1e-30;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (std::isnan(a[i]) != std::isnan(b[i])) return INFINITY;
    diff = std::max(diff, double(std::fabs(a[i] - b[i])));
    scale = std::max(scale, double(std::fabs(b[i])));
  }
  return diff / scale;
}

struct Runner {
  const BenchOptions& opt;
  DeviceInfo dev;
  Report report;
  std::unique_ptr<Cublas> cublas;
  cudaStream_t stream = nullptr;
  std::unique_ptr<LeadBuffer> lead;

  void say(const std::string& line) const {
    if (opt.progress) opt.progress(line);
  }

  // ---- ceilings ----
  void measure_copy() {
    const size_t bytes = opt.quick ? (size_t(256) << 20) : (size_t(1) << 30);
    void *src = nullptr, *dst = nullptr;
    TESSERA_CUDA_CHECK(cudaMalloc(&src, bytes));
    TESSERA_CUDA_CHECK(cudaMalloc(&dst, bytes));
    TESSERA_CUDA_CHECK(cudaMemsetAsync(src, 1, bytes, stream));
    const double us = median_us([&](int) { TESSERA_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream)); },
                                stream, opt, *lead);
    cudaFree(src);
    cudaFree(dst);
    report.ceilings.copy_gbps = 2.0 * double(bytes) / us * 1e-3;
    say("ceiling: device-to-device copy " + std::to_string(int(report.ceilings.copy_gbps)) + " GB/s");
  }

  void measure_tensor_cores() {
    if (!cublas || !cublas->available()) return;
    const long long n = opt.quick ? 4096 : 8192;
    Tensor x = Tensor::empty({n, n}, opt.dtype, Device::cuda()), w = Tensor::empty({n, n}, opt.dtype, Device::cuda());
    Tensor y = Tensor::empty({n, n}, opt.dtype, Device::cuda());
    fill_random(x, 1);
    fill_random(w, 2);
    bool ok = true;
    const double us = median_us([&](int) { ok = cublas->matmul_nk(x.data(), w.data(), y.data(), n, n, n, opt.dtype, stream) && ok; },
                                stream, opt, *lead);
    if (!ok) {
      report.notes.push_back("cuBLAS failed on " + std::to_string(n) + "^3: " + cublas->why());
      return;
    }
    report.ceilings.tensor_tflops = 2.0 * double(n) * double(n) * double(n) / us * 1e-6;
    report.ceilings.tensor_source = "cuBLAS " + std::string(dtype_name(opt.dtype)) + " " + std::to_string(n) + "^3";
    say("ceiling: tensor cores " + std::to_string(int(report.ceilings.tensor_tflops)) + " TFLOP/s (" +
        report.ceilings.tensor_source + ")");
  }

  // ---- matmul ----
  std::vector<std::vector<long long>> matmul_shapes() const {
    std::vector<std::vector<long long>> sweep;
    for (long long s : {1024, 2048, 4096, 8192}) sweep.push_back({s, s, s});
    for (long long m : {1, 16, 128, 2048, 4096})
      for (auto [n, k] : {std::pair{4096LL, 4096LL}, {14336LL, 4096LL}, {4096LL, 14336LL}, {128256LL, 4096LL}})
        sweep.push_back({m, n, k});
    return shapes_for("matmul", sweep, {{256, 256, 256}, {16, 1024, 512}, {1, 4096, 1024}});
  }

  void bench_matmul() {
    for (const auto& d : matmul_shapes()) {
      const long long m = d[0], n = d[1], k = d[2];
      const size_t el = dtype_size(opt.dtype);
      const size_t set_bytes = size_t(m * k + n * k + m * n) * el;
      const int copies = rotation_copies(set_bytes, dev.l2);
      std::vector<Tensor> xs, ws, ys;
      for (int c = 0; c < copies; ++c) {
        xs.push_back(Tensor::empty({m, k}, opt.dtype, Device::cuda()));
        ws.push_back(Tensor::empty({n, k}, opt.dtype, Device::cuda()));
        ys.push_back(Tensor::empty({m, n}, opt.dtype, Device::cuda()));
        if (c == 0) {
          fill_random(xs[0], 11);
          fill_random(ws[0], 12);
        } else {
          xs[c].copy_from(xs[0]);
          ws[c].copy_from(ws[0]);
        }
      }
      Row row;
      row.op = "matmul";
      row.shape = "M=" + std::to_string(m) + " N=" + std::to_string(n) + " K=" + std::to_string(k);
      row.flops = 2.0 * double(m) * double(n) * double(k);
      row.bytes = double(set_bytes);
      const ops::Options o{dispatch::Backend::tile_cuda, stream};
      row.us = median_us([&](int i) { ops::matmul(xs[i % copies], ws[i % copies], ys[i % copies], ops::BLayout::nk, {}, o); },
                         stream, opt, *lead);
      const auto ours = sample(ys[0], size_t(1) << 20);
      // Which configuration the autotuner picked (if it tuned this shape class).
      const auto key = ops::matmul_tune_key(opt.dtype, m, n, k);
      const auto tuned = dispatch::autotune::memory_entries();
      if (auto it = tuned.find(key.str()); it != tuned.end()) row.note = "config " + it->second.choice;
      if (cublas && cublas->available()) {
        bool ok = true;
        const double us = median_us(
            [&](int i) {
              const int c = i % copies;
              ok = cublas->matmul_nk(xs[c].data(), ws[c].data(), ys[c].data(), m, n, k, opt.dtype, stream) && ok;
            },
            stream, opt, *lead);
        if (ok) {
          row.baseline_us = us;
          row.baseline = "cuBLAS";
          const double diff = relative_difference(ours, sample(ys[0], size_t(1) << 20));
          // Both accumulate in fp32 and round once to 16 bits; more than a few output ulps means a bug.
          if (!(diff < 2e-2)) {
            char buf[96];
            std::snprintf(buf, sizeof buf, "; MISMATCH vs cuBLAS: max diff %.3g of max |y|", diff);
            row.note += buf;
          }
        } else {
          row.note += (row.note.empty() ? "" : "; ") + std::string("cuBLAS failed: ") + cublas->why();
        }
      }
      std::string line = text_row(row, report.ceilings);
      line.pop_back();
      say(line);
      report.rows.push_back(std::move(row));
    }
  }

  // ---- everything but matmul: one timed row per op and shape ----
  // The shapes of `op`: the user's of its rank, else its default sweep.
  std::vector<std::vector<long long>> shapes_for(const std::string& op, std::vector<std::vector<long long>> defaults,
                                                 std::vector<std::vector<long long>> quick) const {
    if (opt.shapes.empty()) return opt.quick ? quick : defaults;
    std::vector<std::vector<long long>> out;
    for (const auto& s : opt.shapes) {
      const ShapeSpec spec = parse_shape_spec(s);
      if (spec.op == op || (spec.op.empty() && takes_shapes_by_rank(op) && int(spec.dims.size()) == shape_rank(op)))
        out.push_back(spec.dims);
    }
    return out;
  }

  // A random tensor for copy 0 of a working set; later copies copy copy 0's (filling on the host is slow).
  static Tensor random_like_first(const std::vector<Tensor>* first, size_t i, const Shape& shape, DType dtype, uint64_t seed) {
    Tensor t = Tensor::empty(shape, dtype, Device::cuda());
    if (first) t.copy_from((*first)[i]);
    else fill_random(t, seed);
    return t;
  }

  // Times call(set) over enough copies of a working set (make(first) builds one: first is null for copy 0,
  // which is filled at random, else copy 0 to copy from) that a round exceeds the L2 cache, and adds the row.
  using Sets = std::vector<std::vector<Tensor>>;
  template <class Make, class Call>
  void timed_row(const std::string& op, const std::string& shape, double flops, double bytes, Make make, Call call,
                 std::string note = {}, const std::function<void(const Sets&, Row&)>& baseline = {}) {
    Row row;
    row.op = op;
    row.shape = shape;
    row.flops = flops;
    row.bytes = bytes;
    row.note = std::move(note);
    // A call the tile kernels refuse (fallbacks are errors during the run) is reported, not timed.
    try {
      Sets sets;
      sets.push_back(make(nullptr));
      const int copies = rotation_copies(size_t(bytes), dev.l2);
      for (int c = 1; c < copies; ++c) sets.push_back(make(&sets[0]));
      row.us = median_us([&](int i) { call(sets[size_t(i % copies)]); }, stream, opt, *lead);
      if (baseline) baseline(sets, row);
    } catch (const Error& e) {
      if (e.status() == Status::cuda_error) throw;
      TESSERA_CUDA_CHECK(cudaStreamSynchronize(stream));
      row.note = std::string("not run: ") + e.what();
      say(op + " " + shape + ": " + row.note);
      report.rows.push_back(std::move(row));
      return;
    }
    std::string line = text_row(row, report.ceilings);
    line.pop_back();
    say(line);
    report.rows.push_back(std::move(row));
  }

  // Norms, softmax and activations over ROWS x COLS (silu_and_mul: COLS outputs from 2 COLS inputs; rope:
  // COLS / 128 heads of 128; embedding: ROWS ids into a 32000 x COLS table). Bytes: what one call must read
  // and write at least.
  void bench_rows(const std::string& op) {
    const DType dt = opt.dtype;
    const double el = double(dtype_size(dt));
    const ops::Options o{dispatch::Backend::tile_cuda, stream};
    for (const auto& d : shapes_for(op, {{1, 4096}, {16, 4096}, {4096, 4096}, {16384, 8192}}, {{128, 4096}})) {
      const long long rows = d[0], cols = d[1];
      const std::string shape = "rows=" + std::to_string(rows) + " cols=" + std::to_string(cols);
      const double rc = double(rows) * double(cols);
      auto rand = [&](const std::vector<Tensor>* f, size_t i, const Shape& sh, uint64_t seed) {
        return random_like_first(f, i, sh, dt, seed);
      };
      auto out = [&](const Shape& sh) { return Tensor::empty(sh, dt, Device::cuda()); };
      if (op == "rms_norm") {
        timed_row(op, shape, 0, (2 * rc + cols) * el,
                  [&](auto f) { return std::vector<Tensor>{rand(f, 0, {rows, cols}, 22), rand(f, 1, {cols}, 21), out({rows, cols})}; },
                  [&](const auto& t) { ops::rms_norm(t[0], t[1], t[2], 1e-5f, o); });
      } else if (op == "rms_norm_residual") {
        // x and the residual read; the sum written back over the residual and y written.
        timed_row(op, shape, 0, (4 * rc + cols) * el,
                  [&](auto f) {
                    return std::vector<Tensor>{rand(f, 0, {rows, cols}, 23), rand(f, 1, {rows, cols}, 24), rand(f, 2, {cols}, 21),
                                               out({rows, cols})};
                  },
                  [&](const auto& t) { ops::rms_norm_residual(t[0], t[1], t[1], t[2], t[3], 1e-5f, o); });
      } else if (op == "layer_norm") {
        timed_row(op, shape, 0, (2 * rc + 2 * cols) * el,
                  [&](auto f) {
                    return std::vector<Tensor>{rand(f, 0, {rows, cols}, 25), rand(f, 1, {cols}, 26), rand(f, 2, {cols}, 27), out({rows, cols})};
                  },
                  [&](const auto& t) { ops::layer_norm(t[0], t[1], t[2], t[3], 1e-5f, o); });
      } else if (op == "softmax" || op == "gelu") {
        timed_row(op, shape, 0, 2 * rc * el, [&](auto f) { return std::vector<Tensor>{rand(f, 0, {rows, cols}, 28), out({rows, cols})}; },
                  [&](const auto& t) {
                    if (op == "softmax") ops::softmax(t[0], t[1], 1.f, o);
                    else ops::gelu(t[0], t[1], ops::GeluApprox::none, o);
                  });
      } else if (op == "silu_and_mul") {
        timed_row(op, shape, 0, 3 * rc * el, [&](auto f) { return std::vector<Tensor>{rand(f, 0, {rows, 2 * cols}, 29), out({rows, cols})}; },
                  [&](const auto& t) { ops::silu_and_mul(t[0], t[1], o); });
      } else if (op == "rope") {
        if (cols % 128 != 0) invalid_argument("tessera bench rope: cols " + std::to_string(cols) + " is not a multiple of the head dim 128");
        const long long heads = cols / 128;
        const std::vector<float> inv_values = ops::rope_inv_freq(128, 10000.0);
        const Tensor inv_freq = Tensor::empty({64}, DType::f32, Device::cuda());
        copy_bytes(inv_freq.data(), inv_freq.device(), inv_values.data(), Device::cpu(), inv_values.size() * sizeof(float));
        const Tensor positions = Tensor::empty({rows}, DType::i64, Device::cuda());
        std::vector<int64_t> pos(static_cast<size_t>(rows));
        for (long long i = 0; i < rows; ++i) pos[size_t(i)] = (i * 37) % 4096;
        copy_bytes(positions.data(), positions.device(), pos.data(), Device::cpu(), pos.size() * sizeof(int64_t));
        timed_row(op, "tokens=" + std::to_string(rows) + " heads=" + std::to_string(heads) + " dim=128", 0, 2 * rc * el,
                  [&](auto f) { return std::vector<Tensor>{rand(f, 0, {rows, heads, 128}, 30), out({rows, heads, 128})}; },
                  [&](const auto& t) { ops::rope(t[0], positions, inv_freq, t[1], ops::RopeLayout::neox, 0, o); });
      } else if (op == "embedding") {
        const long long vocab = 32000;
        const Tensor table = rand(nullptr, 0, {vocab, cols}, 31);
        std::vector<int32_t> id_values(static_cast<size_t>(rows));
        for (long long i = 0; i < rows; ++i) id_values[size_t(i)] = int32_t((i * 7919) % vocab);
        const auto make = [&](auto) {
          Tensor ids = Tensor::empty({rows}, DType::i32, Device::cuda());
          copy_bytes(ids.data(), ids.device(), id_values.data(), Device::cpu(), id_values.size() * sizeof(int32_t));
          return std::vector<Tensor>{ids, out({rows, cols})};
        };
        const std::string shape = "ids=" + std::to_string(rows) + " cols=" + std::to_string(cols) + " vocab=32000";
        const double bytes = 2 * rc * el + 4.0 * double(rows);  // rows read and written, and the ids
        timed_row(op, shape, 0, bytes, make, [&](const auto& t) { ops::embedding(t[0], table, t[1], o); },
                  "each call checks its ids and waits for the check's result (a round trip)");
        ops::Options promised = o;
        promised.ids_in_range = true;
        timed_row(op, shape + " ids_in_range", 0, bytes, make,
                  [&](const auto& t) { ops::embedding(t[0], table, t[1], promised); },
                  "Options::ids_in_range: no check, no round trip (as the engine calls it)");
      }
    }
  }

  // Prefill attention over B x H x S x D (as many KV heads as query heads), without and with the causal mask,
  // or B x H x S x Dqk x Dv (MLA: 192 / 128): 2 B H S^2 (Dqk + Dv) flops, halved when causal; bytes: q, k, v
  // read and o written once. fmha_fp8 takes e4m3 inputs (unit scales) and writes o in the run's dtype.
  void bench_fmha(const std::string& op) {
    const bool fp8 = op == "fmha_fp8";
    const DType in = fp8 ? DType::fp8_e4m3 : opt.dtype;
    const ops::Options o{dispatch::Backend::tile_cuda, stream};
    for (const auto& d : shapes_for(op, {{16, 16, 1024, 128}, {4, 16, 4096, 128}, {1, 16, 16384, 128}, {8, 16, 2048, 64}, {4, 16, 4096, 256},
                                         {4, 16, 4096, 192, 128}},
                                    {{2, 4, 512, 128}})) {
      const long long B = d[0], H = d[1], S = d[2], D = d[3], Dv = d.size() > 4 ? d[4] : d[3];
      const double bytes = double(B * H * S) * (double(2 * D + Dv) * double(dtype_size(in)) + double(Dv * dtype_size(opt.dtype)));
      for (bool causal : {false, true}) {
        const std::string shape = "B=" + std::to_string(B) + " H=" + std::to_string(H) + " S=" + std::to_string(S) +
                                  " D=" + std::to_string(D) + (Dv != D ? "/" + std::to_string(Dv) : "") + (causal ? " causal" : "");
        const ops::AttentionParams params{0.f, causal, -1, 0.f};
        timed_row(op, shape, 2.0 * double(B * H) * double(S) * double(S) * double(D + Dv) / (causal ? 2 : 1), bytes,
                  [&](auto f) {
                    return std::vector<Tensor>{random_like_first(f, 0, {B, H, S, D}, in, 41), random_like_first(f, 1, {B, H, S, D}, in, 42),
                                               random_like_first(f, 2, {B, H, S, Dv}, in, 43),
                                               Tensor::empty({B, H, S, Dv}, opt.dtype, Device::cuda())};
                  },
                  [&](const auto& t) {
                    if (fp8) ops::fmha_fp8(t[0], t[1], t[2], t[3], 1.f, 1.f, 1.f, {}, params, o);
                    else ops::fmha(t[0], t[1], t[2], t[3], {}, params, o);
                  });
      }
    }
  }

  // ---- the rest of the matmul family ----
  // cuBLAS's verdict on a baseline call: its time, or a note saying why there is none.
  void add_baseline(Row& row, bool ok, double us) {
    if (ok) {
      row.baseline_us = us;
      row.baseline = "cuBLAS";
    } else {
      row.note += (row.note.empty() ? "" : "; ") + std::string("cuBLAS failed: ") + cublas->why();
    }
  }

  // Batched matmul over B x M x N x K (b as [B, N, K]) against one cublasGemmStridedBatchedEx call.
  void bench_bmm() {
    const DType dt = opt.dtype;
    const ops::Options o{dispatch::Backend::tile_cuda, stream};
    for (const auto& d : shapes_for("bmm", {{64, 512, 512, 512}, {8, 2048, 2048, 2048}, {256, 128, 128, 64}}, {{4, 256, 256, 256}})) {
      const long long B = d[0], m = d[1], n = d[2], k = d[3];
      const double el = double(dtype_size(dt));
      timed_row("bmm", "B=" + std::to_string(B) + " M=" + std::to_string(m) + " N=" + std::to_string(n) + " K=" + std::to_string(k),
                2.0 * double(B * m) * double(n) * double(k), double(B) * double(m * k + n * k + m * n) * el,
                [&](auto f) {
                  return std::vector<Tensor>{random_like_first(f, 0, {B, m, k}, dt, 61), random_like_first(f, 1, {B, n, k}, dt, 62),
                                             Tensor::empty({B, m, n}, dt, Device::cuda())};
                },
                [&](const auto& t) { ops::bmm(t[0], t[1], t[2], ops::BLayout::nk, {}, o); },
                {}, [&](const auto& sets, Row& row) {
                  if (!cublas || !cublas->available()) return;
                  bool ok = true;
                  const double us = median_us(
                      [&](int i) {
                        const auto& t = sets[size_t(i) % sets.size()];
                        ok = cublas->bmm_nk(t[0].data(), t[1].data(), t[2].data(), B, m, n, k, dt, stream) && ok;
                      },
                      stream, opt, *lead);
                  add_baseline(row, ok, us);
                });
    }
  }

  // Grouped matmul over G groups of M rows (an MoE layer's experts, N x K weights each) against G cublasGemmEx
  // calls back to back.
  void bench_group_gemm() {
    const DType dt = opt.dtype;
    const ops::Options o{dispatch::Backend::tile_cuda, stream};
    for (const auto& d : shapes_for("group_gemm", {{8, 512, 4096, 4096}, {64, 64, 1536, 2048}}, {{4, 64, 256, 256}})) {
      const long long G = d[0], m = d[1], n = d[2], k = d[3];
      const double el = double(dtype_size(dt));
      std::vector<int32_t> offset_values;
      for (long long g = 0; g <= G; ++g) offset_values.push_back(int32_t(g * m));
      const Tensor offsets = Tensor::empty({G + 1}, DType::i32, Device::cuda());
      copy_bytes(offsets.data(), offsets.device(), offset_values.data(), Device::cpu(), offset_values.size() * sizeof(int32_t));
      timed_row("group_gemm", "G=" + std::to_string(G) + " M=" + std::to_string(m) + " N=" + std::to_string(n) + " K=" + std::to_string(k),
                2.0 * double(G * m) * double(n) * double(k), double(G) * double(m * k + n * k + m * n) * el,
                [&](auto f) {
                  return std::vector<Tensor>{random_like_first(f, 0, {G * m, k}, dt, 63), random_like_first(f, 1, {G, n, k}, dt, 64),
                                             Tensor::empty({G * m, n}, dt, Device::cuda())};
                },
                [&](const auto& t) { ops::group_gemm(t[0], t[1], offsets, t[2], o); },
                {}, [&](const auto& sets, Row& row) {
                  if (!cublas || !cublas->available()) return;
                  bool ok = true;
                  const size_t el_bytes = dtype_size(dt);
                  const double us = median_us(
                      [&](int i) {
                        const auto& t = sets[size_t(i) % sets.size()];
                        for (long long g = 0; g < G; ++g)
                          ok = cublas->matmul_nk(static_cast<const char*>(t[0].data()) + size_t(g * m * k) * el_bytes,
                                                 static_cast<const char*>(t[1].data()) + size_t(g * n * k) * el_bytes,
                                                 static_cast<char*>(t[2].data()) + size_t(g * m * n) * el_bytes, m, n, k, dt, stream) &&
                               ok;
                      },
                      stream, opt, *lead);
                  add_baseline(row, ok, us);
                });
    }
  }

  // fp8 e4m3 matmul over M x N x K (unit scales), the output in the run's dtype; no baseline.
  void bench_matmul_fp8() {
    const ops::Options o{dispatch::Backend::tile_cuda, stream};
    for (const auto& d : shapes_for("matmul_fp8", {{4096, 4096, 4096}, {2048, 14336, 4096}, {16, 14336, 4096}}, {{256, 256, 256}})) {
      const long long m = d[0], n = d[1], k = d[2];
      timed_row("matmul_fp8", "M=" + std::to_string(m) + " N=" + std::to_string(n) + " K=" + std::to_string(k),
                2.0 * double(m) * double(n) * double(k), double(m * k + n * k) + double(m * n) * double(dtype_size(opt.dtype)),
                [&](auto f) {
                  return std::vector<Tensor>{random_like_first(f, 0, {m, k}, DType::fp8_e4m3, 65),
                                             random_like_first(f, 1, {n, k}, DType::fp8_e4m3, 66),
                                             Tensor::empty({m, n}, opt.dtype, Device::cuda())};
                },
                [&](const auto& t) { ops::matmul_fp8(t[0], t[1], t[2], 1.f, 1.f, o); });
    }
  }

  // fmha_backward over B x H x S x D, full and causal: dq, dk, dv from the forward's o and lse. Flops counted
  // as 10 B H S^2 D (halved when causal), as bench/gpu_bench.py counts them; bytes: q, k, v, o, d_o read and
  // dq, dk, dv written once.
  void bench_fmha_backward() {
    const DType dt = opt.dtype;
    const ops::Options o{dispatch::Backend::tile_cuda, stream};
    for (const auto& d : shapes_for("fmha_backward", {{16, 16, 1024, 128}, {4, 16, 4096, 128}, {8, 16, 2048, 64}}, {{2, 4, 512, 128}})) {
      const long long B = d[0], H = d[1], S = d[2], D = d[3];
      for (bool causal : {false, true}) {
        const ops::AttentionParams params{0.f, causal, -1, 0.f};
        timed_row("fmha_backward",
                  "B=" + std::to_string(B) + " H=" + std::to_string(H) + " S=" + std::to_string(S) + " D=" + std::to_string(D) +
                      (causal ? " causal" : ""),
                  10.0 * double(B * H) * double(S) * double(S) * double(D) / (causal ? 2 : 1),
                  8.0 * double(B * H * S * D) * double(dtype_size(dt)),
                  [&](auto f) {
                    auto empty = [&] { return Tensor::empty({B, H, S, D}, dt, Device::cuda()); };
                    std::vector<Tensor> t{random_like_first(f, 0, {B, H, S, D}, dt, 71), random_like_first(f, 1, {B, H, S, D}, dt, 72),
                                          random_like_first(f, 2, {B, H, S, D}, dt, 73), empty(), random_like_first(f, 4, {B, H, S, D}, dt, 74),
                                          Tensor::empty({B, H, S}, DType::f32, Device::cuda()), empty(), empty(), empty()};
                    ops::fmha(t[0], t[1], t[2], t[3], t[5], params, o);  // o and lse, as the forward pass leaves them
                    return t;
                  },
                  [&](const auto& t) { ops::fmha_backward(t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8], params, o); });
      }
    }
  }

  // MLA decode (DeepSeek-V2/V3 absorbed: latent 512 + rope 64, pages of 64 in a scrambled order) over B x S
  // (x H query heads, 128 unless given: fewer where tensor parallelism shares them out), one new token a
  // sequence. Flops 2 B H S (576 + 512); bytes: the latent cache read once.
  void bench_mla_decode() {
    const DType dt = opt.dtype;
    const ops::Options o{dispatch::Backend::tile_cuda, stream};
    constexpr long long R = 512, P = 64, page = 64;
    for (const auto& d : shapes_for("mla_decode", {{64, 4096}, {128, 8192}, {1, 32768}}, {{2, 1024}})) {
      const long long B = d[0], S = (d[1] + page - 1) / page * page, pages = B * S / page, H = d.size() > 2 ? d[2] : 128;
      std::vector<int32_t> table_values(static_cast<size_t>(pages));
      for (long long i = 0; i < pages; ++i) table_values[size_t(i)] = int32_t((i * 40503) % pages);  // a permutation when pages is a power of two
      if (pages & (pages - 1))
        for (long long i = 0; i < pages; ++i) table_values[size_t(i)] = int32_t(i);
      const Tensor table = Tensor::empty({B, S / page}, DType::i32, Device::cuda());
      copy_bytes(table.data(), table.device(), table_values.data(), Device::cpu(), table_values.size() * sizeof(int32_t));
      const Tensor lens = Tensor::empty({B}, DType::i32, Device::cuda());
      const std::vector<int32_t> len_values(static_cast<size_t>(B), static_cast<int32_t>(S));
      copy_bytes(lens.data(), lens.device(), len_values.data(), Device::cpu(), len_values.size() * sizeof(int32_t));
      timed_row("mla_decode", "B=" + std::to_string(B) + " S=" + std::to_string(S) + " H=" + std::to_string(H) + " latent=512+64",
                2.0 * double(B * H) * double(S) * double(R + P + R), double(B * S * (R + P)) * double(dtype_size(dt)),
                [&](auto f) {
                  return std::vector<Tensor>{random_like_first(f, 0, {B, 1, H, R + P}, dt, 81),
                                             random_like_first(f, 1, {pages, page, R + P}, dt, 82),
                                             Tensor::empty({B, 1, H, R}, dt, Device::cuda())};
                },
                [&](const auto& t) { ops::mla_decode(t[0], t[1], table, lens, t[2], {}, o); });
    }
  }

  // qkv_rope_kv_cache_append for one token (a decode step at batch 1) over K x Hq x Hkv x D: the q/k/v
  // projection of a K-wide row, RoPE, and the append to a paged cache, as the op chooses (the fused kernel), then
  // with its unfused form forced (the matmul, then rope_kv_cache_append). Bytes: the weights. Baseline: cuBLAS's
  // projection alone, without the rotation or the append.
  void bench_qkv_rope_append() {
    const DType dt = opt.dtype;
    const ops::Options o{dispatch::Backend::tile_cuda, stream};
    for (const auto& d : shapes_for("qkv_rope_append", {{4096, 32, 8, 128}, {3584, 28, 4, 128}, {2048, 16, 8, 64}}, {{512, 8, 2, 128}})) {
      const long long K = d[0], Hq = d[1], Hkv = d[2], D = d[3], N = (Hq + 2 * Hkv) * D, page = 16, pages = 64;
      if (Hkv <= 0 || Hq % Hkv != 0)
        invalid_argument("tessera bench qkv_rope_append: Hq " + std::to_string(Hq) + " is not a multiple of Hkv " + std::to_string(Hkv));
      const Tensor positions = Tensor::empty({1}, DType::i32, Device::cuda()), slots = Tensor::empty({1}, DType::i64, Device::cuda());
      const int32_t position = 1000;
      const int64_t slot = 5 * page + 7;
      copy_bytes(positions.data(), positions.device(), &position, Device::cpu(), sizeof(position));
      copy_bytes(slots.data(), slots.device(), &slot, Device::cpu(), sizeof(slot));
      const std::vector<float> freq = ops::rope_inv_freq(D, 500000.0);
      const Tensor inv_freq = Tensor::empty({D / 2}, DType::f32, Device::cuda());
      copy_bytes(inv_freq.data(), inv_freq.device(), freq.data(), Device::cpu(), freq.size() * sizeof(float));
      const ops::KvCache cache{Tensor::empty({pages, page, Hkv, D}, dt, Device::cuda()), Tensor::empty({pages, page, Hkv, D}, dt, Device::cuda()), {}};
      const std::string shape = "K=" + std::to_string(K) + " Hq=" + std::to_string(Hq) + " Hkv=" + std::to_string(Hkv) + " D=" + std::to_string(D);
      auto make = [&](auto f) {
        return std::vector<Tensor>{random_like_first(f, 0, {1, K}, dt, 91), random_like_first(f, 1, {N, K}, dt, 92),
                                   Tensor::empty({1, N}, dt, Device::cuda())};
      };
      auto call = [&](const auto& t) {
        ops::qkv_rope_kv_cache_append(t[0], t[1], {}, t[2], positions, inv_freq, ops::RopeLayout::neox, 0, cache, slots, o);
      };
      auto projection_alone = [&](const Sets& sets, Row& row) {
        if (!cublas || !cublas->available()) return;
        bool ok = true;
        const double us = median_us(
            [&](int i) {
              const auto& t = sets[size_t(i) % sets.size()];
              ok = cublas->matmul_nk(t[0].data(), t[1].data(), t[2].data(), 1, N, K, dt, stream) && ok;
            },
            stream, opt, *lead);
        add_baseline(row, ok, us);
      };
      const double flops = 2.0 * double(N) * double(K), bytes = double(N * K + K + N) * double(dtype_size(dt));
      timed_row("qkv_rope_append", shape, flops, bytes, make, call, "", projection_alone);
      {
        const dispatch::autotune::ClearForcedChoice clear{"qkv_rope_kv_cache_append"};
        dispatch::autotune::force(clear.op, "unfused");
        timed_row("qkv_rope_append", shape + " unfused", flops, bytes, make, call, "the matmul, then rope_kv_cache_append",
                  projection_alone);
      }
    }
  }

  // Decode attention, one new token a sequence, over B x S x Hq x Hkv x D: a contiguous cache of S tokens a
  // sequence. Bytes: the keys and values read (q and o are noise beside them); flops 4 B Hq S D.
  void bench_fmha_decode() {
    const DType dt = opt.dtype;
    const ops::Options o{dispatch::Backend::tile_cuda, stream};
    for (const auto& d : shapes_for("fmha_decode", {{1, 32768, 32, 8, 128}, {8, 8192, 32, 8, 128}, {64, 8192, 32, 8, 128}},
                                    {{2, 4096, 32, 8, 128}})) {
      const long long B = d[0], S = d[1], Hq = d[2], Hkv = d[3], D = d[4];
      if (Hq % Hkv != 0) invalid_argument("tessera bench fmha_decode: Hq " + std::to_string(Hq) + " is not a multiple of Hkv " + std::to_string(Hkv));
      const Tensor lens = Tensor::empty({B}, DType::i32, Device::cuda());
      const std::vector<int32_t> len_values(static_cast<size_t>(B), static_cast<int32_t>(S));
      copy_bytes(lens.data(), lens.device(), len_values.data(), Device::cpu(), len_values.size() * sizeof(int32_t));
      const double kv_bytes = 2.0 * double(B * S * Hkv * D) * double(dtype_size(dt));
      timed_row("fmha_decode",
                "B=" + std::to_string(B) + " S=" + std::to_string(S) + " Hq=" + std::to_string(Hq) + " Hkv=" + std::to_string(Hkv) +
                    " D=" + std::to_string(D),
                4.0 * double(B * Hq) * double(S) * double(D), kv_bytes,
                [&](auto f) {
                  return std::vector<Tensor>{random_like_first(f, 0, {B, 1, Hq, D}, dt, 51), random_like_first(f, 1, {B, S, Hkv, D}, dt, 52),
                                             random_like_first(f, 2, {B, S, Hkv, D}, dt, 53), Tensor::empty({B, 1, Hq, D}, dt, Device::cuda())};
                },
                [&](const auto& t) { ops::fmha_decode(t[0], ops::KvCache{t[1], t[2], {}}, lens, t[3], {}, o); });
    }
  }
};

}  // namespace

Report run_benchmarks(const BenchOptions& opt) {
  const std::vector<std::string> ops = check_options(opt);
  if (!built_with_cuda()) unsupported("tessera bench: this tessera was built without CUDA; benchmarks need a GPU");
  if (!cuda_available()) unsupported("tessera bench: no CUDA GPU is available on this machine; benchmarks need one");
  // A benchmark of a fallback would time the reference: during the run a fallback is an error (timed_row
  // reports the call instead).
  struct FallbackOff {
    bool was = dispatch::fallback_enabled();
    FallbackOff() { dispatch::set_fallback_enabled(false); }
    ~FallbackOff() { dispatch::set_fallback_enabled(was); }
  } fallback_off;
  Runner r{opt, device_info(), {}, nullptr, nullptr, nullptr};
  r.report.device = r.dev.name + " (" + std::to_string(r.dev.sms) + " SMs, " + std::to_string(r.dev.l2 >> 20) + " MB L2)";
  r.report.dtype = std::string(dtype_name(opt.dtype));
  r.report.date = utc_now();
  r.report.batch_us = opt.batch_us;
  Stream stream;
  r.stream = static_cast<cudaStream_t>(stream.handle());
  r.lead = std::make_unique<LeadBuffer>();
  r.cublas = std::make_unique<Cublas>();
  r.say(text_header().substr(0, text_header().size() - 1) + "   (progress; the table follows)");
  if (r.cublas->available()) r.say("baseline: cuBLAS from " + r.cublas->path());
  else {
    r.report.notes.push_back("no baseline: " + r.cublas->why());
    r.say("no baseline: " + r.cublas->why());
  }
  r.measure_copy();
  r.measure_tensor_cores();
  for (const auto& op : ops) {
    if (op == "matmul") r.bench_matmul();
    else if (op == "matmul_fp8") r.bench_matmul_fp8();
    else if (op == "bmm") r.bench_bmm();
    else if (op == "group_gemm") r.bench_group_gemm();
    else if (op == "fmha" || op == "fmha_fp8") r.bench_fmha(op);
    else if (op == "fmha_backward") r.bench_fmha_backward();
    else if (op == "fmha_decode") r.bench_fmha_decode();
    else if (op == "mla_decode") r.bench_mla_decode();
    else if (op == "qkv_rope_append") r.bench_qkv_rope_append();
    else r.bench_rows(op);
  }
  return std::move(r.report);
}

#else

Report run_benchmarks(const BenchOptions& opt) {
  check_options(opt);
  unsupported("tessera bench: this tessera was built without CUDA; benchmarks need a GPU");
}

#endif

}  // namespace tessera::bench

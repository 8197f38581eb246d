// What every example needs around its kernel, and nothing about the kernel itself: memory the kernel can
// read (GPU memory when the example is compiled by nvcc, ordinary memory otherwise), fresh random inputs,
// the max-error check and a timer.
//
// Each example is one source compiled twice: as C++ against the host tile library (it runs on the CPU,
// `example_NN_name`) and by nvcc against the CUDA tile library (`example_NN_name_cuda`). The kernel text is
// the same in both; only this file knows the difference.
#pragma once
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#endif

#include "tessera/runtime/numeric.h"
#include "tessera/tile/common.h"

namespace examples {

#if defined(__CUDACC__)
inline constexpr bool kOnGpu = true;
inline void cuda_ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(2);
  }
}
#else
inline constexpr bool kOnGpu = false;
#endif

inline const char* backend_name() { return kOnGpu ? "tile-cuda (GPU)" : "tile-host (CPU)"; }

// Whether the example can run here: the CUDA build needs a GPU and says "skipped: no GPU" otherwise.
inline bool backend_available() {
#if defined(__CUDACC__)
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("skipped: no GPU\n");
    return false;
  }
#endif
  return true;
}

// n elements the kernel reads and writes: on the GPU when compiled by nvcc, in host memory otherwise.
template <class T>
class Buffer {
 public:
  explicit Buffer(size_t n) : n_(n) {
#if defined(__CUDACC__)
    cuda_ok(cudaMalloc(&data_, std::max<size_t>(n, 1) * sizeof(T)), "cudaMalloc");
#else
    data_ = new T[std::max<size_t>(n, 1)];
#endif
  }
  explicit Buffer(const std::vector<T>& v) : Buffer(v.size()) { upload(v); }
  ~Buffer() {
#if defined(__CUDACC__)
    cudaFree(data_);
#else
    delete[] data_;
#endif
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  T* data() const { return data_; }
  size_t size() const { return n_; }
  void upload(const std::vector<T>& v) {
#if defined(__CUDACC__)
    cuda_ok(cudaMemcpy(data_, v.data(), n_ * sizeof(T), cudaMemcpyHostToDevice), "upload");
#else
    std::copy(v.begin(), v.begin() + n_, data_);
#endif
  }
  std::vector<T> download() const {
    std::vector<T> v(n_);
#if defined(__CUDACC__)
    cuda_ok(cudaMemcpy(v.data(), data_, n_ * sizeof(T), cudaMemcpyDeviceToHost), "download");
#else
    std::copy(data_, data_ + n_, v.begin());
#endif
    return v;
  }
  // Fills every byte with 0xff (NaN for floats), so an element the kernel forgets to write fails the check.
  void poison() {
#if defined(__CUDACC__)
    cuda_ok(cudaMemset(data_, 0xff, n_ * sizeof(T)), "poison");
#else
    std::fill_n(reinterpret_cast<unsigned char*>(data_), n_ * sizeof(T), 0xff);
#endif
  }

 private:
  T* data_ = nullptr;
  size_t n_ = 0;
};

// The random generator of a run: freshly seeded each run; the seed is printed so a failure can be replayed
// with EXAMPLE_SEED=<seed>.
inline std::mt19937& random_generator() {
  static std::mt19937 rng([] {
    const char* s = std::getenv("EXAMPLE_SEED");
    const unsigned v = s ? unsigned(std::strtoul(s, nullptr, 10)) : std::random_device{}();
    std::printf("seed %u\n", v);
    return v;
  }());
  return rng;
}

// n uniform random values in [lo, hi), rounded to T.
template <class T>
std::vector<T> random_values(size_t n, float lo = -1.f, float hi = 1.f) {
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<T> v(n);
  for (auto& x : v) x = tessera::from_float<T>(dist(random_generator()));
  return v;
}

template <class T>
std::vector<float> to_floats(const std::vector<T>& v) {
  std::vector<float> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = tessera::to_float(v[i]);
  return out;
}

// Compares every element against the reference; prints the max error and PASS/FAIL. A NaN (an element never
// written) fails.
inline bool check(const char* what, const std::vector<float>& got, const std::vector<double>& want, double tolerance) {
  double max_err = 0;
  size_t worst = 0;
  bool finite = got.size() == want.size();
  for (size_t i = 0; finite && i < got.size(); ++i) {
    const double err = std::fabs(double(got[i]) - want[i]);
    if (!(err == err)) { finite = false; worst = i; break; }
    if (err > max_err) { max_err = err; worst = i; }
  }
  const bool pass = finite && max_err <= tolerance;
  std::printf("%s: max abs error %.3g (tolerance %.3g) at element %zu: %s\n", what, finite ? max_err : NAN, tolerance,
              worst, pass ? "PASS" : "FAIL");
  return pass;
}

// Median milliseconds of one run(), after warm-up runs: CUDA events on the GPU, the wall clock on the CPU
// (where host launches are synchronous).
template <class F>
double median_ms(F&& run, int iterations = 20, int warmup = 3) {
  for (int i = 0; i < warmup; ++i) run();
  std::vector<double> ms;
#if defined(__CUDACC__)
  cudaEvent_t start, stop;
  cuda_ok(cudaEventCreate(&start), "event");
  cuda_ok(cudaEventCreate(&stop), "event");
  for (int i = 0; i < iterations; ++i) {
    cudaEventRecord(start);
    run();
    cudaEventRecord(stop);
    cuda_ok(cudaEventSynchronize(stop), "kernel");
    float t = 0;
    cudaEventElapsedTime(&t, start, stop);
    ms.push_back(t);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
#else
  for (int i = 0; i < iterations; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    run();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
#endif
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// Waits for the kernels launched so far (a no-op on the host, where launches are synchronous).
inline void synchronize() {
#if defined(__CUDACC__)
  cuda_ok(cudaDeviceSynchronize(), "kernel");
#endif
}

// A row-major rows x cols matrix at data, as the tile language sees global memory.
template <class T>
tessera::tile::View2<T> matrix(T* data, int64_t rows, int64_t cols) {
  return {data, {rows, cols}, {cols, 1}};
}

// Prints a matmul's rate: TFLOP/s on the GPU, GFLOP/s on the CPU.
inline void print_matmul_rate(int64_t m, int64_t n, int64_t k, double ms) {
  const double flops_per_ms = 2.0 * double(m) * double(n) * double(k) / ms;
  if (kOnGpu) std::printf("time %.4f ms, %.2f TFLOP/s\n", ms, flops_per_ms / 1e9);
  else std::printf("time %.4f ms, %.3f GFLOP/s\n", ms, flops_per_ms / 1e6);
}

// Positional integer arguments (sizes), each with its default.
inline int64_t arg(int argc, char** argv, int index, int64_t fallback) {
  return index < argc ? std::strtoll(argv[index], nullptr, 10) : fallback;
}

}  // namespace examples

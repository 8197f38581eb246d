// A shared library with its own static CUDA runtime (as libtessera.so has), for capi_under_torch.py: bare
// launches and allocations from Python, with and without PyTorch in the process.
// Built here: nvcc -O2 -std=c++17 -shared -Xcompiler -fPIC -gencode=arch=compute_90a,code=sm_90a
//             bench/probes/launch_helper.cu -o launch_helper.so
#include <cuda_runtime.h>

#include <chrono>

__global__ void empty_kernel(int) {}

extern "C" {
void* probe_alloc(size_t bytes) { void* p = nullptr; cudaMalloc(&p, bytes); return p; }
void probe_fill(void* p, const void* host, size_t bytes) { cudaMemcpy(p, host, bytes, cudaMemcpyHostToDevice); }
void probe_sync() { cudaDeviceSynchronize(); }
void probe_launch_empty() { empty_kernel<<<1, 128>>>(0); }
void probe_launch_empty_pdl() {
  cudaLaunchConfig_t c{};
  c.gridDim = dim3(1); c.blockDim = dim3(128);
  cudaLaunchAttribute a[1];
  a[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  a[0].val.programmaticStreamSerializationAllowed = 1;
  c.attrs = a; c.numAttrs = 1;
  cudaLaunchKernelEx(&c, empty_kernel, 0);
}
// Mean host time of n calls of f inside C (no Python between calls), in microseconds.
double probe_time_in_c(void (*f)(), int n) {
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) f();
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / n;
}
// The same for tessera_rms_norm's signature (x, weight, y, eps, options), called through a pointer.
double probe_time_rms_norm_in_c(void* fn, const void* x, const void* w, const void* y, float eps, const void* o, int n) {
  auto f = reinterpret_cast<int (*)(const void*, const void*, const void*, float, const void*)>(fn);
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) f(x, w, y, eps, o);
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / n;
}
}

// Host time of one tessera C API call on CUDA tensors, against bare launches of an empty kernel, in a C++
// program with no PyTorch. Usage on the GPU machine: capi_host_time PATH/libtessera.so
// Built here: nvcc -O2 -std=c++17 -gencode=arch=compute_90a,code=sm_90a bench/probes/capi_host_time.cu -ldl
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include "../../include/tessera.h"
#include "launch_helper.cu"  // the empty kernel and its two launches

static double now_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Median host time of fn over n calls, each after a device synchronize (the GPU idle at every call), and the
// mean host time of n calls back to back (launches queue behind each other).
static void report(const char* what, const std::function<void()>& fn, int n = 400) {
  for (int i = 0; i < 20; ++i) fn();
  cudaDeviceSynchronize();
  std::vector<double> t;
  for (int i = 0; i < n; ++i) {
    cudaDeviceSynchronize();
    const double t0 = now_us();
    fn();
    t.push_back(now_us() - t0);
  }
  std::sort(t.begin(), t.end());
  cudaDeviceSynchronize();
  const double b0 = now_us();
  for (int i = 0; i < n; ++i) fn();
  const double back_to_back = (now_us() - b0) / n;
  cudaDeviceSynchronize();
  std::printf("%-44s idle: median %7.1f us  p10 %7.1f  p90 %7.1f | back to back %7.1f us\n", what, t[n / 2],
              t[n / 10], t[n * 9 / 10], back_to_back);
}

template <class F>
static F sym(void* lib, const char* name) {
  void* p = dlsym(lib, name);
  if (!p) { std::fprintf(stderr, "missing %s\n", name); std::exit(2); }
  return reinterpret_cast<F>(p);
}

int main(int argc, char** argv) {
  if (argc < 2) { std::fprintf(stderr, "usage: %s libtessera.so\n", argv[0]); return 2; }
  cudaFree(nullptr);
  std::printf("TESSERA_PDL=%s\n", std::getenv("TESSERA_PDL") ? std::getenv("TESSERA_PDL") : "(unset)");
  report("empty kernel <<<1,128>>>", probe_launch_empty);
  report("empty kernel, cudaLaunchKernelEx + PDL", probe_launch_empty_pdl);
  int dev = 0;
  report("cudaGetDevice", [&] { cudaGetDevice(&dev); });

  const double l0 = now_us();
  void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) { std::fprintf(stderr, "%s\n", dlerror()); return 2; }
  std::printf("dlopen libtessera: %.0f ms\n", (now_us() - l0) / 1e3);
  auto rms_norm = sym<decltype(&tessera_rms_norm)>(lib, "tessera_rms_norm");
  auto matmul = sym<decltype(&tessera_matmul)>(lib, "tessera_matmul");
  auto version = sym<decltype(&tessera_version)>(lib, "tessera_version");
  auto last_error = sym<decltype(&tessera_last_error)>(lib, "tessera_last_error");

  report("tessera_version", [&] { version(); });

  // rms_norm 4 x 4096 bf16 on the GPU; random bits of small bf16 values, never zeros.
  const int64_t rows = 4, cols = 4096;
  std::vector<uint16_t> hx(rows * cols), hw(cols);
  for (auto& v : hx) v = uint16_t(0x3c00 + std::rand() % 0x200);
  for (auto& v : hw) v = uint16_t(0x3f80 + std::rand() % 0x40);
  void *dx, *dw, *dy;
  cudaMalloc(&dx, hx.size() * 2); cudaMalloc(&dw, hw.size() * 2); cudaMalloc(&dy, hx.size() * 2);
  cudaMemcpy(dx, hx.data(), hx.size() * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(dw, hw.data(), hw.size() * 2, cudaMemcpyHostToDevice);
  int64_t xs[2] = {rows, cols}, ws[1] = {cols};
  tessera_tensor tx{dx, TESSERA_BF16, TESSERA_CUDA, 0, 2, xs, nullptr};
  tessera_tensor tw{dw, TESSERA_BF16, TESSERA_CUDA, 0, 1, ws, nullptr};
  tessera_tensor ty{dy, TESSERA_BF16, TESSERA_CUDA, 0, 2, xs, nullptr};
  if (rms_norm(&tx, &tw, &ty, 1e-6f, nullptr) != 0) { std::fprintf(stderr, "%s\n", last_error()); return 1; }
  report("tessera_rms_norm 4x4096 bf16, null stream", [&] { rms_norm(&tx, &tw, &ty, 1e-6f, nullptr); });
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  tessera_options o{TESSERA_BACKEND_DEFAULT, s};
  // With syscall_counter.so preloaded: the libc calls of 200 rms_norm calls.
  if (auto reset = reinterpret_cast<void (*)()>(dlsym(RTLD_DEFAULT, "probe_counters_reset"))) {
    reset();
    for (int i = 0; i < 200; ++i) rms_norm(&tx, &tw, &ty, 1e-6f, nullptr);
    reinterpret_cast<void (*)(const char*, int)>(dlsym(RTLD_DEFAULT, "probe_counters_print"))("C program: rms_norm", 200);
    reinterpret_cast<void (*)()>(dlsym(RTLD_DEFAULT, "probe_sites_print"))();
  }
  report("tessera_rms_norm 4x4096 bf16, own stream", [&] { rms_norm(&tx, &tw, &ty, 1e-6f, &o); cudaStreamSynchronize(s); });

  // matmul 16 x 256 x 256 bf16 (b as [N, K]).
  const int64_t m = 16, n = 256, k = 256;
  void *da, *db, *dc;
  cudaMalloc(&da, m * k * 2); cudaMalloc(&db, n * k * 2); cudaMalloc(&dc, m * n * 2);
  std::vector<uint16_t> ha(m * k), hb(n * k);
  for (auto& v : ha) v = uint16_t(0x3c00 + std::rand() % 0x200);
  for (auto& v : hb) v = uint16_t(0x3c00 + std::rand() % 0x200);
  cudaMemcpy(da, ha.data(), ha.size() * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(db, hb.data(), hb.size() * 2, cudaMemcpyHostToDevice);
  int64_t as[2] = {m, k}, bs[2] = {n, k}, cs[2] = {m, n};
  tessera_tensor ta{da, TESSERA_BF16, TESSERA_CUDA, 0, 2, as, nullptr};
  tessera_tensor tb{db, TESSERA_BF16, TESSERA_CUDA, 0, 2, bs, nullptr};
  tessera_tensor tc{dc, TESSERA_BF16, TESSERA_CUDA, 0, 2, cs, nullptr};
  if (matmul(&ta, &tb, &tc, 0, nullptr, 0, 1.f, nullptr, nullptr) != 0) { std::fprintf(stderr, "%s\n", last_error()); return 1; }
  report("tessera_matmul 16x256x256 bf16", [&] { matmul(&ta, &tb, &tc, 0, nullptr, 0, 1.f, nullptr, nullptr); });

  // fmha (session 38): the staged prefill kernel's host work (tensor maps of q, k, v and o, the tuner's choice,
  // the launch); B 1 x 2 heads x 256 tokens x 128 runs in a few microseconds, so back to back is host bound.
  auto fmha = sym<decltype(&tessera_fmha)>(lib, "tessera_fmha");
  auto matmul_big = [&](int64_t M, int64_t N, int64_t K, const char* what) {
    void *a2, *b2, *c2;
    cudaMalloc(&a2, M * K * 2); cudaMalloc(&b2, N * K * 2); cudaMalloc(&c2, M * N * 2);
    cudaMemset(a2, 0x3c, M * K * 2); cudaMemset(b2, 0x3c, N * K * 2);
    int64_t a_s[2] = {M, K}, b_s[2] = {N, K}, c_s[2] = {M, N};
    tessera_tensor t_a{a2, TESSERA_BF16, TESSERA_CUDA, 0, 2, a_s, nullptr};
    tessera_tensor t_b{b2, TESSERA_BF16, TESSERA_CUDA, 0, 2, b_s, nullptr};
    tessera_tensor t_c{c2, TESSERA_BF16, TESSERA_CUDA, 0, 2, c_s, nullptr};
    if (matmul(&t_a, &t_b, &t_c, 0, nullptr, 0, 1.f, nullptr, nullptr) != 0) { std::fprintf(stderr, "%s\n", last_error()); std::exit(1); }
    report(what, [&] { matmul(&t_a, &t_b, &t_c, 0, nullptr, 0, 1.f, nullptr, nullptr); });
  };
  matmul_big(2048, 2048, 2048, "tessera_matmul 2048^3 bf16 (staged)");
  for (const int64_t S : {256, 1024}) {
    const int64_t B = S == 256 ? 1 : 16, H = S == 256 ? 2 : 16, D = 128;
    void *dq, *dk, *dv, *dout;
    const size_t bytes = size_t(B * H * S * D * 2);
    cudaMalloc(&dq, bytes); cudaMalloc(&dk, bytes); cudaMalloc(&dv, bytes); cudaMalloc(&dout, bytes);
    cudaMemset(dq, 0x3c, bytes); cudaMemset(dk, 0x3c, bytes); cudaMemset(dv, 0x3c, bytes);
    int64_t qs[4] = {B, H, S, D};
    tessera_tensor tq{dq, TESSERA_BF16, TESSERA_CUDA, 0, 4, qs, nullptr};
    tessera_tensor tk{dk, TESSERA_BF16, TESSERA_CUDA, 0, 4, qs, nullptr};
    tessera_tensor tv{dv, TESSERA_BF16, TESSERA_CUDA, 0, 4, qs, nullptr};
    tessera_tensor to{dout, TESSERA_BF16, TESSERA_CUDA, 0, 4, qs, nullptr};
    for (const int causal : {0, 1}) {
      if (fmha(&tq, &tk, &tv, &to, nullptr, 0.f, causal, -1, 0.f, nullptr) != 0) { std::fprintf(stderr, "%s\n", last_error()); return 1; }
      char what[96];
      std::snprintf(what, sizeof what, "tessera_fmha %lldx%lldx%lldx%lld bf16%s", (long long)B, (long long)H, (long long)S,
                    (long long)D, causal ? " causal" : "");
      report(what, [&] { fmha(&tq, &tk, &tv, &to, nullptr, 0.f, causal, -1, 0.f, nullptr); });
    }
  }

  // The same rms_norm on CPU tensors (tile-host).
  std::vector<float> fx(rows * cols, 0.5f), fw(cols, 1.25f), fy(rows * cols);
  tessera_tensor cx{fx.data(), TESSERA_F32, TESSERA_CPU, 0, 2, xs, nullptr};
  tessera_tensor cw{fw.data(), TESSERA_F32, TESSERA_CPU, 0, 1, ws, nullptr};
  tessera_tensor cy{fy.data(), TESSERA_F32, TESSERA_CPU, 0, 2, xs, nullptr};
  report("tessera_rms_norm 4x4096 f32 on the CPU", [&] { rms_norm(&cx, &cw, &cy, 1e-6f, nullptr); });
  return 0;
}

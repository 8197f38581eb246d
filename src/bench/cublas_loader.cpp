#include "bench/cublas_loader.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <vector>

namespace tessera::bench {

namespace {
// cuBLAS's C ABI, declared by hand (cublas_api.h, library_types.h of CUDA 13). Enums are ints.
using cublasHandle = void*;
using CreateFn = int (*)(cublasHandle*);                 // cublasCreate_v2
using DestroyFn = int (*)(cublasHandle);                 // cublasDestroy_v2
using SetStreamFn = int (*)(cublasHandle, void*);        // cublasSetStream_v2
using GemmExFn = int (*)(cublasHandle, int transa, int transb, int m, int n, int k, const void* alpha,
                         const void* a, int a_type, int lda, const void* b, int b_type, int ldb, const void* beta,
                         void* c, int c_type, int ldc, int compute_type, int algo);  // cublasGemmEx
using GemmStridedBatchedExFn = int (*)(cublasHandle, int transa, int transb, int m, int n, int k, const void* alpha,
                                       const void* a, int a_type, int lda, long long stride_a, const void* b, int b_type,
                                       int ldb, long long stride_b, const void* beta, void* c, int c_type, int ldc,
                                       long long stride_c, int batch, int compute_type, int algo);  // cublasGemmStridedBatchedEx
constexpr int kOpN = 0, kOpT = 1;                             // cublasOperation_t
constexpr int kR16F = 2, kR16BF = 14;                         // cudaDataType
constexpr int kCompute32F = 68;                               // cublasComputeType_t CUBLAS_COMPUTE_32F
constexpr int kGemmDefault = -1;                              // cublasGemmAlgo_t CUBLAS_GEMM_DEFAULT

std::vector<std::string> candidate_paths() {
  std::vector<std::string> paths = {"libcublas.so.13"};
  const char* dirs[] = {"/usr/local/cuda/lib64", "/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cu13/lib",
                        "/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cublas/lib"};
  for (const char* d : dirs) paths.push_back(std::string(d) + "/libcublas.so.13");
  if (const char* env = std::getenv("TESSERA_CUBLAS_PATH"); env && *env) {
    if (std::filesystem::is_directory(env)) paths.push_back(std::string(env) + "/libcublas.so.13");
    else paths.push_back(env);
  }
  return paths;
}
}  // namespace

Cublas::Cublas() {
  std::string tried;
  for (const auto& p : candidate_paths()) {
    // libcublas needs libcublasLt from its own directory: preload it so the dependency resolves by soname
    // even when that directory is not on the loader's path.
    const auto slash = p.rfind('/');
    if (slash != std::string::npos) dlopen((p.substr(0, slash) + "/libcublasLt.so.13").c_str(), RTLD_NOW | RTLD_GLOBAL);
    lib_ = dlopen(p.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib_) { path_ = p; break; }
    const char* err = dlerror();
    tried += "\n  " + p + (err ? std::string(": ") + err : std::string());
  }
  if (!lib_) {
    why_ = "cuBLAS (libcublas.so.13) not found; tried:" + tried + "\n  (set TESSERA_CUBLAS_PATH to its file or directory)";
    return;
  }
  create_ = dlsym(lib_, "cublasCreate_v2");
  destroy_ = dlsym(lib_, "cublasDestroy_v2");
  set_stream_ = dlsym(lib_, "cublasSetStream_v2");
  gemm_ex_ = dlsym(lib_, "cublasGemmEx");
  gemm_strided_batched_ex_ = dlsym(lib_, "cublasGemmStridedBatchedEx");
  if (!create_ || !destroy_ || !set_stream_ || !gemm_ex_) {
    why_ = path_ + " lacks one of cublasCreate_v2, cublasDestroy_v2, cublasSetStream_v2, cublasGemmEx";
    return;
  }
  cublasHandle h = nullptr;
  if (const int status = reinterpret_cast<CreateFn>(create_)(&h); status != 0 || !h) {
    why_ = "cublasCreate failed with status " + std::to_string(status);
    return;
  }
  handle_ = h;
}

Cublas::~Cublas() {
  if (handle_) reinterpret_cast<DestroyFn>(destroy_)(handle_);
  // The library stays loaded: unloading cuBLAS while the CUDA runtime is alive is not worth the risk.
}

int Cublas::prepare(const char* entry, void* fn, DType dtype, long long largest, StreamHandle stream) {
  if (!handle_) return -1;
  if (!fn) {
    why_ = path_ + " lacks " + entry;
    return -1;
  }
  if (dtype != DType::bf16 && dtype != DType::f16) {
    why_ = "the cuBLAS baseline covers f16 and bf16 only";
    return -1;
  }
  if (largest > 0x7fffffff) {
    why_ = std::string("shape too large for ") + entry;
    return -1;
  }
  if (const int s = reinterpret_cast<SetStreamFn>(set_stream_)(handle_, stream); s != 0) {
    why_ = "cublasSetStream failed with status " + std::to_string(s);
    return -1;
  }
  return dtype == DType::bf16 ? kR16BF : kR16F;
}

bool Cublas::matmul_nk(const void* x, const void* w, void* y, long long m, long long n, long long k, DType dtype,
                       StreamHandle stream) {
  const int type = prepare("cublasGemmEx", gemm_ex_, dtype, std::max({m, n, k}), stream);
  if (type < 0) return false;
  // Row-major y[M,N] is column-major y^T [N,M] = w (read as the column-major [K,N] matrix, transposed)
  // times x^T (x read as the column-major [K,M] matrix, as is).
  const float alpha = 1.f, beta = 0.f;
  const int s = reinterpret_cast<GemmExFn>(gemm_ex_)(handle_, kOpT, kOpN, int(n), int(m), int(k), &alpha, w, type,
                                                     int(k), x, type, int(k), &beta, y, type, int(n), kCompute32F,
                                                     kGemmDefault);
  if (s != 0) {
    why_ = "cublasGemmEx failed with status " + std::to_string(s);
    return false;
  }
  return true;
}

bool Cublas::bmm_nk(const void* x, const void* w, void* y, long long batch, long long m, long long n, long long k,
                    DType dtype, StreamHandle stream) {
  const int type = prepare("cublasGemmStridedBatchedEx", gemm_strided_batched_ex_, dtype, std::max({batch, m, n, k}), stream);
  if (type < 0) return false;
  // Each problem as in matmul_nk, the matrices batch strides apart.
  const float alpha = 1.f, beta = 0.f;
  const int s = reinterpret_cast<GemmStridedBatchedExFn>(gemm_strided_batched_ex_)(
      handle_, kOpT, kOpN, int(n), int(m), int(k), &alpha, w, type, int(k), n * k, x, type, int(k), m * k, &beta, y, type,
      int(n), m * n, int(batch), kCompute32F, kGemmDefault);
  if (s != 0) {
    why_ = "cublasGemmStridedBatchedEx failed with status " + std::to_string(s);
    return false;
  }
  return true;
}

}  // namespace tessera::bench

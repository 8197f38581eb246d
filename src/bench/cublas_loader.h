// cuBLAS loaded at run time (dlopen), for the baseline and the tensor-core ceiling of `tessera bench`.
// There is no static cuBLAS to link against, and the GPU machine has it as a shared library in one of several
// places (the CUDA toolkit, or PyTorch's pip packages), so it is looked for, in order:
//   libcublas.so.13 by name (the loader's search path), then the directories
//   /usr/local/cuda/lib64, /opt/torch/.venv/lib/python3.12/site-packages/nvidia/cu13/lib and
//   .../nvidia/cublas/lib, then $TESSERA_CUBLAS_PATH (a file, or a directory holding libcublas.so.13).
// Only the five functions used are declared here, with cuBLAS's documented C signatures and enum values.
#pragma once
#include <string>

#include "tessera/runtime/device.h"
#include "tessera/runtime/dtype.h"

namespace tessera::bench {

class Cublas {
 public:
  // Loads the library and creates a handle; available() says whether that worked, why() why not.
  Cublas();
  ~Cublas();
  Cublas(const Cublas&) = delete;
  Cublas& operator=(const Cublas&) = delete;
  bool available() const { return handle_ != nullptr; }
  const std::string& why() const { return why_; }
  const std::string& path() const { return path_; }

  // y[M, N] = x[M, K] @ w[N, K]^T, row-major, 16-bit in and out (dtype f16 or bf16), fp32 accumulation, on
  // `stream`. Returns false (and sets why()) when cuBLAS refuses.
  bool matmul_nk(const void* x, const void* w, void* y, long long m, long long n, long long k, DType dtype,
                 StreamHandle stream);
  // The same for `batch` contiguous problems (x [batch, M, K], w [batch, N, K], y [batch, M, N]) in one
  // cublasGemmStridedBatchedEx call.
  bool bmm_nk(const void* x, const void* w, void* y, long long batch, long long m, long long n, long long k, DType dtype,
              StreamHandle stream);

 private:
  // Checks a call (the handle, entry point `fn`, dtype, 32-bit sizes) and sets the stream: cuBLAS's data type
  // for `dtype`, or -1 with why() set.
  int prepare(const char* entry, void* fn, DType dtype, long long largest, StreamHandle stream);

  void* lib_ = nullptr;
  void* handle_ = nullptr;
  std::string why_, path_;
  // Resolved entry points (signatures in cublas_loader.cpp).
  void* create_ = nullptr;
  void* destroy_ = nullptr;
  void* set_stream_ = nullptr;
  void* gemm_ex_ = nullptr;
  void* gemm_strided_batched_ex_ = nullptr;  // optional: bmm_nk says why not when absent
};

}  // namespace tessera::bench

// Checked CUDA runtime calls: a failure becomes a tessera::Error naming the call, file and line.
#pragma once
#include <cuda_runtime.h>

#include <string>

#include "tessera/runtime/error.h"

#define TESSERA_CUDA_CHECK(expr)                                                                     \
  do {                                                                                                \
    const cudaError_t tessera_status_ = (expr);                                                       \
    if (tessera_status_ != cudaSuccess)                                                               \
      ::tessera::fail(::tessera::Status::cuda_error, std::string(#expr) + " failed at " + __FILE__ + \
                                                         ":" + std::to_string(__LINE__) + ": " +      \
                                                         cudaGetErrorString(tessera_status_));         \
  } while (0)

// After a kernel launch: reports launch-configuration errors at once.
#define TESSERA_CUDA_CHECK_LAUNCH() TESSERA_CUDA_CHECK(cudaGetLastError())

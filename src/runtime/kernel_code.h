// The architecture the library's kernels were compiled for, as CUDA device `device` loads them (internal).
#pragma once

namespace tessera::detail {
// The virtual architecture (compute capability x 10: 80, 90) of the code this library runs on `device`: 90 where
// its sm_90a code runs (Hopper), 80 where its sm_80 code runs (Ampere, Ada, or any later GPU given a build with
// sm_80 PTX only); 0 where none of its code runs on the device. Only with CUDA.
int cuda_kernel_code_arch(int device);
}  // namespace tessera::detail

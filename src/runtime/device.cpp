#include "tessera/runtime/device.h"
#include "tessera/runtime/host_buffer.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>

#include "tessera/runtime/error.h"

#if TESSERA_WITH_CUDA
#include <cuda_runtime.h>
#include "tessera/runtime/cuda_check.h"
#include "runtime/kernel_code.h"
#endif

namespace tessera {

std::string Device::str() const { return is_cpu() ? "cpu" : "cuda:" + std::to_string(index); }

bool built_with_cuda() { return TESSERA_WITH_CUDA; }

int cuda_device_count() {
#if TESSERA_WITH_CUDA
  static const int count = [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) { cudaGetLastError(); return 0; }
    return n;
  }();
  return count;
#else
  return 0;
#endif
}

bool cuda_available() { return cuda_device_count() > 0; }

static void require_cuda(const char* what) {
  if (!built_with_cuda()) unsupported(std::string(what) + ": tessera was built without CUDA");
  if (!cuda_available()) unsupported(std::string(what) + ": no CUDA device is available");
}

std::string cuda_device_name(int index) {
#if TESSERA_WITH_CUDA
  require_cuda("cuda_device_name");
  cudaDeviceProp prop{};
  TESSERA_CUDA_CHECK(cudaGetDeviceProperties(&prop, index));
  return prop.name;
#else
  (void)index;
  return "none";
#endif
}

#if TESSERA_WITH_CUDA
// detail::cuda_kernel_code_arch, asked once per device.
static int kernel_code_arch(int index) {
  static std::atomic<int> known[64] = {};
  std::atomic<int>* slot = index >= 0 && index < 64 ? &known[index] : nullptr;
  if (slot != nullptr && slot->load(std::memory_order_relaxed) != 0) return slot->load(std::memory_order_relaxed);
  const int arch = detail::cuda_kernel_code_arch(index);
  if (slot != nullptr) slot->store(arch, std::memory_order_relaxed);
  return arch;
}
#endif

bool cuda_hopper_kernels([[maybe_unused]] int index) {
#if TESSERA_WITH_CUDA
  static const bool allowed = [] {
    const char* v = std::getenv("TESSERA_HOPPER");
    return v == nullptr || std::string(v) != "0";
  }();
  if (!allowed || !cuda_available()) return false;
  int major = 0, minor = 0;
  TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, index));
  TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, index));
  // A build without sm_90a code (sm_80 PTX compiled at load) runs the sm_80 form of every kernel.
  return major == 9 && minor == 0 && kernel_code_arch(index) >= 90;
#else
  return false;
#endif
}

bool cuda_sm80_pipelines([[maybe_unused]] int index) {
#if TESSERA_WITH_CUDA
  if (!cuda_available()) return false;
  int major = 0;
  TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, index));
  if (major < 8) return false;
  const int code = kernel_code_arch(index);
  return code >= 80 && code < 90;
#else
  return false;
#endif
}

void* device_alloc(size_t bytes, Device device) {
  if (device.is_cpu()) {
    // 64-byte alignment keeps every vector width the kernels use aligned.
    void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!p) throw std::bad_alloc();
    return p;
  }
  require_cuda("device_alloc");
#if TESSERA_WITH_CUDA
  void* p = nullptr;
  TESSERA_CUDA_CHECK(cudaSetDevice(device.index));
  TESSERA_CUDA_CHECK(cudaMalloc(&p, bytes));
  return p;
#else
  return nullptr;
#endif
}

void* device_alloc_beside_capture(size_t bytes, Device device, bool zeroed) {
  require_cuda("device_alloc_beside_capture");
#if TESSERA_WITH_CUDA
  // cudaMalloc is not recorded by a capture, and the capture's mode may forbid it: relaxed for this thread
  // while it runs. The zeros go on a stream of their own that no capture involves, waited for at once.
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  TESSERA_CUDA_CHECK(cudaThreadExchangeStreamCaptureMode(&mode));
  struct Restore {
    cudaStreamCaptureMode mode;
    ~Restore() { cudaThreadExchangeStreamCaptureMode(&mode); }
  } restore{mode};
  void* p = nullptr;
  TESSERA_CUDA_CHECK(cudaSetDevice(device.index));
  TESSERA_CUDA_CHECK(cudaMalloc(&p, bytes));
  if (zeroed) {
    cudaStream_t side{};
    TESSERA_CUDA_CHECK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
    const cudaError_t set = cudaMemsetAsync(p, 0, bytes, side);
    const cudaError_t done = set == cudaSuccess ? cudaStreamSynchronize(side) : set;
    cudaStreamDestroy(side);
    if (done != cudaSuccess) cudaFree(p);
    TESSERA_CUDA_CHECK(done);
  }
  return p;
#else
  (void)bytes, (void)device, (void)zeroed;
  return nullptr;
#endif
}

void device_free(void* ptr, Device device) {
  if (!ptr) return;
  if (device.is_cpu()) { std::free(ptr); return; }
#if TESSERA_WITH_CUDA
  cudaFree(ptr);  // never throws from a destructor path
#endif
}

void* alloc_host_memory(size_t bytes, Device device) {
  if (device.is_cuda()) {
    require_cuda("alloc_host_memory");
#if TESSERA_WITH_CUDA
    void* p = nullptr;
    TESSERA_CUDA_CHECK(cudaSetDevice(device.index));
    TESSERA_CUDA_CHECK(cudaMallocHost(&p, bytes > 0 ? bytes : 1));
    return p;
#endif
  }
  return device_alloc(bytes, Device::cpu());
}

void free_host_memory(void* ptr, [[maybe_unused]] Device device) {
  if (!ptr) return;
#if TESSERA_WITH_CUDA
  if (device.is_cuda()) {
    cudaFreeHost(ptr);  // never throws from a destructor path
    return;
  }
#endif
  device_free(ptr, Device::cpu());
}

void copy_bytes(void* dst, Device dst_device, const void* src, Device src_device, size_t bytes) {
  if (bytes == 0) return;
  if (dst_device.is_cpu() && src_device.is_cpu()) { std::memmove(dst, src, bytes); return; }
  require_cuda("copy_bytes");
#if TESSERA_WITH_CUDA
  TESSERA_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault));
#endif
}

void copy_bytes_async(void* dst, Device dst_device, const void* src, Device src_device, size_t bytes,
                      [[maybe_unused]] StreamHandle stream) {
  if (bytes == 0) return;
  if (dst_device.is_cpu() && src_device.is_cpu()) { std::memmove(dst, src, bytes); return; }
  require_cuda("copy_bytes_async");
#if TESSERA_WITH_CUDA
  TESSERA_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, static_cast<cudaStream_t>(stream)));
#endif
}

void copy_bytes_after(void* dst, Device dst_device, const void* src, Device src_device, size_t bytes,
                      [[maybe_unused]] StreamHandle stream) {
  copy_bytes_async(dst, dst_device, src, src_device, bytes, stream);
  if (bytes == 0 || (dst_device.is_cpu() && src_device.is_cpu())) return;
#if TESSERA_WITH_CUDA
  TESSERA_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)));
#endif
}

bool stream_is_capturing([[maybe_unused]] StreamHandle stream) {
#if TESSERA_WITH_CUDA
  if (!cuda_available()) return false;
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(static_cast<cudaStream_t>(stream), &status) != cudaSuccess) {
    cudaGetLastError();
    return true;
  }
  return status != cudaStreamCaptureStatusNone;
#else
  return false;
#endif
}

void synchronize(Device device) {
  if (device.is_cpu()) return;
#if TESSERA_WITH_CUDA
  TESSERA_CUDA_CHECK(cudaDeviceSynchronize());
#endif
}

Stream::Stream(Device device) {
  require_cuda("Stream");
#if TESSERA_WITH_CUDA
  TESSERA_CUDA_CHECK(cudaSetDevice(device.index));
  cudaStream_t s{};
  TESSERA_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  handle_ = s;
#else
  (void)device;
#endif
}

Stream::~Stream() {
#if TESSERA_WITH_CUDA
  if (handle_) cudaStreamDestroy(static_cast<cudaStream_t>(handle_));
#endif
}

void Stream::synchronize() const {
#if TESSERA_WITH_CUDA
  TESSERA_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(handle_)));
#endif
}

}  // namespace tessera

// Where memory lives, CUDA streams and device memory. The CUDA calls are compiled only when the library is
// built with CUDA; without it every CUDA request is a clear `unsupported` error.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace tessera {

// Values are part of the C ABI (include/tessera.h): append only.
enum class DeviceKind : int32_t { cpu = 0, cuda = 1 };

struct Device {
  DeviceKind kind = DeviceKind::cpu;
  int index = 0;
  static Device cpu() { return {}; }
  static Device cuda(int index = 0) { return {DeviceKind::cuda, index}; }
  bool is_cpu() const { return kind == DeviceKind::cpu; }
  bool is_cuda() const { return kind == DeviceKind::cuda; }
  bool operator==(const Device&) const = default;
  std::string str() const;
};

// An opaque CUDA stream handle (cudaStream_t); nullptr is the legacy default stream.
using StreamHandle = void*;

bool built_with_cuda();
int cuda_device_count();  // 0 when built without CUDA or when no GPU is present
bool cuda_available();
std::string cuda_device_name(int index = 0);
// Whether tessera runs its Hopper kernels (TMA, wgmma) on CUDA device `index`: an sm_90 device, unless the
// environment sets TESSERA_HOPPER=0, which makes it dispatch as on a GPU before Hopper (the generic kernels that
// sm_80 and sm_89 run), so that those paths can be tested and timed on a Hopper GPU.
bool cuda_hopper_kernels(int index = 0);
// Whether CUDA device `index` runs the staged kernels' sm_80 form (cp.async stages filled by producer warps,
// mma.sync consumers): a GPU from sm_80 on whose code from this build is the sm_80 code (Ampere, Ada; a Hopper
// GPU given a build with sm_80 PTX only). Not under TESSERA_HOPPER=0 on a Hopper GPU: its sm_90a code is the
// Hopper form.
bool cuda_sm80_pipelines(int index = 0);

void* device_alloc(size_t bytes, Device device);
// CUDA memory allocated (and zero-filled when asked) now, while a stream of `device` is being captured into a
// CUDA graph: the allocation is made outside the capture (the thread's capture mode relaxed for the call, as
// CUDA allows) and is not part of the graph, so it stays valid for every replay until it is freed.
void* device_alloc_beside_capture(size_t bytes, Device device, bool zeroed);
void device_free(void* ptr, Device device);
// Copies between any two devices; synchronous with respect to the host.
void copy_bytes(void* dst, Device dst_device, const void* src, Device src_device, size_t bytes);
// The same, ordered after the work already queued on `stream` (a CUDA stream of the device involved; ignored
// between CPU buffers); returns when the copy is done. Waits for that stream only, not the whole device.
void copy_bytes_after(void* dst, Device dst_device, const void* src, Device src_device, size_t bytes,
                      StreamHandle stream);
// The same, queued on `stream` without waiting: the host returns at once. A host buffer on either side must be
// page-locked (alloc_host_memory) and must not change until the stream has passed the copy.
void copy_bytes_async(void* dst, Device dst_device, const void* src, Device src_device, size_t bytes,
                      StreamHandle stream);
void synchronize(Device device);
// Whether `stream` is being captured into a CUDA graph (then nothing may wait for it or time it); true when
// CUDA cannot tell, false without CUDA.
bool stream_is_capturing(StreamHandle stream);

// Owns a CUDA stream for its lifetime.
class Stream {
 public:
  explicit Stream(Device device = Device::cuda());
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  StreamHandle handle() const { return handle_; }
  void synchronize() const;
 private:
  StreamHandle handle_ = nullptr;
};

}  // namespace tessera

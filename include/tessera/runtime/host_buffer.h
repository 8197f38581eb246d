// A host array that the device copies into: page-locked when made for a CUDA device, so a device-to-host
// copy runs at the link's speed without a staging copy (a decode step's logits, [batch, vocab] f32, are 16 MB
// at batch 32). Plain host memory otherwise: a CPU run never creates a CUDA context for it.
#pragma once
#include <cstddef>
#include <memory>

#include "tessera/runtime/device.h"

namespace tessera {

// Page-locked host memory for copies with `device`'s memory (plain memory for the CPU); free with
// free_host_memory and the same device.
void* alloc_host_memory(size_t bytes, Device device);
void free_host_memory(void* ptr, Device device);

template <class T>
class HostBuffer {
 public:
  HostBuffer() = default;
  // n value-initialised elements, for copies with `device`.
  HostBuffer(size_t n, Device device)
      : data_(static_cast<T*>(alloc_host_memory(n * sizeof(T), device)), Free{device}), size_(n) {
    for (size_t i = 0; i < n; ++i) data_[i] = T();
  }
  T* data() { return data_.get(); }
  const T* data() const { return data_.get(); }
  size_t size() const { return size_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }

 private:
  struct Free {
    Device device;
    void operator()(T* p) const { free_host_memory(p, device); }
  };
  std::unique_ptr<T[], Free> data_{nullptr, Free{}};
  size_t size_ = 0;
};

}  // namespace tessera

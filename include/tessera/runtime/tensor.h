// A tensor: dtype, shape, strides (in elements), device, and memory it owns or borrows.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "tessera/runtime/device.h"
#include "tessera/runtime/dtype.h"
#include "tessera/runtime/error.h"

namespace tessera {

using Shape = std::vector<int64_t>;

std::string shape_str(const Shape& shape);
Shape contiguous_strides(const Shape& shape);

class Tensor {
 public:
  Tensor() = default;
  // Allocates uninitialised, contiguous memory.
  static Tensor empty(const Shape& shape, DType dtype, Device device = Device::cpu());
  // Borrows memory someone else owns; strides default to contiguous.
  static Tensor view(void* data, const Shape& shape, DType dtype, Device device = Device::cpu(), Shape strides = {});

  bool defined() const { return data_ != nullptr || numel() == 0; }
  void* data() const { return data_; }
  template <class T> T* data_as() const { return static_cast<T*>(data_); }
  DType dtype() const { return dtype_; }
  Device device() const { return device_; }
  const Shape& shape() const { return shape_; }
  const Shape& strides() const { return strides_; }
  int ndim() const { return int(shape_.size()); }
  int64_t size(int dim) const;    // negative dims count from the end
  int64_t stride(int dim) const;
  int64_t numel() const;
  size_t nbytes() const { return size_t(numel()) * dtype_size(dtype_); }
  bool is_contiguous() const;
  // True when the last dim is unit-stride and the others are any stride (rows of a matrix, say).
  bool rows_contiguous() const;

  // A copy on another device (always contiguous).
  Tensor to(Device device) const;
  // Copies `src`'s elements into this tensor (same dtype and shape; any devices; both contiguous).
  void copy_from(const Tensor& src);
  // View with a new shape over the same contiguous memory.
  Tensor reshape(const Shape& shape) const;
  // "bf16[4, 128] on cuda:0"
  std::string str() const;

 private:
  std::shared_ptr<void> storage_;
  void* data_ = nullptr;
  DType dtype_ = DType::f32;
  Shape shape_;
  Shape strides_;
  Device device_;
};

}  // namespace tessera

#include "tessera/runtime/tensor.h"

#include <string>

namespace tessera {

std::string shape_str(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

Shape contiguous_strides(const Shape& shape) {
  Shape strides(shape.size());
  int64_t running = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = running;
    running *= shape[i];
  }
  return strides;
}

static void check_shape(const Shape& shape) {
  for (int64_t d : shape) check(d >= 0, [&] { return "tensor: negative dimension in shape " + shape_str(shape); });
}

Tensor Tensor::empty(const Shape& shape, DType dtype, Device device) {
  check_shape(shape);
  check(is_valid_dtype(int32_t(dtype)), "tensor: invalid dtype");
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = shape;
  t.strides_ = contiguous_strides(shape);
  t.device_ = device;
  const size_t bytes = t.nbytes();
  void* p = device_alloc(bytes ? bytes : 1, device);
  t.storage_ = std::shared_ptr<void>(p, [device](void* q) { device_free(q, device); });
  t.data_ = p;
  return t;
}

Tensor Tensor::view(void* data, const Shape& shape, DType dtype, Device device, Shape strides) {
  check_shape(shape);
  check(is_valid_dtype(int32_t(dtype)), "tensor: invalid dtype");
  check(strides.empty() || strides.size() == shape.size(),
        [&] { return "tensor: " + std::to_string(strides.size()) + " strides for shape " + shape_str(shape); });
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = shape;
  t.strides_ = strides.empty() ? contiguous_strides(shape) : std::move(strides);
  t.device_ = device;
  t.data_ = data;
  check(data != nullptr || t.numel() == 0, [&] { return "tensor: null data pointer for " + t.str(); });
  return t;
}

int64_t Tensor::size(int dim) const {
  const int d = dim < 0 ? dim + ndim() : dim;
  // The message is built only on failure: size() and stride() sit in per-element loops.
  if (d < 0 || d >= ndim())
    check(false, [&] { return "tensor: dim " + std::to_string(dim) + " out of range for " + str(); });
  return shape_[d];
}

int64_t Tensor::stride(int dim) const {
  const int d = dim < 0 ? dim + ndim() : dim;
  // The message is built only on failure: size() and stride() sit in per-element loops.
  if (d < 0 || d >= ndim())
    check(false, [&] { return "tensor: dim " + std::to_string(dim) + " out of range for " + str(); });
  return strides_[d];
}

int64_t Tensor::numel() const {
  int64_t n = 1;
  for (int64_t d : shape_) n *= d;
  return n;
}

bool Tensor::is_contiguous() const {
  int64_t running = 1;
  for (size_t i = shape_.size(); i-- > 0;) {
    if (shape_[i] != 1 && strides_[i] != running) return false;
    running *= shape_[i];
  }
  return true;
}

bool Tensor::rows_contiguous() const { return ndim() == 0 || shape_.back() <= 1 || strides_.back() == 1; }

Tensor Tensor::to(Device device) const {
  check(is_contiguous(), [&] { return "tensor.to: " + str() + " is not contiguous"; });
  Tensor out = empty(shape_, dtype_, device);
  copy_bytes(out.data_, device, data_, device_, nbytes());
  return out;
}

void Tensor::copy_from(const Tensor& src) {
  check(src.dtype_ == dtype_ && src.shape_ == shape_,
        [&] { return "tensor.copy_from: " + src.str() + " into " + str(); });
  check(src.is_contiguous() && is_contiguous(), "tensor.copy_from: both tensors must be contiguous");
  copy_bytes(data_, device_, src.data_, src.device_, nbytes());
}

Tensor Tensor::reshape(const Shape& shape) const {
  check_shape(shape);
  Tensor t = *this;
  t.shape_ = shape;
  t.strides_ = contiguous_strides(shape);
  check(is_contiguous() && t.numel() == numel(),
        [&] { return "tensor.reshape: " + str() + " to " + shape_str(shape); });
  return t;
}

std::string Tensor::str() const {
  return std::string(dtype_name(dtype_)) + shape_str(shape_) + " on " + device_.str();
}

}  // namespace tessera

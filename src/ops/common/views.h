// Tensors as tile-language views, and the checks every op front-end makes before anything is written.
#pragma once
#include <string>
#include <type_traits>
#include <vector>

#include "tessera/dispatch/dispatch.h"
#include "tessera/runtime/tensor.h"
#include "tessera/tile/common.h"

namespace tessera::ops {

// A tensor seen as a matrix: every dim but the last folds into rows. The leading dims must fold (each
// stride equals the next dim's stride times its size), the last dim may have any stride.
template <class T>
tile::View2<T> as_rows(const Tensor& t) {
  tile::View2<T> v;
  v.data = static_cast<T*>(t.data());
  if (t.ndim() == 0) { v.extent[0] = v.extent[1] = 1; v.stride[0] = v.stride[1] = 1; return v; }
  v.extent[1] = t.size(-1);
  v.stride[1] = t.stride(-1);
  int64_t rows = 1;
  for (int d = 0; d + 1 < t.ndim(); ++d) rows *= t.size(d);
  v.extent[0] = rows;
  v.stride[0] = t.ndim() >= 2 ? t.stride(-2) : v.extent[1] * v.stride[1];
  for (int d = t.ndim() - 2; d > 0; --d)
    check(t.size(d - 1) == 1 || t.stride(d - 1) == t.stride(d) * t.size(d),
          [&] { return "tensor " + t.str() + " has leading dims that do not fold into rows"; });
  return v;
}

// A rank-N view with the tensor's own shape and strides.
template <class T, int N>
tile::View<T, N> as_view(const Tensor& t) {
  check(t.ndim() == N, [&] { return "expected a rank-" + std::to_string(N) + " tensor, got " + t.str(); });
  tile::View<T, N> v;
  v.data = static_cast<T*>(t.data());
  for (int d = 0; d < N; ++d) { v.extent[d] = t.size(d); v.stride[d] = t.stride(d); }
  return v;
}

// A rank-N view of t with its dims in the order `order` (view dim d is tensor dim order[d]).
template <class T, int N>
tile::View<T, N> permuted(const Tensor& t, const int (&order)[N]) {
  tile::View<T, N> v;
  v.data = static_cast<T*>(t.data());
  for (int d = 0; d < N; ++d) {
    v.extent[d] = t.size(order[d]);
    v.stride[d] = t.stride(order[d]);
  }
  return v;
}

// A view of t with a trailing unit dim (so a vector of row statistics is a one-column matrix).
template <class T, int N>
tile::View<T, N> with_unit_column(const Tensor& t, const int (&order)[N - 1]) {
  tile::View<T, N> v;
  v.data = static_cast<T*>(t.data());
  for (int d = 0; d + 1 < N; ++d) {
    v.extent[d] = t.size(order[d]);
    v.stride[d] = t.stride(order[d]);
  }
  v.extent[N - 1] = 1;
  v.stride[N - 1] = 1;
  return v;
}

// Validation shared by op front-ends. Each names the op and the tensor at fault.
struct Checker {
  std::string op;
  void defined(const Tensor& t, const char* name) const;
  void dtype_in(const Tensor& t, const char* name, std::initializer_list<DType> allowed) const;
  void same_dtype(const Tensor& a, const char* an, const Tensor& b, const char* bn) const;
  void same_shape(const Tensor& a, const char* an, const Tensor& b, const char* bn) const;
  void same_device(const Tensor& a, const char* an, const Tensor& b, const char* bn) const;
  void shape_is(const Tensor& t, const char* name, const Shape& shape) const;
  void rank_at_least(const Tensor& t, const char* name, int rank) const;
  void last_dim_contiguous(const Tensor& t, const char* name) const;
  void rows_fold(const Tensor& t, const char* name) const;
  // A projection's operands: a's k (its last dim) equals w's kw.
  void inner_dims_match(const Tensor& a, const char* an, int64_t k, const Tensor& w, const char* wn, int64_t kw) const;
  // An optional bias (absent: no data) of a projection with n outputs: [n], contiguous, like `like`'s dtype and
  // device.
  void bias_fits(const Tensor& bias, int64_t n, const Tensor& like, const char* like_name) const;
  [[noreturn]] void fail(const std::string& what) const;
  void require(bool ok, const std::string& what) const { if (!ok) fail(what); }
  void require(bool ok, const char* what) const { if (!ok) fail(what); }  // a literal: no string made per call
  // The message built only when the check fails (checks every call makes).
  template <class Message>
  requires std::is_invocable_r_v<std::string, Message>
  void require(bool ok, Message&& what) const {
    if (!ok) fail(what());
  }
};

// Whether the bytes two tensors may touch (from their first element to their last, strides included)
// intersect; false when either is absent or empty.
bool overlaps(const Tensor& a, const Tensor& b);

// A float copy of any tensor's elements (any device, any strides), in row-major order of its shape.
std::vector<float> to_float_vector(const Tensor& t);
// Writes float values (row-major over t's shape) into t, converting to its dtype, on any device.
void write_float_vector(const Tensor& t, const std::vector<float>& values);
std::vector<int64_t> to_int_vector(const Tensor& t);

}  // namespace tessera::ops

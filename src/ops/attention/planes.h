// Attention tensors as the stacks of matrices ([planes, rows, D]) that the copy engine reads: the staged
// kernels' view of q, k, v (and d_o) one head at a time.
#pragma once
#include "tessera/runtime/tensor.h"
#include "tessera/tile/staged.h"

namespace tessera::ops::TESSERA_TILE_BACKEND {
namespace {
// A [..., S, H, D]-shaped tensor's rows of head h as planes: [planes, rows, D] with the given plane and row
// dims, when the copy engine can read them.
template <class T>
bool as_planes(const Tensor& t, int64_t planes, int64_t plane_stride, int row_dim, tile::View3<const T>& out) {
  const int last = t.ndim() - 1;
  out.data = static_cast<const T*>(t.data());
  out.extent[0] = planes;
  out.extent[1] = t.size(row_dim);
  out.extent[2] = t.size(last);
  out.stride[0] = plane_stride;
  out.stride[1] = t.stride(row_dim);
  out.stride[2] = t.stride(last);
  return tile::tma_compatible(out);
}

// Q, K or V [B, H, S, D] as B * H planes [S, D]: when batches are evenly spaced heads apart (or one batch).
template <class T>
bool batch_head_planes(const Tensor& t, tile::View3<const T>& out) {
  return (t.size(0) == 1 || t.stride(0) == t.size(1) * t.stride(1)) &&
         as_planes(t, t.size(0) * t.size(1), t.stride(1), 2, out);
}
}  // namespace
}  // namespace tessera::ops::TESSERA_TILE_BACKEND

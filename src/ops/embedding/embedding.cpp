// Front-end of the embedding family: argument checks, then dispatch.
#include "tessera/ops/embedding.h"

#include <climits>

#include "ops/common/registry.h"
#include "ops/common/views.h"
#include "ops/embedding/args.h"

namespace tessera::ops {

namespace {
dispatch::Op<EmbeddingArgs>& embedding_op() {
  static dispatch::Op<EmbeddingArgs>& op = register_op<EmbeddingArgs>(
      "embedding", &reference::embedding, &tile_host::embedding, TESSERA_CUDA_FN(tile_cuda::embedding));
  return op;
}

// "[1, 2]": the multi-index of flat position `position` (row-major) in `shape`.
std::string index_str(const Shape& shape, int64_t position) {
  Shape idx(shape.size());
  for (int d = int(shape.size()) - 1; d >= 0; --d) {
    idx[size_t(d)] = shape[size_t(d)] ? position % shape[size_t(d)] : 0;
    position = shape[size_t(d)] ? position / shape[size_t(d)] : 0;
  }
  return shape_str(idx);
}
}  // namespace

int64_t first_bad_id(const std::vector<int64_t>& ids, int64_t vocab) {
  for (size_t i = 0; i < ids.size(); ++i)
    if (ids[i] < 0 || ids[i] >= vocab) return int64_t(i);
  return -1;
}

void bad_id_error(const EmbeddingArgs& a, int64_t position) {
  // One element, copied from wherever the ids live.
  const size_t size = dtype_size(a.ids.dtype());
  int64_t value = 0;
  if (a.ids.dtype() == DType::i64) {
    copy_bytes(&value, Device::cpu(), static_cast<const char*>(a.ids.data()) + size_t(position) * size, a.ids.device(), size);
  } else {
    int32_t v = 0;
    copy_bytes(&v, Device::cpu(), static_cast<const char*>(a.ids.data()) + size_t(position) * size, a.ids.device(), size);
    value = v;
  }
  invalid_argument("embedding: id " + std::to_string(value) + " at position " + std::to_string(position) + " (ids" +
                   index_str(a.ids.shape(), position) + ") is outside [0, " + std::to_string(a.table.size(0)) +
                   "), the rows of table " + a.table.str() + "; nothing was written");
}

void embedding(const Tensor& ids, const Tensor& table, const Tensor& y, const Options& options) {
  const Checker c{"embedding"};
  c.defined(ids, "ids");
  c.defined(table, "table");
  c.defined(y, "y");
  c.dtype_in(ids, "ids", {DType::i32, DType::i64});
  c.require(ids.is_contiguous(), [&] {
    return "ids is " + ids.str() + " with strides " + shape_str(ids.strides()) + "; it must be contiguous";
  });
  c.require(ids.numel() < INT_MAX, [&] { return "ids is " + ids.str() + "; at most 2^31 - 2 ids per call"; });
  c.require(table.ndim() == 2, [&] { return "table is " + table.str() + "; expected 2 dims [vocab, dim]"; });
  c.dtype_in(table, "table", {DType::f32, DType::f16, DType::bf16});
  c.last_dim_contiguous(table, "table");
  Shape want = ids.shape();
  want.push_back(table.size(1));
  c.shape_is(y, "y", want);
  c.same_dtype(table, "table", y, "y");
  c.same_device(table, "table", ids, "ids");
  c.same_device(table, "table", y, "y");
  c.last_dim_contiguous(y, "y");
  c.rows_fold(y, "y");
  if (ids.numel() == 0) return;
  // CPU ids are checked here, before any backend runs; GPU ids by the backend (the tile backends with a
  // check kernel), still before anything is written.
  if (ids.device().is_cpu())
    if (const int64_t bad = first_bad_id(to_int_vector(ids), table.size(0)); bad >= 0) bad_id_error({ids, table, y}, bad);
  embedding_op()({ids, table, y}, table.device(), options);
}

void register_embedding_ops() { embedding_op(); }

}  // namespace tessera::ops

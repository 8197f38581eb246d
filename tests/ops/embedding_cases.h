// Test cases of the embedding family, instantiated for the host (tests/ops) and the GPU (tests/gpu).
#pragma once
#include <gtest/gtest.h>

#include <cmath>

#include "common/test_util.h"
#include "ops/embedding/args.h"
#include "tessera/ops/embedding.h"

namespace tessera::testing {

struct EmbeddingCase {
  Shape ids;
  int64_t vocab, dim;
};
// ids of rank 0 to 3, vocab 1 to 50000, dims 1, 7, 33, 4096, 8192 and 16384 (the gather's wide blocks), 8193;
// more ids than one step of the check takes.
inline const EmbeddingCase kEmbeddingCases[] = {{{1}, 1, 1},           {{7}, 17, 7},       {{3, 5}, 1000, 4096},
                                                {{2, 3, 4}, 50000, 7}, {{}, 10, 8193},     {{13}, 3, 8193},
                                                {{37}, 100, 1},        {{2, 1500}, 1000, 33}, {{3, 6007}, 500, 5},
                                                {{9}, 20, 8192},       {{2, 2}, 5, 16384}};
inline const DType kIdDTypes[] = {DType::i32, DType::i64};

// Ids uniform in [0, vocab), with the first and last rows of the table among them.
inline Tensor embedding_ids(const Shape& shape, DType id_dt, int64_t vocab, Device dev) {
  Tensor ids = random_ints(shape, id_dt, 0, vocab, Device::cpu());
  const int64_t n = ids.numel();
  auto set = [&](int64_t i, int64_t v) {
    if (id_dt == DType::i64) ids.data_as<int64_t>()[i] = v;
    else ids.data_as<int32_t>()[i] = int32_t(v);
  };
  set(0, vocab - 1);
  if (n > 1) set(n - 1, 0);
  return dev.is_cpu() ? ids : ids.to(dev);
}

inline Shape embedding_out_shape(const Shape& ids, int64_t dim) {
  Shape s = ids;
  s.push_back(dim);
  return s;
}

inline void check_embedding(Device dev, dispatch::Backend backend, DType dt, DType id_dt, const EmbeddingCase& c,
                            bool strided_table = false) {
  SCOPED_TRACE(std::string(dtype_name(dt)) + " ids " + std::string(dtype_name(id_dt)) + shape_str(c.ids) + " vocab " +
               std::to_string(c.vocab) + " dim " + std::to_string(c.dim) + (strided_table ? " strided table" : ""));
  Tensor storage, table;
  if (strided_table) {  // the first dim columns of a [vocab, dim + 5] buffer
    storage = random_tensor({c.vocab, c.dim + 5}, dt, dev);
    table = Tensor::view(storage.data(), {c.vocab, c.dim}, dt, dev, {c.dim + 5, 1});
  } else {
    table = random_tensor({c.vocab, c.dim}, dt, dev);
  }
  Tensor ids = embedding_ids(c.ids, id_dt, c.vocab, dev);
  const Shape ys = embedding_out_shape(c.ids, c.dim);
  Tensor y = poisoned(ys, dt, dev), y_ref = poisoned(ys, dt, dev);
  ops::embedding(ids, table, y, {backend});
  ops::embedding(ids, table, y_ref, {dispatch::Backend::reference});
  EXPECT_TRUE(all_equal(y, y_ref));
}

inline void check_embedding_all_cases(Device dev, dispatch::Backend backend) {
  for (DType dt : kFloatDTypes)
    for (DType id_dt : kIdDTypes)
      for (const auto& c : kEmbeddingCases) check_embedding(dev, backend, dt, id_dt, c);
  for (DType dt : kFloatDTypes) check_embedding(dev, backend, dt, DType::i32, {{5, 3}, 77, 1030}, true);
}

inline void expect_untouched(const Tensor& y) {
  int64_t written = 0;
  for (float v : floats(y)) written += !std::isnan(v);
  EXPECT_EQ(written, 0) << "elements of y were written";
}

// Ids outside [0, vocab) are an error naming the first such id and its position; nothing is written. `run`
// calls one implementation: the front-end with a backend, or a backend's function directly.
template <class Run>
void check_embedding_bad_ids(Device dev, Run run) {
  for (DType id_dt : kIdDTypes) {
    SCOPED_TRACE(dtype_name(id_dt));
    const int64_t vocab = 50, dim = 9;
    Tensor table = random_tensor({vocab, dim}, DType::bf16, dev);
    auto ids_with = [&](const Shape& shape, std::vector<std::pair<int64_t, int64_t>> bad) {
      Tensor ids = random_ints(shape, id_dt, 0, vocab, Device::cpu());
      for (auto [i, v] : bad) {
        if (id_dt == DType::i64) ids.data_as<int64_t>()[i] = v;
        else ids.data_as<int32_t>()[i] = int32_t(v);
      }
      return dev.is_cpu() ? ids : ids.to(dev);
    };
    {
      Tensor ids = ids_with({3, 4}, {{6, vocab}}), y = poisoned({3, 4, dim}, DType::bf16, dev);
      expect_invalid_argument([&] { run(ids, table, y); }, {"id 50 ", "position 6", "ids[1, 2]", "[0, 50)"});
      expect_untouched(y);
    }
    {
      Tensor ids = ids_with({7}, {{0, -1}}), y = poisoned({7, dim}, DType::bf16, dev);
      expect_invalid_argument([&] { run(ids, table, y); }, {"id -1 ", "position 0", "ids[0]"});
      expect_untouched(y);
    }
    {  // several bad ids, some in different steps of the check (8192 ids a step): the first is named
      Tensor ids = ids_with({4000}, {{3999, -7}, {2500, 1000000}, {1500, 50}}), y = poisoned({4000, dim}, DType::bf16, dev);
      expect_invalid_argument([&] { run(ids, table, y); }, {"id 50 ", "position 1500"});
      expect_untouched(y);
      Tensor many = ids_with({20011}, {{20010, -7}, {16500, 51}, {9000, 1000000}}), y2 = poisoned({20011, dim}, DType::bf16, dev);
      expect_invalid_argument([&] { run(many, table, y2); }, {"id 1000000 ", "position 9000"});
      expect_untouched(y2);
    }
    {  // a large id that truncates to a valid int32 must still be caught when ids are i64
      if (id_dt == DType::i64) {
        Tensor ids = ids_with({5}, {{3, (int64_t(1) << 32) + 1}}), y = poisoned({5, dim}, DType::bf16, dev);
        expect_invalid_argument([&] { run(ids, table, y); }, {"id 4294967297 ", "position 3"});
        expect_untouched(y);
      }
    }
  }
}

inline void check_embedding_bad_ids_all(Device dev, dispatch::Backend backend) {
  // Through the front-end on the given backend and on the reference; then each backend function directly
  // (for CPU ids the front-end catches bad ids first, so the direct call exercises the backend's own check).
  for (dispatch::Backend b : {backend, dispatch::Backend::reference})
    check_embedding_bad_ids(dev, [&](const Tensor& ids, const Tensor& table, const Tensor& y) {
      ops::embedding(ids, table, y, {b});
    });
  check_embedding_bad_ids(dev, [&](const Tensor& ids, const Tensor& table, const Tensor& y) {
    ops::reference::embedding({ids, table, y}, {});
  });
  if (dev.is_cpu()) {
    check_embedding_bad_ids(dev, [&](const Tensor& ids, const Tensor& table, const Tensor& y) {
      ops::tile_host::embedding({ids, table, y}, {});
    });
    // CPU ids are checked even where the caller promised them in range (Options::ids_in_range).
    check_embedding_bad_ids(dev, [&](const Tensor& ids, const Tensor& table, const Tensor& y) {
      ops::Options promised{backend};
      promised.ids_in_range = true;
      ops::embedding(ids, table, y, promised);
    });
  }
}

// Rows of y are the table's rows of ids, or zero where an id is outside the table (an unchecked call: captured
// into a CUDA graph, or with the ids promised in range).
inline void expect_rows_or_zeros(const Tensor& host_ids, const Tensor& table, const Tensor& y) {
  const int64_t n = host_ids.numel(), vocab = table.size(0), dim = table.size(1);
  const std::vector<float> got = floats(y), rows = floats(table);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t id = host_ids.data_as<int32_t>()[i];
    for (int64_t j = 0; j < dim; ++j) {
      const float want = id >= 0 && id < vocab ? rows[size_t(id * dim + j)] : 0.f;
      ASSERT_EQ(got[size_t(i * dim + j)], want) << "row " << i << " (id " << id << "), column " << j;
    }
  }
}

inline void check_embedding_bad_input(Device dev, dispatch::Backend backend) {
  const DType f32 = DType::f32;
  Tensor ids = random_ints({2, 3}, DType::i32, 0, 10, dev), table = random_tensor({10, 8}, f32, dev);
  Tensor y = poisoned({2, 3, 8}, f32, dev);
  const ops::Options o{backend};
  expect_invalid_argument([&] { ops::embedding(ids, random_tensor({80}, f32, dev), y, o); }, {"table", "2 dims"});
  expect_invalid_argument([&] { ops::embedding(ids, table, poisoned({2, 3, 7}, f32, dev), o); }, {"y", "[2, 3, 8]"});
  expect_invalid_argument([&] { ops::embedding(ids, table, poisoned({6, 8}, f32, dev), o); }, {"y", "[2, 3, 8]"});
  expect_invalid_argument([&] { ops::embedding(ids, table, poisoned({2, 3, 8}, DType::f16, dev), o); }, {"dtypes differ"});
  expect_invalid_argument([&] { ops::embedding(random_tensor({2, 3}, f32, dev), table, y, o); }, {"ids", "dtype"});
  expect_invalid_argument([&] { ops::embedding(ids, random_ints({10, 8}, DType::i32, 0, 5, dev), poisoned({2, 3, 8}, DType::i32, dev), o); },
                 {"table", "dtype"});
  expect_invalid_argument([&] { ops::embedding(Tensor::view(nullptr, {2, 3}, DType::i32, dev), table, y, o); }, {"null"});
  expect_invalid_argument([&] { ops::embedding(ids, Tensor::view(nullptr, {10, 8}, f32, dev), y, o); }, {"null"});
  Tensor wide_ids = random_ints({2, 6}, DType::i32, 0, 10, dev);
  expect_invalid_argument([&] { ops::embedding(Tensor::view(wide_ids.data(), {2, 3}, DType::i32, dev, {6, 2}), table, y, o); },
                 {"ids", "contiguous"});
  if (dev.is_cuda()) {
    expect_invalid_argument([&] { ops::embedding(ids.to(Device::cpu()), table, y, o); }, {"devices differ"});
    expect_invalid_argument([&] { ops::embedding(ids, table.to(Device::cpu()), y, o); }, {"devices differ"});
  }
  expect_untouched(y);
}

}  // namespace tessera::testing

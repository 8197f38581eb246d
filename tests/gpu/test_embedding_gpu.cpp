// The embedding family on tile-cuda against the reference.
#include "common/test_util.h"
#include "ops/embedding_cases.h"
#include "ops/common/views.h"
#include "tessera/runtime/cuda_graph.h"

namespace tessera::testing {
class EmbeddingGpu : public ::testing::Test {
 protected:
  void SetUp() override { TESSERA_REQUIRE_GPU(); }
};
TEST_F(EmbeddingGpu, MatchesReference) { check_embedding_all_cases(Device::cuda(), dispatch::Backend::tile_cuda); }
TEST_F(EmbeddingGpu, BadIdsAreAnErrorAndWriteNothing) {
  check_embedding_bad_ids_all(Device::cuda(), dispatch::Backend::tile_cuda);
}
TEST_F(EmbeddingGpu, BadInputIsAnErrorAndWritesNothing) {
  check_embedding_bad_input(Device::cuda(), dispatch::Backend::tile_cuda);
}
TEST_F(EmbeddingGpu, WorksOnAStream) {
  Stream stream;
  Tensor table = random_tensor({300, 4100}, DType::bf16, Device::cuda());
  Tensor ids = embedding_ids({9}, DType::i32, 300, Device::cuda());
  Tensor y = poisoned({9, 4100}, DType::bf16, Device::cuda()), y_ref = poisoned({9, 4100}, DType::bf16, Device::cuda());
  ops::embedding(ids, table, y, {dispatch::Backend::tile_cuda, stream.handle()});
  stream.synchronize();
  ops::embedding(ids, table, y_ref, {dispatch::Backend::reference});
  EXPECT_TRUE(all_equal(y, y_ref));
}
// Inside a CUDA graph capture nothing may wait for the stream, so the ids go unchecked: the valid rows are
// copied, and a row whose id is outside the table comes out zero (never a read outside it).
TEST_F(EmbeddingGpu, CapturedInACudaGraph) {
  Stream stream;
  const int64_t vocab = 301, dim = 4100, n = 37;
  Tensor table = random_tensor({vocab, dim}, DType::bf16, Device::cuda());
  Tensor host_ids = embedding_ids({n}, DType::i32, vocab, Device::cpu());
  host_ids.data_as<int32_t>()[5] = int32_t(vocab);
  host_ids.data_as<int32_t>()[11] = -1;
  Tensor ids = host_ids.to(Device::cuda());
  Tensor y = poisoned({n, dim}, DType::bf16, Device::cuda());
  CudaGraph graph;
  graph.begin_capture(stream.handle());
  ops::embedding(ids, table, y, {dispatch::Backend::tile_cuda, stream.handle()});
  graph.end_capture();
  graph.launch(stream.handle());
  stream.synchronize();
  const std::vector<float> got = ops::to_float_vector(y), rows = ops::to_float_vector(table);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t id = host_ids.data_as<int32_t>()[i];
    for (int64_t j = 0; j < dim; ++j) {
      const float want = id >= 0 && id < vocab ? rows[size_t(id * dim + j)] : 0.f;
      ASSERT_EQ(got[size_t(i * dim + j)], want) << "row " << i << " (id " << id << "), column " << j;
    }
  }
}
}  // namespace tessera::testing

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
  expect_rows_or_zeros(host_ids, table, y);
}
// With the ids promised in range (Options::ids_in_range) the call queues the gather alone and returns without
// waiting: valid ids give the table's rows, and a broken promise gives zero rows, not an error or a read outside.
TEST_F(EmbeddingGpu, IdsPromisedInRangeAreNotChecked) {
  Stream stream;
  const int64_t vocab = 301, dim = 4100, n = 9001;
  Tensor table = random_tensor({vocab, dim}, DType::bf16, Device::cuda());
  Tensor host_ids = embedding_ids({n}, DType::i32, vocab, Device::cpu());
  ops::Options promised{dispatch::Backend::tile_cuda, stream.handle()};
  promised.ids_in_range = true;
  Tensor y = poisoned({n, dim}, DType::bf16, Device::cuda());
  ops::embedding(host_ids.to(Device::cuda()), table, y, promised);
  stream.synchronize();
  expect_rows_or_zeros(host_ids, table, y);
  host_ids.data_as<int32_t>()[17] = int32_t(vocab);
  host_ids.data_as<int32_t>()[8999] = -3;
  Tensor y_bad = poisoned({n, dim}, DType::bf16, Device::cuda());
  ops::embedding(host_ids.to(Device::cuda()), table, y_bad, promised);
  stream.synchronize();
  expect_rows_or_zeros(host_ids, table, y_bad);
}
}  // namespace tessera::testing

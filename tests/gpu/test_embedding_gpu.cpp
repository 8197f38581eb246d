// The embedding family on tile-cuda against the reference.
#include "common/test_util.h"
#include "ops/embedding_cases.h"

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
}  // namespace tessera::testing

// embedding on tile-host against the reference, bad ids, bad input.
#include <gtest/gtest.h>

#include "common/test_util.h"
#include "ops/embedding_cases.h"

namespace tessera::testing {

TEST(EmbeddingHost, MatchesReference) { check_embedding_all_cases(Device::cpu(), dispatch::Backend::tile_host); }
TEST(EmbeddingHost, BadIdsAreAnErrorAndWriteNothing) { check_embedding_bad_ids_all(Device::cpu(), dispatch::Backend::tile_host); }
TEST(EmbeddingHost, BadInputIsAnErrorAndWritesNothing) { check_embedding_bad_input(Device::cpu(), dispatch::Backend::tile_host); }

TEST(EmbeddingHost, EmptyVocabularyRejectsEveryId) {
  Tensor table = Tensor::empty({0, 4}, DType::f32), ids = random_ints({3}, DType::i64, 0, 1);
  Tensor y = poisoned({3, 4}, DType::f32);
  expect_invalid_argument([&] { ops::tile_host::embedding({ids, table, y}, {}); }, {"id 0 ", "position 0", "[0, 0)"});
  expect_invalid_argument([&] { ops::embedding(ids, table, y, {dispatch::Backend::tile_host}); }, {"position 0"});
  expect_untouched(y);
  // No ids: nothing to do, even with an empty vocabulary.
  ops::embedding(Tensor::empty({0}, DType::i32), table, Tensor::empty({0, 4}, DType::f32), {dispatch::Backend::tile_host});
}

}  // namespace tessera::testing

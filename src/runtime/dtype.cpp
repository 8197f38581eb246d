#include "tessera/runtime/dtype.h"

#include <array>

namespace tessera {
namespace {
struct Info { std::string_view name; size_t size; bool floating; };
constexpr std::array<Info, kNumDTypes> kInfo{{
    {"f32", 4, true}, {"f16", 2, true}, {"bf16", 2, true}, {"fp8_e4m3", 1, true}, {"fp8_e5m2", 1, true},
    {"i32", 4, false}, {"i64", 8, false}, {"u8", 1, false}, {"bool", 1, false}}};
}  // namespace

bool is_valid_dtype(int32_t raw) { return raw >= 0 && raw < kNumDTypes; }
size_t dtype_size(DType t) { return kInfo.at(size_t(t)).size; }
std::string_view dtype_name(DType t) { return is_valid_dtype(int32_t(t)) ? kInfo[size_t(t)].name : "invalid"; }
bool is_floating(DType t) { return kInfo.at(size_t(t)).floating; }
std::optional<DType> dtype_from_name(std::string_view name) {
  for (int i = 0; i < kNumDTypes; ++i)
    if (kInfo[i].name == name) return DType(i);
  if (name == "float32") return DType::f32;
  if (name == "float16") return DType::f16;
  if (name == "bfloat16") return DType::bf16;
  return std::nullopt;
}
}  // namespace tessera

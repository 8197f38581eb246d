// Element types a tensor can hold, and the facts about each that the rest of the library asks for.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "tessera/runtime/numeric.h"

namespace tessera {

// Values are part of the C ABI (include/tessera.h): append only.
enum class DType : int32_t { f32 = 0, f16 = 1, bf16 = 2, fp8_e4m3 = 3, fp8_e5m2 = 4, i32 = 5, i64 = 6, u8 = 7, boolean = 8 };
inline constexpr int kNumDTypes = 9;

size_t dtype_size(DType t);
std::string_view dtype_name(DType t);
std::optional<DType> dtype_from_name(std::string_view name);
bool is_floating(DType t);
bool is_valid_dtype(int32_t raw);

template <class T> struct dtype_of;
template <> struct dtype_of<float> { static constexpr DType value = DType::f32; };
template <> struct dtype_of<f16> { static constexpr DType value = DType::f16; };
template <> struct dtype_of<bf16> { static constexpr DType value = DType::bf16; };
template <> struct dtype_of<fp8_e4m3> { static constexpr DType value = DType::fp8_e4m3; };
template <> struct dtype_of<fp8_e5m2> { static constexpr DType value = DType::fp8_e5m2; };
template <> struct dtype_of<int32_t> { static constexpr DType value = DType::i32; };
template <> struct dtype_of<int64_t> { static constexpr DType value = DType::i64; };
template <> struct dtype_of<uint8_t> { static constexpr DType value = DType::u8; };
template <> struct dtype_of<bool> { static constexpr DType value = DType::boolean; };
template <class T> inline constexpr DType dtype_v = dtype_of<T>::value;

// Calls f(T{}) with the storage type of a floating dtype the ops compute on (f32, f16, bf16).
template <class F>
decltype(auto) visit_float_dtype(DType t, F&& f) {
  switch (t) {
    case DType::f16: return f(f16{});
    case DType::bf16: return f(bf16{});
    default: return f(float{});
  }
}

}  // namespace tessera

#include "ops/common/views.h"

#include <cstring>
#include <utility>

namespace tessera::ops {

void Checker::fail(const std::string& what) const { invalid_argument(op + ": " + what); }

void Checker::defined(const Tensor& t, const char* name) const {
  require(t.data() != nullptr || (t.numel() == 0 && t.ndim() > 0),
          [&] { return std::string(name) + " is missing (null data)"; });
}
void Checker::dtype_in(const Tensor& t, const char* name, std::initializer_list<DType> allowed) const {
  for (DType d : allowed)
    if (t.dtype() == d) return;
  std::string list;
  for (DType d : allowed) list += (list.empty() ? "" : ", ") + std::string(dtype_name(d));
  fail(std::string(name) + " is " + t.str() + "; its dtype must be one of " + list);
}
void Checker::same_dtype(const Tensor& a, const char* an, const Tensor& b, const char* bn) const {
  require(a.dtype() == b.dtype(),
          [&] { return std::string(bn) + " is " + b.str() + " but " + an + " is " + a.str() + ": dtypes differ"; });
}
void Checker::same_shape(const Tensor& a, const char* an, const Tensor& b, const char* bn) const {
  require(a.shape() == b.shape(),
          [&] { return std::string(bn) + " is " + b.str() + " but " + an + " is " + a.str() + ": shapes differ"; });
}
void Checker::same_device(const Tensor& a, const char* an, const Tensor& b, const char* bn) const {
  require(a.device() == b.device(),
          [&] { return std::string(bn) + " is " + b.str() + " but " + an + " is " + a.str() + ": devices differ"; });
}
void Checker::shape_is(const Tensor& t, const char* name, const Shape& shape) const {
  require(t.shape() == shape,
          [&] { return std::string(name) + " is " + t.str() + "; expected shape " + shape_str(shape); });
}
void Checker::inner_dims_match(const Tensor& a, const char* an, int64_t k, const Tensor& w, const char* wn, int64_t kw) const {
  require(k == kw, [&] {
    return std::string(an) + " is " + a.str() + " and " + wn + " is " + w.str() + ": inner dimensions differ (" +
           std::to_string(k) + " vs " + std::to_string(kw) + ")";
  });
}
void Checker::bias_fits(const Tensor& bias, int64_t n, const Tensor& like, const char* like_name) const {
  if (bias.data() == nullptr) return;
  shape_is(bias, "bias", {n});
  same_dtype(like, like_name, bias, "bias");
  same_device(like, like_name, bias, "bias");
  require(bias.is_contiguous(), "bias must be contiguous");
}

bool overlaps(const Tensor& a, const Tensor& b) {
  if (a.data() == nullptr || b.data() == nullptr || a.numel() == 0 || b.numel() == 0) return false;
  auto span = [](const Tensor& t) {
    const auto* first = static_cast<const char*>(t.data());
    int64_t last = 0;
    for (int d = 0; d < t.ndim(); ++d) last += (t.size(d) - 1) * t.stride(d);
    return std::pair{first, first + (last + 1) * int64_t(dtype_size(t.dtype()))};
  };
  const auto [a0, a1] = span(a);
  const auto [b0, b1] = span(b);
  return a0 < b1 && b0 < a1;
}

void Checker::rank_at_least(const Tensor& t, const char* name, int rank) const {
  require(t.ndim() >= rank, [&] {
    return std::string(name) + " is " + t.str() + "; expected at least " + std::to_string(rank) + " dims";
  });
}
void Checker::last_dim_contiguous(const Tensor& t, const char* name) const {
  require(t.rows_contiguous(), [&] {
    return std::string(name) + " is " + t.str() + " with last-dim stride " +
           std::to_string(t.ndim() ? t.stride(-1) : 1) + "; it must be 1";
  });
}
void Checker::rows_fold(const Tensor& t, const char* name) const {
  for (int d = t.ndim() - 2; d > 0; --d)
    require(t.size(d - 1) == 1 || t.stride(d - 1) == t.stride(d) * t.size(d), [&] {
      return std::string(name) + " is " + t.str() + " with strides " + shape_str(t.strides()) +
             " whose leading dims do not fold into rows";
    });
}

namespace {
// Calls f(element offset) for every element in row-major order of the shape.
template <class F>
void for_each_offset(const Tensor& t, F f) {
  const int n = t.ndim();
  if (t.numel() == 0) return;
  std::vector<int64_t> idx(n, 0);
  for (int64_t i = 0, total = t.numel(); i < total; ++i) {
    int64_t off = 0;
    for (int d = 0; d < n; ++d) off += idx[d] * t.stride(d);
    f(off);
    for (int d = n - 1; d >= 0; --d) {
      if (++idx[d] < t.size(d)) break;
      idx[d] = 0;
    }
  }
}

// The smallest span of memory (in elements) covering every element, starting at data().
int64_t span_elements(const Tensor& t) {
  if (t.numel() == 0) return 0;
  int64_t last = 0;
  for (int d = 0; d < t.ndim(); ++d) last += (t.size(d) - 1) * t.stride(d);
  return last + 1;
}

// Host-visible bytes of the tensor's span (a copy when it lives on a GPU).
std::vector<uint8_t> host_bytes(const Tensor& t) {
  std::vector<uint8_t> bytes(size_t(span_elements(t)) * dtype_size(t.dtype()));
  copy_bytes(bytes.data(), Device::cpu(), t.data(), t.device(), bytes.size());
  return bytes;
}

float element_as_float(const uint8_t* base, DType d, int64_t off) {
  switch (d) {
    case DType::f32: { float v; std::memcpy(&v, base + off * 4, 4); return v; }
    case DType::f16: { f16 v; std::memcpy(&v, base + off * 2, 2); return to_float(v); }
    case DType::bf16: { bf16 v; std::memcpy(&v, base + off * 2, 2); return to_float(v); }
    case DType::fp8_e4m3: return to_float(fp8_e4m3{base[off]});
    case DType::fp8_e5m2: return to_float(fp8_e5m2{base[off]});
    case DType::i32: { int32_t v; std::memcpy(&v, base + off * 4, 4); return float(v); }
    case DType::i64: { int64_t v; std::memcpy(&v, base + off * 8, 8); return float(v); }
    case DType::u8: return float(base[off]);
    case DType::boolean: return base[off] ? 1.f : 0.f;
  }
  return 0.f;
}
}  // namespace

std::vector<float> to_float_vector(const Tensor& t) {
  const auto bytes = host_bytes(t);
  std::vector<float> out;
  out.reserve(size_t(t.numel()));
  for_each_offset(t, [&](int64_t off) { out.push_back(element_as_float(bytes.data(), t.dtype(), off)); });
  return out;
}

std::vector<int64_t> to_int_vector(const Tensor& t) {
  const auto bytes = host_bytes(t);
  std::vector<int64_t> out;
  out.reserve(size_t(t.numel()));
  for_each_offset(t, [&](int64_t off) {
    if (t.dtype() == DType::i64) { int64_t v; std::memcpy(&v, bytes.data() + off * 8, 8); out.push_back(v); }
    else if (t.dtype() == DType::i32) { int32_t v; std::memcpy(&v, bytes.data() + off * 4, 4); out.push_back(v); }
    else out.push_back(int64_t(element_as_float(bytes.data(), t.dtype(), off)));
  });
  return out;
}

void write_float_vector(const Tensor& t, const std::vector<float>& values) {
  check(int64_t(values.size()) == t.numel(), [&] { return "write_float_vector: size mismatch for " + t.str(); });
  // Read-modify-write of the span keeps memory between strided elements intact.
  auto bytes = host_bytes(t);
  size_t i = 0;
  const DType d = t.dtype();
  for_each_offset(t, [&](int64_t off) {
    const float v = values[i++];
    uint8_t* p = bytes.data() + off * dtype_size(d);
    switch (d) {
      case DType::f32: std::memcpy(p, &v, 4); break;
      case DType::f16: { f16 h = from_float<f16>(v); std::memcpy(p, &h, 2); break; }
      case DType::bf16: { bf16 h = from_float<bf16>(v); std::memcpy(p, &h, 2); break; }
      case DType::fp8_e4m3: *p = from_float<fp8_e4m3>(v).bits; break;
      case DType::fp8_e5m2: *p = from_float<fp8_e5m2>(v).bits; break;
      case DType::i32: { int32_t x = int32_t(v); std::memcpy(p, &x, 4); break; }
      case DType::i64: { int64_t x = int64_t(v); std::memcpy(p, &x, 8); break; }
      case DType::u8: *p = uint8_t(v); break;
      case DType::boolean: *p = v != 0.f; break;
    }
  });
  copy_bytes(t.data(), t.device(), bytes.data(), Device::cpu(), bytes.size());
}

}  // namespace tessera::ops

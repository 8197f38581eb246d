// Filling weights from a checkpoint or from a seeded random generator.
#include "engine/model/weight_source.h"

#include <algorithm>
#include <vector>

#include "tessera/ops/elementwise.h"

namespace tessera::engine {

namespace {
// Writes `src` (any float dtype, any device, `dst`'s element count) into `dst`, converting on dst's device.
void convert_into(const Tensor& src, const Tensor& dst) {
  // Same dtype: one copy straight from the source (a mapped file, say) to dst's device.
  if (src.dtype() == dst.dtype()) {
    Tensor(dst).copy_from(src.reshape(dst.shape()));  // writes dst's memory
    return;
  }
  const Tensor on_device = (src.device() == dst.device() ? src : src.to(dst.device())).reshape(dst.shape());
  ops::cast(on_device, dst);
}

// splitmix64: a fast, well-mixed stream; the same (seed, name) always gives the same values.
uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

uint64_t hash_name(const std::string& s) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

// Random values are drawn for at most this many elements of a tensor; larger tensors repeat them (an odd
// period, so rows of a matrix do not line up). Enough for full-size benchmarks, and quick to generate.
constexpr int64_t kRandomPeriod = (int64_t(1) << 20) + 7;
}  // namespace

void CheckpointSource::fill(const std::string& name, const Shape& shape, Init, const Tensor& dst) {
  if (!st_.has(name)) invalid_argument("model: " + where_ + " has no tensor '" + name + "'");
  const SafetensorsEntry& e = st_.entry(name);
  if (e.shape != shape)
    invalid_argument("model: tensor '" + name + "' in " + where_ + " has shape " + shape_str(e.shape) +
                     "; the config implies " + shape_str(shape));
  const Tensor view = st_.get(name);
  if (view.dtype() != DType::f32 && view.dtype() != DType::f16 && view.dtype() != DType::bf16)
    unsupported("model: tensor '" + name + "' in " + where_ + " is " + e.dtype_name + "; expected F32, F16 or BF16");
  convert_into(view, dst);
}

void RandomSource::fill(const std::string& name, const Shape& shape, Init init, const Tensor& dst) {
  int64_t numel = 1;
  for (int64_t d : shape) numel *= d;
  check(numel == dst.numel(), "model: random tensor '" + name + "' does not fit its destination");
  if (numel == 0) return;
  const int64_t n = std::min(numel, kRandomPeriod);
  uint64_t state = seed_ ^ hash_name(name);
  std::vector<float> values(static_cast<size_t>(n));
  for (auto& v : values) {
    const double u = double(splitmix64(state) >> 11) * 0x1.0p-53 * 2.0 - 1.0;
    v = float(init.center + init.spread * u);
  }
  const Tensor head = Tensor::view(dst.data(), {n}, dst.dtype(), dst.device());
  convert_into(Tensor::view(values.data(), {n}, DType::f32), head);
  // Repeat the first n values: copy the filled prefix after itself, doubling it each time.
  const size_t elem = dtype_size(dst.dtype());
  auto* base = static_cast<uint8_t*>(dst.data());
  for (int64_t filled = n; filled < numel;) {
    const int64_t count = std::min(filled, numel - filled);
    copy_bytes(base + filled * elem, dst.device(), base, dst.device(), size_t(count) * elem);
    filled += count;
  }
}

}  // namespace tessera::engine

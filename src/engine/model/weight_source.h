// Where a model's weights come from: a checkpoint, or a deterministic random generator. Both write a named
// tensor, checked against the shape the config implies, into a destination on the model's device in the
// compute dtype (the dtype conversion runs as ops::cast on that device).
#pragma once
#include <cstdint>
#include <string>

#include "tessera/engine/safetensors.h"
#include "tessera/runtime/tensor.h"

namespace tessera::engine {

// How a random tensor is drawn: center + spread * u, u uniform in [-1, 1).
struct Init {
  float center = 0.f;
  float spread = 1.f;
};

class WeightSource {
 public:
  virtual ~WeightSource() = default;
  virtual bool has(const std::string& name) const = 0;
  // Writes tensor `name` (expected shape `shape`) into `dst` (contiguous, that many elements).
  virtual void fill(const std::string& name, const Shape& shape, Init init, const Tensor& dst) = 0;
};

class CheckpointSource : public WeightSource {
 public:
  explicit CheckpointSource(Safetensors checkpoint, std::string where) : st_(std::move(checkpoint)), where_(std::move(where)) {}
  bool has(const std::string& name) const override { return st_.has(name); }
  void fill(const std::string& name, const Shape& shape, Init init, const Tensor& dst) override;
 private:
  Safetensors st_;
  std::string where_;
};

class RandomSource : public WeightSource {
 public:
  explicit RandomSource(uint64_t seed) : seed_(seed) {}
  bool has(const std::string&) const override { return true; }
  void fill(const std::string& name, const Shape& shape, Init init, const Tensor& dst) override;
 private:
  uint64_t seed_;
};

// Builds the weights of `config` from `source` (shared by load_model and random_model).
struct Model;
void build_weights(Model& model, WeightSource& source);

}  // namespace tessera::engine

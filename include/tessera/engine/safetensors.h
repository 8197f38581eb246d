// Safetensors checkpoints: a memory-mapped reader (one file, or shards named by model.safetensors.index.json)
// and a writer.
//
// A file is: 8 bytes little-endian header length N, N bytes of JSON header, then the tensor bytes. The header
// maps each tensor name to {"dtype", "shape", "data_offsets": [begin, end]} (offsets relative to the byte
// buffer) and may carry "__metadata__" (string -> string). Every header is checked before any tensor is
// touched: sizes, offsets in range and tiling the buffer without overlap, shape x dtype size == byte range,
// no duplicate names. A bad file is a tessera::Error naming the file and the tensor.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tessera/runtime/tensor.h"

namespace tessera::engine {

// One tensor as the header describes it.
struct SafetensorsEntry {
  std::string name;
  std::string dtype_name;  // as written in the file: "BF16", "F32", ...
  Shape shape;
  size_t begin = 0;        // byte range within the file's data buffer
  size_t end = 0;
  int file = 0;            // index into the checkpoint's files
};

struct MappedFile;  // an mmap'ed file (read-only); defined in safetensors.cpp

// A checkpoint: one or more mapped files and the tensors in them. Tensors returned by get() are views into the
// mappings: they stay valid as long as this object (or a copy of it) lives.
class Safetensors {
 public:
  // `path` is a .safetensors file, a model.safetensors.index.json, or a directory holding either
  // (the index is preferred; else model.safetensors).
  static Safetensors open(const std::string& path);

  bool has(const std::string& name) const { return entries_.count(name) != 0; }
  // The tensor as a CPU view over the mapping. Throws invalid_argument naming the tensor when it is missing,
  // unsupported when its dtype is one tessera does not have (F64, I8, ...).
  Tensor get(const std::string& name) const;
  const SafetensorsEntry& entry(const std::string& name) const;
  std::vector<std::string> names() const;  // sorted
  size_t size() const { return entries_.size(); }
  // __metadata__ of the first file (of all files, merged, for a sharded checkpoint).
  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  const std::vector<std::string>& files() const { return paths_; }

 private:
  std::vector<std::string> paths_;
  std::vector<std::shared_ptr<MappedFile>> maps_;
  std::map<std::string, SafetensorsEntry> entries_;
  std::map<std::string, std::string> metadata_;
};

// The safetensors name of a tessera dtype ("F32", "BF16", "F8_E4M3", "BOOL", ...), and back.
std::string safetensors_dtype_name(DType dtype);
std::optional<DType> dtype_from_safetensors_name(const std::string& name);

// Writes `tensors` (contiguous, on any device) to `path`, with optional __metadata__.
// Tensors are stored in name order; the header is padded to a multiple of 8 bytes.
void save_safetensors(const std::string& path, const std::map<std::string, Tensor>& tensors,
                      const std::map<std::string, std::string>& metadata = {});

}  // namespace tessera::engine

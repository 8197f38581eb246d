// Safetensors reader (mmap) and writer. See include/tessera/engine/safetensors.h for the format.
#include "tessera/engine/safetensors.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

namespace tessera::engine {

namespace fs = std::filesystem;
using nlohmann::json;

static constexpr uint64_t kMaxHeaderBytes = 100ull << 20;  // 100 MB: no real header comes near this

[[noreturn]] static void io_error(const std::string& message) { fail(Status::io_error, message); }

// ---- the mapping ----

struct MappedFile {
  std::string path;
  const uint8_t* data = nullptr;
  size_t size = 0;

  explicit MappedFile(const std::string& p) : path(p) {
    int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) io_error("safetensors: cannot open " + p + ": " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd);
      io_error("safetensors: " + p + " is not a regular file");
    }
    size = size_t(st.st_size);
    if (size > 0) {
      void* m = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
      if (m == MAP_FAILED) {
        int e = errno;
        ::close(fd);
        io_error("safetensors: cannot map " + p + ": " + std::strerror(e));
      }
      data = static_cast<const uint8_t*>(m);
    }
    ::close(fd);
  }
  ~MappedFile() {
    if (data) ::munmap(const_cast<uint8_t*>(data), size);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
};

// ---- dtypes ----

std::string safetensors_dtype_name(DType dtype) {
  switch (dtype) {
    case DType::f32: return "F32";
    case DType::f16: return "F16";
    case DType::bf16: return "BF16";
    case DType::fp8_e4m3: return "F8_E4M3";
    case DType::fp8_e5m2: return "F8_E5M2";
    case DType::i32: return "I32";
    case DType::i64: return "I64";
    case DType::u8: return "U8";
    case DType::boolean: return "BOOL";
  }
  invalid_argument("safetensors: invalid dtype " + std::to_string(int(dtype)));
}

std::optional<DType> dtype_from_safetensors_name(const std::string& name) {
  for (int i = 0; i < kNumDTypes; ++i)
    if (safetensors_dtype_name(DType(i)) == name) return DType(i);
  return std::nullopt;
}

// Bytes per element of every dtype the format defines, tessera's or not, so that any valid file can be opened
// (its unsupported tensors fail only when asked for). 0: not a safetensors dtype.
static size_t format_dtype_size(const std::string& name) {
  if (auto t = dtype_from_safetensors_name(name)) return dtype_size(*t);
  static const std::map<std::string, size_t> others = {{"F64", 8}, {"I8", 1}, {"I16", 2}, {"U16", 2},
                                                       {"U32", 4}, {"U64", 8}, {"F8_E8M0", 1}};
  auto it = others.find(name);
  return it == others.end() ? 0 : it->second;
}

// ---- header parsing ----

// Reads one file's header into `entries` (checked) and `metadata`.
static void read_header(const MappedFile& f, int file_index, std::map<std::string, SafetensorsEntry>& entries,
                        std::map<std::string, std::string>& metadata) {
  const std::string& path = f.path;
  if (f.size < 8) io_error("safetensors: " + path + " is truncated (" + std::to_string(f.size) + " bytes, no header)");
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | f.data[i];
  if (n > kMaxHeaderBytes)
    io_error("safetensors: " + path + ": header length " + std::to_string(n) + " bytes is over the 100 MB limit");
  if (n > f.size - 8)
    io_error("safetensors: " + path + ": header length " + std::to_string(n) + " is larger than the file (" +
             std::to_string(f.size) + " bytes): truncated or not a safetensors file");
  const char* text = reinterpret_cast<const char*>(f.data + 8);
  const size_t data_size = f.size - 8 - n;

  // Parse, noticing duplicate top-level names (nlohmann keeps only the last one).
  std::set<std::string> seen;
  std::string duplicate;
  json::parser_callback_t on_event = [&](int depth, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::key && depth == 1 && !seen.insert(parsed.get<std::string>()).second &&
        duplicate.empty())
      duplicate = parsed.get<std::string>();
    return true;
  };
  json header;
  try {
    header = json::parse(text, text + n, on_event);
  } catch (const json::exception& e) {
    io_error("safetensors: " + path + ": malformed JSON header: " + e.what());
  }
  if (!duplicate.empty()) io_error("safetensors: " + path + ": tensor '" + duplicate + "' appears twice in the header");
  if (!header.is_object()) io_error("safetensors: " + path + ": the header is not a JSON object");

  std::vector<SafetensorsEntry> here;
  for (auto& [name, desc] : header.items()) {
    const std::string where = "safetensors: " + path + ": tensor '" + name + "': ";
    if (name == "__metadata__") {
      if (!desc.is_object()) io_error("safetensors: " + path + ": __metadata__ is not an object");
      for (auto& [k, v] : desc.items()) {
        if (!v.is_string()) io_error("safetensors: " + path + ": __metadata__ '" + k + "' is not a string");
        metadata[k] = v.get<std::string>();
      }
      continue;
    }
    if (!desc.is_object()) io_error(where + "description is not an object");
    auto dt = desc.find("dtype");
    auto sh = desc.find("shape");
    auto off = desc.find("data_offsets");
    if (dt == desc.end() || !dt->is_string()) io_error(where + "missing or non-string dtype");
    if (sh == desc.end() || !sh->is_array()) io_error(where + "missing or non-array shape");
    if (off == desc.end() || !off->is_array() || off->size() != 2 || !(*off)[0].is_number_unsigned() ||
        !(*off)[1].is_number_unsigned())
      io_error(where + "data_offsets must be two non-negative integers");
    SafetensorsEntry e;
    e.name = name;
    e.dtype_name = dt->get<std::string>();
    e.file = file_index;
    const size_t elem = format_dtype_size(e.dtype_name);
    if (elem == 0) io_error(where + "unknown dtype '" + e.dtype_name + "'");
    // numel * elem, refusing overflow.
    unsigned __int128 bytes = elem;
    for (auto& d : *sh) {
      if (!d.is_number_unsigned()) io_error(where + "shape entries must be non-negative integers");
      uint64_t v = d.get<uint64_t>();
      if (v > uint64_t(INT64_MAX)) io_error(where + "dimension " + std::to_string(v) + " is too large");
      e.shape.push_back(int64_t(v));
      bytes *= v;
      if (bytes > (unsigned __int128)(f.size)) bytes = (unsigned __int128)(f.size) + 1;  // clamp: already too big
    }
    const uint64_t b = (*off)[0].get<uint64_t>(), en = (*off)[1].get<uint64_t>();
    if (b > en) io_error(where + "data_offsets [" + std::to_string(b) + ", " + std::to_string(en) + "] are misordered");
    if (en > data_size)
      io_error(where + "data_offsets [" + std::to_string(b) + ", " + std::to_string(en) + "] are out of range (" +
               std::to_string(data_size) + " data bytes)");
    if (bytes != (unsigned __int128)(en - b))
      io_error(where + "shape " + shape_str(e.shape) + " of " + e.dtype_name + " is " +
               (bytes > (unsigned __int128)(f.size) ? std::string("more than the file") : std::to_string(uint64_t(bytes))) +
               " bytes, but data_offsets cover " + std::to_string(en - b));
    e.begin = b;
    e.end = en;
    if (entries.count(name)) io_error(where + "appears in more than one file");
    here.push_back(std::move(e));
  }
  // The byte ranges must tile the buffer: sorted by begin, each starts where the previous one ended.
  std::vector<const SafetensorsEntry*> order;
  for (auto& e : here) order.push_back(&e);
  std::sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->begin != b->begin ? a->begin < b->begin : a->end < b->end; });
  size_t at = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    const SafetensorsEntry* e = order[i];
    if (e->begin < at)
      io_error("safetensors: " + path + ": tensor '" + e->name + "' [" + std::to_string(e->begin) + ", " +
               std::to_string(e->end) + ") overlaps tensor '" + order[i - 1]->name + "'");
    if (e->begin > at)
      io_error("safetensors: " + path + ": tensor '" + e->name + "' starts at " + std::to_string(e->begin) +
               ", leaving a hole after byte " + std::to_string(at));
    at = e->end;
  }
  if (at != data_size)
    io_error("safetensors: " + path + ": tensors cover " + std::to_string(at) + " of " + std::to_string(data_size) +
             " data bytes (trailing bytes, or a truncated file)");
  for (auto& e : here) entries.emplace(e.name, std::move(e));
}

// ---- opening ----

Safetensors Safetensors::open(const std::string& path) {
  fs::path p(path);
  std::error_code ec;
  if (fs::is_directory(p, ec)) {
    if (fs::exists(p / "model.safetensors.index.json")) p = p / "model.safetensors.index.json";
    else if (fs::exists(p / "model.safetensors")) p = p / "model.safetensors";
    else io_error("safetensors: " + path + " holds neither model.safetensors.index.json nor model.safetensors");
  }
  Safetensors st;
  const std::string ps = p.string();
  if (ps.size() >= 5 && ps.compare(ps.size() - 5, 5, ".json") == 0) {
    // A sharded checkpoint: {"metadata": {...}, "weight_map": {tensor: file}}.
    std::ifstream in(p, std::ios::binary);
    if (!in) io_error("safetensors: cannot open " + ps);
    json index;
    try {
      index = json::parse(in);
    } catch (const json::exception& e) {
      io_error("safetensors: " + ps + ": malformed JSON: " + e.what());
    }
    if (!index.is_object() || !index.contains("weight_map") || !index["weight_map"].is_object())
      io_error("safetensors: " + ps + ": no weight_map object");
    std::map<std::string, std::string> wanted;  // tensor -> file
    std::map<std::string, int> file_index;
    for (auto& [name, file] : index["weight_map"].items()) {
      if (!file.is_string()) io_error("safetensors: " + ps + ": weight_map entry '" + name + "' is not a string");
      std::string f = file.get<std::string>();
      if (f.empty() || f.find('/') != std::string::npos || f == "..")
        io_error("safetensors: " + ps + ": weight_map entry '" + name + "' names a bad file '" + f + "'");
      wanted[name] = f;
      if (!file_index.count(f)) file_index.emplace(f, 0);
    }
    for (auto& [f, i] : file_index) {
      i = int(st.paths_.size());
      st.paths_.push_back((p.parent_path() / f).string());
    }
    for (size_t i = 0; i < st.paths_.size(); ++i) {
      st.maps_.push_back(std::make_shared<MappedFile>(st.paths_[i]));
      read_header(*st.maps_.back(), int(i), st.entries_, st.metadata_);
    }
    for (auto& [name, f] : wanted) {
      auto it = st.entries_.find(name);
      if (it == st.entries_.end())
        io_error("safetensors: " + ps + ": tensor '" + name + "' is listed in weight_map but missing from " + f);
      if (st.paths_[it->second.file] != (p.parent_path() / f).string())
        io_error("safetensors: " + ps + ": tensor '" + name + "' is in " + st.paths_[it->second.file] +
                 ", not in " + f + " as weight_map says");
    }
    return st;
  }
  st.paths_.push_back(ps);
  st.maps_.push_back(std::make_shared<MappedFile>(ps));
  read_header(*st.maps_[0], 0, st.entries_, st.metadata_);
  return st;
}

const SafetensorsEntry& Safetensors::entry(const std::string& name) const {
  auto it = entries_.find(name);
  if (it == entries_.end())
    invalid_argument("safetensors: tensor '" + name + "' is not in " +
                     (paths_.size() == 1 ? paths_[0] : "the checkpoint (" + std::to_string(paths_.size()) + " files)"));
  return it->second;
}

Tensor Safetensors::get(const std::string& name) const {
  const SafetensorsEntry& e = entry(name);
  auto dtype = dtype_from_safetensors_name(e.dtype_name);
  if (!dtype)
    unsupported("safetensors: " + paths_[e.file] + ": tensor '" + name + "' has dtype " + e.dtype_name +
                ", which tessera does not support");
  const MappedFile& f = *maps_[e.file];
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | f.data[i];
  const uint8_t* p = f.data + 8 + n + e.begin;
  // A view borrows: `this` keeps the mapping alive. Empty tensors get a non-null pointer too.
  return Tensor::view(const_cast<uint8_t*>(p), e.shape, *dtype);
}

std::vector<std::string> Safetensors::names() const {
  std::vector<std::string> out;
  for (auto& [name, e] : entries_) out.push_back(name);
  return out;
}

// ---- writing ----

void save_safetensors(const std::string& path, const std::map<std::string, Tensor>& tensors,
                      const std::map<std::string, std::string>& metadata) {
  json header = json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  size_t offset = 0;
  for (auto& [name, t] : tensors) {
    check(name != "__metadata__" && !name.empty(), "save_safetensors: bad tensor name '" + name + "'");
    check(t.is_contiguous(), "save_safetensors: tensor '" + name + "' " + t.str() + " is not contiguous");
    json shape = json::array();
    for (int64_t d : t.shape()) shape.push_back(d);
    header[name] = {{"dtype", safetensors_dtype_name(t.dtype())}, {"shape", shape},
                    {"data_offsets", {offset, offset + t.nbytes()}}};
    offset += t.nbytes();
  }
  std::string text = header.dump();
  while (text.size() % 8) text.push_back(' ');
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) io_error("save_safetensors: cannot create " + path);
  uint8_t len[8];
  for (int i = 0; i < 8; ++i) len[i] = uint8_t(uint64_t(text.size()) >> (8 * i));
  out.write(reinterpret_cast<const char*>(len), 8);
  out.write(text.data(), std::streamsize(text.size()));
  for (auto& [name, t] : tensors) {
    if (t.numel() == 0) continue;
    Tensor host = t.device().is_cpu() ? t : t.to(Device::cpu());
    out.write(static_cast<const char*>(host.data()), std::streamsize(host.nbytes()));
  }
  if (!out) io_error("save_safetensors: write to " + path + " failed");
}

}  // namespace tessera::engine

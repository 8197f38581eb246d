// Safetensors: round trips of every dtype, sharded checkpoints, and every kind of malformed file.
#include "tessera/engine/safetensors.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

namespace fs = std::filesystem;
using namespace tessera;
using namespace tessera::engine;

namespace {

// A fresh directory per test.
fs::path temp_dir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  fs::path p = fs::temp_directory_path() / (std::string("tessera_st_") + info->name() + "_" + std::to_string(::getpid()));
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

// A file from a header string and data bytes, as written: length (8 bytes LE), header, data.
void write_raw(const fs::path& path, const std::string& header, const std::string& data, uint64_t length_field) {
  std::ofstream out(path, std::ios::binary);
  for (int i = 0; i < 8; ++i) out.put(char(length_field >> (8 * i)));
  out << header << data;
}
void write_raw(const fs::path& path, const std::string& header, const std::string& data) {
  write_raw(path, header, data, header.size());
}

Tensor random_bytes(const Shape& shape, DType dtype, uint32_t seed) {
  Tensor t = Tensor::empty(shape, dtype);
  std::mt19937 g(seed);
  auto* p = static_cast<uint8_t*>(t.data());
  for (size_t i = 0; i < t.nbytes(); ++i) p[i] = uint8_t(dtype == DType::boolean ? g() & 1 : g());
  return t;
}

// Expects open() to throw a tessera::Error whose message holds every string in `needles`.
void expect_error(const fs::path& path, std::vector<std::string> needles, Status status = Status::io_error) {
  try {
    Safetensors st = Safetensors::open(path.string());
    ADD_FAILURE() << "opened " << path << " without error";
  } catch (const Error& e) {
    EXPECT_EQ(int(e.status()), int(status)) << e.what();
    for (auto& n : needles) EXPECT_NE(std::string(e.what()).find(n), std::string::npos) << "'" << n << "' not in: " << e.what();
  }
}

const std::string kData(16, '\0');  // data for a F32[2, 2] tensor

}  // namespace

TEST(Safetensors, RoundTripEveryDType) {
  fs::path dir = temp_dir();
  std::map<std::string, Tensor> tensors;
  uint32_t seed = 1;
  for (int i = 0; i < kNumDTypes; ++i) {
    const DType t = DType(i);
    tensors["w." + std::string(dtype_name(t))] = random_bytes({3, 5, 7}, t, seed++);
    tensors["v." + std::string(dtype_name(t))] = random_bytes({11}, t, seed++);
  }
  tensors["empty"] = Tensor::empty({0, 4}, DType::f32);
  tensors["scalar"] = random_bytes({}, DType::i64, 99);
  save_safetensors((dir / "model.safetensors").string(), tensors, {{"format", "pt"}, {"note", "tessera test"}});

  Safetensors st = Safetensors::open(dir.string());  // a directory finds model.safetensors
  EXPECT_EQ(st.size(), tensors.size());
  EXPECT_EQ(st.metadata().at("format"), "pt");
  EXPECT_EQ(st.metadata().at("note"), "tessera test");
  for (auto& [name, want] : tensors) {
    ASSERT_TRUE(st.has(name)) << name;
    Tensor got = st.get(name);
    EXPECT_EQ(got.dtype(), want.dtype()) << name;
    EXPECT_EQ(got.shape(), want.shape()) << name;
    EXPECT_TRUE(got.device().is_cpu());
    EXPECT_EQ(0, std::memcmp(got.data(), want.data(), want.nbytes())) << name;
    EXPECT_EQ(st.entry(name).dtype_name, safetensors_dtype_name(want.dtype()));
  }
  // Tensors stay valid while a copy of the checkpoint lives.
  Tensor kept;
  {
    Safetensors copy = st;
    kept = copy.get("w.f32");
  }
  EXPECT_EQ(0, std::memcmp(kept.data(), tensors["w.f32"].data(), tensors["w.f32"].nbytes()));
  EXPECT_THROW(st.get("missing"), Error);
  try {
    st.get("missing.weight");
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("missing.weight"), std::string::npos);
  }
}

TEST(Safetensors, DTypeNames) {
  const char* names[] = {"F32", "F16", "BF16", "F8_E4M3", "F8_E5M2", "I32", "I64", "U8", "BOOL"};
  for (int i = 0; i < kNumDTypes; ++i) {
    EXPECT_EQ(safetensors_dtype_name(DType(i)), names[i]);
    EXPECT_EQ(dtype_from_safetensors_name(names[i]), DType(i));
  }
  EXPECT_FALSE(dtype_from_safetensors_name("F64").has_value());
}

TEST(Safetensors, FileWrittenByPython) {
  // Bytes as the Python safetensors package writes them (header padded with spaces; tensors sorted).
  fs::path dir = temp_dir();
  std::string header = R"({"a":{"dtype":"F16","shape":[2],"data_offsets":[0,4]},"b":{"dtype":"I32","shape":[1],"data_offsets":[4,8]}})";
  while (header.size() % 8) header += ' ';
  std::string data = std::string("\x00\x3c\x00\xc0", 4) + std::string("\x07\x00\x00\x00", 4);
  write_raw(dir / "x.safetensors", header, data);
  Safetensors st = Safetensors::open((dir / "x.safetensors").string());
  EXPECT_EQ(st.get("a").data_as<uint16_t>()[0], 0x3c00);
  EXPECT_EQ(st.get("a").data_as<uint16_t>()[1], 0xc000);
  EXPECT_EQ(st.get("b").data_as<int32_t>()[0], 7);
  EXPECT_TRUE(st.metadata().empty());
}

TEST(Safetensors, UnsupportedDTypeFailsOnlyWhenAskedFor) {
  fs::path dir = temp_dir();
  write_raw(dir / "m.safetensors",
            R"({"ok":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"wide":{"dtype":"F64","shape":[1],"data_offsets":[4,12]}})",
            std::string(12, '\0'));
  Safetensors st = Safetensors::open((dir / "m.safetensors").string());
  EXPECT_NO_THROW(st.get("ok"));
  try {
    st.get("wide");
    ADD_FAILURE() << "F64 read";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::unsupported);
    EXPECT_NE(std::string(e.what()).find("wide"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("F64"), std::string::npos);
  }
}

TEST(Safetensors, Sharded) {
  fs::path dir = temp_dir();
  Tensor a = random_bytes({4, 4}, DType::bf16, 1), b = random_bytes({8}, DType::f32, 2), c = random_bytes({2, 3}, DType::i64, 3);
  save_safetensors((dir / "model-00001-of-00002.safetensors").string(), {{"a", a}, {"b", b}});
  save_safetensors((dir / "model-00002-of-00002.safetensors").string(), {{"c", c}});
  std::ofstream(dir / "model.safetensors.index.json")
      << R"({"metadata": {"total_size": 120}, "weight_map": {"a": "model-00001-of-00002.safetensors",
            "b": "model-00001-of-00002.safetensors", "c": "model-00002-of-00002.safetensors"}})";
  Safetensors st = Safetensors::open(dir.string());
  EXPECT_EQ(st.files().size(), 2u);
  EXPECT_EQ(st.names(), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(0, std::memcmp(st.get("a").data(), a.data(), a.nbytes()));
  EXPECT_EQ(0, std::memcmp(st.get("b").data(), b.data(), b.nbytes()));
  EXPECT_EQ(0, std::memcmp(st.get("c").data(), c.data(), c.nbytes()));

  // A tensor the index names but its shard lacks.
  std::ofstream(dir / "model.safetensors.index.json")
      << R"({"weight_map": {"a": "model-00001-of-00002.safetensors", "d": "model-00002-of-00002.safetensors"}})";
  expect_error(dir, {"'d'", "model-00002-of-00002.safetensors"});
  // A shard that does not exist.
  std::ofstream(dir / "model.safetensors.index.json") << R"({"weight_map": {"a": "nope.safetensors"}})";
  expect_error(dir, {"nope.safetensors"});
  // A shard path that tries to leave the directory.
  std::ofstream(dir / "model.safetensors.index.json") << R"({"weight_map": {"a": "../x.safetensors"}})";
  expect_error(dir, {"'a'", "../x.safetensors"});
  // No weight_map.
  std::ofstream(dir / "model.safetensors.index.json") << R"({"metadata": {}})";
  expect_error(dir, {"weight_map"});
}

// ---- malformed files ----

TEST(SafetensorsMalformed, TruncatedBeforeHeaderLength) {
  fs::path p = temp_dir() / "t.safetensors";
  std::ofstream(p, std::ios::binary) << "abc";
  expect_error(p, {p.string(), "truncated"});
  std::ofstream(p, std::ios::binary | std::ios::trunc);  // empty file
  expect_error(p, {p.string(), "truncated"});
}

TEST(SafetensorsMalformed, HeaderLongerThanFile) {
  fs::path p = temp_dir() / "t.safetensors";
  write_raw(p, R"({"a":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}})", kData, 4096);
  expect_error(p, {p.string(), "header length 4096", "larger than the file"});
}

TEST(SafetensorsMalformed, AbsurdHeaderLength) {
  fs::path p = temp_dir() / "t.safetensors";
  write_raw(p, "{}", "", (200ull << 20));
  expect_error(p, {p.string(), "100 MB"});
  write_raw(p, "{}", "", ~0ull);
  expect_error(p, {p.string(), "100 MB"});
}

TEST(SafetensorsMalformed, MalformedJson) {
  fs::path p = temp_dir() / "t.safetensors";
  for (std::string bad : {std::string(R"({"a":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]})"), std::string(R"({"a": nonsense})"),
                          std::string("\xff\xfe{}"), std::string("{\"a\":\x01}")}) {
    write_raw(p, bad, kData);
    expect_error(p, {p.string(), "malformed JSON"});
  }
  write_raw(p, "[1, 2, 3]", "");
  expect_error(p, {p.string(), "not a JSON object"});
}

TEST(SafetensorsMalformed, BadEntries) {
  fs::path p = temp_dir() / "t.safetensors";
  write_raw(p, R"({"w":{"shape":[2,2],"data_offsets":[0,16]}})", kData);
  expect_error(p, {p.string(), "'w'", "dtype"});
  write_raw(p, R"({"w":{"dtype":"F32","shape":[2,-2],"data_offsets":[0,16]}})", kData);
  expect_error(p, {p.string(), "'w'", "shape"});
  write_raw(p, R"({"w":{"dtype":"F32","shape":[2,2],"data_offsets":[0]}})", kData);
  expect_error(p, {p.string(), "'w'", "data_offsets"});
  write_raw(p, R"({"w":{"dtype":"F32","shape":[2,2],"data_offsets":[-4,16]}})", kData);
  expect_error(p, {p.string(), "'w'", "data_offsets"});
  write_raw(p, R"({"w":{"dtype":"Q4_K","shape":[2,2],"data_offsets":[0,16]}})", kData);
  expect_error(p, {p.string(), "'w'", "Q4_K"});
  write_raw(p, R"({"w":[1,2]})", kData);
  expect_error(p, {p.string(), "'w'"});
  write_raw(p, R"({"__metadata__":{"k":1}})", "");
  expect_error(p, {p.string(), "__metadata__"});
}

TEST(SafetensorsMalformed, OffsetsOutOfRange) {
  fs::path p = temp_dir() / "t.safetensors";
  write_raw(p, R"({"w":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}})", std::string(8, '\0'));
  expect_error(p, {p.string(), "'w'", "out of range"});
  write_raw(p, R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[18446744073709551612,18446744073709551615]}})", kData);
  expect_error(p, {p.string(), "'w'"});
}

TEST(SafetensorsMalformed, OffsetsMisordered) {
  fs::path p = temp_dir() / "t.safetensors";
  write_raw(p, R"({"w":{"dtype":"F32","shape":[0],"data_offsets":[16,0]}})", kData);
  expect_error(p, {p.string(), "'w'", "misordered"});
}

TEST(SafetensorsMalformed, OffsetsOverlap) {
  fs::path p = temp_dir() / "t.safetensors";
  write_raw(p, R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,12]},"b":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})", kData);
  expect_error(p, {p.string(), "'b'", "overlaps", "'a'"});
  // Two tensors on the same bytes.
  write_raw(p, R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},"b":{"dtype":"I32","shape":[4],"data_offsets":[0,16]}})", kData);
  expect_error(p, {p.string(), "overlaps"});
}

TEST(SafetensorsMalformed, HoleOrTrailingBytes) {
  fs::path p = temp_dir() / "t.safetensors";
  write_raw(p, R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", std::string(8, '\0'));
  expect_error(p, {p.string(), "'a'", "hole"});
  write_raw(p, R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", std::string(8, '\0'));
  expect_error(p, {p.string(), "cover 4 of 8"});
}

TEST(SafetensorsMalformed, ShapeDoesNotMatchBytes) {
  fs::path p = temp_dir() / "t.safetensors";
  write_raw(p, R"({"w":{"dtype":"BF16","shape":[2,2],"data_offsets":[0,16]}})", kData);
  expect_error(p, {p.string(), "'w'", "[2, 2]", "8 bytes", "16"});
  // A shape whose byte count overflows 64 bits.
  write_raw(p, R"({"w":{"dtype":"F32","shape":[4294967296,4294967296,16],"data_offsets":[0,16]}})", kData);
  expect_error(p, {p.string(), "'w'", "more than the file"});
}

TEST(SafetensorsMalformed, DuplicateNames) {
  fs::path p = temp_dir() / "t.safetensors";
  write_raw(p, R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"w":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})", kData);
  expect_error(p, {p.string(), "'w'", "twice"});
}

TEST(SafetensorsMalformed, TruncatedData) {
  // A good file cut short anywhere fails cleanly.
  fs::path dir = temp_dir();
  save_safetensors((dir / "good.safetensors").string(), {{"a", random_bytes({64}, DType::f32, 5)}, {"b", random_bytes({32}, DType::bf16, 6)}});
  std::ifstream in(dir / "good.safetensors", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (size_t cut : {size_t(0), size_t(5), size_t(8), size_t(20), bytes.size() / 2, bytes.size() - 1}) {
    fs::path p = dir / "cut.safetensors";
    std::ofstream(p, std::ios::binary | std::ios::trunc).write(bytes.data(), std::streamsize(cut));
    expect_error(p, {p.string()});
  }
}

TEST(SafetensorsMalformed, RandomCorruptionNeverCrashes) {
  // Flip bytes of the header of a good file: every result is a clean open or a tessera::Error.
  fs::path dir = temp_dir();
  save_safetensors((dir / "good.safetensors").string(),
                   {{"a", random_bytes({8, 8}, DType::f16, 1)}, {"b", random_bytes({3}, DType::i64, 2)}});
  std::ifstream in(dir / "good.safetensors", std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::mt19937 g(7);
  fs::path p = dir / "bad.safetensors";
  int errors = 0;
  for (int trial = 0; trial < 500; ++trial) {
    std::string b = bytes;
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | uint8_t(b[size_t(i)]);
    for (int k = 0; k < 3; ++k) b[g() % (8 + n)] = char(trial % 2 ? g() : "0123456789,[]{}\""[g() % 16]);
    std::ofstream(p, std::ios::binary | std::ios::trunc) << b;
    try {
      Safetensors st = Safetensors::open(p.string());
      for (auto& name : st.names()) {
        Tensor t = st.get(name);
        uint8_t sink = 0;
        for (size_t i = 0; i < t.nbytes(); ++i) sink = uint8_t(sink ^ static_cast<const uint8_t*>(t.data())[i]);
        EXPECT_GE(int(sink), 0);  // every byte was read
      }
    } catch (const Error&) {
      ++errors;
    }
  }
  EXPECT_GT(errors, 100);
}

TEST(SafetensorsMalformed, NotAFile) {
  fs::path dir = temp_dir();
  expect_error(dir / "absent.safetensors", {"absent.safetensors"});
  expect_error(dir, {dir.string()});  // a directory with no checkpoint
}

// Tokenizer units: NFC, UTF-8 handling, a small SentencePiece-style BPE with byte fallback (both merge formats),
// added tokens, and the streaming decoder. Parity with real tokenizers is tokenizer_parity.sh.
#include "tessera/engine/tokenizer.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "engine/tokenizer/unicode.h"
#include "tessera/runtime/error.h"

using namespace tessera;
using namespace tessera::engine;

TEST(Unicode, Nfc) {
  using unicode::nfc;
  EXPECT_EQ(nfc("plain ascii"), "plain ascii");
  EXPECT_EQ(nfc("cafe\u0301"), "caf\u00e9");                       // e + acute -> é
  EXPECT_EQ(nfc("A\u030angstro\u0308m"), "\u00c5ngstr\u00f6m");
  EXPECT_EQ(nfc("\u212b"), "\u00c5");                               // singleton: Angstrom sign -> Å
  EXPECT_EQ(nfc("\u0958"), "\u0915\u093c");                         // composition exclusion stays decomposed
  EXPECT_EQ(nfc("a\u0302\u0323"), "\u1ead");                        // canonical reordering, then ậ
  EXPECT_EQ(nfc("\u1100\u1161\u11a8"), "\uac01");                   // Hangul L V T -> 각
  EXPECT_EQ(nfc("\uac00\u11a8"), "\uac01");                         // LV + T
  EXPECT_EQ(nfc("e\u0301\u0301"), "\u00e9\u0301");                  // the second acute is blocked
  EXPECT_EQ(nfc("\u00e9"), "\u00e9");
  EXPECT_EQ(nfc("\xff"), "\ufffd");                                  // invalid UTF-8 -> U+FFFD
}

TEST(Unicode, Utf8) {
  EXPECT_EQ(unicode::to_valid_utf8("ok \xe2\x82"), "ok \ufffd");
  EXPECT_EQ(unicode::to_valid_utf8("\xed\xa0\x80"), "\ufffd\ufffd\ufffd");  // a surrogate is invalid
  EXPECT_EQ(unicode::utf8_sequence_length("\xf0\x9f\x98", 0), 0);           // incomplete
  EXPECT_EQ(unicode::utf8_sequence_length("\xf0\x9f\x98\x80", 0), 4);
  EXPECT_EQ(unicode::utf8_sequence_length("\x80", 0), -1);
}

namespace {

// A Llama-2-like tokenizer.json: Prepend + Replace normalizer, BPE with byte fallback, <s> template.
std::string sp_tokenizer(bool pair_merges) {
  nlohmann::json vocab = {{"<unk>", 0}, {"<s>", 1}, {"</s>", 2}};
  char name[8];
  for (int b = 0; b < 256; ++b) {
    std::snprintf(name, sizeof(name), "<0x%02X>", b);
    vocab[name] = 3 + b;
  }
  const char* pieces[] = {"\u2581", "a", "b", "c", "\u2581a", "ab", "\u2581ab", "\u2581c", "\u00e9"};
  int id = 259;
  for (const char* p : pieces) vocab[p] = id++;
  nlohmann::json merges = nlohmann::json::array();
  const std::pair<const char*, const char*> m[] = {{"\u2581", "a"}, {"a", "b"}, {"\u2581a", "b"}, {"\u2581", "c"}};
  for (auto& [x, y] : m) {
    if (pair_merges) merges.push_back({x, y});
    else merges.push_back(std::string(x) + " " + y);
  }
  nlohmann::json j = {
      {"added_tokens", {{{"id", 0}, {"content", "<unk>"}, {"special", true}},
                        {{"id", 1}, {"content", "<s>"}, {"special", true}},
                        {{"id", 2}, {"content", "</s>"}, {"special", true}}}},
      {"normalizer", {{"type", "Sequence"}, {"normalizers", {{{"type", "Prepend"}, {"prepend", "\u2581"}},
                                                           {{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", "\u2581"}}}}}},
      {"pre_tokenizer", nullptr},
      {"post_processor", {{"type", "TemplateProcessing"},
                          {"single", {{{"SpecialToken", {{"id", "<s>"}, {"type_id", 0}}}}, {{"Sequence", {{"id", "A"}, {"type_id", 0}}}}}},
                          {"special_tokens", {{"<s>", {{"id", "<s>"}, {"ids", {1}}, {"tokens", {"<s>"}}}}}}}},
      {"decoder", {{"type", "Sequence"}, {"decoders", {{{"type", "Replace"}, {"pattern", {{"String", "\u2581"}}}, {"content", " "}},
                                                     {{"type", "ByteFallback"}}, {{"type", "Fuse"}},
                                                     {{"type", "Strip"}, {"content", " "}, {"start", 1}, {"stop", 0}}}}}},
      {"model", {{"type", "BPE"}, {"unk_token", "<unk>"}, {"fuse_unk", true}, {"byte_fallback", true}, {"vocab", vocab}, {"merges", merges}}}};
  return j.dump();
}

}  // namespace

TEST(Tokenizer, SentencePieceStyleBpe) {
  for (bool pairs : {false, true}) {
    Tokenizer t = Tokenizer::from_json(sp_tokenizer(pairs));
    const int s = 1, sp_a = 263, sp_ab = 265, sp_c = 266, e_acute = 267;
    EXPECT_EQ(t.encode("ab ab c"), (std::vector<int>{s, sp_ab, sp_ab, sp_c}));
    EXPECT_EQ(t.encode("ab", false), (std::vector<int>{sp_ab}));
    EXPECT_EQ(t.encode("", true), (std::vector<int>{s}));
    // Byte fallback: 'ü' is not in the vocabulary -> <0xC3> <0xBC>; 'é' is.
    EXPECT_EQ(t.encode("a\u00fc\u00e9", false), (std::vector<int>{sp_a, 3 + 0xC3, 3 + 0xBC, e_acute}));
    // Special tokens in the text are kept whole, and the text around them is encoded on its own.
    EXPECT_EQ(t.encode("ab</s>ab", false), (std::vector<int>{sp_ab, 2, sp_ab}));
    EXPECT_EQ(t.decode(t.encode("ab ab c")), "<s> ab ab c");
    EXPECT_EQ(t.decode(t.encode("ab ab c"), true), "ab ab c");
    EXPECT_EQ(t.decode(t.encode("a\u00fc\u00e9 c", false)), "a\u00fc\u00e9 c");
    EXPECT_EQ(t.token_to_id("</s>"), 2);
    EXPECT_EQ(t.id_to_token(sp_ab), "\u2581ab");
    EXPECT_TRUE(t.is_special(1));
    EXPECT_FALSE(t.is_special(sp_ab));
    EXPECT_EQ(t.bos_id(), 1);
    EXPECT_EQ(t.vocab_size(), 268);
  }
}

TEST(Tokenizer, StreamDecoderNeverBreaksUtf8) {
  Tokenizer t = Tokenizer::from_json(sp_tokenizer(false));
  // "ü" arrives as two byte tokens: nothing is emitted until the character is whole.
  StreamDecoder d(t);
  EXPECT_EQ(d.put(265), "ab");        // leading '▁' stripped at the start of the text
  EXPECT_EQ(d.put(3 + 0xC3), "");
  EXPECT_EQ(d.put(3 + 0xBC), "\u00fc");
  EXPECT_EQ(d.put(266), " c");
  // A 4-byte emoji over four tokens; an incomplete tail at the end becomes U+FFFD.
  const unsigned char smile[] = {0xF0, 0x9F, 0x98, 0x80};
  for (int i = 0; i < 3; ++i) EXPECT_EQ(d.put(3 + smile[i]), "");
  EXPECT_EQ(d.put(3 + smile[3]), "\U0001F600");
  EXPECT_EQ(d.put(3 + 0xE2), "");
  EXPECT_EQ(d.flush(), "\ufffd");
  // Invalid bytes are replaced at once, not held.
  StreamDecoder e(t);
  EXPECT_EQ(e.put(3 + 0x80), "\ufffd");
  EXPECT_THROW(e.put(100000), Error);
}

TEST(Tokenizer, Errors) {
  EXPECT_THROW(Tokenizer::from_json("{not json"), Error);
  EXPECT_THROW(Tokenizer::load("/nonexistent/tokenizer.json"), Error);
  nlohmann::json j = nlohmann::json::parse(sp_tokenizer(false));
  j["model"]["type"] = "WordPiece";
  try {
    Tokenizer::from_json(j.dump());
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("WordPiece"), std::string::npos);
  }
  j = nlohmann::json::parse(sp_tokenizer(false));
  j["normalizer"] = {{"type", "NFKC"}};
  EXPECT_THROW(Tokenizer::from_json(j.dump()), Error);
  j = nlohmann::json::parse(sp_tokenizer(false));
  j["model"]["merges"].push_back("x y");
  EXPECT_THROW(Tokenizer::from_json(j.dump()), Error);
  j = nlohmann::json::parse(sp_tokenizer(false));
  j["pre_tokenizer"] = {{"type", "Split"}, {"pattern", {{"Regex", "(unclosed"}}}, {"behavior", "Isolated"}};
  EXPECT_THROW(Tokenizer::from_json(j.dump()), Error);
}

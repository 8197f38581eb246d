// A tokenizer read from a Hugging Face tokenizer.json: byte-level BPE (GPT-2, Llama 3, Qwen2/3) and
// SentencePiece-style BPE with byte fallback (Llama 2, Mistral).
//
// encode(text): split out added tokens (special ones are never broken up) -> for the text between them:
// normalizer (NFC, Prepend, Replace) -> pre-tokenizer (regex Split via PCRE2, ByteLevel, Metaspace) -> BPE
// merges -> ids; then the post-processor's special tokens (BOS ...) when add_special_tokens.
// decode(ids): each token's bytes (byte-level map or byte fallback, '▁' -> ' '), joined; invalid UTF-8 is
// replaced by U+FFFD. StreamDecoder does the same one token at a time and never emits a broken character.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tessera::engine {

struct TokenizerData;  // the parsed tokenizer.json; defined in src/engine/tokenizer/tokenizer_data.h

class Tokenizer {
 public:
  // `path`: a tokenizer.json, or a directory holding one. Unsupported components (a WordPiece model, an
  // NFKC normalizer, ...) are errors naming them.
  static Tokenizer load(const std::string& path);
  static Tokenizer from_json(const std::string& json_text, const std::string& source = "tokenizer.json");

  std::vector<int> encode(std::string_view text, bool add_special_tokens = true) const;
  std::string decode(const std::vector<int>& ids, bool skip_special_tokens = false) const;

  int vocab_size() const;  // largest id + 1, added tokens included
  std::optional<int> token_to_id(const std::string& token) const;
  std::string id_to_token(int id) const;  // "" for an unknown id
  bool is_special(int id) const;
  std::optional<int> bos_id() const;      // the first special token the post-processor puts before the text
  // The bytes a token stands for (before U+FFFD replacement); used by the stream decoder.
  std::string token_bytes(int id) const;
  // Leading spaces the decoder strips from the start of the text ("▁Hello" decodes to "Hello", not " Hello").
  int strip_leading_spaces() const;

 private:
  std::shared_ptr<const TokenizerData> d_;
};

// Decodes one token at a time. put() returns the text that is complete so far: bytes of a UTF-8 character
// split across tokens are held back until the character is whole. flush() returns what is left (an
// incomplete character as U+FFFD). The pieces joined equal Tokenizer::decode of all the ids.
class StreamDecoder {
 public:
  explicit StreamDecoder(const Tokenizer& tokenizer, bool skip_special_tokens = false)
      : tok_(&tokenizer), skip_special_(skip_special_tokens), strip_(tokenizer.strip_leading_spaces()) {}
  std::string put(int id);
  std::string flush();

 private:
  const Tokenizer* tok_;
  bool skip_special_;
  int strip_;          // leading spaces still to strip
  std::string pending_;
};

}  // namespace tessera::engine

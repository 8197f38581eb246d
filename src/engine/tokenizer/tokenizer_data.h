// The parsed tokenizer.json, as plain data. Internal to the engine.
#pragma once
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace tessera::engine {

struct AddedToken {
  int id = 0;
  std::string content;
  bool special = false, lstrip = false, rstrip = false;
};

// One normalizer step.
struct NormalizerStep {
  enum Kind { nfc, prepend, replace } kind = nfc;
  std::string a, b;  // prepend: a; replace: a -> b
};

// One pre-tokenizer step.
struct PreTokenizerStep {
  enum Kind { split, byte_level, metaspace } kind = split;
  std::shared_ptr<pcre2_code> regex;  // split; byte_level with use_regex (the GPT-2 pattern)
  bool remove_matches = false;        // split behavior "Removed" (else "Isolated")
  bool add_prefix_space = false;      // byte_level
  std::string replacement = "\xe2\x96\x81";  // metaspace: '▁'
  enum Prepend { always, first, never } prepend = always;
  bool split_on_replacement = true;   // metaspace
};

struct BpeMerge {
  int rank;
  int id;
};

struct TokenizerData {
  std::string source;
  // model (BPE)
  std::unordered_map<std::string, int> vocab;
  std::unordered_map<uint64_t, BpeMerge> merges;  // (left id << 32 | right id) -> rank, merged id
  int unk_id = -1;
  bool fuse_unk = false, byte_fallback = false, ignore_merges = false;
  int byte_tokens[256];                           // "<0xAB>" ids for byte fallback, -1 where absent
  // everything else
  std::vector<AddedToken> added;                  // longest first
  std::vector<NormalizerStep> normalizer;
  std::vector<PreTokenizerStep> pre_tokenizer;
  std::vector<int> prefix_ids, suffix_ids;        // post-processor, single sequence
  // decoding
  std::vector<std::string> id_to_token;
  std::vector<std::string> id_bytes;              // what each token decodes to
  std::vector<bool> special;
  int strip_leading = 0;
};

// The BPE model on one pre-token (already byte-level mapped where the tokenizer is byte-level).
void bpe_encode(const TokenizerData& d, const std::string& word, std::vector<int>& out);

}  // namespace tessera::engine

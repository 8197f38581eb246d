// Tokenizer: reading tokenizer.json, and the encode / decode pipelines around the BPE model.
#include "tessera/engine/tokenizer.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tessera/runtime/error.h"
#include "tokenizer_data.h"
#include "unicode.h"

namespace tessera::engine {

using nlohmann::json;

namespace {

const char* kGpt2Pattern = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

// GPT-2's reversible map from bytes to printable characters: printable Latin-1 bytes map to themselves, the
// rest to U+0100 onwards, in byte order.
const std::vector<std::string>& byte_to_char() {
  static const std::vector<std::string> table = [] {
    std::vector<std::string> t(256);
    int next = 256;
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
      unicode::append_utf8(t[size_t(b)], char32_t(printable ? b : next++));
    }
    return t;
  }();
  return table;
}
const std::unordered_map<char32_t, uint8_t>& char_to_byte() {
  static const std::unordered_map<char32_t, uint8_t> table = [] {
    std::unordered_map<char32_t, uint8_t> t;
    for (int b = 0; b < 256; ++b) {
      size_t i = 0;
      t.emplace(unicode::next_utf8(byte_to_char()[size_t(b)], i), uint8_t(b));
    }
    return t;
  }();
  return table;
}

std::shared_ptr<pcre2_code> compile_regex(const std::string& pattern, const std::string& source) {
  int err = 0;
  PCRE2_SIZE offset = 0;
  pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                                   PCRE2_UTF | PCRE2_UCP, &err, &offset, nullptr);
  if (!code) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(err, message, sizeof(message));
    invalid_argument("tokenizer: " + source + ": bad pre-tokenizer regex at offset " + std::to_string(offset) + ": " +
                     reinterpret_cast<const char*>(message));
  }
  pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);  // best effort: the interpreter is the fallback
  return std::shared_ptr<pcre2_code>(code, pcre2_code_free);
}

[[noreturn]] void unsupported_part(const std::string& source, const std::string& what, const json& j) {
  unsupported("tokenizer: " + source + ": " + what + " '" +
              (j.contains("type") && j["type"].is_string() ? j["type"].get<std::string>() : j.dump()) +
              "' is not supported");
}

std::string pattern_string(const json& pattern, const std::string& source, bool& is_regex) {
  if (pattern.contains("String")) {
    is_regex = false;
    return pattern["String"].get<std::string>();
  }
  if (pattern.contains("Regex")) {
    is_regex = true;
    return pattern["Regex"].get<std::string>();
  }
  invalid_argument("tokenizer: " + source + ": a pattern is neither String nor Regex: " + pattern.dump());
}

// Escapes a literal for PCRE2.
std::string regex_quote(const std::string& s) { return "\\Q" + s + "\\E"; }

void read_normalizer(const json& j, TokenizerData& d) {
  if (j.is_null()) return;
  const std::string type = j.value("type", "");
  if (type == "Sequence") {
    for (auto& n : j["normalizers"]) read_normalizer(n, d);
  } else if (type == "NFC") {
    d.normalizer.push_back({NormalizerStep::nfc, "", ""});
  } else if (type == "Prepend") {
    d.normalizer.push_back({NormalizerStep::prepend, j["prepend"].get<std::string>(), ""});
  } else if (type == "Replace") {
    bool is_regex = false;
    std::string from = pattern_string(j["pattern"], d.source, is_regex);
    if (is_regex) unsupported("tokenizer: " + d.source + ": Replace normalizer with a regex pattern is not supported");
    d.normalizer.push_back({NormalizerStep::replace, from, j["content"].get<std::string>()});
  } else {
    unsupported_part(d.source, "normalizer", j);
  }
}

void read_pre_tokenizer(const json& j, TokenizerData& d) {
  if (j.is_null()) return;
  const std::string type = j.value("type", "");
  PreTokenizerStep s;
  if (type == "Sequence") {
    for (auto& p : j["pretokenizers"]) read_pre_tokenizer(p, d);
    return;
  } else if (type == "Split") {
    s.kind = PreTokenizerStep::split;
    bool is_regex = false;
    std::string pattern = pattern_string(j["pattern"], d.source, is_regex);
    s.regex = compile_regex(is_regex ? pattern : regex_quote(pattern), d.source);
    const std::string behavior = j.value("behavior", "Isolated");
    if (behavior == "Removed") s.remove_matches = true;
    else if (behavior != "Isolated")
      unsupported("tokenizer: " + d.source + ": Split behavior '" + behavior + "' is not supported");
    if (j.value("invert", false)) unsupported("tokenizer: " + d.source + ": inverted Split is not supported");
  } else if (type == "ByteLevel") {
    s.kind = PreTokenizerStep::byte_level;
    s.add_prefix_space = j.value("add_prefix_space", false);
    if (j.value("use_regex", true)) s.regex = compile_regex(kGpt2Pattern, d.source);
  } else if (type == "Metaspace") {
    s.kind = PreTokenizerStep::metaspace;
    s.replacement = j.value("replacement", std::string("\xe2\x96\x81"));
    std::string scheme = j.contains("prepend_scheme") ? j["prepend_scheme"].get<std::string>()
                                                      : (j.value("add_prefix_space", true) ? "always" : "never");
    s.prepend = scheme == "first" ? PreTokenizerStep::first : scheme == "never" ? PreTokenizerStep::never
                                                                                : PreTokenizerStep::always;
    s.split_on_replacement = j.value("split", true);
  } else {
    unsupported_part(d.source, "pre-tokenizer", j);
  }
  d.pre_tokenizer.push_back(std::move(s));
}

std::vector<int> special_ids(const json& special_tokens, const std::string& name, const TokenizerData& d) {
  if (special_tokens.contains(name)) return special_tokens[name]["ids"].get<std::vector<int>>();
  auto it = d.vocab.find(name);
  if (it != d.vocab.end()) return {it->second};
  invalid_argument("tokenizer: " + d.source + ": post-processor names an unknown token '" + name + "'");
}

void read_post_processor(const json& j, TokenizerData& d) {
  if (j.is_null()) return;
  const std::string type = j.value("type", "");
  if (type == "Sequence") {
    for (auto& p : j["processors"]) read_post_processor(p, d);
  } else if (type == "ByteLevel") {
    // Offsets only; the ids are unchanged.
  } else if (type == "TemplateProcessing") {
    bool seen_sequence = false;
    for (auto& item : j["single"]) {
      if (item.contains("Sequence")) {
        seen_sequence = true;
        continue;
      }
      const std::string name = item["SpecialToken"]["id"].get<std::string>();
      for (int id : special_ids(j["special_tokens"], name, d)) (seen_sequence ? d.suffix_ids : d.prefix_ids).push_back(id);
    }
  } else if (type == "RobertaProcessing" || type == "BertProcessing") {
    d.prefix_ids.push_back(j["cls"][1].get<int>());
    d.suffix_ids.push_back(j["sep"][1].get<int>());
  } else {
    unsupported_part(d.source, "post-processor", j);
  }
}

// How each token turns back into bytes.
struct DecoderSpec {
  bool byte_level = false, byte_fallback = false;
  std::vector<std::pair<std::string, std::string>> replace;
  int strip_leading = 0;
};

void read_decoder(const json& j, DecoderSpec& spec, const std::string& source) {
  if (j.is_null()) return;
  const std::string type = j.value("type", "");
  if (type == "Sequence") {
    for (auto& p : j["decoders"]) read_decoder(p, spec, source);
  } else if (type == "ByteLevel") {
    spec.byte_level = true;
  } else if (type == "ByteFallback") {
    spec.byte_fallback = true;
  } else if (type == "Fuse") {
  } else if (type == "Replace") {
    bool is_regex = false;
    std::string from = pattern_string(j["pattern"], source, is_regex);
    if (is_regex) unsupported("tokenizer: " + source + ": Replace decoder with a regex pattern is not supported");
    spec.replace.emplace_back(from, j["content"].get<std::string>());
  } else if (type == "Strip") {
    if (j.value("content", " ") != " " || j.value("stop", 0) != 0)
      unsupported("tokenizer: " + source + ": a Strip decoder other than leading spaces is not supported");
    spec.strip_leading += j.value("start", 0);
  } else if (type == "Metaspace") {
    const std::string r = j.value("replacement", std::string("\xe2\x96\x81"));
    spec.replace.emplace_back(r, " ");
    std::string scheme = j.contains("prepend_scheme") ? j["prepend_scheme"].get<std::string>()
                                                      : (j.value("add_prefix_space", true) ? "always" : "never");
    if (scheme != "never") spec.strip_leading += 1;
  } else {
    unsupported_part(source, "decoder", j);
  }
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  if (from.empty()) return s;
  std::string out;
  size_t i = 0;
  for (size_t k; (k = s.find(from, i)) != std::string::npos; i = k + from.size()) out.append(s, i, k - i).append(to);
  return out.append(s, i, std::string::npos);
}

std::string token_to_bytes(const std::string& token, const DecoderSpec& spec) {
  if (spec.byte_fallback && token.size() == 6 && token.compare(0, 3, "<0x") == 0 && token[5] == '>') {
    unsigned v = 0;
    if (std::sscanf(token.c_str() + 3, "%2X", &v) == 1) return std::string(1, char(v));
  }
  std::string t = token;
  for (auto& [from, to] : spec.replace) t = replace_all(t, from, to);
  if (!spec.byte_level) return t;
  // Byte-level: every character back to its byte; a token with other characters stays as it is.
  std::string out;
  const auto& table = char_to_byte();
  for (size_t i = 0; i < t.size();) {
    auto it = table.find(unicode::next_utf8(t, i));
    if (it == table.end()) return t;
    out.push_back(char(it->second));
  }
  return out;
}

void parse(const json& j, TokenizerData& d) {
  const json& model = j.at("model");
  const std::string model_type = model.value("type", "BPE");
  if (model_type != "BPE") unsupported_part(d.source, "model", model);
  if (model.contains("continuing_subword_prefix") && model["continuing_subword_prefix"].is_string() &&
      !model["continuing_subword_prefix"].get<std::string>().empty())
    unsupported("tokenizer: " + d.source + ": BPE continuing_subword_prefix is not supported");
  if (model.contains("end_of_word_suffix") && model["end_of_word_suffix"].is_string() &&
      !model["end_of_word_suffix"].get<std::string>().empty())
    unsupported("tokenizer: " + d.source + ": BPE end_of_word_suffix is not supported");
  for (auto& [token, id] : model.at("vocab").items()) d.vocab.emplace(token, id.get<int>());
  d.fuse_unk = model.value("fuse_unk", false);
  d.byte_fallback = model.value("byte_fallback", false);
  d.ignore_merges = model.value("ignore_merges", false);
  if (model.contains("unk_token") && model["unk_token"].is_string()) {
    auto it = d.vocab.find(model["unk_token"].get<std::string>());
    if (it != d.vocab.end()) d.unk_id = it->second;
  }
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof(name), "<0x%02X>", b);
    auto it = d.vocab.find(name);
    d.byte_tokens[b] = it == d.vocab.end() ? -1 : it->second;
  }
  // Merges: "a b" strings (older files) or ["a", "b"] pairs (newer ones). Rank is the position.
  const json& merges = model.at("merges");
  d.merges.reserve(merges.size());
  int rank = 0;
  for (auto& m : merges) {
    std::string a, b;
    if (m.is_string()) {
      const std::string s = m.get<std::string>();
      const size_t space = s.find(' ', 1);
      if (space == std::string::npos) invalid_argument("tokenizer: " + d.source + ": merge '" + s + "' is not 'a b'");
      a = s.substr(0, space);
      b = s.substr(space + 1);
    } else if (m.is_array() && m.size() == 2) {
      a = m[0].get<std::string>();
      b = m[1].get<std::string>();
    } else {
      invalid_argument("tokenizer: " + d.source + ": merge " + m.dump() + " is neither 'a b' nor [a, b]");
    }
    auto ia = d.vocab.find(a), ib = d.vocab.find(b), ic = d.vocab.find(a + b);
    if (ia == d.vocab.end() || ib == d.vocab.end() || ic == d.vocab.end())
      invalid_argument("tokenizer: " + d.source + ": merge '" + a + " " + b + "' uses a token not in the vocabulary");
    d.merges.emplace((uint64_t(uint32_t(ia->second)) << 32) | uint32_t(ib->second), BpeMerge{rank++, ic->second});
  }
  // Added tokens.
  if (j.contains("added_tokens") && j["added_tokens"].is_array())
    for (auto& t : j["added_tokens"]) {
      AddedToken a;
      a.id = t.at("id").get<int>();
      a.content = t.at("content").get<std::string>();
      a.special = t.value("special", false);
      a.lstrip = t.value("lstrip", false);
      a.rstrip = t.value("rstrip", false);
      if (!a.content.empty()) d.added.push_back(a);
    }
  std::stable_sort(d.added.begin(), d.added.end(),
                   [](const AddedToken& x, const AddedToken& y) { return x.content.size() > y.content.size(); });

  read_normalizer(j.value("normalizer", json()), d);
  read_pre_tokenizer(j.value("pre_tokenizer", json()), d);
  read_post_processor(j.value("post_processor", json()), d);
  DecoderSpec spec;
  read_decoder(j.value("decoder", json()), spec, d.source);
  d.strip_leading = spec.strip_leading;

  int size = 0;
  for (auto& [token, id] : d.vocab) size = std::max(size, id + 1);
  for (auto& a : d.added) size = std::max(size, a.id + 1);
  d.id_to_token.assign(size_t(size), "");
  d.special.assign(size_t(size), false);
  for (auto& [token, id] : d.vocab)
    if (id >= 0) d.id_to_token[size_t(id)] = token;
  for (auto& a : d.added) {
    d.id_to_token[size_t(a.id)] = a.content;
    d.special[size_t(a.id)] = a.special;
  }
  d.id_bytes.resize(size_t(size));
  for (int id = 0; id < size; ++id) d.id_bytes[size_t(id)] = token_to_bytes(d.id_to_token[size_t(id)], spec);
}

// ---- encoding ----

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

// Splits on the regex: the matches and the text between them are separate pieces (Isolated), or the
// matches are dropped (Removed).
void regex_split(const PreTokenizerStep& s, const std::string& text, std::vector<std::string>& out) {
  pcre2_match_data* md = pcre2_match_data_create_from_pattern(s.regex.get(), nullptr);
  size_t at = 0, last = 0;
  while (at <= text.size()) {
    int rc = pcre2_match(s.regex.get(), reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(), at,
                         PCRE2_NO_UTF_CHECK, md, nullptr);
    if (rc < 0) break;
    PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md);
    size_t b = ov[0], e = ov[1];
    if (e == b) {  // empty match: step over one character
      if (b >= text.size()) break;
      at = b + 1;
      while (at < text.size() && (uint8_t(text[at]) & 0xC0) == 0x80) ++at;
      continue;
    }
    if (b > last) out.push_back(text.substr(last, b - last));
    if (!s.remove_matches) out.push_back(text.substr(b, e - b));
    last = at = e;
  }
  if (last < text.size()) out.push_back(text.substr(last));
  pcre2_match_data_free(md);
}

void encode_section(const TokenizerData& d, std::string text, bool first_section, std::vector<int>& ids) {
  for (const NormalizerStep& n : d.normalizer) {
    if (n.kind == NormalizerStep::nfc) text = unicode::nfc(text);
    else if (n.kind == NormalizerStep::prepend) {
      if (!text.empty()) text = n.a + text;
    } else text = replace_all(text, n.a, n.b);
  }
  if (text.empty()) return;
  std::vector<std::string> pieces{text}, next;
  for (const PreTokenizerStep& s : d.pre_tokenizer) {
    next.clear();
    for (std::string& p : pieces) {
      if (s.kind == PreTokenizerStep::split) {
        regex_split(s, p, next);
      } else if (s.kind == PreTokenizerStep::byte_level) {
        if (s.add_prefix_space && !p.empty() && p[0] != ' ') p = " " + p;
        std::vector<std::string> parts;
        if (s.regex) regex_split(s, p, parts);
        else parts.push_back(p);
        const auto& table = byte_to_char();
        for (const std::string& part : parts) {
          std::string mapped;
          for (char c : part) mapped += table[uint8_t(c)];
          next.push_back(std::move(mapped));
        }
      } else {  // metaspace
        std::string m = replace_all(p, " ", s.replacement);
        const bool prepend = s.prepend == PreTokenizerStep::always || (s.prepend == PreTokenizerStep::first && first_section);
        if (prepend && m.compare(0, s.replacement.size(), s.replacement) != 0) m = s.replacement + m;
        if (!s.split_on_replacement) {
          next.push_back(m);
          continue;
        }
        // Each piece starts at a replacement character.
        size_t start = 0;
        for (size_t k = m.find(s.replacement, 1); k != std::string::npos; k = m.find(s.replacement, k + 1)) {
          if (k > start) next.push_back(m.substr(start, k - start));
          start = k;
        }
        if (start < m.size()) next.push_back(m.substr(start));
      }
    }
    pieces.swap(next);
  }
  for (const std::string& p : pieces) bpe_encode(d, p, ids);
}

}  // namespace

Tokenizer Tokenizer::from_json(const std::string& text, const std::string& source) {
  auto d = std::make_shared<TokenizerData>();
  d->source = source;
  try {
    parse(json::parse(text), *d);
  } catch (const json::exception& e) {
    invalid_argument("tokenizer: " + source + ": malformed or unexpected JSON: " + e.what());
  }
  Tokenizer t;
  t.d_ = std::move(d);
  return t;
}

Tokenizer Tokenizer::load(const std::string& path) {
  std::filesystem::path p(path);
  std::error_code ec;
  if (std::filesystem::is_directory(p, ec)) p /= "tokenizer.json";
  std::ifstream in(p, std::ios::binary);
  if (!in) fail(Status::io_error, "tokenizer: cannot open " + p.string());
  std::stringstream ss;
  ss << in.rdbuf();
  return from_json(ss.str(), p.string());
}

std::vector<int> Tokenizer::encode(std::string_view raw, bool add_special_tokens) const {
  const TokenizerData& d = *d_;
  const std::string text = unicode::to_valid_utf8(raw);
  std::vector<int> ids;
  if (add_special_tokens) ids = d.prefix_ids;
  // Added tokens first: at each position the longest one that matches; the text between is encoded.
  size_t start = 0, i = 0;
  int section = 0;
  bool strip_next = false;  // the previous added token has rstrip
  auto flush_text = [&](size_t end, bool lstrip) {
    size_t b = start, e = end;
    if (strip_next) while (b < e && is_space(text[b])) ++b;
    if (lstrip) while (e > b && is_space(text[e - 1])) --e;
    if (e > b) encode_section(d, text.substr(b, e - b), section == 0, ids);
    ++section;
  };
  while (i < text.size()) {
    const AddedToken* hit = nullptr;
    if (!d.added.empty())
      for (const AddedToken& a : d.added)
        if (text.compare(i, a.content.size(), a.content) == 0) {
          hit = &a;
          break;
        }
    if (!hit) {
      ++i;
      continue;
    }
    flush_text(i, hit->lstrip);
    ids.push_back(hit->id);
    strip_next = hit->rstrip;
    i += hit->content.size();
    start = i;
  }
  flush_text(text.size(), false);
  if (add_special_tokens) ids.insert(ids.end(), d.suffix_ids.begin(), d.suffix_ids.end());
  return ids;
}

std::string Tokenizer::decode(const std::vector<int>& ids, bool skip_special_tokens) const {
  StreamDecoder s(*this, skip_special_tokens);
  std::string out;
  for (int id : ids) out += s.put(id);
  return out + s.flush();
}

int Tokenizer::vocab_size() const { return int(d_->id_to_token.size()); }
std::optional<int> Tokenizer::token_to_id(const std::string& token) const {
  for (const AddedToken& a : d_->added)
    if (a.content == token) return a.id;
  auto it = d_->vocab.find(token);
  if (it == d_->vocab.end()) return std::nullopt;
  return it->second;
}
std::string Tokenizer::id_to_token(int id) const {
  return id >= 0 && id < vocab_size() ? d_->id_to_token[size_t(id)] : std::string();
}
bool Tokenizer::is_special(int id) const { return id >= 0 && id < vocab_size() && d_->special[size_t(id)]; }
std::optional<int> Tokenizer::bos_id() const {
  if (d_->prefix_ids.empty()) return std::nullopt;
  return d_->prefix_ids[0];
}
std::string Tokenizer::token_bytes(int id) const {
  if (id < 0 || id >= vocab_size())
    invalid_argument("tokenizer: " + d_->source + ": token id " + std::to_string(id) + " is out of range [0, " +
                     std::to_string(vocab_size()) + ")");
  return d_->id_bytes[size_t(id)];
}
int Tokenizer::strip_leading_spaces() const { return d_->strip_leading; }

// ---- streaming ----

std::string StreamDecoder::put(int id) {
  if (skip_special_ && tok_->is_special(id)) return {};
  std::string bytes = tok_->token_bytes(id);
  size_t k = 0;
  while (strip_ > 0 && k < bytes.size() && bytes[k] == ' ') ++k, --strip_;
  if (k < bytes.size()) strip_ = 0;  // only the very start of the text is stripped
  pending_.append(bytes, k, std::string::npos);
  // Emit every complete character; replace invalid bytes; keep an incomplete tail.
  std::string out;
  size_t i = 0;
  while (i < pending_.size()) {
    const int n = unicode::utf8_sequence_length(pending_, i);
    if (n == 0) break;
    if (n > 0) {
      out.append(pending_, i, size_t(n));
      i += size_t(n);
    } else {
      unicode::append_utf8(out, unicode::next_utf8(pending_, i));
    }
  }
  pending_.erase(0, i);
  return out;
}

std::string StreamDecoder::flush() {
  std::string out = unicode::to_valid_utf8(pending_);
  pending_.clear();
  return out;
}

}  // namespace tessera::engine

// UTF-8 helpers and NFC (canonical decomposition, canonical ordering, canonical composition; UAX #15).
#include "unicode.h"

#include <algorithm>
#include <unordered_map>

namespace tessera::engine::unicode {

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out.push_back(char(cp));
  } else if (cp < 0x800) {
    out.push_back(char(0xC0 | (cp >> 6)));
    out.push_back(char(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(char(0xE0 | (cp >> 12)));
    out.push_back(char(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(char(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(char(0xF0 | (cp >> 18)));
    out.push_back(char(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(char(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(char(0x80 | (cp & 0x3F)));
  }
}

int utf8_sequence_length(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return uint8_t(s[k]); };
  const uint8_t c = b(i);
  if (c < 0x80) return 1;
  int n;
  uint8_t lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF) n = 2;
  else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;  // no surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else return -1;
  for (int k = 1; k < n; ++k) {
    if (i + size_t(k) >= s.size()) return 0;
    const uint8_t x = b(i + size_t(k));
    if (k == 1 ? (x < lo || x > hi) : (x < 0x80 || x > 0xBF)) return -1;
  }
  return n;
}

char32_t next_utf8(std::string_view s, size_t& i) {
  const int n = utf8_sequence_length(s, i);
  if (n <= 0) {
    // Skip the lead byte and any continuation bytes that were valid so far (one U+FFFD per maximal prefix).
    size_t j = i + 1;
    const uint8_t c = uint8_t(s[i]);
    int want = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC2 ? 1 : 0;
    for (; want > 0 && j < s.size(); --want, ++j) {
      std::string_view prefix = s.substr(i, j - i + 1);
      if (utf8_sequence_length(prefix, 0) == -1) break;
    }
    i = j;
    return 0xFFFD;
  }
  const uint8_t* p = reinterpret_cast<const uint8_t*>(s.data()) + i;
  char32_t cp = n == 1 ? p[0] : n == 2 ? (p[0] & 0x1F) : n == 3 ? (p[0] & 0x0F) : (p[0] & 0x07);
  for (int k = 1; k < n; ++k) cp = (cp << 6) | (p[k] & 0x3F);
  i += size_t(n);
  return cp;
}

std::string to_valid_utf8(std::string_view s) {
  size_t i = 0;
  for (; i < s.size(); ++i)
    if (uint8_t(s[i]) >= 0x80) break;
  if (i == s.size()) return std::string(s);
  std::string out(s.substr(0, i));
  while (i < s.size()) append_utf8(out, next_utf8(s, i));
  return out;
}

std::u32string to_u32(std::string_view s) {
  std::u32string out;
  for (size_t i = 0; i < s.size();) out.push_back(next_utf8(s, i));
  return out;
}

std::string to_utf8(const std::u32string& s) {
  std::string out;
  for (char32_t c : s) append_utf8(out, c);
  return out;
}

// ---- NFC ----

namespace {

constexpr char32_t SBase = 0xAC00, LBase = 0x1100, VBase = 0x1161, TBase = 0x11A7;
constexpr int LCount = 19, VCount = 21, TCount = 28, NCount = VCount * TCount, SCount = LCount * NCount;

struct Tables {
  std::unordered_map<char32_t, std::pair<char32_t, char32_t>> decomp;  // second == 0: singleton
  std::unordered_map<uint64_t, char32_t> compose;                      // (first << 32 | second) -> composite
  Tables() {
    for (int i = 0; i < kNumDecompositions; ++i) {
      const Decomposition& d = kDecompositions[i];
      decomp.emplace(d.cp, std::make_pair(char32_t(d.first), char32_t(d.second)));
      if (d.composes) compose.emplace((uint64_t(d.first) << 32) | d.second, d.cp);
    }
  }
};
const Tables& tables() {
  static const Tables t;
  return t;
}

int ccc(char32_t cp) {
  if (cp < 0x300) return 0;
  int lo = 0, hi = kNumCccRanges - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    if (cp < kCccRanges[mid].first) hi = mid - 1;
    else if (cp > kCccRanges[mid].last) lo = mid + 1;
    else return int(kCccRanges[mid].ccc);
  }
  return 0;
}

void decompose(char32_t cp, std::u32string& out) {
  if (cp >= SBase && cp < SBase + SCount) {
    const int s = int(cp - SBase);
    out.push_back(LBase + s / NCount);
    out.push_back(VBase + (s % NCount) / TCount);
    if (s % TCount) out.push_back(TBase + s % TCount);
    return;
  }
  const auto& d = tables().decomp;
  auto it = d.find(cp);
  if (it == d.end()) {
    out.push_back(cp);
    return;
  }
  decompose(it->second.first, out);
  if (it->second.second) decompose(it->second.second, out);
}

char32_t compose_pair(char32_t a, char32_t b) {
  if (a >= LBase && a < LBase + LCount && b >= VBase && b < VBase + VCount)
    return SBase + ((a - LBase) * VCount + (b - VBase)) * TCount;
  if (a >= SBase && a < SBase + SCount && (a - SBase) % TCount == 0 && b > TBase && b < TBase + TCount)
    return a + (b - TBase);
  const auto& c = tables().compose;
  auto it = c.find((uint64_t(a) << 32) | b);
  return it == c.end() ? 0 : it->second;
}

}  // namespace

std::string nfc(std::string_view s) {
  // Quick exit: text below U+0300 never changes under NFC.
  bool simple = true;
  for (size_t i = 0; i < s.size() && simple; ++i)
    if (uint8_t(s[i]) >= 0xCC) simple = false;
  if (simple) return to_valid_utf8(s);

  std::u32string d;
  for (size_t i = 0; i < s.size();) decompose(next_utf8(s, i), d);
  // Canonical ordering: stable sort each run of non-starters by combining class.
  for (size_t i = 0; i < d.size();) {
    if (ccc(d[i]) == 0) { ++i; continue; }
    size_t j = i;
    while (j < d.size() && ccc(d[j]) != 0) ++j;
    std::stable_sort(d.begin() + long(i), d.begin() + long(j), [](char32_t a, char32_t b) { return ccc(a) < ccc(b); });
    i = j;
  }
  // Canonical composition.
  std::u32string out;
  size_t starter = std::u32string::npos;  // index in `out` of the last starter
  int last_ccc = -1;
  for (char32_t c : d) {
    const int cc = ccc(c);
    if (starter != std::u32string::npos && (last_ccc < cc || (last_ccc == 0 && out.size() == starter + 1))) {
      // Not blocked: the previous character is the starter itself, or has a lower class.
      if (char32_t comp = compose_pair(out[starter], c)) {
        out[starter] = comp;
        continue;
      }
    }
    if (cc == 0) starter = out.size();
    last_ccc = cc;
    out.push_back(c);
  }
  return to_utf8(out);
}

}  // namespace tessera::engine::unicode

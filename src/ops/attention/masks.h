// Which keys a query sees, and the validation of the index tensors of the attention family (host code, used
// by the front-end for CPU index tensors and by the reference for any).
#pragma once
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tessera::ops {

// The keys [begin, end) a query sees.
struct KeyRange {
  int64_t begin = 0, end = 0;
  bool empty() const { return end <= begin; }
};

// A query at position `pos` (in key coordinates: query i of Sq against Sk keys sits at i + Sk - Sq) sees key j
// when j <= pos (causal) and j >= pos - window_left (sliding window, window_left >= 0), among keys [0, n).
inline KeyRange visible_keys(int64_t pos, int64_t n, bool causal, int64_t window_left) {
  KeyRange r{0, n};
  if (causal) r.end = std::min(n, pos + 1);
  if (window_left >= 0) r.begin = std::max<int64_t>(0, pos - window_left);
  return r;
}

// cu [B + 1] must start at 0, not decrease, and end at most at `rows` (the rows of `tensor`).
inline std::optional<std::string> check_cumulative_lengths(const std::vector<int64_t>& cu, int64_t rows, const char* name,
                                                           const char* tensor) {
  auto at = [&](size_t i) { return std::string(name) + "[" + std::to_string(i) + "] = " + std::to_string(cu[i]); };
  if (cu.empty()) return std::string(name) + " is empty; it needs B + 1 entries";
  if (cu[0] != 0) return at(0) + "; it must be 0";
  for (size_t i = 1; i < cu.size(); ++i)
    if (cu[i] < cu[i - 1]) return at(i) + " is less than " + at(i - 1) + "; cumulative lengths must not decrease";
  if (cu.back() > rows)
    return at(cu.size() - 1) + " exceeds the " + std::to_string(rows) + " rows of " + tensor + "; nothing was written";
  return std::nullopt;
}

// seq_lens[b] in [0, capacity of a sequence]; for a paged cache, every page a sequence uses must be in
// [0, num_pages). Entries of the block table beyond a sequence's length are not read.
inline std::optional<std::string> check_decode_indices(const std::vector<int64_t>& seq_lens, const std::vector<int64_t>& table,
                                                       int64_t pages_per_seq, int64_t num_pages, int64_t page_size,
                                                       bool paged) {
  const int64_t capacity = paged ? pages_per_seq * page_size : page_size;
  for (size_t b = 0; b < seq_lens.size(); ++b) {
    const int64_t len = seq_lens[b];
    if (len < 0 || len > capacity)
      return "seq_lens[" + std::to_string(b) + "] = " + std::to_string(len) + " is outside [0, " + std::to_string(capacity) +
             "], the token slots a sequence has in the cache; nothing was written";
    if (!paged) continue;
    for (int64_t p = 0; p * page_size < len; ++p) {
      const int64_t page = table[size_t(int64_t(b) * pages_per_seq + p)];
      if (page < 0 || page >= num_pages)
        return "block_table[" + std::to_string(b) + ", " + std::to_string(p) + "] = " + std::to_string(page) +
               " is outside [0, " + std::to_string(num_pages) + "), the pages of the cache; nothing was written";
    }
  }
  return std::nullopt;
}

}  // namespace tessera::ops

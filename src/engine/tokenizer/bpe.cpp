// Byte-pair encoding of one pre-token: characters (or byte-fallback tokens) as symbols, then repeatedly
// the adjacent pair with the lowest merge rank (leftmost first) is merged, until no pair has a merge.
#include <queue>

#include "tokenizer_data.h"
#include "unicode.h"

namespace tessera::engine {

namespace {

struct Symbol {
  int id;
  int prev, next;  // neighbours; -1 at the ends
  bool alive;
};

struct Candidate {
  int rank, pos, id;
  bool operator>(const Candidate& o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }
};

}  // namespace

void bpe_encode(const TokenizerData& d, const std::string& word, std::vector<int>& out) {
  if (word.empty()) return;
  if (d.ignore_merges) {
    auto it = d.vocab.find(word);
    if (it != d.vocab.end()) {
      out.push_back(it->second);
      return;
    }
  }
  // Initial symbols.
  std::vector<Symbol> sym;
  std::string ch;
  for (size_t i = 0; i < word.size();) {
    const size_t start = i;
    unicode::next_utf8(word, i);
    ch.assign(word, start, i - start);
    auto it = d.vocab.find(ch);
    if (it != d.vocab.end()) {
      sym.push_back({it->second, 0, 0, true});
      continue;
    }
    if (d.byte_fallback) {
      bool all = true;
      for (char c : ch) all = all && d.byte_tokens[uint8_t(c)] >= 0;
      if (all) {
        for (char c : ch) sym.push_back({d.byte_tokens[uint8_t(c)], 0, 0, true});
        continue;
      }
    }
    if (d.unk_id < 0) continue;  // no unknown token: the character is dropped, as Hugging Face does
    if (d.fuse_unk && !sym.empty() && sym.back().id == d.unk_id) continue;
    sym.push_back({d.unk_id, 0, 0, true});
  }
  const int n = int(sym.size());
  for (int i = 0; i < n; ++i) {
    sym[size_t(i)].prev = i - 1;
    sym[size_t(i)].next = i + 1 < n ? i + 1 : -1;
  }
  auto merge_of = [&](int a, int b) -> const BpeMerge* {
    auto it = d.merges.find((uint64_t(uint32_t(a)) << 32) | uint32_t(b));
    return it == d.merges.end() ? nullptr : &it->second;
  };
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<Candidate>> queue;
  for (int i = 0; i + 1 < n; ++i)
    if (const BpeMerge* m = merge_of(sym[size_t(i)].id, sym[size_t(i) + 1].id)) queue.push({m->rank, i, m->id});
  while (!queue.empty()) {
    const Candidate c = queue.top();
    queue.pop();
    Symbol& left = sym[size_t(c.pos)];
    if (!left.alive || left.next < 0) continue;
    Symbol& right = sym[size_t(left.next)];
    const BpeMerge* m = merge_of(left.id, right.id);
    if (!m || m->id != c.id || m->rank != c.rank) continue;  // stale: a neighbour changed since
    left.id = c.id;
    right.alive = false;
    left.next = right.next;
    if (right.next >= 0) sym[size_t(right.next)].prev = c.pos;
    if (left.prev >= 0)
      if (const BpeMerge* p = merge_of(sym[size_t(left.prev)].id, left.id)) queue.push({p->rank, left.prev, p->id});
    if (left.next >= 0)
      if (const BpeMerge* p = merge_of(left.id, sym[size_t(left.next)].id)) queue.push({p->rank, c.pos, p->id});
  }
  for (int i = 0; i >= 0 && n > 0; i = sym[size_t(i)].next) out.push_back(sym[size_t(i)].id);
}

}  // namespace tessera::engine

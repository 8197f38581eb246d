// The plain reference of the matmul examples: C = act(A @ B + bias), one dot product per element, in double,
// on the same (bf16-rounded) inputs the kernel reads, for the rows the check compares. Independent of the tile language.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace examples {

enum class BLayout { kn, nk };  // B stored as [K, N] (C = A @ B) or as [N, K] (C = A @ B^T, the weight layout)

// Rows of C the check compares: every row of a small problem; on a large one (the GPU's default sizes, where
// a double-precision reference of all of C would take the CPU minutes) 48 rows, every column of each: the
// first and last rows, the rows either side of the first tile edges, and rows spread over M.
inline std::vector<int64_t> rows_to_check(int64_t m, int64_t n, int64_t k) {
  std::vector<int64_t> rows;
  if (double(m) * double(n) * double(k) <= 1e9) {
    for (int64_t r = 0; r < m; ++r) rows.push_back(r);
    return rows;
  }
  for (int64_t r : {int64_t(0), int64_t(63), int64_t(64), int64_t(127), int64_t(128), m - 1})
    if (r < m) rows.push_back(r);
  for (int64_t i = 1; i <= 42; ++i) rows.push_back(std::min(m - 1, i * m / 43 + i % 7));
  return rows;
}

// The reference values of the given rows of C, row after row.
inline std::vector<double> matmul_reference(const std::vector<float>& a, const std::vector<float>& b,
                                            const std::vector<int64_t>& rows, int64_t n, int64_t k, BLayout layout,
                                            const std::vector<float>* bias = nullptr, bool silu = false) {
  std::vector<double> c;
  c.reserve(rows.size() * size_t(n));
  for (const int64_t i : rows)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t l = 0; l < k; ++l)
        s += double(a[size_t(i * k + l)]) * double(layout == BLayout::kn ? b[size_t(l * n + j)] : b[size_t(j * k + l)]);
      if (bias) s += (*bias)[size_t(j)];
      if (silu) s = s / (1.0 + std::exp(-s));
      c.push_back(s);
    }
  return c;
}

// The kernel's values of the same rows.
inline std::vector<float> pick_rows(const std::vector<float>& c, const std::vector<int64_t>& rows, int64_t n) {
  std::vector<float> out;
  out.reserve(rows.size() * size_t(n));
  for (const int64_t i : rows) out.insert(out.end(), c.begin() + i * n, c.begin() + (i + 1) * n);
  return out;
}

// What fp32 accumulation of k products of inputs in [-1, 1] may differ from the double reference by.
inline double matmul_tolerance(int64_t k) { return 1e-4 + 2e-6 * double(k); }


}  // namespace examples

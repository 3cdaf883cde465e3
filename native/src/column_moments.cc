// Column means and squared deviations (column_moments.h).
#include "column_moments.h"

#include <algorithm>

namespace gf {

namespace {
// 16 floats: one cache line of each row a piece; 49 pieces for 784 columns.
constexpr int64_t kCols = 16;
}  // namespace

void columnMoments(Pool& pool, const float* x, int64_t rows, int64_t cols, double* mean, double* sq) {
  if (cols <= 0) return;
  const int64_t pieces = (cols + kCols - 1) / kCols;
  pool.parallelFor(pieces, [&](int64_t p) {
    const int64_t c0 = p * kCols, w = std::min(kCols, cols - c0);
    double s[kCols] = {0}, m[kCols] = {0}, q[kCols] = {0};
    for (int64_t i = 0; i < rows; i++) {
      const float* row = x + i * cols + c0;
      for (int64_t j = 0; j < w; j++) s[j] += row[j];
    }
    for (int64_t j = 0; j < w; j++) m[j] = s[j] / static_cast<double>(rows);
    for (int64_t i = 0; i < rows; i++) {
      const float* row = x + i * cols + c0;
      for (int64_t j = 0; j < w; j++) {
        const double a = row[j] - m[j];
        q[j] += a * a;
      }
    }
    for (int64_t j = 0; j < w; j++) {
      mean[c0 + j] = m[j];
      sq[c0 + j] = q[j];
    }
  });
}

}  // namespace gf

// Column means and squared deviations, and the scaled copy (column_moments.h).
#include "column_moments.h"

#include <algorithm>
#include <vector>

namespace gf {

namespace {

// Rows a piece of the scaled copy: about 1 MB of a 784-column matrix.
constexpr int64_t kScaleRows = 256;

// Column ranges for the moments: one per thread, at least 16 columns each. Each piece reads its
// slice of every row, so wide slices: narrow ones made each row read a new page per piece (the
// TLB, not the adds, took the time).
int64_t momentPieces(const Pool& pool, int64_t cols) { return std::max<int64_t>(1, std::min<int64_t>(pool.threads(), (cols + 15) / 16)); }

}  // namespace

void columnMoments(Pool& pool, const float* x, int64_t rows, int64_t cols, double* mean, double* sq) {
  if (cols <= 0) return;
  const int64_t pieces = momentPieces(pool, cols), per = (cols + pieces - 1) / pieces;
  pool.parallelFor(pieces, [&](int64_t p) {
    const int64_t c0 = p * per, w = std::min(per, cols - c0);
    if (w <= 0) return;
    std::vector<double> s(w, 0.0), q(w, 0.0);
    for (int64_t i = 0; i < rows; i++) {
      const float* row = x + i * cols + c0;
      for (int64_t j = 0; j < w; j++) s[j] += row[j];
    }
    for (int64_t j = 0; j < w; j++) mean[c0 + j] = s[j] / static_cast<double>(rows);
    const double* m = mean + c0;
    for (int64_t i = 0; i < rows; i++) {
      const float* row = x + i * cols + c0;
      for (int64_t j = 0; j < w; j++) {
        const double a = row[j] - m[j];
        q[j] += a * a;
      }
    }
    for (int64_t j = 0; j < w; j++) sq[c0 + j] = q[j];
  });
}

void scaleColumns(Pool& pool, const float* x, int64_t rows, int64_t cols, const double* mean, const double* sd, float* out) {
  if (rows <= 0 || cols <= 0) return;
  pool.parallelFor((rows + kScaleRows - 1) / kScaleRows, [&](int64_t p) {
    for (int64_t i = p * kScaleRows; i < std::min(rows, (p + 1) * kScaleRows); i++) {
      const float* a = x + i * cols;
      float* b = out + i * cols;
      for (int64_t j = 0; j < cols; j++) b[j] = static_cast<float>((a[j] - mean[j]) / sd[j]);
    }
  });
}

}  // namespace gf

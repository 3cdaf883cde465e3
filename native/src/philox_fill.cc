// The strided stream fill (philox_fill.h).
#include "philox_fill.h"

#include <algorithm>

#include "cpu_simd.h"
#include "js_math.h"
#include "philox.h"
#include "philox_fill_simd.h"

namespace gf {
namespace {

// Both values of pair j (elements 2j, 2j + 1), as PhiloxStream.fillBlock computes them.
inline void pairValues(const StreamFill& f, int64_t j, double& v0, double& v1) {
  const Words w = philox(static_cast<uint64_t>(j), f.k0, f.k1);
  const double u1 = uniform64(w.w0, w.w1), u2 = uniform64(w.w2, w.w3);
  if (f.normal) {
    double c, s;
    boxMullerPair(u1, u2, c, s);
    v0 = f.a + f.b * c;
    v1 = f.a + f.b * s;
  } else {
    const double span = f.b - f.a;
    v0 = f.a + span * u1;
    v1 = f.a + span * u2;
  }
}

// Values of pairs j .. j + kSimdPairs - 1: normals through the vector path where the CPU has one,
// else pair by pair.
void pairBatch(const StreamFill& f, int simd, int64_t j, double* v0, double* v1) {
  alignas(64) double c[kSimdPairs], s[kSimdPairs];
  if (f.normal && normalPairsSimd(simd, static_cast<uint64_t>(j), f.k0, f.k1, c, s)) {
    for (int q = 0; q < kSimdPairs; q++) {
      v0[q] = f.a + f.b * c[q];
      v1[q] = f.a + f.b * s[q];
    }
    return;
  }
  for (int q = 0; q < kSimdPairs; q++) pairValues(f, j + q, v0[q], v1[q]);
}

// Elements first .. first + n - 1 of the stream into out[0 .. n).
template <typename T>
void fillRun(const StreamFill& f, int simd, int64_t first, int64_t n, T* out) {
  int64_t k = 0;
  double v0, v1;
  if (n > 0 && (first & 1)) {  // starts on a pair's second element
    pairValues(f, first >> 1, v0, v1);
    out[k++] = static_cast<T>(v1);
  }
  double b0[kSimdPairs], b1[kSimdPairs];
  for (; k + 2 * kSimdPairs <= n; k += 2 * kSimdPairs) {
    pairBatch(f, simd, (first + k) >> 1, b0, b1);
    for (int q = 0; q < kSimdPairs; q++) {
      out[k + 2 * q] = static_cast<T>(b0[q]);
      out[k + 2 * q + 1] = static_cast<T>(b1[q]);
    }
  }
  for (; k + 1 < n; k += 2) {
    pairValues(f, (first + k) >> 1, v0, v1);
    out[k] = static_cast<T>(v0);
    out[k + 1] = static_cast<T>(v1);
  }
  if (k < n) {
    pairValues(f, (first + k) >> 1, v0, v1);
    out[k] = static_cast<T>(v0);
  }
}

// About 64 K elements a piece: a few ms of work each, many pieces for the pool to balance.
constexpr int64_t kPiece = 65536;

template <typename T>
void fillAll(Pool& pool, const StreamFill& f, T* out, int64_t outStride, const int32_t* rowMap) {
  if (f.rows <= 0 || f.cols <= 0) return;
  // A piece is a group of whole rows, or a run of columns of one row when rows are long.
  const int64_t colPieces = (f.cols + kPiece - 1) / kPiece;
  const int64_t rowsPer = colPieces > 1 ? 1 : std::max<int64_t>(1, kPiece / f.cols);
  const int64_t rowGroups = (f.rows + rowsPer - 1) / rowsPer;
  const int64_t colsPer = (f.cols + colPieces - 1) / colPieces;
  const int simd = cpuSimdLevel();
  pool.parallelFor(rowGroups * colPieces, [&](int64_t p) {
    const int64_t g = p / colPieces, c0 = (p % colPieces) * colsPer;
    const int64_t n = std::min(colsPer, f.cols - c0);
    for (int64_t r = g * rowsPer; r < std::min(f.rows, (g + 1) * rowsPer); r++)
      fillRun(f, simd, f.start + r * f.stride + c0, n, out + (rowMap ? rowMap[r] : r) * outStride + c0);
  });
}

}  // namespace

void fillStream(Pool& pool, const StreamFill& f, double* out, int64_t outStride, const int32_t* rowMap) { fillAll(pool, f, out, outStride, rowMap); }
void fillStream(Pool& pool, const StreamFill& f, float* out, int64_t outStride, const int32_t* rowMap) { fillAll(pool, f, out, outStride, rowMap); }

}  // namespace gf

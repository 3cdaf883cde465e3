// The standardisation of a trial's rows (worker/kernels/tfjs/scaling.ts, native/column-moments.ts)
// on the pool: each column's mean and sum of squared deviations of a row-major float matrix, in
// float64, as the JS fit computes them: down the rows in order, one running sum per column, so
// the same doubles to the bit (no reassociation: the build's -ffp-contract=off keeps a * a + s two
// roundings). Columns are independent, so the pool takes them in pieces, each piece reading its
// slice of every row. And the scaled copy, (x - mean) / sd in double rounded once to float, as
// scaleX's JS loop does, rows split over the pool.
#pragma once
#include <cstdint>

#include "pool.h"

namespace gf {

// mean[j] = (sum over rows i in order of x[i][j]) / rows; sq[j] = sum over i in order of
// (x[i][j] - mean[j])^2.
void columnMoments(Pool& pool, const float* x, int64_t rows, int64_t cols, double* mean, double* sq);

// out[i][j] = float((x[i][j] - mean[j]) / sd[j]).
void scaleColumns(Pool& pool, const float* x, int64_t rows, int64_t cols, const double* mean, const double* sd, float* out);

}  // namespace gf

// Each column's mean and sum of squared deviations of a row-major float matrix, in float64, as
// worker/kernels/tfjs/scaling.ts's fit computes them in JS (native/column-moments.ts): down the
// rows in order, one running sum per column, so the same doubles to the bit (no reassociation:
// the build's -ffp-contract=off keeps a * a + s two roundings). Columns are independent, so the
// pool takes them in pieces, each piece reading its slice of every row.
#pragma once
#include <cstdint>

#include "pool.h"

namespace gf {

// mean[j] = (sum over rows i in order of x[i][j]) / rows; sq[j] = sum over i in order of
// (x[i][j] - mean[j])^2.
void columnMoments(Pool& pool, const float* x, int64_t rows, int64_t cols, double* mean, double* sq);

}  // namespace gf

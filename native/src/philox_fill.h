// Elements of a float64 random stream (docs/random.md: Philox4x32-10, one call per element pair,
// Box-Muller for normals) written into a strided block on the host, bit-identical to
// common/philox.ts's PhiloxStream: the same operations in the same order, and log / cos / sin as
// V8 computes them (js_math.h), so a data set built here is the one the JS generator builds.
// The array engine's random leaves (cpu_program.cc, cpu_simd.cc) keep the C library's faster
// transcendentals and docs/random.md's 1e-12 tolerance for normals; this fill is for callers
// whose bytes must match JS exactly (worker/kernels/tfjs/datasets.ts: every worker builds a
// search's rows from its seed and each worker's digest must agree with a JS-only one).
// Normals go 16 pairs at a time through philox_fill_simd.h where the CPU has AVX2 / AVX-512 (the
// same bits: each lane does the scalar code's operations), capped by GPUFLOW_CPU_SIMD.
#pragma once
#include <cstdint>

#include "pool.h"

namespace gf {

struct StreamFill {
  uint32_t k0, k1;  // the seed's key
  bool normal;      // normal(a = mean, b = sd), else uniform(a = low, b = high)
  double a, b;
  int64_t start;    // flat index of row 0, column 0
  int64_t rows, cols, stride;  // element (r, c) of the block is start + r * stride + c
};

// out[r * outStride + c] = element (r, c), as double or rounded once to float; split over the pool
// in fixed pieces (each element a pure function of its index: any thread count, the same bits).
// With rowMap, block row r goes to out row rowMap[r] instead (a trial's rows generated straight
// into their train / validation order, datasets.ts); the caller checks its entries.
void fillStream(Pool& pool, const StreamFill& f, double* out, int64_t outStride, const int32_t* rowMap = nullptr);
void fillStream(Pool& pool, const StreamFill& f, float* out, int64_t outStride, const int32_t* rowMap = nullptr);

}  // namespace gf

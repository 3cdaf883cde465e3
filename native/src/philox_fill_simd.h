// The normal stream's pairs several at a time (philox_fill.cc): Philox over a vector of counters
// (philox_lanes.h), then fdlibm's log and
// sin / cos (js_math.h) written over vectors of lanes, every lane doing the same IEEE operations in
// the same order as the scalar code, so the bits are the same. Only the paths the stream's
// arguments take are vectorised (log of u in (0, 1] with |f| >= 2^-20; sin / cos of t in
// (2^-27, 2^19 pi/2] with no cancellation in the first reduction); a lane off those paths is
// recomputed with the scalar code.
#pragma once
#include <cstdint>

namespace gf {

// For the pairs j0 + i, i < kSimdPairs, of the stream keyed (k0, k1): Philox, the uniforms and
// (c[i], s[i]) = (r cos t, r sin t), r = sqrt(-2 log u1), t = 2 pi u2, exactly as the scalar code
// (lanes off the vector paths computed by it). `simd` is a CpuSimd level (cpu_simd.h:
// cpuSimdLevel(), so GPUFLOW_CPU_SIMD caps it here too); returns false at kSimdOff (the caller
// then stays scalar).
constexpr int kSimdPairs = 16;
bool normalPairsSimd(int simd, uint64_t j0, uint32_t k0, uint32_t k1, double* c, double* s);
// The same step from given uniforms u1[i], u2[i] (the addon's jsMath export runs it for tests:
// arguments the stream almost never makes, such as t = 2 pi u2 at n pi/2 exactly).
bool boxMullerSimd(int simd, const double* u1, const double* u2, double* c, double* s);

}  // namespace gf

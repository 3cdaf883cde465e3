// The CPU interpreter's (cpu_program.cc) hot loops, per tile: random leaves, with a scalar path
// (one Philox call and libm per element) and SIMD paths (Philox over 8 / 16 counters at once,
// glibc's libmvec for log / cos / sin) picked at run time from what the CPU and libmvec offer;
// and the compensated sum.
#pragma once
#include <cstdint>

#include "program.h"

namespace gf {

enum CpuSimd : int { kSimdOff = 0, kSimdAvx2 = 1, kSimdAvx512 = 2 };

// The level runProgramCpu uses now: the best the CPU and libmvec.so.1 support, lowered by
// GPUFLOW_CPU_SIMD (0 / off: scalar, avx2, avx512; read on every call so a bench can A/B).
int cpuSimdLevel();

// v[k] = element base + k * inc of random leaf l, k < len (len <= 512), as a double (float32
// programs: the float32 value). Same values as random64 / random32 (ops.h) at every level:
// uniforms bit for bit, normals up to libmvec's few ulp in the transcendentals.
void randomTile(const Leaf& l, bool f32, int64_t base, int64_t inc, int len, double* v, int simd);

// Adds v[0, n) to the compensated sum (s, c): eight interleaved Neumaier sums (element k in lane
// k % 8: independent chains instead of one add latency per element), folded in lane order, then
// the n % 8 last elements. The same lanes at every level, so the result depends on neither the
// SIMD level nor the thread count.
void sumTile(const double* v, int n, double& s, double& c, int simd);

}  // namespace gf

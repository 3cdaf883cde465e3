// Philox4x32-10 and the counter-to-float mapping of docs/random.md, shared by the C++ and CUDA
// kernels. Uniforms must be bit-identical to worker/kernels/js/philox.ts: the float64 mapping is
// exact integer arithmetic, and `low + span * u` is rounded once per operation (C++ builds with
// -ffp-contract=off; on the device the _rn intrinsics forbid fused multiply-adds).
#pragma once
#include <cstdint>
#include <cmath>

#ifdef __CUDACC__
#define GF_HD __host__ __device__ __forceinline__
#else
#define GF_HD inline
#endif

namespace gf {

struct Words { uint32_t w0, w1, w2, w3; };

constexpr double kTwoPi = 6.283185307179586;  // 2 * Math.PI, exactly as the js reference rounds it

GF_HD uint32_t mulhi32(uint32_t a, uint32_t b) {
#ifdef __CUDA_ARCH__
  return __umulhi(a, b);
#else
  return static_cast<uint32_t>((static_cast<uint64_t>(a) * b) >> 32);
#endif
}

GF_HD Words philox(uint64_t block, uint32_t k0, uint32_t k1) {
  uint32_t c0 = static_cast<uint32_t>(block), c1 = static_cast<uint32_t>(block >> 32), c2 = 0, c3 = 0;
#ifdef __CUDACC__
#pragma unroll
#endif
  for (int round = 0; round < 10; round++) {
    if (round > 0) { k0 += 0x9E3779B9u; k1 += 0xBB67AE85u; }
    const uint32_t hi0 = mulhi32(0xD2511F53u, c0), lo0 = 0xD2511F53u * c0;
    const uint32_t hi1 = mulhi32(0xCD9E8D57u, c2), lo1 = 0xCD9E8D57u * c2;
    c0 = hi1 ^ c1 ^ k0; c1 = lo1; c2 = hi0 ^ c3 ^ k1; c3 = lo0;
  }
  return Words{c0, c1, c2, c3};
}

// u in (0, 1], exact: ((a >> 5) * 2^26 + (b >> 6) + 1) * 2^-53.
GF_HD double uniform64(uint32_t a, uint32_t b) {
  const uint64_t k = (static_cast<uint64_t>(a >> 5) << 26) + (b >> 6) + 1;
  return static_cast<double>(k) * 1.1102230246251565e-16;
}

GF_HD float uniform32(uint32_t w) { return static_cast<float>((w >> 8) + 1) * 5.9604644775390625e-8f; }

GF_HD double add_rn(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
GF_HD double mul_rn(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
GF_HD float add_rn(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
GF_HD float mul_rn(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}

}  // namespace gf

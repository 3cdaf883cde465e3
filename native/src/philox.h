// Philox4x32-10 and the counter-to-float mapping of docs/random.md, shared by the C++ and CUDA
// kernels. Uniforms must be bit-identical to common/philox.ts: the float64 mapping is
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
// On the device the integer -> floating conversion runs on a slow pipe (a few results per clock
// per SM partition), so the same exact value is made from bits: with k - 1 = 2H + l (53 bits),
// D = 1 + H * 2^-52 is H as a mantissa, and u = D - (1 - (l + 1) * 2^-53), a difference of two
// doubles whose exact value is representable, so the subtraction rounds nothing.
// (test/unit/random/uniform-bits.test.ts checks the identity against the conversion.)
GF_HD double uniform64(uint32_t a, uint32_t b) {
#ifdef __CUDA_ARCH__
  const uint32_t hi = 0x3FF00000u | (a >> 12), lo = ((a >> 5) << 25) | (b >> 7);
  return __dsub_rn(__hiloint2double(static_cast<int>(hi), static_cast<int>(lo)),
                   (b & 0x40u) ? 0.99999999999999977795539507496869 : 0.99999999999999988897769753748434);
#else
  const uint64_t k = (static_cast<uint64_t>(a >> 5) << 26) + (b >> 6) + 1;
  return static_cast<double>(k) * 1.1102230246251565e-16;
#endif
}

// u in (0, 1], exact: ((w >> 8) + 1) * 2^-24; on the device from bits as uniform64 is
// (F = 1 + (w >> 9) * 2^-23, u = F - (1 - (l + 1) * 2^-24) with l bit 8 of w).
GF_HD float uniform32(uint32_t w) {
#ifdef __CUDA_ARCH__
  return __fsub_rn(__uint_as_float(0x3F800000u | (w >> 9)), (w & 0x100u) ? 0.99999988079071044921875f : 0.999999940395355224609375f);
#else
  return static_cast<float>((w >> 8) + 1) * 5.9604644775390625e-8f;
#endif
}

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

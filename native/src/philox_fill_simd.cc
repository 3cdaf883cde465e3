// The vector Box-Muller step (philox_fill_simd.h). GCC's vector extensions, compiled inside
// functions targeted at AVX2 (two 4-lane halves) or AVX-512 (one 8-lane vector), chosen at run
// time; the addon builds with -ffp-contract=off, so no multiply-add is fused here either. The
// comments name the scalar lines of js_math.h each step repeats.
#include "philox_fill_simd.h"

// The vector types pass between functions only after inlining into a function of their target,
// as in cpu_simd.cc (no ABI question).
#pragma GCC diagnostic ignored "-Wpsabi"
// GCC 12's AVX-512 headers trip -W(maybe-)uninitialized on their own _mm512_undefined_pd (GCC PR105593).
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include <cstring>

#include "cpu_simd.h"
#include "js_math.h"
#include "philox.h"
#include "philox_lanes.h"

namespace gf {
namespace {

typedef double VD __attribute__((vector_size(64)));
typedef int64_t VL __attribute__((vector_size(64)));
typedef uint64_t VU __attribute__((vector_size(64)));

#define GF_VINLINE inline __attribute__((always_inline))

// Bits and back (same-size vector casts reinterpret).
GF_VINLINE VL bitsOf(VD x) { return (VL)x; }
GF_VINLINE VD fromBits(VL b) { return (VD)b; }
// A small integer (|k| < 2^51) as a double, exactly, without a 64-bit integer conversion
// instruction (AVX2 has none): 1.5 * 2^52 + k has k in its low mantissa bits.
GF_VINLINE VD toDouble(VL k) {
  const VL magic = VL{} + 0x4338000000000000LL;
  return fromBits(magic + k) - 6755399441055744.0;
}
// Shifts through unsigned lanes: AVX2 has no 64-bit arithmetic right shift, and every value
// shifted here is non-negative.
GF_VINLINE VL shr(VL x, int n) { return (VL)((VU)x >> n); }
GF_VINLINE VL highWord(VD x) { return shr(bitsOf(x), 32); }

// jsLog on u in (0, 1]; flags |f| < 2^-20 (fdlibm's own branch, u = 1 among them).
GF_VINLINE VD logv(VD x, VL& redo) {
  constexpr double ln2Hi = 6.93147180369123816490e-01, ln2Lo = 1.90821492927058770002e-10;
  constexpr double lg1 = 6.666666666666735130e-01, lg2 = 3.999999999940941908e-01,
                   lg3 = 2.857142874366239149e-01, lg4 = 2.222219843214978396e-01,
                   lg5 = 1.818357216161805012e-01, lg6 = 1.531383769920937332e-01,
                   lg7 = 1.479819860511658591e-01;
  VL bits = bitsOf(x);
  VL hx = shr(bits, 32);  // u > 0: the sign bit is clear
  VL k = shr(hx, 20) - 1023;
  hx &= 0x000fffff;
  const VL i = (hx + 0x95f64) & 0x100000;
  bits = ((hx | (i ^ 0x3ff00000)) << 32) | (bits & 0xffffffffLL);
  const VD xn = fromBits(bits);
  k += shr(i, 20);
  const VD f = xn - 1.0;
  const VD dk = toDouble(k);
  redo |= (0x000fffff & (2 + hx)) < 3;
  const VD s = f / (2.0 + f);
  const VD z = s * s;
  const VD w = z * z;
  const VL sel = (hx - 0x6147a) | (0x6b851 - hx);
  const VD t1 = w * (lg2 + w * (lg4 + w * lg6));
  const VD t2 = z * (lg1 + w * (lg3 + w * (lg5 + w * lg7)));
  const VD r = t2 + t1;
  const VD hfsq = 0.5 * f * f;
  const VD a0 = f - (hfsq - s * (hfsq + r));
  const VD a1 = dk * ln2Hi - ((hfsq - (s * (hfsq + r) + dk * ln2Lo)) - f);
  const VD b0 = f - s * (f - r);
  const VD b1 = dk * ln2Hi - ((s * (f - r) - dk * ln2Lo) - f);
  const VL k0 = k == 0;
  return sel > 0 ? (k0 ? a0 : a1) : (k0 ? b0 : b1);
}

// jsmath::kernelCos / kernelSin(hasTail) on the reduced argument; flags |y0| < 2^-27.
GF_VINLINE VD kcos(VD x, VD y, VL& redo) {
  constexpr double c1 = 4.16666666666666019037e-02, c2 = -1.38888888888741095749e-03,
                   c3 = 2.48015872894767294178e-05, c4 = -2.75573143513906633035e-07,
                   c5 = 2.08757232129817482790e-09, c6 = -1.13596475577881948265e-11;
  const VL ix = highWord(x) & 0x7fffffff;
  redo |= ix < 0x3e400000;
  const VD z = x * x;
  const VD r = z * (c1 + z * (c2 + z * (c3 + z * (c4 + z * (c5 + z * c6)))));
  const VD small = 1.0 - (0.5 * z - (z * r - x * y));
  const VD qx = ix > 0x3fe90000 ? VD{} + 0.28125 : fromBits((ix - 0x00200000) << 32);
  const VD hz = 0.5 * z - qx;
  const VD a = 1.0 - qx;
  const VD large = a - (hz - (z * r - x * y));
  return ix < 0x3fd33333 ? small : large;
}
GF_VINLINE VD ksin(VD x, VD y, VL hasTail) {
  constexpr double s1 = -1.66666666666666324348e-01, s2 = 8.33333333332248946124e-03,
                   s3 = -1.98412698298579493134e-04, s4 = 2.75573137070700676789e-06,
                   s5 = -2.50507602534068634195e-08, s6 = 1.58969099521155010221e-10;
  const VD z = x * x;
  const VD v = z * x;
  const VD r = s2 + z * (s3 + z * (s4 + z * (s5 + z * s6)));
  const VD noTail = x + v * (s1 + z * r);
  const VD tail = x - ((z * (0.5 * y - v * r) - y) - v * s1);
  return hasTail ? tail : noTail;
}

// jsSinCos on t > 0; flags t <= 2^-27, t > 2^19 pi/2 and the lanes whose first reduction may
// cancel (t's high word that of n pi/2: remPio2's second and third pieces).
GF_VINLINE void sincosv(VD t, VD& s, VD& c, VL& redo) {
  constexpr double invpio2 = 6.36619772367581382433e-01;
  constexpr double pio2_1 = 1.57079632673412561417e+00, pio2_1t = 6.07710050650619224932e-11;
  const VL ix = highWord(t) & 0x7fffffff;
  redo |= (ix < 0x3e400000) | (ix > 0x413921fb) | (bitsOf(t) < 0);
  const VL reduce = ix > 0x3fe921fb;
  // n = (int)(t * invpio2 + 0.5): round to nearest by the 1.5 * 2^52 shift, then down where that
  // went up (the truncation of a positive value).
  const VD v = t * invpio2 + 0.5;
  const VD shifted = v + 6755399441055744.0;
  VD fn = shifted - 6755399441055744.0;
  VL n = bitsOf(shifted) - 0x4338000000000000LL;
  const VL up = fn > v;
  fn = up ? fn - 1.0 : fn;
  n = up ? n - 1 : n;
  // The stream's t <= 2 pi gives n <= 4; a lane whose high word is that of n pi/2 (remPio2's
  // npio2hw) may cancel in the first reduction, where remPio2 adds pieces: the scalar code does it,
  // as it does any n > 4.
  static constexpr int64_t npio2hw[5] = {0, 0x3FF921FB, 0x400921FB, 0x4012D97C, 0x401921FB};
  VL nearPole = n > 4;
  for (int q = 1; q <= 4; q++) nearPole |= (n == q) & (ix == npio2hw[q]);
  redo |= reduce & nearPole;
  const VD r = t - fn * pio2_1;
  const VD w = fn * pio2_1t;
  VD y0 = r - w;
  VD y1 = (r - y0) - w;
  y0 = reduce ? y0 : t;
  y1 = reduce ? y1 : VD{};
  n = reduce ? n : VL{};
  const VD ks = ksin(y0, y1, reduce), kc = kcos(y0, y1, redo);
  const VL q = n & 3;
  s = q == 0 ? ks : q == 1 ? kc : q == 2 ? -ks : -kc;
  c = q == 0 ? kc : q == 1 ? -ks : q == 2 ? -kc : ks;
}

__attribute__((target("avx512f"))) inline VD sqrt512(VD x) { return (VD)_mm512_sqrt_pd((__m512d)x); }
__attribute__((target("avx2"))) inline VD sqrt256(VD x) {
  __m256d h[2];
  std::memcpy(h, &x, sizeof x);
  h[0] = _mm256_sqrt_pd(h[0]);
  h[1] = _mm256_sqrt_pd(h[1]);
  VD out;
  std::memcpy(&out, h, sizeof out);
  return out;
}

// Philox and the uniforms of pairs j0 .. j0 + kSimdPairs - 1.
template <bool Avx512>
GF_VINLINE void uniformLanes(uint64_t j0, uint32_t k0, uint32_t k1, double* u1, double* u2) {
  alignas(64) uint32_t w[4][kSimdPairs];
  for (int q = 0; q < kSimdPairs; q++) {
    const uint64_t j = j0 + q;
    w[0][q] = static_cast<uint32_t>(j);
    w[1][q] = static_cast<uint32_t>(j >> 32);
  }
  if constexpr (Avx512) {
    philoxLanes<U32x16>(w[0], w[1], w[2], w[3], k0, k1);
  } else {
    for (int q = 0; q < kSimdPairs; q += 8) philoxLanes<U32x8>(w[0] + q, w[1] + q, w[2] + q, w[3] + q, k0, k1);
  }
  // uniform64, exactly: the 53-bit integer from two exactly converted int32 halves (int32 ->
  // double vectorises on AVX2 too), as cpu_simd.cc does.
  for (int q = 0; q < kSimdPairs; q++) {
    u1[q] = (double(int32_t(w[0][q] >> 5)) * 67108864.0 + double(int32_t((w[1][q] >> 6) + 1))) * 1.1102230246251565e-16;
    u2[q] = (double(int32_t(w[2][q] >> 5)) * 67108864.0 + double(int32_t((w[3][q] >> 6) + 1))) * 1.1102230246251565e-16;
  }
}

// (r cos t, r sin t) of kSimdPairs uniform pairs; redo[i] != 0 where lane i left the vector paths.
template <bool Avx512>
GF_VINLINE void boxMullerLanes(const double* u1, const double* u2, double* cp, double* sp, int64_t* redop) {
  constexpr int lanes = sizeof(VD) / sizeof(double);
  for (int q = 0; q < kSimdPairs; q += lanes) {
    VD a, b;
    std::memcpy(&a, u1 + q, sizeof a);
    std::memcpy(&b, u2 + q, sizeof b);
    VL redo = VL{};
    const VD m = -2.0 * logv(a, redo);
    VD r;
    if constexpr (Avx512) r = sqrt512(m);
    else r = sqrt256(m);
    VD s, c;
    sincosv(kTwoPi * b, s, c, redo);
    const VD rc = r * c, rs = r * s;
    std::memcpy(cp + q, &rc, sizeof rc);
    std::memcpy(sp + q, &rs, sizeof rs);
    std::memcpy(redop + q, &redo, sizeof redo);
  }
}

__attribute__((target("avx512f,avx512dq"))) void normalPairs512(uint64_t j0, uint32_t k0, uint32_t k1, double* u1, double* u2, double* c, double* s, int64_t* redo) {
  uniformLanes<true>(j0, k0, k1, u1, u2);
  boxMullerLanes<true>(u1, u2, c, s, redo);
}
__attribute__((target("avx2"))) void normalPairs256(uint64_t j0, uint32_t k0, uint32_t k1, double* u1, double* u2, double* c, double* s, int64_t* redo) {
  uniformLanes<false>(j0, k0, k1, u1, u2);
  boxMullerLanes<false>(u1, u2, c, s, redo);
}
__attribute__((target("avx512f,avx512dq"))) void boxMuller512(const double* u1, const double* u2, double* c, double* s, int64_t* redo) {
  boxMullerLanes<true>(u1, u2, c, s, redo);
}
__attribute__((target("avx2"))) void boxMuller256(const double* u1, const double* u2, double* c, double* s, int64_t* redo) {
  boxMullerLanes<false>(u1, u2, c, s, redo);
}

// The lanes the vector step handed back, by the scalar code (js_math.h).
void redoLanes(const double* u1, const double* u2, double* c, double* s, const int64_t* redo) {
  for (int q = 0; q < kSimdPairs; q++) {
    if (redo[q]) boxMullerPair(u1[q], u2[q], c[q], s[q]);
  }
}

}  // namespace

bool normalPairsSimd(int simd, uint64_t j0, uint32_t k0, uint32_t k1, double* c, double* s) {
  alignas(64) double u1[kSimdPairs], u2[kSimdPairs];
  alignas(64) int64_t redo[kSimdPairs];
  switch (simd) {
    case kSimdAvx512: normalPairs512(j0, k0, k1, u1, u2, c, s, redo); break;
    case kSimdAvx2: normalPairs256(j0, k0, k1, u1, u2, c, s, redo); break;
    default: return false;
  }
  redoLanes(u1, u2, c, s, redo);
  return true;
}

bool boxMullerSimd(int simd, const double* u1, const double* u2, double* c, double* s) {
  alignas(64) int64_t redo[kSimdPairs];
  switch (simd) {
    case kSimdAvx512: boxMuller512(u1, u2, c, s, redo); break;
    case kSimdAvx2: boxMuller256(u1, u2, c, s, redo); break;
    default: return false;
  }
  redoLanes(u1, u2, c, s, redo);
  return true;
}

}  // namespace gf

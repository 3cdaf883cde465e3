// log, cos and sin exactly as V8's Math.log / Math.cos / Math.sin compute them, so a normal
// stream filled here is bit-identical to common/philox.ts's (PhiloxStream), not only within
// docs/random.md's 1e-12. Node 20's V8 takes all three from fdlibm (Sun's e_log.c, k_cos.c,
// k_sin.c, e_rem_pio2.c; V8's base/ieee754.cc); glibc's are other algorithms that differ from
// them in the last bit: measured on 47 M float64 normals, glibc log + sin / cos differed in
// 2.87 M, fdlibm log + glibc sin / cos still in 1.36 M (1 M pairs: 3.3 % of the cosines and of
// the sines). test/unit/native/philox-fill.test.ts compares the fill with PhiloxStream bit for bit,
// under Node 20; a newer V8 (Electron's) may take sin / cos from elsewhere (docs/tuning.md, Data).
//
// log, fdlibm's method: x = 2^k (1 + f) with sqrt(2)/2 < 1 + f < sqrt(2); log(1 + f) = f - hfsq +
// s (hfsq + R(s^2)), s = f / (2 + f), hfsq = f^2 / 2, R a degree-14 minimax polynomial in s
// evaluated in two halves; k ln 2 in two parts (ln2_hi has its low bits zero, so k * ln2_hi is
// exact). The operations and their order are fdlibm's: each rounds as it does there (the
// addon builds with -ffp-contract=off, so no fused multiply-add changes a bit).
#pragma once
#include <cstdint>
#include <cmath>
#include <cstring>

#include "philox.h"

namespace gf {

inline double jsLog(double x) {
  constexpr double ln2Hi = 6.93147180369123816490e-01, ln2Lo = 1.90821492927058770002e-10;
  constexpr double two54 = 1.80143985094819840000e+16;
  constexpr double lg1 = 6.666666666666735130e-01, lg2 = 3.999999999940941908e-01,
                   lg3 = 2.857142874366239149e-01, lg4 = 2.222219843214978396e-01,
                   lg5 = 1.818357216161805012e-01, lg6 = 1.531383769920937332e-01,
                   lg7 = 1.479819860511658591e-01;
  uint64_t bits;
  std::memcpy(&bits, &x, 8);
  int32_t hx = static_cast<int32_t>(bits >> 32);
  const uint32_t lx = static_cast<uint32_t>(bits);
  int32_t k = 0;
  if (hx < 0x00100000) {  // zero, subnormal or negative
    if (((hx & 0x7fffffff) | lx) == 0) return -__builtin_inf();
    if (hx < 0) return __builtin_nan("");
    k -= 54;
    x *= two54;
    std::memcpy(&bits, &x, 8);
    hx = static_cast<int32_t>(bits >> 32);
  }
  if (hx >= 0x7ff00000) return x + x;
  k += (hx >> 20) - 1023;
  hx &= 0x000fffff;
  const int32_t i = (hx + 0x95f64) & 0x100000;
  // x's exponent replaced: x or x / 2 normalised into [sqrt(2)/2, sqrt(2)).
  bits = (static_cast<uint64_t>(static_cast<uint32_t>(hx | (i ^ 0x3ff00000))) << 32) | (bits & 0xffffffffu);
  std::memcpy(&x, &bits, 8);
  k += i >> 20;
  const double f = x - 1.0;
  const double dk = static_cast<double>(k);
  if ((0x000fffff & (2 + hx)) < 3) {  // |f| < 2^-20
    if (f == 0.0) return k == 0 ? 0.0 : dk * ln2Hi + dk * ln2Lo;
    const double r = f * f * (0.5 - 0.33333333333333333 * f);
    return k == 0 ? f - r : dk * ln2Hi - ((r - dk * ln2Lo) - f);
  }
  const double s = f / (2.0 + f);
  const double z = s * s;
  const double w = z * z;
  const int32_t sel = (hx - 0x6147a) | (0x6b851 - hx);
  const double t1 = w * (lg2 + w * (lg4 + w * lg6));
  const double t2 = z * (lg1 + w * (lg3 + w * (lg5 + w * lg7)));
  const double r = t2 + t1;
  if (sel > 0) {
    const double hfsq = 0.5 * f * f;
    return k == 0 ? f - (hfsq - s * (hfsq + r)) : dk * ln2Hi - ((hfsq - (s * (hfsq + r) + dk * ln2Lo)) - f);
  }
  return k == 0 ? f - s * (f - r) : dk * ln2Hi - ((s * (f - r) - dk * ln2Lo) - f);
}

// cos / sin: x = n pi/2 + (y0 + y1) (y1 the tail of the reduced argument), then fdlibm's kernels
// on [-pi/4, pi/4]: cos by 1 - z/2 + z^2 C(z) with a correction qx when |x| >= 0.3, sin by
// x + x^3 S(x^2); the quadrant n picks kernel and sign. The reduction is e_rem_pio2.c's for
// |x| <= 2^19 pi/2 (pi/2 in 33-bit pieces, a second and third piece only on cancellation); the
// normal stream's angles are in (0, 2 pi]. Beyond 2^19 pi/2 fdlibm needs its multi-precision
// reduction (kernel_rem_pio2), not ported: there this falls back to the C library, not bit-exact.
namespace jsmath {

inline uint32_t highWord(double x) {
  uint64_t b;
  std::memcpy(&b, &x, 8);
  return static_cast<uint32_t>(b >> 32);
}

inline double kernelCos(double x, double y) {
  constexpr double c1 = 4.16666666666666019037e-02, c2 = -1.38888888888741095749e-03,
                   c3 = 2.48015872894767294178e-05, c4 = -2.75573143513906633035e-07,
                   c5 = 2.08757232129817482790e-09, c6 = -1.13596475577881948265e-11;
  const uint32_t ix = highWord(x) & 0x7fffffffu;
  if (ix < 0x3e400000u && static_cast<int>(x) == 0) return 1.0;  // |x| < 2^-27
  const double z = x * x;
  const double r = z * (c1 + z * (c2 + z * (c3 + z * (c4 + z * (c5 + z * c6)))));
  if (ix < 0x3fd33333u) return 1.0 - (0.5 * z - (z * r - x * y));  // |x| < 0.3
  double qx;
  if (ix > 0x3fe90000u) {  // |x| > 0.78125
    qx = 0.28125;
  } else {  // |x| / 4, its low word cleared
    const uint64_t b = static_cast<uint64_t>(ix - 0x00200000u) << 32;
    std::memcpy(&qx, &b, 8);
  }
  const double hz = 0.5 * z - qx;
  const double a = 1.0 - qx;
  return a - (hz - (z * r - x * y));
}

inline double kernelSin(double x, double y, bool hasTail) {
  constexpr double s1 = -1.66666666666666324348e-01, s2 = 8.33333333332248946124e-03,
                   s3 = -1.98412698298579493134e-04, s4 = 2.75573137070700676789e-06,
                   s5 = -2.50507602534068634195e-08, s6 = 1.58969099521155010221e-10;
  const uint32_t ix = highWord(x) & 0x7fffffffu;
  if (ix < 0x3e400000u && static_cast<int>(x) == 0) return x;  // |x| < 2^-27
  const double z = x * x;
  const double v = z * x;
  const double r = s2 + z * (s3 + z * (s4 + z * (s5 + z * s6)));
  if (!hasTail) return x + v * (s1 + z * r);
  return x - ((z * (0.5 * y - v * r) - y) - v * s1);
}

// n with x = n pi/2 + y[0] + y[1]; false where |x| > 2^19 pi/2 (not ported) or not finite.
inline bool remPio2(double x, int32_t& n, double y[2]) {
  constexpr double invpio2 = 6.36619772367581382433e-01;
  constexpr double pio2_1 = 1.57079632673412561417e+00, pio2_1t = 6.07710050650619224932e-11;
  constexpr double pio2_2 = 6.07710050630396597660e-11, pio2_2t = 2.02226624879595063154e-21;
  constexpr double pio2_3 = 2.02226624871116645580e-21, pio2_3t = 8.47842766036889956997e-32;
  // High words of n pi/2, n = 1 .. 32: where x's matches, the first reduction may cancel.
  static constexpr uint32_t npio2hw[32] = {
      0x3FF921FB, 0x400921FB, 0x4012D97C, 0x401921FB, 0x401F6A7A, 0x4022D97C, 0x4025FDBB, 0x402921FB,
      0x402C463A, 0x402F6A7A, 0x4031475C, 0x4032D97C, 0x40346B9C, 0x4035FDBB, 0x40378FDB, 0x403921FB,
      0x403AB41B, 0x403C463A, 0x403DD85A, 0x403F6A7A, 0x40407E4C, 0x4041475C, 0x4042106C, 0x4042D97C,
      0x4043A28C, 0x40446B9C, 0x404534AC, 0x4045FDBB, 0x4046C6CB, 0x40478FDB, 0x404858EB, 0x404921FB};
  const uint32_t hx = highWord(x);
  const uint32_t ix = hx & 0x7fffffffu;
  const bool negative = (hx >> 31) != 0;
  if (ix <= 0x3fe921fbu) {  // |x| <= pi/4
    y[0] = x;
    y[1] = 0;
    n = 0;
    return true;
  }
  if (ix < 0x4002d97cu) {  // |x| < 3 pi/4: n = +-1
    const double sg = negative ? -1.0 : 1.0;
    double z = x - sg * pio2_1;
    if (ix != 0x3ff921fbu) {  // 33 + 53 bits of pi/2 suffice
      y[0] = z - sg * pio2_1t;
      y[1] = (z - y[0]) - sg * pio2_1t;
    } else {  // near pi/2: 33 + 33 + 53 bits
      z -= sg * pio2_2;
      y[0] = z - sg * pio2_2t;
      y[1] = (z - y[0]) - sg * pio2_2t;
    }
    n = negative ? -1 : 1;
    return true;
  }
  if (ix > 0x413921fbu) return false;
  const double t0 = negative ? -x : x;
  n = static_cast<int32_t>(t0 * invpio2 + 0.5);
  const double fn = static_cast<double>(n);
  double r = t0 - fn * pio2_1;
  double w = fn * pio2_1t;  // good to 85 bits
  y[0] = r - w;
  if (!(n < 32 && ix != npio2hw[n - 1])) {  // maybe cancellation: check the exponent lost
    const int32_t j = static_cast<int32_t>(ix >> 20);
    int32_t i = j - static_cast<int32_t>((highWord(y[0]) >> 20) & 0x7ff);
    if (i > 16) {  // second piece, good to 118 bits
      double t = r;
      w = fn * pio2_2;
      r = t - w;
      w = fn * pio2_2t - ((t - r) - w);
      y[0] = r - w;
      i = j - static_cast<int32_t>((highWord(y[0]) >> 20) & 0x7ff);
      if (i > 49) {  // third piece, 151 bits
        t = r;
        w = fn * pio2_3;
        r = t - w;
        w = fn * pio2_3t - ((t - r) - w);
        y[0] = r - w;
      }
    }
  }
  y[1] = (r - y[0]) - w;
  if (negative) {
    y[0] = -y[0];
    y[1] = -y[1];
    n = -n;
  }
  return true;
}

}  // namespace jsmath

// Math.cos(x) and Math.sin(x) of one x, its reduction done once.
inline void jsSinCos(double x, double& s, double& c) {
  const uint32_t ix = jsmath::highWord(x) & 0x7fffffffu;
  if (ix <= 0x3fe921fbu) {
    s = jsmath::kernelSin(x, 0.0, false);
    c = jsmath::kernelCos(x, 0.0);
    return;
  }
  double y[2];
  int32_t n;
  if (ix >= 0x7ff00000u || !jsmath::remPio2(x, n, y)) {  // NaN, infinities and huge |x|
    s = std::sin(x);
    c = std::cos(x);
    return;
  }
  const double ks = jsmath::kernelSin(y[0], y[1], true), kc = jsmath::kernelCos(y[0], y[1]);
  switch (n & 3) {
    case 0: s = ks; c = kc; break;
    case 1: s = kc; c = -ks; break;
    case 2: s = -ks; c = -kc; break;
    default: s = -kc; c = ks; break;
  }
}

// The normal stream's Box-Muller pair before mean and sd (docs/random.md), as PhiloxStream computes
// it: c = r cos t, s = r sin t, r = sqrt(-2 log u1), t = 2 pi u2.
inline void boxMullerPair(double u1, double u2, double& c, double& s) {
  const double r = std::sqrt(-2.0 * jsLog(u1));
  double sn, cs;
  jsSinCos(kTwoPi * u2, sn, cs);
  c = r * cs;
  s = r * sn;
}

}  // namespace gf

// Elementwise operations and single-element generation, shared by the C++ and CUDA evaluators.
// Values travel as double; a float32 program rounds after every operation (round32), which is
// what the js interpreter's Float32Array buffers do.
#pragma once
#include <cmath>

#include "philox.h"
#include "program.h"

namespace gf {

GF_HD double round32(double x) { return static_cast<double>(static_cast<float>(x)); }

GF_HD double unaryOp(int op, double x) {
  switch (op) {
    case uNeg: return -x;
    case uAbs: return fabs(x);
    case uExp: return exp(x);
    case uLog: return log(x);
    case uSqrt: return sqrt(x);
    case uSin: return sin(x);
    case uCos: return cos(x);
    case uTanh: return tanh(x);
    case uRound: return rint(x);  // nearest, halves to even (the default rounding mode), as numpy.round
    // NumPy's bool as 1 / 0, as the comparisons give.
    case uIsnan: return x != x ? 1.0 : 0.0;
    case uIsfinite: return fabs(x) < INFINITY ? 1.0 : 0.0;  // false for NaN and both infinities
    case uFloor: return floor(x);
    case uCeil: return ceil(x);
    default: return mul_rn(x, x);
  }
}

// NumPy's minimum / maximum propagate NaN, as the js reference does.
GF_HD double binaryOp(int op, double a, double b) {
  switch (op) {
    case bAdd: return add_rn(a, b);
    case bSub: return add_rn(a, -b);
    case bMul: return mul_rn(a, b);
    case bDiv: return a / b;
    case bPow: return pow(a, b);
    case bMin: return (a != a || b != b) ? NAN : (b < a ? b : a);
    case bEq: return a == b ? 1.0 : 0.0;
    case bNe: return a != b ? 1.0 : 0.0;  // NaN != anything, as NumPy
    case bLt: return a < b ? 1.0 : 0.0;
    case bLe: return a <= b ? 1.0 : 0.0;
    case bGt: return a > b ? 1.0 : 0.0;
    case bGe: return a >= b ? 1.0 : 0.0;
    default: return (a != a || b != b) ? NAN : (b > a ? b : a);
  }
}

GF_HD double clipOp(double x, double lo, double hi) {
  if (x != x) return x;
  const double y = x > lo ? x : lo;
  return y < hi ? y : hi;
}

// float64 value of element `idx` (its block's other element is computed and dropped).
GF_HD double random64(const Leaf& l, int64_t idx) {
  const Words w = philox(static_cast<uint64_t>(idx) >> 1, l.k0, l.k1);
  const bool odd = idx & 1;
  if (!l.normal) {
    const double u = odd ? uniform64(w.w2, w.w3) : uniform64(w.w0, w.w1);
    return add_rn(l.a, mul_rn(add_rn(l.b, -l.a), u));
  }
  const double r = sqrt(-2.0 * log(uniform64(w.w0, w.w1)));
  const double t = mul_rn(kTwoPi, uniform64(w.w2, w.w3));
#ifdef __CUDA_ARCH__
  // sincospi(2 u2) needs no range reduction; it differs from cos(fl(2 pi u2)) by at most the
  // rounding of fl(2 pi u2) (under 1e-15 of the value), well inside the 1e-12 contract.
  double s, c;
  sincospi(2.0 * uniform64(w.w2, w.w3), &s, &c);
  (void)t;
  return add_rn(l.a, mul_rn(l.b, mul_rn(r, odd ? s : c)));
#else
  return add_rn(l.a, mul_rn(l.b, mul_rn(r, odd ? sin(t) : cos(t))));
#endif
}

// float32: the js reference runs the transcendentals in double and rounds each result; the host
// does the same, the device uses float32 functions (a few ulp; GPU tests allow for it).
GF_HD float normal32(float mean, float std, float u1, float u2, bool odd) {
#ifdef __CUDA_ARCH__
  const float r = sqrtf(-2.0f * logf(u1));
  const float t = __fmul_rn(static_cast<float>(kTwoPi), u2);
  float s, c;
  sincosf(t, &s, &c);
  return __fadd_rn(mean, __fmul_rn(std, __fmul_rn(r, odd ? s : c)));
#else
  const float lg = static_cast<float>(std::log(static_cast<double>(u1)));
  const float r = static_cast<float>(std::sqrt(static_cast<double>(-2.0f * lg)));
  const float t = static_cast<float>(kTwoPi) * u2;
  const float cs = static_cast<float>(odd ? std::sin(static_cast<double>(t)) : std::cos(static_cast<double>(t)));
  return mean + std * (r * cs);
#endif
}

GF_HD float random32(const Leaf& l, int64_t idx) {
  const Words w = philox(static_cast<uint64_t>(idx) >> 2, l.k0, l.k1);
  const int q = static_cast<int>(idx & 3);
  if (!l.normal) {
    const uint32_t word = q == 0 ? w.w0 : q == 1 ? w.w1 : q == 2 ? w.w2 : w.w3;
    const float lo = static_cast<float>(l.a);
    const float span = static_cast<float>(l.b) - lo;
    return add_rn(lo, mul_rn(span, uniform32(word)));
  }
  const bool second = q >= 2;
  return normal32(static_cast<float>(l.a), static_cast<float>(l.b), uniform32(second ? w.w2 : w.w0),
                  uniform32(second ? w.w3 : w.w1), q & 1);
}

}  // namespace gf

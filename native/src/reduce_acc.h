// Reduction accumulators with the js reference's semantics (worker/kernels/js/reduce.ts):
// Neumaier-compensated sums, Chan's pairwise update for (count, mean, m2), NaN-propagating
// min/max, products in order, first-occurrence arg* with the smaller index winning ties between partials.
#pragma once
#include <cmath>
#include <cstdint>

#include "philox.h"
#include "program.h"

namespace gf {

struct Acc {
  double sum, comp, count, mean, m2, value, index;
};

GF_HD Acc accInit(int reduce) {
  Acc a{0, 0, 0, 0, 0, 0, -1};
  if (reduce == rMin || reduce == rArgmin || reduce == rNanmin) a.value = INFINITY;
  if (reduce == rMax || reduce == rArgmax || reduce == rNanmax) a.value = -INFINITY;
  if (reduce == rProd || reduce == rNanprod) a.value = 1;
  return a;
}

GF_HD void neumaier(double& s, double& c, double x) {
  const double t = s + x;
  c += fabs(s) >= fabs(x) ? (s - t) + x : (x - t) + s;
  s = t;
}

// A compensated sum's value: s + c, except where s is an infinity or NaN, whose compensation is
// NaN (inf - inf) and would turn NumPy's sum([1, -inf]) = -inf into NaN (as js's compensatedTotal).
GF_HD double compTotal(double s, double c) { return fabs(s) < INFINITY ? s + c : s; }

// One element (value x, global index gi). Sums, min/max and arg*; var uses accMerge per tile.
GF_HD void accAdd(Acc& a, int reduce, double x, double gi) {
  switch (reduce) {
    case rSum: case rMean: neumaier(a.sum, a.comp, x); a.count += 1; break;
    case rMin: if (a.value == a.value && (x != x || x < a.value)) a.value = x; break;
    case rMax: if (a.value == a.value && (x != x || x > a.value)) a.value = x; break;
    case rProd: a.value *= x; break;
    // The nan* forms skip NaN; count says whether a lane held any value at all.
    case rNanprod: if (x == x) a.value *= x; break;
    case rNanmin: if (x == x) { if (x < a.value) a.value = x; a.count += 1; } break;
    case rNanmax: if (x == x) { if (x > a.value) a.value = x; a.count += 1; } break;
    case rNanmean: if (x == x) { neumaier(a.sum, a.comp, x); a.count += 1; } break;
    case rArgmin: case rArgmax:
      if (a.value != a.value && a.index >= 0) break;  // a NaN was found: it stays
      if (x != x || a.index < 0 || (reduce == rArgmin ? x < a.value : x > a.value)) { a.value = x; a.index = gi; }
      break;
    default: {  // var / std: Welford, as a fallback for single elements
      a.count += 1;
      const double d = x - a.mean;
      a.mean += d / a.count;
      a.m2 += d * (x - a.mean);
    }
  }
}

// Folds partial b (which comes after a in flat order) into a.
GF_HD void accMerge(Acc& a, const Acc& b, int reduce) {
  switch (reduce) {
    case rSum: case rMean:
      neumaier(a.sum, a.comp, compTotal(b.sum, b.comp));
      a.count += b.count;
      break;
    case rVar: case rStd: {
      if (b.count == 0) break;
      const double nab = a.count + b.count, delta = b.mean - a.mean;
      a.mean += (delta * b.count) / nab;
      a.m2 += b.m2 + (delta * delta * a.count * b.count) / nab;
      a.count = nab;
      break;
    }
    case rMin: if (a.value == a.value && (b.value != b.value || b.value < a.value)) a.value = b.value; break;
    case rMax: if (a.value == a.value && (b.value != b.value || b.value > a.value)) a.value = b.value; break;
    case rProd: case rNanprod: a.value *= b.value; break;
    case rNanmin: if (b.value < a.value) a.value = b.value; a.count += b.count; break;
    case rNanmax: if (b.value > a.value) a.value = b.value; a.count += b.count; break;
    case rNanmean:
      neumaier(a.sum, a.comp, compTotal(b.sum, b.comp));
      a.count += b.count;
      break;
    default: {
      if (b.index < 0) break;
      if (b.value != b.value) {
        if (a.value == a.value || a.index < 0) { a.value = b.value; a.index = b.index; }
        break;
      }
      if (a.value != a.value && a.index >= 0) break;
      const bool better = reduce == rArgmin ? b.value < a.value : b.value > a.value;
      if (a.index < 0 || better || (b.value == a.value && b.index < a.index)) { a.value = b.value; a.index = b.index; }
    }
  }
}

// Writes the partial's fields (field-major layout: field f of position o at out[f * size + o]).
GF_HD void accStore(const Acc& a, int reduce, double* out, int64_t size, int64_t o) {
  switch (reduce) {
    case rSum: out[o] = compTotal(a.sum, a.comp); break;
    case rMean: case rNanmean: out[o] = compTotal(a.sum, a.comp); out[size + o] = a.count; break;
    case rNanmin: case rNanmax: out[o] = a.value; out[size + o] = a.count; break;
    case rVar: case rStd: out[o] = a.count; out[size + o] = a.mean; out[2 * size + o] = a.m2; break;
    case rMin: case rMax: case rProd: case rNanprod: out[o] = a.value; break;
    default: out[o] = a.value; out[size + o] = a.index; break;
  }
}

}  // namespace gf

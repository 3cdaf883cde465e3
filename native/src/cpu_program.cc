// The CPU evaluator: a block-wise interpreter. The output is cut into tiles of up to kTile
// elements along its last axis; each instruction runs over a whole tile (a tight loop the
// compiler can vectorise) on a small stack of tile buffers, so the chunk is never materialised
// when a reduction follows. Tiles are grouped into grains of a fixed size, so the order of
// floating-point combination (and thus the result) does not depend on the thread count.
#include "cpu_program.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "cpu_simd.h"
#include "ops.h"
#include "reduce_acc.h"

namespace gf {
namespace {

constexpr int kTile = 512;
constexpr int64_t kGrainElements = 1 << 15;

struct Tile {
  const Program& p;
  const std::vector<InputView>& inputs;
  const int64_t* coords;  // output coordinates of the tile's row (the last one unused)
  int64_t x0;             // first index on the last axis
  int len;
  int simd;               // CpuSimd level (random leaves, sums)
};

int64_t leafBase(const Program& p, const Leaf& l, const Tile& t) {
  int64_t b = l.off + t.x0 * l.coef[p.ndim - 1];
  for (int a = 0; a + 1 < p.ndim; a++) b += t.coords[a] * l.coef[a];
  return b;
}

void leafTile(const Leaf& l, const Tile& t, double* v) {
  const Program& p = t.p;
  const int64_t base = leafBase(p, l, t), inc = l.coef[p.ndim - 1];
  switch (l.kind) {
    case kRandom:
      if (inc == 0) {
        const double x = p.f32 ? random32(l, base) : random64(l, base);
        std::fill(v, v + t.len, x);
      } else {
        randomTile(l, p.f32, base, inc, t.len, v, t.simd);
      }
      return;
    case kArange:
      for (int k = 0; k < t.len; k++) v[k] = l.a + l.b * static_cast<double>(base + k * inc);
      break;
    default: {
      const InputView& in = t.inputs[l.dep];
      if (in.type == tF64) {
        const double* s = static_cast<const double*>(in.data) + base;
        for (int k = 0; k < t.len; k++) v[k] = s[k * inc];
      } else if (in.type == tF32) {
        const float* s = static_cast<const float*>(in.data) + base;
        for (int k = 0; k < t.len; k++) v[k] = s[k * inc];
      } else {
        const int32_t* s = static_cast<const int32_t*>(in.data) + base;
        for (int k = 0; k < t.len; k++) v[k] = s[k * inc];
      }
    }
  }
  if (p.f32)
    for (int k = 0; k < t.len; k++) v[k] = round32(v[k]);
}

void unaryTile(int op, double* v, int len) {
  switch (op) {
    case uNeg: for (int k = 0; k < len; k++) v[k] = -v[k]; break;
    case uAbs: for (int k = 0; k < len; k++) v[k] = std::fabs(v[k]); break;
    case uSquare: for (int k = 0; k < len; k++) v[k] = v[k] * v[k]; break;
    case uSqrt: for (int k = 0; k < len; k++) v[k] = std::sqrt(v[k]); break;
    default: for (int k = 0; k < len; k++) v[k] = unaryOp(op, v[k]);
  }
}

void binaryTile(int op, double* a, const double* b, int len) {
  switch (op) {
    case bAdd: for (int k = 0; k < len; k++) a[k] += b[k]; break;
    case bSub: for (int k = 0; k < len; k++) a[k] -= b[k]; break;
    case bMul: for (int k = 0; k < len; k++) a[k] *= b[k]; break;
    case bDiv: for (int k = 0; k < len; k++) a[k] /= b[k]; break;
    default: for (int k = 0; k < len; k++) a[k] = binaryOp(op, a[k], b[k]);
  }
}

void binaryConstTile(int op, double* a, double c, int len) {
  switch (op) {
    case bAdd: for (int k = 0; k < len; k++) a[k] += c; break;
    case bSub: for (int k = 0; k < len; k++) a[k] -= c; break;
    case bMul: for (int k = 0; k < len; k++) a[k] *= c; break;
    case bDiv: for (int k = 0; k < len; k++) a[k] /= c; break;
    default: for (int k = 0; k < len; k++) a[k] = binaryOp(op, a[k], c);
  }
}

// Evaluates the expression over one tile; returns the buffer holding the result.
double* evalTile(const Tile& t, double* stack) {
  const Program& p = t.p;
  int sp = 0;
  for (int i = 0; i < p.ninstr; i++) {
    const Instr& in = p.code[i];
    double* top = stack + static_cast<size_t>(sp) * kTile;
    switch (in.op) {
      case kFill: std::fill(top, top + t.len, p.f32 ? round32(in.p0) : in.p0); sp++; continue;
      case kRandom: case kArange: case kInput: leafTile(p.leaves[in.sub], t, top); sp++; continue;
      case kUnary: unaryTile(in.sub, top - kTile, t.len); break;
      case kBinary: binaryTile(in.sub, top - 2 * kTile, top - kTile, t.len); sp--; break;
      case kBinaryConst: binaryConstTile(in.sub, top - kTile, in.p0, t.len); break;
      default: for (int k = 0; k < t.len; k++) top[k - kTile] = clipOp(top[k - kTile], in.p0, in.p1);
    }
    if (p.f32) {
      double* v = stack + static_cast<size_t>(sp - 1) * kTile;
      for (int k = 0; k < t.len; k++) v[k] = round32(v[k]);
    }
  }
  return stack;
}

void tileReduce(const Program& p, const Tile& t, const double* v, Acc& acc) {
  if (p.reduce == rVar || p.reduce == rStd) {
    // Two-pass over the tile, as the js chunk step does over its lane, then Chan's update.
    double s = 0;
    for (int k = 0; k < t.len; k++) s += v[k];
    Acc b{0, 0, static_cast<double>(t.len), s / t.len, 0, 0, -1};
    for (int k = 0; k < t.len; k++) {
      const double d = v[k] - b.mean;
      b.m2 += d * d;
    }
    accMerge(acc, b, p.reduce);
    return;
  }
  if (p.reduce == rSum || p.reduce == rMean) {
    sumTile(v, t.len, acc.sum, acc.comp, t.simd);
    acc.count += t.len;
    return;
  }
  double gi = static_cast<double>(p.ioff + t.x0 * p.icoef[p.ndim - 1]);
  for (int a = 0; a + 1 < p.ndim; a++) gi += static_cast<double>(t.coords[a] * p.icoef[a]);
  const double ginc = static_cast<double>(p.icoef[p.ndim - 1]);
  for (int k = 0; k < t.len; k++) accAdd(acc, p.reduce, v[k], gi + k * ginc);
}

struct Layout {
  int64_t last, segs, rows, items, itemsPerGrain, grains;
};

Layout layoutOf(const Program& p) {
  Layout l{};
  l.last = p.shape[p.ndim - 1];
  l.segs = (l.last + kTile - 1) / kTile;
  l.rows = l.last == 0 ? 0 : p.n / l.last;
  l.items = l.rows * l.segs;
  const int64_t perItem = std::min<int64_t>(l.last, kTile);
  l.itemsPerGrain = std::max<int64_t>(1, kGrainElements / std::max<int64_t>(1, perItem));
  l.grains = (l.items + l.itemsPerGrain - 1) / l.itemsPerGrain;
  return l;
}

// Calls visit(tile, values) for every tile of grain g, in flat order.
template <typename Visit>
void forGrain(const Program& p, const std::vector<InputView>& inputs, const Layout& L, int simd, int64_t g, Visit&& visit) {
  thread_local std::vector<double> stack;
  stack.resize(static_cast<size_t>(p.stack) * kTile);
  int64_t coords[kMaxDims] = {0};
  const int64_t end = std::min(L.items, (g + 1) * L.itemsPerGrain);
  for (int64_t item = g * L.itemsPerGrain; item < end; item++) {
    int64_t row = item / L.segs;
    const int64_t seg = item % L.segs;
    for (int a = p.ndim - 2; a >= 0; a--) {
      coords[a] = row % p.shape[a];
      row /= p.shape[a];
    }
    const int64_t x0 = seg * kTile;
    Tile t{p, inputs, coords, x0, static_cast<int>(std::min<int64_t>(kTile, L.last - x0)), simd};
    visit(t, evalTile(t, stack.data()));
  }
}

template <typename T>
void writeOut(const Program& p, const Tile& t, const double* v, T* out) {
  int64_t at = t.x0;
  int64_t stride = p.shape[p.ndim - 1];
  for (int a = p.ndim - 2; a >= 0; a--) {
    at += t.coords[a] * stride;
    stride *= p.shape[a];
  }
  for (int k = 0; k < t.len; k++) out[at + k] = static_cast<T>(v[k]);
}

// Reduction along one axis: materialise the elementwise result, then fold each lane as the js
// chunk step does (lane by lane, in order).
void reduceAxis(Pool& pool, const Program& p, const std::vector<InputView>& inputs, double* out) {
  std::vector<double> full(static_cast<size_t>(p.n));
  Program q = p;
  q.reduce = rNone;
  if (p.f32) {
    std::vector<float> tmp(static_cast<size_t>(p.n));
    runProgramCpu(pool, q, inputs, tmp.data());
    std::copy(tmp.begin(), tmp.end(), full.begin());
  } else {
    runProgramCpu(pool, q, inputs, full.data());
  }
  int64_t inner = 1;
  for (int d = p.axis + 1; d < p.ndim; d++) inner *= p.shape[d];
  const int64_t len = p.shape[p.axis], size = partialSize(p);
  const int64_t perGrain = std::max<int64_t>(1, kGrainElements / std::max<int64_t>(1, len));
  pool.parallelFor((size + perGrain - 1) / perGrain, [&](int64_t g) {
    for (int64_t o = g * perGrain; o < std::min(size, (g + 1) * perGrain); o++) {
      const int64_t first = (o / inner) * len * inner + o % inner;
      Acc acc = accInit(p.reduce);
      // Coordinates of the lane's first element, for the arg* index (none in an empty lane,
      // whose length-0 axis would divide by zero).
      double gi = static_cast<double>(p.ioff);
      int64_t rem = first;
      for (int a = p.ndim - 1; a >= 0 && len > 0; a--) {
        gi += static_cast<double>((rem % p.shape[a]) * p.icoef[a]);
        rem /= p.shape[a];
      }
      if (p.reduce == rVar || p.reduce == rStd) {
        double s = 0;
        for (int64_t k = 0; k < len; k++) s += full[first + k * inner];
        acc.count = static_cast<double>(len);
        acc.mean = len > 0 ? s / len : 0;
        for (int64_t k = 0; k < len; k++) {
          const double d = full[first + k * inner] - acc.mean;
          acc.m2 += d * d;
        }
      } else {
        const double ginc = static_cast<double>(p.icoef[p.axis]);
        for (int64_t k = 0; k < len; k++) accAdd(acc, p.reduce, full[first + k * inner], gi + k * ginc);
      }
      accStore(acc, p.reduce, out, size, o);
    }
  });
}

}  // namespace

void runProgramCpu(Pool& pool, const Program& p, const std::vector<InputView>& inputs, void* out) {
  if (p.reduce != rNone && p.axis >= 0) {
    reduceAxis(pool, p, inputs, static_cast<double*>(out));
    return;
  }
  const Layout L = layoutOf(p);
  const int simd = cpuSimdLevel();
  if (p.reduce == rNone) {
    pool.parallelFor(L.grains, [&](int64_t g) {
      forGrain(p, inputs, L, simd, g, [&](const Tile& t, const double* v) {
        if (p.f32) writeOut(p, t, v, static_cast<float*>(out));
        else writeOut(p, t, v, static_cast<double*>(out));
      });
    });
    return;
  }
  std::vector<Acc> parts(static_cast<size_t>(L.grains), accInit(p.reduce));
  pool.parallelFor(L.grains, [&](int64_t g) {
    Acc acc = accInit(p.reduce);
    forGrain(p, inputs, L, simd, g, [&](const Tile& t, const double* v) { tileReduce(p, t, v, acc); });
    parts[g] = acc;
  });
  Acc total = accInit(p.reduce);
  for (const Acc& a : parts) accMerge(total, a, p.reduce);
  accStore(total, p.reduce, static_cast<double*>(out), 1, 0);
}

}  // namespace gf

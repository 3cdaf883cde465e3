// The specialised kernel for the dominant chunk program: one random leaf (normal / uniform,
// float64 / float32) -> a chain of scalar ops (+ - * / by a constant, neg) -> a 1-d or 2-d
// strided region -> a sum / mean / min / max / var / std partial over all axes. It is
// compute-bound (Philox integer work, log / sqrt / sincos), so the work item is shaped around
// the Philox block rather than the output element:
//   PAIR  (contiguous columns): one item = one Philox block, all its 2 (f64) or 4 (f32) values;
//   HALF  (float32, column step 2): one item = one Philox block, the 2 values the region keeps;
//   ELEM  (any other step, e.g. float64 [::2]): one item = one output element, one Philox call,
//         and only the cosine or the sine that element needs (the [::2, ::2] slice keeps cosines).
// Every value is computed exactly as the general interpreter does (same ops, same rounding, the
// scalar ops applied per element), so results match js within the docs/random.md contract.
// Accumulation is in double: sums add each item's values then fold them into a per-thread
// Neumaier pair; var keeps shifted sums (shift = the transformed mean of the distribution) and
// turns them into (count, mean, m2) per thread. One partial per block (fixed tree), then a
// one-block second pass folds the partials in a fixed order, so only one partial is copied back.
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "../ops.h"
#include "../reduce_acc.h"
#include "common.h"
#include "fast.h"

namespace gf {
namespace cuda {
namespace {

constexpr int kFastThreads = 256;
constexpr int kFastOps = 8;
enum FastMode { mPair = 0, mHalf = 1, mElem = 2 };
enum FastRed { fSum = 0, fMin = 1, fMax = 2, fVar = 3 };
enum FastOp { oAdd = 0, oMul = 1, oDiv = 2 };

struct FastSpec {
  uint32_t k0, k1;
  double a, b;                      // leaf: (mean, std) or (low, high)
  int64_t off, rowStep, colStep;    // leaf flat index = off + row * rowStep + col * colStep
  uint32_t rows, cols, ipr;         // items per row
  int32_t nops;
  int32_t opKind[kFastOps];
  double opc[kFastOps];
  float fopc[kFastOps];             // float32: the constants, when every one is a float exactly
  int32_t fexact;                   // float32 and fopc holds every constant: the ops run in float
  double shift;                     // var: the transformed mean
};

template <bool F32>
__device__ __forceinline__ double applyOps(const FastSpec& s, double x) {
  for (int i = 0; i < s.nops; i++) {
    const double c = s.opc[i];
    double y;
    if (s.opKind[i] == oAdd) y = __dadd_rn(x, c);
    else if (s.opKind[i] == oMul) y = __dmul_rn(x, c);
    else y = x / c;
    x = F32 ? static_cast<double>(static_cast<float>(y)) : y;
  }
  return x;
}

// float32 with float constants: the same rounding as applyOps<true> (for float operands, rounding
// the double result of + - * / to float is rounding the exact result once), without the two
// float <-> double conversions per op, which run at a quarter of the FP32 rate on Hopper.
__device__ __forceinline__ float applyOpsF(const FastSpec& s, float x) {
  for (int i = 0; i < s.nops; i++) {
    const float c = s.fopc[i];
    if (s.opKind[i] == oAdd) x = __fadd_rn(x, c);
    else if (s.opKind[i] == oMul) x = __fmul_rn(x, c);
    else x = __fdiv_rn(x, c);
  }
  return x;
}

// A float32 leaf value through the ops, as the double the accumulators take.
__device__ __forceinline__ double opsOf32(const FastSpec& s, float v) {
  return s.fexact ? static_cast<double>(applyOpsF(s, v)) : applyOps<true>(s, v);
}

// Per-thread state of the reduction.
template <int RK>
struct State {
  double s = 0, c = 0, n = 0, s2 = 0;
  __device__ __forceinline__ void init() {
    if (RK == fMin) s = INFINITY;
    if (RK == fMax) s = -INFINITY;
  }
  // One value.
  __device__ __forceinline__ void add(double x, double shift) {
    if (RK == fSum) s += x;  // item-local; folded by endItem
    else if (RK == fMin) { if (s == s && (x != x || x < s)) s = x; }
    else if (RK == fMax) { if (s == s && (x != x || x > s)) s = x; }
    else {
      const double d = x - shift;
      s += d;
      s2 = fma(d, d, s2);
      n += 1;
    }
  }
};

template <bool F32, bool NORMAL, int MODE, int RK>
__global__ void __launch_bounds__(kFastThreads, 4) fastKernel(const __grid_constant__ FastSpec sp, Acc* partials) {
  const uint32_t items = sp.rows * sp.ipr;
  constexpr int E = F32 ? 4 : 2;  // values per Philox block
  State<RK> st;
  st.init();
  double tot = 0, comp = 0;  // sums: Neumaier over item sums
  const uint32_t start = blockIdx.x * blockDim.x + threadIdx.x, stride = gridDim.x * blockDim.x;
  uint32_t row = start / sp.ipr, xg = start % sp.ipr;
  const uint32_t strideRow = stride / sp.ipr, strideX = stride % sp.ipr;
  const double a = sp.a, b = sp.b;
  for (uint32_t g = start; g < items; g += stride) {
    const int64_t base = sp.off + static_cast<int64_t>(row) * sp.rowStep;
    State<RK> it;  // for sums: this item's values
    if (RK == fSum) it.s = 0;
    else it = st;
    if (MODE == mElem) {
      const uint64_t idx = static_cast<uint64_t>(base + static_cast<int64_t>(xg) * sp.colStep);
      const Words w = philox(idx / E, sp.k0, sp.k1);
      const int q = static_cast<int>(idx % E);
      double v;
      if (!F32) {
        const double u1 = uniform64(w.w0, w.w1), u2 = uniform64(w.w2, w.w3);
        if (NORMAL) {
          const double r = sqrt(-2.0 * log(u1));
          const double t = q ? sinpi(2.0 * u2) : cospi(2.0 * u2);
          v = __dadd_rn(a, __dmul_rn(b, __dmul_rn(r, t)));
        } else {
          v = __dadd_rn(a, __dmul_rn(__dadd_rn(b, -a), q ? u2 : u1));
        }
      } else {
        const float fa = static_cast<float>(a), fb = static_cast<float>(b);
        if (NORMAL) {
          const bool second = q >= 2;
          const float u1 = uniform32(second ? w.w2 : w.w0), u2 = uniform32(second ? w.w3 : w.w1);
          const float r = sqrtf(-2.0f * logf(u1));
          const float t = __fmul_rn(static_cast<float>(kTwoPi), u2);
          const float tr = (q & 1) ? sinf(t) : cosf(t);
          v = __fadd_rn(fa, __fmul_rn(fb, __fmul_rn(r, tr)));
        } else {
          const uint32_t word = q == 0 ? w.w0 : q == 1 ? w.w1 : q == 2 ? w.w2 : w.w3;
          v = __fadd_rn(fa, __fmul_rn(__fadd_rn(fb, -fa), uniform32(word)));
        }
      }
      it.add(F32 ? opsOf32(sp, static_cast<float>(v)) : applyOps<false>(sp, v), sp.shift);
    } else {
      // Block items: this row's kept flat indices are base + k * step, k < cols.
      const int64_t step = MODE == mPair ? 1 : 2;
      const int64_t hi = base + (static_cast<int64_t>(sp.cols) - 1) * step;
      const uint64_t blk = static_cast<uint64_t>(base) / E + xg;
      const int64_t idx0 = static_cast<int64_t>(blk) * E;
      const Words w = philox(blk, sp.k0, sp.k1);
      if (!F32) {  // PAIR only
        const double u1 = uniform64(w.w0, w.w1), u2 = uniform64(w.w2, w.w3);
        double v0, v1;
        if (NORMAL) {
          const double r = sqrt(-2.0 * log(u1));
          double s, c;
          sincospi(2.0 * u2, &s, &c);
          v0 = __dadd_rn(a, __dmul_rn(b, __dmul_rn(r, c)));
          v1 = __dadd_rn(a, __dmul_rn(b, __dmul_rn(r, s)));
        } else {
          const double span = __dadd_rn(b, -a);
          v0 = __dadd_rn(a, __dmul_rn(span, u1));
          v1 = __dadd_rn(a, __dmul_rn(span, u2));
        }
        if (idx0 >= base && idx0 + 1 <= hi) {  // both inside the row: no per-value checks
          it.add(applyOps<false>(sp, v0), sp.shift);
          it.add(applyOps<false>(sp, v1), sp.shift);
        } else {
          if (idx0 >= base && idx0 <= hi) it.add(applyOps<false>(sp, v0), sp.shift);
          if (idx0 + 1 >= base && idx0 + 1 <= hi) it.add(applyOps<false>(sp, v1), sp.shift);
        }
      } else {
        const float fa = static_cast<float>(a), fb = static_cast<float>(b);
        const uint32_t ws[4] = {w.w0, w.w1, w.w2, w.w3};
        if (MODE == mPair) {
          float v[4];
          if (NORMAL) {
#pragma unroll
            for (int p = 0; p < 2; p++) {
              const float r = sqrtf(-2.0f * logf(uniform32(ws[2 * p])));
              float s, c;
              sincosf(__fmul_rn(static_cast<float>(kTwoPi), uniform32(ws[2 * p + 1])), &s, &c);
              v[2 * p] = __fadd_rn(fa, __fmul_rn(fb, __fmul_rn(r, c)));
              v[2 * p + 1] = __fadd_rn(fa, __fmul_rn(fb, __fmul_rn(r, s)));
            }
          } else {
            const float span = __fadd_rn(fb, -fa);
#pragma unroll
            for (int q = 0; q < 4; q++) v[q] = __fadd_rn(fa, __fmul_rn(span, uniform32(ws[q])));
          }
          // A block wholly inside the row (all but a row's first and last) needs no bounds checks.
          if (idx0 >= base && idx0 + 3 <= hi) {
            if (RK == fSum && sp.fexact) {
              // The block's four values summed in float, then one conversion and one double add:
              // float <-> double conversions and FP64 adds run at a fraction of the float rate
              // (kernel 3 % faster, bench/results/profiles/fast-kernel-f32-ab-h100-db0a292.txt).
              // A pair sum in float errs by at most an ulp of the pair, far inside the float32
              // contract; the double accumulation across blocks is unchanged.
              const float s01 = __fadd_rn(applyOpsF(sp, v[0]), applyOpsF(sp, v[1]));
              const float s23 = __fadd_rn(applyOpsF(sp, v[2]), applyOpsF(sp, v[3]));
              it.s += static_cast<double>(__fadd_rn(s01, s23));
            } else {
#pragma unroll
              for (int q = 0; q < 4; q++) it.add(opsOf32(sp, v[q]), sp.shift);
            }
          } else {
#pragma unroll
            for (int q = 0; q < 4; q++)
              if (idx0 + q >= base && idx0 + q <= hi) it.add(opsOf32(sp, v[q]), sp.shift);
          }
        } else {  // HALF: the kept positions of the block share the parity of base
          const int par = static_cast<int>(base & 1);
#pragma unroll
          for (int p = 0; p < 2; p++) {
            const int64_t idx = idx0 + 2 * p + par;
            float v;
            if (NORMAL) {
              const float r = sqrtf(-2.0f * logf(uniform32(ws[2 * p])));
              const float t = __fmul_rn(static_cast<float>(kTwoPi), uniform32(ws[2 * p + 1]));
              v = __fadd_rn(fa, __fmul_rn(fb, __fmul_rn(r, par ? sinf(t) : cosf(t))));
            } else {
              v = __fadd_rn(fa, __fmul_rn(__fadd_rn(fb, -fa), uniform32(par ? ws[2 * p + 1] : ws[2 * p])));
            }
            if (idx >= base && idx <= hi) it.add(opsOf32(sp, v), sp.shift);
          }
        }
      }
    }
    if (RK == fSum) neumaier(tot, comp, it.s);
    else st = it;
    xg += strideX;
    row += strideRow;
    if (xg >= sp.ipr) {
      xg -= sp.ipr;
      row++;
    }
  }
  // To the generic accumulator, then a fixed tree over the block.
  Acc acc = accInit(RK == fSum ? rSum : RK == fMin ? rMin : RK == fMax ? rMax : rVar);
  if (RK == fSum) {
    acc.sum = tot;
    acc.comp = comp;
  } else if (RK == fVar) {
    if (st.n > 0) {
      acc.count = st.n;
      acc.mean = sp.shift + st.s / st.n;
      acc.m2 = fmax(0.0, st.s2 - st.s * (st.s / st.n));
    }
  } else {
    acc.value = st.s;
  }
  const int red = RK == fSum ? rSum : RK == fMin ? rMin : RK == fMax ? rMax : rVar;
  __shared__ Acc shared[kFastThreads];
  shared[threadIdx.x] = acc;
  __syncthreads();
  for (int s = kFastThreads / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) accMerge(shared[threadIdx.x], shared[threadIdx.x + s], red);
    __syncthreads();
  }
  if (threadIdx.x == 0) partials[blockIdx.x] = shared[0];
}

// The lean variant for the float32 normal sum with float constants, every value (PAIR) or the
// kept parity of a [::2] slice (HALF): the values exactly as fastKernel makes them, summed per
// Philox block in float as there, but into one plain double per thread instead of a Neumaier pair
// over per-item state, and a double tree at the end. A thread sums a few hundred block sums of
// ~1e1 each, so plain double addition loses nothing the float32 contract could see; what it buys
// is registers, hence resident warps: the general kernel's accumulators, ops in double and
// per-value paths hold it at 4 blocks of 256 threads per SM on this issue-bound work.
// MB: the blocks per SM asked of the compiler (6: 40 registers, no spill; 8: 32, a few spilled).
// (GPUFLOW_CUDA_LEAN=0 turns it off, =8 asks for 8 blocks; read per call, for A/B.)
template <int MODE, int MB>
__global__ void __launch_bounds__(kFastThreads, MB) leanF32NormalSum(const __grid_constant__ FastSpec sp, Acc* partials) {
  const uint32_t items = sp.rows * sp.ipr;
  double tot = 0;
  const uint32_t start = blockIdx.x * blockDim.x + threadIdx.x, stride = gridDim.x * blockDim.x;
  uint32_t row = start / sp.ipr, xg = start % sp.ipr;
  const uint32_t strideRow = stride / sp.ipr, strideX = stride % sp.ipr;
  const float fa = static_cast<float>(sp.a), fb = static_cast<float>(sp.b);
  for (uint32_t g = start; g < items; g += stride) {
    const int64_t base = sp.off + static_cast<int64_t>(row) * sp.rowStep;
    const int64_t hi = base + (static_cast<int64_t>(sp.cols) - 1) * (MODE == mPair ? 1 : 2);
    const uint64_t blk = static_cast<uint64_t>(base) / 4 + xg;
    const int64_t idx0 = static_cast<int64_t>(blk) * 4;
    const Words w = philox(blk, sp.k0, sp.k1);
    if (MODE == mPair) {
      float v[4];
      const uint32_t ws[4] = {w.w0, w.w1, w.w2, w.w3};
#pragma unroll
      for (int p = 0; p < 2; p++) {
        const float r = sqrtf(-2.0f * logf(uniform32(ws[2 * p])));
        float sn, cs;
        sincosf(__fmul_rn(static_cast<float>(kTwoPi), uniform32(ws[2 * p + 1])), &sn, &cs);
        v[2 * p] = applyOpsF(sp, __fadd_rn(fa, __fmul_rn(fb, __fmul_rn(r, cs))));
        v[2 * p + 1] = applyOpsF(sp, __fadd_rn(fa, __fmul_rn(fb, __fmul_rn(r, sn))));
      }
      if (idx0 >= base && idx0 + 3 <= hi) {
        tot += static_cast<double>(__fadd_rn(__fadd_rn(v[0], v[1]), __fadd_rn(v[2], v[3])));
      } else {
#pragma unroll
        for (int q = 0; q < 4; q++)
          if (idx0 + q >= base && idx0 + q <= hi) tot += static_cast<double>(v[q]);
      }
    } else {
      const int par = static_cast<int>(base & 1);
      const uint32_t ws[4] = {w.w0, w.w1, w.w2, w.w3};
#pragma unroll
      for (int p = 0; p < 2; p++) {
        const int64_t idx = idx0 + 2 * p + par;
        const float r = sqrtf(-2.0f * logf(uniform32(ws[2 * p])));
        const float t = __fmul_rn(static_cast<float>(kTwoPi), uniform32(ws[2 * p + 1]));
        const float v = applyOpsF(sp, __fadd_rn(fa, __fmul_rn(fb, __fmul_rn(r, par ? sinf(t) : cosf(t)))));
        if (idx >= base && idx <= hi) tot += static_cast<double>(v);
      }
    }
    xg += strideX;
    row += strideRow;
    if (xg >= sp.ipr) {
      xg -= sp.ipr;
      row++;
    }
  }
  __shared__ double shared[kFastThreads];
  shared[threadIdx.x] = tot;
  __syncthreads();
  for (int s = kFastThreads / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) shared[threadIdx.x] += shared[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    Acc acc = accInit(rSum);
    acc.sum = shared[0];
    partials[blockIdx.x] = acc;
  }
}

// The second pass: one block folds n partials (thread t takes t, t + 256, ... in order), then a
// fixed tree; the result lands in partials[n].
__global__ void __launch_bounds__(kFastThreads) foldKernel(Acc* partials, int n, int red) {
  Acc acc = accInit(red);
  for (int i = threadIdx.x; i < n; i += kFastThreads) accMerge(acc, partials[i], red);
  __shared__ Acc shared[kFastThreads];
  shared[threadIdx.x] = acc;
  __syncthreads();
  for (int s = kFastThreads / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) accMerge(shared[threadIdx.x], shared[threadIdx.x + s], red);
    __syncthreads();
  }
  if (threadIdx.x == 0) partials[n] = shared[0];
}

struct Plan {
  FastSpec spec;
  int mode, rk, f32, normal, red;
};

// Host-side application of the ops (for the var shift).
double hostOps(const FastSpec& s, double x, bool f32) {
  for (int i = 0; i < s.nops; i++) {
    double y = s.opKind[i] == oAdd ? x + s.opc[i] : s.opKind[i] == oMul ? x * s.opc[i] : x / s.opc[i];
    x = f32 ? static_cast<double>(static_cast<float>(y)) : y;
  }
  return x;
}

bool plan(const Program& p, Plan& out) {
  if (const char* e = std::getenv("GPUFLOW_CUDA_GENERAL")) if (e[0] == '1') return false;
  if (!p.chain || p.nleaves != 1 || p.code[0].op != kRandom || p.axis >= 0 || p.n <= 0 || p.ndim > 2) return false;
  int rk;
  switch (p.reduce) {
    case rSum: case rMean: rk = fSum; break;
    case rMin: rk = fMin; break;
    case rMax: rk = fMax; break;
    case rVar: case rStd: rk = fVar; break;
    default: return false;
  }
  FastSpec s{};
  s.nops = 0;
  for (int i = 1; i < p.ninstr; i++) {
    const Instr& in = p.code[i];
    if (s.nops >= kFastOps) return false;
    if (in.op == kUnary && in.sub == uNeg) { s.opKind[s.nops] = oMul; s.opc[s.nops++] = -1.0; }
    else if (in.op == kBinaryConst && in.sub == bAdd) { s.opKind[s.nops] = oAdd; s.opc[s.nops++] = in.p0; }
    else if (in.op == kBinaryConst && in.sub == bSub) { s.opKind[s.nops] = oAdd; s.opc[s.nops++] = -in.p0; }  // fl(x - c) = fl(x + (-c))
    else if (in.op == kBinaryConst && in.sub == bMul) { s.opKind[s.nops] = oMul; s.opc[s.nops++] = in.p0; }
    else if (in.op == kBinaryConst && in.sub == bDiv) { s.opKind[s.nops] = oDiv; s.opc[s.nops++] = in.p0; }
    else return false;
  }
  s.fexact = p.f32 != 0;
  for (int i = 0; i < s.nops; i++) {
    s.fopc[i] = static_cast<float>(s.opc[i]);
    if (static_cast<double>(s.fopc[i]) != s.opc[i]) s.fexact = 0;
  }
  const Leaf& l = p.leaves[0];
  s.k0 = l.k0;
  s.k1 = l.k1;
  s.a = l.a;
  s.b = l.b;
  s.off = l.off;
  const int nd = p.ndim;
  s.rows = nd == 2 ? static_cast<uint32_t>(p.shape[0]) : 1;
  s.cols = static_cast<uint32_t>(p.shape[nd - 1]);
  s.rowStep = nd == 2 ? l.coef[0] : 0;
  s.colStep = l.coef[nd - 1];
  // A leaf walked backwards (negative step) takes the general kernel.
  if (s.colStep <= 0 || s.rowStep < 0 || s.cols == 0 || s.rows == 0) return false;
  const bool f32 = p.f32 != 0;
  const int E = f32 ? 4 : 2;
  int mode;
  if (s.colStep == 1) mode = mPair;
  else if (f32 && s.colStep == 2) mode = mHalf;
  else mode = mElem;
  if (mode == mPair) s.ipr = (s.cols + 2 * E - 2) / E;
  else if (mode == mHalf) s.ipr = (2 * s.cols + 2 * E - 3) / E + 1;
  else s.ipr = s.cols;
  if (static_cast<uint64_t>(s.rows) * s.ipr >= (1ull << 31)) return false;
  const double mean = l.normal ? l.a : 0.5 * (l.a + l.b);
  s.shift = hostOps(s, f32 ? static_cast<double>(static_cast<float>(mean)) : mean, f32);
  if (!std::isfinite(s.shift)) s.shift = 0;
  out.spec = s;
  out.mode = mode;
  out.rk = rk;
  out.f32 = f32;
  out.normal = l.normal;
  out.red = rk == fSum ? rSum : rk == fMin ? rMin : rk == fMax ? rMax : rVar;
  return true;
}

template <bool F32, bool NORMAL, int MODE, int RK>
int launchT(const FastSpec& s, Acc* partials, int maxBlocks) {
  static const int resident = [] {
    int perSm = 0, dev = 0, sms = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, fastKernel<F32, NORMAL, MODE, RK>, kFastThreads, 0);
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    return std::max(1, perSm) * std::max(1, sms);
  }();
  const int64_t items = static_cast<int64_t>(s.rows) * s.ipr;
  const int n = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>({static_cast<int64_t>(resident), static_cast<int64_t>(maxBlocks), (items + kFastThreads - 1) / kFastThreads})));
  fastKernel<F32, NORMAL, MODE, RK><<<n, kFastThreads, 0, stream()>>>(s, partials);
  return n;
}

template <bool F32, bool NORMAL, int MODE>
int launchR(const Plan& pl, Acc* partials, int maxBlocks) {
  switch (pl.rk) {
    case fSum: return launchT<F32, NORMAL, MODE, fSum>(pl.spec, partials, maxBlocks);
    case fMin: return launchT<F32, NORMAL, MODE, fMin>(pl.spec, partials, maxBlocks);
    case fMax: return launchT<F32, NORMAL, MODE, fMax>(pl.spec, partials, maxBlocks);
    default: return launchT<F32, NORMAL, MODE, fVar>(pl.spec, partials, maxBlocks);
  }
}

template <bool F32, bool NORMAL>
int launchM(const Plan& pl, Acc* partials, int maxBlocks) {
  if (pl.mode == mPair) return launchR<F32, NORMAL, mPair>(pl, partials, maxBlocks);
  if (F32 && pl.mode == mHalf) return launchR<F32, NORMAL, mHalf>(pl, partials, maxBlocks);
  return launchR<F32, NORMAL, mElem>(pl, partials, maxBlocks);
}

template <int MODE, int MB>
int launchLean(const FastSpec& s, Acc* partials, int maxBlocks) {
  static const int resident = [] {
    int perSm = 0, dev = 0, sms = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, leanF32NormalSum<MODE, MB>, kFastThreads, 0);
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    return std::max(1, perSm) * std::max(1, sms);
  }();
  const int64_t items = static_cast<int64_t>(s.rows) * s.ipr;
  const int n = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>({static_cast<int64_t>(resident), static_cast<int64_t>(maxBlocks), (items + kFastThreads - 1) / kFastThreads})));
  leanF32NormalSum<MODE, MB><<<n, kFastThreads, 0, stream()>>>(s, partials);
  return n;
}

// 0: off; 6 or 8: the lean kernel's blocks per SM (default 6).
int leanSetting() {
  const char* e = std::getenv("GPUFLOW_CUDA_LEAN");
  if (!e || !e[0]) return 6;
  return e[0] == '0' ? 0 : e[0] == '8' ? 8 : 6;
}

// Launches the kernel and the fold; the folded partial lands in partials[returned index].
int launchPlan(const Plan& pl, Acc* partials, int maxBlocks) {
  int n;
  const int lean = pl.f32 && pl.normal && pl.rk == fSum && pl.spec.fexact && (pl.mode == mPair || pl.mode == mHalf) ? leanSetting() : 0;
  if (lean == 6) n = pl.mode == mPair ? launchLean<mPair, 6>(pl.spec, partials, maxBlocks) : launchLean<mHalf, 6>(pl.spec, partials, maxBlocks);
  else if (lean == 8) n = pl.mode == mPair ? launchLean<mPair, 8>(pl.spec, partials, maxBlocks) : launchLean<mHalf, 8>(pl.spec, partials, maxBlocks);
  else if (pl.f32) n = pl.normal ? launchM<true, true>(pl, partials, maxBlocks) : launchM<true, false>(pl, partials, maxBlocks);
  else n = pl.normal ? launchM<false, true>(pl, partials, maxBlocks) : launchM<false, false>(pl, partials, maxBlocks);
  launched("fast kernel");
  foldKernel<<<1, kFastThreads, 0, stream()>>>(partials, n, pl.red);
  launched("fold kernel");
  return n;
}

int maxBlocksFor() {
  static const int m = [] {
    int dev = 0, sms = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    return std::max(1, sms) * 16;
  }();
  return m;
}

}  // namespace

bool fastRun(const Program& p, void* out) {
  Plan pl;
  if (!plan(p, pl)) return false;
  const int maxBlocks = maxBlocksFor();
  DeviceBuffer parts(sizeof(Acc) * (maxBlocks + 1));
  const int n = launchPlan(pl, parts.as<Acc>(), maxBlocks);
  Acc total;
  check(cudaMemcpyAsync(&total, parts.as<Acc>() + n, sizeof(Acc), cudaMemcpyDeviceToHost, stream()), "copy partial");
  sync();
  if (p.reduce == rMean || p.reduce == rSum) total.count = static_cast<double>(p.n);
  accStore(total, p.reduce, static_cast<double*>(out), 1, 0);
  return true;
}

bool fastBench(const Program& p, int reps, double& ms) {
  Plan pl;
  if (!plan(p, pl)) return false;
  const int maxBlocks = maxBlocksFor();
  DeviceBuffer parts(sizeof(Acc) * (maxBlocks + 1));
  launchPlan(pl, parts.as<Acc>(), maxBlocks);  // warm-up
  cudaEvent_t a, b;
  check(cudaEventCreate(&a), "event");
  check(cudaEventCreate(&b), "event");
  check(cudaEventRecord(a, stream()), "event record");
  for (int r = 0; r < reps; r++) launchPlan(pl, parts.as<Acc>(), maxBlocks);
  check(cudaEventRecord(b, stream()), "event record");
  check(cudaEventSynchronize(b), "event sync");
  float t = 0;
  check(cudaEventElapsedTime(&t, a, b), "elapsed");
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  ms = t / reps;
  return true;
}

}  // namespace cuda
}  // namespace gf

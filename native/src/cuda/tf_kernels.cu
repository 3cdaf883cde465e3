// Kernels of the TensorFlow.js backend (cuda_tf.h): element-wise ops with broadcasting through
// strides, reductions over the innermost axis, strided copies (transpose, slice, broadcast),
// gather, one-hot, row softmax and cuBLAS batched gemm, all on 4-byte elements. Each op is queued
// on the calling thread's stream and returns at once; tfRead waits for what came before it.
// The formulas follow tfjs's cpu kernels (step's alpha, softplus's thresholds, round half to
// even), so the GPU checks (bench/tuning/gpu-checks.ts) compare like with like.
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "../cuda_resident.h"
#include "../cuda_tf.h"
#include "common.h"
#include "gemm_device.h"
#include "../philox.h"

namespace gf {
namespace cuda {
namespace {

constexpr int kMaxRank = 6;
struct Shape {
  int rank;
  int64_t dim[kMaxRank];
};
struct Strides {
  int64_t s[kMaxRank];
};

unsigned blocks(int64_t n, int per = 256) { return unsigned((n + per - 1) / per); }

// ---- element-wise ----
enum Uop { uNeg, uAbs, uSquare, uSqrt, uRsqrt, uExp, uLog, uLog1p, uRelu, uSigmoid, uTanh, uElu, uStep, uFloor, uCeil, uRound, uSign, uReciprocal, uClip, uSoftplus, uRelu6, uLeakyRelu, uExpm1, uCopy };

template <typename T>
__device__ T unaryOp(int op, T x, float p0, float p1) {
  switch (op) {
    case uNeg: return -x;
    case uAbs: return x < 0 ? -x : x;
    case uSquare: return x * x;
    case uRelu: return x < 0 ? T(0) : x;
    case uSign: return x > 0 ? T(1) : x < 0 ? T(-1) : T(0);
    case uClip: return x < T(p0) ? T(p0) : x > T(p1) ? T(p1) : x;
    case uCopy: return x;
    default: break;
  }
  if constexpr (sizeof(T) == 4 && T(0.5) != T(0)) {
    const float eps = 1.1920928955078125e-7f, thr = logf(eps) + 2.0f;
    switch (op) {
      case uSqrt: return sqrtf(x);
      case uRsqrt: return 1.0f / sqrtf(x);
      case uExp: return expf(x);
      case uLog: return logf(x);
      case uLog1p: return log1pf(x);
      case uSigmoid: return 1.0f / (1.0f + expf(-x));
      case uTanh: return tanhf(x);
      case uElu: return x >= 0 ? x : expf(x) - 1.0f;
      case uStep: return isnan(x) ? x : x > 0 ? 1.0f : p0;
      case uFloor: return floorf(x);
      case uCeil: return ceilf(x);
      case uRound: return rintf(x);
      case uReciprocal: return 1.0f / x;
      case uSoftplus: return x > -thr ? x : x < thr ? expf(x) : logf(expf(x) + 1.0f);
      case uRelu6: return x < 0 ? 0.0f : x > 6 ? 6.0f : x;
      case uLeakyRelu: return x < 0 ? p0 * x : x;
      case uExpm1: return expm1f(x);
      default: break;
    }
  }
  return x;
}

template <typename T>
__global__ void unaryKernel(int op, const T* x, T* out, int64_t n, float p0, float p1) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) out[i] = unaryOp(op, x[i], p0, p1);
}

enum Bop { bAdd, bSub, bMul, bDiv, bMax, bMin, bPow, bSqDiff, bEqual, bNotEqual, bLess, bLessEq, bGreater, bGreaterEq, bAnd, bOr, bEluGrad, bReluGrad };

template <typename T>
__device__ T binaryOp(int op, T a, T b) {
  switch (op) {
    case bAdd: return a + b;
    case bSub: return a - b;
    case bMul: return a * b;
    case bDiv: return a / b;
    case bMax: return a > b ? a : b;
    case bMin: return a < b ? a : b;
    case bPow: return T(powf(float(a), float(b)));
    case bSqDiff: return (a - b) * (a - b);
    case bEluGrad: return b >= 0 ? a : a * (b + T(1));  // a = dy, b = y
    case bReluGrad: return a * (b != b ? b : b > T(0) ? T(1) : T(0));  // a = dy, b = x: dy * step(x), NaN stays NaN
    default: return T(0);
  }
}
template <typename T>
__device__ int compareOp(int op, T a, T b) {
  switch (op) {
    case bEqual: return a == b;
    case bNotEqual: return a != b;
    case bLess: return a < b;
    case bLessEq: return a <= b;
    case bGreater: return a > b;
    case bGreaterEq: return a >= b;
    case bAnd: return a != T(0) && b != T(0);
    case bOr: return a != T(0) || b != T(0);
    default: return 0;
  }
}

// Offsets of output element i in each operand, by the operand's strides (0 on a broadcast axis).
__device__ void offsets(const Shape& sh, int64_t i, const Strides* st, int count, int64_t* off) {
  for (int c = 0; c < count; c++) off[c] = 0;
  for (int d = sh.rank - 1; d >= 0; d--) {
    const int64_t q = i / sh.dim[d], r = i - q * sh.dim[d];
    i = q;
    for (int c = 0; c < count; c++) off[c] += r * st[c].s[d];
  }
}

template <typename T, typename O>
__global__ void binaryKernel(int op, const T* a, const T* b, O* out, Shape sh, Strides sa, Strides sb, int64_t n) {
  const Strides st[2] = {sa, sb};
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t off[2];
    offsets(sh, i, st, 2, off);
    if (op >= bEqual && op <= bOr) out[i] = O(compareOp(op, a[off[0]], b[off[1]]));
    else out[i] = O(binaryOp(op, a[off[0]], b[off[1]]));
  }
}

__global__ void selectKernel(const int* c, const uint32_t* a, const uint32_t* b, uint32_t* out, Shape sh, Strides sc, Strides sa, Strides sb, int64_t n) {
  const Strides st[3] = {sc, sa, sb};
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t off[3];
    offsets(sh, i, st, 3, off);
    out[i] = c[off[0]] ? a[off[1]] : b[off[2]];
  }
}

__global__ void stridedKernel(const uint32_t* x, uint32_t* out, Shape sh, Strides sx, int64_t base, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t off;
    offsets(sh, i, &sx, 1, &off);
    out[i] = x[base + off];
  }
}

// 0 f32, 1 i32, 2 bool (an int32 of 0 / 1).
__global__ void castKernel(const void* x, void* out, int64_t n, int from, int to) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const bool fromFloat = from == 0;
    const float f = fromFloat ? static_cast<const float*>(x)[i] : 0.0f;
    const int v = fromFloat ? 0 : static_cast<const int*>(x)[i];
    if (to == 0) static_cast<float*>(out)[i] = fromFloat ? f : float(v);
    else if (to == 1) static_cast<int*>(out)[i] = fromFloat ? (isnan(f) ? 0 : int(f)) : v;
    else static_cast<int*>(out)[i] = fromFloat ? (f != 0) : (v != 0);
  }
}

// ---- reductions over the innermost axis: x is outer x inner ----
enum Rop { rSum, rMax, rMin, rProd, rMean, rArgMax, rArgMin, rAny, rAll };

template <typename T>
struct Acc {
  double v;
  int64_t at;
};

template <typename T>
__device__ void fold(int op, Acc<T>& acc, T x, int64_t i) {
  switch (op) {
    case rSum:
    case rMean: acc.v += double(x); break;
    case rProd: acc.v *= double(x); break;
    case rMax: if (double(x) > acc.v || isnan(double(x))) acc.v = double(x); break;
    case rMin: if (double(x) < acc.v || isnan(double(x))) acc.v = double(x); break;
    case rArgMax: if (double(x) > acc.v) { acc.v = double(x); acc.at = i; } break;
    case rArgMin: if (double(x) < acc.v) { acc.v = double(x); acc.at = i; } break;
    case rAny: acc.v = acc.v != 0 || x != T(0); break;
    case rAll: acc.v = acc.v != 0 && x != T(0); break;
  }
}
template <typename T>
__device__ void merge(int op, Acc<T>& a, const Acc<T>& b) {
  switch (op) {
    case rSum:
    case rMean: a.v += b.v; break;
    case rProd: a.v *= b.v; break;
    case rMax: if (b.v > a.v || isnan(b.v)) a.v = b.v; break;
    case rMin: if (b.v < a.v || isnan(b.v)) a.v = b.v; break;
    // The first index of the extreme value wins, as tfjs's cpu argMax.
    case rArgMax: if (b.v > a.v || (b.v == a.v && b.at < a.at)) a = b; break;
    case rArgMin: if (b.v < a.v || (b.v == a.v && b.at < a.at)) a = b; break;
    case rAny: a.v = a.v != 0 || b.v != 0; break;
    case rAll: a.v = a.v != 0 && b.v != 0; break;
  }
}
template <typename T>
__device__ Acc<T> start(int op) {
  switch (op) {
    case rProd: case rAll: return {1.0, 0};
    case rMax: case rArgMax: return {-INFINITY, 0};
    case rMin: case rArgMin: return {INFINITY, 0};
    default: return {0.0, 0};
  }
}
template <typename T, typename O>
__device__ void emit(int op, O* out, int64_t row, const Acc<T>& acc, int64_t inner) {
  if (op == rArgMax || op == rArgMin) reinterpret_cast<int*>(out)[row] = int(acc.at);
  else if (op == rMean) out[row] = O(acc.v / double(inner));
  else out[row] = O(acc.v);
}

// One warp per row: 8 rows per block of 256 threads.
template <typename T>
__global__ void reduceKernel(int op, const T* x, T* out, int64_t outer, int64_t inner) {
  const int64_t row = blockIdx.x * int64_t(8) + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= outer) return;
  Acc<T> acc = start<T>(op);
  // argmax / argmin: each lane's first index of its extreme (ascending i), then merged by index.
  if (op == rArgMax || op == rArgMin) acc.at = inner;
  const T* r = x + row * inner;
  for (int64_t i = lane; i < inner; i += 32) {
    if (op == rArgMax || op == rArgMin) {
      const double v = double(r[i]);
      if (acc.at == inner || (op == rArgMax ? v > acc.v : v < acc.v)) acc = {v, i};
    } else {
      fold(op, acc, r[i], i);
    }
  }
  for (int s = 16; s > 0; s >>= 1) {
    Acc<T> o{__shfl_down_sync(0xffffffffu, acc.v, s), __shfl_down_sync(0xffffffffu, acc.at, s)};
    if (lane + s < 32) {
      if ((op == rArgMax || op == rArgMin) && o.at == inner) continue;
      if ((op == rArgMax || op == rArgMin) && acc.at == inner) acc = o;
      else merge(op, acc, o);
    }
  }
  if (lane == 0) {
    if ((op == rArgMax || op == rArgMin) && acc.at == inner) acc.at = 0;
    emit(op, out, row, acc, inner);
  }
}

// Sum or mean over the leading rows of rows x cols, one thread per column (a bias gradient:
// rows = batch, cols = units), in doubles as reduceKernel, rounded once.
template <typename T>
__global__ void reduceColsKernel(int op, const T* x, T* out, int64_t rows, int64_t cols) {
  for (int64_t c = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; c < cols; c += int64_t(gridDim.x) * blockDim.x) {
    double acc = 0;
    for (int64_t r = 0; r < rows; r++) acc += double(x[r * cols + c]);
    out[c] = T(op == rMean ? acc / double(rows) : acc);
  }
}

// ---- gather, one-hot, softmax ----
__global__ void gatherKernel(const uint32_t* x, const int* idx, uint32_t* out, int64_t outer, int64_t axisLen, int64_t inner, int64_t nIdx) {
  const int64_t n = outer * nIdx * inner;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t in = i % inner, j = (i / inner) % nIdx, o = i / (inner * nIdx);
    const int64_t k = idx[j];
    out[i] = k >= 0 && k < axisLen ? x[(o * axisLen + k) * inner + in] : 0u;
  }
}

__global__ void oneHotKernel(const int* idx, void* out, int64_t n, int64_t depth, float on, float off, int intOut) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n * depth; i += int64_t(gridDim.x) * blockDim.x) {
    const bool hot = idx[i / depth] == i % depth;
    if (intOut) static_cast<int*>(out)[i] = int(hot ? on : off);
    else static_cast<float*>(out)[i] = hot ? on : off;
  }
}

__global__ void fillKernel(uint32_t* out, int64_t n, uint32_t bits) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) out[i] = bits;
}

// Feature standardisation of row-major rows x cols floats with per-column statistics in doubles:
// the host's scaleX (worker/kernels/tfjs/scaling.ts) computes (x - mean) / std in doubles and
// rounds once to float32; the same IEEE operations here (no multiply, so nothing to contract)
// give its bytes, so the training rows go up raw and are scaled on the device.
__global__ void scaleColumnsKernel(const float* x, float* out, const double* stats, int64_t rows, int64_t cols) {
  const int64_t n = rows * cols;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t c = i % cols;
    out[i] = __double2float_rn(__ddiv_rn(__dsub_rn(double(x[i]), stats[c]), stats[cols + c]));
  }
}

// One warp per row: max, sum of exp(x - max), then exp(x - max) / sum.
__global__ void softmaxKernel(const float* x, float* out, int64_t outer, int64_t inner) {
  const int64_t row = blockIdx.x * int64_t(8) + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= outer) return;
  const float* r = x + row * inner;
  float m = -INFINITY;
  for (int64_t i = lane; i < inner; i += 32) m = fmaxf(m, r[i]);
  for (int s = 16; s > 0; s >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, s));
  float sum = 0;
  for (int64_t i = lane; i < inner; i += 32) sum += expf(r[i] - m);
  for (int s = 16; s > 0; s >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, s);
  for (int64_t i = lane; i < inner; i += 32) out[row * inner + i] = expf(r[i] - m) / sum;
}

// tfjs's softmax gradient, one warp per row: p = dy y (float), s = the row's sum of p (doubles,
// rounded once, as cpu's Sum), out = p - s y, each step rounded as tfjs's separate kernels round
// it (__fmul_rn / __fsub_rn: no contraction into an fma).
__global__ void softmaxGradKernel(const float* dy, const float* y, float* out, int64_t outer, int64_t inner) {
  const int64_t row = blockIdx.x * int64_t(8) + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= outer) return;
  const float* d = dy + row * inner;
  const float* yr = y + row * inner;
  double sum = 0;
  for (int64_t i = lane; i < inner; i += 32) sum += double(__fmul_rn(d[i], yr[i]));
  for (int s = 16; s > 0; s >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, s);
  const float sf = float(sum);
  for (int64_t i = lane; i < inner; i += 32) out[row * inner + i] = __fsub_rn(__fmul_rn(d[i], yr[i]), __fmul_rn(sf, yr[i]));
}

// tfjs-layers' categorical cross-entropy (losses.js) per row of rows x k, one thread per row:
// S = sum(p) (doubles, rounded once, as cpu's Sum), q = p / S, c = clip(q, lo, hi),
// loss = -sum(t log c). With dy (the loss's gradient per row) it writes d loss / d p instead: the
// chain of tfjs's op gradients, each step rounded as tfjs's kernels round it (__f*_rn: no fma):
// dq = (lo <= q <= hi) ? (-dy t) / c : 0, dp = dq / S - (sum(dq p) / (S S)).
__device__ float clipTo(float q, float lo, float hi) { return q < lo ? lo : q > hi ? hi : q; }

__global__ void crossEntropyKernel(const float* dy, const float* t, const float* p, float* out, int64_t rows, int64_t k, float lo, float hi) {
  for (int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; r < rows; r += int64_t(gridDim.x) * blockDim.x) {
    const float* tr = t + r * k;
    const float* pr = p + r * k;
    double sd = 0;
    for (int64_t j = 0; j < k; j++) sd += double(pr[j]);
    const float S = float(sd);
    if (dy == nullptr) {
      double acc = 0;
      for (int64_t j = 0; j < k; j++) acc += double(__fmul_rn(tr[j], logf(clipTo(__fdiv_rn(pr[j], S), lo, hi))));
      out[r] = -float(acc);
      continue;
    }
    const float g = -dy[r];
    double rd = 0;
    for (int64_t j = 0; j < k; j++) {
      const float q = __fdiv_rn(pr[j], S);
      const float dq = q >= lo && q <= hi ? __fdiv_rn(__fmul_rn(g, tr[j]), clipTo(q, lo, hi)) : 0.0f;
      rd += double(__fmul_rn(dq, pr[j]));
    }
    const float db = -__fdiv_rn(float(rd), __fmul_rn(S, S));
    for (int64_t j = 0; j < k; j++) {
      const float q = __fdiv_rn(pr[j], S);
      const float dq = q >= lo && q <= hi ? __fdiv_rn(__fmul_rn(g, tr[j]), clipTo(q, lo, hi)) : 0.0f;
      out[r * k + j] = __fadd_rn(__fdiv_rn(dq, S), db);
    }
  }
}

// An epoch's running sum of batch loss x rows (train-step.ts): a double in a buffer of two
// 4-byte elements, acc + double(loss) * n (__dmul_rn / __dadd_rn: the host's `sum += loss * n`).
__global__ void lossSumKernel(const double* acc, const float* loss, double* out, double n) {
  if (blockIdx.x == 0 && threadIdx.x == 0) out[0] = __dadd_rn(acc ? acc[0] : 0.0, __dmul_rn(double(loss[0]), n));
}

// ---- fused optimizer updates (tfjs's formulas, one pass over a variable) ----
// Each writes new buffers (the variable and its slots are swapped in by the backend's assign), so
// a tensor that still shares the old buffer keeps its values.
enum OptKind { oSgd, oMomentum, oAdam, oRmsprop };
struct OptParams {
  float p[8];
};
__global__ void optimizerKernel(int kind, const float* x, const float* g, const float* s0, const float* s1, float* ox, float* os0, float* os1, int64_t n, OptParams q) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const float gi = g[i];
    switch (kind) {
      case oSgd: ox[i] = q.p[0] * gi + x[i]; break;  // p0 = -lr
      case oMomentum: {                                // p0 = -lr, p1 momentum, p2 nesterov
        const float a = q.p[1] * s0[i] + gi;
        os0[i] = a;
        ox[i] = q.p[2] != 0.0f ? q.p[0] * (gi + a * q.p[1]) + x[i] : q.p[0] * a + x[i];
        break;
      }
      case oAdam: {  // p0 -lr, p1 beta1, p2 1-beta1, p3 beta2, p4 1-beta2, p5 eps, p6 1-beta1^t, p7 1-beta2^t
        const float m = s0[i] * q.p[1] + gi * q.p[2];
        const float v = s1[i] * q.p[3] + gi * gi * q.p[4];
        os0[i] = m;
        os1[i] = v;
        ox[i] = ((m / q.p[6]) / (sqrtf(v / q.p[7]) + q.p[5])) * q.p[0] + x[i];
        break;
      }
      case oRmsprop: {  // p0 lr, p1 decay, p2 1-decay, p3 momentum, p4 eps
        const float ms = s0[i] * q.p[1] + gi * gi * q.p[2];
        const float mom = s1[i] * q.p[3] + (gi * q.p[0]) / sqrtf(ms + q.p[4]);
        os0[i] = ms;
        os1[i] = mom;
        ox[i] = x[i] - mom;
        break;
      }
      default: break;
    }
  }
}

// ---- dropout's mask (docs/random.md's Philox, float32 uniforms: element i is word i % 4 of block i / 4) ----
// Bit-identical to common/tuning/dropout-mask.ts on the host, so a trial with dropout gives
// the same masks on every backend.
// With x (DropoutApply) it writes x times the mask instead, the mask never stored.
__global__ void dropoutMaskKernel(const float* x, float* out, int64_t n, uint32_t k0, uint32_t k1, double rate, float scale) {
  for (int64_t b = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; b * 4 < n; b += int64_t(gridDim.x) * blockDim.x) {
    const Words w = philox(static_cast<uint64_t>(b), k0, k1);
    const uint32_t ws[4] = {w.w0, w.w1, w.w2, w.w3};
    for (int j = 0; j < 4 && b * 4 + j < n; j++) {
      const float m = static_cast<double>(uniform32(ws[j])) > rate ? scale : 0.0f;
      out[b * 4 + j] = x ? __fmul_rn(x[b * 4 + j], m) : m;
    }
  }
}

// ---- argument records (tf-ops.ts) ----
class Args {
 public:
  Args(const double* a, size_t n) : a_(a), n_(n) {}
  int64_t i(const char* what) {
    if (at_ >= n_) throw std::invalid_argument(std::string("tf op: the argument record ends before ") + what);
    const double d = a_[at_++];
    if (static_cast<double>(static_cast<int64_t>(d)) != d) throw std::invalid_argument(std::string("tf op: ") + what + " must be an integer");
    return static_cast<int64_t>(d);
  }
  double d(const char* what) {
    if (at_ >= n_) throw std::invalid_argument(std::string("tf op: the argument record ends before ") + what);
    return a_[at_++];
  }
  float f(const char* what) {
    if (at_ >= n_) throw std::invalid_argument(std::string("tf op: the argument record ends before ") + what);
    return static_cast<float>(a_[at_++]);
  }
  BlockRef block(const char* what) {
    const int64_t id = i(what);
    BlockRef b = residentFind(id);
    if (!b) throw std::invalid_argument(std::string("tf op: ") + what + ": no device buffer " + std::to_string(id));
    return b;
  }
  Shape shape(int rank) {
    if (rank < 0 || rank > kMaxRank) throw std::invalid_argument("tf op: rank " + std::to_string(rank) + " beyond " + std::to_string(kMaxRank));
    Shape s{rank, {}};
    for (int d = 0; d < rank; d++) s.dim[d] = i("shape");
    return s;
  }
  Strides strides(int rank) {
    Strides s{};
    for (int d = 0; d < rank; d++) s.s[d] = i("strides");
    return s;
  }

 private:
  const double* a_;
  size_t n_;
  size_t at_ = 0;
};

int64_t count(const Shape& s) {
  int64_t n = 1;
  for (int d = 0; d < s.rank; d++) n *= s.dim[d];
  return n;
}
int64_t elems(const BlockRef& b) { return static_cast<int64_t>(b->bytes / 4); }
void need(const BlockRef& b, int64_t n, const char* what) {
  if (elems(b) < n) throw std::invalid_argument(std::string("tf op: ") + what + " holds " + std::to_string(elems(b)) + " elements, needs " + std::to_string(n));
}
unsigned grid(int64_t n) { return std::min<unsigned>(blocks(n), 65535u * 8u); }

}  // namespace

int64_t tfAlloc(int64_t n, int32_t type) { return residentEnter(residentAllocate(static_cast<size_t>(n) * 4, type)); }

void tfWrite(int64_t id, const void* host, size_t bytes) {
  BlockRef b = residentFind(id);
  if (!b) throw std::invalid_argument("tfWrite: no device buffer " + std::to_string(id));
  if (bytes != b->bytes) throw std::invalid_argument("tfWrite: " + std::to_string(bytes) + " bytes for a buffer of " + std::to_string(b->bytes));
  // Pageable memory: the copy has read the host array when it returns.
  if (bytes) check(cudaMemcpyAsync(b->ptr, host, bytes, cudaMemcpyHostToDevice, stream()), "tfWrite");
}

void tfRead(int64_t id, void* host, size_t bytes) {
  BlockRef b = residentFind(id);
  if (!b) throw std::invalid_argument("tfRead: no device buffer " + std::to_string(id));
  if (bytes != b->bytes) throw std::invalid_argument("tfRead: " + std::to_string(bytes) + " bytes for a buffer of " + std::to_string(b->bytes));
  if (bytes) check(cudaMemcpyAsync(host, b->ptr, bytes, cudaMemcpyDeviceToHost, stream()), "tfRead");
  sync();
}

void tfSync() { sync(); }

void tfRun(int code, const double* raw, size_t nargs) {
  Args a(raw, nargs);
  cudaStream_t s = stream();
  switch (code) {
    case 1: {  // unary: uop, x, out, n, dtype, p0, p1
      const int op = int(a.i("uop"));
      BlockRef x = a.block("x"), out = a.block("out");
      const int64_t n = a.i("n");
      const int dtype = int(a.i("dtype"));
      const float p0 = a.f("p0"), p1 = a.f("p1");
      need(x, n, "x");
      need(out, n, "out");
      if (n == 0) return;
      if (dtype == 0) unaryKernel<float><<<grid(n), 256, 0, s>>>(op, static_cast<const float*>(x->ptr), static_cast<float*>(out->ptr), n, p0, p1);
      else unaryKernel<int><<<grid(n), 256, 0, s>>>(op, static_cast<const int*>(x->ptr), static_cast<int*>(out->ptr), n, p0, p1);
      break;
    }
    case 2: {  // cast: x, out, n, from, to
      BlockRef x = a.block("x"), out = a.block("out");
      const int64_t n = a.i("n");
      const int from = int(a.i("from")), to = int(a.i("to"));
      need(x, n, "x");
      need(out, n, "out");
      if (n) castKernel<<<grid(n), 256, 0, s>>>(x->ptr, out->ptr, n, from, to);
      break;
    }
    case 3: {  // binary: bop, a, b, out, dtype, rank, shape, aStrides, bStrides
      const int op = int(a.i("bop"));
      BlockRef x = a.block("a"), y = a.block("b"), out = a.block("out");
      const int dtype = int(a.i("dtype"));
      const Shape sh = a.shape(int(a.i("rank")));
      const Strides sa = a.strides(sh.rank), sb = a.strides(sh.rank);
      const int64_t n = count(sh);
      need(out, n, "out");
      if (n == 0) return;
      const bool cmp = op >= bEqual && op <= bOr;
      if (dtype == 0 && cmp) binaryKernel<float, int><<<grid(n), 256, 0, s>>>(op, static_cast<const float*>(x->ptr), static_cast<const float*>(y->ptr), static_cast<int*>(out->ptr), sh, sa, sb, n);
      else if (dtype == 0) binaryKernel<float, float><<<grid(n), 256, 0, s>>>(op, static_cast<const float*>(x->ptr), static_cast<const float*>(y->ptr), static_cast<float*>(out->ptr), sh, sa, sb, n);
      else binaryKernel<int, int><<<grid(n), 256, 0, s>>>(op, static_cast<const int*>(x->ptr), static_cast<const int*>(y->ptr), static_cast<int*>(out->ptr), sh, sa, sb, n);
      break;
    }
    case 4: {  // select: cond, a, b, out, rank, shape, cStrides, aStrides, bStrides
      BlockRef c = a.block("cond"), x = a.block("a"), y = a.block("b"), out = a.block("out");
      const Shape sh = a.shape(int(a.i("rank")));
      const Strides sc = a.strides(sh.rank), sa = a.strides(sh.rank), sb = a.strides(sh.rank);
      const int64_t n = count(sh);
      need(out, n, "out");
      if (n) selectKernel<<<grid(n), 256, 0, s>>>(static_cast<const int*>(c->ptr), static_cast<const uint32_t*>(x->ptr), static_cast<const uint32_t*>(y->ptr), static_cast<uint32_t*>(out->ptr), sh, sc, sa, sb, n);
      break;
    }
    case 5: {  // reduce: rop, x, out, outer, inner, dtype
      const int op = int(a.i("rop"));
      BlockRef x = a.block("x"), out = a.block("out");
      const int64_t outer = a.i("outer"), inner = a.i("inner");
      const int dtype = int(a.i("dtype"));
      need(x, outer * inner, "x");
      need(out, outer, "out");
      if (outer == 0) return;
      if (dtype == 0) reduceKernel<float><<<blocks(outer, 8), 256, 0, s>>>(op, static_cast<const float*>(x->ptr), static_cast<float*>(out->ptr), outer, inner);
      else reduceKernel<int><<<blocks(outer, 8), 256, 0, s>>>(op, static_cast<const int*>(x->ptr), static_cast<int*>(out->ptr), outer, inner);
      break;
    }
    case 6: {  // strided copy: x, out, rank, offset, shape, strides
      BlockRef x = a.block("x"), out = a.block("out");
      const int rank = int(a.i("rank"));
      const int64_t base = a.i("offset");
      const Shape sh = a.shape(rank);
      const Strides sx = a.strides(rank);
      const int64_t n = count(sh);
      need(out, n, "out");
      if (n) stridedKernel<<<grid(n), 256, 0, s>>>(static_cast<const uint32_t*>(x->ptr), static_cast<uint32_t*>(out->ptr), sh, sx, base, n);
      break;
    }
    case 7: {  // gather: x, idx, out, outer, axisLen, inner, nIdx
      BlockRef x = a.block("x"), idx = a.block("indices"), out = a.block("out");
      const int64_t outer = a.i("outer"), axisLen = a.i("axisLen"), inner = a.i("inner"), nIdx = a.i("nIdx");
      need(x, outer * axisLen * inner, "x");
      need(idx, nIdx, "indices");
      need(out, outer * nIdx * inner, "out");
      const int64_t n = outer * nIdx * inner;
      if (n) gatherKernel<<<grid(n), 256, 0, s>>>(static_cast<const uint32_t*>(x->ptr), static_cast<const int*>(idx->ptr), static_cast<uint32_t*>(out->ptr), outer, axisLen, inner, nIdx);
      break;
    }
    case 8: {  // gemm: a, b, out, batch, m, n, k, transA, transB, strideA, strideB
      BlockRef x = a.block("a"), y = a.block("b"), out = a.block("out");
      const int64_t batch = a.i("batch"), m = a.i("m"), n = a.i("n"), k = a.i("k");
      const bool ta = a.i("transA") != 0, tb = a.i("transB") != 0;
      const int64_t strideA = a.i("strideA"), strideB = a.i("strideB");
      need(x, (batch - 1) * strideA + m * k, "a");
      need(y, (batch - 1) * strideB + k * n, "b");
      need(out, batch * m * n, "out");
      if (batch * m * n == 0) return;
      if (k == 0) {
        check(cudaMemsetAsync(out->ptr, 0, out->bytes, s), "gemm zero");
        return;
      }
      sgemmBatchedDevice(ta, tb, static_cast<const float*>(x->ptr), static_cast<const float*>(y->ptr), static_cast<float*>(out->ptr), batch, m, n, k, strideA, strideB);
      break;
    }
    case 9: {  // fill: out, n, value, dtype
      BlockRef out = a.block("out");
      const int64_t n = a.i("n");
      const double v = a.d("value");
      const int dtype = int(a.i("dtype"));
      need(out, n, "out");
      uint32_t bits;
      if (dtype == 0) {
        const float f = static_cast<float>(v);
        std::memcpy(&bits, &f, 4);
      } else {
        const int32_t iv = static_cast<int32_t>(v);
        std::memcpy(&bits, &iv, 4);
      }
      if (n) fillKernel<<<grid(n), 256, 0, s>>>(static_cast<uint32_t*>(out->ptr), n, bits);
      break;
    }
    case 10: {  // oneHot: idx, out, n, depth, on, off, dtype
      BlockRef idx = a.block("indices"), out = a.block("out");
      const int64_t n = a.i("n"), depth = a.i("depth");
      const float on = a.f("on"), off = a.f("off");
      const int dtype = int(a.i("dtype"));
      need(idx, n, "indices");
      need(out, n * depth, "out");
      if (n * depth) oneHotKernel<<<grid(n * depth), 256, 0, s>>>(static_cast<const int*>(idx->ptr), out->ptr, n, depth, on, off, dtype != 0);
      break;
    }
    case 11: {  // softmax: x, out, outer, inner
      BlockRef x = a.block("x"), out = a.block("out");
      const int64_t outer = a.i("outer"), inner = a.i("inner");
      need(x, outer * inner, "x");
      need(out, outer * inner, "out");
      if (outer * inner) softmaxKernel<<<blocks(outer, 8), 256, 0, s>>>(static_cast<const float*>(x->ptr), static_cast<float*>(out->ptr), outer, inner);
      break;
    }
    case 12: {  // optimizer: kind, n, x, g, s0, s1, outX, outS0, outS1, p[8] (slot ids 0 where the kind has none)
      const int kind = int(a.i("kind"));
      if (kind < oSgd || kind > oRmsprop) throw std::invalid_argument("tf op: unknown optimizer kind " + std::to_string(kind));
      const int slots = kind == oSgd ? 0 : kind == oMomentum ? 1 : 2;
      const int64_t n = a.i("n");
      BlockRef x = a.block("x"), g = a.block("gradient");
      BlockRef sl[2], outSl[2];
      const int64_t s0 = a.i("slot0"), s1 = a.i("slot1");
      BlockRef ox = a.block("outX");
      const int64_t o0 = a.i("outSlot0"), o1 = a.i("outSlot1");
      const int64_t ids[2] = {s0, s1}, outIds[2] = {o0, o1};
      for (int k = 0; k < slots; k++) {
        sl[k] = residentFind(ids[k]);
        outSl[k] = residentFind(outIds[k]);
        if (!sl[k] || !outSl[k]) throw std::invalid_argument("tf op: optimizer slot " + std::to_string(k) + ": no device buffer");
        need(sl[k], n, "slot");
        need(outSl[k], n, "out slot");
      }
      need(x, n, "x");
      need(g, n, "gradient");
      need(ox, n, "outX");
      OptParams q{};
      for (int k = 0; k < 8; k++) q.p[k] = a.f("param");
      auto ptr = [](const BlockRef& b) { return b ? static_cast<float*>(b->ptr) : nullptr; };
      if (n) optimizerKernel<<<grid(n), 256, 0, s>>>(kind, ptr(x), ptr(g), ptr(sl[0]), ptr(sl[1]), ptr(ox), ptr(outSl[0]), ptr(outSl[1]), n, q);
      break;
    }
    case 13: {  // dropout mask: out, n, k0, k1, rate, scale
      BlockRef out = a.block("out");
      const int64_t n = a.i("n"), k0 = a.i("k0"), k1 = a.i("k1");
      const double rate = a.d("rate");
      const float scale = a.f("scale");
      if (k0 < 0 || k0 > 0xFFFFFFFFll || k1 < 0 || k1 > 0xFFFFFFFFll) throw std::invalid_argument("tf op: dropout key words must be in [0, 2^32)");
      need(out, n, "out");
      if (n) dropoutMaskKernel<<<grid((n + 3) / 4), 256, 0, s>>>(nullptr, static_cast<float*>(out->ptr), n, uint32_t(k0), uint32_t(k1), rate, scale);
      break;
    }
    case 20: {  // dropout apply: x, out, n, k0, k1, rate, scale
      BlockRef x = a.block("x"), out = a.block("out");
      const int64_t n = a.i("n"), k0 = a.i("k0"), k1 = a.i("k1");
      const double rate = a.d("rate");
      const float scale = a.f("scale");
      if (k0 < 0 || k0 > 0xFFFFFFFFll || k1 < 0 || k1 > 0xFFFFFFFFll) throw std::invalid_argument("tf op: dropout key words must be in [0, 2^32)");
      need(x, n, "x");
      need(out, n, "out");
      if (n) dropoutMaskKernel<<<grid((n + 3) / 4), 256, 0, s>>>(static_cast<const float*>(x->ptr), static_cast<float*>(out->ptr), n, uint32_t(k0), uint32_t(k1), rate, scale);
      break;
    }
    case 14: {  // scale columns: x, out, rows, cols, mean[cols], std[cols]
      BlockRef x = a.block("x"), out = a.block("out");
      const int64_t rows = a.i("rows"), cols = a.i("cols");
      if (rows < 0 || cols < 0) throw std::invalid_argument("tf op: scale columns: rows and cols must be >= 0");
      need(x, rows * cols, "x");
      need(out, rows * cols, "out");
      std::vector<double> stats(static_cast<size_t>(2 * cols));
      for (auto& v : stats) v = a.d("statistic");
      if (rows * cols == 0) return;
      double* dev = nullptr;
      const size_t bytes = stats.size() * sizeof(double);
      check(cudaMallocAsync(reinterpret_cast<void**>(&dev), bytes, s), "scale columns alloc");
      // Pageable memory: the copy has read `stats` when it returns.
      check(cudaMemcpyAsync(dev, stats.data(), bytes, cudaMemcpyHostToDevice, s), "scale columns statistics");
      scaleColumnsKernel<<<grid(rows * cols), 256, 0, s>>>(static_cast<const float*>(x->ptr), static_cast<float*>(out->ptr), dev, rows, cols);
      check(cudaFreeAsync(dev, s), "scale columns free");
      break;
    }
    case 15: {  // reduce columns: rop (Sum or Mean), x, out, rows, cols, dtype
      const int op = int(a.i("rop"));
      if (op != rSum && op != rMean) throw std::invalid_argument("tf op: reduce columns takes Sum or Mean, not " + std::to_string(op));
      BlockRef x = a.block("x"), out = a.block("out");
      const int64_t rows = a.i("rows"), cols = a.i("cols");
      const int dtype = int(a.i("dtype"));
      if (rows < 0 || cols < 0) throw std::invalid_argument("tf op: reduce columns: rows and cols must be >= 0");
      need(x, rows * cols, "x");
      need(out, cols, "out");
      if (cols == 0) return;
      if (dtype == 0) reduceColsKernel<float><<<grid(cols), 256, 0, s>>>(op, static_cast<const float*>(x->ptr), static_cast<float*>(out->ptr), rows, cols);
      else reduceColsKernel<int><<<grid(cols), 256, 0, s>>>(op, static_cast<const int*>(x->ptr), static_cast<int*>(out->ptr), rows, cols);
      break;
    }
    case 16: {  // softmax gradient: dy, y, out, outer, inner
      BlockRef dy = a.block("dy"), y = a.block("y"), out = a.block("out");
      const int64_t outer = a.i("outer"), inner = a.i("inner");
      if (outer < 0 || inner < 0) throw std::invalid_argument("tf op: softmax gradient: outer and inner must be >= 0");
      need(dy, outer * inner, "dy");
      need(y, outer * inner, "y");
      need(out, outer * inner, "out");
      if (outer * inner) softmaxGradKernel<<<blocks(outer, 8), 256, 0, s>>>(static_cast<const float*>(dy->ptr), static_cast<const float*>(y->ptr), static_cast<float*>(out->ptr), outer, inner);
      break;
    }
    case 17:    // cross-entropy: labels, probs, out, rows, k, lo, hi
    case 18: {  // its gradient: dy, labels, probs, out, rows, k, lo, hi
      BlockRef dy;
      if (code == 18) dy = a.block("dy");
      BlockRef t = a.block("labels"), p = a.block("probs"), out = a.block("out");
      const int64_t rows = a.i("rows"), k = a.i("k");
      const float lo = a.f("lo"), hi = a.f("hi");
      if (rows < 0 || k < 0) throw std::invalid_argument("tf op: cross-entropy: rows and k must be >= 0");
      need(t, rows * k, "labels");
      need(p, rows * k, "probs");
      if (dy) need(dy, rows, "dy");
      need(out, code == 18 ? rows * k : rows, "out");
      if (rows) crossEntropyKernel<<<grid(rows), 256, 0, s>>>(dy ? static_cast<const float*>(dy->ptr) : nullptr, static_cast<const float*>(t->ptr), static_cast<const float*>(p->ptr), static_cast<float*>(out->ptr), rows, k, lo, hi);
      break;
    }
    case 19: {  // loss sum: acc (id 0: none), loss, out, n
      const int64_t accId = a.i("acc");
      BlockRef acc;
      if (accId != 0) {
        acc = residentFind(accId);
        if (!acc) throw std::invalid_argument("tf op: loss sum: no device buffer " + std::to_string(accId));
        need(acc, 2, "acc");
      }
      BlockRef loss = a.block("loss"), out = a.block("out");
      const int64_t n = a.i("n");
      need(loss, 1, "loss");
      need(out, 2, "out");
      lossSumKernel<<<1, 1, 0, s>>>(acc ? static_cast<const double*>(acc->ptr) : nullptr, static_cast<const float*>(loss->ptr), static_cast<double*>(out->ptr), double(n));
      break;
    }
    default: throw std::invalid_argument("tf op: unknown op code " + std::to_string(code));
  }
  launched("tf op");
}

}  // namespace cuda
}  // namespace gf

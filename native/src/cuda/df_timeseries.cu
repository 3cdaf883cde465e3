// The timeseries source fused with the groupby chunk step (df_api.h's TimeseriesGroupbyArgs): each
// thread generates whole rows in registers, exactly as worker/kernels/df/timeseries.ts does (same
// Philox blocks, same uniforms, every operation rounded once, no fused multiply-add), and adds them
// to its key slot. Nothing of the partition is stored, so a GPU worker's groupby of a generated
// frame never crosses PCIe with data: only the slots' accumulators come back.
//
// Accumulators live in shared memory, one copy per warp when the copies fit (26 name slots: every
// warp its own, so atomics contend only within a warp), else fewer copies or global memory. Rows
// have no nulls, so a value's count is the slot's rows (the host fills it in). m2 (var, std) is a
// second pass that generates the rows again, as the two-pass formula of the CPU kernel needs the
// slot means first; generating again is cheaper than storing the rows.
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "../cuda_api.h"
#include "../df_api.h"
#include "../philox.h"
#include "common.h"
#include "df_common.h"

namespace gf {
namespace cuda {
namespace {

constexpr int kBlock = 256;
constexpr int kWarps = kBlock / 32;
constexpr size_t kSharedBudget = 40 * 1024;
constexpr int kMaxKeys = 2, kMaxVals = 3;
constexpr double kSqrt1000 = 31.622776601683793;    // Math.sqrt(1000)
constexpr double kAlmostOne = 0.99999999999999989;  // 1 - 2^-53

struct Spec {
  uint32_t k0, k1;
  long long rowStart, rows, slots;
  int nk, nv;
  int keyCol[kMaxKeys];
  long long stride[kMaxKeys], card[kMaxKeys];
  int valCol[kMaxVals];
  bool needA, needB;  // Philox block 2r (name, x) / 2r + 1 (id, y)
};

__device__ __forceinline__ double poly(double q, double c0, double c1) { return __dadd_rn(__dmul_rn(c0, q), c1); }

// timeseries.ts's normalQuantile (Acklam), operation for operation. Only the tails (5 % of rows)
// call log, whose last bit may differ from V8's; id is rounded to an integer after, so that can
// change an id only when 1000 + sqrt(1000) z lies within an ulp of a half.
__device__ double normalQuantile(double p) {
  const double c0 = -7.784894002430293e-3, c1 = -3.223964580411365e-1, c2 = -2.400758277161838, c3 = -2.549732539343734, c4 = 4.374664141464968, c5 = 2.938163982698783;
  const double d0 = 7.784695709041462e-3, d1 = 3.224671290700398e-1, d2 = 2.445134137142996, d3 = 3.754408661907416;
  const double lo = 0.02425;
  if (p < lo || p > __dsub_rn(1.0, lo)) {
    const double q = sqrt(__dmul_rn(-2.0, log(p < lo ? p : __dsub_rn(1.0, p))));
    const double num = poly(q, poly(q, poly(q, poly(q, poly(q, c0, c1), c2), c3), c4), c5);
    const double den = poly(q, poly(q, poly(q, poly(q, d0, d1), d2), d3), 1.0);
    return p < lo ? __ddiv_rn(num, den) : __ddiv_rn(-num, den);
  }
  const double a0 = -3.969683028665376e1, a1 = 2.209460984245205e2, a2 = -2.759285104469687e2, a3 = 1.38357751867269e2, a4 = -3.066479806614716e1, a5 = 2.506628277459239;
  const double b0 = -5.447609879822406e1, b1 = 1.615858368580409e2, b2 = -1.556989798598866e2, b3 = 6.680131188771972e1, b4 = -1.328068155288572e1;
  const double q = __dsub_rn(p, 0.5);
  const double r = __dmul_rn(q, q);
  const double num = __dmul_rn(poly(r, poly(r, poly(r, poly(r, poly(r, a0, a1), a2), a3), a4), a5), q);
  const double den = poly(r, poly(r, poly(r, poly(r, poly(r, b0, b1), b2), b3), b4), 1.0);
  return __ddiv_rn(num, den);
}

// One generated row, in registers (a run-time-indexed array would go to local memory).
struct Row {
  double name = 0, id = 0, x = 0, y = 0;
  __device__ __forceinline__ double at(int c) const { return c == df::tsName ? name : c == df::tsId ? id : c == df::tsX ? x : y; }
};

// Row r's columns, those the spec needs.
__device__ __forceinline__ void genRow(const Spec& s, long long r, Row& col) {
  if (s.needA) {
    const Words w = philox(2ull * static_cast<unsigned long long>(r), s.k0, s.k1);
    const double k = floor(__dmul_rn(uniform64(w.w0, w.w1), static_cast<double>(df::kTsNames)));
    col.name = k < df::kTsNames ? k : df::kTsNames - 1;
    col.x = __dadd_rn(-1.0, __dmul_rn(2.0, uniform64(w.w2, w.w3)));
  }
  if (s.needB) {
    const Words w = philox(2ull * static_cast<unsigned long long>(r) + 1, s.k0, s.k1);
    const double z = normalQuantile(fmin(uniform64(w.w0, w.w1), kAlmostOne));
    // Math.round: floor(v + 0.5) is exact here (v in [740, 1260]).
    col.id = floor(__dadd_rn(__dadd_rn(1000.0, __dmul_rn(kSqrt1000, z)), 0.5));
    col.y = __dadd_rn(-1.0, __dmul_rn(2.0, uniform64(w.w2, w.w3)));
  }
}

__device__ __forceinline__ long long slotOf(const Spec& s, const Row& col, int* bad) {
  long long slot = 0;
  for (int j = 0; j < s.nk; j++) {
    const long long c = static_cast<long long>(col.at(s.keyCol[j])) - (s.keyCol[j] == df::tsId ? df::kTsIdLo : 0);
    if (c < 0 || c >= s.card[j]) {
      *bad = 1;
      return -1;
    }
    slot += c * s.stride[j];
  }
  return slot;
}

// A copy of the accumulators: rows, then per value sum, min, max (slots each).
__device__ __forceinline__ void initCopy(double* a, long long slots, int nv, long long k) {
  a[k] = 0;
  for (int v = 0; v < nv; v++) {
    a[(1 + 3 * v) * slots + k] = 0;
    a[(2 + 3 * v) * slots + k] = INFINITY;
    a[(3 + 3 * v) * slots + k] = -INFINITY;
  }
}

__device__ __forceinline__ void addRow(double* a, long long slots, const Spec& s, long long slot, const Row& col, bool minmax) {
  atomicAdd(&a[slot], 1.0);
  for (int v = 0; v < s.nv; v++) {
    const double x = col.at(s.valCol[v]);
    atomicAdd(&a[(1 + 3 * v) * slots + slot], x);
    if (minmax) {
      dfk::atomicMinD(&a[(2 + 3 * v) * slots + slot], x);
      dfk::atomicMaxD(&a[(3 + 3 * v) * slots + slot], x);
    }
  }
}

// copies > 0: that many shared copies (warp w uses copy w % copies); 0: straight into `out`.
__global__ void __launch_bounds__(kBlock) accumulate(const __grid_constant__ Spec s, int copies, bool minmax, double* out, int* bad) {
  extern __shared__ double acc[];
  const long long slots = s.slots;
  const long long per = slots * (1 + 3 * s.nv);
  for (long long k = threadIdx.x; k < slots * copies; k += blockDim.x) initCopy(acc + (k / slots) * per, slots, s.nv, k % slots);
  __syncthreads();
  double* mine = copies > 0 ? acc + ((threadIdx.x / 32) % copies) * per : nullptr;
  Row col;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < s.rows; i += static_cast<long long>(gridDim.x) * blockDim.x) {
    genRow(s, s.rowStart + i, col);
    const long long slot = slotOf(s, col, bad);
    if (slot < 0) continue;
    if (mine) {
      addRow(mine, slots, s, slot, col, minmax);
    } else {
      atomicAdd(&out[slot], 1.0);
      for (int v = 0; v < s.nv; v++) {
        const double x = col.at(s.valCol[v]);
        atomicAdd(&dfk::outStat(out, slots, v, 1)[slot], x);
        if (minmax) {
          dfk::atomicMinD(&dfk::outStat(out, slots, v, 2)[slot], x);
          dfk::atomicMaxD(&dfk::outStat(out, slots, v, 3)[slot], x);
        }
      }
    }
  }
  if (copies == 0) return;
  __syncthreads();
  for (long long k = threadIdx.x; k < slots; k += blockDim.x) {
    double rows = 0;
    for (int c = 0; c < copies; c++) rows += acc[c * per + k];
    if (rows == 0) continue;
    atomicAdd(&out[k], rows);
    for (int v = 0; v < s.nv; v++) {
      double sum = 0, lo = INFINITY, hi = -INFINITY;
      for (int c = 0; c < copies; c++) {
        const double* a = acc + c * per;
        sum += a[(1 + 3 * v) * slots + k];
        lo = fmin(lo, a[(2 + 3 * v) * slots + k]);
        hi = fmax(hi, a[(3 + 3 * v) * slots + k]);
      }
      atomicAdd(&dfk::outStat(out, slots, v, 1)[k], sum);
      if (minmax) {
        dfk::atomicMinD(&dfk::outStat(out, slots, v, 2)[k], lo);
        dfk::atomicMaxD(&dfk::outStat(out, slots, v, 3)[k], hi);
      }
    }
  }
}

// Second pass: m2 += (x - mean)^2 about each slot's mean (sum / rows, as the CPU kernel).
__global__ void __launch_bounds__(kBlock) squaredDeviations(const __grid_constant__ Spec s, bool shared, double* out, int* bad) {
  extern __shared__ double m2[];
  const long long slots = s.slots;
  if (shared) {
    for (long long k = threadIdx.x; k < slots * s.nv; k += blockDim.x) m2[k] = 0;
    __syncthreads();
  }
  Row col;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < s.rows; i += static_cast<long long>(gridDim.x) * blockDim.x) {
    genRow(s, s.rowStart + i, col);
    const long long slot = slotOf(s, col, bad);
    if (slot < 0) continue;
    for (int v = 0; v < s.nv; v++) {
      const double d = __dsub_rn(col.at(s.valCol[v]), __ddiv_rn(dfk::outStat(out, slots, v, 1)[slot], out[slot]));
      atomicAdd(shared ? &m2[v * slots + slot] : &dfk::outStat(out, slots, v, 4)[slot], __dmul_rn(d, d));
    }
  }
  if (!shared) return;
  __syncthreads();
  for (long long k = threadIdx.x; k < slots * s.nv; k += blockDim.x)
    if (m2[k] != 0) atomicAdd(&dfk::outStat(out, slots, static_cast<int>(k / slots), 4)[k % slots], m2[k]);
}

int residentGrid() {
  static const int g = [] {
    int dev = 0, sms = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    return std::max(1, sms) * (2048 / kBlock);
  }();
  return g;
}

}  // namespace

void dfTimeseriesGroupby(const df::TimeseriesGroupbyArgs& a, double* out) {
  ensureDevice();
  if (a.keys.size() > kMaxKeys || a.vals.size() > kMaxVals) throw std::runtime_error("timeseries groupby: too many keys or values for the device kernel");
  Spec s{};
  s.k0 = a.k0;
  s.k1 = a.k1;
  s.rowStart = a.rowStart;
  s.rows = a.rows;
  s.slots = a.slots;
  s.nk = static_cast<int>(a.keys.size());
  s.nv = static_cast<int>(a.vals.size());
  auto need = [&](int c) {
    if (c == df::tsName || c == df::tsX) s.needA = true;
    else s.needB = true;
  };
  for (int j = 0; j < s.nk; j++) {
    s.keyCol[j] = a.keys[j].col;
    s.stride[j] = a.keys[j].stride;
    s.card[j] = a.keys[j].card;
    need(s.keyCol[j]);
  }
  for (int v = 0; v < s.nv; v++) {
    s.valCol[v] = a.vals[v];
    need(s.valCol[v]);
  }
  const int64_t outLen = df::groupbyOutSize(a);
  dfk::Staging st;
  double* dout = st.alloc<double>(outLen);
  int* bad = st.alloc<int>(1);
  check(cudaMemsetAsync(bad, 0, sizeof(int), stream()), "memset");
  dfk::initGroupbyOut<<<dfk::gridFor(a.slots, kBlock), kBlock, 0, stream()>>>(dout, a.slots, s.nv, -1);
  launched("timeseries groupby init");
  if (a.rows > 0) {
    const int grid = std::min(dfk::gridFor(a.rows, kBlock), residentGrid());
    const size_t copyBytes = static_cast<size_t>(a.slots) * (1 + 3 * s.nv) * sizeof(double);
    const int copies = static_cast<int>(std::min<size_t>(kWarps, kSharedBudget / copyBytes));
    accumulate<<<grid, kBlock, copies * copyBytes, stream()>>>(s, copies, a.minmax, dout, bad);
    launched("timeseries groupby accumulate");
    if (a.m2 && s.nv > 0) {
      const size_t m2Bytes = static_cast<size_t>(a.slots) * s.nv * sizeof(double);
      const bool shared = m2Bytes <= kSharedBudget;
      squaredDeviations<<<grid, kBlock, shared ? m2Bytes : 0, stream()>>>(s, shared, dout, bad);
      launched("timeseries groupby m2");
    }
  }
  dfk::downloadChecked(dout, out, outLen, bad, "timeseries groupby: a generated key lies outside its slots (id outside [700, 1300))");
  // No nulls: every value of a slot's rows counts.
  for (int v = 0; v < s.nv; v++)
    for (long long k = 0; k < a.slots; k++) out[(2 + 5 * v) * a.slots + k] = out[k];
}

}  // namespace cuda
}  // namespace gf

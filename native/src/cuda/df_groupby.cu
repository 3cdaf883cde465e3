// Dataframe groupby-aggregate on the device, for integer / dictionary-coded keys: each key tuple
// is a slot (mixed radix of the key codes, so several keys combine without hashing), and every
// slot accumulates rows, first row, and per value column count, sum, min, max; a second pass adds
// the squared deviations about each slot's mean (var, std: the two-pass formula the CPU kernel
// uses). When the slots' accumulators fit in shared memory (few groups, the usual case), each
// block accumulates there with shared-memory atomics and merges into global memory once;
// otherwise it adds straight into global memory. The output layout is df_api.h's.
#include <cmath>
#include <stdexcept>
#include <vector>

#include "../cuda_api.h"
#include "../df_api.h"
#include "common.h"
#include "df_common.h"

namespace gf {
namespace cuda {
namespace {

struct DKey {
  const int32_t* codes;
  const uint8_t* valid;
  long long stride, card;
};
struct DVal {
  const double* x;
  const uint8_t* valid;
};

constexpr int kBlock = 256;
constexpr size_t kSharedBudget = 40 * 1024;

// Slot of row i, or -1 for a null key; a code outside [0, card) raises *bad.
__device__ __forceinline__ long long slotOf(const DKey* keys, int nk, int64_t i, int* bad) {
  long long s = 0;
  for (int j = 0; j < nk; j++) {
    const DKey k = keys[j];
    if (k.valid && !k.valid[i]) return -1;
    const int32_t c = k.codes[i];
    if (c < 0 || c >= k.card) {
      *bad = 1;
      return -1;
    }
    s += c * k.stride;
  }
  return s;
}

__device__ __forceinline__ bool valueAt(const DVal& v, int64_t i, double* x) {
  if (v.valid && !v.valid[i]) return false;
  *x = v.x[i];
  return *x == *x;  // NaN is skipped, as pandas
}

// acc layout (global or shared): rows, first, then per value count, sum, min, max (slots each).
__device__ __forceinline__ void addRow(double* acc, long long slots, long long s, int64_t i, const DVal* vals, int nv, bool minmax) {
  atomicAdd(&acc[s], 1.0);
  dfk::atomicMinD(&acc[slots + s], static_cast<double>(i));
  for (int v = 0; v < nv; v++) {
    double x;
    if (!valueAt(vals[v], i, &x)) continue;
    double* a = acc + (2 + 4 * v) * slots;
    atomicAdd(&a[s], 1.0);
    atomicAdd(&a[slots + s], x);
    if (minmax) {
      dfk::atomicMinD(&a[2 * slots + s], x);
      dfk::atomicMaxD(&a[3 * slots + s], x);
    }
  }
}

__device__ __forceinline__ void initAcc(double* acc, long long slots, int nv, long long k) {
  acc[k] = 0;
  acc[slots + k] = INFINITY;
  for (int v = 0; v < nv; v++) {
    double* a = acc + (2 + 4 * v) * slots;
    a[k] = 0;
    a[slots + k] = 0;
    a[2 * slots + k] = INFINITY;
    a[3 * slots + k] = -INFINITY;
  }
}

__global__ void accumulateGlobal(const DKey* keys, int nk, const DVal* vals, int nv, int64_t rows, long long slots, double* out, int* bad, bool minmax) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < rows; i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const long long s = slotOf(keys, nk, i, bad);
    if (s < 0) continue;
    atomicAdd(&out[s], 1.0);
    dfk::atomicMinD(&out[slots + s], static_cast<double>(i));
    for (int v = 0; v < nv; v++) {
      double x;
      if (!valueAt(vals[v], i, &x)) continue;
      atomicAdd(&dfk::outStat(out, slots, v, 0)[s], 1.0);
      atomicAdd(&dfk::outStat(out, slots, v, 1)[s], x);
      if (minmax) {
        dfk::atomicMinD(&dfk::outStat(out, slots, v, 2)[s], x);
        dfk::atomicMaxD(&dfk::outStat(out, slots, v, 3)[s], x);
      }
    }
  }
}

__global__ void accumulateShared(const DKey* keys, int nk, const DVal* vals, int nv, int64_t rows, long long slots, double* out, int* bad, bool minmax) {
  extern __shared__ double acc[];
  for (long long k = threadIdx.x; k < slots; k += blockDim.x) initAcc(acc, slots, nv, k);
  __syncthreads();
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < rows; i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const long long s = slotOf(keys, nk, i, bad);
    if (s >= 0) addRow(acc, slots, s, i, vals, nv, minmax);
  }
  __syncthreads();
  for (long long k = threadIdx.x; k < slots; k += blockDim.x) {
    if (acc[k] == 0) continue;
    atomicAdd(&out[k], acc[k]);
    dfk::atomicMinD(&out[slots + k], acc[slots + k]);
    for (int v = 0; v < nv; v++) {
      const double* a = acc + (2 + 4 * v) * slots;
      if (a[k] == 0) continue;
      atomicAdd(&dfk::outStat(out, slots, v, 0)[k], a[k]);
      atomicAdd(&dfk::outStat(out, slots, v, 1)[k], a[slots + k]);
      if (minmax) {
        dfk::atomicMinD(&dfk::outStat(out, slots, v, 2)[k], a[2 * slots + k]);
        dfk::atomicMaxD(&dfk::outStat(out, slots, v, 3)[k], a[3 * slots + k]);
      }
    }
  }
}

// Second pass: m2 += (x - mean)^2 with mean = sum / count of the slot (as the CPU kernel).
__global__ void squaredDeviations(const DKey* keys, int nk, const DVal* vals, int nv, int64_t rows, long long slots, double* out, int* bad, bool shared) {
  extern __shared__ double m2[];
  if (shared) {
    for (long long k = threadIdx.x; k < slots * nv; k += blockDim.x) m2[k] = 0;
    __syncthreads();
  }
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < rows; i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const long long s = slotOf(keys, nk, i, bad);
    if (s < 0) continue;
    for (int v = 0; v < nv; v++) {
      double x;
      if (!valueAt(vals[v], i, &x)) continue;
      const double mean = __ddiv_rn(dfk::outStat(out, slots, v, 1)[s], dfk::outStat(out, slots, v, 0)[s]);
      const double d = __dsub_rn(x, mean);
      atomicAdd(shared ? &m2[v * slots + s] : &dfk::outStat(out, slots, v, 4)[s], __dmul_rn(d, d));
    }
  }
  if (shared) {
    __syncthreads();
    for (long long k = threadIdx.x; k < slots * nv; k += blockDim.x)
      if (m2[k] != 0) atomicAdd(&dfk::outStat(out, slots, static_cast<int>(k / slots), 4)[k % slots], m2[k]);
  }
}

}  // namespace

void dfGroupby(const df::GroupbyArgs& a, double* out) {
  ensureDevice();
  const long long slots = a.slots;
  const int nk = static_cast<int>(a.keys.size()), nv = static_cast<int>(a.vals.size());
  const int64_t outLen = df::groupbyOutSize(a);
  dfk::Staging s;
  std::vector<DKey> keys;
  for (const auto& k : a.keys) keys.push_back(DKey{s.put(k.codes, a.rows), s.put(k.valid, a.rows), k.stride, k.card});
  std::vector<DVal> vals;
  for (const auto& v : a.vals) vals.push_back(DVal{s.put(v.x, a.rows), s.put(v.valid, a.rows)});
  const DKey* dkeys = s.put(keys.data(), nk);
  const DVal* dvals = s.put(vals.data(), nv);
  double* dout = s.alloc<double>(outLen);
  int* bad = s.alloc<int>(1);
  check(cudaMemsetAsync(bad, 0, sizeof(int), stream()), "memset");
  dfk::initGroupbyOut<<<dfk::gridFor(slots, kBlock), kBlock, 0, stream()>>>(dout, slots, nv, INFINITY);
  launched("groupby init");
  if (a.rows > 0) {
    const size_t sharedBytes = static_cast<size_t>(slots) * (2 + 4 * nv) * sizeof(double);
    // Enough blocks to fill the device; with shared accumulators each block also pays the init
    // and merge of every slot, so fewer, busier blocks when there are many slots.
    const int grid = std::min(dfk::gridFor(a.rows, kBlock), sharedBytes > 8192 ? 264 : 1056);
    if (sharedBytes <= kSharedBudget) accumulateShared<<<grid, kBlock, sharedBytes, stream()>>>(dkeys, nk, dvals, nv, a.rows, slots, dout, bad, a.minmax);
    else accumulateGlobal<<<dfk::gridFor(a.rows, kBlock), kBlock, 0, stream()>>>(dkeys, nk, dvals, nv, a.rows, slots, dout, bad, a.minmax);
    launched("groupby accumulate");
    if (a.m2 && nv > 0) {
      const size_t m2Bytes = static_cast<size_t>(slots) * nv * sizeof(double);
      const bool shared = m2Bytes <= kSharedBudget;
      squaredDeviations<<<shared ? grid : dfk::gridFor(a.rows, kBlock), kBlock, shared ? m2Bytes : 0, stream()>>>(dkeys, nk, dvals, nv, a.rows, slots, dout, bad, shared);
      launched("groupby m2");
    }
  }
  dfk::downloadChecked(dout, out, outLen, bad, "groupby: a key code lies outside [0, card) of its key");
  // First row: +inf (no row) -> -1.
  for (long long k = 0; k < slots; k++)
    if (std::isinf(out[slots + k])) out[slots + k] = -1;
}

}  // namespace cuda
}  // namespace gf

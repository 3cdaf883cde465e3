// Helpers shared by the dataframe kernels (df_filter.cu, df_groupby.cu, df_join.cu): host
// buffers copied to pooled device memory for the length of one call, grid sizes, the int64
// exclusive scan they all use, and double atomics CUDA lacks (min / max as compare-and-swap loops).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>

#include "common.h"

namespace gf {
namespace cuda {
namespace dfk {

// Device copies of host arrays, freed (back to the pool) when the holder goes out of scope.
class Staging {
 public:
  template <typename T>
  T* alloc(int64_t n) {
    bufs_.push_back(std::make_unique<DeviceBuffer>(static_cast<size_t>(n > 0 ? n : 1) * sizeof(T)));
    return bufs_.back()->as<T>();
  }
  template <typename T>
  const T* put(const T* host, int64_t n) {
    if (!host) return nullptr;
    T* d = alloc<T>(n);
    upload(*bufs_.back(), host, static_cast<size_t>(n) * sizeof(T));
    return d;
  }

 private:
  std::vector<std::unique_ptr<DeviceBuffer>> bufs_;
};

inline int gridFor(int64_t n, int block) {
  const int64_t g = (n + block - 1) / block;
  return static_cast<int>(g < 1 ? 1 : g > 65535 * 16 ? 65535 * 16 : g);
}

// out[i] = sum of in[0 .. i) for i in [0, n]; in has n + 1 elements (the last one ignored).
void exclusiveScan(Staging& s, const long long* in, long long* out, int64_t n);

// df_api.h's groupby output: rows per slot, first row per slot, then per value column count, sum,
// min, max and m2 (slots each).
__device__ __forceinline__ double* outStat(double* out, long long slots, int v, int stat) { return out + (2 + 5 * v + stat) * slots; }

// Every slot of that output empty; `first` is the first-row value of an empty slot (+inf where the
// kernel takes the minimum row, -1 where the kernel does not track it).
static __global__ void initGroupbyOut(double* out, long long slots, int nv, double first) {
  for (long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; k < slots; k += static_cast<long long>(gridDim.x) * blockDim.x) {
    out[k] = 0;
    out[slots + k] = first;
    for (int v = 0; v < nv; v++) {
      outStat(out, slots, v, 0)[k] = 0;
      outStat(out, slots, v, 1)[k] = 0;
      outStat(out, slots, v, 2)[k] = INFINITY;
      outStat(out, slots, v, 3)[k] = -INFINITY;
      outStat(out, slots, v, 4)[k] = 0;
    }
  }
}

// The end of a groupby call: its accumulators and the kernels' bad-key flag back in one sync;
// throws `bad` when a kernel raised the flag.
inline void downloadChecked(const double* dev, double* host, int64_t n, const int* flag, const char* bad) {
  int hostBad = 0;
  check(cudaMemcpyAsync(&hostBad, flag, sizeof(int), cudaMemcpyDeviceToHost, stream()), "copy flag");
  check(cudaMemcpyAsync(host, dev, static_cast<size_t>(n) * sizeof(double), cudaMemcpyDeviceToHost, stream()), "copy groupby result");
  sync();
  if (hostBad) throw std::runtime_error(bad);
}

__device__ __forceinline__ void atomicMinD(double* a, double v) {
  unsigned long long* p = reinterpret_cast<unsigned long long*>(a);
  unsigned long long old = *p;
  while (v < __longlong_as_double(static_cast<long long>(old))) {
    const unsigned long long assumed = old;
    old = atomicCAS(p, assumed, static_cast<unsigned long long>(__double_as_longlong(v)));
    if (old == assumed) break;
  }
}

__device__ __forceinline__ void atomicMaxD(double* a, double v) {
  unsigned long long* p = reinterpret_cast<unsigned long long*>(a);
  unsigned long long old = *p;
  while (v > __longlong_as_double(static_cast<long long>(old))) {
    const unsigned long long assumed = old;
    old = atomicCAS(p, assumed, static_cast<unsigned long long>(__double_as_longlong(v)));
    if (old == assumed) break;
  }
}

}  // namespace dfk
}  // namespace cuda
}  // namespace gf

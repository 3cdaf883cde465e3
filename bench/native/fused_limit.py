"""The "fused limit" of issue 4/20, rebuilt in the same call as our kernel so the two can be compared:
one CuPy RawKernel that makes every normal sample of the 2 TB seed array (N = 500000, 2.5e11
values) with our own Philox4x32-10 and uniform mapping (native/src/philox.h, included as is) and
Box-Muller, and sums x + 1, in one launch, no slicing, no chunks, no partial accumulators beyond a
per-thread double and one atomicAdd per block. Variants:

  precise  the transcendentals our contract allows (float32: logf, sqrtf, sincosf on
           fl32(2 pi) * u2, as native/src/ops.h normal32; float64: log, sqrt, sincospi)
  fast     float32 with the hardware approximations (__logf, __fsqrt_rn, __sincosf): what a
           curand-style generator with -use_fast_math pays, outside our 2e-6 contract near u1 = 1

Prints one JSON line per variant (seconds by events, best of --reps after a warm-up, and the sum).

    python3 bench/native/fused_limit.py [--reps 3] [--n 500000]
"""
import argparse
import json
import os

import cupy as cp

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, "..", "..", "native", "src"))

KERNEL = r"""
#include "philox.h"
using namespace gf;
template <int V>
__device__ __forceinline__ void pair32(uint32_t a, uint32_t b, float& c, float& s) {
  const float u1 = uniform32(a), u2 = uniform32(b);
  if (V == 0) {
    const float r = sqrtf(-2.0f * logf(u1));
    sincosf(__fmul_rn(6.2831855f, u2), &s, &c);
    c *= r; s *= r;
  } else {
    const float r = __fsqrt_rn(-2.0f * __logf(u1));
    __sincosf(__fmul_rn(6.2831855f, u2), &s, &c);
    c *= r; s *= r;
  }
}
template <int V>
__device__ void body32(unsigned long long blocks, uint32_t k0, uint32_t k1, double mean, double* out) {
  double acc = 0;
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < blocks; i += stride) {
    const Words w = philox(i, k0, k1);
    float c0, s0, c1, s1;
    pair32<V>(w.w0, w.w1, c0, s0);
    pair32<V>(w.w2, w.w3, c1, s1);
    const float m = (float)mean + 1.0f;
    acc += (double)(((c0 + m) + (s0 + m)) + ((c1 + m) + (s1 + m)));
  }
  __shared__ double sh[256];
  sh[threadIdx.x] = acc;
  __syncthreads();
  for (int s = 128; s > 0; s >>= 1) { if (threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s]; __syncthreads(); }
  if (threadIdx.x == 0) atomicAdd(out, sh[0]);
}
extern "C" __global__ void __launch_bounds__(256) f32_precise(unsigned long long blocks, uint32_t k0, uint32_t k1, double mean, double* out) { body32<0>(blocks, k0, k1, mean, out); }
extern "C" __global__ void __launch_bounds__(256) f32_fast(unsigned long long blocks, uint32_t k0, uint32_t k1, double mean, double* out) { body32<1>(blocks, k0, k1, mean, out); }
extern "C" __global__ void __launch_bounds__(256) f64_precise(unsigned long long blocks, uint32_t k0, uint32_t k1, double mean, double* out) {
  double acc = 0;
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < blocks; i += stride) {
    const Words w = philox(i, k0, k1);
    const double r = sqrt(-2.0 * log(uniform64(w.w0, w.w1)));
    double s, c;
    sincospi(2.0 * uniform64(w.w2, w.w3), &s, &c);
    acc += (mean + 1.0 + r * c) + (mean + 1.0 + r * s);
  }
  __shared__ double sh[256];
  sh[threadIdx.x] = acc;
  __syncthreads();
  for (int s = 128; s > 0; s >>= 1) { if (threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s]; __syncthreads(); }
  if (threadIdx.x == 0) atomicAdd(out, sh[0]);
}
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--n", type=int, default=500000)
    a = ap.parse_args()
    mod = cp.RawModule(code=KERNEL, options=("-std=c++17", f"-I{SRC}"), backend="nvcc")
    dev = cp.cuda.Device()
    sms = dev.attributes["MultiProcessorCount"]
    elems = a.n * a.n
    for name, per in (("f32_precise", 4), ("f32_fast", 4), ("f64_precise", 2)):
        k = mod.get_function(name)
        blocks = elems // per
        grid = sms * 8
        out = cp.zeros(1, dtype=cp.float64)
        k((grid,), (256,), (cp.uint64(blocks), cp.uint32(1), cp.uint32(2), cp.float64(10.0), out))  # warm-up
        best = None
        for _ in range(a.reps):
            out[:] = 0
            s, e = cp.cuda.Event(), cp.cuda.Event()
            s.record()
            k((grid,), (256,), (cp.uint64(blocks), cp.uint32(1), cp.uint32(2), cp.float64(10.0), out))
            e.record()
            e.synchronize()
            t = cp.cuda.get_elapsed_time(s, e) / 1000
            best = t if best is None else min(best, t)
        print(json.dumps({"kind": "fused-limit", "variant": name, "n": a.n, "elements": elems, "seconds": round(best, 4), "sum": float(out[0]), "regs": k.num_regs}), flush=True)


if __name__ == "__main__":
    main()

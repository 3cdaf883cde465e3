// The fused CUDA evaluator of a ChunkProgram: one pass that generates, applies the elementwise
// ops and folds the reduction's chunk step, so a chunk that a reduction consumes is never
// written to memory. Each thread takes V consecutive output elements of a row per step of a
// grid-stride loop (so one Philox call serves a float64 pair or a float32 quad when the leaf is
// contiguous; a [::2] slice makes one call and one cosine per kept element); accumulation is in
// double with a tree reduction in shared memory and one partial per block, which the host folds
// in block order (deterministic for a given device).
//
// Programs that are a chain (one leaf, then unary / constant ops) keep their values in
// registers; others run on a small per-thread stack (local memory, cached in L1).
#include <algorithm>
#include <memory>
#include <vector>

#include "../cuda_api.h"
#include "../ops.h"
#include "../reduce_acc.h"
#include "common.h"
#include "fast.h"
#include "program_on.h"

namespace gf {
namespace cuda {
namespace {

constexpr int V = 4;
constexpr int kThreads = 256;

struct Inputs {
  const void* data[kMaxLeaves];
  int32_t type[kMaxLeaves];
};

__device__ __forceinline__ double loadInput(const Inputs& in, int slot, int64_t i) {
  switch (in.type[slot]) {
    case tF64: return static_cast<const double*>(in.data[slot])[i];
    case tF32: return static_cast<const float*>(in.data[slot])[i];
    default: return static_cast<const int32_t*>(in.data[slot])[i];
  }
}

// The V values of a leaf at flat indices base + k * inc (k < valid).
template <bool F32>
__device__ __forceinline__ void leafGroup(const Leaf& l, const Inputs& in, int64_t base, int64_t inc, int valid, double (&v)[V]) {
  if (l.kind == kRandom) {
    if (inc == 0) {
      const double x = F32 ? static_cast<double>(random32(l, base)) : random64(l, base);
#pragma unroll
      for (int k = 0; k < V; k++) v[k] = x;
    } else if (!F32 && inc == 1 && !(base & 1)) {
#pragma unroll
      for (int p = 0; p < V / 2; p++) {
        const Words w = philox(static_cast<uint64_t>(base >> 1) + p, l.k0, l.k1);
        const double u1 = uniform64(w.w0, w.w1), u2 = uniform64(w.w2, w.w3);
        if (l.normal) {
          // sincospi(2 u2): no range reduction (see random64 in ops.h).
          const double r = sqrt(-2.0 * log(u1));
          double s, c;
          sincospi(2.0 * u2, &s, &c);
          v[2 * p] = __dadd_rn(l.a, __dmul_rn(l.b, __dmul_rn(r, c)));
          v[2 * p + 1] = __dadd_rn(l.a, __dmul_rn(l.b, __dmul_rn(r, s)));
        } else {
          const double span = __dadd_rn(l.b, -l.a);
          v[2 * p] = __dadd_rn(l.a, __dmul_rn(span, u1));
          v[2 * p + 1] = __dadd_rn(l.a, __dmul_rn(span, u2));
        }
      }
    } else if (F32 && inc == 1 && !(base & 3)) {
      const Words w = philox(static_cast<uint64_t>(base >> 2), l.k0, l.k1);
      const float u[4] = {uniform32(w.w0), uniform32(w.w1), uniform32(w.w2), uniform32(w.w3)};
      const float a = static_cast<float>(l.a), b = static_cast<float>(l.b);
      if (l.normal) {
#pragma unroll
        for (int p = 0; p < 2; p++) {
          const float r = sqrtf(-2.0f * logf(u[2 * p]));
          float s, c;
          sincosf(__fmul_rn(static_cast<float>(kTwoPi), u[2 * p + 1]), &s, &c);
          v[2 * p] = __fadd_rn(a, __fmul_rn(b, __fmul_rn(r, c)));
          v[2 * p + 1] = __fadd_rn(a, __fmul_rn(b, __fmul_rn(r, s)));
        }
      } else {
        const float span = __fadd_rn(b, -a);
#pragma unroll
        for (int q = 0; q < 4; q++) v[q] = __fadd_rn(a, __fmul_rn(span, u[q]));
      }
    } else {
#pragma unroll
      for (int k = 0; k < V; k++)
        if (k < valid) v[k] = F32 ? static_cast<double>(random32(l, base + k * inc)) : random64(l, base + k * inc);
    }
    return;
  }
#pragma unroll
  for (int k = 0; k < V; k++) {
    if (k >= valid) continue;
    const int64_t i = base + k * inc;
    const double x = l.kind == kArange ? __dadd_rn(l.a, __dmul_rn(l.b, static_cast<double>(i))) : loadInput(in, l.dep, i);
    v[k] = F32 ? round32(x) : x;
  }
}

template <bool F32>
__device__ __forceinline__ void applyOp(const Instr& in, double (&v)[V]) {
#pragma unroll
  for (int k = 0; k < V; k++) {
    double x = v[k];
    if (in.op == kUnary) x = unaryOp(in.sub, x);
    else if (in.op == kBinaryConst) x = binaryOp(in.sub, x, in.p0);
    else x = clipOp(x, in.p0, in.p1);
    v[k] = F32 ? round32(x) : x;
  }
}

// Output coordinates of a row (all axes but the last), by 32-bit division: the output has fewer
// than 2^31 elements, and 64-bit division is a long emulated sequence on the GPU.
__device__ __forceinline__ void rowCoords(const Program& p, uint32_t row, int64_t (&c)[kMaxDims]) {
  if (p.ndim == 2) {
    c[0] = row;
    return;
  }
  for (int a = p.ndim - 2; a >= 0; a--) {
    const uint32_t s = static_cast<uint32_t>(p.shape[a]);
    c[a] = row % s;
    row /= s;
  }
}

__device__ __forceinline__ int64_t affine(const Program& p, int64_t off, const int64_t* coef, const int64_t (&c)[kMaxDims], int64_t x0) {
  int64_t b = off + x0 * coef[p.ndim - 1];
  for (int a = 0; a + 1 < p.ndim; a++) b += c[a] * coef[a];
  return b;
}

template <bool F32, bool CHAIN>
__device__ __forceinline__ void evalGroup(const Program& p, const Inputs& in, const int64_t (&c)[kMaxDims], int64_t x0, int valid, double (&v)[V]) {
  const int nd = p.ndim;
  if (CHAIN) {
    const Instr& first = p.code[0];
    if (first.op == kFill) {
#pragma unroll
      for (int k = 0; k < V; k++) v[k] = F32 ? round32(first.p0) : first.p0;
    } else {
      const Leaf& l = p.leaves[first.sub];
      leafGroup<F32>(l, in, affine(p, l.off, l.coef, c, x0), l.coef[nd - 1], valid, v);
    }
    for (int i = 1; i < p.ninstr; i++) applyOp<F32>(p.code[i], v);
    return;
  }
  double st[kMaxStack][V];
  int sp = 0;
  for (int i = 0; i < p.ninstr; i++) {
    const Instr& ins = p.code[i];
    double t[V];
#pragma unroll
    for (int k = 0; k < V; k++) t[k] = sp > 0 ? st[sp - 1][k] : 0.0;
    if (ins.op == kFill) {
#pragma unroll
      for (int k = 0; k < V; k++) t[k] = F32 ? round32(ins.p0) : ins.p0;
      sp++;
    } else if (ins.op <= kInput) {
      const Leaf& l = p.leaves[ins.sub];
      leafGroup<F32>(l, in, affine(p, l.off, l.coef, c, x0), l.coef[nd - 1], valid, t);
      sp++;
    } else if (ins.op == kBinary) {
#pragma unroll
      for (int k = 0; k < V; k++) t[k] = F32 ? round32(binaryOp(ins.sub, st[sp - 2][k], t[k])) : binaryOp(ins.sub, st[sp - 2][k], t[k]);
      sp--;
    } else {
      applyOp<F32>(ins, t);
    }
#pragma unroll
    for (int k = 0; k < V; k++) st[sp - 1][k] = t[k];
  }
#pragma unroll
  for (int k = 0; k < V; k++) v[k] = st[0][k];
}

// RK: 0 writes the values; 1 sums (sum, mean: a compensated sum in two registers); 2 any other
// reduction through the generic accumulator.
template <bool F32, bool CHAIN, int RK>
__global__ void __launch_bounds__(kThreads) programKernel(const __grid_constant__ Program p, const __grid_constant__ Inputs in,
                                                          void* out, Acc* partials) {
  const uint32_t last = static_cast<uint32_t>(p.shape[p.ndim - 1]);
  const uint32_t gpr = (last + V - 1) / V;
  const uint32_t groups = last == 0 ? 0 : static_cast<uint32_t>(p.n / last) * gpr;
  Acc acc = accInit(p.reduce);
  double sum = 0, comp = 0, count = 0;
  int64_t c[kMaxDims] = {0};
  // The (row, group-in-row) of this thread's group, advanced by the grid stride without division.
  const uint32_t start = blockIdx.x * blockDim.x + threadIdx.x, stride = gridDim.x * blockDim.x;
  uint32_t row = start / gpr, xg = start % gpr;
  const uint32_t strideRow = stride / gpr, strideX = stride % gpr;
  for (uint32_t g = start; g < groups; g += stride) {
    rowCoords(p, row, c);
    const int64_t x0 = static_cast<int64_t>(xg) * V;
    const int valid = static_cast<int>(min(static_cast<int64_t>(V), static_cast<int64_t>(last) - x0));
    double v[V];
    evalGroup<F32, CHAIN>(p, in, c, x0, valid, v);
    if (RK == 1) {
#pragma unroll
      for (int k = 0; k < V; k++)
        if (k < valid) neumaier(sum, comp, v[k]);
      count += valid;
    } else if (RK == 2) {
      const double gi = static_cast<double>(affine(p, p.ioff, p.icoef, c, x0));
      const double ginc = static_cast<double>(p.icoef[p.ndim - 1]);
#pragma unroll
      for (int k = 0; k < V; k++)
        if (k < valid) accAdd(acc, p.reduce, v[k], gi + k * ginc);
    } else {
      const int64_t at = static_cast<int64_t>(row) * last + x0;
#pragma unroll
      for (int k = 0; k < V; k++) {
        if (k >= valid) continue;
        if (F32) static_cast<float*>(out)[at + k] = static_cast<float>(v[k]);
        else static_cast<double*>(out)[at + k] = v[k];
      }
    }
    xg += strideX;
    row += strideRow;
    if (xg >= gpr) {
      xg -= gpr;
      row++;
    }
  }
  if (RK == 0) return;
  if (RK == 1) {
    acc.sum = sum;
    acc.comp = comp;
    acc.count = count;
  }
  __shared__ Acc shared[kThreads];
  shared[threadIdx.x] = acc;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) accMerge(shared[threadIdx.x], shared[threadIdx.x + s], p.reduce);
    __syncthreads();
  }
  if (threadIdx.x == 0) partials[blockIdx.x] = shared[0];
}

// Axis reductions: one thread per output position folds its lane of the materialised block.
__global__ void laneKernel(const __grid_constant__ Program p, const void* data, int f32, int64_t inner, int64_t len, int64_t size, double* out) {
  for (int64_t o = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; o < size; o += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t first = (o / inner) * len * inner + o % inner;
    auto at = [&](int64_t k) { return f32 ? static_cast<double>(static_cast<const float*>(data)[first + k * inner]) : static_cast<const double*>(data)[first + k * inner]; };
    Acc acc = accInit(p.reduce);
    if (p.reduce == rVar || p.reduce == rStd) {
      double s = 0;
      for (int64_t k = 0; k < len; k++) s += at(k);
      acc.count = static_cast<double>(len);
      acc.mean = len > 0 ? s / len : 0;
      for (int64_t k = 0; k < len; k++) {
        const double d = at(k) - acc.mean;
        acc.m2 += d * d;
      }
    } else {
      double gi = static_cast<double>(p.ioff);
      int64_t rem = first;
      // An empty lane (a length-0 reduced axis) has no first element: no index to compute.
      for (int a = p.ndim - 1; a >= 0 && len > 0; a--) {
        gi += static_cast<double>((rem % p.shape[a]) * p.icoef[a]);
        rem /= p.shape[a];
      }
      for (int64_t k = 0; k < len; k++) accAdd(acc, p.reduce, at(k), gi + k * static_cast<double>(p.icoef[p.axis]));
    }
    accStore(acc, p.reduce, out, size, o);
  }
}

int blocksFor(int64_t work) {
  static int sms = [] {
    int dev = 0, n = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev);
    return n > 0 ? n : 1;
  }();
  const int64_t want = (work + kThreads - 1) / kThreads;
  return static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(want, static_cast<int64_t>(sms) * 8)));
}

// Blocks that fit on the device at once for a kernel: one wave, each block striding over the
// work (no second partial wave).
template <typename K>
int residentBlocks(K kernel, int want) {
  int perSm = 0, dev = 0, sms = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, kernel, kThreads, 0);
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  return std::max(1, std::min(want, std::max(1, perSm) * std::max(1, sms)));
}

// Returns the number of blocks launched (= partials written).
template <bool F32, bool CHAIN, int RK>
int launchKernel(const Program& p, const Inputs& in, void* out, Acc* partials, int blocks) {
  static const int resident = residentBlocks(programKernel<F32, CHAIN, RK>, INT32_MAX);  // per kernel, once
  const int n = std::min(blocks, resident);
  programKernel<F32, CHAIN, RK><<<n, kThreads, 0, stream()>>>(p, in, out, partials);
  return n;
}

template <bool F32, bool CHAIN>
int launchProgram(const Program& p, const Inputs& in, void* out, Acc* partials, int blocks) {
  if (p.reduce == rNone) return launchKernel<F32, CHAIN, 0>(p, in, out, partials, blocks);
  if (p.reduce == rSum || p.reduce == rMean) return launchKernel<F32, CHAIN, 1>(p, in, out, partials, blocks);
  return launchKernel<F32, CHAIN, 2>(p, in, out, partials, blocks);
}

int launchAny(const Program& p, const Inputs& in, void* out, Acc* partials, int blocks) {
  int n;
  if (p.f32) n = p.chain ? launchProgram<true, true>(p, in, out, partials, blocks) : launchProgram<true, false>(p, in, out, partials, blocks);
  else n = p.chain ? launchProgram<false, true>(p, in, out, partials, blocks) : launchProgram<false, false>(p, in, out, partials, blocks);
  launched("program kernel");
  return n;
}

}  // namespace

void runProgram(const Program& prog, const std::vector<InputView>& inputs, void* out) {
  runProgramOn(prog, inputs, std::vector<char>(inputs.size(), 0), out, false);
}

void runProgramOn(const Program& prog, const std::vector<InputView>& inputs, const std::vector<char>& onDevice, void* out, bool outOnDevice) {
  ensureDevice();
  if (prog.n > INT32_MAX) throw std::runtime_error("cuda: a chunk of more than 2^31 elements");
  Program p = prog;
  // Upload each dependency an input leaf reads, once (device-resident ones are used in place),
  // and point the leaves at its slot.
  Inputs in{};
  std::vector<std::unique_ptr<DeviceBuffer>> held;
  std::vector<int> slotOf(inputs.size(), -1);
  int slots = 0;
  for (int i = 0; i < p.nleaves; i++) {
    Leaf& l = p.leaves[i];
    if (l.kind != kInput) continue;
    if (slotOf[l.dep] < 0) {
      const InputView& v = inputs[l.dep];
      const int slot = slots++;
      if (onDevice[l.dep]) {
        in.data[slot] = v.data;
      } else {
        const size_t bytes = static_cast<size_t>(v.length) * (v.type == tF64 ? 8 : 4);
        held.push_back(std::make_unique<DeviceBuffer>(bytes));
        upload(*held.back(), v.data, bytes);
        in.data[slot] = held.back()->as<void>();
      }
      in.type[slot] = v.type;
      slotOf[l.dep] = slot;
    }
    l.dep = slotOf[l.dep];
  }
  if (outOnDevice && p.reduce != rNone) throw std::logic_error("runProgramOn: a partial is written to host memory");
  if (p.axis < 0 && p.reduce != rNone && fastRun(p, out)) return;
  const size_t elem = p.f32 ? 4 : 8;
  const int64_t last = p.shape[p.ndim - 1];
  const int64_t groups = last == 0 ? 0 : (p.n / last) * ((last + V - 1) / V);
  if (p.reduce == rNone && outOnDevice) {
    if (groups > 0) launchAny(p, in, out, nullptr, blocksFor(groups));
    sync();
    return;
  }
  if (p.reduce == rNone) {
    DeviceBuffer d(static_cast<size_t>(p.n) * elem);
    if (groups > 0) launchAny(p, in, d.as<void>(), nullptr, blocksFor(groups));
    download(out, d, static_cast<size_t>(p.n) * elem);
    sync();
    return;
  }
  if (p.axis >= 0) {
    DeviceBuffer d(static_cast<size_t>(p.n) * elem);
    Program q = p;
    q.reduce = rNone;
    if (groups > 0) launchAny(q, in, d.as<void>(), nullptr, blocksFor(groups));
    int64_t inner = 1;
    for (int a = p.axis + 1; a < p.ndim; a++) inner *= p.shape[a];
    const int64_t size = partialSize(p);
    const size_t outBytes = static_cast<size_t>(size) * partialFields(p.reduce) * 8;
    DeviceBuffer o(outBytes);
    if (size > 0) {
      laneKernel<<<blocksFor(size), kThreads, 0, stream()>>>(p, d.as<void>(), p.f32, inner, p.shape[p.axis], size, o.as<double>());
      launched("lane kernel");
    }
    download(out, o, outBytes);
    sync();
    return;
  }
  const int blocks = blocksFor(groups);
  DeviceBuffer parts(sizeof(Acc) * blocks);
  std::vector<Acc> host;
  if (groups > 0) {
    host.resize(launchAny(p, in, nullptr, parts.as<Acc>(), blocks));
    download(host.data(), parts, sizeof(Acc) * host.size());
  }
  sync();
  Acc total = accInit(p.reduce);
  for (const Acc& a : host) accMerge(total, a, p.reduce);
  accStore(total, p.reduce, static_cast<double*>(out), 1, 0);
}

double benchProgram(const Program& p, int reps) {
  ensureDevice();
  if (p.reduce == rNone || p.axis >= 0) throw std::runtime_error("benchProgram: needs a reduction over all axes");
  for (int i = 0; i < p.nleaves; i++)
    if (p.leaves[i].kind == kInput) throw std::runtime_error("benchProgram: input leaves are not supported");
  double fastMs = 0;
  if (fastBench(p, reps, fastMs)) return fastMs;
  const int64_t last = p.shape[p.ndim - 1];
  const int64_t groups = last == 0 ? 0 : (p.n / last) * ((last + V - 1) / V);
  const int blocks = blocksFor(groups);
  DeviceBuffer parts(sizeof(Acc) * blocks);
  Inputs in{};
  launchAny(p, in, nullptr, parts.as<Acc>(), blocks);  // warm-up
  cudaEvent_t a, b;
  check(cudaEventCreate(&a), "event");
  check(cudaEventCreate(&b), "event");
  check(cudaEventRecord(a, stream()), "event record");
  for (int r = 0; r < reps; r++) launchAny(p, in, nullptr, parts.as<Acc>(), blocks);
  check(cudaEventRecord(b, stream()), "event record");
  check(cudaEventSynchronize(b), "event sync");
  float ms = 0;
  check(cudaEventElapsedTime(&ms, a, b), "elapsed");
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return ms / reps;
}

}  // namespace cuda
}  // namespace gf

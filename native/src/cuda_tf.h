// The kernels of the TensorFlow.js backend `gpuflow-cuda` (worker/kernels/tfjs/cuda/): tensors are
// resident blocks (cuda_resident.h) of 4-byte elements (float32, or int32 for int32 and bool), and
// every op is queued on the calling thread's stream without waiting, since tfjs calls kernels
// synchronously on the JS thread and only a read waits for the device. The op codes and argument
// layouts are native/tf-ops.ts's (the fake device in native/fake-cuda.ts reads the same layout).
#pragma once
#include <cstddef>
#include <cstdint>

namespace gf {
namespace cuda {

// A new block of `elems` 4-byte elements (type tF32 or tI32), registered; returns its id.
int64_t tfAlloc(int64_t elems, int32_t type);
// Host -> block (whole block), and block -> host after the stream's earlier work.
void tfWrite(int64_t id, const void* host, size_t bytes);
void tfRead(int64_t id, void* host, size_t bytes);
// One op: `code` as tf-ops.ts's TfOp, `args` its argument record. Throws std::invalid_argument
// for a malformed record or an unknown id.
void tfRun(int code, const double* args, size_t nargs);
// Waits for every op queued so far (bench timing).
void tfSync();

}  // namespace cuda
}  // namespace gf

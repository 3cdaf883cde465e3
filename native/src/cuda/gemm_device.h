// cuBLAS gemm on operands already in device memory (runtime.cu holds the dlopen'ed cuBLAS), for
// the device-resident path (resident.cu).
#pragma once
#include <cstdint>

namespace gf {
namespace cuda {

// Row-major C (m x n) = A (m x k) B (k x n), plus C's previous contents when accumulate; dtype 0
// float64, 1 float32; on the calling thread's stream, not synchronised.
void gemmDevice(int dtype, const void* a, const void* b, void* c, bool accumulate, int64_t m, int64_t k, int64_t n);

// Row-major C_i (m x n) = op(A_i) op(B_i) for i < batch, A_i = a + i * strideA (a stride of 0
// broadcasts one matrix over the batch), C contiguous; float32, tfjs's BatchMatMul (cuda_tf.h).
void sgemmBatchedDevice(bool transA, bool transB, const float* a, const float* b, float* c, int64_t batch, int64_t m, int64_t n, int64_t k, int64_t strideA, int64_t strideB);

}  // namespace cuda
}  // namespace gf

// cuBLAS gemm on operands already in device memory (runtime.cu holds the dlopen'ed cuBLAS), for
// the device-resident path (resident.cu).
#pragma once
#include <cstdint>

namespace gf {
namespace cuda {

// Row-major C (m x n) = A (m x k) B (k x n), plus C's previous contents when accumulate; dtype 0
// float64, 1 float32; on the calling thread's stream, not synchronised.
void gemmDevice(int dtype, const void* a, const void* b, void* c, bool accumulate, int64_t m, int64_t k, int64_t n);

}  // namespace cuda
}  // namespace gf

// Linear algebra on device-resident blocks (cuda_resident.h), for the engine's TSQR tasks and its
// one-task qr / svd (worker/resident/linalg.ts, docs/linalg.md): the inputs are blocks already on
// the device, the outputs new blocks, and the sign conventions are applied on the device so the
// results equal the js path's: diag(R) >= 0, and for each singular triplet the largest-magnitude
// entry of v_k made positive (the first on ties), u_k flipped with it. float64 only (the engine
// factors float32 in js). In a CPU-only build cuda_stub.cc answers instead.
#pragma once
#include <cstdint>
#include <vector>

#include "cuda_resident.h"

namespace gf {
namespace cuda {

// On device memory, row-major, m >= n; `a` is only read. q: m x n, r: n x n (runtime.cu).
void qrOnDevice(const double* a, double* q, double* r, int64_t m, int64_t n);
// u: m x n, s: n, vt: n x n, by runtime.cu's SVD method (GPUFLOW_CUDA_SVD) (runtime.cu).
void svdOnDevice(const double* a, double* u, double* s, double* vt, int64_t m, int64_t n);

// The row blocks (float64, n columns each, m rows in all) stacked, then QR ([q, r] ids) or SVD
// ([u, s, vt] ids) of the stacked m x n matrix (linalg_resident.cu).
std::vector<int64_t> residentFactor(const std::vector<BlockRef>& blocks, int64_t m, int64_t n, bool svd);
// Rows [start, start + count) of a row-major block with `cols` columns, as a new block.
int64_t residentRows(const DeviceBlock& block, int64_t start, int64_t count, int64_t cols);

}  // namespace cuda
}  // namespace gf

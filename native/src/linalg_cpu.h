#pragma once
#include <cstdint>
#include <string>

#include "pool.h"

namespace gf {

// Row-major throughout. c0 may be null. T is float or double.
template <typename T>
void matmulCpu(Pool& pool, const T* a, const T* b, const T* c0, T* c, int64_t m, int64_t k, int64_t n);
// Reduced QR of a (m x n, m >= n): q (m x n), r (n x n), diag(r) >= 0. LAPACK ?geqrf + ?orgqr
// when found (lapackName()), else our Householder QR. float32 computes in float64.
template <typename T>
void qrCpu(Pool& pool, const T* a, T* q, T* r, int64_t m, int64_t n);
// Thin SVD: u (m x p), s (p), vt (p x n), p = min(m, n), s descending, the js reference's sign
// rule, orthonormal u also for zero singular values. LAPACK ?gesdd when found, else one-sided
// Jacobi (after a QR when m > n). Throws on a non-finite input or a LAPACK error.
template <typename T>
void svdCpu(Pool& pool, const T* a, T* u, T* s, T* vt, int64_t m, int64_t n);

// "openblas" (or the library found) when a system CBLAS serves matmul, else "" and why not.
std::string blasName();
// The library whose dgesdd_ / dgeqrf_ / dorgqr_ serve qr and svd, else "". GPUFLOW_LAPACK=0
// (read on every call) turns them off; GPUFLOW_LAPACK=<path> picks the library.
std::string lapackName();
// OpenBLAS's run-time kernel set and build config ("" for another BLAS): what the host's gemm runs.
std::string blasCore();

}  // namespace gf

#pragma once
#include <cstdint>
#include <string>

#include "pool.h"

namespace gf {

// Row-major throughout. c0 may be null. T is float or double.
template <typename T>
void matmulCpu(Pool& pool, const T* a, const T* b, const T* c0, T* c, int64_t m, int64_t k, int64_t n);
// Reduced Householder QR of a (m x n, m >= n): q (m x n), r (n x n), diag(r) >= 0.
template <typename T>
void qrCpu(Pool& pool, const T* a, T* q, T* r, int64_t m, int64_t n);
// Thin SVD: u (m x p), s (p), vt (p x n), p = min(m, n), s descending. One-sided Jacobi (after a
// QR when m > n).
template <typename T>
void svdCpu(Pool& pool, const T* a, T* u, T* s, T* vt, int64_t m, int64_t n);

// "openblas" (or the library found) when a system CBLAS serves matmul, else "" and why not.
std::string blasName();

}  // namespace gf

// CPU linear algebra: matmul (a system CBLAS when one can be dlopen'ed, else a blocked,
// multithreaded kernel), and the building blocks of TSQR: Householder QR of a tall-skinny block
// and a one-sided Jacobi SVD. Linear algebra is compared with tolerances, so this file may use
// fused multiply-adds (its own compile flags).
#include "linalg_cpu.h"

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <vector>

namespace gf {
namespace {

// CBLAS entry points, loaded at run time so that no BLAS is needed to build or load the addon.
using Dgemm = void (*)(int, int, int, int, int, int, double, const double*, int, const double*, int, double, double*, int);
using Sgemm = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*, int);
using SetThreads = void (*)(int);
struct Blas {
  Dgemm dgemm = nullptr;
  Sgemm sgemm = nullptr;
  SetThreads setThreads = nullptr;
  std::string name;
};

const Blas& blas() {
  static Blas b;
  static std::once_flag once;
  std::call_once(once, [] {
    if (std::getenv("GPUFLOW_NO_BLAS")) return;
    const char* env = std::getenv("GPUFLOW_BLAS");
    const char* names[] = {env, "libopenblas.so.0", "libopenblas.so", "libmkl_rt.so", "libblis.so.4", "libcblas.so.3"};
    for (const char* name : names) {
      if (!name) continue;
      void* h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
      if (!h) continue;
      auto d = reinterpret_cast<Dgemm>(dlsym(h, "cblas_dgemm"));
      auto s = reinterpret_cast<Sgemm>(dlsym(h, "cblas_sgemm"));
      if (!d || !s) {
        dlclose(h);
        continue;
      }
      b.dgemm = d;
      b.sgemm = s;
      b.setThreads = reinterpret_cast<SetThreads>(dlsym(h, "openblas_set_num_threads"));
      b.name = name;
      return;
    }
  });
  return b;
}

constexpr int64_t kRows = 32, kDepth = 256, kCols = 512;

template <typename T>
void matmulBlocked(Pool& pool, const T* a, const T* b, T* c, int64_t m, int64_t k, int64_t n) {
  const int64_t rowBlocks = (m + kRows - 1) / kRows, colBlocks = (n + kCols - 1) / kCols;
  pool.parallelFor(rowBlocks * colBlocks, [&](int64_t blk) {
    const int64_t i0 = (blk / colBlocks) * kRows, j0 = (blk % colBlocks) * kCols;
    const int64_t i1 = std::min(m, i0 + kRows), j1 = std::min(n, j0 + kCols);
    for (int64_t p0 = 0; p0 < k; p0 += kDepth) {
      const int64_t p1 = std::min(k, p0 + kDepth);
      for (int64_t i = i0; i < i1; i++) {
        T* ci = c + i * n;
        for (int64_t p = p0; p < p1; p++) {
          const T aip = a[i * k + p];
          const T* bp = b + p * n;
          for (int64_t j = j0; j < j1; j++) ci[j] += aip * bp[j];
        }
      }
    }
  });
}

// Column-major double working copy helpers.
using Mat = std::vector<double>;

// Householder QR in place on w (column-major m x n). Returns the reflectors in w's lower part,
// their scales in tau, R in the upper triangle.
void householder(Pool& pool, Mat& w, std::vector<double>& tau, int64_t m, int64_t n) {
  tau.assign(n, 0);
  for (int64_t k = 0; k < n; k++) {
    double* x = w.data() + k * m;
    double norm = 0;
    for (int64_t i = k; i < m; i++) norm += x[i] * x[i];
    norm = std::sqrt(norm);
    if (norm == 0) continue;
    const double alpha = x[k] > 0 ? -norm : norm;
    const double v0 = x[k] - alpha;
    // v = x / v0 with v[k] = 1; tau = (alpha - x_k) / alpha ... LAPACK's convention.
    for (int64_t i = k + 1; i < m; i++) x[i] /= v0;
    tau[k] = (alpha - x[k]) / alpha;
    x[k] = alpha;
    const int64_t cols = n - k - 1;
    const int64_t grain = std::max<int64_t>(1, 65536 / std::max<int64_t>(1, m - k));
    pool.parallelFor((cols + grain - 1) / grain, [&](int64_t g) {
      for (int64_t j = k + 1 + g * grain; j < std::min(n, k + 1 + (g + 1) * grain); j++) {
        double* y = w.data() + j * m;
        double dot = y[k];
        for (int64_t i = k + 1; i < m; i++) dot += x[i] * y[i];
        dot *= tau[k];
        y[k] -= dot;
        for (int64_t i = k + 1; i < m; i++) y[i] -= dot * x[i];
      }
    });
  }
}

// Q (column-major m x n) from the reflectors: Q = H_0 ... H_{n-1} applied to the first n columns of I.
Mat formQ(Pool& pool, const Mat& w, const std::vector<double>& tau, int64_t m, int64_t n) {
  Mat q(static_cast<size_t>(m * n), 0.0);
  pool.parallelFor(n, [&](int64_t j) {
    double* y = q.data() + j * m;
    y[j] = 1;
    for (int64_t k = std::min(j, n - 1); k >= 0; k--) {
      const double* x = w.data() + k * m;
      double dot = y[k];
      for (int64_t i = k + 1; i < m; i++) dot += x[i] * y[i];
      dot *= tau[k];
      y[k] -= dot;
      for (int64_t i = k + 1; i < m; i++) y[i] -= dot * x[i];
    }
  });
  return q;
}

template <typename T>
Mat toColMajor(const T* a, int64_t m, int64_t n) {
  Mat w(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++) w[j * m + i] = a[i * n + j];
  return w;
}

// QR with diag(R) >= 0: qc column-major m x n, rc column-major n x n.
void qrCol(Pool& pool, Mat w, int64_t m, int64_t n, Mat& qc, Mat& rc) {
  std::vector<double> tau;
  householder(pool, w, tau, m, n);
  qc = formQ(pool, w, tau, m, n);
  rc.assign(static_cast<size_t>(n * n), 0.0);
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i <= j; i++) rc[j * n + i] = w[j * m + i];
  for (int64_t k = 0; k < n; k++) {
    if (rc[k * n + k] >= 0) continue;
    for (int64_t j = k; j < n; j++) rc[j * n + k] = -rc[j * n + k];
    for (int64_t i = 0; i < m; i++) qc[k * m + i] = -qc[k * m + i];
  }
}

// One-sided Jacobi on w (column-major m x n, m >= n): on return w's columns are U * S, v holds V.
// Round-robin pairing makes each round's rotations disjoint, so they run in parallel.
void jacobi(Pool& pool, Mat& w, Mat& v, int64_t m, int64_t n) {
  v.assign(static_cast<size_t>(n * n), 0.0);
  for (int64_t i = 0; i < n; i++) v[i * n + i] = 1;
  const int64_t players = n + (n & 1);
  std::vector<int64_t> order(players);
  for (int64_t i = 0; i < players; i++) order[i] = i;
  for (int sweep = 0; sweep < 60; sweep++) {
    double off = 0;
    std::mutex mu;
    for (int64_t round = 0; round + 1 < players; round++) {
      pool.parallelFor(players / 2, [&](int64_t pi) {
        int64_t i = order[pi], j = order[players - 1 - pi];
        if (i >= n || j >= n) return;
        if (i > j) std::swap(i, j);
        double* wi = w.data() + i * m;
        double* wj = w.data() + j * m;
        double alpha = 0, beta = 0, gamma = 0;
        for (int64_t r = 0; r < m; r++) {
          alpha += wi[r] * wi[r];
          beta += wj[r] * wj[r];
          gamma += wi[r] * wj[r];
        }
        if (gamma == 0 || std::fabs(gamma) <= 1e-15 * std::sqrt(alpha * beta)) return;
        {
          std::lock_guard<std::mutex> lock(mu);
          off = std::max(off, std::fabs(gamma) / std::sqrt(alpha * beta));
        }
        const double zeta = (beta - alpha) / (2 * gamma);
        const double t = (zeta >= 0 ? 1 : -1) / (std::fabs(zeta) + std::sqrt(1 + zeta * zeta));
        const double c = 1 / std::sqrt(1 + t * t), s = c * t;
        for (int64_t r = 0; r < m; r++) {
          const double x = wi[r], y = wj[r];
          wi[r] = c * x - s * y;
          wj[r] = s * x + c * y;
        }
        double* vi = v.data() + i * n;
        double* vj = v.data() + j * n;
        for (int64_t r = 0; r < n; r++) {
          const double x = vi[r], y = vj[r];
          vi[r] = c * x - s * y;
          vj[r] = s * x + c * y;
        }
      });
      // Rotate all players but the first.
      std::rotate(order.begin() + 1, order.end() - 1, order.end());
    }
    if (off <= 1e-15) break;
  }
}

}  // namespace

std::string blasName() { return blas().name; }

template <typename T>
void matmulCpu(Pool& pool, const T* a, const T* b, const T* c0, T* c, int64_t m, int64_t k, int64_t n) {
  if (c0) std::copy(c0, c0 + m * n, c);
  else std::fill(c, c + m * n, T(0));
  const Blas& bl = blas();
  if (bl.dgemm && m > 0 && n > 0 && k > 0 && m < INT32_MAX && n < INT32_MAX && k < INT32_MAX) {
    if (bl.setThreads) bl.setThreads(pool.threads());
    // CblasRowMajor = 101, CblasNoTrans = 111.
    if constexpr (sizeof(T) == 8) bl.dgemm(101, 111, 111, int(m), int(n), int(k), 1.0, a, int(k), b, int(n), 1.0, c, int(n));
    else bl.sgemm(101, 111, 111, int(m), int(n), int(k), 1.0f, a, int(k), b, int(n), 1.0f, c, int(n));
    return;
  }
  matmulBlocked(pool, a, b, c, m, k, n);
}

template <typename T>
void qrCpu(Pool& pool, const T* a, T* q, T* r, int64_t m, int64_t n) {
  Mat qc, rc;
  qrCol(pool, toColMajor(a, m, n), m, n, qc, rc);
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++) q[i * n + j] = static_cast<T>(qc[j * m + i]);
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < n; j++) r[i * n + j] = static_cast<T>(rc[j * n + i]);
}

template <typename T>
void svdCpu(Pool& pool, const T* a, T* u, T* s, T* vt, int64_t m, int64_t n) {
  if (m < n) {
    // A^T = U' S V'^T, so A = V' S U'^T.
    std::vector<T> at(static_cast<size_t>(m * n)), u2(static_cast<size_t>(n * m)), vt2(static_cast<size_t>(m * m));
    for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < n; j++) at[j * m + i] = a[i * n + j];
    svdCpu(pool, at.data(), u2.data(), s, vt2.data(), n, m);
    for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < m; j++) u[i * m + j] = vt2[j * m + i];
    for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < n; j++) vt[i * n + j] = u2[j * m + i];
    return;
  }
  Mat w = toColMajor(a, m, n), qc, v;
  const bool viaQr = m > n;
  if (viaQr) {
    Mat rc;
    qrCol(pool, std::move(w), m, n, qc, rc);
    w = std::move(rc);
  }
  const int64_t rows = viaQr ? n : m;
  jacobi(pool, w, v, rows, n);
  std::vector<double> norms(n);
  std::vector<int64_t> idx(n);
  for (int64_t j = 0; j < n; j++) {
    double s2 = 0;
    for (int64_t r = 0; r < rows; r++) s2 += w[j * rows + r] * w[j * rows + r];
    norms[j] = std::sqrt(s2);
    idx[j] = j;
  }
  std::stable_sort(idx.begin(), idx.end(), [&](int64_t x, int64_t y) { return norms[x] > norms[y]; });
  // Left vectors of the (possibly reduced) matrix, then lifted by Q.
  Mat ur(static_cast<size_t>(rows * n), 0.0);
  for (int64_t k = 0; k < n; k++) {
    const int64_t j = idx[k];
    s[k] = static_cast<T>(norms[j]);
    if (norms[j] > 0)
      for (int64_t r = 0; r < rows; r++) ur[k * rows + r] = w[j * rows + r] / norms[j];
    for (int64_t c = 0; c < n; c++) vt[k * n + c] = static_cast<T>(v[j * n + c]);
  }
  if (!viaQr) {
    for (int64_t i = 0; i < m; i++)
      for (int64_t k = 0; k < n; k++) u[i * n + k] = static_cast<T>(ur[k * m + i]);
    return;
  }
  pool.parallelFor(m, [&](int64_t i) {
    for (int64_t k = 0; k < n; k++) {
      double acc = 0;
      for (int64_t r = 0; r < n; r++) acc += qc[r * m + i] * ur[k * n + r];
      u[i * n + k] = static_cast<T>(acc);
    }
  });
}

template void matmulCpu<double>(Pool&, const double*, const double*, const double*, double*, int64_t, int64_t, int64_t);
template void matmulCpu<float>(Pool&, const float*, const float*, const float*, float*, int64_t, int64_t, int64_t);
template void qrCpu<double>(Pool&, const double*, double*, double*, int64_t, int64_t);
template void qrCpu<float>(Pool&, const float*, float*, float*, int64_t, int64_t);
template void svdCpu<double>(Pool&, const double*, double*, double*, double*, int64_t, int64_t);
template void svdCpu<float>(Pool&, const float*, float*, float*, float*, int64_t, int64_t);

}  // namespace gf

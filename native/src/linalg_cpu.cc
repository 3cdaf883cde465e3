// CPU linear algebra: matmul (a system CBLAS when one can be dlopen'ed, else a blocked,
// multithreaded kernel), and the building blocks of TSQR: QR of a tall-skinny block and a thin
// SVD. QR and SVD use LAPACK (?geqrf + ?orgqr, ?gesdd, as numpy does) when the dlopen'ed BLAS
// or a liblapack.so.3 exports it, else our own Householder QR and one-sided Jacobi SVD
// (GPUFLOW_LAPACK=0, read on every call, forces those). Both paths return what the js reference
// does: diag(R) >= 0, singular values descending, its sign rule on (u_k, v_k), orthonormal U
// columns for zero singular values. Linear algebra is compared with tolerances, so this file may
// use fused multiply-adds (its own compile flags).
#include "linalg_cpu.h"

#include <dlfcn.h>
#include <sys/mman.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <initializer_list>
#include <mutex>
#include <stdexcept>
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

// Opens the first library of `names` (nulls skipped) for which `take(handle)` finds every symbol
// it needs (it returns false when one is missing, and the library is closed again). Returns its
// name, or "" when none has them.
template <typename Take>
std::string openFirst(std::initializer_list<const char*> names, Take take) {
  for (const char* name : names) {
    if (!name) continue;
    void* h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!h) continue;
    if (take(h)) return name;
    dlclose(h);
  }
  return "";
}

const Blas& blas() {
  static Blas b;
  static std::once_flag once;
  std::call_once(once, [] {
    if (std::getenv("GPUFLOW_NO_BLAS")) return;
    b.name = openFirst({std::getenv("GPUFLOW_BLAS"), "libopenblas.so.0", "libopenblas.so", "libmkl_rt.so", "libblis.so.4", "libcblas.so.3"}, [](void* h) {
      b.dgemm = reinterpret_cast<Dgemm>(dlsym(h, "cblas_dgemm"));
      b.sgemm = reinterpret_cast<Sgemm>(dlsym(h, "cblas_sgemm"));
      if (!b.dgemm || !b.sgemm) return false;
      b.setThreads = reinterpret_cast<SetThreads>(dlsym(h, "openblas_set_num_threads"));
      return true;
    });
    if (b.name.empty()) b = Blas{};
  });
  return b;
}

// LAPACK's Fortran entry points (LP64: 32-bit integers; the trailing size_t is gfortran's hidden
// length of the character argument). OpenBLAS exports them beside CBLAS; on Debian
// liblapack.so.3 is reference LAPACK or OpenBLAS's, through the alternatives system.
using Dgesdd = void (*)(const char*, const int*, const int*, double*, const int*, double*, double*, const int*, double*, const int*,
                        double*, const int*, int*, int*, size_t);
using Dgeqrf = void (*)(const int*, const int*, double*, const int*, double*, double*, const int*, int*);
using Dorgqr = void (*)(const int*, const int*, const int*, double*, const int*, const double*, double*, const int*, int*);
struct Lapack {
  Dgesdd dgesdd = nullptr;
  Dgeqrf dgeqrf = nullptr;
  Dorgqr dorgqr = nullptr;
  SetThreads setThreads = nullptr;
  std::string name;
};

const Lapack& lapackLoaded() {
  static Lapack l;
  static std::once_flag once;
  std::call_once(once, [] {
    const char* env = std::getenv("GPUFLOW_LAPACK");
    const bool path = env && *env && std::strcmp(env, "0") != 0 && std::strcmp(env, "1") != 0;
    const std::string blasLib = blas().name;
    l.name = openFirst({path ? env : nullptr, blasLib.empty() ? nullptr : blasLib.c_str(), "liblapack.so.3", "liblapack.so"}, [](void* h) {
      l.dgesdd = reinterpret_cast<Dgesdd>(dlsym(h, "dgesdd_"));
      l.dgeqrf = reinterpret_cast<Dgeqrf>(dlsym(h, "dgeqrf_"));
      l.dorgqr = reinterpret_cast<Dorgqr>(dlsym(h, "dorgqr_"));
      if (!l.dgesdd || !l.dgeqrf || !l.dorgqr) return false;
      // dlsym on a handle searches its dependencies too: liblapack.so.3 -> libblas.so.3 (OpenBLAS).
      l.setThreads = reinterpret_cast<SetThreads>(dlsym(h, "openblas_set_num_threads"));
      return true;
    });
    if (l.name.empty()) l = Lapack{};
  });
  return l;
}

// LAPACK for this call, or null: none found, or GPUFLOW_LAPACK=0 (read on every call).
const Lapack* lapack() {
  const char* env = std::getenv("GPUFLOW_LAPACK");
  if (env && std::strcmp(env, "0") == 0) return nullptr;
  const Lapack& l = lapackLoaded();
  return l.dgesdd ? &l : nullptr;
}

// An uninitialised buffer: its pages are first touched by whoever writes it (the pool's threads
// or the library's), not by a serial zero fill.
std::unique_ptr<double[]> scratch(int64_t count) { return std::unique_ptr<double[]>(new double[size_t(std::max<int64_t>(1, count))]); }

bool fitsInt(int64_t x) { return x >= 0 && x < int64_t(INT32_MAX); }

// A workspace size from a query (lwork = -1), or -1 when it does not fit in an int.
int64_t workSize(double w) { return w >= 0 && w < double(INT32_MAX) ? std::max<int64_t>(1, int64_t(w)) : -1; }

[[noreturn]] void lapackError(const char* what, const char* routine, int info) {
  throw std::runtime_error(std::string(what) + ": LAPACK " + routine + " failed with info = " + std::to_string(info) +
                           (info < 0 ? " (argument " + std::to_string(-info) + " invalid)" : " (did not converge)"));
}

// Transparent huge pages for a large output the JS caller just allocated (not yet touched: its
// pages are faulted in by the library's threads as they write). NumPy does the same for every
// array of 4 MiB or more; for a 2048^2 float64 product on 2 cores that is 0.19 s instead of 0.24 s,
// almost all of it from C's page faults (bench/native/cpu-linalg.ts). A no-op where THP is
// "never" (or "always": then the pages are huge already).
void adviseHugePages(void* p, size_t bytes) {
#ifdef MADV_HUGEPAGE
  constexpr uintptr_t kHuge = uintptr_t(2) << 20;
  if (bytes < (uintptr_t(4) << 20)) return;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(kHuge - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
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

// The js reference's sign rule (worker/kernels/js/linalg/svd.ts fixSigns): for each triplet k the
// component of v_k with the largest magnitude (the first on exact ties) is made non-negative, and
// u_k is flipped with it. u is row-major m x p, vt row-major p x n.
void fixSigns(double* u, double* vt, int64_t m, int64_t p, int64_t n) {
  for (int64_t k = 0; k < p; k++) {
    double* v = vt + k * n;
    double best = 0;
    int64_t arg = 0;
    for (int64_t j = 0; j < n; j++)
      if (std::fabs(v[j]) > best) {
        best = std::fabs(v[j]);
        arg = j;
      }
    if (v[arg] >= 0) continue;
    for (int64_t j = 0; j < n; j++) v[j] = -v[j];
    for (int64_t i = 0; i < m; i++) u[i * p + k] = -u[i * p + k];
  }
}

// The js reference's completeOrthonormal: the columns of uc (column-major len x k) flagged missing
// become unit vectors e_0, e_1, ... orthogonalised (twice) against the other columns.
void completeOrthonormal(double* uc, int64_t k, int64_t len, std::vector<char>& missing) {
  int64_t e = 0;
  std::vector<double> w(static_cast<size_t>(len));
  for (int64_t c = 0; c < k; c++) {
    if (!missing[c]) continue;
    for (; e < len; e++) {
      std::fill(w.begin(), w.end(), 0.0);
      w[e] = 1;
      for (int pass = 0; pass < 2; pass++)
        for (int64_t o = 0; o < k; o++) {
          if (missing[o] || o == c) continue;
          const double* q = uc + o * len;
          double d = 0;
          for (int64_t i = 0; i < len; i++) d += q[i] * w[i];
          for (int64_t i = 0; i < len; i++) w[i] -= d * q[i];
        }
      double nrm = 0;
      for (int64_t i = 0; i < len; i++) nrm += w[i] * w[i];
      nrm = std::sqrt(nrm);
      if (nrm < 0.5) continue;  // e was (nearly) in the span already
      for (int64_t i = 0; i < len; i++) uc[c * len + i] = w[i] / nrm;
      missing[c] = 0;
      e++;
      break;
    }
  }
}

template <typename T>
void parallelCopy(Pool& pool, const T* from, T* to, int64_t count) {
  constexpr int64_t grain = 1 << 18;
  pool.parallelFor((count + grain - 1) / grain, [&](int64_t g) {
    const int64_t i0 = g * grain, i1 = std::min(count, i0 + grain);
    std::copy(from + i0, from + i1, to + i0);
  });
}

// dst (cols x rows, row-major) = src^T (src rows x cols, row-major), in 64 x 64 tiles, in parallel.
void transposeInto(Pool& pool, const double* src, int64_t rows, int64_t cols, double* dst) {
  constexpr int64_t kT = 64;
  const int64_t tiles = (rows + kT - 1) / kT;
  pool.parallelFor(tiles, [&](int64_t t) {
    const int64_t i0 = t * kT, i1 = std::min(rows, i0 + kT);
    for (int64_t j0 = 0; j0 < cols; j0 += kT) {
      const int64_t j1 = std::min(cols, j0 + kT);
      for (int64_t i = i0; i < i1; i++)
        for (int64_t j = j0; j < j1; j++) dst[j * rows + i] = src[i * cols + j];
    }
  });
}

// QR through LAPACK, as numpy.linalg.qr does it: ?geqrf + ?orgqr on a column-major copy of A
// (m x n). R is read from its upper triangle, Q transposed back. (?gelqf + ?orglq on the row-major
// buffer, which is column-major A^T, would need no copies, but measured 1.7x slower here with
// OpenBLAS 0.3.21.) Returns false (nothing written) when sizes do not fit LAPACK's int.
bool qrLapack(Pool& pool, const Lapack& la, const double* a, double* q, double* r, int64_t m, int64_t n) {
  if (!fitsInt(m) || !fitsInt(n)) return false;
  const int M = int(m), N = int(n), K = int(n), lda = int(m);
  int info = 0, query = -1;
  double w1 = 0, w2 = 0;
  std::vector<double> tau(static_cast<size_t>(n));
  auto x = scratch(m * n);
  la.dgeqrf(&M, &N, x.get(), &lda, tau.data(), &w1, &query, &info);
  if (info != 0) lapackError("qr", "dgeqrf (workspace query)", info);
  la.dorgqr(&M, &N, &K, x.get(), &lda, tau.data(), &w2, &query, &info);
  if (info != 0) lapackError("qr", "dorgqr (workspace query)", info);
  if (workSize(w1) < 0 || workSize(w2) < 0) return false;
  const int lw = int(std::max(workSize(w1), workSize(w2)));
  auto work = scratch(lw);
  transposeInto(pool, a, m, n, x.get());
  if (la.setThreads) la.setThreads(pool.threads());
  la.dgeqrf(&M, &N, x.get(), &lda, tau.data(), work.get(), &lw, &info);
  if (info != 0) lapackError("qr", "dgeqrf", info);
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < n; j++) r[i * n + j] = j >= i ? x[j * m + i] : 0.0;
  la.dorgqr(&M, &N, &K, x.get(), &lda, tau.data(), work.get(), &lw, &info);
  if (info != 0) lapackError("qr", "dorgqr", info);
  transposeInto(pool, x.get(), n, m, q);
  return true;
}

// SVD through ?gesdd (what numpy.linalg.svd calls), jobz = 'S', always on a column-major matrix
// with at least as many rows as columns (?gesdd's QR-first path; its LQ-first path for wide
// matrices measured up to 1.8x slower here). A wide row-major A (m < n) is that already: its
// buffer is column-major A^T (n x m) = U' S V'^T, so A = V' S U'^T, U' (column-major n x p) is our
// vt (row-major p x n) and V'^T (column-major p x m) our u: no transposes. A tall A is transposed
// into column-major first, and U and V^T transposed back, as numpy does.
bool svdLapack(Pool& pool, const Lapack& la, const double* a, double* u, double* s, double* vt, int64_t m, int64_t n) {
  if (!fitsInt(m) || !fitsInt(n)) return false;
  const int64_t p = std::min(m, n);
  if (m >= n) {
    const int M = int(m), N = int(n), lda = int(m), ldu = int(m), ldvt = int(n);
    const char jobz = 'S';
    std::vector<int> iwork(static_cast<size_t>(8 * p));
    auto x = scratch(m * n), uc = scratch(m * n), vc = scratch(n * n);
    int info = 0, query = -1;
    double wq = 0;
    la.dgesdd(&jobz, &M, &N, x.get(), &lda, s, uc.get(), &ldu, vc.get(), &ldvt, &wq, &query, iwork.data(), &info, 1);
    if (info != 0) lapackError("svd", "dgesdd (workspace query)", info);
    const int64_t lwork = workSize(wq);
    if (lwork < 0) return false;
    auto work = scratch(lwork);
    const int lw = int(lwork);
    transposeInto(pool, a, m, n, x.get());
    if (la.setThreads) la.setThreads(pool.threads());
    la.dgesdd(&jobz, &M, &N, x.get(), &lda, s, uc.get(), &ldu, vc.get(), &ldvt, work.get(), &lw, iwork.data(), &info, 1);
    if (info != 0) lapackError("svd", "dgesdd", info);
    transposeInto(pool, uc.get(), n, m, u);
    transposeInto(pool, vc.get(), n, n, vt);
    return true;
  }
  const int M = int(n), N = int(m), lda = int(n), ldu = int(n), ldvt = int(p);
  const char jobz = 'S';
  std::vector<int> iwork(static_cast<size_t>(8 * p));
  int info = 0, query = -1;
  double wq = 0;
  auto x = scratch(m * n);  // ?gesdd overwrites its input
  la.dgesdd(&jobz, &M, &N, x.get(), &lda, s, vt, &ldu, u, &ldvt, &wq, &query, iwork.data(), &info, 1);
  if (info != 0) lapackError("svd", "dgesdd (workspace query)", info);
  const int64_t lwork = workSize(wq);
  if (lwork < 0) return false;
  auto work = scratch(lwork);
  const int lw = int(lwork);
  parallelCopy(pool, a, x.get(), m * n);
  if (la.setThreads) la.setThreads(pool.threads());
  la.dgesdd(&jobz, &M, &N, x.get(), &lda, s, vt, &ldu, u, &ldvt, work.get(), &lw, iwork.data(), &info, 1);
  if (info != 0) lapackError("svd", "dgesdd", info);
  return true;
}

void qrOwn(Pool& pool, const double* a, double* q, double* r, int64_t m, int64_t n) {
  Mat qc, rc;
  qrCol(pool, toColMajor(a, m, n), m, n, qc, rc);
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++) q[i * n + j] = qc[j * m + i];
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < n; j++) r[i * n + j] = rc[j * n + i];
}

// Our SVD, m >= n: QR when m > n, one-sided Jacobi on R (or A), columns sorted by norm, the
// numerically zero ones completed as js does, U lifted by Q.
void svdOwnTall(Pool& pool, const double* a, double* u, double* s, double* vt, int64_t m, int64_t n) {
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
  double top = 0;
  for (int64_t j = 0; j < n; j++) {
    double s2 = 0;
    for (int64_t r = 0; r < rows; r++) s2 += w[j * rows + r] * w[j * rows + r];
    norms[j] = std::sqrt(s2);
    top = std::max(top, norms[j]);
    idx[j] = j;
  }
  std::stable_sort(idx.begin(), idx.end(), [&](int64_t x, int64_t y) { return norms[x] > norms[y]; });
  // A column whose norm is tiny next to the largest is numerically zero: its direction is noise
  // (the js reference's floor).
  const double floor = top * double(n) * std::numeric_limits<double>::epsilon();
  Mat ur(static_cast<size_t>(rows * n), 0.0);
  std::vector<char> missing(n, 0);
  for (int64_t k = 0; k < n; k++) {
    const int64_t j = idx[k];
    s[k] = norms[j];
    if (norms[j] == 0 || norms[j] < floor) missing[k] = 1;
    else
      for (int64_t r = 0; r < rows; r++) ur[k * rows + r] = w[j * rows + r] / norms[j];
    for (int64_t c = 0; c < n; c++) vt[k * n + c] = v[j * n + c];
  }
  completeOrthonormal(ur.data(), n, rows, missing);
  if (!viaQr) {
    for (int64_t i = 0; i < m; i++)
      for (int64_t k = 0; k < n; k++) u[i * n + k] = ur[k * m + i];
    return;
  }
  pool.parallelFor(m, [&](int64_t i) {
    for (int64_t k = 0; k < n; k++) {
      double acc = 0;
      for (int64_t r = 0; r < n; r++) acc += qc[r * m + i] * ur[k * n + r];
      u[i * n + k] = acc;
    }
  });
}

void svdOwn(Pool& pool, const double* a, double* u, double* s, double* vt, int64_t m, int64_t n) {
  if (m >= n) return svdOwnTall(pool, a, u, s, vt, m, n);
  // A^T = U' S V'^T, so A = V' S U'^T.
  std::vector<double> at(static_cast<size_t>(m * n)), u2(static_cast<size_t>(n * m)), vt2(static_cast<size_t>(m * m));
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++) at[j * m + i] = a[i * n + j];
  svdOwnTall(pool, at.data(), u2.data(), s, vt2.data(), n, m);
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < m; j++) u[i * m + j] = vt2[j * m + i];
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++) vt[i * n + j] = u2[j * m + i];
}

// QR in float64, row-major in and out; diag(R) >= 0.
void qrDouble(Pool& pool, const double* a, double* q, double* r, int64_t m, int64_t n) {
  adviseHugePages(q, sizeof(double) * size_t(m * n));
  const Lapack* la = lapack();
  if (!la || !qrLapack(pool, *la, a, q, r, m, n)) return qrOwn(pool, a, q, r, m, n);
  for (int64_t k = 0; k < n; k++) {
    if (r[k * n + k] >= 0) continue;
    for (int64_t j = k; j < n; j++) r[k * n + j] = -r[k * n + j];
    for (int64_t i = 0; i < m; i++) q[i * n + k] = -q[i * n + k];
  }
}

// Thin SVD in float64, row-major in and out, with the js reference's conventions.
void svdDouble(Pool& pool, const double* a, double* u, double* s, double* vt, int64_t m, int64_t n) {
  const int64_t p = std::min(m, n);
  if (p == 0) return;
  for (int64_t i = 0; i < m * n; i++)
    if (!std::isfinite(a[i]))
      throw std::runtime_error("svd: non-finite value " + std::to_string(a[i]) + " at [" + std::to_string(i / n) + ", " + std::to_string(i % n) + "]");
  if (std::all_of(a, a + m * n, [](double x) { return x == 0; })) {
    // What js gives (its QR of 0 is Q = I, its Jacobi completes U with e_0, e_1, ...): U = I, V = I.
    std::fill(u, u + m * p, 0.0);
    std::fill(vt, vt + p * n, 0.0);
    std::fill(s, s + p, 0.0);
    for (int64_t k = 0; k < p; k++) u[k * p + k] = vt[k * n + k] = 1;
    return;
  }
  adviseHugePages(u, sizeof(double) * size_t(m * p));
  adviseHugePages(vt, sizeof(double) * size_t(p * n));
  const Lapack* la = lapack();
  if (!la || !svdLapack(pool, *la, a, u, s, vt, m, n)) svdOwn(pool, a, u, s, vt, m, n);
  fixSigns(u, vt, m, p, n);
}


}  // namespace

std::string blasName() { return blas().name; }
std::string lapackName() { return lapackLoaded().name; }

std::string blasCore() {
  using GetName = char* (*)();
  // openblas_get_corename: the kernel set OpenBLAS picked for this CPU at run time (DYNAMIC_ARCH).
  void* h = blas().name.empty() ? nullptr : dlopen(blas().name.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  if (!h) return "";
  std::string out;
  if (auto core = reinterpret_cast<GetName>(dlsym(h, "openblas_get_corename"))) out = core();
  if (auto config = reinterpret_cast<GetName>(dlsym(h, "openblas_get_config"))) out += std::string(out.empty() ? "" : "; ") + config();
  dlclose(h);
  return out;
}

template <typename T>
void matmulCpu(Pool& pool, const T* a, const T* b, const T* c0, T* c, int64_t m, int64_t k, int64_t n) {
  const Blas& bl = blas();
  if (bl.dgemm && m > 0 && n > 0 && k > 0 && m < INT32_MAX && n < INT32_MAX && k < INT32_MAX) {
    // No zero fill of C before a plain product: beta = 0 (BLAS then never reads C).
    adviseHugePages(c, sizeof(T) * size_t(m * n));
    if (c0) parallelCopy(pool, c0, c, m * n);
    const T beta = c0 ? T(1) : T(0);
    if (bl.setThreads) bl.setThreads(pool.threads());
    // CblasRowMajor = 101, CblasNoTrans = 111.
    if constexpr (sizeof(T) == 8) bl.dgemm(101, 111, 111, int(m), int(n), int(k), 1.0, a, int(k), b, int(n), beta, c, int(n));
    else bl.sgemm(101, 111, 111, int(m), int(n), int(k), 1.0f, a, int(k), b, int(n), beta, c, int(n));
    return;
  }
  if (c0) std::copy(c0, c0 + m * n, c);
  else std::fill(c, c + m * n, T(0));
  matmulBlocked(pool, a, b, c, m, k, n);
}

template <typename T>
void qrCpu(Pool& pool, const T* a, T* q, T* r, int64_t m, int64_t n) {
  if constexpr (sizeof(T) == 8) {
    qrDouble(pool, a, q, r, m, n);
  } else {
    // float32 computes in float64 and rounds once, as the js reference does.
    std::vector<double> ad(a, a + m * n), qd(static_cast<size_t>(m * n)), rd(static_cast<size_t>(n * n));
    qrDouble(pool, ad.data(), qd.data(), rd.data(), m, n);
    std::copy(qd.begin(), qd.end(), q);
    std::copy(rd.begin(), rd.end(), r);
  }
}

template <typename T>
void svdCpu(Pool& pool, const T* a, T* u, T* s, T* vt, int64_t m, int64_t n) {
  if constexpr (sizeof(T) == 8) {
    svdDouble(pool, a, u, s, vt, m, n);
  } else {
    const int64_t p = std::min(m, n);
    std::vector<double> ad(a, a + m * n), ud(static_cast<size_t>(m * p)), sd(static_cast<size_t>(p)), vd(static_cast<size_t>(p * n));
    svdDouble(pool, ad.data(), ud.data(), sd.data(), vd.data(), m, n);
    std::copy(ud.begin(), ud.end(), u);
    std::copy(sd.begin(), sd.end(), s);
    std::copy(vd.begin(), vd.end(), vt);
  }
}

template void matmulCpu<double>(Pool&, const double*, const double*, const double*, double*, int64_t, int64_t, int64_t);
template void matmulCpu<float>(Pool&, const float*, const float*, const float*, float*, int64_t, int64_t, int64_t);
template void qrCpu<double>(Pool&, const double*, double*, double*, int64_t, int64_t);
template void qrCpu<float>(Pool&, const float*, float*, float*, int64_t, int64_t);
template void svdCpu<double>(Pool&, const double*, double*, double*, double*, int64_t, int64_t);
template void svdCpu<float>(Pool&, const float*, float*, float*, float*, int64_t, int64_t);

}  // namespace gf

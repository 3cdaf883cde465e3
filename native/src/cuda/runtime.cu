// Device discovery, the memory pool, and the linear algebra that goes through NVIDIA's libraries:
// cuBLAS (matmul) and cuSOLVER (QR, SVD) are dlopen'ed at first use, with the few entry points
// declared here, so the addon builds without their headers and loads where they are absent.
#include <dlfcn.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <vector>

#include "../cuda_api.h"
#include "../cuda_linalg_resident.h"
#include "common.h"
#include "gemm_device.h"
#include "staging.h"

namespace gf {
namespace cuda {
namespace {

std::once_flag deviceOnce;
std::string deviceError;

void initDevice() {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    deviceError = std::string("no usable CUDA driver or device: ") + cudaGetErrorString(e);
    return;
  }
  if (count == 0) {
    deviceError = "no CUDA device visible (CUDA_VISIBLE_DEVICES?)";
    return;
  }
  if ((e = cudaSetDevice(0)) != cudaSuccess) {
    deviceError = std::string("cudaSetDevice: ") + cudaGetErrorString(e);
    return;
  }
  // Keep freed blocks in the pool instead of handing them back to the driver.
  cudaMemPool_t pool;
  if (cudaDeviceGetDefaultMemPool(&pool, 0) == cudaSuccess) {
    uint64_t keep = UINT64_MAX;
    cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
  }
}

// ---- cuBLAS / cuSOLVER, loaded at run time ----
using Handle = void*;
using Status = int;
struct Cublas {
  Status (*create)(Handle*);
  Status (*setStream)(Handle, cudaStream_t);
  Status (*dgemm)(Handle, int, int, int, int, int, const double*, const double*, int, const double*, int, const double*, double*, int);
  Status (*sgemm)(Handle, int, int, int, int, int, const float*, const float*, int, const float*, int, const float*, float*, int);
  Status (*sgemmStridedBatched)(Handle, int, int, int, int, int, const float*, const float*, int, long long, const float*, int, long long, const float*, float*, int, long long, int);
};
struct Cusolver {
  Status (*create)(Handle*);
  Status (*setStream)(Handle, cudaStream_t);
  Status (*dgeqrfBuf)(Handle, int, int, double*, int, int*);
  Status (*sgeqrfBuf)(Handle, int, int, float*, int, int*);
  Status (*dgeqrf)(Handle, int, int, double*, int, double*, double*, int, int*);
  Status (*sgeqrf)(Handle, int, int, float*, int, float*, float*, int, int*);
  Status (*dorgqrBuf)(Handle, int, int, int, const double*, int, const double*, int*);
  Status (*sorgqrBuf)(Handle, int, int, int, const float*, int, const float*, int*);
  Status (*dorgqr)(Handle, int, int, int, double*, int, const double*, double*, int, int*);
  Status (*sorgqr)(Handle, int, int, int, float*, int, const float*, float*, int, int*);
  Status (*dgesvdBuf)(Handle, int, int, int*);
  Status (*sgesvdBuf)(Handle, int, int, int*);
  Status (*dgesvd)(Handle, signed char, signed char, int, int, double*, int, double*, double*, int, double*, int, double*, int, double*, int*);
  Status (*sgesvd)(Handle, signed char, signed char, int, int, float*, int, float*, float*, int, float*, int, float*, int, float*, int*);
  // Q C for the QR-first SVD (side, trans as cublasSideMode_t / cublasOperation_t).
  Status (*dormqrBuf)(Handle, int, int, int, int, int, const double*, int, const double*, const double*, int, int*);
  Status (*sormqrBuf)(Handle, int, int, int, int, int, const float*, int, const float*, const float*, int, int*);
  Status (*dormqr)(Handle, int, int, int, int, int, const double*, int, const double*, double*, int, double*, int, int*);
  Status (*sormqr)(Handle, int, int, int, int, int, const float*, int, const float*, float*, int, float*, int, int*);
  // Jacobi SVD (jobz as cusolverEigMode_t, the last argument a gesvdjInfo_t); returns V, not V^T.
  Status (*createGesvdjInfo)(void**);
  Status (*destroyGesvdjInfo)(void*);
  Status (*dgesvdjBuf)(Handle, int, int, int, int, const double*, int, const double*, const double*, int, const double*, int, int*, void*);
  Status (*sgesvdjBuf)(Handle, int, int, int, int, const float*, int, const float*, const float*, int, const float*, int, int*, void*);
  Status (*dgesvdj)(Handle, int, int, int, int, double*, int, double*, double*, int, double*, int, double*, int, int*, void*);
  Status (*sgesvdj)(Handle, int, int, int, int, float*, int, float*, float*, int, float*, int, float*, int, int*, void*);
  // Polar-decomposition SVD (64-bit API; data types as cudaDataType); returns V, not V^T.
  Status (*createParams)(void**);
  Status (*destroyParams)(void*);
  Status (*xgesvdpBuf)(Handle, void*, int, int, int64_t, int64_t, int, const void*, int64_t, int, const void*, int, const void*, int64_t, int, const void*, int64_t, int, size_t*, size_t*);
  Status (*xgesvdp)(Handle, void*, int, int, int64_t, int64_t, int, void*, int64_t, int, void*, int, void*, int64_t, int, void*, int64_t, int, void*, size_t, void*, size_t, int*, double*);
};

void* openFirst(const char* env, std::initializer_list<const char*> names, std::string& why) {
  std::vector<const char*> all;
  if (const char* e = std::getenv(env)) all.push_back(e);
  all.insert(all.end(), names);
  std::string tried;
  for (const char* n : all) {
    if (void* h = dlopen(n, RTLD_NOW | RTLD_LOCAL)) return h;
    tried += std::string(tried.empty() ? "" : ", ") + n;
  }
  why = "could not dlopen " + tried + " (set " + env + " to its path)";
  return nullptr;
}

template <typename F>
bool sym(void* h, const char* name, F& f, std::string& why) {
  f = reinterpret_cast<F>(dlsym(h, name));
  if (!f) why = std::string("missing symbol ") + name;
  return f != nullptr;
}

std::string cublasWhy, cusolverWhy;
// A library phase of the warm-up (warmLibraries) queued and not over: info() then leaves the
// libraries alone rather than wait on the JS thread for their dlopen (cublasLib's static).
std::atomic<bool> librariesWarming{false};
const Cublas* cublasLib() {
  static Cublas lib;
  static bool ok = [] {
    void* h = openFirst("GPUFLOW_CUBLAS", {"libcublas.so.13", "libcublas.so.12", "libcublas.so"}, cublasWhy);
    if (!h) return false;
    return sym(h, "cublasCreate_v2", lib.create, cublasWhy) && sym(h, "cublasSetStream_v2", lib.setStream, cublasWhy) &&
           sym(h, "cublasDgemm_v2", lib.dgemm, cublasWhy) && sym(h, "cublasSgemm_v2", lib.sgemm, cublasWhy) &&
           sym(h, "cublasSgemmStridedBatched", lib.sgemmStridedBatched, cublasWhy);
  }();
  return ok ? &lib : nullptr;
}
const Cusolver* cusolverLib() {
  static Cusolver lib;
  static bool ok = [] {
    void* h = openFirst("GPUFLOW_CUSOLVER", {"libcusolver.so.12", "libcusolver.so.11", "libcusolver.so"}, cusolverWhy);
    if (!h) return false;
    return sym(h, "cusolverDnCreate", lib.create, cusolverWhy) && sym(h, "cusolverDnSetStream", lib.setStream, cusolverWhy) &&
           sym(h, "cusolverDnDgeqrf_bufferSize", lib.dgeqrfBuf, cusolverWhy) && sym(h, "cusolverDnSgeqrf_bufferSize", lib.sgeqrfBuf, cusolverWhy) &&
           sym(h, "cusolverDnDgeqrf", lib.dgeqrf, cusolverWhy) && sym(h, "cusolverDnSgeqrf", lib.sgeqrf, cusolverWhy) &&
           sym(h, "cusolverDnDorgqr_bufferSize", lib.dorgqrBuf, cusolverWhy) && sym(h, "cusolverDnSorgqr_bufferSize", lib.sorgqrBuf, cusolverWhy) &&
           sym(h, "cusolverDnDorgqr", lib.dorgqr, cusolverWhy) && sym(h, "cusolverDnSorgqr", lib.sorgqr, cusolverWhy) &&
           sym(h, "cusolverDnDgesvd_bufferSize", lib.dgesvdBuf, cusolverWhy) && sym(h, "cusolverDnSgesvd_bufferSize", lib.sgesvdBuf, cusolverWhy) &&
           sym(h, "cusolverDnDgesvd", lib.dgesvd, cusolverWhy) && sym(h, "cusolverDnSgesvd", lib.sgesvd, cusolverWhy) &&
           sym(h, "cusolverDnDormqr_bufferSize", lib.dormqrBuf, cusolverWhy) && sym(h, "cusolverDnSormqr_bufferSize", lib.sormqrBuf, cusolverWhy) &&
           sym(h, "cusolverDnDormqr", lib.dormqr, cusolverWhy) && sym(h, "cusolverDnSormqr", lib.sormqr, cusolverWhy) &&
           sym(h, "cusolverDnCreateGesvdjInfo", lib.createGesvdjInfo, cusolverWhy) && sym(h, "cusolverDnDestroyGesvdjInfo", lib.destroyGesvdjInfo, cusolverWhy) &&
           sym(h, "cusolverDnDgesvdj_bufferSize", lib.dgesvdjBuf, cusolverWhy) && sym(h, "cusolverDnSgesvdj_bufferSize", lib.sgesvdjBuf, cusolverWhy) &&
           sym(h, "cusolverDnDgesvdj", lib.dgesvdj, cusolverWhy) && sym(h, "cusolverDnSgesvdj", lib.sgesvdj, cusolverWhy) &&
           sym(h, "cusolverDnCreateParams", lib.createParams, cusolverWhy) && sym(h, "cusolverDnDestroyParams", lib.destroyParams, cusolverWhy) &&
           sym(h, "cusolverDnXgesvdp_bufferSize", lib.xgesvdpBuf, cusolverWhy) && sym(h, "cusolverDnXgesvdp", lib.xgesvdp, cusolverWhy);
  }();
  return ok ? &lib : nullptr;
}

void status(Status s, const char* what) {
  if (s == 0) return;
  // A library call fails with its own status when the device is lost under it; the runtime's
  // sticky error says whether that is what happened.
  const cudaError_t e = cudaPeekAtLastError();
  if (deviceLost(e)) check(e, what);
  throw std::runtime_error(std::string(what) + " failed with status " + std::to_string(s));
}

// Handles are made once and lent to whichever thread needs one: a handle per libuv thread made
// the first call on each new thread pay the creation (cuSOLVER's makes a cuBLAS handle and device
// workspace), so a "warm" call could still be a cold one. A handle is not safe for two calls at
// once, hence the lending; it stays bound to cudaStreamPerThread, which resolves to the calling
// thread's stream at each launch.
//
// The warm-up's library phase makes the first handle of each kind in the background while tasks
// already run. A lease that finds no idle handle while that first one is being made waits for it
// (HandlePool::warming, set when the phase is queued) instead of making a second one at the same
// time: the first matmul or SVD takes the warm-up's handle, never races its creation.
struct HandlePool {
  std::vector<Handle> idle;  // never destroyed: see resident.cu's registry
  bool warming = false;
};
std::mutex handleMutex;
std::condition_variable handleReturned;

class HandleLease {
 public:
  HandleLease(Status (*create)(Handle*), Status (*setStream)(Handle, cudaStream_t), std::mutex& mu, HandlePool& pool, const char* what)
      : mu_(mu), pool_(pool) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      handleReturned.wait(lock, [&] { return !pool_.idle.empty() || !pool_.warming; });
      if (!pool_.idle.empty()) {
        h_ = pool_.idle.back();
        pool_.idle.pop_back();
      }
    }
    if (!h_) {
      status(create(&h_), what);
      status(setStream(h_, stream()), what);
    }
  }
  ~HandleLease() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      pool_.idle.push_back(h_);
    }
    handleReturned.notify_all();
  }
  HandleLease(const HandleLease&) = delete;
  HandleLease& operator=(const HandleLease&) = delete;
  operator Handle() const { return h_; }

 private:
  std::mutex& mu_;
  HandlePool& pool_;
  Handle h_ = nullptr;
};

HandlePool cublasPool, cusolverPool;
HandleLease cublasHandle() {
  const Cublas* lib = cublasLib();
  if (!lib) throw std::runtime_error("cuBLAS unavailable: " + cublasWhy);
  return HandleLease(lib->create, lib->setStream, handleMutex, cublasPool, "cublasCreate");
}
HandleLease cusolverHandle() {
  const Cusolver* lib = cusolverLib();
  if (!lib) throw std::runtime_error("cuSOLVER unavailable: " + cusolverWhy);
  return HandleLease(lib->create, lib->setStream, handleMutex, cusolverPool, "cusolverDnCreate");
}

// The warm-up's first handle of a pool: made (the library dlopen'ed on the way) and left idle,
// then `warming` is cleared and waiting leases woken, whatever happened (a failure is left for
// the first real lease to report with its message).
template <typename Lib>
void warmHandle(const Lib* (*lib)(), HandlePool& pool) {
  Handle h = nullptr;
  try {
    if (const Lib* l = lib()) {
      if (l->create(&h) != 0) h = nullptr;
      else if (l->setStream(h, stream()) != 0) h = nullptr;  // leaked on this rare failure: a lease makes its own
    }
  } catch (const std::exception&) {
    h = nullptr;
  }
  {
    std::lock_guard<std::mutex> lock(handleMutex);
    if (h) pool.idle.push_back(h);
    pool.warming = false;
  }
  handleReturned.notify_all();
}

// The float64 or the float32 entry point of a pair, by T.
template <typename T, typename D, typename S>
auto pick(D d, S s) {
  if constexpr (sizeof(T) == 8) return d;
  else return s;
}

// out (cols x rows, row-major) = in (rows x cols, row-major)^T, through 32 x 32 shared tiles.
template <typename T>
__global__ void transposeKernel(const T* in, T* out, int64_t rows, int64_t cols) {
  __shared__ T tile[32][33];
  const int64_t bx = blockIdx.x * 32, by = blockIdx.y * 32;
  for (int j = threadIdx.y; j < 32; j += 8) {
    const int64_t r = by + j, c = bx + threadIdx.x;
    if (r < rows && c < cols) tile[j][threadIdx.x] = in[r * cols + c];
  }
  __syncthreads();
  for (int j = threadIdx.y; j < 32; j += 8) {
    const int64_t r = bx + j, c = by + threadIdx.x;
    if (r < cols && c < rows) out[r * rows + c] = tile[threadIdx.x][j];
  }
}

template <typename T>
void transpose(const T* in, T* out, int64_t rows, int64_t cols) {
  dim3 grid(static_cast<unsigned>((cols + 31) / 32), static_cast<unsigned>((rows + 31) / 32));
  transposeKernel<T><<<grid, dim3(32, 8), 0, stream()>>>(in, out, rows, cols);
  launched("transpose kernel");
}

// Host <-> device copies of whole operands go through the pinned staging pool (staging.h): a
// pageable cudaMemcpy ran at about 2-3 GB/s here, which made most of a host in/out matmul.
void uploadBig(DeviceBuffer& d, const void* host) { uploadStaged(d.as<void>(), host, d.bytes(), stream()); }
void downloadBig(void* host, const void* device, size_t bytes) { downloadStaged(host, device, bytes, stream()); }

template <typename T>
void matmulT(const T* a, const T* b, const T* c0, T* c, int64_t m, int64_t k, int64_t n) {
  ensureDevice();
  DeviceBuffer da(sizeof(T) * m * k), db(sizeof(T) * k * n), dc(sizeof(T) * m * n);
  uploadBig(da, a);
  uploadBig(db, b);
  if (c0) uploadBig(dc, c0);
  gemmDevice(sizeof(T) == 8 ? 0 : 1, da.as<T>(), db.as<T>(), dc.as<T>(), c0 != nullptr, m, k, n);
  downloadBig(c, dc.as<T>(), dc.bytes());
}

// Throws unless every devInfo the calls wrote is 0 (synchronises the stream).
void checkInfo(const DeviceBuffer& info, const char* what) {
  std::vector<int> got(info.bytes() / sizeof(int));
  check(cudaMemcpyAsync(got.data(), info.as<int>(), info.bytes(), cudaMemcpyDeviceToHost, stream()), "copy info");
  sync();
  for (int v : got)
    if (v != 0) throw std::runtime_error(std::string(what) + ": info " + std::to_string(v));
}

template <typename T>
void qrT(const T* a, T* q, T* r, int64_t m, int64_t n) {
  if (m > INT32_MAX || n > INT32_MAX) throw std::runtime_error("cuda qr: dimension beyond 2^31");
  ensureDevice();
  HandleLease h = cusolverHandle();
  const Cusolver* lib = cusolverLib();
  DeviceBuffer rowMajor(sizeof(T) * m * n), colMajor(sizeof(T) * m * n), tau(sizeof(T) * n), info(sizeof(int));
  uploadBig(rowMajor, a);
  transpose(rowMajor.as<T>(), colMajor.as<T>(), m, n);
  int lw1 = 0, lw2 = 0;
  T* A = colMajor.as<T>();
  status(pick<T>(lib->dgeqrfBuf, lib->sgeqrfBuf)(h, int(m), int(n), A, int(m), &lw1), "geqrf_bufferSize");
  status(pick<T>(lib->dorgqrBuf, lib->sorgqrBuf)(h, int(m), int(n), int(n), A, int(m), tau.as<T>(), &lw2), "orgqr_bufferSize");
  DeviceBuffer work(sizeof(T) * std::max(1, std::max(lw1, lw2)));
  status(pick<T>(lib->dgeqrf, lib->sgeqrf)(h, int(m), int(n), A, int(m), tau.as<T>(), work.as<T>(), lw1, info.as<int>()), "geqrf");
  // R: the upper triangle of the top n x n block (column-major), read back before orgqr overwrites it.
  std::vector<T> rc(static_cast<size_t>(n * n));
  check(cudaMemcpy2DAsync(rc.data(), sizeof(T) * n, A, sizeof(T) * m, sizeof(T) * n, n, cudaMemcpyDeviceToHost, stream()), "copy R");
  status(pick<T>(lib->dorgqr, lib->sorgqr)(h, int(m), int(n), int(n), A, int(m), tau.as<T>(), work.as<T>(), lw2, info.as<int>()), "orgqr");
  transpose(A, rowMajor.as<T>(), n, m);  // column-major m x n is row-major n x m
  downloadBig(q, rowMajor.as<T>(), rowMajor.bytes());
  checkInfo(info, "cuSOLVER qr");
  // Same convention as native-cpu: diag(R) >= 0.
  for (int64_t i = 0; i < n; i++) {
    const bool flip = rc[i * n + i] < 0;
    for (int64_t j = 0; j < n; j++) r[i * n + j] = j < i ? T(0) : (flip ? -rc[j * n + i] : rc[j * n + i]);
    if (flip)
      for (int64_t row = 0; row < m; row++) q[row * n + i] = -q[row * n + i];
  }
}

// ---- SVD ----
// How the SVD of a column-major rows x cols matrix X (rows >= cols) is computed. GPUFLOW_CUDA_SVD
// picks one (read at each call, so a bench can compare them in one process):
//   gesvd      cuSOLVER gesvd on X (Householder bidiagonalisation + implicit QR), what CuPy does
//   gesvdj     Jacobi (gesvdj) on X
//   gesvdp     polar decomposition + syevd (Xgesvdp) on X
//   qr-<one>   X = Q R first (geqrf), <one> on the cols x cols R, then U = Q U_R (ormqr): for a
//              tall X the iterations run on a matrix rows / cols times smaller (LAPACK's gesvd does
//              the same above rows >= 1.6 cols). Used only when rows >= 1.6 cols, else <one> on X.
enum class Solver { Gesvd, Gesvdj, Gesvdp };
struct SvdMethod {
  bool qrFirst;
  Solver solver;
};
// The default: on an H100, 10000 x 1000 float64, qr-gesvdp and gesvdp took 0.10 s host in / out
// (0.05 s of it the host copies), gesvdj 0.15 s, gesvd 0.25 s (CuPy's gesvd, device-resident,
// 0.18 s): bench/results/native-gpu-linalg-h100-*.md.
constexpr const char* kDefaultSvd = "qr-gesvdp";

SvdMethod svdMethod() {
  const char* e = std::getenv("GPUFLOW_CUDA_SVD");
  std::string name = e && *e ? e : kDefaultSvd;
  SvdMethod m{name.rfind("qr-", 0) == 0, Solver::Gesvd};
  const std::string solver = m.qrFirst ? name.substr(3) : name;
  if (solver == "gesvdj") m.solver = Solver::Gesvdj;
  else if (solver == "gesvdp") m.solver = Solver::Gesvdp;
  else if (solver != "gesvd") throw std::runtime_error("GPUFLOW_CUDA_SVD: unknown method '" + name + "' (gesvd, gesvdj, gesvdp, qr-gesvd, qr-gesvdj, qr-gesvdp)");
  return m;
}

// R (cols x cols, column-major) = the upper triangle of X's top cols rows after geqrf.
template <typename T>
__global__ void upperKernel(const T* x, int64_t rows, T* r, int64_t cols) {
  const int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i < cols)
    for (int64_t j = blockIdx.y; j < cols; j += gridDim.y) r[j * cols + i] = i <= j ? x[j * rows + i] : T(0);
}

// X (rows x cols, rows >= cols, overwritten) = U S V^T into U (rows x cols), S, V (cols x cols),
// all column-major. info[0] gets the solver's devInfo.
template <typename T>
void solveSvd(Handle h, Solver solver, T* X, int64_t rows, int64_t cols, T* S, T* U, T* V, int* info) {
  const Cusolver* lib = cusolverLib();
  const int r = int(rows), c = int(cols);
  if (solver == Solver::Gesvd) {
    int lwork = 0;
    status(pick<T>(lib->dgesvdBuf, lib->sgesvdBuf)(h, r, c, &lwork), "gesvd_bufferSize");
    DeviceBuffer work(sizeof(T) * std::max(1, lwork)), rwork(sizeof(T) * cols), VT(sizeof(T) * cols * cols);
    status(pick<T>(lib->dgesvd, lib->sgesvd)(h, 'S', 'S', r, c, X, r, S, U, r, VT.as<T>(), c, work.as<T>(), lwork, rwork.as<T>(), info), "gesvd");
    transpose(VT.as<T>(), V, cols, cols);
  } else if (solver == Solver::Gesvdj) {
    void* params = nullptr;
    status(lib->createGesvdjInfo(&params), "cusolverDnCreateGesvdjInfo");
    std::unique_ptr<void, Status (*)(void*)> keep(params, lib->destroyGesvdjInfo);
    int lwork = 0;
    status(pick<T>(lib->dgesvdjBuf, lib->sgesvdjBuf)(h, 1, 1, r, c, X, r, S, U, r, V, c, &lwork, params), "gesvdj_bufferSize");
    DeviceBuffer work(sizeof(T) * std::max(1, lwork));
    status(pick<T>(lib->dgesvdj, lib->sgesvdj)(h, 1, 1, r, c, X, r, S, U, r, V, c, work.as<T>(), lwork, info, params), "gesvdj");
  } else {
    void* params = nullptr;
    status(lib->createParams(&params), "cusolverDnCreateParams");
    std::unique_ptr<void, Status (*)(void*)> keep(params, lib->destroyParams);
    const int type = sizeof(T) == 8 ? 1 : 0;  // CUDA_R_64F, CUDA_R_32F
    size_t devBytes = 0, hostBytes = 0;
    status(lib->xgesvdpBuf(h, params, 1, 1, rows, cols, type, X, rows, type, S, type, U, rows, type, V, cols, type, &devBytes, &hostBytes), "Xgesvdp_bufferSize");
    DeviceBuffer work(std::max<size_t>(1, devBytes));
    std::vector<char> hostWork(std::max<size_t>(1, hostBytes));
    double errSigma = 0;
    status(lib->xgesvdp(h, params, 1, 1, rows, cols, type, X, rows, type, S, type, U, rows, type, V, cols, type, work.as<void>(), devBytes, hostWork.data(), hostBytes, info, &errSigma), "Xgesvdp");
  }
}

// The SVD of X (column-major rows x cols, rows >= cols, overwritten) by `method` into U (rows x
// cols), S and V (cols x cols), all column-major on the device; info[0] and info[1] get devInfo.
template <typename T>
void factorSvd(Handle h, SvdMethod method, T* x, int64_t rows, int64_t cols, T* S, T* U, T* V, int* info) {
  const Cusolver* lib = cusolverLib();
  if (method.qrFirst && rows * 5 >= cols * 8) {
    const int r = int(rows), c = int(cols);
    DeviceBuffer tau(sizeof(T) * cols), R(sizeof(T) * cols * cols), UR(sizeof(T) * cols * cols);
    int lw1 = 0, lw2 = 0;
    status(pick<T>(lib->dgeqrfBuf, lib->sgeqrfBuf)(h, r, c, x, r, &lw1), "geqrf_bufferSize");
    status(pick<T>(lib->dormqrBuf, lib->sormqrBuf)(h, 0, 0, r, c, c, x, r, tau.as<T>(), U, r, &lw2), "ormqr_bufferSize");
    DeviceBuffer work(sizeof(T) * std::max(1, std::max(lw1, lw2)));
    status(pick<T>(lib->dgeqrf, lib->sgeqrf)(h, r, c, x, r, tau.as<T>(), work.as<T>(), lw1, info + 1), "geqrf");
    upperKernel<T><<<dim3(unsigned((cols + 255) / 256), unsigned(std::min<int64_t>(cols, 65535))), 256, 0, stream()>>>(x, rows, R.as<T>(), cols);
    launched("upper kernel");
    solveSvd(h, method.solver, R.as<T>(), cols, cols, S, UR.as<T>(), V, info);
    // U = Q [U_R; 0]: U_R into the top of U, zeros below, then Q applied from the left.
    check(cudaMemsetAsync(U, 0, sizeof(T) * rows * cols, stream()), "memset U");
    check(cudaMemcpy2DAsync(U, sizeof(T) * rows, UR.as<T>(), sizeof(T) * cols, sizeof(T) * cols, cols, cudaMemcpyDeviceToDevice, stream()), "copy U_R");
    status(pick<T>(lib->dormqr, lib->sormqr)(h, 0, 0, r, c, c, x, r, tau.as<T>(), U, r, work.as<T>(), lw2, info + 1), "ormqr");
  } else {
    solveSvd(h, method.solver, x, rows, cols, S, U, V, info);
  }
}

// The polar decomposition gesvdp starts from is not unique when A is (numerically) rank
// deficient, and NVIDIA's documentation says U may then not be orthonormal: such a matrix is done
// again by Jacobi, which completes U. "Numerically" is sigma_min <= sqrt(eps) sigma_max, well above
// the rounding noise (about cols eps sigma_max) a rank-deficient matrix's other singular values
// sit at. Used by the host-in/out SVD (svdT) and the device one (svdOnDevice).
template <typename T>
bool gesvdpRedo(Solver solver, T sMax, T sMin) {
  return solver == Solver::Gesvdp && sMin <= sMax * std::sqrt(std::numeric_limits<T>::epsilon());
}

template <typename T>
void svdT(const T* a, T* u, T* s, T* vt, int64_t m, int64_t n, SvdMethod method) {
  if (m > INT32_MAX || n > INT32_MAX) throw std::runtime_error("cuda svd: dimension beyond 2^31");
  if (m == 0 || n == 0) return;  // p = 0: every output is empty
  // gesvdp is used for float64 only: on float32 rank-deficient matrices (rank 10 of 400 x 30) its
  // U S V^T missed A by 0.2 on the H100, and the sigma_min test below did not catch it (its noise
  // singular values are not small enough), so float32 takes Jacobi instead.
  if (sizeof(T) == 4 && method.solver == Solver::Gesvdp) method.solver = Solver::Gesvdj;
  ensureDevice();
  HandleLease h = cusolverHandle();
  const Cusolver* lib = cusolverLib();
  // The solvers want rows >= cols (column-major). Row-major A read as column-major is A^T (n x m):
  // a tall A is transposed into X = A, a wide one is used as it is, X = A^T.
  const bool tall = m >= n;
  const int64_t rows = tall ? m : n, cols = tall ? n : m;
  DeviceBuffer in(sizeof(T) * m * n), X(sizeof(T) * m * n), S(sizeof(T) * cols), U(sizeof(T) * rows * cols), V(sizeof(T) * cols * cols), info(2 * sizeof(int));
  check(cudaMemsetAsync(info.as<int>(), 0, info.bytes(), stream()), "memset info");
  uploadBig(in, a);
  if (tall) transpose(in.as<T>(), X.as<T>(), m, n);
  T* x = tall ? X.as<T>() : in.as<T>();
  factorSvd(h, method, x, rows, cols, S.as<T>(), U.as<T>(), V.as<T>(), info.as<int>());
  download(s, S, S.bytes());
  // Only float64 gets here with gesvdp (float32 never uses it, above).
  if (gesvdpRedo(method.solver, s[0], s[cols - 1])) {
    checkInfo(info, "cuSOLVER svd did not converge or failed");
    return svdT(a, u, s, vt, m, n, SvdMethod{method.qrFirst, Solver::Gesvdj});
  }
  if (tall) {
    // u: column-major U (m x n) to row-major; vt (n x n, row-major) is V column-major as it is.
    transpose(U.as<T>(), in.as<T>(), n, m);
    downloadBig(u, in.as<T>(), sizeof(T) * m * n);
    download(vt, V, V.bytes());
  } else {
    // A^T = U' S V'^T, so A = V' S U'^T: u (m x m, row-major) is V' transposed, vt (m x n,
    // row-major) is U' (n x m, column-major) as it is.
    DeviceBuffer vr(V.bytes());
    transpose(V.as<T>(), vr.as<T>(), m, m);
    download(u, vr, vr.bytes());
    downloadBig(vt, U.as<T>(), U.bytes());
  }
  checkInfo(info, "cuSOLVER svd did not converge or failed");
}

}  // namespace

void ensureDevice() {
  std::call_once(deviceOnce, initDevice);
  if (!deviceError.empty()) throw std::runtime_error(deviceError);
}

std::string unavailableReason() {
  std::call_once(deviceOnce, initDevice);
  return deviceError;
}

std::string describe() {
  if (!unavailableReason().empty()) return "";
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) return "";
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  return std::string(prop.name) + ", " + std::to_string(prop.multiProcessorCount) + " SMs, " +
         std::to_string(prop.totalGlobalMem >> 20) + " MiB, sm_" + std::to_string(prop.major) + std::to_string(prop.minor) +
         ", driver CUDA " + std::to_string(driver / 1000) + "." + std::to_string(driver % 1000 / 10) + ", runtime " +
         std::to_string(runtime / 1000) + "." + std::to_string(runtime % 1000 / 10);
}

std::string blasReason() {
  if (librariesWarming.load()) return "";
  return cublasLib() ? "" : cublasWhy;
}
std::string solverReason() {
  if (librariesWarming.load()) return "";
  return cusolverLib() ? "" : cusolverWhy;
}

void warmContext() {
  if (!unavailableReason().empty()) return;
  // cudaSetDevice makes the primary context on CUDA 12 and later; cudaFree(0) does on any.
  cudaFree(nullptr);
}

void beginWarmLibraries() {
  std::lock_guard<std::mutex> lock(handleMutex);
  librariesWarming.store(true);
  if (cublasPool.idle.empty()) cublasPool.warming = true;
  if (cusolverPool.idle.empty()) cusolverPool.warming = true;
}

// One gemm of each dtype asked (bit 0 float64, bit 1 float32) on zeroed 2048² operands once the
// handles are made: a fresh process's first gemm also pays loading cuBLAS's kernels (lazy module
// loading, which the driver serialises between the GPU workers' processes), and this puts that
// beside the graph's compile instead of on its first matmul task. Failures are left for the first
// real call to report.
static void warmGemms(int dtypes) {
  constexpr int64_t n = 2048;
  for (int dtype = 0; dtype < 2; dtype++) {
    if (!(dtypes & (1 << dtype))) continue;
    try {
      const size_t bytes = size_t(n * n) * (dtype == 0 ? 8 : 4);
      DeviceBuffer a(bytes), b(bytes), c(bytes);
      check(cudaMemsetAsync(a.as<void>(), 0, bytes, stream()), "warm gemm memset");
      check(cudaMemsetAsync(b.as<void>(), 0, bytes, stream()), "warm gemm memset");
      gemmDevice(dtype, a.as<void>(), b.as<void>(), c.as<void>(), false, n, n, n);
      sync();
    } catch (const std::exception&) {
    }
  }
}

void warmLibraries(int gemmDtypes) {
  if (unavailableReason().empty()) {
    warmHandle(cublasLib, cublasPool);
    warmHandle(cusolverLib, cusolverPool);
    warmGemms(gemmDtypes);
  } else {
    // No device, nothing to make: the leases waiting go on to fail with their own message.
    {
      std::lock_guard<std::mutex> lock(handleMutex);
      cublasPool.warming = cusolverPool.warming = false;
    }
    handleReturned.notify_all();
  }
  librariesWarming.store(false);
}

void matmul(int dtype, const void* a, const void* b, const void* c0, void* c, int64_t m, int64_t k, int64_t n) {
  if (dtype == 0) matmulT(static_cast<const double*>(a), static_cast<const double*>(b), static_cast<const double*>(c0), static_cast<double*>(c), m, k, n);
  else matmulT(static_cast<const float*>(a), static_cast<const float*>(b), static_cast<const float*>(c0), static_cast<float*>(c), m, k, n);
}
void gemmDevice(int dtype, const void* a, const void* b, void* c, bool accumulate, int64_t m, int64_t k, int64_t n) {
  if (m > INT32_MAX || n > INT32_MAX || k > INT32_MAX) throw std::runtime_error("cuda matmul: dimension beyond 2^31");
  ensureDevice();
  if (m == 0 || n == 0) return;
  HandleLease h = cublasHandle();
  // Row-major C = A B is column-major C^T = B^T A^T.
  if (dtype == 0) {
    const double one = 1, beta = accumulate ? 1 : 0;
    status(cublasLib()->dgemm(h, 0, 0, int(n), int(m), int(k), &one, static_cast<const double*>(b), int(n), static_cast<const double*>(a), int(k), &beta, static_cast<double*>(c), int(n)), "cublasDgemm");
  } else {
    const float one = 1, beta = accumulate ? 1 : 0;
    status(cublasLib()->sgemm(h, 0, 0, int(n), int(m), int(k), &one, static_cast<const float*>(b), int(n), static_cast<const float*>(a), int(k), &beta, static_cast<float*>(c), int(n)), "cublasSgemm");
  }
}
void sgemmBatchedDevice(bool transA, bool transB, const float* a, const float* b, float* c, int64_t batch, int64_t m, int64_t n, int64_t k, int64_t strideA, int64_t strideB) {
  if (m > INT32_MAX || n > INT32_MAX || k > INT32_MAX || batch > INT32_MAX) throw std::runtime_error("cuda batched matmul: dimension beyond 2^31");
  ensureDevice();
  HandleLease h = cublasHandle();
  // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: a row-major matrix read
  // column-major is its transpose, so B goes first with its own flag, then A.
  const float one = 1, zero = 0;
  const int lda = transA ? int(m) : int(k), ldb = transB ? int(k) : int(n);
  status(cublasLib()->sgemmStridedBatched(h, transB ? 1 : 0, transA ? 1 : 0, int(n), int(m), int(k), &one, b, ldb, strideB, a, lda, strideA, &zero, c, int(n), m * n, int(batch)),
         "cublasSgemmStridedBatched");
}
void qr(int dtype, const void* a, void* q, void* r, int64_t m, int64_t n) {
  if (dtype == 0) qrT(static_cast<const double*>(a), static_cast<double*>(q), static_cast<double*>(r), m, n);
  else qrT(static_cast<const float*>(a), static_cast<float*>(q), static_cast<float*>(r), m, n);
}
void svd(int dtype, const void* a, void* u, void* s, void* vt, int64_t m, int64_t n) {
  if (dtype == 0) svdT(static_cast<const double*>(a), static_cast<double*>(u), static_cast<double*>(s), static_cast<double*>(vt), m, n, svdMethod());
  else svdT(static_cast<const float*>(a), static_cast<float*>(u), static_cast<float*>(s), static_cast<float*>(vt), m, n, svdMethod());
}


// ---- QR / SVD of device-resident matrices (cuda_linalg_resident.h) ----
namespace {

// r (row-major n x n) = diag(d) triu(Rc), Rc column-major, d_i = -1 where Rc_ii < 0, else 1.
__global__ void signedRKernel(const double* rc, double* r, int64_t n) {
  const int64_t at = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (at >= n * n) return;
  const int64_t i = at / n, j = at % n;
  const double d = rc[i * n + i] < 0 ? -1.0 : 1.0;
  r[at] = j < i ? 0.0 : d * rc[j * n + i];
}

// Column i of Qc (column-major m x n) negated where Rc_ii < 0 (Q R unchanged).
__global__ void flipQKernel(double* qc, const double* rc, int64_t m, int64_t n) {
  const int64_t at = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (at >= m * n) return;
  const int64_t i = at / m;
  if (rc[i * n + i] < 0) qc[at] = -qc[at];
}

// d[k] = -1 when the largest-magnitude entry of row k of vt (n x n, row-major; the first of
// equal ones, as js fixSigns) is negative, else 1. One block of 256 threads per row.
__global__ void svdSignKernel(const double* vt, int64_t n, double* d) {
  __shared__ double best[256];
  __shared__ int64_t arg[256];
  const int64_t k = blockIdx.x;
  double b = 0;
  int64_t a = 0;
  for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
    const double x = fabs(vt[k * n + j]);
    if (x > b) {  // strided: a thread's j rise, so its first maximum is kept
      b = x;
      a = j;
    }
  }
  best[threadIdx.x] = b;
  arg[threadIdx.x] = a;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      const double ob = best[threadIdx.x + s];
      const int64_t oa = arg[threadIdx.x + s];
      if (ob > best[threadIdx.x] || (ob == best[threadIdx.x] && ob > 0 && oa < arg[threadIdx.x])) {
        best[threadIdx.x] = ob;
        arg[threadIdx.x] = oa;
      }
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) d[k] = vt[k * n + arg[0]] < 0 ? -1.0 : 1.0;
}

// Row-major x (rows x cols): column c times d[c] (colsScale) or row r times d[r] (rows).
__global__ void scaleColumnsKernel(double* x, int64_t rows, int64_t cols, const double* d) {
  const int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i < rows * cols) x[i] *= d[i % cols];
}
__global__ void scaleRowsKernel(double* x, int64_t rows, int64_t cols, const double* d) {
  const int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i < rows * cols) x[i] *= d[i / cols];
}

unsigned blocksFor(int64_t count) { return unsigned((count + 255) / 256); }

}  // namespace

void qrOnDevice(const double* a, double* q, double* r, int64_t m, int64_t n) {
  if (m > INT32_MAX || n > INT32_MAX || m < n) throw std::runtime_error("cuda qr: needs rows >= columns below 2^31");
  ensureDevice();
  if (n == 0) return;
  HandleLease h = cusolverHandle();
  const Cusolver* lib = cusolverLib();
  DeviceBuffer colMajor(sizeof(double) * m * n), tau(sizeof(double) * n), rc(sizeof(double) * n * n), info(sizeof(int));
  check(cudaMemsetAsync(info.as<int>(), 0, info.bytes(), stream()), "memset info");
  double* A = colMajor.as<double>();
  transpose(a, A, m, n);
  int lw1 = 0, lw2 = 0;
  status(lib->dgeqrfBuf(h, int(m), int(n), A, int(m), &lw1), "geqrf_bufferSize");
  status(lib->dorgqrBuf(h, int(m), int(n), int(n), A, int(m), tau.as<double>(), &lw2), "orgqr_bufferSize");
  DeviceBuffer work(sizeof(double) * std::max(1, std::max(lw1, lw2)));
  status(lib->dgeqrf(h, int(m), int(n), A, int(m), tau.as<double>(), work.as<double>(), lw1, info.as<int>()), "geqrf");
  upperKernel<double><<<dim3(blocksFor(n), unsigned(std::min<int64_t>(n, 65535))), 256, 0, stream()>>>(A, m, rc.as<double>(), n);
  launched("upper kernel");
  signedRKernel<<<blocksFor(n * n), 256, 0, stream()>>>(rc.as<double>(), r, n);
  launched("signed R kernel");
  status(lib->dorgqr(h, int(m), int(n), int(n), A, int(m), tau.as<double>(), work.as<double>(), lw2, info.as<int>()), "orgqr");
  flipQKernel<<<blocksFor(m * n), 256, 0, stream()>>>(A, rc.as<double>(), m, n);
  launched("flip Q kernel");
  transpose(A, q, n, m);  // column-major m x n is row-major n x m
  checkInfo(info, "cuSOLVER qr");
}

void svdOnDevice(const double* a, double* u, double* s, double* vt, int64_t m, int64_t n) {
  if (m > INT32_MAX || n > INT32_MAX || m < n) throw std::runtime_error("cuda svd: needs rows >= columns below 2^31");
  ensureDevice();
  if (n == 0) return;
  SvdMethod method = svdMethod();
  HandleLease h = cusolverHandle();
  DeviceBuffer X(sizeof(double) * m * n), U(sizeof(double) * m * n), d(sizeof(double) * n), info(2 * sizeof(int));
  for (;;) {
    check(cudaMemsetAsync(info.as<int>(), 0, info.bytes(), stream()), "memset info");
    transpose(a, X.as<double>(), m, n);
    // V column-major is V^T row-major: the solver writes it straight into vt.
    factorSvd(h, method, X.as<double>(), m, n, s, U.as<double>(), vt, info.as<int>());
    if (method.solver != Solver::Gesvdp) break;
    // As svdT: a numerically rank-deficient matrix is done again by Jacobi.
    double ends[2];
    check(cudaMemcpyAsync(&ends[0], s, sizeof(double), cudaMemcpyDeviceToHost, stream()), "copy s[0]");
    check(cudaMemcpyAsync(&ends[1], s + n - 1, sizeof(double), cudaMemcpyDeviceToHost, stream()), "copy s[n-1]");
    sync();
    if (!gesvdpRedo(method.solver, ends[0], ends[1])) break;
    checkInfo(info, "cuSOLVER svd did not converge or failed");
    method.solver = Solver::Gesvdj;
  }
  transpose(U.as<double>(), u, n, m);
  // The js sign rule, on the device.
  svdSignKernel<<<unsigned(n), 256, 0, stream()>>>(vt, n, d.as<double>());
  launched("svd sign kernel");
  scaleRowsKernel<<<blocksFor(n * n), 256, 0, stream()>>>(vt, n, n, d.as<double>());
  scaleColumnsKernel<<<blocksFor(m * n), 256, 0, stream()>>>(u, m, n, d.as<double>());
  launched("svd sign scale kernels");
  checkInfo(info, "cuSOLVER svd did not converge or failed");
}

}  // namespace cuda
}  // namespace gf

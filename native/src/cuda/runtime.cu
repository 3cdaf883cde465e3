// Device discovery, the memory pool, and the linear algebra that goes through NVIDIA's libraries:
// cuBLAS (matmul) and cuSOLVER (QR, SVD) are dlopen'ed at first use, with the few entry points
// declared here, so the addon builds without their headers and loads where they are absent.
#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <vector>

#include "../cuda_api.h"
#include "common.h"
#include "gemm_device.h"

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
const Cublas* cublasLib() {
  static Cublas lib;
  static bool ok = [] {
    void* h = openFirst("GPUFLOW_CUBLAS", {"libcublas.so.13", "libcublas.so.12", "libcublas.so"}, cublasWhy);
    if (!h) return false;
    return sym(h, "cublasCreate_v2", lib.create, cublasWhy) && sym(h, "cublasSetStream_v2", lib.setStream, cublasWhy) &&
           sym(h, "cublasDgemm_v2", lib.dgemm, cublasWhy) && sym(h, "cublasSgemm_v2", lib.sgemm, cublasWhy);
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
           sym(h, "cusolverDnDgesvd", lib.dgesvd, cusolverWhy) && sym(h, "cusolverDnSgesvd", lib.sgesvd, cusolverWhy);
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

// One handle per libuv thread, bound to that thread's stream.
Handle cublasHandle() {
  const Cublas* lib = cublasLib();
  if (!lib) throw std::runtime_error("cuBLAS unavailable: " + cublasWhy);
  thread_local Handle h = nullptr;
  if (!h) status(lib->create(&h), "cublasCreate");
  status(lib->setStream(h, stream()), "cublasSetStream");
  return h;
}
Handle cusolverHandle() {
  const Cusolver* lib = cusolverLib();
  if (!lib) throw std::runtime_error("cuSOLVER unavailable: " + cusolverWhy);
  thread_local Handle h = nullptr;
  if (!h) status(lib->create(&h), "cusolverDnCreate");
  status(lib->setStream(h, stream()), "cusolverDnSetStream");
  return h;
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

template <typename T>
void matmulT(const T* a, const T* b, const T* c0, T* c, int64_t m, int64_t k, int64_t n) {
  if (m > INT32_MAX || n > INT32_MAX || k > INT32_MAX) throw std::runtime_error("cuda matmul: dimension beyond 2^31");
  ensureDevice();
  Handle h = cublasHandle();
  DeviceBuffer da(sizeof(T) * m * k), db(sizeof(T) * k * n), dc(sizeof(T) * m * n);
  upload(da, a, da.bytes());
  upload(db, b, db.bytes());
  if (c0) upload(dc, c0, dc.bytes());
  const T one = 1, beta = c0 ? 1 : 0;
  // Row-major C = A B is column-major C^T = B^T A^T.
  if (m > 0 && n > 0) {
    if constexpr (sizeof(T) == 8) status(cublasLib()->dgemm(h, 0, 0, int(n), int(m), int(k), &one, db.as<T>(), int(n), da.as<T>(), int(k), &beta, dc.as<T>(), int(n)), "cublasDgemm");
    else status(cublasLib()->sgemm(h, 0, 0, int(n), int(m), int(k), &one, db.as<T>(), int(n), da.as<T>(), int(k), &beta, dc.as<T>(), int(n)), "cublasSgemm");
  }
  download(c, dc, dc.bytes());
  sync();
}

template <typename T>
void qrT(const T* a, T* q, T* r, int64_t m, int64_t n) {
  if (m > INT32_MAX || n > INT32_MAX) throw std::runtime_error("cuda qr: dimension beyond 2^31");
  ensureDevice();
  Handle h = cusolverHandle();
  const Cusolver* lib = cusolverLib();
  DeviceBuffer rowMajor(sizeof(T) * m * n), colMajor(sizeof(T) * m * n), tau(sizeof(T) * n), info(sizeof(int));
  upload(rowMajor, a, rowMajor.bytes());
  transpose(rowMajor.as<T>(), colMajor.as<T>(), m, n);
  int lw1 = 0, lw2 = 0;
  T* A = colMajor.as<T>();
  if constexpr (sizeof(T) == 8) {
    status(lib->dgeqrfBuf(h, int(m), int(n), A, int(m), &lw1), "geqrf_bufferSize");
    status(lib->dorgqrBuf(h, int(m), int(n), int(n), A, int(m), tau.as<T>(), &lw2), "orgqr_bufferSize");
  } else {
    status(lib->sgeqrfBuf(h, int(m), int(n), A, int(m), &lw1), "geqrf_bufferSize");
    status(lib->sorgqrBuf(h, int(m), int(n), int(n), A, int(m), tau.as<T>(), &lw2), "orgqr_bufferSize");
  }
  DeviceBuffer work(sizeof(T) * std::max(1, std::max(lw1, lw2)));
  if constexpr (sizeof(T) == 8) status(lib->dgeqrf(h, int(m), int(n), A, int(m), tau.as<T>(), work.as<T>(), lw1, info.as<int>()), "geqrf");
  else status(lib->sgeqrf(h, int(m), int(n), A, int(m), tau.as<T>(), work.as<T>(), lw1, info.as<int>()), "geqrf");
  // R: the upper triangle of the top n x n block (column-major), read back before orgqr overwrites it.
  std::vector<T> rc(static_cast<size_t>(n * n));
  check(cudaMemcpy2DAsync(rc.data(), sizeof(T) * n, A, sizeof(T) * m, sizeof(T) * n, n, cudaMemcpyDeviceToHost, stream()), "copy R");
  if constexpr (sizeof(T) == 8) status(lib->dorgqr(h, int(m), int(n), int(n), A, int(m), tau.as<T>(), work.as<T>(), lw2, info.as<int>()), "orgqr");
  else status(lib->sorgqr(h, int(m), int(n), int(n), A, int(m), tau.as<T>(), work.as<T>(), lw2, info.as<int>()), "orgqr");
  transpose(A, rowMajor.as<T>(), n, m);  // column-major m x n is row-major n x m
  download(q, rowMajor, rowMajor.bytes());
  int devInfo = 0;
  check(cudaMemcpyAsync(&devInfo, info.as<int>(), sizeof(int), cudaMemcpyDeviceToHost, stream()), "copy info");
  sync();
  if (devInfo != 0) throw std::runtime_error("cuSOLVER qr: info " + std::to_string(devInfo));
  // Same convention as native-cpu: diag(R) >= 0.
  for (int64_t i = 0; i < n; i++) {
    const bool flip = rc[i * n + i] < 0;
    for (int64_t j = 0; j < n; j++) r[i * n + j] = j < i ? T(0) : (flip ? -rc[j * n + i] : rc[j * n + i]);
    if (flip)
      for (int64_t row = 0; row < m; row++) q[row * n + i] = -q[row * n + i];
  }
}

template <typename T>
void svdT(const T* a, T* u, T* s, T* vt, int64_t m, int64_t n) {
  if (m > INT32_MAX || n > INT32_MAX) throw std::runtime_error("cuda svd: dimension beyond 2^31");
  ensureDevice();
  Handle h = cusolverHandle();
  const Cusolver* lib = cusolverLib();
  // gesvd wants rows >= cols (column-major). Row-major A read as column-major is A^T (n x m).
  const bool tall = m >= n;
  const int64_t rows = tall ? m : n, cols = tall ? n : m;
  DeviceBuffer in(sizeof(T) * m * n), A(sizeof(T) * m * n), S(sizeof(T) * cols), U(sizeof(T) * rows * cols), VT(sizeof(T) * cols * cols), info(sizeof(int));
  upload(in, a, in.bytes());
  if (tall) transpose(in.as<T>(), A.as<T>(), m, n);
  else check(cudaMemcpyAsync(A.as<T>(), in.as<T>(), in.bytes(), cudaMemcpyDeviceToDevice, stream()), "copy");
  int lwork = 0;
  if constexpr (sizeof(T) == 8) status(lib->dgesvdBuf(h, int(rows), int(cols), &lwork), "gesvd_bufferSize");
  else status(lib->sgesvdBuf(h, int(rows), int(cols), &lwork), "gesvd_bufferSize");
  DeviceBuffer work(sizeof(T) * std::max(1, lwork)), rwork(sizeof(T) * cols);
  if constexpr (sizeof(T) == 8)
    status(lib->dgesvd(h, 'S', 'S', int(rows), int(cols), A.as<T>(), int(rows), S.as<T>(), U.as<T>(), int(rows), VT.as<T>(), int(cols), work.as<T>(), lwork, rwork.as<T>(), info.as<int>()), "gesvd");
  else
    status(lib->sgesvd(h, 'S', 'S', int(rows), int(cols), A.as<T>(), int(rows), S.as<T>(), U.as<T>(), int(rows), VT.as<T>(), int(cols), work.as<T>(), lwork, rwork.as<T>(), info.as<int>()), "gesvd");
  download(s, S, S.bytes());
  if (tall) {
    // Column-major U (m x n) and VT (n x n) to row-major.
    transpose(U.as<T>(), in.as<T>(), n, m);
    download(u, in, sizeof(T) * m * n);
    DeviceBuffer vtr(VT.bytes());
    transpose(VT.as<T>(), vtr.as<T>(), n, n);
    download(vt, vtr, vtr.bytes());
    sync();
  } else {
    // A^T = U' S V'^T, so A = V' S U'^T: u is VT's buffer read row-major, vt is U's.
    download(u, VT, VT.bytes());
    download(vt, U, U.bytes());
  }
  int devInfo = 0;
  check(cudaMemcpyAsync(&devInfo, info.as<int>(), sizeof(int), cudaMemcpyDeviceToHost, stream()), "copy info");
  sync();
  if (devInfo != 0) throw std::runtime_error("cuSOLVER gesvd did not converge (info " + std::to_string(devInfo) + ")");
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

std::string blasReason() { return cublasLib() ? "" : cublasWhy; }
std::string solverReason() { return cusolverLib() ? "" : cusolverWhy; }

void matmul(int dtype, const void* a, const void* b, const void* c0, void* c, int64_t m, int64_t k, int64_t n) {
  if (dtype == 0) matmulT(static_cast<const double*>(a), static_cast<const double*>(b), static_cast<const double*>(c0), static_cast<double*>(c), m, k, n);
  else matmulT(static_cast<const float*>(a), static_cast<const float*>(b), static_cast<const float*>(c0), static_cast<float*>(c), m, k, n);
}
void gemmDevice(int dtype, const void* a, const void* b, void* c, bool accumulate, int64_t m, int64_t k, int64_t n) {
  if (m > INT32_MAX || n > INT32_MAX || k > INT32_MAX) throw std::runtime_error("cuda matmul: dimension beyond 2^31");
  ensureDevice();
  if (m == 0 || n == 0) return;
  Handle h = cublasHandle();
  // Row-major C = A B is column-major C^T = B^T A^T.
  if (dtype == 0) {
    const double one = 1, beta = accumulate ? 1 : 0;
    status(cublasLib()->dgemm(h, 0, 0, int(n), int(m), int(k), &one, static_cast<const double*>(b), int(n), static_cast<const double*>(a), int(k), &beta, static_cast<double*>(c), int(n)), "cublasDgemm");
  } else {
    const float one = 1, beta = accumulate ? 1 : 0;
    status(cublasLib()->sgemm(h, 0, 0, int(n), int(m), int(k), &one, static_cast<const float*>(b), int(n), static_cast<const float*>(a), int(k), &beta, static_cast<float*>(c), int(n)), "cublasSgemm");
  }
}
void qr(int dtype, const void* a, void* q, void* r, int64_t m, int64_t n) {
  if (dtype == 0) qrT(static_cast<const double*>(a), static_cast<double*>(q), static_cast<double*>(r), m, n);
  else qrT(static_cast<const float*>(a), static_cast<float*>(q), static_cast<float*>(r), m, n);
}
void svd(int dtype, const void* a, void* u, void* s, void* vt, int64_t m, int64_t n) {
  if (dtype == 0) svdT(static_cast<const double*>(a), static_cast<double*>(u), static_cast<double*>(s), static_cast<double*>(vt), m, n);
  else svdT(static_cast<const float*>(a), static_cast<float*>(u), static_cast<float*>(s), static_cast<float*>(vt), m, n);
}

}  // namespace cuda
}  // namespace gf

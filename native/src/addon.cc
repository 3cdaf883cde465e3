// The N-API boundary (typed for TypeScript in native/addon-types.ts, the dataframe exports in
// native/df.ts). Every argument is checked here with a
// TypeError or RangeError before any work is queued; the work itself runs in Napi::AsyncWorker
// (off the JS thread) and settles a promise. Output buffers are allocated by the JS caller, so no
// external ArrayBuffers are made (Electron's memory cage forbids them).
#include <napi.h>

#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "napi_job.h"
#include "cpu_program.h"
#include "cuda_api.h"
#include "device_lost_napi.h"
#include "linalg_cpu.h"
#include "pool.h"
#include "program.h"
#include "linalg_resident_napi.h"
#include "resident_napi.h"

namespace gf {
void registerDfExports(Napi::Env env, Napi::Object exports);  // df_addon.cc
void registerPhiloxFill(Napi::Env env, Napi::Object exports);  // philox_fill_napi.cc
void registerColumnMoments(Napi::Env env, Napi::Object exports);  // column_moments_napi.cc
}

namespace {

using gf::InputView;

[[noreturn]] void typeError(Napi::Env env, const std::string& msg) { throw Napi::TypeError::New(env, msg); }

Napi::TypedArray typedArg(const Napi::CallbackInfo& info, size_t i, const char* name) {
  if (i >= info.Length() || !info[i].IsTypedArray()) typeError(info.Env(), std::string(name) + " must be a typed array");
  return info[i].As<Napi::TypedArray>();
}

void expectType(Napi::Env env, const Napi::TypedArray& t, napi_typedarray_type want, const char* name, const char* what) {
  if (t.TypedArrayType() != want) typeError(env, std::string(name) + " must be a " + what);
}

int64_t intArg(const Napi::CallbackInfo& info, size_t i, const char* name, int64_t lo, int64_t hi) {
  if (i >= info.Length() || !info[i].IsNumber()) typeError(info.Env(), std::string(name) + " must be a number");
  const double v = info[i].As<Napi::Number>().DoubleValue();
  if (!(v >= lo && v <= hi) || static_cast<double>(static_cast<int64_t>(v)) != v)
    throw Napi::RangeError::New(info.Env(), std::string(name) + " must be an integer in [" + std::to_string(lo) + ", " +
                                                std::to_string(hi) + "], got " + std::to_string(v));
  return static_cast<int64_t>(v);
}

void* dataOf(const Napi::TypedArray& t) {
  return static_cast<uint8_t*>(t.ArrayBuffer().Data()) + t.ByteOffset();
}

// Float64Array -> dtype 0, Float32Array -> 1.
int floatDtype(Napi::Env env, const Napi::TypedArray& t, const char* name) {
  if (t.TypedArrayType() == napi_float64_array) return 0;
  if (t.TypedArrayType() == napi_float32_array) return 1;
  typeError(env, std::string(name) + " must be a Float64Array or Float32Array");
}

// Runs `work` on a libuv thread (napi_job.h); resolves with undefined or rejects with the
// exception's text, a lost device tagged. Holds references to the typed arrays so they outlive it.
Napi::Value queue(Napi::Env env, std::function<void()> work, const std::vector<Napi::Value>& keep) {
  return gf::queueDeviceJob(env, "gpuflow", std::move(work), nullptr, keep);
}

// Decodes (code, inputs, out) and checks the output buffer against the program.
struct ProgramArgs {
  gf::Program program;
  std::vector<InputView> inputs;
  void* out;
  std::vector<Napi::Value> keep;
};

ProgramArgs programArgs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ProgramArgs a;
  Napi::TypedArray code = typedArg(info, 0, "code");
  expectType(env, code, napi_float64_array, "code", "Float64Array");
  if (info.Length() < 2 || !info[1].IsArray()) typeError(env, "inputs must be an array of typed arrays");
  Napi::Array arr = info[1].As<Napi::Array>();
  for (uint32_t i = 0; i < arr.Length(); i++) {
    Napi::Value v = arr.Get(i);
    const std::string name = "inputs[" + std::to_string(i) + "]";
    if (!v.IsTypedArray()) typeError(env, name + " must be a Float64Array, Float32Array or Int32Array");
    Napi::TypedArray t = v.As<Napi::TypedArray>();
    int32_t type;
    switch (t.TypedArrayType()) {
      case napi_float64_array: type = gf::tF64; break;
      case napi_float32_array: type = gf::tF32; break;
      case napi_int32_array: type = gf::tI32; break;
      default: typeError(env, name + " must be a Float64Array, Float32Array or Int32Array");
    }
    a.inputs.push_back(InputView{dataOf(t), static_cast<int64_t>(t.ElementLength()), type});
    a.keep.push_back(v);
  }
  try {
    a.program = gf::decodeProgram(static_cast<const double*>(dataOf(code)), code.ElementLength(), a.inputs);
  } catch (const std::invalid_argument& e) {
    typeError(env, e.what());
  }
  Napi::TypedArray out = typedArg(info, 2, "out");
  const gf::Program& p = a.program;
  if (p.reduce == gf::rNone) {
    expectType(env, out, p.f32 ? napi_float32_array : napi_float64_array, "out", p.f32 ? "Float32Array" : "Float64Array");
    if (static_cast<int64_t>(out.ElementLength()) != p.n)
      throw Napi::RangeError::New(env, "out has " + std::to_string(out.ElementLength()) + " elements, the program makes " + std::to_string(p.n));
  } else {
    expectType(env, out, napi_float64_array, "out", "Float64Array (partial fields)");
    const int64_t want = gf::partialFields(p.reduce) * gf::partialSize(p);
    if (static_cast<int64_t>(out.ElementLength()) != want)
      throw Napi::RangeError::New(env, "out has " + std::to_string(out.ElementLength()) + " elements, the partial needs " + std::to_string(want));
  }
  a.out = dataOf(out);
  a.keep.push_back(code);
  a.keep.push_back(out);
  return a;
}

Napi::Value RunProgram(const Napi::CallbackInfo& info) {
  ProgramArgs a = programArgs(info);
  const int threads = static_cast<int>(intArg(info, 3, "threads", 1, 1024));
  auto shared = std::make_shared<ProgramArgs>(std::move(a));
  return queue(info.Env(), [shared, threads] {
    gf::runProgramCpu(gf::Pool::get(threads), shared->program, shared->inputs, shared->out);
  }, shared->keep);
}

Napi::Value CudaRunProgram(const Napi::CallbackInfo& info) {
  auto shared = std::make_shared<ProgramArgs>(programArgs(info));
  return queue(info.Env(), [shared] { gf::cuda::runProgram(shared->program, shared->inputs, shared->out); }, shared->keep);
}

// cudaBenchProgram(code, reps, result: Float64Array(1)) -> Promise<void>; result[0] = ms per launch.
Napi::Value CudaBenchProgram(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::TypedArray code = typedArg(info, 0, "code");
  expectType(env, code, napi_float64_array, "code", "Float64Array");
  gf::Program p;
  try {
    p = gf::decodeProgram(static_cast<const double*>(dataOf(code)), code.ElementLength(), {});
  } catch (const std::invalid_argument& e) {
    typeError(env, e.what());
  }
  const int reps = static_cast<int>(intArg(info, 1, "reps", 1, 100000));
  Napi::TypedArray result = typedArg(info, 2, "result");
  expectType(env, result, napi_float64_array, "result", "Float64Array");
  if (result.ElementLength() < 1) throw Napi::RangeError::New(env, "result must hold 1 element");
  double* r = static_cast<double*>(dataOf(result));
  return queue(env, [p, reps, r] { *r = gf::cuda::benchProgram(p, reps); }, {code, result});
}

// Checks a matrix argument: a typed array of `dtype` holding rows * cols elements.
void checkMatrix(Napi::Env env, const Napi::TypedArray& t, int dtype, int64_t rows, int64_t cols, const char* name) {
  if (floatDtype(env, t, name) != dtype) typeError(env, std::string(name) + " must have the same dtype as a");
  if (static_cast<int64_t>(t.ElementLength()) != rows * cols)
    throw Napi::RangeError::New(env, std::string(name) + " must hold " + std::to_string(rows) + " x " + std::to_string(cols) +
                                         " elements, has " + std::to_string(t.ElementLength()));
}

constexpr int64_t kMaxDim = int64_t(1) << 31;

// matmul(a, b, c0 | null, m, k, n, out[, threads]) -> Promise<void>
Napi::Value Matmul(const Napi::CallbackInfo& info, bool gpu) {
  Napi::Env env = info.Env();
  Napi::TypedArray a = typedArg(info, 0, "a"), b = typedArg(info, 1, "b");
  const int dtype = floatDtype(env, a, "a");
  const int64_t m = intArg(info, 3, "m", 0, kMaxDim), k = intArg(info, 4, "k", 0, kMaxDim), n = intArg(info, 5, "n", 0, kMaxDim);
  checkMatrix(env, a, dtype, m, k, "a");
  checkMatrix(env, b, dtype, k, n, "b");
  const void* c0 = nullptr;
  std::vector<Napi::Value> keep{a, b};
  if (!info[2].IsNull() && !info[2].IsUndefined()) {
    Napi::TypedArray t = typedArg(info, 2, "c0");
    checkMatrix(env, t, dtype, m, n, "c0");
    c0 = dataOf(t);
    keep.push_back(t);
  }
  Napi::TypedArray out = typedArg(info, 6, "out");
  checkMatrix(env, out, dtype, m, n, "out");
  keep.push_back(out);
  const void *pa = dataOf(a), *pb = dataOf(b);
  void* pc = dataOf(out);
  if (gpu) return queue(env, [=] { gf::cuda::matmul(dtype, pa, pb, c0, pc, m, k, n); }, keep);
  const int threads = static_cast<int>(intArg(info, 7, "threads", 1, 1024));
  return queue(env, [=] {
    gf::Pool& pool = gf::Pool::get(threads);
    if (dtype == 0) gf::matmulCpu(pool, static_cast<const double*>(pa), static_cast<const double*>(pb), static_cast<const double*>(c0), static_cast<double*>(pc), m, k, n);
    else gf::matmulCpu(pool, static_cast<const float*>(pa), static_cast<const float*>(pb), static_cast<const float*>(c0), static_cast<float*>(pc), m, k, n);
  }, keep);
}

// qr(a, m, n, q, r[, threads]) -> Promise<void>; m >= n.
Napi::Value Qr(const Napi::CallbackInfo& info, bool gpu) {
  Napi::Env env = info.Env();
  Napi::TypedArray a = typedArg(info, 0, "a");
  const int dtype = floatDtype(env, a, "a");
  const int64_t m = intArg(info, 1, "m", 1, kMaxDim), n = intArg(info, 2, "n", 1, kMaxDim);
  if (m < n) throw Napi::RangeError::New(env, "qr needs a tall-skinny block (m >= n), got " + std::to_string(m) + " x " + std::to_string(n));
  Napi::TypedArray q = typedArg(info, 3, "q"), r = typedArg(info, 4, "r");
  checkMatrix(env, a, dtype, m, n, "a");
  checkMatrix(env, q, dtype, m, n, "q");
  checkMatrix(env, r, dtype, n, n, "r");
  const void* pa = dataOf(a);
  void *pq = dataOf(q), *pr = dataOf(r);
  std::vector<Napi::Value> keep{a, q, r};
  if (gpu) return queue(env, [=] { gf::cuda::qr(dtype, pa, pq, pr, m, n); }, keep);
  const int threads = static_cast<int>(intArg(info, 5, "threads", 1, 1024));
  return queue(env, [=] {
    gf::Pool& pool = gf::Pool::get(threads);
    if (dtype == 0) gf::qrCpu(pool, static_cast<const double*>(pa), static_cast<double*>(pq), static_cast<double*>(pr), m, n);
    else gf::qrCpu(pool, static_cast<const float*>(pa), static_cast<float*>(pq), static_cast<float*>(pr), m, n);
  }, keep);
}

// svd(a, m, n, u, s, vt[, threads]) -> Promise<void>; u m x p, s p, vt p x n, p = min(m, n).
Napi::Value Svd(const Napi::CallbackInfo& info, bool gpu) {
  Napi::Env env = info.Env();
  Napi::TypedArray a = typedArg(info, 0, "a");
  const int dtype = floatDtype(env, a, "a");
  const int64_t m = intArg(info, 1, "m", 1, kMaxDim), n = intArg(info, 2, "n", 1, kMaxDim), p = std::min(m, n);
  Napi::TypedArray u = typedArg(info, 3, "u"), s = typedArg(info, 4, "s"), vt = typedArg(info, 5, "vt");
  checkMatrix(env, a, dtype, m, n, "a");
  checkMatrix(env, u, dtype, m, p, "u");
  checkMatrix(env, s, dtype, p, 1, "s");
  checkMatrix(env, vt, dtype, p, n, "vt");
  const void* pa = dataOf(a);
  void *pu = dataOf(u), *ps = dataOf(s), *pv = dataOf(vt);
  std::vector<Napi::Value> keep{a, u, s, vt};
  if (gpu) return queue(env, [=] { gf::cuda::svd(dtype, pa, pu, ps, pv, m, n); }, keep);
  const int threads = static_cast<int>(intArg(info, 6, "threads", 1, 1024));
  return queue(env, [=] {
    gf::Pool& pool = gf::Pool::get(threads);
    if (dtype == 0) gf::svdCpu(pool, static_cast<const double*>(pa), static_cast<double*>(pu), static_cast<double*>(ps), static_cast<double*>(pv), m, n);
    else gf::svdCpu(pool, static_cast<const float*>(pa), static_cast<float*>(pu), static_cast<float*>(ps), static_cast<float*>(pv), m, n);
  }, keep);
}

// {cuda, cudaReason?}: whether CUDA works here, and why not; cudaStatus() alone, info()'s start.
Napi::Object cudaStatusOf(Napi::Env env) {
  Napi::Object o = Napi::Object::New(env);
  const std::string cudaReason = gf::cuda::unavailableReason();
  o.Set("cuda", Napi::Boolean::New(env, cudaReason.empty()));
  if (!cudaReason.empty()) o.Set("cudaReason", cudaReason);
  return o;
}

Napi::Value Info(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object o = cudaStatusOf(env);
  if (gf::cuda::unavailableReason().empty()) {
    o.Set("device", gf::cuda::describe());
    const std::string b = gf::cuda::blasReason(), s = gf::cuda::solverReason();
    if (!b.empty()) o.Set("cublasReason", b);
    if (!s.empty()) o.Set("cusolverReason", s);
  }
  o.Set("blas", gf::blasName());
  // Program leaves may have negative coefficients (native/program-code.ts NativeFeatures).
  o.Set("negativeStrides", Napi::Boolean::New(env, true));
  o.Set("lapack", gf::lapackName());
  o.Set("blasCore", gf::blasCore());
  o.Set("hardwareThreads", Napi::Number::New(env, std::thread::hardware_concurrency()));
  return o;
}

// info()'s CUDA fields alone. The cuda backend asks this on the JS thread once the warm-up's
// context is made; info() also dlopens the CPU BLAS and LAPACK (OpenBLAS starts a thread per
// core), which a GPU worker's start then waited for.
Napi::Value CudaStatus(const Napi::CallbackInfo& info) { return cudaStatusOf(info.Env()); }

// The CUDA context and the cuBLAS / cuSOLVER handles, made on a libuv thread in two phases
// (gf::cuda::warmContext / warmLibraries), each resolving when made or found unavailable (at
// once in a CPU-only build): a GPU worker is ready once the context is made, and the cuBLAS /
// cuSOLVER handles follow in the background; a lease that needs one meanwhile waits for the
// warm-up's (beginWarmLibraries, here before queueing).
Napi::Value CudaWarmContext(const Napi::CallbackInfo& info) { return queue(info.Env(), [] { gf::cuda::warmContext(); }, {}); }
// cudaWarmLibraries(gemmDtypes?): bit 0 float64, bit 1 float32, a first gemm of each (none by default).
Napi::Value CudaWarmLibraries(const Napi::CallbackInfo& info) {
  const int gemms = info.Length() > 0 && info[0].IsNumber() ? info[0].As<Napi::Number>().Int32Value() & 3 : 0;
  gf::cuda::beginWarmLibraries();
  return queue(info.Env(), [gemms] { gf::cuda::warmLibraries(gemms); }, {});
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("info", Napi::Function::New(env, Info));
  exports.Set("runProgram", Napi::Function::New(env, RunProgram));
  exports.Set("matmul", Napi::Function::New(env, [](const Napi::CallbackInfo& i) { return Matmul(i, false); }));
  exports.Set("qr", Napi::Function::New(env, [](const Napi::CallbackInfo& i) { return Qr(i, false); }));
  exports.Set("svd", Napi::Function::New(env, [](const Napi::CallbackInfo& i) { return Svd(i, false); }));
  exports.Set("cudaRunProgram", Napi::Function::New(env, CudaRunProgram));
  exports.Set("cudaBenchProgram", Napi::Function::New(env, CudaBenchProgram));
  exports.Set("cudaMatmul", Napi::Function::New(env, [](const Napi::CallbackInfo& i) { return Matmul(i, true); }));
  exports.Set("cudaQr", Napi::Function::New(env, [](const Napi::CallbackInfo& i) { return Qr(i, true); }));
  exports.Set("cudaSvd", Napi::Function::New(env, [](const Napi::CallbackInfo& i) { return Svd(i, true); }));
  exports.Set("cudaWarmContext", Napi::Function::New(env, CudaWarmContext));
  exports.Set("cudaWarmLibraries", Napi::Function::New(env, CudaWarmLibraries));
  exports.Set("cudaStatus", Napi::Function::New(env, CudaStatus));
  gf::registerResident(env, exports);
  gf::registerTf(env, exports);
  gf::registerLinalgResident(env, exports);
  gf::registerDfExports(env, exports);
  gf::registerPhiloxFill(env, exports);
  gf::registerColumnMoments(env, exports);
  return exports;
}

}  // namespace

NODE_API_MODULE(gpuflow, Init)

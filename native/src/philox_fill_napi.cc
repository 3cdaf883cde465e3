// The N-API exports of the strided stream fill (philox_fill.h), registered by addon.cc:
//
//   philoxFill(seed, normal, a, b, start, rows, cols, stride, out, outStride, threads[, rowMap])
//     out[r * outStride + c] = element start + r * stride + c of the float64 stream
//     (out a Float64Array, or a Float32Array taking each value rounded once); with rowMap (an
//     Int32Array of rows entries) block row r is written to out row rowMap[r]
//   philoxFillAsync(the same arguments) -> Promise<void>
//     the same fill on a libuv thread (napi_job.h), so the JS thread goes on meanwhile
//   jsMath(x, log, sin, cos)   the fill's log / sin / cos of each x (js_math.h), for tests
//   jsBoxMuller(u1, u2, c, s)  the fill's r cos t, r sin t of given uniforms, 16 at a time through
//                              its vector step (philox_fill_simd.h) where the CPU has one, for tests
//
// The work is spread over the pool of `threads` threads, the calling thread included. The sync
// form blocks its JS thread for the whole fill (0.4 s for 60 000 x 784 normals on 2 cores), and a
// worker answers no message meanwhile: heartbeats, cancels, other trials' results. Workers take the
// async form; the sync one stays for callers with nothing else to do (benches, tests). Both check
// their arguments on the JS thread, before any work, with the same errors.
#include <napi.h>

#include <string>
#include <vector>

#include "cpu_simd.h"
#include "js_math.h"
#include "napi_args.h"
#include "napi_job.h"
#include "philox_fill.h"
#include "philox_fill_simd.h"

namespace gf {
namespace {

constexpr int64_t kMaxIndex = (int64_t(1) << 53) - 1;  // flat indices and seeds: exact in a double

double numberArg(const Napi::CallbackInfo& info, size_t i, const char* name) {
  if (i >= info.Length() || !info[i].IsNumber()) throw Napi::TypeError::New(info.Env(), std::string(name) + " must be a number");
  return info[i].As<Napi::Number>().DoubleValue();
}

Napi::TypedArray floatArray(const Napi::CallbackInfo& info, size_t i, const char* name) {
  if (i < info.Length() && info[i].IsTypedArray()) {
    Napi::TypedArray t = info[i].As<Napi::TypedArray>();
    if (t.TypedArrayType() == napi_float64_array || t.TypedArrayType() == napi_float32_array) return t;
  }
  throw Napi::TypeError::New(info.Env(), std::string(name) + " must be a Float64Array or Float32Array");
}

// A non-negative 128-bit count in decimal (std::to_string has no __int128).
std::string decimal(__int128 v) {
  std::string out;
  do {
    out.insert(out.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  } while (v > 0);
  return out;
}

void* dataOf(const Napi::TypedArray& t) { return static_cast<uint8_t*>(t.ArrayBuffer().Data()) + t.ByteOffset(); }

// A checked fill: what to write, through which pointer, on which pool (plain values, so the
// async form's work can copy it to a libuv thread). `pool` null: nothing to write.
struct FillWork {
  StreamFill f;
  void* data;
  bool f64;
  int64_t outStride;
  Pool* pool;
  const int32_t* rowMap;
  void run() const {
    if (!pool) return;
    if (f64) fillStream(*pool, f, static_cast<double*>(data), outStride, rowMap);
    else fillStream(*pool, f, static_cast<float*>(data), outStride, rowMap);
  }
};

constexpr size_t kOutArg = 8;
constexpr size_t kRowMapArg = 11;

bool hasRowMap(const Napi::CallbackInfo& info) { return info.Length() > kRowMapArg && !info[kRowMapArg].IsUndefined(); }

// The optional row map: rows entries, each an out row the block's cols fit in (out's rows).
const int32_t* rowMapArg(const Napi::CallbackInfo& info, int64_t rows, int64_t cols, int64_t outStride, size_t outLength) {
  Napi::Env env = info.Env();
  if (!hasRowMap(info)) return nullptr;
  if (!info[kRowMapArg].IsTypedArray() || info[kRowMapArg].As<Napi::TypedArray>().TypedArrayType() != napi_int32_array)
    throw Napi::TypeError::New(env, "rowMap must be an Int32Array");
  Napi::TypedArray m = info[kRowMapArg].As<Napi::TypedArray>();
  if (static_cast<int64_t>(m.ElementLength()) < rows)
    throw Napi::RangeError::New(env, "rowMap holds " + std::to_string(m.ElementLength()) + " rows; the block has " + std::to_string(rows));
  const int32_t* map = static_cast<const int32_t*>(dataOf(m));
  for (int64_t r = 0; r < rows; r++) {
    if (map[r] < 0 || __int128(map[r]) * outStride + cols > static_cast<__int128>(outLength))
      throw Napi::RangeError::New(env, "rowMap[" + std::to_string(r) + "] = " + std::to_string(map[r]) + " is not a row of out (" + std::to_string(outLength) +
                                           " elements, " + std::to_string(cols) + " at outStride " + std::to_string(outStride) + ")");
  }
  return map;
}

FillWork fillArgs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const int64_t seed = intArg(info, 0, "seed", 0, kMaxIndex);
  if (info.Length() < 2 || !info[1].IsBoolean()) throw Napi::TypeError::New(env, "normal must be a boolean");
  StreamFill f{static_cast<uint32_t>(seed & 0xffffffff), static_cast<uint32_t>(seed >> 32), info[1].As<Napi::Boolean>().Value(),
               numberArg(info, 2, "a"), numberArg(info, 3, "b"), intArg(info, 4, "start", 0, kMaxIndex),
               intArg(info, 5, "rows", 0, kMaxIndex), intArg(info, 6, "cols", 0, kMaxIndex), intArg(info, 7, "stride", 0, kMaxIndex)};
  Napi::TypedArray out = floatArray(info, kOutArg, "out");
  const int64_t outStride = intArg(info, 9, "outStride", 0, kMaxIndex);
  const int threads = static_cast<int>(intArg(info, 10, "threads", 1, 1024));
  const bool f64 = out.TypedArrayType() == napi_float64_array;
  if (f.rows == 0 || f.cols == 0) return FillWork{f, nullptr, f64, outStride, nullptr, nullptr};
  // 128-bit products: rows and strides below 2^53 each cannot overflow them.
  const __int128 last = __int128(f.start) + __int128(f.rows - 1) * f.stride + (f.cols - 1);
  if (last > kMaxIndex) throw Napi::RangeError::New(env, "the block's last element " + decimal(last) + " is past the stream's 2^53 - 1");
  if (f.rows > 1 && outStride < f.cols) throw Napi::RangeError::New(env, "outStride (" + std::to_string(outStride) + ") must be >= cols (" + std::to_string(f.cols) + "): rows would overlap");
  const int32_t* rowMap = rowMapArg(info, f.rows, f.cols, outStride, out.ElementLength());
  const __int128 need = __int128(f.rows - 1) * outStride + f.cols;
  if (!rowMap && need > static_cast<__int128>(out.ElementLength()))
    throw Napi::RangeError::New(env, "out holds " + std::to_string(out.ElementLength()) + " elements; " + std::to_string(f.rows) + " rows of " +
                                         std::to_string(f.cols) + " at outStride " + std::to_string(outStride) + " need " + decimal(need));
  return FillWork{f, dataOf(out), f64, outStride, &Pool::get(threads), rowMap};
}

Napi::Value PhiloxFill(const Napi::CallbackInfo& info) {
  fillArgs(info).run();
  return info.Env().Undefined();
}

// The fill off the JS thread: the job keeps `out` referenced until it settles; the pointer the
// work writes through is taken on the JS thread, so the caller must not detach or transfer out's
// buffer before the promise settles (a worker's data set buffers are its own).
Napi::Value PhiloxFillAsync(const Napi::CallbackInfo& info) {
  const FillWork work = fillArgs(info);
  std::vector<Napi::Value> keep{info[kOutArg]};
  if (hasRowMap(info)) keep.push_back(info[kRowMapArg]);
  return queueDeviceJob(info.Env(), "gpuflow.philoxFill", [work] { work.run(); }, nullptr, keep);
}

Napi::TypedArray float64Arg(const Napi::CallbackInfo& info, size_t i, const char* name, size_t length) {
  if (i >= info.Length() || !info[i].IsTypedArray() || info[i].As<Napi::TypedArray>().TypedArrayType() != napi_float64_array)
    throw Napi::TypeError::New(info.Env(), std::string(name) + " must be a Float64Array");
  Napi::TypedArray t = info[i].As<Napi::TypedArray>();
  if (t.ElementLength() < length) throw Napi::RangeError::New(info.Env(), std::string(name) + " must hold at least " + std::to_string(length) + " elements");
  return t;
}

Napi::Value JsMath(const Napi::CallbackInfo& info) {
  Napi::TypedArray x = float64Arg(info, 0, "x", 0);
  const size_t n = x.ElementLength();
  const double* xs = static_cast<const double*>(dataOf(x));
  double* lg = static_cast<double*>(dataOf(float64Arg(info, 1, "log", n)));
  double* sn = static_cast<double*>(dataOf(float64Arg(info, 2, "sin", n)));
  double* cs = static_cast<double*>(dataOf(float64Arg(info, 3, "cos", n)));
  for (size_t i = 0; i < n; i++) {
    lg[i] = jsLog(xs[i]);
    jsSinCos(xs[i], sn[i], cs[i]);
  }
  return info.Env().Undefined();
}

Napi::Value JsBoxMuller(const Napi::CallbackInfo& info) {
  Napi::TypedArray u1 = float64Arg(info, 0, "u1", 0);
  const size_t n = u1.ElementLength();
  const double* a = static_cast<const double*>(dataOf(u1));
  const double* b = static_cast<const double*>(dataOf(float64Arg(info, 1, "u2", n)));
  double* c = static_cast<double*>(dataOf(float64Arg(info, 2, "c", n)));
  double* s = static_cast<double*>(dataOf(float64Arg(info, 3, "s", n)));
  const int simd = cpuSimdLevel();
  size_t i = 0;
  for (; i + kSimdPairs <= n && boxMullerSimd(simd, a + i, b + i, c + i, s + i); i += kSimdPairs) {
  }
  for (; i < n; i++) boxMullerPair(a[i], b[i], c[i], s[i]);  // the tail, or all without the vector step
  return info.Env().Undefined();
}

}  // namespace

void registerPhiloxFill(Napi::Env env, Napi::Object exports) {
  exports.Set("philoxFill", Napi::Function::New(env, PhiloxFill));
  exports.Set("philoxFillAsync", Napi::Function::New(env, PhiloxFillAsync));
  // Builds before the row map ignore a 12th argument (their rows would land in block order), so
  // callers pass rowMap only where this says the fill reads it (native/philox-fill.ts).
  exports.Set("philoxFillRowMap", Napi::Boolean::New(env, true));
  exports.Set("jsMath", Napi::Function::New(env, JsMath));
  exports.Set("jsBoxMuller", Napi::Function::New(env, JsBoxMuller));
}

}  // namespace gf

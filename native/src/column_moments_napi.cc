// The N-API export of column_moments.h, registered by addon.cc:
//
//   columnMoments(x, rows, cols, mean, sq, threads)
//     x a Float32Array of rows x cols (row-major); mean and sq Float64Arrays of cols entries
//     written with each column's mean and sum of squared deviations (scaling.ts's fit)
//   scaleColumns(x, rows, cols, mean, sd, out, threads)
//     out (a Float32Array of rows x cols) = (x - mean) / sd per column, in double, rounded once
//
// Synchronous: 48 000 x 784 (the MNIST-shaped example's training rows) is two reads of 150 MB,
// milliseconds over a pool of the host's cores.
#include <napi.h>

#include <string>

#include "column_moments.h"
#include "napi_args.h"

namespace gf {
namespace {

constexpr int64_t kMaxIndex = (int64_t(1) << 53) - 1;

Napi::TypedArray typedArg(const Napi::CallbackInfo& info, size_t i, const char* name, napi_typedarray_type type, const char* typeName, int64_t length) {
  if (i >= info.Length() || !info[i].IsTypedArray() || info[i].As<Napi::TypedArray>().TypedArrayType() != type)
    throw Napi::TypeError::New(info.Env(), std::string(name) + " must be a " + typeName);
  Napi::TypedArray t = info[i].As<Napi::TypedArray>();
  if (static_cast<int64_t>(t.ElementLength()) != length)
    throw Napi::RangeError::New(info.Env(), std::string(name) + " holds " + std::to_string(t.ElementLength()) + " elements; expected " + std::to_string(length));
  return t;
}

void* dataOf(const Napi::TypedArray& t) { return static_cast<uint8_t*>(t.ArrayBuffer().Data()) + t.ByteOffset(); }

Napi::Value ColumnMoments(const Napi::CallbackInfo& info) {
  const int64_t rows = intArg(info, 1, "rows", 1, kMaxIndex);
  const int64_t cols = intArg(info, 2, "cols", 1, kMaxIndex);
  if (__int128(rows) * cols > kMaxIndex) throw Napi::RangeError::New(info.Env(), "rows x cols is past 2^53 - 1");
  Napi::TypedArray x = typedArg(info, 0, "x", napi_float32_array, "Float32Array", rows * cols);
  Napi::TypedArray mean = typedArg(info, 3, "mean", napi_float64_array, "Float64Array", cols);
  Napi::TypedArray sq = typedArg(info, 4, "sq", napi_float64_array, "Float64Array", cols);
  const int threads = static_cast<int>(intArg(info, 5, "threads", 1, 1024));
  columnMoments(Pool::get(threads), static_cast<const float*>(dataOf(x)), rows, cols, static_cast<double*>(dataOf(mean)), static_cast<double*>(dataOf(sq)));
  return info.Env().Undefined();
}

Napi::Value ScaleColumns(const Napi::CallbackInfo& info) {
  const int64_t rows = intArg(info, 1, "rows", 0, kMaxIndex);
  const int64_t cols = intArg(info, 2, "cols", 1, kMaxIndex);
  if (__int128(rows) * cols > kMaxIndex) throw Napi::RangeError::New(info.Env(), "rows x cols is past 2^53 - 1");
  Napi::TypedArray x = typedArg(info, 0, "x", napi_float32_array, "Float32Array", rows * cols);
  Napi::TypedArray mean = typedArg(info, 3, "mean", napi_float64_array, "Float64Array", cols);
  Napi::TypedArray sd = typedArg(info, 4, "sd", napi_float64_array, "Float64Array", cols);
  Napi::TypedArray out = typedArg(info, 5, "out", napi_float32_array, "Float32Array", rows * cols);
  const int threads = static_cast<int>(intArg(info, 6, "threads", 1, 1024));
  scaleColumns(Pool::get(threads), static_cast<const float*>(dataOf(x)), rows, cols, static_cast<const double*>(dataOf(mean)), static_cast<const double*>(dataOf(sd)),
               static_cast<float*>(dataOf(out)));
  return info.Env().Undefined();
}

}  // namespace

void registerColumnMoments(Napi::Env env, Napi::Object exports) {
  exports.Set("columnMoments", Napi::Function::New(env, ColumnMoments));
  exports.Set("scaleColumns", Napi::Function::New(env, ScaleColumns));
}

}  // namespace gf

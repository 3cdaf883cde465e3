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

// The arguments both calls open with: x (a Float32Array of rows x cols), rows, cols, mean and a
// second Float64Array of cols (the moments' sq, the scaling's sd).
struct Columns {
  int64_t rows, cols;
  float* x;
  double* mean;
  double* second;
};

Columns columnsArgs(const Napi::CallbackInfo& info, int64_t minRows, const char* second) {
  const int64_t rows = intArg(info, 1, "rows", minRows, kMaxIndex);
  const int64_t cols = intArg(info, 2, "cols", 1, kMaxIndex);
  if (__int128(rows) * cols > kMaxIndex) throw Napi::RangeError::New(info.Env(), "rows x cols is past 2^53 - 1");
  return {rows, cols, static_cast<float*>(dataOf(typedArg(info, 0, "x", napi_float32_array, "Float32Array", rows * cols))),
          static_cast<double*>(dataOf(typedArg(info, 3, "mean", napi_float64_array, "Float64Array", cols))),
          static_cast<double*>(dataOf(typedArg(info, 4, second, napi_float64_array, "Float64Array", cols)))};
}

Pool& poolArg(const Napi::CallbackInfo& info, size_t i) { return Pool::get(static_cast<int>(intArg(info, i, "threads", 1, 1024))); }

Napi::Value ColumnMoments(const Napi::CallbackInfo& info) {
  const Columns c = columnsArgs(info, 1, "sq");
  columnMoments(poolArg(info, 5), c.x, c.rows, c.cols, c.mean, c.second);
  return info.Env().Undefined();
}

Napi::Value ScaleColumns(const Napi::CallbackInfo& info) {
  const Columns c = columnsArgs(info, 0, "sd");
  float* out = static_cast<float*>(dataOf(typedArg(info, 5, "out", napi_float32_array, "Float32Array", c.rows * c.cols)));
  scaleColumns(poolArg(info, 6), c.x, c.rows, c.cols, c.mean, c.second, out);
  return info.Env().Undefined();
}

}  // namespace

void registerColumnMoments(Napi::Env env, Napi::Object exports) {
  exports.Set("columnMoments", Napi::Function::New(env, ColumnMoments));
  exports.Set("scaleColumns", Napi::Function::New(env, ScaleColumns));
}

}  // namespace gf

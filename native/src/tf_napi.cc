// The N-API side of the tfjs backend's kernels (cuda_tf.h). Unlike the resident exports these
// calls are synchronous: tfjs runs a kernel on the JS thread and wants its output's handle back at
// once, so each call only queues work on this thread's stream (a microsecond or so) and returns;
// tfRead waits for the device.
//
//   tfAlloc(elems, dtype: 0 float32 | 1 int32) -> id      (free with cudaResidentFree)
//   tfWrite(id, src: Float32Array | Int32Array)            tfRead(id, dst: Float32Array | Int32Array)
//   tfRun(op, args: Float64Array)                          tfSync()
#include <napi.h>

#include <stdexcept>
#include <string>

#include "cuda_api.h"
#include "cuda_tf.h"
#include "device_lost_napi.h"
#include "napi_args.h"
#include "program.h"

namespace gf {
namespace {

// A CUDA failure thrown as a JS error (a lost device tagged as the queued calls tag it).
template <typename F>
void guarded(Napi::Env env, F f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    throw Napi::RangeError::New(env, e.what());
  } catch (const cuda::DeviceLostError& e) {
    Napi::Error err = Napi::Error::New(env, e.what());
    tagDeviceLost(env, err.Value(), e.cudaName());
    throw err;
  } catch (const std::exception& e) {
    throw Napi::Error::New(env, e.what());
  }
}

Napi::TypedArray fourByteArray(const Napi::CallbackInfo& info, size_t i, const char* name) {
  if (info.Length() <= i || !info[i].IsTypedArray()) throw Napi::TypeError::New(info.Env(), std::string(name) + " must be a Float32Array or Int32Array");
  Napi::TypedArray t = info[i].As<Napi::TypedArray>();
  if (t.TypedArrayType() != napi_float32_array && t.TypedArrayType() != napi_int32_array)
    throw Napi::TypeError::New(info.Env(), std::string(name) + " must be a Float32Array or Int32Array");
  return t;
}
void* dataOf(const Napi::TypedArray& t) { return static_cast<uint8_t*>(t.ArrayBuffer().Data()) + t.ByteOffset(); }

Napi::Value Alloc(const Napi::CallbackInfo& info) {
  const int64_t n = intArg(info, 0, "elems", 0, int64_t(1) << 40);
  const int64_t dtype = intArg(info, 1, "dtype", 0, 1);
  int64_t id = 0;
  guarded(info.Env(), [&] { id = cuda::tfAlloc(n, dtype == 0 ? tF32 : tI32); });
  return Napi::Number::New(info.Env(), static_cast<double>(id));
}

Napi::Value Write(const Napi::CallbackInfo& info) {
  const int64_t id = intArg(info, 0, "id", 1, kMaxBlockId);
  Napi::TypedArray t = fourByteArray(info, 1, "src");
  guarded(info.Env(), [&] { cuda::tfWrite(id, dataOf(t), t.ByteLength()); });
  return info.Env().Undefined();
}

Napi::Value Read(const Napi::CallbackInfo& info) {
  const int64_t id = intArg(info, 0, "id", 1, kMaxBlockId);
  Napi::TypedArray t = fourByteArray(info, 1, "dst");
  guarded(info.Env(), [&] { cuda::tfRead(id, dataOf(t), t.ByteLength()); });
  return info.Env().Undefined();
}

Napi::Value Run(const Napi::CallbackInfo& info) {
  const int64_t op = intArg(info, 0, "op", 1, 64);
  if (info.Length() < 2 || !info[1].IsTypedArray() || info[1].As<Napi::TypedArray>().TypedArrayType() != napi_float64_array)
    throw Napi::TypeError::New(info.Env(), "args must be a Float64Array");
  Napi::TypedArray t = info[1].As<Napi::TypedArray>();
  guarded(info.Env(), [&] { cuda::tfRun(int(op), static_cast<const double*>(dataOf(t)), t.ElementLength()); });
  return info.Env().Undefined();
}

Napi::Value Sync(const Napi::CallbackInfo& info) {
  guarded(info.Env(), [] { cuda::tfSync(); });
  return info.Env().Undefined();
}

}  // namespace

void registerTf(Napi::Env env, Napi::Object exports) {
  exports.Set("tfAlloc", Napi::Function::New(env, Alloc));
  exports.Set("tfWrite", Napi::Function::New(env, Write));
  exports.Set("tfRead", Napi::Function::New(env, Read));
  exports.Set("tfRun", Napi::Function::New(env, Run));
  exports.Set("tfSync", Napi::Function::New(env, Sync));
}

}  // namespace gf

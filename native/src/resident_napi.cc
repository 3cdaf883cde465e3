// The N-API boundary of device-resident chunks (cuda_resident.h): blocks are named by the ids
// these calls return. Arguments are checked here (TypeError / RangeError) before any work is
// queued; the work runs in an AsyncWorker whose promise resolves with an id (or a count).
//
//   cudaResidentUpload(src: typed array) -> Promise<id>
//   cudaResidentDownload(id, dst: typed array of the block's bytes) -> Promise<void>
//   cudaResidentFree(id) -> boolean (false: unknown id)
//   cudaResidentRunProgram(code, inputs: (typed array | id)[], out: Float64Array | null) -> Promise<id | -1>
//   cudaResidentMatmul(a: id, b: id, c0: id | null, m, k, n) -> Promise<id>
//   cudaResidentStats() -> { blocks, bytes, pinnedBytes }
#include "resident_napi.h"

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda_api.h"
#include "cuda_resident.h"
#include "device_lost_napi.h"
#include "napi_args.h"
#include "napi_job.h"
#include "program.h"

namespace gf {
namespace {

using cuda::BlockRef;

[[noreturn]] void typeError(Napi::Env env, const std::string& msg) { throw Napi::TypeError::New(env, msg); }

void* dataOf(const Napi::TypedArray& t) { return static_cast<uint8_t*>(t.ArrayBuffer().Data()) + t.ByteOffset(); }

int32_t elementType(Napi::Env env, const Napi::TypedArray& t, const std::string& name) {
  switch (t.TypedArrayType()) {
    case napi_float64_array: return tF64;
    case napi_float32_array: return tF32;
    case napi_int32_array: return tI32;
    default: typeError(env, name + " must be a Float64Array, Float32Array or Int32Array");
  }
}



// Runs `work` off the JS thread (napi_job.h); resolves with the number it returns.
Napi::Value queue(Napi::Env env, std::function<int64_t()> work, const std::vector<Napi::Value>& keep, std::vector<BlockRef> blocks = {}) {
  auto result = std::make_shared<int64_t>(0);
  return queueDeviceJob(
      env, "gpuflow-resident", [result, work = std::move(work)] { *result = work(); },
      [result](Napi::Env e) { return Napi::Value(Napi::Number::New(e, static_cast<double>(*result))); }, keep, std::move(blocks));
}

Napi::Value Upload(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsTypedArray()) typeError(env, "src must be a typed array");
  Napi::TypedArray t = info[0].As<Napi::TypedArray>();
  const int32_t type = elementType(env, t, "src");
  const void* src = dataOf(t);
  const size_t bytes = t.ByteLength();
  return queue(env, [=] { return cuda::residentUpload(src, bytes, type); }, {t});
}

Napi::Value Download(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  BlockRef b = blockOf(env, intArg(info, 0, "id", 1, kMaxBlockId), "cudaResidentDownload");
  if (info.Length() < 2 || !info[1].IsTypedArray()) typeError(env, "dst must be a typed array");
  Napi::TypedArray t = info[1].As<Napi::TypedArray>();
  if (elementType(env, t, "dst") != b->type) typeError(env, "dst's element type differs from the device buffer's");
  if (t.ByteLength() != b->bytes)
    throw Napi::RangeError::New(env, "dst has " + std::to_string(t.ByteLength()) + " bytes, the device buffer " + std::to_string(b->bytes));
  void* dst = dataOf(t);
  const cuda::DeviceBlock* raw = b.get();
  return queue(env, [=] { cuda::residentDownload(*raw, dst); return int64_t(0); }, {t}, {b});
}

Napi::Value Free(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), cuda::residentFree(intArg(info, 0, "id", 1, kMaxBlockId)));
}

Napi::Value RunProgram(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsTypedArray() || info[0].As<Napi::TypedArray>().TypedArrayType() != napi_float64_array)
    typeError(env, "code must be a Float64Array");
  Napi::TypedArray code = info[0].As<Napi::TypedArray>();
  if (info.Length() < 2 || !info[1].IsArray()) typeError(env, "inputs must be an array of typed arrays and device buffer ids");
  Napi::Array arr = info[1].As<Napi::Array>();
  std::vector<InputView> inputs;
  std::vector<char> onDevice;
  std::vector<BlockRef> blocks;
  std::vector<Napi::Value> keep{code};
  for (uint32_t i = 0; i < arr.Length(); i++) {
    Napi::Value v = arr.Get(i);
    const std::string name = "inputs[" + std::to_string(i) + "]";
    if (v.IsNumber()) {
      const double d = v.As<Napi::Number>().DoubleValue();
      if (!(d >= 1 && d <= static_cast<double>(kMaxBlockId)) || static_cast<double>(static_cast<int64_t>(d)) != d)
        throw Napi::RangeError::New(env, name + " must be a device buffer id (a positive integer)");
      BlockRef b = blockOf(env, static_cast<int64_t>(d), name);
      inputs.push_back(InputView{b->ptr, static_cast<int64_t>(b->bytes / (b->type == tF64 ? 8 : 4)), b->type});
      onDevice.push_back(1);
      blocks.push_back(std::move(b));
    } else if (v.IsTypedArray()) {
      Napi::TypedArray t = v.As<Napi::TypedArray>();
      inputs.push_back(InputView{dataOf(t), static_cast<int64_t>(t.ElementLength()), elementType(env, t, name)});
      onDevice.push_back(0);
      keep.push_back(v);
    } else {
      typeError(env, name + " must be a typed array or a device buffer id");
    }
  }
  Program p;
  try {
    p = decodeProgram(static_cast<const double*>(dataOf(code)), code.ElementLength(), inputs);
  } catch (const std::invalid_argument& e) {
    typeError(env, e.what());
  }
  void* out = nullptr;
  if (p.reduce == rNone) {
    if (info.Length() >= 3 && !info[2].IsNull() && !info[2].IsUndefined()) typeError(env, "out must be null: the program's output stays on the device");
  } else {
    if (info.Length() < 3 || !info[2].IsTypedArray() || info[2].As<Napi::TypedArray>().TypedArrayType() != napi_float64_array)
      typeError(env, "out must be a Float64Array (partial fields) for a program with a reduction");
    Napi::TypedArray o = info[2].As<Napi::TypedArray>();
    const int64_t want = partialFields(p.reduce) * partialSize(p);
    if (static_cast<int64_t>(o.ElementLength()) != want)
      throw Napi::RangeError::New(env, "out has " + std::to_string(o.ElementLength()) + " elements, the partial needs " + std::to_string(want));
    out = dataOf(o);
    keep.push_back(o);
  }
  auto shared = std::make_shared<std::pair<Program, std::vector<InputView>>>(p, std::move(inputs));
  return queue(env, [shared, onDevice, out] { return cuda::residentRunProgram(shared->first, shared->second, onDevice, out); }, keep, std::move(blocks));
}

Napi::Value Matmul(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  BlockRef a = blockOf(env, intArg(info, 0, "a", 1, kMaxBlockId), "a");
  BlockRef b = blockOf(env, intArg(info, 1, "b", 1, kMaxBlockId), "b");
  BlockRef c0;
  if (info.Length() > 2 && !info[2].IsNull() && !info[2].IsUndefined()) c0 = blockOf(env, intArg(info, 2, "c0", 1, kMaxBlockId), "c0");
  const int64_t dim = int64_t(1) << 31;
  const int64_t m = intArg(info, 3, "m", 0, dim), k = intArg(info, 4, "k", 0, dim), n = intArg(info, 5, "n", 0, dim);
  if (a->type == tI32) typeError(env, "a must hold float64 or float32");
  const int dtype = a->type == tF64 ? 0 : 1;
  const size_t elem = dtype == 0 ? 8 : 4;
  auto expect = [&](const BlockRef& x, int64_t rows, int64_t cols, const char* name) {
    if (x->type != a->type) typeError(env, std::string(name) + " must have the same dtype as a");
    if (x->bytes != elem * static_cast<size_t>(rows) * static_cast<size_t>(cols))
      throw Napi::RangeError::New(env, std::string(name) + " must hold " + std::to_string(rows) + " x " + std::to_string(cols) + " elements, has " +
                                           std::to_string(x->bytes / elem));
  };
  expect(a, m, k, "a");
  expect(b, k, n, "b");
  if (c0) expect(c0, m, n, "c0");
  const cuda::DeviceBlock *pa = a.get(), *pb = b.get(), *pc = c0.get();
  return queue(env, [=] { return cuda::residentMatmul(dtype, *pa, *pb, pc, m, k, n); }, {}, {a, b, c0});
}

Napi::Value Stats(const Napi::CallbackInfo& info) {
  int64_t blocks = 0, bytes = 0, pinned = 0;
  cuda::residentStats(blocks, bytes, pinned);
  return countsObject(info.Env(), {{"blocks", blocks}, {"bytes", bytes}, {"pinnedBytes", pinned}});
}

}  // namespace

void registerResident(Napi::Env env, Napi::Object exports) {
  exports.Set("cudaResidentUpload", Napi::Function::New(env, Upload));
  exports.Set("cudaResidentDownload", Napi::Function::New(env, Download));
  exports.Set("cudaResidentFree", Napi::Function::New(env, Free));
  exports.Set("cudaResidentRunProgram", Napi::Function::New(env, RunProgram));
  exports.Set("cudaResidentMatmul", Napi::Function::New(env, Matmul));
  exports.Set("cudaResidentStats", Napi::Function::New(env, Stats));
  registerIpc(env, exports);
}

}  // namespace gf

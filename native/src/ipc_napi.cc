// The N-API boundary of CUDA IPC transfers (cuda_ipc.h), registered with the resident calls
// (resident_napi.cc). Arguments are checked here (TypeError / RangeError) before any work is
// queued; device work runs in an AsyncWorker whose promise resolves with its result.
//
//   cudaIpcExport(id) -> Promise<{ exportId, handle: Uint8Array(64) }>
//   cudaIpcRelease(exportId, reuse: boolean) -> Promise<boolean> (false: unknown export id)
//   cudaIpcImport(handle: Uint8Array(64), bytes, dtype: 'float64' | 'float32' | 'int32') -> Promise<id>
//   cudaIpcStats() -> { exports, exportBytes, cachedBytes }
#include <napi.h>

#include <cstring>
#include <functional>
#include <memory>
#include <vector>
#include <string>

#include "cuda_api.h"
#include "cuda_ipc.h"
#include "cuda_resident.h"
#include "device_lost_napi.h"
#include "napi_args.h"
#include "napi_job.h"
#include "program.h"

namespace gf {
namespace {

// Runs `work` off the JS thread (napi_job.h), holding `keep`; `make` gives the promise's value.
Napi::Value queue(Napi::Env env, std::function<void()> work, DeviceJob::Make make, cuda::BlockRef keep = nullptr) {
  std::vector<cuda::BlockRef> blocks;
  if (keep) blocks.push_back(std::move(keep));
  return queueDeviceJob(env, "gpuflow-ipc", std::move(work), std::move(make), {}, std::move(blocks));
}

Napi::Value Export(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const int64_t id = intArg(info, 0, "id", 1, kMaxBlockId);
  cuda::BlockRef b = blockOf(env, id, "cudaIpcExport");
  auto out = std::make_shared<cuda::IpcExport>();
  const cuda::DeviceBlock* raw = b.get();
  return queue(
      env, [out, raw] { *out = cuda::ipcExport(*raw); },
      [out](Napi::Env e) {
        Napi::Object o = Napi::Object::New(e);
        o.Set("exportId", Napi::Number::New(e, static_cast<double>(out->exportId)));
        Napi::Uint8Array h = Napi::Uint8Array::New(e, cuda::kIpcHandleBytes);
        std::memcpy(h.Data(), out->handle, cuda::kIpcHandleBytes);
        o.Set("handle", h);
        return Napi::Value(o);
      },
      b);
}

Napi::Value Release(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const int64_t id = intArg(info, 0, "exportId", 1, kMaxBlockId);
  if (info.Length() < 2 || !info[1].IsBoolean()) throw Napi::TypeError::New(env, "reuse must be a boolean");
  const bool reuse = info[1].As<Napi::Boolean>().Value();
  auto known = std::make_shared<bool>(false);
  return queue(env, [=] { *known = cuda::ipcRelease(id, reuse); }, [known](Napi::Env e) { return Napi::Value(Napi::Boolean::New(e, *known)); });
}

Napi::Value Import(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsTypedArray() || info[0].As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array)
    throw Napi::TypeError::New(env, "handle must be a Uint8Array");
  Napi::Uint8Array h = info[0].As<Napi::Uint8Array>();
  if (h.ByteLength() != cuda::kIpcHandleBytes)
    throw Napi::RangeError::New(env, "handle must hold " + std::to_string(cuda::kIpcHandleBytes) + " bytes, has " + std::to_string(h.ByteLength()));
  const int64_t bytes = intArg(info, 1, "bytes", 1, int64_t(1) << 50);
  if (info.Length() < 3 || !info[2].IsString()) throw Napi::TypeError::New(env, "dtype must be 'float64', 'float32' or 'int32'");
  const std::string dt = info[2].As<Napi::String>().Utf8Value();
  int32_t type;
  if (dt == "float64") type = tF64;
  else if (dt == "float32") type = tF32;
  else if (dt == "int32") type = tI32;
  else throw Napi::TypeError::New(env, "dtype must be 'float64', 'float32' or 'int32', got '" + dt + "'");
  auto handle = std::make_shared<std::vector<unsigned char>>(h.Data(), h.Data() + cuda::kIpcHandleBytes);
  auto id = std::make_shared<int64_t>(0);
  return queue(
      env, [=] { *id = cuda::ipcImport(handle->data(), static_cast<size_t>(bytes), type); },
      [id](Napi::Env e) { return Napi::Value(Napi::Number::New(e, static_cast<double>(*id))); });
}

Napi::Value Stats(const Napi::CallbackInfo& info) {
  int64_t exports = 0, exportBytes = 0, cached = 0;
  cuda::ipcStats(exports, exportBytes, cached);
  return countsObject(info.Env(), {{"exports", exports}, {"exportBytes", exportBytes}, {"cachedBytes", cached}});
}

}  // namespace

void registerIpc(Napi::Env env, Napi::Object exports) {
  exports.Set("cudaIpcExport", Napi::Function::New(env, Export));
  exports.Set("cudaIpcRelease", Napi::Function::New(env, Release));
  exports.Set("cudaIpcImport", Napi::Function::New(env, Import));
  exports.Set("cudaIpcStats", Napi::Function::New(env, Stats));
}

}  // namespace gf

// The tag a lost device puts on a rejected promise, shared by the addon's AsyncWorkers (addon.cc
// Job; resident and df jobs should do the same): catch gf::cuda::DeviceLostError in Execute(),
// keep its cudaName(), and in OnError() call tagDeviceLost before rejecting. worker/device-lost.ts
// classifies by this code, so the worker reports the task error as 'device' and main moves the
// work to other workers instead of failing the run.
#pragma once
#include <napi.h>

#include <string>

namespace gf {

inline constexpr const char* kDeviceLostCode = "GPUFLOW_DEVICE_LOST";

// No-op when `cudaName` is empty (an ordinary error).
inline void tagDeviceLost(Napi::Env env, Napi::Object err, const std::string& cudaName) {
  if (cudaName.empty()) return;
  err.Set("code", Napi::String::New(env, kDeviceLostCode));
  err.Set("cudaError", Napi::String::New(env, cudaName));
}

}  // namespace gf

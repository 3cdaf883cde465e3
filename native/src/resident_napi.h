// The N-API exports of device-resident chunks (resident_napi.cc), registered by addon.cc.
#pragma once
#include <napi.h>

namespace gf {
void registerResident(Napi::Env env, Napi::Object exports);
// The tfjs backend's synchronous kernel calls (tf_napi.cc).
void registerTf(Napi::Env env, Napi::Object exports);
// CUDA IPC transfers of resident blocks (ipc_napi.cc), registered by registerResident.
void registerIpc(Napi::Env env, Napi::Object exports);
}

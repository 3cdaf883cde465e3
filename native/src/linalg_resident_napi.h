// The N-API exports of linear algebra on device-resident blocks (linalg_resident_napi.cc),
// registered by addon.cc.
#pragma once
#include <napi.h>

namespace gf {
void registerLinalgResident(Napi::Env env, Napi::Object exports);
}

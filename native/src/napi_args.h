// Argument checks shared by the device-resident N-API files (resident, linalg-resident and IPC
// exports): integers that must be whole and in range, and resident block ids that must name a
// live block. TypeError for the wrong kind of value, RangeError for a bad one, each naming it.
// Also the plain {name: count} objects their stats calls return.
#pragma once
#include <napi.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>

#include "cuda_resident.h"

namespace gf {

// Resident block ids stay below 2^52; ids and dimensions below 2^53 are exact in a double.
constexpr int64_t kMaxBlockId = int64_t(1) << 52;

inline int64_t intOf(Napi::Env env, const Napi::Value& v, const std::string& name, int64_t lo, int64_t hi) {
  if (!v.IsNumber()) throw Napi::TypeError::New(env, name + " must be a number");
  const double d = v.As<Napi::Number>().DoubleValue();
  if (!(d >= lo && d <= hi) || static_cast<double>(static_cast<int64_t>(d)) != d)
    throw Napi::RangeError::New(env, name + " must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return static_cast<int64_t>(d);
}

// {name: count, ...} (counts below 2^53, exact in a double).
inline Napi::Object countsObject(Napi::Env env, std::initializer_list<std::pair<const char*, int64_t>> counts) {
  Napi::Object o = Napi::Object::New(env);
  for (const auto& [name, n] : counts) o.Set(name, Napi::Number::New(env, static_cast<double>(n)));
  return o;
}

inline int64_t intArg(const Napi::CallbackInfo& info, size_t i, const char* name, int64_t lo, int64_t hi) {
  if (i >= info.Length()) throw Napi::TypeError::New(info.Env(), std::string(name) + " must be a number");
  return intOf(info.Env(), info[i], name, lo, hi);
}

// The live block of `id`; a RangeError naming `name` when it was freed or never made.
inline cuda::BlockRef blockOf(Napi::Env env, int64_t id, const std::string& name) {
  cuda::BlockRef b = cuda::residentFind(id);
  if (!b) throw Napi::RangeError::New(env, name + ": no device buffer with id " + std::to_string(id) + " (freed, or never made)");
  return b;
}

}  // namespace gf

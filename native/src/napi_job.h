// One AsyncWorker for the addon's queued device calls (resident, linalg-resident, IPC and
// dataframe exports): `work` runs off the JS thread while the job holds the JS values (typed
// arrays) and device blocks it reads; the blocks are let go on the worker thread, after the work
// has synchronised its stream. A lost device's error is tagged (worker/device-lost.ts reads the
// tag); `make` turns the result into the promise's value on the JS thread (undefined without one).
#pragma once
#include <napi.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "cuda_api.h"
#include "cuda_resident.h"
#include "device_lost_napi.h"

namespace gf {

class DeviceJob : public Napi::AsyncWorker {
 public:
  using Make = std::function<Napi::Value(Napi::Env)>;
  DeviceJob(Napi::Env env, const char* name, std::function<void()> work, Make make, const std::vector<Napi::Value>& keep, std::vector<cuda::BlockRef> blocks)
      : Napi::AsyncWorker(env, name), deferred_(Napi::Promise::Deferred::New(env)), work_(std::move(work)), make_(std::move(make)), blocks_(std::move(blocks)) {
    for (const auto& v : keep) refs_.push_back(Napi::Persistent(v));
  }
  Napi::Promise promise() { return deferred_.Promise(); }
  void Execute() override {
    try {
      work_();
    } catch (const cuda::DeviceLostError& e) {
      lostDevice_ = e.cudaName();
      SetError(e.what());
    } catch (const std::exception& e) {
      SetError(e.what());
    }
    blocks_.clear();
  }
  void OnOK() override { deferred_.Resolve(make_ ? make_(Env()) : Env().Undefined()); }
  void OnError(const Napi::Error& e) override {
    Napi::Object err = e.Value();
    tagDeviceLost(Env(), err, lostDevice_);
    deferred_.Reject(err);
  }

 private:
  Napi::Promise::Deferred deferred_;
  std::function<void()> work_;
  Make make_;
  std::vector<cuda::BlockRef> blocks_;
  std::vector<Napi::Reference<Napi::Value>> refs_;
  std::string lostDevice_;
};

// Queues a DeviceJob and returns its promise.
inline Napi::Value queueDeviceJob(Napi::Env env, const char* name, std::function<void()> work, DeviceJob::Make make, const std::vector<Napi::Value>& keep = {}, std::vector<cuda::BlockRef> blocks = {}) {
  auto* job = new DeviceJob(env, name, std::move(work), std::move(make), keep, std::move(blocks));
  Napi::Promise p = job->promise();
  job->Queue();
  return p;
}

}  // namespace gf

// Shared by the CUDA translation units: error checks, the stream each libuv thread uses, and
// the stream-ordered device memory pool (cudaMallocAsync on the device's default pool, told to
// keep freed memory, so chunk after chunk reuses the same allocations).
#pragma once
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "../cuda_api.h"

namespace gf {
namespace cuda {

// Errors that mean the device is gone or unusable by this process from now on. The sticky ones
// (700, 702, 709, 714-719) corrupt the context: every later call fails the same way, so the
// worker is as good as deviceless. Bad arguments, out-of-memory and the like are not here: they
// fail the task, as a bug or a too-large chunk should.
inline bool deviceLost(cudaError_t e) {
  switch (e) {
    case cudaErrorNoDevice:
    case cudaErrorDevicesUnavailable:
    case cudaErrorDeviceUninitialized:
    case cudaErrorECCUncorrectable:
    case cudaErrorNvlinkUncorrectable:
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchTimeout:
    case cudaErrorContextIsDestroyed:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchFailure:
    case cudaErrorSystemNotReady:
    case cudaErrorCudartUnloading:
      return true;
    default:
      return false;
  }
}

// Messages read "CUDA <what>: <description> (<cudaErrorName>)".
inline void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  const std::string message = std::string("CUDA ") + what + ": " + cudaGetErrorString(e) + " (" + cudaGetErrorName(e) + ")";
  if (deviceLost(e)) throw DeviceLostError(message, cudaGetErrorName(e));
  throw std::runtime_error(message);
}

// Each libuv worker thread gets its own stream, so calls in flight at once overlap.
inline cudaStream_t stream() { return cudaStreamPerThread; }

void ensureDevice();  // selects device 0, sets up the pool once; throws when there is no device

// A device allocation from the pool, returned to it when the holder goes out of scope.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t bytes) : bytes_(bytes) {
    if (bytes_ > 0) check(cudaMallocAsync(&ptr_, bytes_, stream()), "cudaMallocAsync");
  }
  ~DeviceBuffer() {
    if (ptr_) cudaFreeAsync(ptr_, stream());
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  template <typename T>
  T* as() const { return static_cast<T*>(ptr_); }
  size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  size_t bytes_;
};

inline void upload(DeviceBuffer& d, const void* host, size_t bytes) {
  if (bytes) check(cudaMemcpyAsync(d.as<void>(), host, bytes, cudaMemcpyHostToDevice, stream()), "copy to device");
}
inline void download(void* host, const DeviceBuffer& d, size_t bytes) {
  if (bytes) check(cudaMemcpyAsync(host, d.as<void>(), bytes, cudaMemcpyDeviceToHost, stream()), "copy to host");
}
inline void sync() { check(cudaStreamSynchronize(stream()), "stream synchronize"); }
inline void launched(const char* what) { check(cudaGetLastError(), what); }

}  // namespace cuda
}  // namespace gf

// What the addon asks of its CUDA part. In a CPU-only build cuda_stub.cc answers instead, so the
// addon's exports do not depend on how it was built. Errors are thrown as std::runtime_error;
// those that mean the device can no longer be used as DeviceLostError (a subclass).
#pragma once
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "program.h"

namespace gf {
namespace cuda {

// A CUDA error after which this worker's device cannot be used again: the device is gone
// (cudaErrorNoDevice, fallen off the bus, ECC uncorrectable) or a sticky fault left this process's
// context unusable (cudaErrorIllegalAddress, cudaErrorLaunchFailure...). The addon rejects with
// error.code = 'GPUFLOW_DEVICE_LOST' and error.cudaError = the error's name, so the worker can
// report it as a lost device (its tasks move to other workers) rather than as a failed task.
class DeviceLostError : public std::runtime_error {
 public:
  DeviceLostError(const std::string& message, std::string cudaName) : std::runtime_error(message), cudaName_(std::move(cudaName)) {}
  const std::string& cudaName() const { return cudaName_; }

 private:
  std::string cudaName_;
};

// "" when a device is usable, else why not (no CUDA in this build, no driver, no device...).
std::string unavailableReason();
// "NVIDIA H100 80GB HBM3, 132 SMs, driver 13.0" and the like.
std::string describe();
// Why cuBLAS / cuSOLVER could not be loaded ("" when they were).
std::string blasReason();
std::string solverReason();
// This process's CUDA context and one cuBLAS and one cuSOLVER handle (their libraries dlopen'ed),
// made off the JS thread as soon as a GPU worker starts, so that the first task finds them made;
// in two phases, so that a worker is ready once its context is (the first program task needs
// nothing more): warmContext() makes the context; beginWarmLibraries() (on the JS thread,
// when the library phase is queued) makes every cuBLAS / cuSOLVER lease from then on wait for
// the handle warmLibraries() (off the JS thread) is making instead of making a second one at the
// same time, and info() leave the libraries alone until that phase is over. Never throw: what
// fails here fails again, with its message, where it is used (unavailableReason, the first
// matmul / qr / svd). `gemmDtypes` (bit 0 float64, bit 1 float32): a first gemm of each after
// the handles, so the first matmul task does not load cuBLAS's kernels.
void warmContext();
void beginWarmLibraries();
void warmLibraries(int gemmDtypes);

void runProgram(const Program& p, const std::vector<InputView>& inputs, void* out);
// Diagnostics for bench/: milliseconds per launch of the fused kernel of a program with no input
// leaves and a reduction over all axes, timed with events over `reps` back-to-back launches.
double benchProgram(const Program& p, int reps);
// dtype: 0 float64, 1 float32. Row-major. c0 may be null.
void matmul(int dtype, const void* a, const void* b, const void* c0, void* c, int64_t m, int64_t k, int64_t n);
void qr(int dtype, const void* a, void* q, void* r, int64_t m, int64_t n);
void svd(int dtype, const void* a, void* u, void* s, void* vt, int64_t m, int64_t n);

}  // namespace cuda
}  // namespace gf

// libgpuflow_kernels_cuda.so's C entry points: the addon's CUDA program kernel (cuda_api.h)
// behind a C ABI, for Dask GPU workers (python/gpuflow_dask/capi.py). Inputs and output are host
// buffers, as the addon's non-resident call takes them: a fused chunk program with a reduction
// (the seed workload) generates and reduces on the device and only its partial comes back.
// Errors come back as strings, never as exceptions across the ABI.
#include <algorithm>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda_api.h"
#include "cuda/program_on.h"
#include "capi_error.h"
#include "program.h"

#define GF_EXPORT __attribute__((visibility("default")))

namespace {

using gf_capi::fail;

// The input views of a call, checked (types within the program's input types).
std::vector<gf::InputView> inputViews(const void* const* inputs, const int64_t* in_lengths, const int32_t* in_types, int32_t n_inputs) {
  std::vector<gf::InputView> in(static_cast<size_t>(std::max(0, n_inputs)));
  for (int32_t i = 0; i < n_inputs; i++) {
    if (in_types[i] < gf::tF64 || in_types[i] > gf::tI32) throw std::runtime_error("input " + std::to_string(i) + ": unknown type");
    in[i] = gf::InputView{inputs[i], in_lengths[i], in_types[i]};
  }
  return in;
}

}  // namespace

extern "C" {

GF_EXPORT int gf_cuda_capi_version(void) { return 1; }

// 0 when a device is usable; else 1 and why not in err.
GF_EXPORT int gf_cuda_available(char* err, size_t err_len) {
  try {
    const std::string why = gf::cuda::unavailableReason();
    return why.empty() ? 0 : fail(err, err_len, why);
  } catch (const std::exception& e) {
    return fail(err, err_len, e.what());
  }
}

// As gf_run_program (capi.h), on the device: same code, host inputs, host output.
GF_EXPORT int gf_cuda_run_program(const double* code, size_t code_len, const void* const* inputs, const int64_t* in_lengths,
                                  const int32_t* in_types, int32_t n_inputs, void* out, int64_t out_len, char* err,
                                  size_t err_len) {
  try {
    const std::vector<gf::InputView> in = inputViews(inputs, in_lengths, in_types, n_inputs);
    const gf::Program p = gf::decodeProgram(code, code_len, in);
    const int64_t want = p.reduce == gf::rNone ? p.n : gf::partialFields(p.reduce) * gf::partialSize(p);
    if (want != out_len) return fail(err, err_len, "output buffer holds " + std::to_string(out_len) + " elements, the program writes " + std::to_string(want));
    gf::cuda::runProgram(p, in, out);
    return 0;
  } catch (const std::exception& e) {
    return fail(err, err_len, e.what());
  }
}

// As gf_cuda_run_program, with device-resident chunks (a Dask GPU worker's CuPy arrays):
// inputs[i] is a device pointer of the current device where on_device[i] is 1, host memory
// elsewhere; out_on_device 1 (a program without a reduction only) writes the output into the device
// buffer `out`, so the chunk stays on the device for the next task. Returns when the result is
// complete (the kernels run on the addon's stream, synchronised before returning).
GF_EXPORT int gf_cuda_run_program_on(const double* code, size_t code_len, const void* const* inputs, const int64_t* in_lengths,
                                     const int32_t* in_types, const int8_t* on_device, int32_t n_inputs, void* out, int64_t out_len,
                                     int32_t out_on_device, char* err, size_t err_len) {
  try {
    const std::vector<gf::InputView> in = inputViews(inputs, in_lengths, in_types, n_inputs);
    std::vector<char> dev(in.size(), 0);
    for (size_t i = 0; i < in.size(); i++) dev[i] = on_device[i] ? 1 : 0;
    const gf::Program p = gf::decodeProgram(code, code_len, in);
    const int64_t want = p.reduce == gf::rNone ? p.n : gf::partialFields(p.reduce) * gf::partialSize(p);
    if (want != out_len) return fail(err, err_len, "output buffer holds " + std::to_string(out_len) + " elements, the program writes " + std::to_string(want));
    if (out_on_device && p.reduce != gf::rNone) return fail(err, err_len, "a reduction's partial is written to host memory (out_on_device must be 0)");
    gf::cuda::runProgramOn(p, in, dev, out, out_on_device != 0);
    return 0;
  } catch (const std::exception& e) {
    return fail(err, err_len, e.what());
  }
}

}  // extern "C"

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
#include "capi_error.h"
#include "program.h"

#define GF_EXPORT __attribute__((visibility("default")))

namespace {

using gf_capi::fail;

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
    std::vector<gf::InputView> in(static_cast<size_t>(std::max(0, n_inputs)));
    for (int32_t i = 0; i < n_inputs; i++) {
      if (in_types[i] < gf::tF64 || in_types[i] > gf::tI32) return fail(err, err_len, "input " + std::to_string(i) + ": unknown type");
      in[i] = gf::InputView{inputs[i], in_lengths[i], in_types[i]};
    }
    const gf::Program p = gf::decodeProgram(code, code_len, in);
    const int64_t want = p.reduce == gf::rNone ? p.n : gf::partialFields(p.reduce) * gf::partialSize(p);
    if (want != out_len) return fail(err, err_len, "output buffer holds " + std::to_string(out_len) + " elements, the program writes " + std::to_string(want));
    gf::cuda::runProgram(p, in, out);
    return 0;
  } catch (const std::exception& e) {
    return fail(err, err_len, e.what());
  }
}

}  // extern "C"

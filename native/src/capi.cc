// libgpuflow_kernels.so's C entry points (capi.h): thin wrappers that turn exceptions into
// error strings, so a bad program code is an error message in Python, never a crash.
#include "capi.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpu_program.h"
#include "linalg_cpu.h"
#include "pool.h"
#include "capi_error.h"
#include "program.h"

#define GF_EXPORT __attribute__((visibility("default")))

namespace {

using gf_capi::fail;

std::vector<gf::InputView> views(const void* const* inputs, const int64_t* lengths, const int32_t* types, int32_t n) {
  if (n < 0) throw std::invalid_argument("negative input count");
  std::vector<gf::InputView> v(static_cast<size_t>(n));
  for (int32_t i = 0; i < n; i++) {
    if (types[i] < gf::tF64 || types[i] > gf::tI32) throw std::invalid_argument("input " + std::to_string(i) + ": unknown type " + std::to_string(types[i]));
    if (lengths[i] < 0) throw std::invalid_argument("input " + std::to_string(i) + ": negative length");
    v[i] = gf::InputView{inputs ? inputs[i] : nullptr, lengths[i], types[i]};
  }
  return v;
}

int64_t outputLength(const gf::Program& p) {
  if (p.reduce == gf::rNone) return p.n;
  return gf::partialFields(p.reduce) * gf::partialSize(p);
}

int poolThreads(int32_t threads) { return std::max(1, std::min<int32_t>(threads, 256)); }

}  // namespace

extern "C" {

GF_EXPORT int gf_capi_version(void) { return GF_CAPI_VERSION; }

GF_EXPORT int gf_program_output(const double* code, size_t code_len, const int64_t* in_lengths, const int32_t* in_types,
                                int32_t n_inputs, int64_t* out_len, int32_t* out_f32, char* err, size_t err_len) {
  try {
    const gf::Program p = gf::decodeProgram(code, code_len, views(nullptr, in_lengths, in_types, n_inputs));
    *out_len = outputLength(p);
    *out_f32 = p.reduce == gf::rNone && p.f32 ? 1 : 0;
    return 0;
  } catch (const std::exception& e) {
    return fail(err, err_len, e.what());
  }
}

GF_EXPORT int gf_run_program(const double* code, size_t code_len, const void* const* inputs, const int64_t* in_lengths,
                             const int32_t* in_types, int32_t n_inputs, void* out, int64_t out_len, int32_t threads,
                             char* err, size_t err_len) {
  try {
    const std::vector<gf::InputView> in = views(inputs, in_lengths, in_types, n_inputs);
    for (size_t i = 0; i < in.size(); i++)
      if (!in[i].data && in[i].length > 0) throw std::invalid_argument("input " + std::to_string(i) + " is a null pointer");
    const gf::Program p = gf::decodeProgram(code, code_len, in);
    if (outputLength(p) != out_len)
      return fail(err, err_len, "output buffer holds " + std::to_string(out_len) + " elements, the program writes " + std::to_string(outputLength(p)));
    if (out_len > 0 && !out) return fail(err, err_len, "output is a null pointer");
    gf::runProgramCpu(gf::Pool::get(poolThreads(threads)), p, in, out);
    return 0;
  } catch (const std::exception& e) {
    return fail(err, err_len, e.what());
  }
}

GF_EXPORT int gf_matmul_f64(const double* a, const double* b, const double* c0, double* c, int64_t m, int64_t k, int64_t n,
                            int32_t threads, char* err, size_t err_len) {
  try {
    gf::matmulCpu<double>(gf::Pool::get(poolThreads(threads)), a, b, c0, c, m, k, n);
    return 0;
  } catch (const std::exception& e) {
    return fail(err, err_len, e.what());
  }
}

GF_EXPORT int gf_qr_f64(const double* a, double* q, double* r, int64_t m, int64_t n, int32_t threads, char* err, size_t err_len) {
  try {
    if (m < n) return fail(err, err_len, "qr: needs rows >= columns");
    gf::qrCpu<double>(gf::Pool::get(poolThreads(threads)), a, q, r, m, n);
    return 0;
  } catch (const std::exception& e) {
    return fail(err, err_len, e.what());
  }
}

GF_EXPORT int gf_svd_f64(const double* a, double* u, double* s, double* vt, int64_t m, int64_t n, int32_t threads, char* err,
                         size_t err_len) {
  try {
    gf::svdCpu<double>(gf::Pool::get(poolThreads(threads)), a, u, s, vt, m, n);
    return 0;
  } catch (const std::exception& e) {
    return fail(err, err_len, e.what());
  }
}

}  // extern "C"

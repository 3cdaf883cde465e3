// The CUDA part of a CPU-only build: everything says why CUDA is absent.
#include <stdexcept>

#include "cuda_api.h"

#ifndef GF_NO_CUDA_REASON
#define GF_NO_CUDA_REASON "the addon was built without CUDA"
#endif

namespace gf {
namespace cuda {

std::string unavailableReason() { return GF_NO_CUDA_REASON; }
std::string describe() { return ""; }
std::string blasReason() { return GF_NO_CUDA_REASON; }
std::string solverReason() { return GF_NO_CUDA_REASON; }
[[noreturn]] static void absent() { throw std::runtime_error(GF_NO_CUDA_REASON); }
void runProgram(const Program&, const std::vector<InputView>&, void*) { absent(); }
double benchProgram(const Program&, int) { absent(); }
void matmul(int, const void*, const void*, const void*, void*, int64_t, int64_t, int64_t) { absent(); }
void qr(int, const void*, void*, void*, int64_t, int64_t) { absent(); }
void svd(int, const void*, void*, void*, void*, int64_t, int64_t) { absent(); }

}  // namespace cuda
}  // namespace gf

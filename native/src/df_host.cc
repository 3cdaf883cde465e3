// The filter's predicate interpreter on the host: the reference the device kernel is checked
// against (and a CPU path of its own). Single-threaded: it is called per partition.
#include <vector>

#include "df_api.h"
#include "df_expr.h"

namespace gf {
namespace df {

int64_t filterHost(const double* code, const std::vector<Buf>& bufs, int64_t rows, int32_t* idx) {
  const size_t nb = bufs.size();
  std::vector<const double*> f64(nb, nullptr);
  std::vector<const int32_t*> i32(nb, nullptr);
  std::vector<const uint8_t*> u8(nb, nullptr);
  std::vector<int64_t> len(nb);
  for (size_t b = 0; b < nb; b++) {
    len[b] = bufs[b].len;
    if (bufs[b].type == bF64) f64[b] = static_cast<const double*>(bufs[b].data);
    else if (bufs[b].type == bI32) i32[b] = static_cast<const int32_t*>(bufs[b].data);
    else if (bufs[b].type == bU8) u8[b] = static_cast<const uint8_t*>(bufs[b].data);
  }
  const Buffers view{f64.data(), i32.data(), u8.data(), len.data()};
  int64_t k = 0;
  for (int64_t i = 0; i < rows; i++)
    if (evalRow(code, view, i)) idx[k++] = static_cast<int32_t>(i);
  return k;
}

}  // namespace df
}  // namespace gf

// The device entry points of a CPU-only build. Weak: in a CUDA build, cuda/df_*.cu define them and
// the linker takes those; without CUDA these say why (the same reason as cuda_stub.cc's).
#include <stdexcept>

#include "cuda_api.h"

namespace gf {
namespace cuda {

__attribute__((weak)) int64_t dfFilter(const double*, int64_t, const std::vector<df::Buf>&, int64_t, int32_t*) {
  throw std::runtime_error(unavailableReason());
}
__attribute__((weak)) void dfGroupby(const df::GroupbyArgs&, double*) { throw std::runtime_error(unavailableReason()); }
__attribute__((weak)) void dfTimeseriesGroupby(const df::TimeseriesGroupbyArgs&, double*) { throw std::runtime_error(unavailableReason()); }
__attribute__((weak)) int64_t dfJoin(const df::JoinArgs&, int32_t*, int32_t*, int64_t) { throw std::runtime_error(unavailableReason()); }

}  // namespace cuda
}  // namespace gf

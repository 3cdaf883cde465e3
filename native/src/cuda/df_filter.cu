// Dataframe filter on the device: the predicate bytecode (../df_expr.h, the interpreter the host
// build runs too) evaluated per row into 0/1 flags, then stream compaction (exclusive scan +
// scatter) into the indices of the kept rows, in row order. Columns are copied up once per call;
// only the indices come back. Also the int64 scan the other df kernels share.
#include <cub/device/device_scan.cuh>

#include <stdexcept>
#include <vector>

#include "../cuda_api.h"
#include "../df_api.h"
#include "../df_expr.h"
#include "common.h"
#include "df_common.h"

namespace gf {
namespace cuda {
namespace dfk {

void exclusiveScan(Staging& s, const long long* in, long long* out, int64_t n) {
  size_t bytes = 0;
  check(cub::DeviceScan::ExclusiveSum(nullptr, bytes, in, out, static_cast<int>(n + 1), stream()), "scan (size)");
  void* temp = s.alloc<unsigned char>(static_cast<int64_t>(bytes));
  check(cub::DeviceScan::ExclusiveSum(temp, bytes, in, out, static_cast<int>(n + 1), stream()), "scan");
}

}  // namespace dfk

namespace {

constexpr int kMaxCode = 4096;  // doubles of code held in shared memory

__global__ void filterFlags(const double* code, int codeLen, df::Buffers buf, int64_t rows, long long* flags) {
  extern __shared__ double sc[];
  for (int k = threadIdx.x; k < codeLen; k += blockDim.x) sc[k] = code[k];
  __syncthreads();
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < rows; i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    flags[i] = df::evalRow(sc, buf, i) ? 1 : 0;
}

__global__ void scatterKept(const long long* flags, const long long* pos, int64_t rows, int32_t* idx) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < rows; i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    if (flags[i]) idx[pos[i]] = static_cast<int32_t>(i);
}

}  // namespace

int64_t dfFilter(const double* code, int64_t codeLen, const std::vector<df::Buf>& bufs, int64_t rows, int32_t* idx) {
  ensureDevice();
  if (codeLen > kMaxCode) throw std::runtime_error("filter code has " + std::to_string(codeLen) + " numbers; the device kernel holds at most " + std::to_string(kMaxCode));
  if (rows == 0) return 0;
  dfk::Staging s;
  const size_t nb = bufs.size();
  std::vector<const double*> f64(nb, nullptr);
  std::vector<const int32_t*> i32(nb, nullptr);
  std::vector<const uint8_t*> u8(nb, nullptr);
  std::vector<int64_t> len(nb);
  for (size_t b = 0; b < nb; b++) {
    len[b] = bufs[b].len;
    if (bufs[b].type == df::bF64) f64[b] = s.put(static_cast<const double*>(bufs[b].data), bufs[b].len);
    else if (bufs[b].type == df::bI32) i32[b] = s.put(static_cast<const int32_t*>(bufs[b].data), bufs[b].len);
    else if (bufs[b].type == df::bU8) u8[b] = s.put(static_cast<const uint8_t*>(bufs[b].data), bufs[b].len);
  }
  const df::Buffers view{s.put(f64.data(), static_cast<int64_t>(nb)), s.put(i32.data(), static_cast<int64_t>(nb)), s.put(u8.data(), static_cast<int64_t>(nb)),
                         s.put(len.data(), static_cast<int64_t>(nb))};
  const double* dcode = s.put(code, codeLen);
  long long* flags = s.alloc<long long>(rows + 1);
  long long* pos = s.alloc<long long>(rows + 1);
  check(cudaMemsetAsync(flags + rows, 0, sizeof(long long), stream()), "memset");
  filterFlags<<<dfk::gridFor(rows, 256), 256, static_cast<size_t>(codeLen) * sizeof(double), stream()>>>(dcode, static_cast<int>(codeLen), view, rows, flags);
  launched("filter kernel");
  dfk::exclusiveScan(s, flags, pos, rows);
  long long kept = 0;
  check(cudaMemcpyAsync(&kept, pos + rows, sizeof(long long), cudaMemcpyDeviceToHost, stream()), "copy count");
  int32_t* didx = s.alloc<int32_t>(rows);
  scatterKept<<<dfk::gridFor(rows, 256), 256, 0, stream()>>>(flags, pos, rows, didx);
  launched("compaction kernel");
  sync();
  if (kept) check(cudaMemcpyAsync(idx, didx, static_cast<size_t>(kept) * sizeof(int32_t), cudaMemcpyDeviceToHost, stream()), "copy indices");
  sync();
  return kept;
}

}  // namespace cuda
}  // namespace gf

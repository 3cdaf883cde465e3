// QR / SVD of device-resident row blocks (cuda_linalg_resident.h): the blocks are stacked into
// one matrix with device-to-device copies (row blocks of a row-major matrix are consecutive
// pieces of it), factored by runtime.cu's qrOnDevice / svdOnDevice (cuSOLVER through the handle
// pool), and the factors registered as new blocks. Nothing goes through host memory.
#include <stdexcept>
#include <string>

#include "../cuda_linalg_resident.h"
#include "../cuda_resident.h"
#include "common.h"

namespace gf {
namespace cuda {

std::vector<int64_t> residentFactor(const std::vector<BlockRef>& blocks, int64_t m, int64_t n, bool svd) {
  ensureDevice();
  const size_t bytes = sizeof(double) * static_cast<size_t>(m) * static_cast<size_t>(n);
  size_t total = 0;
  for (const BlockRef& b : blocks) {
    if (b->type != tF64) throw std::runtime_error("resident factor: blocks must hold float64");
    total += b->bytes;
  }
  if (total != bytes) throw std::runtime_error("resident factor: the blocks hold " + std::to_string(total) + " bytes, a " + std::to_string(m) + " x " + std::to_string(n) + " float64 matrix " + std::to_string(bytes));
  // One block is used in place (the factorizations only read their input).
  BlockRef stacked;
  const double* a = nullptr;
  if (blocks.size() == 1) {
    a = static_cast<const double*>(blocks[0]->ptr);
  } else {
    stacked = residentAllocate(bytes, tF64);
    size_t at = 0;
    for (const BlockRef& b : blocks) {
      if (b->bytes) check(cudaMemcpyAsync(static_cast<char*>(stacked->ptr) + at, b->ptr, b->bytes, cudaMemcpyDeviceToDevice, stream()), "stack row blocks");
      at += b->bytes;
    }
    a = static_cast<const double*>(stacked->ptr);
  }
  std::vector<BlockRef> out;
  if (svd) {
    out = {residentAllocate(bytes, tF64), residentAllocate(sizeof(double) * n, tF64), residentAllocate(sizeof(double) * n * n, tF64)};
    svdOnDevice(a, static_cast<double*>(out[0]->ptr), static_cast<double*>(out[1]->ptr), static_cast<double*>(out[2]->ptr), m, n);
  } else {
    out = {residentAllocate(bytes, tF64), residentAllocate(sizeof(double) * n * n, tF64)};
    qrOnDevice(a, static_cast<double*>(out[0]->ptr), static_cast<double*>(out[1]->ptr), m, n);
  }
  sync();
  std::vector<int64_t> ids;
  for (BlockRef& b : out) ids.push_back(residentEnter(std::move(b)));
  return ids;
}

int64_t residentRows(const DeviceBlock& block, int64_t start, int64_t count, int64_t cols) {
  ensureDevice();
  const size_t elem = block.type == tF32 ? 4 : block.type == tF64 ? 8 : 4;
  const size_t from = elem * static_cast<size_t>(start) * static_cast<size_t>(cols), bytes = elem * static_cast<size_t>(count) * static_cast<size_t>(cols);
  if (start < 0 || count < 0 || from + bytes > block.bytes) throw std::runtime_error("resident rows: rows out of the block's range");
  BlockRef out = residentAllocate(bytes, block.type);
  if (bytes) check(cudaMemcpyAsync(out->ptr, static_cast<const char*>(block.ptr) + from, bytes, cudaMemcpyDeviceToDevice, stream()), "copy rows");
  sync();
  return residentEnter(std::move(out));
}

}  // namespace cuda
}  // namespace gf

// The CUDA part of a CPU-only build: everything says why CUDA is absent.
#include <stdexcept>

#include "cuda_api.h"
#include "cuda_linalg_resident.h"
#include "cuda_ipc.h"
#include "cuda_resident.h"
#include "cuda_tf.h"

#ifndef GF_NO_CUDA_REASON
#define GF_NO_CUDA_REASON "the addon was built without CUDA"
#endif

namespace gf {
namespace cuda {

std::string unavailableReason() { return GF_NO_CUDA_REASON; }
std::string describe() { return ""; }
std::string blasReason() { return GF_NO_CUDA_REASON; }
std::string solverReason() { return GF_NO_CUDA_REASON; }
void warmContext() {}
void beginWarmLibraries() {}
void warmLibraries(int) {}
[[noreturn]] static void absent() { throw std::runtime_error(GF_NO_CUDA_REASON); }
void runProgram(const Program&, const std::vector<InputView>&, void*) { absent(); }
double benchProgram(const Program&, int) { absent(); }
void matmul(int, const void*, const void*, const void*, void*, int64_t, int64_t, int64_t) { absent(); }
void qr(int, const void*, void*, void*, int64_t, int64_t) { absent(); }
void svd(int, const void*, void*, void*, void*, int64_t, int64_t) { absent(); }

DeviceBlock::~DeviceBlock() {}
BlockRef residentFind(int64_t) { return nullptr; }
int64_t residentUpload(const void*, size_t, int32_t) { absent(); }
void residentDownload(const DeviceBlock&, void*) { absent(); }
bool residentFree(int64_t) { return false; }
int64_t residentRunProgram(const Program&, const std::vector<InputView>&, const std::vector<char>&, void*) { absent(); }
int64_t residentMatmul(int, const DeviceBlock&, const DeviceBlock&, const DeviceBlock*, int64_t, int64_t, int64_t) { absent(); }
BlockRef residentAllocate(size_t, int32_t) { absent(); }
int64_t residentEnter(BlockRef) { absent(); }
void qrOnDevice(const double*, double*, double*, int64_t, int64_t) { absent(); }
void svdOnDevice(const double*, double*, double*, double*, int64_t, int64_t) { absent(); }
std::vector<int64_t> residentFactor(const std::vector<BlockRef>&, int64_t, int64_t, bool) { absent(); }
int64_t residentRows(const DeviceBlock&, int64_t, int64_t, int64_t) { absent(); }
void residentStats(int64_t& blocks, int64_t& bytes, int64_t& pinned) { blocks = bytes = pinned = 0; }
int64_t residentAdopt(BlockRef) { absent(); }
IpcExport ipcExport(const DeviceBlock&) { absent(); }
bool ipcRelease(int64_t, bool) { return false; }
int64_t ipcImport(const unsigned char*, size_t, int32_t) { absent(); }
int64_t tfAlloc(int64_t, int32_t) { absent(); }
void tfWrite(int64_t, const void*, size_t) { absent(); }
void tfRead(int64_t, void*, size_t) { absent(); }
void tfRun(int, const double*, size_t) { absent(); }
void tfSync() { absent(); }
void ipcStats(int64_t& exports, int64_t& exportBytes, int64_t& cachedBytes) { exports = exportBytes = cachedBytes = 0; }

}  // namespace cuda
}  // namespace gf

// Device-to-device chunk transfer between worker processes with CUDA IPC (cudaIpcGetMemHandle /
// cudaIpcOpenMemHandle), used by worker/peer.ts through ipc_napi.cc. Works between processes on
// the same GPU and, over NVLink or PCIe peer access, between GPUs of one host.
//
// Resident blocks come from the stream-ordered pool (cudaMallocAsync), whose memory cannot be
// exported with cudaIpcGetMemHandle. So an export copies the block device-to-device into an
// export buffer made with cudaMalloc (one allocation each, so a handle names exactly it); the
// importer opens the handle, copies into a new resident block of its own, closes the handle, and
// tells the exporter (over the peer connection) that it is done. Only then does the exporter
// release the buffer: `reuse` true keeps it in a small cache of idle export buffers (bounded by
// GPUFLOW_IPC_CACHE_BYTES, default 1 GiB, least recently used freed first), since cudaMalloc and
// cudaFree are slow and cudaFree synchronises the device; `reuse` false (the importer vanished
// without saying done) frees it: the worker calls that only after a grace period, since freeing
// memory another process still has open is undefined (worker/resident/ipc.ts). Export buffers
// are not counted in the worker's device-memory limit: at most the lent ones plus the cache.
// In a CPU-only build cuda_stub.cc answers that CUDA is absent.
#pragma once
#include <cstddef>
#include <cstdint>

#include "cuda_resident.h"

namespace gf {
namespace cuda {

constexpr size_t kIpcHandleBytes = 64;  // sizeof(cudaIpcMemHandle_t)

struct IpcExport {
  int64_t exportId = 0;
  unsigned char handle[kIpcHandleBytes] = {};
};

// Copies `block` into an export buffer (synchronised) and returns the buffer's handle and id.
IpcExport ipcExport(const DeviceBlock& block);
// Gives an export buffer back (see above); false when the id is unknown.
bool ipcRelease(int64_t exportId, bool reuse);
// Opens `handle`, copies `bytes` from it into a new resident block of element type `type`,
// closes it; returns the block's id (cuda_resident.h).
int64_t ipcImport(const unsigned char* handle, size_t bytes, int32_t type);
// Export buffers lent out now, their bytes, and the idle cached buffers' bytes.
void ipcStats(int64_t& exports, int64_t& exportBytes, int64_t& cachedBytes);

}  // namespace cuda
}  // namespace gf

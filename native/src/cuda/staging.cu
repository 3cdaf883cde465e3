// The pinned staging pool (staging.h). Pieces are 8 MiB: big enough that a DMA runs near the
// link's speed, small enough that two per concurrent copy stay a modest amount of page-locked
// memory. Pieces are allocated on first need with cudaHostAlloc and kept for the process's
// life (page-locking is slow; reuse is the point of the pool).
#include <algorithm>
#include <cstring>
#include <mutex>
#include <vector>

#include "common.h"
#include "staging.h"

namespace gf {
namespace cuda {
namespace {

constexpr size_t kPiece = size_t(8) << 20;

struct Piece {
  char* host = nullptr;
  cudaEvent_t done = nullptr;  // recorded after the piece's DMA
};

std::mutex poolMutex;
std::vector<Piece> freePieces;
int64_t pinnedTotal = 0;

Piece takePiece() {
  {
    std::lock_guard<std::mutex> lock(poolMutex);
    if (!freePieces.empty()) {
      Piece p = freePieces.back();
      freePieces.pop_back();
      return p;
    }
  }
  Piece p;
  check(cudaHostAlloc(reinterpret_cast<void**>(&p.host), kPiece, cudaHostAllocDefault), "cudaHostAlloc (pinned staging)");
  if (cudaEventCreateWithFlags(&p.done, cudaEventDisableTiming) != cudaSuccess) {
    cudaFreeHost(p.host);
    throw std::runtime_error("CUDA cudaEventCreate (pinned staging) failed");
  }
  std::lock_guard<std::mutex> lock(poolMutex);
  pinnedTotal += static_cast<int64_t>(kPiece);
  return p;
}

// Two pieces for one copy, handed back when the copy is over. On an error the stream is drained
// first, so a piece never returns to the pool while a DMA may still touch it.
class PiecePair {
 public:
  PiecePair(size_t bytes, cudaStream_t s) : s_(s) {
    p_[0] = takePiece();
    if (bytes > kPiece) p_[1] = takePiece();
  }
  ~PiecePair() {
    cudaStreamSynchronize(s_);
    std::lock_guard<std::mutex> lock(poolMutex);
    for (Piece& p : p_)
      if (p.host) freePieces.push_back(p);
  }
  PiecePair(const PiecePair&) = delete;
  PiecePair& operator=(const PiecePair&) = delete;
  Piece& operator[](size_t i) { return p_[i & 1]; }

 private:
  cudaStream_t s_;
  Piece p_[2];
};

}  // namespace

void uploadStaged(void* device, const void* host, size_t bytes, cudaStream_t s) {
  if (bytes == 0) return;
  PiecePair pieces(bytes, s);
  const char* src = static_cast<const char*>(host);
  char* dst = static_cast<char*>(device);
  size_t i = 0;
  for (size_t off = 0; off < bytes; off += kPiece, i++) {
    const size_t n = std::min(kPiece, bytes - off);
    Piece& p = pieces[i];
    // The piece's previous DMA (two pieces ago) must be done before it is refilled.
    if (i >= 2) check(cudaEventSynchronize(p.done), "staging event");
    std::memcpy(p.host, src + off, n);
    check(cudaMemcpyAsync(dst + off, p.host, n, cudaMemcpyHostToDevice, s), "copy to device (staged)");
    check(cudaEventRecord(p.done, s), "staging event record");
  }
  check(cudaStreamSynchronize(s), "stream synchronize");
}

void downloadStaged(void* host, const void* device, size_t bytes, cudaStream_t s) {
  if (bytes == 0) return;
  PiecePair pieces(bytes, s);
  const char* src = static_cast<const char*>(device);
  char* dst = static_cast<char*>(host);
  const size_t count = (bytes + kPiece - 1) / kPiece;
  auto issue = [&](size_t i) {
    const size_t off = i * kPiece, n = std::min(kPiece, bytes - off);
    check(cudaMemcpyAsync(pieces[i].host, src + off, n, cudaMemcpyDeviceToHost, s), "copy to host (staged)");
    check(cudaEventRecord(pieces[i].done, s), "staging event record");
  };
  issue(0);
  for (size_t i = 0; i < count; i++) {
    // Piece i+1 goes into the other buffer, drained at the end of the previous iteration.
    if (i + 1 < count) issue(i + 1);
    check(cudaEventSynchronize(pieces[i].done), "staging event");
    const size_t off = i * kPiece;
    std::memcpy(dst + off, pieces[i].host, std::min(kPiece, bytes - off));
  }
}

int64_t pinnedPoolBytes() {
  std::lock_guard<std::mutex> lock(poolMutex);
  return pinnedTotal;
}

}  // namespace cuda
}  // namespace gf

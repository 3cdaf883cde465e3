// Dataframe hash join on the device, for integer / dictionary-coded keys (codes in one space for
// both sides, combined mixed-radix into one 64-bit key). Build: the right side's (key, row) pairs
// are radix-sorted (stable, so equal keys keep right row order) and each distinct key is put in an
// open-addressing hash table with its [start, end) run of the sorted rows. Probe: each left row
// looks its key up, counts its matches, a scan gives every left row its output offset, and a
// second pass writes the pairs. Outer joins then append the right rows whose key no left row hit,
// in right row order. The order is the CPU join's (worker/kernels/df/join.ts), so both agree row
// for row. Everything between the upload of the key columns and the download of the pairs stays
// on the device.
#include <cub/device/device_radix_sort.cuh>

#include <climits>
#include <stdexcept>
#include <vector>

#include "../cuda_api.h"
#include "../df_api.h"
#include "common.h"
#include "df_common.h"

namespace gf {
namespace cuda {
namespace {

constexpr long long kNull = LLONG_MAX;
constexpr long long kEmpty = -1;
constexpr int kBlock = 256;

struct DKey {
  const int32_t *lcodes, *rcodes;
  const uint8_t *lvalid, *rvalid;
  const int32_t* rmap;
  long long rmapLen, stride, card;
};

__device__ __forceinline__ long long keyOf(const DKey* keys, int nk, bool left, int64_t i) {
  long long key = 0;
  for (int j = 0; j < nk; j++) {
    const DKey k = keys[j];
    int32_t c;
    if (left) {
      if (k.lvalid && !k.lvalid[i]) return kNull;
      c = k.lcodes[i];
    } else {
      if (k.rvalid && !k.rvalid[i]) return kNull;
      c = k.rcodes[i];
      if (k.rmap) {
        if (c < 0 || c >= k.rmapLen) return kNull;
        c = k.rmap[c];
      }
    }
    if (c < 0 || c >= k.card) return kNull;
    key += c * k.stride;
  }
  return key;
}

__device__ __forceinline__ unsigned long long hashKey(long long k) {
  unsigned long long h = static_cast<unsigned long long>(k);
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

__device__ __forceinline__ long long findSlot(const long long* hkeys, unsigned long long mask, long long key) {
  if (key == kNull) return -1;
  for (unsigned long long s = hashKey(key) & mask;; s = (s + 1) & mask) {
    const long long k = hkeys[s];
    if (k == key) return static_cast<long long>(s);
    if (k == kEmpty) return -1;
  }
}

__global__ void rightKeys(const DKey* keys, int nk, int64_t nr, long long* rkey, int32_t* rrow) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < nr; i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    rkey[i] = keyOf(keys, nk, false, i);
    rrow[i] = static_cast<int32_t>(i);
  }
}

// One thread per run of equal keys inserts (key, start, end).
__global__ void build(const long long* skey, int64_t nr, long long* hkeys, int32_t* hstart, int32_t* hend, unsigned long long mask) {
  for (int64_t p = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; p < nr; p += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const long long k = skey[p];
    if (k == kNull || (p > 0 && skey[p - 1] == k)) continue;
    int64_t lo = p + 1, hi = nr;  // first position after the run
    while (lo < hi) {
      const int64_t mid = (lo + hi) / 2;
      if (skey[mid] == k) lo = mid + 1;
      else hi = mid;
    }
    for (unsigned long long s = hashKey(k) & mask;; s = (s + 1) & mask) {
      const long long prev = static_cast<long long>(atomicCAS(reinterpret_cast<unsigned long long*>(&hkeys[s]), static_cast<unsigned long long>(kEmpty), static_cast<unsigned long long>(k)));
      if (prev == kEmpty) {
        hstart[s] = static_cast<int32_t>(p);
        hend[s] = static_cast<int32_t>(lo);
        break;
      }
    }
  }
}

__global__ void probeCount(const DKey* keys, int nk, int64_t nl, const long long* hkeys, const int32_t* hstart, const int32_t* hend, int32_t* hhit,
                           unsigned long long mask, int how, long long* lslot, long long* cnt) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < nl; i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const long long s = findSlot(hkeys, mask, keyOf(keys, nk, true, i));
    lslot[i] = s;
    if (s >= 0) {
      cnt[i] = hend[s] - hstart[s];
      if (how == 2) hhit[s] = 1;
    } else cnt[i] = how == 0 ? 0 : 1;
  }
}

__global__ void unmatchedRight(const DKey* keys, int nk, int64_t nr, const long long* hkeys, const int32_t* hhit, unsigned long long mask, long long* flag) {
  for (int64_t r = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; r < nr; r += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const long long s = findSlot(hkeys, mask, keyOf(keys, nk, false, r));
    flag[r] = s < 0 || !hhit[s] ? 1 : 0;
  }
}

__global__ void fillPairs(int64_t nl, const long long* lslot, const long long* off, const int32_t* hstart, const int32_t* hend, const int32_t* srow, int how,
                          int32_t* li, int32_t* ri) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < nl; i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    long long o = off[i];
    const long long s = lslot[i];
    if (s >= 0) {
      for (int32_t p = hstart[s]; p < hend[s]; p++, o++) {
        li[o] = static_cast<int32_t>(i);
        ri[o] = srow[p];
      }
    } else if (how != 0) {
      li[o] = static_cast<int32_t>(i);
      ri[o] = -1;
    }
  }
}

__global__ void fillUnmatched(int64_t nr, const long long* flag, const long long* uoff, long long base, int32_t* li, int32_t* ri) {
  for (int64_t r = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; r < nr; r += static_cast<int64_t>(gridDim.x) * blockDim.x)
    if (flag[r]) {
      li[base + uoff[r]] = -1;
      ri[base + uoff[r]] = static_cast<int32_t>(r);
    }
}

}  // namespace

int64_t dfJoin(const df::JoinArgs& a, int32_t* li, int32_t* ri, int64_t capacity) {
  ensureDevice();
  const int nk = static_cast<int>(a.keys.size());
  const int64_t nl = a.nl, nr = a.nr;
  dfk::Staging s;
  std::vector<DKey> keys;
  for (const auto& k : a.keys)
    keys.push_back(DKey{s.put(k.lcodes, nl), s.put(k.rcodes, nr), s.put(k.lvalid, nl), s.put(k.rvalid, nr), s.put(k.rmap, k.rmapLen), k.rmapLen, k.stride, k.card});
  const DKey* dkeys = s.put(keys.data(), nk);
  // Build side: sorted (key, row) pairs of the right.
  long long* rkey = s.alloc<long long>(nr);
  int32_t* rrow = s.alloc<int32_t>(nr);
  long long* skey = s.alloc<long long>(nr);
  int32_t* srow = s.alloc<int32_t>(nr);
  if (nr > 0) {
    rightKeys<<<dfk::gridFor(nr, kBlock), kBlock, 0, stream()>>>(dkeys, nk, nr, rkey, rrow);
    launched("join right keys");
    size_t bytes = 0;
    check(cub::DeviceRadixSort::SortPairs(nullptr, bytes, rkey, skey, rrow, srow, static_cast<int>(nr), 0, 64, stream()), "sort (size)");
    void* temp = s.alloc<unsigned char>(static_cast<int64_t>(bytes));
    check(cub::DeviceRadixSort::SortPairs(temp, bytes, rkey, skey, rrow, srow, static_cast<int>(nr), 0, 64, stream()), "sort");
  }
  unsigned long long cap = 16;
  while (cap < 2 * static_cast<unsigned long long>(nr)) cap <<= 1;
  const unsigned long long mask = cap - 1;
  long long* hkeys = s.alloc<long long>(static_cast<int64_t>(cap));
  int32_t* hstart = s.alloc<int32_t>(static_cast<int64_t>(cap));
  int32_t* hend = s.alloc<int32_t>(static_cast<int64_t>(cap));
  int32_t* hhit = s.alloc<int32_t>(static_cast<int64_t>(cap));
  check(cudaMemsetAsync(hkeys, 0xff, cap * sizeof(long long), stream()), "memset");  // kEmpty = -1
  check(cudaMemsetAsync(hhit, 0, cap * sizeof(int32_t), stream()), "memset");
  if (nr > 0) {
    build<<<dfk::gridFor(nr, kBlock), kBlock, 0, stream()>>>(skey, nr, hkeys, hstart, hend, mask);
    launched("join build");
  }
  // Probe: matches per left row, offsets by scan.
  long long* lslot = s.alloc<long long>(nl);
  long long* cnt = s.alloc<long long>(nl + 1);
  long long* off = s.alloc<long long>(nl + 1);
  check(cudaMemsetAsync(cnt + nl, 0, sizeof(long long), stream()), "memset");
  if (nl > 0) {
    probeCount<<<dfk::gridFor(nl, kBlock), kBlock, 0, stream()>>>(dkeys, nk, nl, hkeys, hstart, hend, hhit, mask, a.how, lslot, cnt);
    launched("join probe");
  }
  dfk::exclusiveScan(s, cnt, off, nl);
  long long* flag = nullptr;
  long long* uoff = nullptr;
  if (a.how == 2) {
    flag = s.alloc<long long>(nr + 1);
    uoff = s.alloc<long long>(nr + 1);
    check(cudaMemsetAsync(flag + nr, 0, sizeof(long long), stream()), "memset");
    if (nr > 0) {
      unmatchedRight<<<dfk::gridFor(nr, kBlock), kBlock, 0, stream()>>>(dkeys, nk, nr, hkeys, hhit, mask, flag);
      launched("join unmatched");
    }
    dfk::exclusiveScan(s, flag, uoff, nr);
  }
  long long matched = 0, unmatched = 0;
  check(cudaMemcpyAsync(&matched, off + nl, sizeof(long long), cudaMemcpyDeviceToHost, stream()), "copy count");
  if (uoff) check(cudaMemcpyAsync(&unmatched, uoff + nr, sizeof(long long), cudaMemcpyDeviceToHost, stream()), "copy count");
  sync();
  const long long total = matched + unmatched;
  if (total > INT32_MAX) throw std::runtime_error("join: " + std::to_string(total) + " result rows do not fit one partition (2^31 - 1)");
  if (total > capacity || total == 0) return total;
  int32_t* dli = s.alloc<int32_t>(total);
  int32_t* dri = s.alloc<int32_t>(total);
  if (nl > 0) {
    fillPairs<<<dfk::gridFor(nl, kBlock), kBlock, 0, stream()>>>(nl, lslot, off, hstart, hend, srow, a.how, dli, dri);
    launched("join fill");
  }
  if (unmatched > 0) {
    fillUnmatched<<<dfk::gridFor(nr, kBlock), kBlock, 0, stream()>>>(nr, flag, uoff, matched, dli, dri);
    launched("join fill unmatched");
  }
  check(cudaMemcpyAsync(li, dli, static_cast<size_t>(total) * sizeof(int32_t), cudaMemcpyDeviceToHost, stream()), "copy pairs");
  check(cudaMemcpyAsync(ri, dri, static_cast<size_t>(total) * sizeof(int32_t), cudaMemcpyDeviceToHost, stream()), "copy pairs");
  sync();
  return total;
}

}  // namespace cuda
}  // namespace gf

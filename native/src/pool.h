// A fixed-size thread pool for the CPU kernels. `parallelFor` hands out indices [0, n) one at a
// time from a shared counter; the calling thread (a libuv worker running an AsyncWorker) works
// too, so a pool of T threads uses T + 1 cores at most while one call waits. Several calls may
// run at once (several tasks in flight on one worker): each is its own job in the queue.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace gf {

class Pool {
 public:
  explicit Pool(int threads);
  ~Pool();
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;
  int threads() const { return static_cast<int>(workers_.size()) + 1; }
  void parallelFor(int64_t n, const std::function<void(int64_t)>& fn);

  // The pool of `threads` threads in total (caller included), made on first use and kept.
  static Pool& get(int threads);

 private:
  struct Job {
    const std::function<void(int64_t)>* fn;
    int64_t n;
    std::atomic<int64_t> next{0};
    std::atomic<int64_t> done{0};
    std::atomic<int> active{0};
  };
  void run(Job& job);
  void loop();

  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable wake_, finished_;
  std::deque<std::shared_ptr<Job>> jobs_;
  bool stop_ = false;
};

}  // namespace gf

#include "pool.h"

#include <map>

namespace gf {

Pool::Pool(int threads) {
  for (int i = 1; i < threads; i++) workers_.emplace_back([this] { loop(); });
}

Pool::~Pool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  for (auto& t : workers_) t.join();
}

Pool& Pool::get(int threads) {
  static std::mutex mu;
  // Never destroyed: worker threads must not be joined during static destruction at exit.
  static auto* pools = new std::map<int, std::unique_ptr<Pool>>();
  std::lock_guard<std::mutex> lock(mu);
  auto& p = (*pools)[threads];
  if (!p) p = std::make_unique<Pool>(threads);
  return *p;
}

void Pool::run(Job& job) {
  int64_t i;
  while ((i = job.next.fetch_add(1)) < job.n) {
    (*job.fn)(i);
    if (job.done.fetch_add(1) + 1 == job.n) {
      std::lock_guard<std::mutex> lock(mu_);
      finished_.notify_all();
    }
  }
}

void Pool::loop() {
  for (;;) {
    std::shared_ptr<Job> job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      wake_.wait(lock, [this] { return stop_ || !jobs_.empty(); });
      if (stop_) return;
      job = jobs_.front();
      if (job->next.load() >= job->n) {
        jobs_.pop_front();
        continue;
      }
    }
    run(*job);
  }
}

void Pool::parallelFor(int64_t n, const std::function<void(int64_t)>& fn) {
  if (n <= 0) return;
  if (n == 1 || workers_.empty()) {
    for (int64_t i = 0; i < n; i++) fn(i);
    return;
  }
  auto job = std::make_shared<Job>();
  job->fn = &fn;
  job->n = n;
  {
    std::lock_guard<std::mutex> lock(mu_);
    jobs_.push_back(job);
  }
  wake_.notify_all();
  run(*job);
  std::unique_lock<std::mutex> lock(mu_);
  finished_.wait(lock, [&] { return job->done.load() == job->n; });
  // Drop the finished job from the queue if no worker has yet.
  for (auto it = jobs_.begin(); it != jobs_.end(); ++it)
    if (it->get() == job.get()) {
      jobs_.erase(it);
      break;
    }
}

}  // namespace gf

#include "engine/maps/MapFrames.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <memory>
#include <thread>

#include "core/Error.h"
#include "engine/config/KernelParams.h"
#include "engine/formats/TrajectoryFile.h"
#include "engine/maps/MapReporter.h"
#include "engine/output/Progress.h"
#include "engine/output/StopSignals.h"
#include "kernels/common/Device.h"
#include "kernels/common/DeviceFrame.h"
#include "kernels/pme/Electrostatics.h"
#include "kernels/vsites/VirtualSites.h"
#if defined(FARADAY_HAVE_CUDA)
#include "kernels/common/CudaOwners.h"
#include "kernels/common/DeviceBuffer.h"
#endif

namespace faraday {

long long mapChunkFrames(long long frames) { return std::max<long long>(8, (frames + 63) / 64); }

void readMapFrame(TrajectoryReader& trajectory, long long index, const System& system, TrajectoryFrame& frame) {
  trajectory.readFrame(index, frame);
  constructVirtualSites(system.topology.virtualSites, frame.positions, frame.hasBox ? frame.box : system.box);
}

void ChunkReducer::addInOrder(const std::vector<double>& sum) {
  if (sum.size() != total_.size()) throw Error("potential map: a chunk's sum has the wrong number of points");
  for (std::size_t p = 0; p < total_.size(); ++p) total_[p] += sum[p];
}

void ChunkReducer::add(long long chunk, std::vector<double> sum) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    waiting_.emplace(chunk, std::move(sum));
  }
  arrived_.notify_one();
}

void ChunkReducer::addReady(std::chrono::milliseconds wait) {
  std::unique_lock<std::mutex> lock(mutex_);
  arrived_.wait_for(lock, wait, [&] { return waiting_.count(next_) > 0; });
  for (auto it = waiting_.find(next_); it != waiting_.end(); it = waiting_.find(next_)) {
    const std::vector<double> sum = std::move(it->second);
    waiting_.erase(it);
    ++next_;
    lock.unlock();  // the adders go on handing chunks over meanwhile
    addInOrder(sum);
    lock.lock();
  }
}

std::vector<double> ChunkReducer::total() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& [chunk, sum] : waiting_) addInOrder(sum);  // std::map: in chunk order
  waiting_.clear();
  return total_;
}

namespace {

/// Everything the workers share.
struct Shared {
  const Config& config;
  const System& system;
  const EwaldSetup& ewald;
  const std::vector<Vec3>& first;  // frame 0: fixes the lattice of map.extent = atoms
  MapChunks chunks;
  int workers;
  ChunkReducer& reducer;
  std::atomic<long long>& done;
  std::atomic<bool>& failed;
};

bool stopping(const Shared& s) { return StopSignals::received() != 0 || s.failed.load(); }

#if defined(FARADAY_HAVE_CUDA)
/// A GPU worker's frame feed: two page-locked slots, filled by the host in turn while the
/// GPU maps the frame uploaded from the other; one device array the frame is copied into on
/// the upload stream, ahead of the map's first kernel on that stream (which copies it away).
class DeviceFeed {
 public:
  DeviceFeed(const std::vector<double>& charges) : n_(charges.size()) {
    charges_.upload(charges, stream_.get());
    positions_.resize(4 * n_);
    for (PinnedBuffer<double>& h : host_) h.resize(4 * n_);
    for (double q : charges) netCharge_ += q;
    FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
  }

  /// Uploads `positions` (nm) and returns the device frame; waits only for the upload made
  /// from this slot two frames ago.
  DeviceFrame upload(const std::vector<Vec3>& positions) {
    const int slot = next_;
    next_ = 1 - next_;
    if (used_[slot]) FARADAY_CUDA_CHECK(cudaEventSynchronize(copied_[slot].get()));
    double* h = host_[slot].data();
    for (std::size_t a = 0; a < n_; ++a) {
      h[4 * a] = positions[a].x;
      h[4 * a + 1] = positions[a].y;
      h[4 * a + 2] = positions[a].z;
      h[4 * a + 3] = 0.0;
    }
    FARADAY_CUDA_CHECK(cudaMemcpyAsync(positions_.data(), h, 4 * n_ * sizeof(double), cudaMemcpyHostToDevice,
                                       stream_.get()));
    FARADAY_CUDA_CHECK(cudaEventRecord(copied_[slot].get(), stream_.get()));
    used_[slot] = true;
    DeviceFrame f;
    f.n = int(n_);
    f.positions = positions_.data();
    f.charges = charges_.data();
    f.netCharge = netCharge_;
    f.stream = stream_.get();
    return f;
  }

 private:
  std::size_t n_;
  double netCharge_ = 0;
  CudaStream stream_;
  DeviceBuffer<double> charges_{"map feed charges", 1}, positions_{"map feed positions", 1};
  PinnedBuffer<double> host_[2] = {PinnedBuffer<double>("map feed slot 0"), PinnedBuffer<double>("map feed slot 1")};
  CudaEvent copied_[2] = {CudaEvent(cudaEventDisableTiming), CudaEvent(cudaEventDisableTiming)};
  bool used_[2] = {false, false};
  int next_ = 0;
};
#endif

/// One worker: chunks rank, rank + workers, ... of the trajectory, each summed and handed to
/// the reducer.
void runWorker(const Shared& s, int rank, bool useCuda, int device, Timers* t, Lattice& lattice) {
  static std::mutex constructing;  // the CPU pme map's FFTW plans are made one at a time
  if (useCuda) useCudaDevice(device);
  const auto trajectory = openTrajectory(s.config.map.trajectory, (long long)s.system.size());
  std::unique_ptr<PotentialMapAverager> averager;
  {
    std::unique_lock<std::mutex> lock(constructing, std::defer_lock);
    if (!useCuda) lock.lock();
    averager = std::make_unique<PotentialMapAverager>(s.config.map, s.system, useCuda, t, &s.ewald);
    averager->startWith(s.first);
  }
  lattice = averager->lattice();
#if defined(FARADAY_HAVE_CUDA)
  std::unique_ptr<DeviceFeed> feed;
  if (useCuda && averager->takesDeviceFrames()) feed = std::make_unique<DeviceFeed>(s.system.charge);
#endif
  TrajectoryFrame frame;
  for (long long c = rank; c < s.chunks.count() && !stopping(s); c += s.workers) {
    long long mapped = 0;
    for (long long f = s.chunks.first(c); f < s.chunks.end(c) && !stopping(s); ++f) {
      {
        ScopedTimer read(t, "read");
        readMapFrame(*trajectory, f, s.system, frame);
      }
      const Box& box = frame.hasBox ? frame.box : s.system.box;
#if defined(FARADAY_HAVE_CUDA)
      if (feed) {
        DeviceFrame d;
        {
          ScopedTimer upload(t, "upload");
          d = feed->upload(frame.positions);
        }
        averager->addFrame(d, box);
      } else
#endif
        averager->addFrame(frame.positions, box);
      ++mapped;
      ++s.done;
    }
    if (mapped == 0) break;
    ScopedTimer sum(t, "map.chunk_sum");
    s.reducer.add(c, averager->takeSum());
  }
}

}  // namespace

MapAverage averageMapFrames(const Config& config, const System& system, bool useCuda, const std::vector<int>& devices,
                            long long frames, Timers* timers) {
  if (devices.empty()) throw Error("potential map: no worker to map the frames");
#if !defined(FARADAY_HAVE_CUDA)
  if (useCuda) throw keyError("run.platform", "cuda: this build has no CUDA support");
#endif
  const EwaldSetup ewald = mapEwaldSetup(config, system);
  std::vector<Vec3> first;
  {
    TrajectoryFrame frame;
    readMapFrame(*openTrajectory(config.map.trajectory, (long long)system.size()), 0, system, frame);
    first = frame.positions;
  }
  const int workers = int(devices.size());
  // The lattice (and so the reducer's size) as every worker will make it.
  const std::size_t points = [&] {
    PotentialMapAverager probe(config.map, system, false, nullptr, &ewald);
    if (config.map.extent == MapExtent::Atoms) return mapAtomsLattice(config.map, mapExtentAtoms(config.map, system), first).size();
    return probe.lattice().size();
  }();
  ChunkReducer reducer(points);
  std::atomic<long long> done{0};
  std::atomic<bool> failed{false};
  const Shared shared{config, system, ewald, first, MapChunks{frames, mapChunkFrames(frames)}, workers, reducer,
                      done, failed};
  std::vector<Timers> workerTimers(devices.size());
  std::vector<Lattice> lattices(devices.size());
  std::vector<std::exception_ptr> errors(devices.size());
  std::atomic<int> ended{0};
  std::vector<std::thread> threads;
  for (int r = 0; r < workers; ++r)
    threads.emplace_back([&, r] {
      try {
        runWorker(shared, r, useCuda, devices[std::size_t(r)], &workerTimers[std::size_t(r)], lattices[std::size_t(r)]);
      } catch (...) {
        errors[std::size_t(r)] = std::current_exception();
        failed = true;
      }
      ++ended;
    });
  Progress progress = Progress::ofFrames(config.run.progressInterval, frames);
  while (ended.load() < workers) {
    progress.update(std::min(done.load(), frames));
    reducer.addReady(std::chrono::milliseconds(20));
  }
  for (std::thread& t : threads) t.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  progress.finish();
  if (timers)
    for (const Timers& t : workerTimers)
      for (const auto& [phase, entry] : t.ordered()) timers->add(phase, entry.seconds / workers);
  MapAverage result;
  result.lattice = lattices[0];
  result.frames = done.load();
  {
    ScopedTimer t(timers, "map.reduce");
    result.average = reducer.total();
  }
  for (double& v : result.average) v /= double(std::max<long long>(result.frames, 1));
  return result;
}

}  // namespace faraday

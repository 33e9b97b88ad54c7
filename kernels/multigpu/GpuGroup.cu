// GpuGroup over NCCL loaded at run time (see GpuGroup.h).
#if defined(FARADAY_HAVE_NCCL)
#include <dlfcn.h>
#include <nccl.h>

#include <cstdlib>
#include <mutex>
#include <string>

#include "core/Error.h"
#include "kernels/common/CudaCheck.h"
#include "kernels/common/CudaOwners.h"
#include "kernels/multigpu/GpuGroup.h"

namespace faraday {
namespace {

/// The NCCL entry points this engine uses, resolved from libnccl.so.2.
struct NcclApi {
  decltype(&ncclGetVersion) getVersion = nullptr;
  decltype(&ncclCommInitAll) commInitAll = nullptr;
  decltype(&ncclCommDestroy) commDestroy = nullptr;
  decltype(&ncclAllGather) allGather = nullptr;
  decltype(&ncclAllReduce) allReduce = nullptr;
  decltype(&ncclSend) send = nullptr;
  decltype(&ncclRecv) recv = nullptr;
  decltype(&ncclGroupStart) groupStart = nullptr;
  decltype(&ncclGroupEnd) groupEnd = nullptr;
  decltype(&ncclGetErrorString) errorString = nullptr;
};

template <class F>
void resolve(void* handle, const char* name, F& f) {
  f = reinterpret_cast<F>(dlsym(handle, name));
  if (!f) throw Error(std::string("NCCL: libnccl.so.2 has no ") + name);
}

const NcclApi& nccl() {
  static std::mutex mutex;
  static NcclApi api;
  static bool loaded = false;
  std::lock_guard<std::mutex> lock(mutex);
  if (loaded) return api;
  // NVLink multicast stays off unless the environment says otherwise.
  setenv("NCCL_NVLS_ENABLE", "0", 0);
  void* handle = dlopen("libnccl.so.2", RTLD_NOW | RTLD_GLOBAL);
  if (!handle) {
    const char* why = dlerror();
    throw Error(std::string("several GPUs need NCCL, and libnccl.so.2 could not be loaded (") +
                (why ? why : "not found") + "): put the folder that holds it on LD_LIBRARY_PATH");
  }
  resolve(handle, "ncclGetVersion", api.getVersion);
  resolve(handle, "ncclCommInitAll", api.commInitAll);
  resolve(handle, "ncclCommDestroy", api.commDestroy);
  resolve(handle, "ncclAllGather", api.allGather);
  resolve(handle, "ncclAllReduce", api.allReduce);
  resolve(handle, "ncclSend", api.send);
  resolve(handle, "ncclRecv", api.recv);
  resolve(handle, "ncclGroupStart", api.groupStart);
  resolve(handle, "ncclGroupEnd", api.groupEnd);
  resolve(handle, "ncclGetErrorString", api.errorString);
  loaded = true;
  return api;
}

void check(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) throw Error(std::string("NCCL ") + what + " failed: " + nccl().errorString(r));
}

/// sum[i] = gathered[0 * count + i] + gathered[1 * count + i] + ... in rank order.
__global__ void sumRanksKernel(const double* gathered, int ranks, std::size_t count, double* sum) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  double s = gathered[i];
  for (int r = 1; r < ranks; ++r) s += gathered[std::size_t(r) * count + i];
  sum[i] = s;
}

}  // namespace

bool builtWithNccl() { return true; }

struct GpuGroup::Impl {
  std::vector<int> devices;
  std::vector<ncclComm_t> comms;
  std::vector<CudaStream> streams;
};

GpuGroup::GpuGroup(const std::vector<int>& devices) : impl_(std::make_unique<Impl>()) {
  if (devices.empty()) throw Error("a GPU group needs at least one device");
  const NcclApi& api = nccl();
  impl_->devices = devices;
  for (int d : devices) {
    FARADAY_CUDA_CHECK(cudaSetDevice(d));
    impl_->streams.emplace_back();
  }
  impl_->comms.resize(devices.size());
  check(api.commInitAll(impl_->comms.data(), int(devices.size()), devices.data()), "ncclCommInitAll");
  FARADAY_CUDA_CHECK(cudaSetDevice(devices[0]));
}

GpuGroup::~GpuGroup() {
  if (!impl_) return;
  for (std::size_t r = 0; r < impl_->comms.size(); ++r) {
    cudaSetDevice(impl_->devices[r]);
    if (impl_->comms[r]) nccl().commDestroy(impl_->comms[r]);
  }
  // The streams are destroyed on their own devices.
  for (std::size_t r = impl_->streams.size(); r-- > 0;) {
    cudaSetDevice(impl_->devices[r]);
    impl_->streams.pop_back();
  }
  cudaSetDevice(impl_->devices[0]);
}

int GpuGroup::size() const { return int(impl_->devices.size()); }
int GpuGroup::device(int rank) const { return impl_->devices.at(std::size_t(rank)); }
int GpuGroup::ncclVersion() const {
  int v = 0;
  check(nccl().getVersion(&v), "ncclGetVersion");
  return v;
}

void GpuGroup::sumInRankOrder(const std::vector<const double*>& partial, const std::vector<double*>& gathered,
                              const std::vector<double*>& sum, std::size_t count) {
  const int ranks = size();
  if ((int)partial.size() != ranks || (int)gathered.size() != ranks || (int)sum.size() != ranks)
    throw Error("GpuGroup::sumInRankOrder: one array per GPU of the group is needed");
  const NcclApi& api = nccl();
  check(api.groupStart(), "ncclGroupStart");
  for (int r = 0; r < ranks; ++r) {
    FARADAY_CUDA_CHECK(cudaSetDevice(device(r)));
    check(api.allGather(partial[r], gathered[r], count, ncclDouble, impl_->comms[r], impl_->streams[r].get()),
          "ncclAllGather");
  }
  check(api.groupEnd(), "ncclGroupEnd");
  for (int r = 0; r < ranks; ++r) {
    FARADAY_CUDA_CHECK(cudaSetDevice(device(r)));
    const unsigned blocks = unsigned((count + 255) / 256);
    if (blocks) sumRanksKernel<<<blocks, 256, 0, impl_->streams[r].get()>>>(gathered[r], ranks, count, sum[r]);
    FARADAY_CUDA_CHECK_LAUNCH("sumRanksKernel");
  }
  for (int r = 0; r < ranks; ++r) {
    FARADAY_CUDA_CHECK(cudaSetDevice(device(r)));
    FARADAY_CUDA_CHECK(cudaStreamSynchronize(impl_->streams[r].get()));
  }
  FARADAY_CUDA_CHECK(cudaSetDevice(device(0)));
}

void GpuGroup::allReduceSum(int rank, unsigned long long* first, std::size_t firstCount, unsigned long long* second,
                            std::size_t secondCount, void* stream) {
  const NcclApi& api = nccl();
  ncclComm_t comm = impl_->comms.at(std::size_t(rank));
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  check(api.groupStart(), "ncclGroupStart");
  check(api.allReduce(first, first, firstCount, ncclUint64, ncclSum, comm, s), "ncclAllReduce");
  if (second && secondCount)
    check(api.allReduce(second, second, secondCount, ncclUint64, ncclSum, comm, s), "ncclAllReduce");
  check(api.groupEnd(), "ncclGroupEnd");
}

void GpuGroup::exchange(int rank, const std::vector<PeerFloats>& sends, const std::vector<PeerFloats>& recvs,
                        void* stream) {
  const NcclApi& api = nccl();
  ncclComm_t comm = impl_->comms.at(std::size_t(rank));
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  for (const auto* list : {&sends, &recvs})
    for (const PeerFloats& b : *list)
      if (b.peer < 0 || b.peer >= size() || b.peer == rank)
        throw Error("GpuGroup::exchange: rank " + std::to_string(rank) + " cannot exchange with rank " +
                    std::to_string(b.peer));
  check(api.groupStart(), "ncclGroupStart");
  for (const PeerFloats& b : sends)
    if (b.count) check(api.send(b.data, b.count, ncclFloat, b.peer, comm, s), "ncclSend");
  for (const PeerFloats& b : recvs)
    if (b.count) check(api.recv(b.data, b.count, ncclFloat, b.peer, comm, s), "ncclRecv");
  check(api.groupEnd(), "ncclGroupEnd");
}

}  // namespace faraday
#endif

// The CUDA backend's step graph: capture of the step with its conditional list build, by
// variant (see CudaStepGraph.cuh).
#include "engine/backends/CudaStepGraph.cuh"

#include "kernels/common/CudaCheck.h"

namespace faraday {

std::vector<CudaTimedPhase> CudaStepGraph::phases(bool bonded, bool constraints, bool withPme, bool several) {
  // Intervals: 0 constraints, 1 first half, 2 list, 3 tiles, [4 bonded, 5 exclusion correction,]
  // then PME, the sum over the GPUs, the constraints and the second half.
  const int pme = stepEvents(bonded) - 5;
  std::vector<CudaTimedPhase> p = {{"integrate", {1, pme + 3}}, {"neighbor", {2}}, {"nonbonded", {3}}};
  if (bonded) p.push_back({"bonded", {4}}), p.push_back({"exclusion correction", {5}});
  p.push_back({"pme", {pme}});
  if (withPme) {
    // PME's marks: 0 start, then after the binning, the spreading, the forward plane
    // transforms, the exchange to rows, the x lines and convolution, the exchange back, the
    // inverse plane transforms and the gather (the exchanges take no time on one GPU).
    const int e = pmeEvent(bonded);
    p.push_back({"pme.spline", {e}});
    p.push_back({"pme.spread", {e + 1}});
    p.push_back({"pme.fft", {e + 2, e + 6}});
    p.push_back({"pme.exchange", {e + 3, e + 5}});
    p.push_back({"pme.convolve", {e + 4}});
    p.push_back({"pme.gather", {e + 7}});
  }
  if (constraints) p.push_back({"constraints", {0, pme + 2}});
  if (several) p.push_back({"gpu sum", {pme + 1}});
  return p;
}

void CudaStepGraph::launch(cudaStream_t stream, bool energies, bool timed) {
  const int variant = (energies ? 1 : 0) + (timed ? 2 : 0);
  if (!graphs_[variant].captured()) capture(variant, stream);
  graphs_[variant].launch(stream);
}

namespace {

/// Launches `graph` on `stream`, capturing `body` into it first if it holds no graph yet.
template <class Body>
void launchCapturedOnce(CudaGraphExec& graph, cudaStream_t stream, Body&& body) {
  if (!graph.captured()) graph.capture(stream, body, cudaGraphInstantiateFlagUseNodePriority);
  graph.launch(stream);
}

}  // namespace

void CudaStepGraph::launchTrial(cudaStream_t stream) {
  launchCapturedOnce(trial_, stream, [&] {
    work_.enqueueKeepList(stream);
    work_.enqueueRebuild(stream);
    work_.enqueueEvaluation(stream);
  });
}

void CudaStepGraph::launchUndo(cudaStream_t stream) {
  launchCapturedOnce(undo_, stream, [&] { work_.enqueueUndo(stream); });
}

/// Captures one step: the integrator's first half sets the condition of the list build.
void CudaStepGraph::capture(int variant, cudaStream_t stream) {
  const bool energies = (variant & 1) != 0;
  CudaPhaseTimer* timer = (variant & 2) ? &timer_ : nullptr;
  const auto mark = [&](int k) {
    if (timer) timer->recordInCapture(k, stream);
  };
  graphs_[variant].capture(stream, [&] {
    cudaStreamCaptureStatus captureStatus;
    const cudaGraphNode_t* deps = nullptr;
    std::size_t numDeps = 0;
    cudaGraph_t building = nullptr;
    FARADAY_CUDA_CHECK(cudaStreamGetCaptureInfo(stream, &captureStatus, nullptr, &building, nullptr, nullptr, nullptr));
    FARADAY_CUDA_CHECK(cudaGraphConditionalHandleCreate(&handles_[variant], building, 0, 0));
    mark(0);
    work_.enqueueConstraints(stream, true, energies);
    mark(1);
    work_.enqueueFirstHalf(stream, handles_[variant], energies);
    mark(2);
    // The conditional list build, its body captured on bodyStream_.
    FARADAY_CUDA_CHECK(cudaStreamGetCaptureInfo(stream, &captureStatus, nullptr, &building, &deps, nullptr, &numDeps));
    cudaGraphNodeParams cp{};
    cp.type = cudaGraphNodeTypeConditional;
    cp.conditional.handle = handles_[variant];
    cp.conditional.type = cudaGraphCondTypeIf;
    cp.conditional.size = 1;
    cudaGraphNode_t node = nullptr;
    FARADAY_CUDA_CHECK(cudaGraphAddNode(&node, building, deps, nullptr, numDeps, &cp));
    FARADAY_CUDA_CHECK(cudaStreamUpdateCaptureDependencies(stream, &node, nullptr, 1, cudaStreamSetCaptureDependencies));
    captureListBuild(cp.conditional.phGraph_out[0]);
    mark(kFirstForceEvent - 1);
    work_.enqueueForces(stream, energies, timer, /*concurrent=*/timer == nullptr, /*inStep=*/true);  // ends at lastEvent_ - 2
    work_.enqueueConstraints(stream, false, energies);
    mark(lastEvent_ - 1);
    work_.enqueueSecondHalf(stream, energies);
    mark(lastEvent_);
  }, cudaGraphInstantiateFlagUseNodePriority);
}

/// The list build (reference := positions, sort, permute, tiles) into `body`, on bodyStream_.
void CudaStepGraph::captureListBuild(cudaGraph_t body) {
  const cudaStream_t stream = bodyStream_.get();
  try {
    FARADAY_CUDA_CHECK(cudaStreamBeginCaptureToGraph(stream, body, nullptr, nullptr, 0, cudaStreamCaptureModeRelaxed));
    work_.enqueueRebuild(stream);
    cudaGraph_t captured = nullptr;
    FARADAY_CUDA_CHECK(cudaStreamEndCapture(stream, &captured));  // `body` itself, owned by its node
  } catch (...) {
    cudaGraph_t partial = nullptr;
    cudaStreamEndCapture(stream, &partial);
    throw;
  }
}

}  // namespace faraday

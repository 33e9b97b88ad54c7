// The CUDA backend's step graph: capture of the step with its conditional list build, by
// variant (see CudaStepGraph.cuh).
#include "engine/backends/CudaStepGraph.cuh"

#include "kernels/common/CudaCheck.h"

namespace faraday {

std::vector<CudaTimedPhase> CudaStepGraph::phases(const std::vector<const CudaForceTerm*>& terms, bool constraints,
                                                  bool several, bool sites) {
  // Intervals: 0 constraints, 1 first half, 2 list, then the terms' rows from 3 on, then the
  // sum over the GPUs, the constraints and the second half.
  int rows = 0;
  for (const CudaForceTerm* t : terms) rows += int(t->phaseRows().size());
  const int afterTerms = kFirstForceEvent - 1 + rows;
  std::vector<CudaTimedPhase> p = {{"integrate", {1, afterTerms + 2}}, {"neighbor", {2}}};
  int row = kFirstForceEvent - 1, detail = stepEvents(rows);
  for (const CudaForceTerm* t : terms) {
    for (const char* name : t->phaseRows()) p.push_back({name, {row++}});
    for (CudaTimedPhase d : t->detailRows()) {
      for (int& k : d.intervals) k += detail;
      p.push_back(std::move(d));
    }
    detail += t->detailEvents();
  }
  if (constraints) p.push_back({"constraints", {0, afterTerms + 1}});
  if (several) p.push_back({"gpu sum", {afterTerms}});
  if (sites && !several) p.push_back({"virtual sites", {afterTerms}});
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
  const int last = stepEvents(work_.forceRows()) - 1;
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
    work_.enqueueForces(stream, energies, timer, /*concurrent=*/timer == nullptr, /*inStep=*/true);  // ends at last - 2
    work_.enqueueConstraints(stream, false, energies);
    mark(last - 1);
    work_.enqueueSecondHalf(stream, energies);
    mark(last);
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

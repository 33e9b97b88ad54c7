// The barostat's volume move on the CUDA backend (Backend::scaleVolume). The state before the
// move is the roll-back copy (the move starts from a checked step), so a rejection is the
// roll-back: the saved arrays (positions, velocities, slots, forces) come back bit for bit, and
// so does the list, kept on the device before the trial build (the list a build from the saved
// reference in the old box would give). The step graph reads the box from device memory
// (Impl::writeBox), so it stays captured whether the move is accepted or not.
#include "engine/backends/CudaBackendImpl.cuh"
#include "integrators/CudaBoxScaling.h"

namespace faraday {

Energies CudaBackend::scaleVolume(const Box& newBox) {
  Impl& m = *impl_;
  if (!m.stateSet) throw Error("CudaBackend: scaleVolume() before setState()");
  {
    ScopedTimer t(m.timers, "barostat.check");
    if (!m.forcesValid) m.computeForces();
    if (!m.energyAt.empty()) m.check();  // the state is checked and saved: the roll-back point
    if (m.energiesStep != m.step) {  // lastEnergies of this state (the forces come out the same bits)
      m.evaluate();
      m.readEnergies();
    }
  }
  if (m.molecules == 0) {
    const std::vector<int> starts = moleculeStarts(m.system.topology, m.n);
    m.molecules = int(starts.size()) - 1;
    m.moleculeStarts = deviceCopy("molecule starts", starts);
    std::vector<int> large;
    for (int i = 0; i + 1 < int(starts.size()); ++i)
      if (starts[i + 1] - starts[i] >= kLargeMolecule) large.push_back(i);
    m.largeMolecules = deviceCopy("large molecules", large);
    m.largeMoleculeCount = int(large.size());
    m.moleculeMass = deviceCopy("molecule masses", m.system.mass);
  }
  m.keptBox = m.box;
  m.keptEnergies = m.lastEnergies;
  m.keptKinetic = m.kinetic;
  m.moveOpen = true;
  const BoxScalingParams params = boxScaling(m.box, newBox);
  {
    ScopedTimer t(m.timers, "barostat.scale");
    m.applyBox(newBox);  // the stream is idle after the check: its sync costs nothing
    launchScaleMolecules(m.stream(), m.dev->pos.data(), m.dev->slotOfAtom.data(), m.moleculeStarts.data(),
                         m.moleculeMass.data(), m.molecules, m.largeMolecules.data(), m.largeMoleculeCount, params);
  }
  // The scaled positions become the list's reference: sorted, permuted and built as a rebuild
  // inside a step would, then the forces and energies, all in one graph (the box is in device
  // memory, so one capture serves every move). Storage that the build or PME's bins outgrew is
  // grown, and the trial done again outside the graph.
  ScopedTimer t(m.timers, "barostat.trial");
  if (m.list->prepareKeep(m.stream())) m.graph.reset();
  m.graph.launchTrial(m.stream());
  FARADAY_CUDA_CHECK(cudaStreamSynchronize(m.stream()));
  const TileCounters c = m.readCounters();
  const bool overflow = c.tiles > m.list->tileCapacity() || c.exclusionTiles > m.list->exclusionCapacity();
  if (m.anyGpu(overflow)) {  // every GPU of the step evaluates again: the evaluation sums over them
    if (overflow) m.list->reserve(c.tiles, c.exclusionTiles);
    m.graph.reset();
    m.buildFirstList();
    m.evaluate();
  } else {
    m.evaluated();
  }
  return m.readEnergies();
}

void CudaBackend::finishVolumeMove(bool accept) {
  Impl& m = *impl_;
  if (!m.moveOpen) throw Error("finishVolumeMove() without scaleVolume()");
  m.moveOpen = false;
  if (accept) {
    m.save();  // the scaled state is the roll-back point now
    return;
  }
  ScopedTimer t(m.timers, "barostat.undo");
  m.applyBox(m.keptBox);
  if (m.list->takeKept()) {
    m.graph.launchUndo(m.stream());
    m.restored();
  } else {
    m.restore();
  }
  FARADAY_CUDA_CHECK(cudaStreamSynchronize(m.stream()));
  m.lastEnergies = m.keptEnergies;
  m.kinetic = m.keptKinetic;
  m.energiesStep = m.step;
  m.forcesValid = true;
  m.hostForces.clear();
}

}  // namespace faraday

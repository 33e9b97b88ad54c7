// The barostat's volume move on the CUDA backend (Backend::scaleVolume). The state before the
// move is the roll-back copy (the move starts from a checked step), so a rejection is the
// roll-back: the saved arrays (positions, velocities, slots, forces) come back bit for bit, and
// so does the list, kept on the device before the trial build (the list a build from the saved
// reference in the old box would give). The graph takes the box's
// edges as kernel arguments: an accepted move captures it again at the next step; a rejected one
// leaves the box, and so the captured graph, as it was.
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
    FARADAY_CUDA_CHECK(cudaStreamSynchronize(m.stream()));
    launchScaleMolecules(m.stream(), m.dev->pos.data(), m.dev->slotOfAtom.data(), m.moleculeStarts.data(),
                         m.moleculeMass.data(), m.molecules, m.largeMolecules.data(), m.largeMoleculeCount, params);
    m.applyBox(newBox);
  }
  // The scaled positions become the list's reference: sorted, permuted and built as a rebuild
  // inside a step would (storage grown if they need more tiles).
  {
    ScopedTimer t(m.timers, "neighbor");
    m.list->enqueueKeep(m.stream());
    m.dev->ref.copyFrom(m.dev->pos, m.stream());
    m.buildFirstList();
    launchWrapPositions(m.stream(), m.atoms(), m.integ);
  }
  ScopedTimer t(m.timers, "barostat.energy");
  m.evaluate();
  return m.readEnergies();
}

void CudaBackend::finishVolumeMove(bool accept) {
  Impl& m = *impl_;
  if (!m.moveOpen) throw Error("finishVolumeMove() without scaleVolume()");
  m.moveOpen = false;
  if (accept) {
    m.save();  // the scaled state is the roll-back point now
    m.graph.reset();
    return;
  }
  ScopedTimer t(m.timers, "barostat.undo");
  m.applyBox(m.keptBox);
  m.restore(m.list->enqueuePutBack(m.stream()));
  FARADAY_CUDA_CHECK(cudaStreamSynchronize(m.stream()));
  m.lastEnergies = m.keptEnergies;
  m.kinetic = m.keptKinetic;
  m.energiesStep = m.step;
  m.forcesValid = true;
  m.hostForces.clear();
}

}  // namespace faraday

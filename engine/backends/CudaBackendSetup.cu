// The CUDA backend's setup (CudaBackendImpl.cuh): from the run's typed parameters to the
// integrator's step parameters, the device state, the step's force terms and the box's device
// copies; and a new state's setup.
#include <cuda_runtime.h>

#include <cmath>

#include "engine/backends/CudaBackendImpl.cuh"
#include "integrators/Langevin.h"

namespace faraday {

CudaBackend::Impl::Impl(const CutoffRunParams& params, const System& s, Timers* t,
                        const std::vector<int>* exclusionOffsets, const std::vector<int>* exclusions)
    : system(s), timers(t), n(int(s.size())), ewald(params.ewald) {
  if (n < 1) throw Error("the CUDA backend needs at least one particle");
  if (s.size() >= std::size_t(1) << 30) throw Error("the CUDA backend takes fewer than 2^30 particles");
  if (!system.box.isValid()) throw Error("the box must be rectangular with positive edges");
  CudaDeviceState::checkMemory(n);
  cutoff = params.nonbonded.cutoff;
  buffer = params.buffer;
  if (params.bufferChosen) std::fprintf(stderr, "nonbonded.buffer = auto: %g nm on the GPU\n", buffer);
  setIntegrator(params.integrator);
  box = system.box;
  for (std::size_t i = 0; i < system.size(); ++i)
    if (!(system.mass[i] > 0))
      throw Error("particle " + std::to_string(i) + " has mass <= 0; every [atom.NAME] needs mass > 0");
  typed = params.nonbonded.typed.has_value();
  if (params.dispersionCorrection)
    dispersionAtUnitVolume = dispersionCorrection(system, cutoff, params.nonbonded.ljShift, 1.0);
  netCharge = system.netCharge();
  if (ewald.method != ElectrostaticsMethod::None) {
    coulombSelf = ewaldSelfEnergy(ewald.beta, system.charge);
    std::fprintf(stderr, "%s\n", describe(ewald).c_str());
  } else if (system.hasCharges()) {
    std::fprintf(stderr, "electrostatics.method = none: the particles' charges are ignored\n");
  }
  makeForceTerms(params, exclusionOffsets, exclusions);
  writeBox(system.box);
  FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream()));
}

void CudaBackend::Impl::setIntegrator(const IntegratorParams& ip) {
  checkIntegratorParams(ip);
  integ.langevin = ip.type == IntegratorType::Langevin;
  integ.dt = ip.dt;
  if (integ.langevin) {
    integ.a = langevinDecay(ip);
    integ.noiseVariance = langevinNoiseVariance(ip);
  }
  integ.seed = ip.seed;
  integ.box = integratorBox.data();
  integ.halfBuffer2 = 0.25 * buffer * buffer;
}

void CudaBackend::Impl::makeForceTerms(const CutoffRunParams& params, const std::vector<int>* exclusionOffsets,
                                       const std::vector<int>* exclusions) {
  dev = std::make_unique<CudaDeviceState>(n, stream());
  CudaNonbondedParams np;
  np.cutoff = cutoff;
  np.ewaldBeta = params.nonbonded.ewaldBeta;
  if (np.ewaldBeta > 0 && params.nonbonded.coulombShift) np.coulombShift = ewaldRealShift(np.ewaldBeta, cutoff);
  if (typed) {
    nonbonded = std::make_unique<CudaNonbonded>(*params.nonbonded.typed, np);
    pairType = system.type;
  } else {
    // Types of equal LJ rows share a class: the table in shared memory holds the classes.
    const LjClasses classes = ljClasses(makeLjTable(system, cutoff, params.nonbonded.ljShift));
    nonbonded = std::make_unique<CudaNonbonded>(classes.table, np);
    pairType.resize(system.size());
    for (std::size_t i = 0; i < system.size(); ++i) pairType[i] = classes.classOfType[std::size_t(system.type[i])];
  }
  if (exclusions) {
    exclusionOffsets_ = *exclusionOffsets;
    exclusions_ = *exclusions;
  } else if (system.topology.hasExclusions()) {
    exclusionOffsets_ = system.topology.exclusionOffsets;
    exclusions_ = system.topology.exclusions;
  }
  slotGroups = hydrogenSlotGroups(system);
  // The excluded pairs inside a slot group get their exclusion correction in the tile kernel
  // (their tiles carry the topology's exclusion bits), the others in the bonded kernel.
  const bool groupCorrection = !slotGroups.empty() && np.ewaldBeta > 0 && !exclusions && system.topology.hasExclusions();
  if (cuda_backend::hasBondedWork(system.topology))
    bonded = std::make_unique<CudaBonded>(system.topology, system.charge, BondedParams{np.ewaldBeta},
                                          groupCorrection ? &slotGroups.anchor : nullptr);
  if (groupCorrection) groupOfAtom = deviceCopy("group of atom", slotGroups.anchor);
  if (system.topology.hasConstraints())
    constraints = std::make_unique<CudaConstraints>(system, params.integrator.constraintTolerance);
  list = std::make_unique<CudaTileList>(TileListParams{cutoff, buffer}, n, system.box, exclusionOffsets_, exclusions_,
                                        slotGroups);
  if (ewald.method == ElectrostaticsMethod::Pme) {
    pme = makeCudaPmeOnDevice(ewald.pme, system.size());
    pme->setBox(system.box);
  }
}

void CudaBackend::Impl::writeBox(const Box& b) {
  box = b;
  IntegratorBox ib{MinimumImage::fromBox(b)};
  for (int d = 0; d < 3; ++d) ib.fractionScale[d] = pme::fixedPointScale(b.lengths()[d]);
  integratorBox.set(ib, stream());
  nonbonded->setBox(b, buffer, stream());
  if (bonded) bonded->setBox(b, stream());
  list->setBox(b, stream());
}

void CudaBackend::Impl::applyBox(const Box& b) {
  if (b.lengths() == box.lengths()) return;
  if (!b.isValid()) throw Error("the box must be rectangular with positive edges");
  if (!(2 * cutoff < b.shortestEdge()))
    throw keyError("nonbonded.cutoff", "must be below half the shortest box edge (" +
                                           std::to_string(0.5 * b.shortestEdge()) + " nm)");
  FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream()));
  writeBox(b);
  if (pme) pme->setBox(b);
}

void CudaBackend::Impl::setState(const State& state, const std::vector<Vec3>& listReference) {
  if (state.positions.size() != std::size_t(n) || state.velocities.size() != std::size_t(n))
    throw Error("state: positions and velocities must have one entry per particle");
  if (!listReference.empty() && listReference.size() != std::size_t(n))
    throw Error("state: the neighbor-list reference must have one entry per particle");
  const Box stateBox = state.box.lengths() == Vec3{} ? system.box : state.box;
  applyBox(stateBox);  // nothing where the box is the same
  FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream()));
  stateStep = state.step;
  stateTime = state.time;
  step = 0;
  energiesStep = -1;
  stepKineticAt = -1;
  firstBad = -1;
  statusReadAt = -1;
  energyAt.clear();
  dev->upload(state, listReference, system, pairType, ewald.method != ElectrostaticsMethod::None,
              constraints ? constrainedParticles(constraints->set(), system.size()) : std::vector<char>(), stream());
  resetStatus();
  lastWasStep = false;
  ScopedTimer t(timers, "neighbor");
  buildFirstList();
  launchWrapPositions(stream(), atoms(), integ);
  dev->force.zero(stream());
  FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream()));
  long long builds = 1;
  FARADAY_CUDA_CHECK(cudaMemcpy(&dev->status.data()->builds, &builds, sizeof builds, cudaMemcpyHostToDevice));
  stateSet = true;
  forcesValid = false;
  hostForces.clear();
  save();
}

}  // namespace faraday

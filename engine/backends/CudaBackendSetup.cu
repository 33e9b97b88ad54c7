// The CUDA backend's setup (CudaBackendImpl.cuh): from the run's typed parameters to the
// integrator's step parameters, the device state, the step's force terms and the box's device
// copies; and a new state's setup.
#include <cuda_runtime.h>

#include <cmath>

#include "engine/backends/CudaBackendImpl.cuh"
#include "engine/backends/CudaBondedTerm.cuh"
#include "integrators/Langevin.h"
#include "kernels/vsites/VirtualSites.h"

namespace faraday {

CudaBackend::Impl::Impl(const CutoffRunParams& params, const System& s, Timers* t,
                        const std::vector<int>* exclusionOffsets, const std::vector<int>* exclusions)
    : system(s), timers(t), n(int(s.size())), ewald(params.ewald) {
  if (n < 1) throw Error("the CUDA backend needs at least one particle");
  if (s.size() >= std::size_t(1) << 30) throw Error("the CUDA backend takes fewer than 2^30 particles");
  if (!system.box.isValid()) throw Error("the box must be in reduced triclinic form (a along x, b in the xy plane) with a finite volume");
  CudaDeviceState::checkMemory(n);
  cutoff = params.nonbonded.cutoff;
  buffer = params.buffer;
  if (params.bufferChosen) std::fprintf(stderr, "nonbonded.buffer = auto: %g nm on the GPU\n", buffer);
  setIntegrator(params.integrator);
  box = system.box;
  inverseMasses(system);  // throws for a particle of mass <= 0 that is no virtual site
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
  CudaNonbondedParams np;
  np.cutoff = cutoff;
  np.ewaldBeta = params.nonbonded.ewaldBeta;
  if (np.ewaldBeta > 0 && params.nonbonded.coulombShift) np.coulombShift = ewaldRealShift(np.ewaldBeta, cutoff);
  std::unique_ptr<CudaNonbonded> pairKernel;
  if (typed) {
    pairKernel = std::make_unique<CudaNonbonded>(*params.nonbonded.typed, np);
    pairType = system.type;
  } else {
    // Types of equal LJ rows share a class: the table in shared memory holds the classes.
    const LjClasses classes = ljClasses(makeLjTable(system, cutoff, params.nonbonded.ljShift));
    pairKernel = std::make_unique<CudaNonbonded>(classes.table, np);
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
  groupCorrection = !slotGroups.empty() && np.ewaldBeta > 0 && !exclusions && system.topology.hasExclusions();
  list = std::make_unique<CudaTileList>(TileListParams{cutoff, buffer}, n, system.box, exclusionOffsets_, exclusions_,
                                        slotGroups);

  // The force terms, in the order of the phase table and of their energies.
  tiles = addTerm(std::make_unique<CudaTileTerm>(
      std::move(pairKernel), list,
      groupCorrection ? deviceCopy("group of atom", slotGroups.anchor) : DeviceBuffer<int>("group of atom", 0), buffer,
      typed));
  if (cuda_backend::hasBondedWork(system.topology)) {
    auto kernel = std::make_shared<CudaBonded>(system.topology, system.charge, BondedParams{np.ewaldBeta},
                                               groupCorrection ? &slotGroups.anchor : nullptr);
    CudaBondedTerm* bondedTerms = addTerm(std::make_unique<CudaBondedTerm>(kernel));
    addTerm(std::make_unique<CudaBondedTerm>(kernel, *bondedTerms));
  }
  if (ewald.method == ElectrostaticsMethod::Pme)
    pme = &addTerm(std::make_unique<CudaPmeTerm>(makeCudaPmeOnDevice(ewald.pme, system.size())))->solver();

  if (system.topology.hasConstraints())
    constraints = std::make_unique<CudaConstraints>(system, params.integrator.constraintTolerance);
  if (!system.topology.virtualSites.empty()) sites = std::make_unique<CudaVirtualSites>(system.topology.virtualSites);
  dev = std::make_unique<CudaDeviceState>(n, DeviceSumLayout{forceTermSums(), sites != nullptr}, stream());
  phases.setPhases(phaseTable(false));
}

void CudaBackend::Impl::dropPme() {
  for (std::size_t k = 0; k < terms.size(); ++k)
    if (dynamic_cast<const CudaPmeTerm*>(terms[k].get())) {
      terms.erase(terms.begin() + long(k));
      sideStreams.erase(sideStreams.begin() + long(k));
      break;
    }
  pme = nullptr;
  phases.setPhases(phaseTable(share != nullptr));
}

std::vector<CudaTimedPhase> CudaBackend::Impl::phaseTable(bool several) const {
  std::vector<const CudaForceTerm*> view;
  for (const auto& t : terms) view.push_back(t.get());
  return CudaStepGraph::phases(view, system.topology.hasConstraints(), several, sites != nullptr);
}

int CudaBackend::Impl::pmeSumsAt() const {
  for (const auto& t : terms)
    if (dynamic_cast<const CudaPmeTerm*>(t.get())) return t->sumsAt();
  return dev->sumLayout.count();
}

CudaTermArrays CudaBackend::Impl::termArrays() const {
  CudaTermArrays a;
  a.n = n;
  a.pos = dev->pos.data();
  a.posq = dev->posq.data();
  a.fractions = dev->fractions.data();
  a.charge = dev->charge.data();
  a.type = dev->type.data();
  a.atom = dev->atom.data();
  a.slotOfAtom = dev->slotOfAtom.data();
  a.force = dev->force.data();
  a.stride = dev->stride;
  a.sums = dev->nbSums.data();
  a.work = work();
  return a;
}

void CudaBackend::Impl::writeBox(const Box& b) {
  box = b;
  const IntegratorBox ib{MinimumImage::fromBox(b), pme::fractionScalesOf(b)};
  integratorBox.set(ib, stream());
  for (const auto& t : terms) t->setBox(b, stream());
  list->setBox(b, stream());
  if (sites) sites->setBox(b, stream());
}

void CudaBackend::Impl::applyBox(const Box& b) {
  if (b == box) return;
  if (!b.isValid()) throw Error("the box must be in reduced triclinic form (a along x, b in the xy plane) with a finite volume");
  if (!(cutoff < b.maxCutoff()))
    throw keyError("nonbonded.cutoff", std::string("must be below half ") + b.maxCutoffMeaning() + " (" +
                                           std::to_string(b.maxCutoff()) + " nm)");
  FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream()));
  writeBox(b);
}

void CudaBackend::Impl::setState(const State& state, const std::vector<Vec3>& listReference) {
  if (state.positions.size() != std::size_t(n) || state.velocities.size() != std::size_t(n))
    throw Error("state: positions and velocities must have one entry per particle");
  if (!listReference.empty() && listReference.size() != std::size_t(n))
    throw Error("state: the neighbor-list reference must have one entry per particle");
  const Box stateBox = state.box.diagonal() == Vec3{} ? system.box : state.box;
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
  // The sites where their atoms put them, at rest (built on the host, in double, as the CPU's).
  State placed = state;
  constructVirtualSites(system.topology.virtualSites, placed.positions, stateBox);
  clearVirtualSiteVelocities(system.topology.virtualSites, placed.velocities);
  dev->upload(placed, listReference, system, pairType, ewald.method != ElectrostaticsMethod::None,
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

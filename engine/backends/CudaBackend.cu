// The CUDA backend: device-resident state, one graph per step (see CudaBackend.h).
#include <cub/cub.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdio>

#include "engine/backends/CudaBackend.h"
#include "core/Error.h"
#include "engine/config/KernelParams.h"
#include "core/Units.h"
#include "integrators/CudaIntegrator.h"
#include "kernels/common/CudaCheck.h"
#include "kernels/common/CudaOwners.h"
#include "kernels/common/DeviceBuffer.h"
#include "kernels/common/FixedPoint.h"
#include "kernels/common/Launch.h"
#include "kernels/neighbor/CudaTileList.h"
#include "kernels/nonbonded/CpuNonbonded.h"
#include "kernels/nonbonded/CpuTileWalker.h"
#include "kernels/nonbonded/CudaNonbonded.h"
#include "kernels/pme/CudaPme.h"
#include "kernels/pme/Electrostatics.h"
#include "kernels/pme/PmeGridGeometry.h"

namespace faraday {
namespace {

constexpr int kThreads = 256;
/// Steps between the host's reads of the device flags (list and PME bin overflow, non-finite
/// values) outside reporting steps; an overflow costs at most this many steps run again.
constexpr long long kCheckInterval = 200;
/// Every kTimedEvery-th step runs the graph with event nodes between the phases; the phase
/// table scales those samples to all steps.
constexpr long long kTimedEvery = 10;


/// Energies summed on the device: kinetic, then the fixed-point short-range sums, then PME's.
struct DeviceEnergies {
  double kinetic;
  double nonbonded[kNonbondedSums];
  double recip[7];
};

/// new[s] = old[newToOld[s]] for every per-slot array; slotOfAtom follows.
struct PermuteArgs {
  int n;
  const int* newToOld;
  const double4_32a *pos, *vel, *ref;
  const float4* posq;
  const int *atom, *type;
  const double* charge;
  double4_32a *pos2, *vel2, *ref2;
  float4* posq2;
  int *atom2, *type2;
  double* charge2;
  int* slotOfAtom;
};

__global__ void permuteKernel(PermuteArgs p) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= p.n) return;
  const int o = p.newToOld[s];
  p.pos2[s] = p.pos[o];
  p.vel2[s] = p.vel[o];
  p.ref2[s] = p.ref[o];
  p.posq2[s] = p.posq[o];
  p.type2[s] = p.type[o];
  p.charge2[s] = p.charge[o];
  const int a = p.atom[o];
  p.atom2[s] = a;
  p.slotOfAtom[a] = s;
}

/// One block: the kinetic partials summed in a fixed order, the fixed-point short-range sums
/// converted (and cleared for the next evaluation), PME's sums copied.
__global__ void finalizeKernel(const double* keParts, int keCount, unsigned long long* nbSums, const double* pme,
                               DeviceEnergies* out) {
  using Reduce = cub::BlockReduce<double, kThreads>;
  __shared__ typename Reduce::TempStorage scratch;
  double ke = 0;
  for (int k = threadIdx.x; k < keCount; k += blockDim.x) ke += keParts[k];
  ke = Reduce(scratch).Sum(ke);
  if (threadIdx.x == 0) out->kinetic = ke;
  if (threadIdx.x < kNonbondedSums) {
    out->nonbonded[threadIdx.x] = fixed::energyFromFixed(static_cast<long long>(nbSums[threadIdx.x]));
    nbSums[threadIdx.x] = 0;
  }
  if (threadIdx.x < 7) out->recip[threadIdx.x] = pme ? pme[threadIdx.x] : 0.0;
}

/// The device's highest stream priority: PME's kernels take SMs before the waiting tile blocks.
int highestPriority() {
  int least = 0, greatest = 0;
  FARADAY_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  return greatest;
}

constexpr int kPhaseEvents = 6;
const char* const kPhaseNames[kPhaseEvents - 1] = {"integrate", "neighbor", "nonbonded", "pme", "integrate"};

}  // namespace

struct CudaBackend::Impl {
  const System& system;
  Timers* timers;
  int n;
  std::size_t stride;
  EwaldSetup ewald;
  CudaIntegratorParams integ;
  double cutoff, buffer;
  bool typed = false;  ///< the typed pair force instead of LJ (its energy in Energies::pair)
  DispersionCorrection dispersionAtUnitVolume;
  double coulombSelf = 0, netCharge = 0;

  // First, so that they are destroyed last (a stream's release waits for its work).
  CudaStream mainStream, bodyStream, pmeStream{highestPriority()};
  /// The stream every enqueue function uses: mainStream, or bodyStream while the list
  /// build is captured into the conditional node's body.
  cudaStream_t stream = mainStream.get();
  CudaEvent fork{cudaEventDisableTiming}, join{cudaEventDisableTiming};  ///< PME beside the tiles
  /// [0]: the phases of sampled steps; [1]: timeKernels().
  std::array<std::array<CudaEvent, kPhaseEvents>, 2> events{makeCudaEvents<kPhaseEvents>(),
                                                             makeCudaEvents<kPhaseEvents>()};
  bool timedSamplePending = false;  ///< events[0] hold a sampled step not yet added to the timers

  DeviceBuffer<double4_32a> pos, vel, ref, pos2, vel2, ref2;
  DeviceBuffer<float4> posq, posq2;
  DeviceBuffer<int> atom, type, atom2, type2, slotOfAtom;
  DeviceBuffer<double> charge, charge2;
  DeviceBuffer<std::uint32_t> fractions;
  DeviceBuffer<unsigned long long> force, nbSums;
  DeviceBuffer<double> keParts;
  DeviceBuffer<StepStatus> status;
  DeviceBuffer<DeviceEnergies> deviceEnergies;
  // The last checked state, for a roll-back after an overflow.
  DeviceBuffer<double4_32a> savedPos, savedVel, savedRef;
  DeviceBuffer<float4> savedPosq;
  DeviceBuffer<int> savedAtom, savedType, savedSlotOfAtom;
  DeviceBuffer<double> savedCharge;
  DeviceBuffer<unsigned long long> savedForce;
  StepStatus savedStatus{};
  long long savedStep = 0;

  std::vector<int> exclusionOffsets_, exclusions_;
  std::unique_ptr<CudaTileList> list;
  std::unique_ptr<CudaNonbonded> nonbonded;
  std::unique_ptr<CudaPmeOnDevice> pme;
  std::array<CudaGraphExec, 4> graphs;  ///< by variant: energies (bit 0), timed (bit 1)
  cudaGraphConditionalHandle handles[4] = {};

  long long step = 0;           ///< steps advanced since setState (host count)
  long long stateStep = 0;      ///< State::step at setState
  double stateTime = 0;
  long long energiesStep = -1;  ///< the step whose energies deviceEnergies holds
  long long stepsRedone = 0;
  long firstBad = -1;
  long long statusReadAt = -1;  ///< the step whose flags check() last read (firstBad holds them)
  bool stateSet = false;
  bool forcesValid = false;  ///< the force buffer holds F(x) of the current positions
  std::vector<bool> energyAt;   ///< since the last check: whether step k computed energies
  Energies lastEnergies;
  std::vector<Vec3> hostForces;

  Impl(const Config& config, const System& s, Timers* t, const std::vector<int>* exclusionOffsets,
       const std::vector<int>* exclusions)
      : system(s), timers(t), n(int(s.size())) {
    if (n < 1) throw Error("the CUDA backend needs at least one particle");
    if (s.size() >= std::size_t(1) << 30) throw Error("the CUDA backend takes fewer than 2^30 particles");
    if (!system.box.isValid()) throw Error("the box must be rectangular with positive edges");
    checkMemory();
    cutoff = config.nonbonded.cutoff;
    buffer = pairListBuffer(config, system, true);
    if (config.nonbonded.buffer < 0)
      std::fprintf(stderr, "nonbonded.buffer = auto: %g nm on the GPU\n", buffer);
    if (!(2 * cutoff < system.box.shortestEdge()))
      throw keyError("nonbonded.cutoff", "must be below half the shortest box edge (" +
                                             std::to_string(0.5 * system.box.shortestEdge()) + " nm)");
    if (!(buffer >= 0)) throw keyError("nonbonded.buffer", "must be >= 0");
    ewald = chooseEwaldSetup(config, system.box);
    if (ewald.method == "ewald")
      throw keyError("electrostatics.method", "'ewald' (the plain Ewald reference) runs on run.platform = cpu only");
    const auto& ic = config.integrator;
    if (!(ic.dt > 0)) throw keyError("integrator.dt", "must be > 0");
    if (ic.type != "verlet" && ic.type != "langevin")
      throw keyError("integrator.type", "'" + ic.type + "' is not one of verlet, langevin");
    integ.langevin = ic.type == "langevin";
    integ.dt = ic.dt;
    if (integ.langevin) {
      if (!(ic.friction >= 0)) throw keyError("integrator.friction", "must be >= 0");
      if (!(ic.temperature >= 0)) throw keyError("integrator.temperature", "must be >= 0");
      integ.a = std::exp(-ic.friction * ic.dt);
      integ.noiseVariance = (1 - integ.a * integ.a) * (units::kBoltzmann * ic.temperature);
    }
    integ.seed = ic.seed;
    const Vec3 L = system.box.lengths();
    for (int d = 0; d < 3; ++d) {
      integ.length[d] = L[d];
      integ.fractionScale[d] = pme::fixedPointScale(L[d]);
    }
    integ.halfBuffer2 = 0.25 * buffer * buffer;
    for (std::size_t i = 0; i < system.size(); ++i)
      if (!(system.mass[i] > 0))
        throw Error("particle " + std::to_string(i) + " has mass <= 0; every [atom.NAME] needs mass > 0");
    if (config.nonbonded.allPairs())
      throw keyError("nonbonded.mode", "all-pairs runs on the all-pairs backends (makeBackend chooses them)");
    if (config.nonbonded.potential == "gravity")
      throw keyError("nonbonded.potential", "gravity needs nonbonded.mode = all-pairs");
    typed = config.nonbonded.typed();
    if (config.nonbonded.dispersionCorrection && !typed)
      dispersionAtUnitVolume = dispersionCorrection(system, cutoff, config.nonbonded.ljShift, 1.0);
    netCharge = system.netCharge();
    if (ewald.method != "none") {
      coulombSelf = ewaldSelfEnergy(ewald.beta, system.charge);
      std::fprintf(stderr, "%s\n", describe(ewald).c_str());
    } else if (system.hasCharges()) {
      std::fprintf(stderr, "electrostatics.method = none: the particles' charges are ignored\n");
    }

    allocate();
    CudaNonbondedParams np;
    np.cutoff = cutoff;
    np.ewaldBeta = ewald.method == "none" ? 0.0 : ewald.beta;
    if (np.ewaldBeta > 0 && config.nonbonded.coulombModifier == "potential-shift")
      np.coulombShift = ewaldRealShift(np.ewaldBeta, cutoff);
    nonbonded = typed ? std::make_unique<CudaNonbonded>(typedPairTable(config, system), np)
                      : std::make_unique<CudaNonbonded>(makeLjTable(system.types, cutoff, config.nonbonded.ljShift), np);
    if (exclusions) {
      exclusionOffsets_ = *exclusionOffsets;
      exclusions_ = *exclusions;
    }
    list = std::make_unique<CudaTileList>(TileListParams{cutoff, buffer}, n, system.box, exclusionOffsets_, exclusions_);
    if (ewald.method == "pme") {
      pme = makeCudaPmeOnDevice(ewald.pme, system.size());
      pme->setBox(system.box);
    }
  }

  /// The per-atom arrays, their roll-back copies and a first guess of the list, against the
  /// free device memory: a system too large fails here, before anything runs.
  void checkMemory() const {
    const double perAtom = 3 * 2 * 32.0 /* pos vel ref, twice */ + 2 * 16 + 5 * 4 + 2 * 8 + 12 + 24 /* force */ +
                           /* saved copies */ 3 * 32 + 16 + 12 + 8 + 24 + /* list and PME, about */ 400;
    const double asked = perAtom * n;
    std::size_t freeBytes = 0, totalBytes = 0;
    FARADAY_CUDA_CHECK(cudaMemGetInfo(&freeBytes, &totalBytes));
    if (asked > double(freeBytes))
      throw Error("the system of " + std::to_string(n) + " particles needs about " +
                  std::to_string((long long)asked) + " bytes of device memory; " + std::to_string(freeBytes) +
                  " bytes are free (of " + std::to_string(totalBytes) + ")");
  }

  void allocate() {
    stride = (std::size_t(n) + 31) / 32 * 32;
    pos = DeviceBuffer<double4_32a>("positions", n);
    vel = DeviceBuffer<double4_32a>("velocities", n);
    ref = DeviceBuffer<double4_32a>("list reference positions", n);
    pos2 = DeviceBuffer<double4_32a>("permuted positions", n);
    vel2 = DeviceBuffer<double4_32a>("permuted velocities", n);
    ref2 = DeviceBuffer<double4_32a>("permuted reference positions", n);
    posq = DeviceBuffer<float4>("wrapped positions and charges", n);
    posq2 = DeviceBuffer<float4>("permuted wrapped positions", n);
    atom = DeviceBuffer<int>("particle of slot", n);
    type = DeviceBuffer<int>("type of slot", n);
    atom2 = DeviceBuffer<int>("permuted particle of slot", n);
    type2 = DeviceBuffer<int>("permuted type of slot", n);
    slotOfAtom = DeviceBuffer<int>("slot of particle", n);
    charge = DeviceBuffer<double>("charges", n);
    charge2 = DeviceBuffer<double>("permuted charges", n);
    fractions = DeviceBuffer<std::uint32_t>("PME fractional coordinates", 3 * std::size_t(n));
    force = DeviceBuffer<unsigned long long>("fixed-point forces", 3 * stride);
    nbSums = DeviceBuffer<unsigned long long>("short-range energy sums", kNonbondedSums);
    keParts = DeviceBuffer<double>("kinetic energy partials", kineticBlocks(n));
    status = DeviceBuffer<StepStatus>("step status", 1);
    deviceEnergies = DeviceBuffer<DeviceEnergies>("energies", 1);
    savedPos = DeviceBuffer<double4_32a>("saved positions", n);
    savedVel = DeviceBuffer<double4_32a>("saved velocities", n);
    savedRef = DeviceBuffer<double4_32a>("saved reference positions", n);
    savedPosq = DeviceBuffer<float4>("saved wrapped positions", n);
    savedAtom = DeviceBuffer<int>("saved particle of slot", n);
    savedType = DeviceBuffer<int>("saved type of slot", n);
    savedSlotOfAtom = DeviceBuffer<int>("saved slot of particle", n);
    savedCharge = DeviceBuffer<double>("saved charges", n);
    savedForce = DeviceBuffer<unsigned long long>("saved forces", 3 * stride);
    force.zero(stream);
    nbSums.zero(stream);
  }

  DeviceAtoms atoms() {
    DeviceAtoms a;
    a.n = n;
    a.pos = pos.data();
    a.vel = vel.data();
    a.ref = ref.data();
    a.posq = posq.data();
    a.atom = atom.data();
    a.force = force.data();
    a.stride = stride;
    a.fractions = pme ? fractions.data() : nullptr;
    return a;
  }

  // ---- The pieces of a step ----------------------------------------------------------

  /// A rebuild at the current positions: they become the reference, then enqueueSortAndBuild.
  void enqueueRebuild() {
    copyInto(ref, pos);
    enqueueSortAndBuild();
  }

  /// Sort by the reference positions, permute every per-slot array, rebuild the list.
  void enqueueSortAndBuild() {
    list->enqueueSort(stream, ref.data());
    PermuteArgs p{n,           list->newToOld(), pos.data(),  vel.data(),   ref.data(),    posq.data(),
                  atom.data(), type.data(),      charge.data(), pos2.data(), vel2.data(),  ref2.data(),
                  posq2.data(), atom2.data(),    type2.data(),  charge2.data(), slotOfAtom.data()};
    permuteKernel<<<blocksFor(n, kThreads), kThreads, 0, stream>>>(p);
    FARADAY_CUDA_CHECK_LAUNCH("permuteKernel");
    copyInto(pos, pos2);
    copyInto(vel, vel2);
    copyInto(ref, ref2);
    copyInto(posq, posq2);
    copyInto(atom, atom2);
    copyInto(type, type2);
    copyInto(charge, charge2);
    launchWrapPositions(stream, atoms(), integ);
    list->enqueueBuild(stream, ref.data(), atom.data(), slotOfAtom.data());
  }


  /// Short-range tiles and PME into the (cleared) fixed-point forces: one after the other
  /// (timed steps, so that each phase has its interval, and outside graphs), or side by
  /// side on two streams (the sums are integer atomics, so the order does not matter).
  void enqueueForces(bool energies, int timedSet, bool concurrent = false) {
    if (concurrent && pme) {
      FARADAY_CUDA_CHECK(cudaEventRecord(fork.get(), stream));
      FARADAY_CUDA_CHECK(cudaStreamWaitEvent(pmeStream.get(), fork.get(), 0));
      pme->enqueue(pmeStream.get(), n, fractions.data(), charge.data(), force.data(), stride);
      FARADAY_CUDA_CHECK(cudaEventRecord(join.get(), pmeStream.get()));
    }
    nonbonded->enqueue(stream, energies, *list, posq.data(), type.data(), system.box, force.data(), stride,
                       nbSums.data());
    mark(timedSet, 3);
    if (concurrent && pme) FARADAY_CUDA_CHECK(cudaStreamWaitEvent(stream, join.get(), 0));
    else if (pme) pme->enqueue(stream, n, fractions.data(), charge.data(), force.data(), stride);
    mark(timedSet, 4);
  }

  void enqueueFinalize() {
    finalizeKernel<<<1, kThreads, 0, stream>>>(keParts.data(), kineticBlocks(n), nbSums.data(),
                                               pme ? pme->energyAndVirial() : nullptr, deviceEnergies.data());
    FARADAY_CUDA_CHECK_LAUNCH("finalizeKernel");
  }

  void mark(int timedSet, int k) {
    if (timedSet >= 0)
      FARADAY_CUDA_CHECK(cudaEventRecordWithFlags(events[timedSet][k].get(), stream, cudaEventRecordExternal));
  }

  /// Captures one step: the integrator's first half sets the condition of the list build.
  void capture(int variant) {
    const bool energies = (variant & 1) != 0;
    const int timedSet = (variant & 2) ? 0 : -1;
    graphs[variant].capture(stream, [&] {
      cudaStreamCaptureStatus captureStatus;
      const cudaGraphNode_t* deps = nullptr;
      std::size_t numDeps = 0;
      cudaGraph_t building = nullptr;
      FARADAY_CUDA_CHECK(cudaStreamGetCaptureInfo(stream, &captureStatus, nullptr, &building, nullptr, nullptr, nullptr));
      FARADAY_CUDA_CHECK(cudaGraphConditionalHandleCreate(&handles[variant], building, 0, 0));
      mark(timedSet, 0);
      launchFirstHalf(stream, atoms(), integ, status.data(), handles[variant]);
      mark(timedSet, 1);
      // The conditional list build, its body captured on bodyStream.
      FARADAY_CUDA_CHECK(cudaStreamGetCaptureInfo(stream, &captureStatus, nullptr, &building, &deps, nullptr, &numDeps));
      cudaGraphNodeParams cp{};
      cp.type = cudaGraphNodeTypeConditional;
      cp.conditional.handle = handles[variant];
      cp.conditional.type = cudaGraphCondTypeIf;
      cp.conditional.size = 1;
      cudaGraphNode_t node = nullptr;
      FARADAY_CUDA_CHECK(cudaGraphAddNode(&node, building, deps, nullptr, numDeps, &cp));
      FARADAY_CUDA_CHECK(cudaStreamUpdateCaptureDependencies(stream, &node, nullptr, 1, cudaStreamSetCaptureDependencies));
      captureListBuild(cp.conditional.phGraph_out[0]);
      mark(timedSet, 2);
      enqueueForces(energies, timedSet, /*concurrent=*/timedSet < 0);
      launchSecondHalf(stream, atoms(), integ, status.data(), pme ? pme->binsNeeded() : nullptr,
                       energies ? keParts.data() : nullptr);
      if (energies) enqueueFinalize();
      mark(timedSet, 5);
    }, cudaGraphInstantiateFlagUseNodePriority);
  }

  /// The list build (reference := positions, sort, permute, tiles) into `body`, on bodyStream.
  void captureListBuild(cudaGraph_t body) {
    stream = bodyStream.get();
    try {
      FARADAY_CUDA_CHECK(cudaStreamBeginCaptureToGraph(stream, body, nullptr, nullptr, 0, cudaStreamCaptureModeRelaxed));
      enqueueRebuild();
      cudaGraph_t captured = nullptr;
      FARADAY_CUDA_CHECK(cudaStreamEndCapture(stream, &captured));  // `body` itself, owned by its node
    } catch (...) {
      cudaGraph_t partial = nullptr;
      cudaStreamEndCapture(stream, &partial);
      stream = mainStream.get();
      throw;
    }
    stream = mainStream.get();
  }

  void resetGraphs() {
    for (auto& g : graphs) g.reset();
  }

  // ---- Host-side control --------------------------------------------------------------

  void resetStatus() {
    StepStatus s{};
    s.firstBad = INT_MAX;
    s.step = stateStep + step;
    s.builds = 0;
    FARADAY_CUDA_CHECK(cudaMemcpyAsync(status.data(), &s, sizeof s, cudaMemcpyHostToDevice, stream));
    FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  /// A copy of one device struct, after the stream's work.
  template <typename T>
  T fromDevice(const T* p) {
    T v{};
    FARADAY_CUDA_CHECK(cudaMemcpyAsync(&v, p, sizeof v, cudaMemcpyDeviceToHost, stream));
    FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream));
    return v;
  }
  StepStatus readStatus() { return fromDevice(status.data()); }
  TileCounters readCounters() { return fromDevice(list->counters()); }

  /// Builds the list at setState (outside any graph) until it fits its storage.
  void buildFirstList() {
    for (int attempt = 0;; ++attempt) {
      enqueueSortAndBuild();
      const TileCounters c = readCounters();
      if (c.tiles <= list->tileCapacity() && c.exclusionTiles <= list->exclusionCapacity()) break;
      if (attempt > 0) throw Error("tile list: the storage overflowed again after growing to fit");
      list->reserve(c.tiles, c.exclusionTiles);
      resetGraphs();
    }
  }

  void upload(const State& state, const std::vector<Vec3>& listReference) {
    std::vector<double4_32a> p(n), v(n), r(n);
    std::vector<float4> pq(n);
    std::vector<int> a(n), t(n);
    std::vector<double> q(n);
    const double sqrtK = std::sqrt(units::kCoulomb);
    const bool coulomb = ewald.method != "none";
    for (int i = 0; i < n; ++i) {
      const Vec3& x = state.positions[i];
      const Vec3& u = state.velocities[i];
      const Vec3& y = listReference.empty() ? x : listReference[i];
      p[i] = make_double4_32a(x.x, x.y, x.z, 0);
      v[i] = make_double4_32a(u.x, u.y, u.z, 1.0 / system.mass[i]);
      r[i] = make_double4_32a(y.x, y.y, y.z, 0);
      pq[i] = make_float4(0, 0, 0, coulomb ? float(sqrtK * system.charge[i]) : 0.f);
      a[i] = i;
      t[i] = system.type[i];
      q[i] = system.charge[i];
    }
    pos.upload(p, stream);
    vel.upload(v, stream);
    ref.upload(r, stream);
    posq.upload(pq, stream);
    atom.upload(a, stream);
    type.upload(t, stream);
    charge.upload(q, stream);
    FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  void setState(const State& state, const std::vector<Vec3>& listReference) {
    if (state.positions.size() != std::size_t(n) || state.velocities.size() != std::size_t(n))
      throw Error("state: positions and velocities must have one entry per particle");
    if (!listReference.empty() && listReference.size() != std::size_t(n))
      throw Error("state: the neighbor-list reference must have one entry per particle");
    Box box = state.box;
    if (box.lengths() == Vec3{}) box = system.box;
    if (!(box.lengths() == system.box.lengths()))
      throw Error("state: the CUDA backend runs at the system's constant box");
    FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream));
    stateStep = state.step;
    stateTime = state.time;
    step = 0;
    energiesStep = -1;
    firstBad = -1;
    statusReadAt = -1;
    energyAt.clear();
    upload(state, listReference);
    resetStatus();
    ScopedTimer t(timers, "neighbor");
    buildFirstList();
    launchWrapPositions(stream, atoms(), integ);
    force.zero(stream);
    FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream));
    long long builds = 1;
    FARADAY_CUDA_CHECK(cudaMemcpy(&status.data()->builds, &builds, sizeof builds, cudaMemcpyHostToDevice));
    stateSet = true;
    forcesValid = false;
    hostForces.clear();
    save();
  }

  /// Forces and energies at the current positions, outside the step graph.
  Energies computeForces() {
    if (!stateSet) throw Error("CudaBackend: computeForces() before setState()");
    force.zero(stream);
    {
      ScopedTimer t(timers, "nonbonded");
      enqueueForces(true, -1);
    }
    launchKineticEnergy(stream, atoms(), keParts.data());
    enqueueFinalize();
    FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream));
    checkPmeBins(true);
    energiesStep = step;
    forcesValid = true;
    hostForces.clear();
    save();
    return readEnergies();
  }

  /// A PME bin overflow outside the graph: grow and evaluate again.
  void checkPmeBins(bool redo) {
    if (!pme) return;
    int needed = 0;
    FARADAY_CUDA_CHECK(cudaMemcpy(&needed, pme->binsNeeded(), sizeof needed, cudaMemcpyDeviceToHost));
    if (needed <= pme->binCapacity()) return;
    pme->growBins(needed + needed / 4 + 4);
    resetGraphs();
    if (!redo) return;
    force.zero(stream);
    enqueueForces(true, -1);
    launchKineticEnergy(stream, atoms(), keParts.data());
    enqueueFinalize();
    FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  Energies readEnergies() {
    const DeviceEnergies d = fromDevice(deviceEnergies.data());
    Energies e;
    (typed ? e.pair : e.lj) = d.nonbonded[kSumLj];
    e.coulombReal = d.nonbonded[kSumCoulomb];
    const double* w = d.nonbonded + kSumWxx;
    e.virial.m[0][0] = w[0] + d.recip[1];
    e.virial.m[1][1] = w[1] + d.recip[2];
    e.virial.m[2][2] = w[2] + d.recip[3];
    e.virial.m[0][1] = e.virial.m[1][0] = w[3] + d.recip[4];
    e.virial.m[0][2] = e.virial.m[2][0] = w[4] + d.recip[5];
    e.virial.m[1][2] = e.virial.m[2][1] = w[5] + d.recip[6];
    const double volume = system.box.volume();
    if (pme) {
      e.coulombRecip = d.recip[0];
      e.coulombSelf = coulombSelf;
      e.coulombNetCharge = ewaldNetChargeEnergy(ewald.beta, netCharge, volume);
      for (int k = 0; k < 3; ++k) e.virial.m[k][k] += e.coulombNetCharge;
    }
    e.dispersionCorrection = dispersionAtUnitVolume.energy / volume;
    for (int k = 0; k < 3; ++k) e.virial.m[k][k] += dispersionAtUnitVolume.virialDiagonal / volume;
    kinetic = d.kinetic;
    lastEnergies = e;
    return e;
  }
  double kinetic = 0;

  // ---- Steps, checks, roll-back -------------------------------------------------------

  void launchStep(bool energies) {
    const bool timed = timers && step % kTimedEvery == 0;
    int variant = energies ? 1 : 0;
    if (timed) {
      variant += 2;
      collectTimes();  // the previous timed step of this set
    }
    if (!graphs[variant].captured()) capture(variant);
    graphs[variant].launch(stream);
    if (timed) timedSamplePending = true;
    ++step;
    energyAt.push_back(energies);
  }

  void collectTimes() {
    if (!timedSamplePending) return;
    auto& e = events[0];
    FARADAY_CUDA_CHECK(cudaEventSynchronize(e[kPhaseEvents - 1].get()));
    for (int k = 0; k + 1 < kPhaseEvents; ++k)
      timers->add(kPhaseNames[k], 1e-3 * CudaEvent::elapsedMs(e[k], e[k + 1]) * kTimedEvery);
    timedSamplePending = false;
  }

  void advance(bool energies) {
    if (!stateSet) throw Error("CudaBackend: advance() before setState()");
    if (!forcesValid) computeForces();
    launchStep(energies);
    if (energies || step % kCheckInterval == 0) check();
    if (energies) {
      energiesStep = step;
      readEnergies();
    }
  }

  /// Reads the flags; on an overflow rolls back to the last check, grows and runs the steps
  /// again; else keeps this state as the roll-back point.
  void check() {
    const StepStatus s = readStatus();
    if (timers) collectTimes();
    const TileCounters c = readCounters();
    if (s.firstBad != INT_MAX && firstBad < 0) firstBad = s.firstBad;
    statusReadAt = step;
    const bool listOverflow = c.tilesNeeded > list->tileCapacity() || c.exclusionNeeded > list->exclusionCapacity();
    const bool binOverflow = pme && s.pmeBinsNeeded > pme->binCapacity();
    if (!listOverflow && !binOverflow) {
      save();
      return;
    }
    if (listOverflow) list->reserve(c.tilesNeeded, c.exclusionNeeded);
    if (binOverflow) pme->growBins(s.pmeBinsNeeded + s.pmeBinsNeeded / 4 + 4);
    resetGraphs();
    const std::vector<bool> replay = energyAt;
    restore();
    for (bool e : replay) launchStep(e);
    stepsRedone += (long long)replay.size();
    check();
  }

  template <typename T>
  void copyInto(DeviceBuffer<T>& to, const DeviceBuffer<T>& from) {
    FARADAY_CUDA_CHECK(cudaMemcpyAsync(to.data(), from.data(), from.bytes(), cudaMemcpyDeviceToDevice, stream));
  }

  void save() {
    copyInto(savedPos, pos);
    copyInto(savedVel, vel);
    copyInto(savedRef, ref);
    copyInto(savedPosq, posq);
    copyInto(savedAtom, atom);
    copyInto(savedType, type);
    copyInto(savedSlotOfAtom, slotOfAtom);
    copyInto(savedCharge, charge);
    copyInto(savedForce, force);
    savedStatus = readStatus();
    savedStep = step;
    energyAt.clear();
  }

  /// Back to the saved state; the list is built again from the saved reference positions
  /// (no sort: the slots are those of the saved state), so the steps run again exactly.
  void restore() {
    copyInto(pos, savedPos);
    copyInto(vel, savedVel);
    copyInto(ref, savedRef);
    copyInto(posq, savedPosq);
    copyInto(atom, savedAtom);
    copyInto(type, savedType);
    copyInto(slotOfAtom, savedSlotOfAtom);
    copyInto(charge, savedCharge);
    copyInto(force, savedForce);
    StepStatus s = savedStatus;
    s.firstBad = INT_MAX;
    s.pmeBinsNeeded = 0;
    FARADAY_CUDA_CHECK(cudaMemcpyAsync(status.data(), &s, sizeof s, cudaMemcpyHostToDevice, stream));
    launchWrapPositions(stream, atoms(), integ);
    list->enqueueBuild(stream, ref.data(), atom.data(), slotOfAtom.data());
    TileCounters zero{};
    FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream));
    FARADAY_CUDA_CHECK(cudaMemcpy(reinterpret_cast<int*>(list->counters()) + 2, &zero.tilesNeeded, 2 * sizeof(int),
                                  cudaMemcpyHostToDevice));
    step = savedStep;
    energyAt.clear();
  }

  // ---- Copies back --------------------------------------------------------------------

  void download(std::vector<Vec3>* positions, std::vector<Vec3>* velocities, std::vector<Vec3>* reference) {
    FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream));
    if (timers) collectTimes();
    const std::vector<int> a = atom.toHost(stream);
    auto unpermute = [&](const DeviceBuffer<double4_32a>& b, std::vector<Vec3>* out) {
      if (!out) return;
      const std::vector<double4_32a> h = b.toHost(stream);
      out->resize(n);
      for (int s = 0; s < n; ++s) (*out)[a[s]] = Vec3{h[s].x, h[s].y, h[s].z};
    };
    unpermute(pos, positions);
    unpermute(vel, velocities);
    unpermute(ref, reference);
  }

  State state() {
    State s;
    download(&s.positions, &s.velocities, nullptr);
    s.step = stateStep + step;
    s.time = stateTime + double(step) * integ.dt;
    s.box = system.box;
    return s;
  }

  const std::vector<Vec3>& forces() {
    FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream));
    const std::vector<int> a = atom.toHost(stream);
    const std::vector<unsigned long long> f = force.toHost(stream);
    hostForces.assign(n, Vec3{});
    for (int s = 0; s < n; ++s)
      hostForces[a[s]] = Vec3{fixed::fromFixed((long long)f[s]), fixed::fromFixed((long long)f[stride + s]),
                              fixed::fromFixed((long long)f[2 * stride + s])};
    return hostForces;
  }
};

CudaBackend::CudaBackend(const Config& config, const System& system, Timers* timers,
                         const std::vector<int>* exclusionOffsets, const std::vector<int>* exclusions)
    : impl_(std::make_unique<Impl>(config, system, timers, exclusionOffsets, exclusions)) {}
CudaBackend::~CudaBackend() = default;

std::string CudaBackend::name() const { return "cuda"; }
void CudaBackend::setState(const State& state, const std::vector<Vec3>& listReference) {
  impl_->setState(state, listReference);
}
void CudaBackend::getState(State& state) { state = impl_->state(); }
std::vector<Vec3> CudaBackend::listReference() {
  std::vector<Vec3> r;
  impl_->download(nullptr, nullptr, &r);
  return r;
}
void CudaBackend::snapshot(State& state, std::vector<Vec3>& listReference) {
  impl_->download(&state.positions, &state.velocities, &listReference);
  state.step = impl_->stateStep + impl_->step;
  state.time = impl_->stateTime + double(impl_->step) * impl_->integ.dt;
  state.box = impl_->system.box;
}
Energies CudaBackend::computeForces() { return impl_->computeForces(); }
const std::vector<Vec3>& CudaBackend::forces() { return impl_->forces(); }
void CudaBackend::advance(bool withEnergies) { impl_->advance(withEnergies); }
Energies CudaBackend::energies() { return impl_->lastEnergies; }

double CudaBackend::kineticEnergy() {
  Impl& m = *impl_;
  if (m.energiesStep != m.step) {
    launchKineticEnergy(m.stream, m.atoms(), m.keParts.data());
    m.enqueueFinalize();
    m.readEnergies();
    m.energiesStep = m.step;
  }
  return m.kinetic;
}

long CudaBackend::nonFiniteParticle() {
  Impl& m = *impl_;
  if (m.firstBad < 0 && m.statusReadAt != m.step) {
    const StepStatus s = m.readStatus();
    if (s.firstBad != INT_MAX) m.firstBad = s.firstBad;
  }
  return m.firstBad;
}

DeviceFrame CudaBackend::deviceFrame() {
  Impl& m = *impl_;
  DeviceFrame f;
  f.n = m.n;
  f.positions = reinterpret_cast<const double*>(m.pos.data());
  f.charges = m.charge.data();
  f.netCharge = m.netCharge;
  f.stream = m.mainStream.get();
  return f;
}

void CudaBackend::settle() {
  Impl& m = *impl_;
  if (!m.energyAt.empty()) m.check();
}

long long CudaBackend::neighborListBuilds() const {
  Impl& m = *impl_;
  return m.readStatus().builds;
}

HostTileList CudaBackend::tileList() {
  return impl_->list->toHost(impl_->stream, impl_->ref.data(), impl_->atom.data());
}

TileListStats CudaBackend::tileListStats() {
  Impl& m = *impl_;
  const HostTileList h = tileList();
  const TilePairCounts c = countTilePairs(h, m.system.box, m.cutoff);
  TileListStats s;
  s.tiles = (long long)h.info.size();
  s.pairsEvaluated = c.listed;
  s.pairsInCutoff = c.inCutoff;
  s.builds = neighborListBuilds();
  s.deviceBytes = m.list->deviceBytes();
  return s;
}

CudaBackend::KernelTimes CudaBackend::timeKernels(int repeats) {
  Impl& m = *impl_;
  FARADAY_CUDA_CHECK(cudaStreamSynchronize(m.stream));
  if (m.timers) m.collectTimes();
  auto& e = m.events[1];
  FARADAY_CUDA_CHECK(cudaEventRecord(e[0].get(), m.stream));
  for (int r = 0; r < repeats; ++r) m.enqueueRebuild();
  FARADAY_CUDA_CHECK(cudaEventRecord(e[1].get(), m.stream));
  for (int r = 0; r < repeats; ++r)
    m.nonbonded->enqueue(m.stream, false, *m.list, m.posq.data(), m.type.data(), m.system.box, m.force.data(),
                         m.stride, m.nbSums.data());
  FARADAY_CUDA_CHECK(cudaEventRecord(e[2].get(), m.stream));
  FARADAY_CUDA_CHECK(cudaEventSynchronize(e[2].get()));
  const double build = CudaEvent::elapsedMs(e[0], e[1]), tiles = CudaEvent::elapsedMs(e[1], e[2]);
  m.buildFirstList();  // grows the storage if these positions need more tiles
  m.computeForces();
  return {build / repeats, tiles / repeats};
}

long long CudaBackend::stepsRedone() const { return impl_->stepsRedone; }

void CudaBackend::limitTileCapacityForTesting(int tiles) {
  Impl& m = *impl_;
  FARADAY_CUDA_CHECK(cudaStreamSynchronize(m.stream));
  m.list = std::make_unique<CudaTileList>(TileListParams{m.cutoff, m.buffer}, m.n, m.system.box, m.exclusionOffsets_,
                                          m.exclusions_);
  m.list->reserveExactlyForTesting(tiles);
  m.resetGraphs();
  // Rebuild at the current reference (no sort): the list now overflows at the next build.
  m.list->enqueueBuild(m.stream, m.ref.data(), m.atom.data(), m.slotOfAtom.data());
  FARADAY_CUDA_CHECK(cudaStreamSynchronize(m.stream));
}

}  // namespace faraday

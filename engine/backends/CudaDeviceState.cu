// The CUDA backend's device state: allocation, upload and download in input order, the slot
// permutation, the energy sums and the roll-back copy (see CudaDeviceState.cuh).
#include "engine/backends/CudaDeviceState.cuh"

#include <climits>
#include <cmath>
#include <string>

#include "core/Error.h"
#include "core/Units.h"
#include "integrators/Integrator.h"
#include "kernels/common/FixedPoint.h"
#include "kernels/common/CudaEnergySums.h"
#include "kernels/common/WorkShare.h"
#include "kernels/neighbor/CudaSlotPermute.h"

namespace faraday {

void CudaDeviceState::checkMemory(int n) {
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

CudaDeviceState::CudaDeviceState(int n_, DeviceSumLayout sums, cudaStream_t stream) : n(n_), sumLayout(sums) {
  if (sums.count() + 7 > kEnergySumsThreads) throw Error("the force terms need more energy sums than the device sums hold");
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
  nbSums = DeviceBuffer<unsigned long long>("energy sums", std::size_t(sums.count()));
  keParts = DeviceBuffer<double>("kinetic energy partials", kineticBlocks(n));
  status = DeviceBuffer<StepStatus>("step status", 1);
  deviceEnergies = DeviceBuffer<DeviceEnergies>("energies", 1);
  bounds = DeviceBuffer<int>("gpu slot bounds", WorkShare::kMaxCuts);
  savedBounds = DeviceBuffer<int>("saved gpu slot bounds", WorkShare::kMaxCuts);
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

DeviceAtoms CudaDeviceState::atoms(bool withFractions) {
  DeviceAtoms a;
  a.n = n;
  a.pos = pos.data();
  a.vel = vel.data();
  a.ref = ref.data();
  a.posq = posq.data();
  a.atom = atom.data();
  a.force = force.data();
  a.stride = stride;
  a.fractions = withFractions ? fractions.data() : nullptr;
  return a;
}

void CudaDeviceState::upload(const State& state, const std::vector<Vec3>& listReference, const System& system,
                             const std::vector<int>& pairType, bool coulomb, const std::vector<char>& constrained,
                             cudaStream_t stream) {
  std::vector<double4_32a> p(n), v(n), r(n);
  std::vector<float4> pq(n);
  std::vector<int> a(n), t(n);
  std::vector<double> q(n);
  const double sqrtK = std::sqrt(units::kCoulomb);
  const std::vector<double> inverseMass = inverseMasses(system);  // 0 for virtual sites
  for (int i = 0; i < n; ++i) {
    const Vec3& x = state.positions[i];
    const Vec3& u = state.velocities[i];
    const Vec3& y = listReference.empty() ? x : listReference[i];
    p[i] = make_double4_32a(x.x, x.y, x.z, !constrained.empty() && constrained[std::size_t(i)] ? 1.0 : 0.0);
    v[i] = make_double4_32a(u.x, u.y, u.z, inverseMass[std::size_t(i)]);
    r[i] = make_double4_32a(y.x, y.y, y.z, 0);
    pq[i] = make_float4(0, 0, 0, coulomb ? float(sqrtK * system.charge[i]) : 0.f);
    a[i] = i;
    t[i] = pairType[i];
    q[i] = system.charge[i];
  }
  pos.upload(p, stream);
  vel.upload(v, stream);
  ref.upload(r, stream);
  posq.upload(pq, stream);
  atom.upload(a, stream);
  slotOfAtom.upload(a, stream);  // slot i holds particle i until the first sort (whose keys read it)
  type.upload(t, stream);
  charge.upload(q, stream);
  FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream));
}

void CudaDeviceState::download(std::vector<Vec3>* positions, std::vector<Vec3>* velocities,
                               std::vector<Vec3>* reference, cudaStream_t stream) {
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

std::vector<Vec3> CudaDeviceState::forces(cudaStream_t stream) {
  FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream));
  const std::vector<int> a = atom.toHost(stream);
  const std::vector<unsigned long long> f = force.toHost(stream);
  std::vector<Vec3> hostForces(n, Vec3{});
  for (int s = 0; s < n; ++s)
    hostForces[a[s]] = Vec3{fixed::fromFixed((long long)f[s]), fixed::fromFixed((long long)f[stride + s]),
                            fixed::fromFixed((long long)f[2 * stride + s])};
  return hostForces;
}

void CudaDeviceState::enqueuePermute(cudaStream_t stream, const int* newToOld) {
  const SlotPermutation p{n,           newToOld,     pos.data(),  vel.data(),   ref.data(),    posq.data(),
                atom.data(), type.data(),  charge.data(), pos2.data(), vel2.data(),  ref2.data(),
                posq2.data(), atom2.data(), type2.data(),  charge2.data(), slotOfAtom.data()};
  launchPermuteSlots(stream, p);
  pos.copyFrom(pos2, stream);
  vel.copyFrom(vel2, stream);
  ref.copyFrom(ref2, stream);
  posq.copyFrom(posq2, stream);
  atom.copyFrom(atom2, stream);
  type.copyFrom(type2, stream);
  charge.copyFrom(charge2, stream);
}

void CudaDeviceState::enqueueFinalize(cudaStream_t stream, int pmeAt, const double* pmeSums) {
  DeviceEnergies* e = deviceEnergies.data();
  launchEnergySums(stream, keParts.data(), kineticBlocks(n), nbSums.data(), sumLayout.count(), pmeAt, pmeSums,
                   EnergySumsOut{&e->kinetic, e->sums, e->recip});
}

template <typename F>
void CudaDeviceState::forEachSaved(F&& f) {
  f(pos, savedPos);
  f(vel, savedVel);
  f(ref, savedRef);
  f(posq, savedPosq);
  f(atom, savedAtom);
  f(type, savedType);
  f(slotOfAtom, savedSlotOfAtom);
  f(charge, savedCharge);
  f(force, savedForce);
  f(bounds, savedBounds);
}

void CudaDeviceState::save(cudaStream_t stream) {
  forEachSaved([stream](const auto& live, auto& saved) { saved.copyFrom(live, stream); });
  StepStatus s = readStatus(stream);
  s.firstBad = INT_MAX;
  s.constraintFailure = kNoConstraintFailure;
  s.pmeBinsNeeded = 0;
  restoredStatus.set(s, stream);
}

void CudaDeviceState::restore(cudaStream_t stream) {
  forEachSaved([stream](auto& live, const auto& saved) { live.copyFrom(saved, stream); });
  FARADAY_CUDA_CHECK(
      cudaMemcpyAsync(status.data(), restoredStatus.data(), sizeof(StepStatus), cudaMemcpyDeviceToDevice, stream));
}

}  // namespace faraday

// The bonded kernels, in layers: one term (evaluateTerm of BondedTerms.h, shared with the
// CPU reference) -> one thread per term (termOnThread) -> one kernel whose blocks each take a
// block of one term array (termsKernel): one launch for the bonded terms, one for the
// exclusion correction (enqueue) -> the host-vector adapter. Positions are read per slot through
// slotOfAtom; each force component leaves as a 64-bit fixed-point integer through an
// integer atomic, so the totals are the same whatever the order of the threads. Energies
// and virial (only when asked) are summed over the warp in a fixed shuffle order in double
// and added as fixed point.
#include <cuda_runtime.h>

#include <string>

#include "core/Error.h"
#include "kernels/bonded/CudaBonded.h"
#include "kernels/common/CudaCheck.h"
#include "kernels/common/CudaOwners.h"
#include "kernels/common/FixedPoint.h"
#include "kernels/common/Launch.h"

namespace faraday {
namespace {

constexpr int kThreads = 128;
constexpr unsigned kFull = 0xffffffffu;

struct TermArgs {
  const double4_32a* pos;  ///< x, y, z (nm) per slot
  const int* slotOfAtom;
  const MinimumImage* box;  ///< in device memory
  BondedView view;
  unsigned long long* force;
  std::size_t stride;
  unsigned long long* sums;
  WorkShare share;  ///< the warps of terms this GPU computes (all on one GPU)
};

/// Adds v (kJ/mol/nm) to a fixed-point force, rounded to the nearest step (2^-32).
__device__ __forceinline__ void addFixed(unsigned long long* at, double v) {
  if (v != 0.0) atomicAdd(at, static_cast<unsigned long long>(__double2ll_rn(v * fixed::kScale)));
}

__device__ __forceinline__ double warpSum(double v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(kFull, v, o);
  return v;
}

__device__ __forceinline__ void addEnergy(unsigned long long* at, double v) {
  if (v != 0.0) atomicAdd(at, static_cast<unsigned long long>(fixed::energyToFixed(v)));
}

/// Term t of `terms` on one thread: energy into sums[slot] (a 1-4 pair's Coulomb into
/// sums[slot2]), virial into the kBondedSumW* sums. Every thread of the warp calls it (t may
/// be past the end), so the energy shuffles are complete.
template <typename Term, bool kEnergy>
__device__ __forceinline__ void termOnThread(const Term* terms, int count, int t, int slot, int slot2,
                                             const TermArgs& a) {
  constexpr int N = kTermAtoms<Term>;
  double e = 0, e2 = 0, w[6] = {0, 0, 0, 0, 0, 0};
  if (t < count) {
    const Term term = terms[t];
    int atoms[N], slots[N];
    termAtoms(term, atoms);
    for (int k = 0; k < N; ++k) slots[k] = a.slotOfAtom[atoms[k]];
    const auto position = [&](int atom) {
      const double4_32a p = a.pos[a.slotOfAtom[atom]];
      return Vec3{p.x, p.y, p.z};
    };
    Vec3 x[N];
    const MinimumImage box = *a.box;
    relativePositions(term, atoms, position, box, x);
    const TermForces<N> r = evaluateTerm(term, x, a.view);
    for (int k = 0; k < N; ++k) {
      addFixed(a.force + slots[k], r.f[k].x);
      addFixed(a.force + a.stride + slots[k], r.f[k].y);
      addFixed(a.force + 2 * a.stride + slots[k], r.f[k].z);
    }
    if constexpr (kEnergy) {
      e = r.energy;
      e2 = r.energy2;
      addTermVirial<N>(x, r.f, w);
    }
  }
  if constexpr (kEnergy) {
    e = warpSum(e);
    e2 = warpSum(e2);
    for (int c = 0; c < 6; ++c) w[c] = warpSum(w[c]);
    if ((threadIdx.x & 31) == 0) {
      addEnergy(a.sums + slot, e);
      if (slot2 >= 0) addEnergy(a.sums + slot2, e2);
      for (int c = 0; c < 6; ++c) addEnergy(a.sums + kBondedSumWxx + c, w[c]);
    }
  }
}

/// The term arrays of one launch: array k owns blocks firstBlock[k] .. firstBlock[k + 1).
struct TermArrays {
  static constexpr int kArrays = 15;
  static constexpr int kExclusions = kArrays - 1;  ///< the exclusion correction's pairs, last
  const void* terms[kArrays];
  int count[kArrays];
  int firstBlock[kArrays + 1];
};

/// Term i of array k of `t`, whose terms are of type Term.
template <typename Term, bool kEnergy>
__device__ __forceinline__ void termInArray(const TermArrays& t, int k, int i, int slot, int slot2, const TermArgs& a) {
  termOnThread<Term, kEnergy>(static_cast<const Term*>(t.terms[k]), t.count[k], i, slot, slot2, a);
}

/// The order of the arrays in TermArrays, with their Term types and energy slots (the order of
/// CudaBonded::enqueue's `set` calls).
template <bool kEnergy>
__device__ __forceinline__ void termOfArray(int k, const TermArrays& t, int i, const TermArgs& a) {
  switch (k) {
    case 0: termInArray<HarmonicBond, kEnergy>(t, k, i, kBondSlot, -1, a); break;
    case 1: termInArray<G96Bond, kEnergy>(t, k, i, kG96BondSlot, -1, a); break;
    case 2: termInArray<MorseBond, kEnergy>(t, k, i, kMorseSlot, -1, a); break;
    case 3: termInArray<CubicBond, kEnergy>(t, k, i, kCubicBondSlot, -1, a); break;
    case 4: termInArray<HarmonicAngle, kEnergy>(t, k, i, kAngleSlot, -1, a); break;
    case 5: termInArray<G96Angle, kEnergy>(t, k, i, kG96AngleSlot, -1, a); break;
    case 6: termInArray<UreyBradleyAngle, kEnergy>(t, k, i, kUreyBradleySlot, -1, a); break;
    case 7: termInArray<PeriodicTorsion, kEnergy>(t, k, i, kProperDihSlot, -1, a); break;
    case 8: termInArray<RbTorsion, kEnergy>(t, k, i, kRbDihSlot, -1, a); break;
    case 9: termInArray<HarmonicImproper, kEnergy>(t, k, i, kImproperDihSlot, -1, a); break;
    case 10: termInArray<PeriodicTorsion, kEnergy>(t, k, i, kPeriodicImproperDihSlot, -1, a); break;
    case 11: termInArray<CmapTorsion, kEnergy>(t, k, i, kCmapSlot, -1, a); break;
    case 12: termInArray<Pair14, kEnergy>(t, k, i, kLj14Slot, kCoulomb14Slot, a); break;
    case 13: termInArray<PositionRestraint, kEnergy>(t, k, i, kPositionRestraintSlot, -1, a); break;
    default: termInArray<ExclusionPair, kEnergy>(t, TermArrays::kExclusions, i, kExclusionCorrectionSlot, -1, a); break;
  }
}

/// Every term of the arrays of `t` in one launch: each block belongs to one array (so a
/// warp's energy sums go to one slot), found among the few arrays by a linear search.
template <bool kEnergy>
__global__ void __launch_bounds__(kThreads) termsKernel(TermArrays t, TermArgs a) {
  int k = 0;
  while (k + 1 < TermArrays::kArrays && int(blockIdx.x) >= t.firstBlock[k + 1]) ++k;
  const int i = (int(blockIdx.x) - t.firstBlock[k]) * kThreads + int(threadIdx.x);
  if (!a.share.ownsWarp(i >> 5)) return;  // the whole warp: another GPU's terms
  termOfArray<kEnergy>(k, t, i, a);
}

/// One launch for the arrays `first` .. `last` - 1 of `arrays` (the others get no blocks).
void launchTerms(cudaStream_t stream, bool energies, TermArrays arrays, int first, int last, const TermArgs& a) {
  int blocks = 0;
  for (int k = 0; k < TermArrays::kArrays; ++k) {
    arrays.firstBlock[k] = blocks;
    if (k >= first && k < last) blocks += blocksFor(arrays.count[k], kThreads);
  }
  arrays.firstBlock[TermArrays::kArrays] = blocks;
  if (blocks == 0) return;
  if (energies)
    termsKernel<true><<<blocks, kThreads, 0, stream>>>(arrays, a);
  else
    termsKernel<false><<<blocks, kThreads, 0, stream>>>(arrays, a);
  FARADAY_CUDA_CHECK_LAUNCH("termsKernel");
}

}  // namespace

CudaBonded::CudaBonded(const Topology& t, const std::vector<double>& charges, const BondedParams& params,
                       const std::vector<int>* groupOfAtom)
    : ewaldBeta_(params.ewaldBeta) {
  checkBondedTopology(t, charges.size());
  const CmapTable cmap(t.cmapGrids);
  bonds_ = deviceCopy("bonds", t.bonds);
  g96Bonds_ = deviceCopy("G96 bonds", t.g96Bonds);
  morseBonds_ = deviceCopy("Morse bonds", t.morseBonds);
  cubicBonds_ = deviceCopy("cubic bonds", t.cubicBonds);
  angles_ = deviceCopy("angles", t.angles);
  g96Angles_ = deviceCopy("G96 angles", t.g96Angles);
  ureyBradleys_ = deviceCopy("Urey-Bradley angles", t.ureyBradleys);
  properDihedrals_ = deviceCopy("proper dihedrals", t.properDihedrals);
  periodicImpropers_ = deviceCopy("periodic impropers", t.periodicImpropers);
  rbDihedrals_ = deviceCopy("Ryckaert-Bellemans dihedrals", t.rbDihedrals);
  impropers_ = deviceCopy("harmonic impropers", t.impropers);
  cmaps_ = deviceCopy("CMAP terms", t.cmaps);
  pairs14_ = deviceCopy("1-4 pairs", t.pairs14);
  positionRestraints_ = deviceCopy("position restraints", t.positionRestraints);
  std::vector<ExclusionPair> excluded = exclusionCorrectionPairs(t, charges, params);
  if (groupOfAtom) {
    if (groupOfAtom->size() != charges.size()) throw Error("CudaBonded: one group per particle needed");
    std::erase_if(excluded, [&](const ExclusionPair& p) {
      return (*groupOfAtom)[std::size_t(p.i)] == (*groupOfAtom)[std::size_t(p.j)];
    });
  }
  exclusions_ = deviceCopy("excluded pairs", excluded);
  cmapCoefficients_ = deviceCopy("CMAP patches", cmap.coefficients());
  cmapFirstCell_ = deviceCopy("CMAP first cells", cmap.firstCell());
  cmapSize_ = deviceCopy("CMAP sizes", cmap.sizes());
  FARADAY_CUDA_CHECK(cudaStreamSynchronize(nullptr));
}

bool CudaBonded::empty() const {
  return bonds_.size() + g96Bonds_.size() + morseBonds_.size() + cubicBonds_.size() + angles_.size() +
             g96Angles_.size() + ureyBradleys_.size() + properDihedrals_.size() + periodicImpropers_.size() +
             rbDihedrals_.size() + impropers_.size() + cmaps_.size() + pairs14_.size() + positionRestraints_.size() +
             exclusions_.size() ==
         0;
}

void CudaBonded::setBox(const Box& box, cudaStream_t stream) {
  boxTerms_.set(MinimumImage::fromBox(box), stream);
  boxSet_ = true;
}

void CudaBonded::enqueue(cudaStream_t stream, bool energies, const double4_32a* pos, const int* slotOfAtom,
                         unsigned long long* force, std::size_t stride, unsigned long long* sums,
                         int parts, const WorkShare& share) const {
  if (!boxSet_) throw Error("CudaBonded: setBox() before enqueue()");
  const TermArgs a{pos,
                   slotOfAtom,
                   boxTerms_.data(),
                   BondedView{CmapView{cmapCoefficients_.data(), cmapFirstCell_.data(), cmapSize_.data()}, ewaldBeta_},
                   force,
                   stride,
                   sums,
                   share};
  TermArrays arrays{};
  const auto set = [&](int k, const auto& buffer) {
    arrays.terms[k] = buffer.data();
    arrays.count[k] = int(buffer.size());
  };
  set(0, bonds_), set(1, g96Bonds_), set(2, morseBonds_), set(3, cubicBonds_), set(4, angles_);
  set(5, g96Angles_), set(6, ureyBradleys_), set(7, properDihedrals_), set(8, rbDihedrals_), set(9, impropers_);
  set(10, periodicImpropers_), set(11, cmaps_), set(12, pairs14_), set(13, positionRestraints_);
  set(TermArrays::kExclusions, exclusions_);
  constexpr int kX = TermArrays::kExclusions;
  if (parts & kExclusionCorrectionPart) launchTerms(stream, energies, arrays, kX, kX + 1, a);
  if (parts & kBondedTermsPart) launchTerms(stream, energies, arrays, 0, kX, a);
}

namespace {

/// The kernels behind host vectors: positions uploaded into slots in reverse particle order
/// (so that the slot indirection is exercised), forces and energies downloaded.
class CudaBondedOnHost : public BondedForces {
 public:
  CudaBondedOnHost(const Topology& t, const std::vector<double>& charges, const BondedParams& params)
      : kernels_(t, charges, params), atoms_(charges.size()) {}

  BondedEnergies compute(const std::vector<Vec3>& positions, const Box& box, std::vector<Vec3>& forces) override {
    return run(positions, box, forces, true);
  }
  void addForces(const std::vector<Vec3>& positions, const Box& box, std::vector<Vec3>& forces) override {
    run(positions, box, forces, false);
  }

 private:
  BondedEnergies run(const std::vector<Vec3>& positions, const Box& box, std::vector<Vec3>& forces, bool energies) {
    if (positions.size() != atoms_ || forces.size() != atoms_)
      throw Error("bonded forces on the GPU: " + std::to_string(positions.size()) + " positions for " +
                  std::to_string(atoms_) + " particles");
    const std::size_t n = atoms_, stride = (n + 31) / 32 * 32;
    std::vector<int> slotOfAtom(n);
    std::vector<double4_32a> p(n);
    for (std::size_t a = 0; a < n; ++a) {
      const std::size_t s = n - 1 - a;
      slotOfAtom[a] = int(s);
      p[s] = make_double4_32a(positions[a].x, positions[a].y, positions[a].z, 0.0);
    }
    const cudaStream_t s = stream_.get();
    pos_.upload(p, s);
    slots_.upload(slotOfAtom, s);
    force_.resize(3 * stride);
    force_.zero(s);
    sums_.resize(kBondedSums);
    sums_.zero(s);
    kernels_.setBox(box, s);
    kernels_.enqueue(s, energies, pos_.data(), slots_.data(), force_.data(), stride, sums_.data());
    const std::vector<unsigned long long> f = force_.toHost(s), e = sums_.toHost(s);
    for (std::size_t a = 0; a < n; ++a) {
      const std::size_t slot = std::size_t(slotOfAtom[a]);
      forces[a] += Vec3{fixed::fromFixed((long long)f[slot]), fixed::fromFixed((long long)f[stride + slot]),
                        fixed::fromFixed((long long)f[2 * stride + slot])};
    }
    BondedEnergies out;
    for (int k = 0; k < kBondedSlots; ++k) out.energy[k] = fixed::energyFromFixed((long long)e[k]);
    double w[6];
    for (int c = 0; c < 6; ++c) w[c] = fixed::energyFromFixed((long long)e[kBondedSumWxx + c]);
    out.virial = symmetricTensor(w);
    return out;
  }

  CudaStream stream_;
  CudaBonded kernels_;
  std::size_t atoms_;
  DeviceBuffer<double4_32a> pos_{"bonded test positions", 0};
  DeviceBuffer<int> slots_{"bonded test slots", 0};
  DeviceBuffer<unsigned long long> force_{"bonded test forces", 0}, sums_{"bonded test sums", 0};
};

}  // namespace

std::unique_ptr<BondedForces> makeCudaBondedOnHost(const Topology& topology, const std::vector<double>& charges,
                                                   const BondedParams& params) {
  return std::make_unique<CudaBondedOnHost>(topology, charges, params);
}

}  // namespace faraday

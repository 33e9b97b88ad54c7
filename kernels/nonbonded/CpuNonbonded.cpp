// The CPU short-range pair loop (LJ + real-space Ewald Coulomb) over the full list.
#include "kernels/nonbonded/CpuNonbonded.h"

#include <omp.h>

#include <algorithm>

#include "core/Error.h"
#include "core/Units.h"
#include "core/Virial.h"
#include "kernels/neighbor/MinimumImage.h"

namespace faraday {

std::vector<double> typedPairShifts(const TypedPairTable& table, double cutoff) {
  std::vector<double> shift(table.params.size());
  const double rmin2 = table.rmin * table.rmin;
  for (std::size_t k = 0; k < shift.size(); ++k) shift[k] = typedPair(cutoff * cutoff, table.params[k], rmin2).energy;
  return shift;
}

CpuNonbonded::CpuNonbonded(const System& system, const NonbondedOptions& options)
    : options_(options), table_(makeLjTable(system, options.cutoff, options.ljShift)), type_(system.type),
      charge_(system.charge), exclusionOffsets_(system.topology.exclusionOffsets),
      exclusions_(system.topology.exclusions) {
  if (!(options.cutoff > 0)) throw Error("nonbonded: the cutoff must be > 0 nm");
  if (options.typed) {
    if (options.typed->types != table_.types)
      throw Error("nonbonded: the typed pair table has " + std::to_string(options.typed->types) +
                  " atom types, the system " + std::to_string(table_.types));
    typedShift_ = typedPairShifts(*options.typed, options.cutoff);
  }
  scaledCharge_.resize(charge_.size());
  for (std::size_t i = 0; i < charge_.size(); ++i) scaledCharge_[i] = units::kCoulomb * charge_[i];
  const std::size_t n = system.size();
  energyPair_.assign(n, 0);
  energyCoulomb_.assign(n, 0);
  virial_.assign(n, {});
}

/// Positions (wrapped into the box), types and charges in the list's slot order, so the
/// pair loop reads neighbours from contiguous memory.
void CpuNonbonded::gatherSlots(const std::vector<Vec3>& positions, const Box& box, const NeighborList& list) {
  const long long n = (long long)positions.size();
  const int* order = list.order().data();
  wrapped_.resize(positions.size());
  slotType_.resize(positions.size());
  slotCharge_.resize(positions.size());
  slotScaledCharge_.resize(positions.size());
  const int threads = options_.threads > 0 ? options_.threads : omp_get_max_threads();
#pragma omp parallel for num_threads(threads) schedule(static) if (n >= 16384)
  for (long long s = 0; s < n; ++s) {
    const int p = order[s];
    wrapped_[s] = box.wrap(positions[p]);
    slotType_[s] = type_[p];
    slotCharge_[s] = charge_[p];
    slotScaledCharge_[s] = scaledCharge_[p];
  }
}

void CpuNonbonded::gatherExclusions(const NeighborList& list) {
  const std::vector<int>& order = list.order();
  if (order == exclusionsOrder_) return;
  exclusionsOrder_ = order;
  std::vector<int> slotOf(order.size());
  for (std::size_t s = 0; s < order.size(); ++s) slotOf[std::size_t(order[s])] = int(s);
  slotExclusionOffsets_.assign(order.size() + 1, 0);
  slotExclusions_.resize(exclusions_.size());
  for (std::size_t s = 0; s < order.size(); ++s) {
    const int p = order[s], first = exclusionOffsets_[std::size_t(p)], last = exclusionOffsets_[std::size_t(p) + 1];
    const int start = slotExclusionOffsets_[s];
    for (int k = first; k < last; ++k) slotExclusions_[std::size_t(start + k - first)] = slotOf[std::size_t(exclusions_[std::size_t(k)])];
    std::sort(slotExclusions_.begin() + start, slotExclusions_.begin() + start + (last - first));
    slotExclusionOffsets_[s + 1] = start + (last - first);
  }
}

template <bool kCoulomb, bool kTyped, bool kExclusions>
void CpuNonbonded::computeRows(const Box& box, const NeighborList& list, std::vector<Vec3>& forces) {
  const long long n = (long long)wrapped_.size();
  const int* order = list.order().data();
  const int threads = options_.threads > 0 ? options_.threads : omp_get_max_threads();
  // Threads only when there is enough work to repay the fork and the barrier.
  const bool parallel = list.neighbors().size() >= 32768;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 64) if (parallel)
  for (long long slot = 0; slot < n; ++slot) {
    const RowSums s = sumRow<kCoulomb, kTyped, kExclusions>(int(slot), box, list);
    forces[order[slot]] = s.force;
    // Each pair appears in two rows: half of its energy and virial belongs to each.
    energyPair_[slot] = 0.5 * s.pair;
    energyCoulomb_[slot] = 0.5 * s.coulomb;
    for (int c = 0; c < 6; ++c) virial_[slot][c] = 0.5 * s.w[c];
  }
}

template <bool kTyped>
PairResult<double> CpuNonbonded::shortRangePair(double r2, int a, int b) const {
  const std::size_t k = std::size_t(a) * table_.types + b;
  if constexpr (kTyped) {
    const TypedPairTable& t = *options_.typed;
    PairResult<double> p = typedPair(r2, t.params[k], t.rmin * t.rmin);
    p.energy -= typedShift_[k];
    return p;
  } else {
    return ljPair(r2, table_.pairs[k]);
  }
}

/// Row of slot i in ascending slot j; pairs in the buffer (r >= cutoff) are skipped, and
/// excluded pairs, found by walking the slot's ascending excluded slots beside j. (A
/// branch-free masked variant that evaluates every listed pair measured 40% slower.)
template <bool kCoulomb, bool kTyped, bool kExclusions>
RowSums CpuNonbonded::sumRow(int i, const Box& box, const NeighborList& list) const {
  const Vec3 L = box.diagonal(), half = L * 0.5, xi = wrapped_[i];
  const bool rectangular = box.isRectangular();
  const double cutoff2 = options_.cutoff * options_.cutoff, beta = options_.ewaldBeta;
  const double shift = options_.coulombShift ? ewaldRealShift(beta, options_.cutoff) : 0.0;
  const int ti = slotType_[i];
  const double qi = slotScaledCharge_[i];
  const int* neighbors = list.neighbors().data();
  RowSums s;
  const int* excluded = kExclusions ? slotExclusions_.data() + slotExclusionOffsets_[i] : nullptr;
  const int* excludedEnd = kExclusions ? slotExclusions_.data() + slotExclusionOffsets_[i + 1] : nullptr;
  for (int k = list.offsets()[i]; k < list.offsets()[i + 1]; ++k) {
    const int j = neighbors[k];
    if constexpr (kExclusions) {
      while (excluded != excludedEnd && *excluded < j) ++excluded;
      if (excluded != excludedEnd && *excluded == j) continue;
    }
    // r_ij = x_i - x_j of two positions in the brick: one select per component in a
    // rectangular box (exact), the c, b, a shifts in a triclinic one.
    const Vec3 d = rectangular ? Vec3{nearestImage(xi.x - wrapped_[j].x, L.x, half.x),
                                      nearestImage(xi.y - wrapped_[j].y, L.y, half.y),
                                      nearestImage(xi.z - wrapped_[j].z, L.z, half.z)}
                               : box.minimumImage(xi - wrapped_[j]);
    const double r2 = norm2(d);
    if (r2 >= cutoff2) continue;
    const PairResult<double> p = shortRangePair<kTyped>(r2, ti, slotType_[j]);
    double fOverR = p.fOverR;
    s.pair += p.energy;
    if constexpr (kCoulomb) {
      const PairResult<double> c = ewaldRealPair(r2, qi * slotCharge_[j], beta, shift);
      fOverR += c.fOverR;
      s.coulomb += c.energy;
    }
    const Vec3 f = d * fOverR;
    s.force += f;
    addPairVirial(s.w, d, f);
  }
  return s;
}

NonbondedResult CpuNonbonded::sumParticles() const {
  NonbondedResult r;
  double w[6] = {0, 0, 0, 0, 0, 0};
  double pair = 0;
  for (std::size_t i = 0; i < energyPair_.size(); ++i) {  // sequential over slots: fixed order
    pair += energyPair_[i];
    r.coulombReal += energyCoulomb_[i];
    for (int c = 0; c < 6; ++c) w[c] += virial_[i][c];
  }
  (options_.typed ? r.typed : r.lj) = pair;
  r.virial = symmetricTensor(w);
  return r;
}

NonbondedResult CpuNonbonded::compute(const std::vector<Vec3>& positions, const Box& box, const NeighborList& list,
                                      std::vector<Vec3>& forces) {
  if (list.size() != positions.size() || positions.size() != type_.size())
    throw Error("nonbonded: neighbor list, positions and system sizes differ");
  if (list.listRadius() < options_.cutoff) throw Error("nonbonded: neighbor list radius is below the cutoff");
  if (list.order().size() != positions.size()) throw Error("nonbonded: the neighbor list was never built");
  forces.resize(positions.size());
  gatherSlots(positions, box, list);
  const bool coulomb = options_.ewaldBeta > 0, typed = options_.typed.has_value();
  if (!exclusions_.empty()) {
    gatherExclusions(list);
    // A topology brings LJ with exclusions; the typed force has no topology.
    coulomb ? computeRows<true, false, true>(box, list, forces) : computeRows<false, false, true>(box, list, forces);
  } else if (coulomb) {
    typed ? computeRows<true, true, false>(box, list, forces) : computeRows<true, false, false>(box, list, forces);
  } else {
    typed ? computeRows<false, true, false>(box, list, forces) : computeRows<false, false, false>(box, list, forces);
  }
  return sumParticles();
}

namespace {

/// <C6>: average of C6_ij = 4 eps_ij sigma_ij^6 over the N(N-1)/2 distinct pairs,
/// from the number of particles of each type.
double averageC6(const System& system, const LjTable& table) {
  std::vector<double> count(system.types.size(), 0.0);
  for (int t : system.type) count[std::size_t(t)] += 1;
  const double n = double(system.size());
  if (n < 2) return 0;
  double sum = 0;
  for (int a = 0; a < table.types; ++a)
    for (int b = 0; b < table.types; ++b) {
      const double pairs = a == b ? 0.5 * count[a] * (count[a] - 1) : 0.5 * count[a] * count[b];
      sum += pairs * table.at(a, b).c6;
    }
  return sum / (0.5 * n * (n - 1));
}

}  // namespace

DispersionCorrection dispersionCorrection(const System& system, double cutoff, bool ljShift, double volume) {
  const LjTable table = makeLjTable(system, cutoff, false);
  const double n = double(system.size());
  const double base = units::kPi * n * n / volume * averageC6(system, table) / (cutoff * cutoff * cutoff);
  DispersionCorrection d;
  d.energy = -(2.0 / 3.0) * base * (ljShift ? 2.0 : 1.0);
  d.virialDiagonal = -(4.0 / 3.0) * base;
  return d;
}

}  // namespace faraday

#pragma once
// The configuration's choices: every key whose value is one of a few words is read into an
// enum when the configuration is loaded (KeyBuilders.h, choice), so that no layer below
// compares a setting's text. ChoiceWords<E> lists an enum's words in the order of its values;
// the loader reads them, and messages and the effective settings print them (choiceText).
#include <array>
#include <cstddef>
#include <string>

#include "engine/formats/MapWriters.h"
#include "integrators/IntegratorParams.h"
#include "kernels/dcs/MapMethod.h"
#include "kernels/pme/ElectrostaticsMethod.h"

namespace faraday {

/// nonbonded.mode: a periodic box with a cutoff and pair list, or every pair in open space.
enum class NonbondedMode { Cutoff, AllPairs };
/// nonbonded.potential: LJ + Coulomb, Plummer-softened gravity (all-pairs), the typed force.
enum class PairPotential { LjCoulomb, Gravity, Typed };
/// nonbonded.coulomb_modifier: the real-space Coulomb shifted to zero at the cutoff, or not.
enum class CoulombModifier { PotentialShift, None };
/// system.constraints: which of the topology's bonds become distance constraints.
enum class BondConstraints { None, HBonds, AllBonds };
/// run.platform.
enum class Platform { Auto, Cpu, Cuda };
/// run.gpu_sum: the sum of the GPUs' forces.
enum class GpuSum { Auto, Nccl };
/// run.pme_split: PME of a run on several GPUs.
enum class PmeSplit { Auto, Slabs, SlabsNccl, First };
/// run.update_split: each GPU of several updating its own atoms.
enum class UpdateSplit { Auto, On, Off };
/// map.extent: the lattice over the box, or over the atoms' padded bounding box.
enum class MapExtent { Box, Atoms };

template <typename E>
struct ChoiceWords;

#define FARADAY_CHOICE_WORDS(E, ...)                                     \
  template <>                                                            \
  struct ChoiceWords<E> {                                                \
    static constexpr auto words = std::to_array<const char*>({__VA_ARGS__}); \
  }

FARADAY_CHOICE_WORDS(NonbondedMode, "cutoff", "all-pairs");
FARADAY_CHOICE_WORDS(PairPotential, "lj-coulomb", "gravity", "typed");
FARADAY_CHOICE_WORDS(CoulombModifier, "potential-shift", "none");
FARADAY_CHOICE_WORDS(BondConstraints, "none", "h-bonds", "all-bonds");
FARADAY_CHOICE_WORDS(Platform, "auto", "cpu", "cuda");
FARADAY_CHOICE_WORDS(GpuSum, "auto", "nccl");
FARADAY_CHOICE_WORDS(PmeSplit, "auto", "slabs", "slabs-nccl", "first");
FARADAY_CHOICE_WORDS(UpdateSplit, "auto", "on", "off");
FARADAY_CHOICE_WORDS(MapExtent, "box", "atoms");
FARADAY_CHOICE_WORDS(ElectrostaticsMethod, "pme", "ewald", "none");
FARADAY_CHOICE_WORDS(IntegratorType, "verlet", "langevin");
FARADAY_CHOICE_WORDS(MapMethod, "direct", "cutoff", "pme", "pmepot");
FARADAY_CHOICE_WORDS(MapUnits, "kT/e", "V", "kJ/mol/e");

#undef FARADAY_CHOICE_WORDS

/// The word of `value` as the configuration spells it ("all-pairs").
template <typename E>
std::string choiceText(E value) {
  return ChoiceWords<E>::words[std::size_t(value)];
}

}  // namespace faraday

#include "engine/TrajectoryReporter.h"

namespace faraday {

DcdWriter TrajectoryReporter::open(const std::filesystem::path& file, std::size_t atoms, long long interval,
                                   double timestep, long long restartStep) {
  if (restartStep < 0) return DcdWriter(file, atoms, 0, interval, timestep);
  if (std::filesystem::exists(file)) return DcdWriter::append(file, atoms, interval, restartStep);
  const long long firstStep = (restartStep / interval + 1) * interval;
  return DcdWriter(file, atoms, firstStep, interval, timestep);
}

TrajectoryReporter::TrajectoryReporter(const std::filesystem::path& file, std::size_t atoms, long long interval,
                                       double timestep, long long restartStep)
    : interval_(interval), writer_(open(file, atoms, interval, timestep, restartStep)) {}

void TrajectoryReporter::report(const State& state, const Energies&, double) {
  writer_.writeFrame(state.positions, state.box);
}

}  // namespace faraday

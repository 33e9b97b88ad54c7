#include "engine/run/TrajectoryReporter.h"

#include "engine/formats/TrajectoryFile.h"

namespace faraday {

TrajectoryReporter::TrajectoryReporter(const std::filesystem::path& file, std::size_t atoms, long long interval,
                                       double timestep, long long restartStep, double xtcPrecision)
    : interval_(interval), writer_(openTrajectoryWriter(file, atoms, interval, timestep, restartStep, xtcPrecision)) {}

void TrajectoryReporter::report(const State& state, const Energies&, double) { writer_->write(state); }

}  // namespace faraday

#include "engine/TrajectoryReporter.h"

#include "engine/DcdFile.h"
#include "engine/XtcFile.h"

namespace faraday {
namespace {

std::unique_ptr<TrajectoryWriter> openWriter(const std::filesystem::path& file, std::size_t atoms, long long interval,
                                             double timestep, long long restartStep, double xtcPrecision) {
  const bool append = restartStep >= 0 && std::filesystem::exists(file);
  if (knownTrajectoryFormat(file) == TrajectoryFormat::Xtc) {
    // Every XTC frame carries its step: a restart without the file starts a new one.
    if (append) return std::make_unique<XtcWriter>(XtcWriter::append(file, atoms, interval, restartStep, xtcPrecision));
    return std::make_unique<XtcWriter>(file, atoms, xtcPrecision);
  }
  if (append) return std::make_unique<DcdWriter>(DcdWriter::append(file, atoms, interval, restartStep));
  const long long firstStep = restartStep < 0 ? 0 : (restartStep / interval + 1) * interval;
  return std::make_unique<DcdWriter>(file, atoms, firstStep, interval, timestep);
}

}  // namespace

TrajectoryReporter::TrajectoryReporter(const std::filesystem::path& file, std::size_t atoms, long long interval,
                                       double timestep, long long restartStep, double xtcPrecision)
    : interval_(interval), writer_(openWriter(file, atoms, interval, timestep, restartStep, xtcPrecision)) {}

void TrajectoryReporter::report(const State& state, const Energies&, double) { writer_->write(state); }

}  // namespace faraday

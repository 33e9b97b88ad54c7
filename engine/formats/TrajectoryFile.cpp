#include "engine/formats/TrajectoryFile.h"

#include "engine/formats/DcdFile.h"
#include "engine/formats/XtcFile.h"

namespace faraday {

std::unique_ptr<TrajectoryReader> openTrajectory(const std::filesystem::path& file, long long expectedAtoms) {
  if (knownTrajectoryFormat(file) == TrajectoryFormat::Xtc) return std::make_unique<XtcReader>(file, expectedAtoms);
  return std::make_unique<DcdReader>(file, expectedAtoms);
}

void checkTrajectoryContinues(const std::filesystem::path& file, std::size_t atoms, long long interval,
                              long long restartStep) {
  if (knownTrajectoryFormat(file) == TrajectoryFormat::Xtc)
    XtcWriter::framesToKeep(file, atoms, interval, restartStep);
  else
    DcdWriter::framesToKeep(file, atoms, interval, restartStep);
}

std::unique_ptr<TrajectoryWriter> openTrajectoryWriter(const std::filesystem::path& file, std::size_t atoms,
                                                       long long interval, double timestep, long long restartStep,
                                                       double xtcPrecision) {
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

}  // namespace faraday

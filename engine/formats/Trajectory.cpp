#include "engine/formats/Trajectory.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>


namespace faraday {

std::optional<TrajectoryFormat> trajectoryFormat(const std::filesystem::path& file) {
  std::string ext = file.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  if (ext == ".dcd") return TrajectoryFormat::Dcd;
  if (ext == ".xtc") return TrajectoryFormat::Xtc;
  return std::nullopt;
}

TrajectoryFormat knownTrajectoryFormat(const std::filesystem::path& file) {
  const auto format = trajectoryFormat(file);
  if (!format)
    throw fileError(file.string(), 0, "unknown trajectory format '" + file.extension().string() + "' (expected .dcd or .xtc)");
  return *format;
}

void checkFrameValues(const std::filesystem::path& file, long long index, long long frames, TrajectoryFrame& frame) {
  const std::string where = "frame " + std::to_string(index + 1) + " of " + std::to_string(frames);
  if (frame.hasBox) {
    const std::optional<Box> reduced = Box::reduce(frame.box.a, frame.box.b, frame.box.c);
    if (!reduced || !reduced->isValid())
      throw fileError(file.string(), 0, where + ": the unit cell cannot be brought to the reduced triclinic form (a "
                                                "along x, b in the xy plane, positive finite a_x, b_y and c_z; frames "
                                                "count from 1)");
    frame.box = *reduced;
  }
  for (std::size_t i = 0; i < frame.positions.size(); ++i)
    for (int k = 0; k < 3; ++k)
      if (!std::isfinite(frame.positions[i][k]))
        throw fileError(file.string(), 0, where + ", atom " + std::to_string(i + 1) + ": non-finite " + "xyz"[k] +
                                              " coordinate (frames and atoms count from 1)");
}

Error atomCountError(const std::filesystem::path& file, std::size_t atoms, long long expectedAtoms) {
  return fileError(file.string(), 0, "trajectory has " + std::to_string(atoms) + " atoms, the system has " +
                                         std::to_string(expectedAtoms));
}

Error appendIntervalError(const std::filesystem::path& file, long long fileInterval, long long interval) {
  return fileError(file.string(), 0, "existing trajectory has one frame every " + std::to_string(fileInterval) +
                                         " steps, the config says " + std::to_string(interval) + ": cannot append");
}

Error appendGapError(const std::filesystem::path& file, long long frames, long long lastFrameStep, long long restartStep) {
  const std::string ends = frames == 0 ? "has no frame" : "ends at step " + std::to_string(lastFrameStep) + " (" +
                                                              std::to_string(frames) + " frames)";
  return fileError(file.string(), 0, "trajectory " + ends + ", before the restart step " + std::to_string(restartStep) +
                                         ": continuing it would leave a gap; restart with the trajectory the "
                                         "checkpoint's run wrote, or set output.trajectory_file to a new file");
}

}  // namespace faraday

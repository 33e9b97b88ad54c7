#pragma once
#include <string>
#include <vector>

namespace faraday {

/// `faraday bench pme [options]`: times every PME phase on the CPU (FFTW) and/or the GPU
/// (cuFFT) for random neutral ion systems at the NaCl melt density, prints a table of the
/// median time per phase per platform with the speedup, writes a CSV, and reports the
/// relative RMS force error of PME vs the plain Ewald sum for the smallest size.
/// `args` are the options after "pme"; returns the process exit code. `--help` lists them.
int benchPme(const std::vector<std::string>& args);

}  // namespace faraday

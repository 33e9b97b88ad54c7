#pragma once
// The lock that serialises FFTW planning (FFTW's planner is not thread-safe; the
// fftw_execute family is, also on one plan from several threads).
#include <mutex>

namespace faraday {

/// Held while creating or destroying FFTW plans.
std::mutex& fftwPlannerMutex();

}  // namespace faraday

#pragma once
// FFTW set-up shared by the CPU solvers: one-time thread initialisation and the lock
// that serialises planning (FFTW's planner is not thread-safe; fftw_execute is).
#include <mutex>

namespace faraday {

/// Calls fftw_init_threads() once per process (thread-safe); throws Error on failure.
void initFftwThreads();
/// Held while creating or destroying FFTW plans.
std::mutex& fftwPlannerMutex();

}  // namespace faraday

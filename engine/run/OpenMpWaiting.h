#pragma once
#include <string>

namespace faraday {

/// Spin iterations an idle OpenMP thread waits before it sleeps, unless the user chose
/// (OMP_WAIT_POLICY or GOMP_SPINCOUNT). libgomp's default (300000, ~1 ms) lets waiting
/// threads burn the cores that the thread they wait for needs when the machine is busy:
/// 864-atom argon, 500 steps on 2 cores shared with 2 CPU-bound processes, run.threads = 2:
/// 8.5 s (1 thread: 4.0 s) with the default, 2.7 s with 10000, 3.3 s fully passive.
inline constexpr const char* kSpinCount = "10000";

/// Call first in main(): when neither OMP_WAIT_POLICY nor GOMP_SPINCOUNT is set, sets
/// GOMP_SPINCOUNT = kSpinCount and re-executes the program (the OpenMP runtime reads its
/// settings once, before main). Returns only when nothing needs to change or the
/// re-execution failed (the run then goes on with the runtime's defaults).
void limitOpenMpSpinning(char** argv);

/// How idle OpenMP threads wait in this process, e.g. "GOMP_SPINCOUNT=10000" (for the log).
std::string openMpWaiting();

}  // namespace faraday

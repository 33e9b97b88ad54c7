#pragma once
#include <memory>
#include <string>

#include "core/System.h"
#include "core/Timers.h"
#include "engine/backends/Backend.h"
#include "engine/config/Config.h"

namespace faraday {

/// Chooses and creates the backend from config.run.platform: cpu, cuda, or auto
/// (cuda when built with CUDA and a device is present, with a notice on fallback).
/// Phase times go to `timers` (may be null).
std::unique_ptr<Backend> makeBackend(const Config& config, const System& system, Timers* timers);

/// Whether run.platform = `platform` puts work on the GPU here (cuda, or auto with a device).
bool platformUsesCuda(Platform platform);

}  // namespace faraday

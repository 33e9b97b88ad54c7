#pragma once
// One checking macro for every CUDA runtime and cuFFT call: a failure throws
// faraday::Error with the call's text, the file and the line.
#include <string>

#include "core/Error.h"

#if defined(FARADAY_HAVE_CUDA)
#include <cuda_runtime.h>
#include <cufft.h>

namespace faraday::detail {

inline const char* cufftResultName(cufftResult r) {
  switch (r) {
    case CUFFT_SUCCESS: return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_TYPE: return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
    default: return "cuFFT error";
  }
}

[[noreturn]] inline void throwCuda(const char* call, const char* file, int line, const std::string& what) {
  throw Error(std::string("CUDA call ") + call + " failed at " + file + ":" + std::to_string(line) + ": " + what);
}

inline void checkCuda(cudaError_t e, const char* call, const char* file, int line) {
  if (e != cudaSuccess) throwCuda(call, file, line, std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e));
}
inline void checkCuda(cufftResult e, const char* call, const char* file, int line) {
  if (e != CUFFT_SUCCESS) throwCuda(call, file, line, cufftResultName(e));
}

}  // namespace faraday::detail

/// Checks a cudaError_t or cufftResult; throws faraday::Error naming the call and place.
#define FARADAY_CUDA_CHECK(call) ::faraday::detail::checkCuda((call), #call, __FILE__, __LINE__)
/// After a kernel launch: reports launch-configuration errors at the launch site.
#define FARADAY_CUDA_CHECK_LAUNCH(kernelName) \
  ::faraday::detail::checkCuda(cudaPeekAtLastError(), "launch of " kernelName, __FILE__, __LINE__)
#endif

#pragma once
// FARADAY_HD marks functions compiled for both the host and the device, so that a
// pair interaction or a small vector operation is written once.
#if defined(__CUDACC__)
#define FARADAY_HD __host__ __device__ __forceinline__
#else
#define FARADAY_HD inline
#endif

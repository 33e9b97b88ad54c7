#pragma once
#include <cmath>

#include "core/HostDevice.h"

namespace faraday {

/// A 3-vector of T (double on the CPU oracle, float in GPU pair math).
template <typename T>
struct Vec3T {
  T x{}, y{}, z{};

  FARADAY_HD Vec3T() = default;
  FARADAY_HD constexpr Vec3T(T x_, T y_, T z_) : x(x_), y(y_), z(z_) {}

  FARADAY_HD T& operator[](int i) { return i == 0 ? x : (i == 1 ? y : z); }
  FARADAY_HD const T& operator[](int i) const { return i == 0 ? x : (i == 1 ? y : z); }

  FARADAY_HD Vec3T operator+(const Vec3T& o) const { return {x + o.x, y + o.y, z + o.z}; }
  FARADAY_HD Vec3T operator-(const Vec3T& o) const { return {x - o.x, y - o.y, z - o.z}; }
  FARADAY_HD Vec3T operator-() const { return {-x, -y, -z}; }
  FARADAY_HD Vec3T operator*(T s) const { return {x * s, y * s, z * s}; }
  FARADAY_HD Vec3T operator/(T s) const { return {x / s, y / s, z / s}; }
  FARADAY_HD Vec3T& operator+=(const Vec3T& o) { x += o.x; y += o.y; z += o.z; return *this; }
  FARADAY_HD Vec3T& operator-=(const Vec3T& o) { x -= o.x; y -= o.y; z -= o.z; return *this; }
  FARADAY_HD Vec3T& operator*=(T s) { x *= s; y *= s; z *= s; return *this; }
  FARADAY_HD bool operator==(const Vec3T& o) const { return x == o.x && y == o.y && z == o.z; }
};

template <typename T>
FARADAY_HD Vec3T<T> operator*(T s, const Vec3T<T>& v) { return v * s; }
template <typename T>
FARADAY_HD T dot(const Vec3T<T>& a, const Vec3T<T>& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
template <typename T>
FARADAY_HD T norm2(const Vec3T<T>& a) { return dot(a, a); }
template <typename T>
FARADAY_HD Vec3T<T> cross(const Vec3T<T>& a, const Vec3T<T>& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
template <typename T>
inline bool isFinite(const Vec3T<T>& a) { return std::isfinite(a.x) && std::isfinite(a.y) && std::isfinite(a.z); }

using Vec3 = Vec3T<double>;
using Vec3f = Vec3T<float>;

/// 3x3 tensor (virial), row-major, double.
struct Tensor3 {
  double m[3][3]{};
  Tensor3& operator+=(const Tensor3& o) {
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) m[i][j] += o.m[i][j];
    return *this;
  }
  double trace() const { return m[0][0] + m[1][1] + m[2][2]; }
};

}  // namespace faraday

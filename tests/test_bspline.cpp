// B-spline weights and moduli for PME against an independent evaluation of the
// definition (Essmann et al. 1995, eq. 4.1 evaluated by plain recursion on u).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kernels/pme/BSpline.h"
#include "tests/Tolerances.h"

namespace faraday {
namespace {

/// M_n(u) by the textbook recursion on the function itself (exponential cost; tests only).
double cardinalBSpline(int n, double u) {
  if (n == 2) return (u >= 0 && u <= 2) ? 1.0 - std::fabs(u - 1.0) : 0.0;
  return (u * cardinalBSpline(n - 1, u) + (n - u) * cardinalBSpline(n - 1, u - 1)) / (n - 1);
}

TEST(BSpline, WeightsMatchDefinitionForEveryOrder) {
  for (int order = 2; order <= pme::kMaxSplineOrder; ++order) {
    for (double w : {0.0, 0.125, 0.3, 0.5, 0.77, 0.999}) {
      double theta[pme::kMaxSplineOrder], dtheta[pme::kMaxSplineOrder];
      pme::bsplineWeights<double>(w, order, theta, dtheta);
      double sum = 0, dsum = 0;
      for (int j = 0; j < order; ++j) {
        const double u = w + order - 1 - j;
        EXPECT_NEAR(theta[j], cardinalBSpline(order, u), tol::kDoubleSum) << "order " << order << " w " << w;
        // dM_n/du = M_{n-1}(u) - M_{n-1}(u - 1) from the definition (eq. 4.2).
        const double d = order == 2 ? (u < 1 ? 1.0 : -1.0)
                                    : cardinalBSpline(order - 1, u) - cardinalBSpline(order - 1, u - 1);
        EXPECT_NEAR(dtheta[j], d, tol::kDoubleSum) << "order " << order << " w " << w;
        sum += theta[j];
        dsum += dtheta[j];
      }
      EXPECT_NEAR(sum, 1.0, tol::kDoubleSum);
      EXPECT_NEAR(dsum, 0.0, tol::kDoubleSum);
    }
  }
}

TEST(BSpline, FloatAndCompileTimeOrderAgreeWithDouble) {
  double td[6], dd[6];
  float tf[6], df[6];
  pme::bsplineWeights<double>(0.3141, 6, td, dd);
  pme::bsplineWeights<6>(0.3141f, tf, df);
  for (int j = 0; j < 6; ++j) {
    EXPECT_NEAR(tf[j], td[j], tol::kBSplineFloat);
    EXPECT_NEAR(df[j], dd[j], tol::kBSplineFloat);
  }
}

TEST(BSpline, SplitGridCoordinateWrapsIntoTheGrid) {
  int first;
  double w;
  pme::splitGridCoordinate(5.25, 10, 4, first, w);
  EXPECT_EQ(first, 2);
  EXPECT_DOUBLE_EQ(w, 0.25);
  pme::splitGridCoordinate(1.5, 10, 4, first, w);
  EXPECT_EQ(first, 8);  // floor(1.5) - 3 = -2 -> 8
  EXPECT_DOUBLE_EQ(w, 0.5);
}

TEST(BSpline, ModuliMatchDirectSumAndStayFinite) {
  const double pi = 3.14159265358979323846;
  for (int order : {4, 5, 6, 7, 8}) {
    const int K = 20;
    const auto mod = pme::bsplineModuli(K, order);
    for (int m = 0; m < K; ++m) {
      double re = 0, im = 0;
      for (int k = 0; k <= order - 2; ++k) {
        const double mk = cardinalBSpline(order, k + 1.0);
        re += mk * std::cos(2 * pi * m * k / K);
        im += mk * std::sin(2 * pi * m * k / K);
      }
      const double denom = re * re + im * im;
      ASSERT_TRUE(std::isfinite(mod[m]));
      if (denom > 1e-7) EXPECT_NEAR(mod[m] * denom, 1.0, tol::kDoubleSum) << "order " << order << " m " << m;
    }
    EXPECT_NEAR(mod[0], 1.0, tol::kDoubleSum);  // sum_k M_n(k+1) = 1
  }
}

}  // namespace
}  // namespace faraday

#pragma once
// Potential maps by smooth PME (map.method = pme): the electrostatic potential that the
// run's Ewald electrostatics implies at every lattice point, as VMD's PMEpot computes it.
//
// For a periodic system of charges q_i at r_i in a box of volume V (reduced triclinic form,
// reciprocal vectors m = k_a a* + k_b b* + k_c c*), the Ewald potential at a point r
// (kJ/(mol e)) is
//   phi(r) = k_C sum_i q_i erfc(beta |r - r_i|)/|r - r_i|      (minimum image, |.| < rc)
//          + k_C/(pi V) sum_{m != 0} exp(-pi^2 m^2/beta^2)/m^2 Re[S(m) exp(-2 pi i m.r)]
//          - k_C pi Q / (V beta^2),
// S(m) = sum_j q_j exp(2 pi i m.r_j), Q = sum_i q_i. The last term is the potential of the
// uniform neutralising background that Ewald adds for a net charge Q (the convention of
// the engine's energies: 1/2 sum_i q_i times it is ewaldNetChargeEnergy); it is zero for
// a neutral system. The real-space term of an atom closer than dcs::kMinDistance to the
// point is dropped (as in the DCS maps), so the map evaluated at the atoms is the
// potential each atom feels from all the others plus its own reciprocal-space image
// terms: E_total - E_self = 1/2 sum_i q_i phi(r_i).
//
// The reciprocal term is the smooth-PME one (Essmann et al. 1995) with the run's beta,
// grid and order: charges spread with order-n B-splines, FFT, times the influence
// function k_C B(m) exp(-pi^2 m^2/beta^2)/(pi V m^2), inverse FFT, which gives
// dE_rec/dQ(k) on the grid; the potential at any point is that grid interpolated with
// the point's B-spline weights, sum_k theta_x theta_y theta_z dE_rec/dQ(k) (exactly the
// quantity whose gradient gives the PME forces).
//
// map.method = pmepot is the reciprocal and background terms alone,
//   phi_G(r) = k_C/(pi V) sum_{m != 0} exp(-pi^2 m^2/beta^2)/m^2 Re[S(m) exp(-2 pi i m.r)]
//            - k_C pi Q / (V beta^2),
// with beta = map.ewald_factor: the potential of the charges smeared into Gaussians
// (beta/sqrt(pi))^3 exp(-beta^2 |r - r_i|^2), i.e. sum over images of q_i erf(beta d)/d in
// the same tin-foil, neutralising-background convention (for a neutral system the sum of
// k_C q_i/d is phi_G plus the real-space term above). VMD's PMEpot plugin computes this map
// with ewaldfactor = 0.25 /A by default (pmepot.tcl: `variable default_ewald_factor 0.25`),
// 2.5 /nm here. It is smooth at the atoms and needs no real-space sum; the grid and order
// are those the run's electrostatics keys give.
#include <memory>
#include <vector>

#include "core/Box.h"
#include "core/Timers.h"
#include "core/Vec3.h"
#include "kernels/common/DeviceFrame.h"
#include "kernels/dcs/Dcs.h"
#include "kernels/dcs/Lattice.h"
#include "kernels/pme/Electrostatics.h"

namespace faraday {

class CpuPme;

/// Copies beta, grid, order and the real-space cutoff of the run's electrostatics into
/// `options` (method = pme). Throws Error when the setup has no Ewald splitting (method none).
void applyEwaldSetup(const EwaldSetup& setup, MapOptions& options);

/// VMD PMEpot's default Ewald factor, 0.25 /A (pmepot.tcl, `default_ewald_factor`), in 1/nm.
inline constexpr double kPmePotEwaldFactor = 2.5;

/// Potential of the neutralising background, -k_C pi Q / (V beta^2), kJ/(mol e);
/// netCharge e, volume nm^3, beta 1/nm.
double ewaldBackgroundPotential(double beta, double netCharge, double volume);

/// CPU double-precision PME potential (the reference of the GPU map). Keeps one CpuPme
/// (FFTW plans) for all frames.
class CpuPmeMap {
 public:
  /// options: method pme with pme params and ewaldCutoff set (applyEwaldSetup), or method
  /// pmepot with pme params (its beta the Ewald factor).
  explicit CpuPmeMap(const MapOptions& options, int threads = 0);
  ~CpuPmeMap();
  CpuPmeMap(const CpuPmeMap&) = delete;
  CpuPmeMap& operator=(const CpuPmeMap&) = delete;
  /// phi (kJ/(mol e)) at every point (nm; any position, wrapped into the box) for charges
  /// (e) at positions (nm) in `box` (nm). phi is resized to points.size().
  void potentialAt(const std::vector<Vec3>& points, const std::vector<Vec3>& positions,
                   const std::vector<double>& charges, const Box& box, std::vector<double>& phi,
                   Timers* timers = nullptr);
  /// Adds the map of one frame to `map` (size lattice.size(), x fastest).
  void addFrame(const Lattice& lattice, const std::vector<Vec3>& positions, const std::vector<double>& charges,
                const Box& box, std::vector<double>& map, Timers* timers = nullptr);

 private:
  MapOptions options_;
  int threads_;
  std::unique_ptr<CpuPme> pme_;
};

/// One frame with a temporary CpuPmeMap (options.box is the box); adds into `map`.
void cpuPmeMap(const Lattice& lattice, const std::vector<Vec3>& positions, const std::vector<double>& charges,
               const MapOptions& options, std::vector<double>& map);

/// The plain Ewald potential at `points`, the reference for the PME map: real space by a
/// direct loop over all atoms (minimum image, |d| < cutoff, terms closer than
/// dcs::kMinDistance dropped), reciprocal space by the k-space sum over |m| <= m_cut with
/// exp(-pi^2 m_cut^2/beta^2) = kspaceRtol, background as above. kJ/(mol e).
struct EwaldPotential {
  std::vector<double> real, reciprocal;  ///< per point
  double background = 0;                 ///< the same for every point
  double total(std::size_t p) const { return real[p] + reciprocal[p] + background; }
};
EwaldPotential ewaldPotentialAt(const std::vector<Vec3>& points, const std::vector<Vec3>& positions,
                                const std::vector<double>& charges, const Box& box, double beta, double cutoff,
                                double kspaceRtol);

/// GPU PME map (method pme or pmepot), summed over frames on the device in double.
/// Reciprocal part: a double-precision smooth PME of its own (spreading in 64-bit fixed
/// point, cuFFT D2Z/Z2D, the CPU's influence function) interpolated by a thread per lattice
/// point; real part (pme): the atoms sorted into cells on the device, each warp of 32
/// lattice points keeps the atoms near its points and sums q erfc(beta r)/r in float,
/// into double, in a fixed order. No float atomics: the same frames give the same bits.
///
/// A frame is read where it lies: addFrame(DeviceFrame) takes a GPU backend's own arrays.
/// One small kernel on the frame's stream copies the state into the map's buffers (so the
/// backend may step on at once); the rest runs on the map's own stream as one CUDA graph
/// (plans, buffers and the graph made once), with no host synchronisation per frame.
class CudaPmeMap {
 public:
  CudaPmeMap(const Lattice& lattice, const MapOptions& options);
  ~CudaPmeMap();
  CudaPmeMap(const CudaPmeMap&) = delete;
  CudaPmeMap& operator=(const CudaPmeMap&) = delete;
  /// Adds the map of one frame (positions nm, charges e, box nm) from the host.
  void addFrame(const std::vector<Vec3>& positions, const std::vector<double>& charges, const Box& box,
                Timers* timers = nullptr);
  /// Adds the map of the device-resident state `frame` in `box` (nm), ordered after the work
  /// already enqueued on frame.stream.
  void addFrame(const DeviceFrame& frame, const Box& box, Timers* timers = nullptr);
  /// The sum over frames so far, kJ/(mol e), x fastest (waits for the frames' work).
  std::vector<double> sum() const;
  /// sum(), then the sum restarted at zero (ordered after the frames' work).
  std::vector<double> takeSum();
  /// Mean GPU time of a frame's work on the map's stream (its graph), ms (0 before any
  /// frame): the map's latency on the device, which overlaps the run's steps.
  double deviceMsPerFrame() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace faraday

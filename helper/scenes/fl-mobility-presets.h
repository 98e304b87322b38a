/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Mobility presets for the clients of the radio scenes (Wi-Fi BSS, Wi-Fi ESS, Wi-Fi ad hoc,
 * LTE): one of ns-3's mobility models (random waypoint and its steady-state variant in a box,
 * Gauss-Markov, a constant-velocity road, waypoint paths, an ns-2/SUMO trace) installed on the
 * clients with its random streams fixed, so that --RngRun reproduces the motion.
 */
#ifndef FL_MOBILITY_PRESETS_H
#define FL_MOBILITY_PRESETS_H

#include "ns3/box.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/vector.h"
#include "ns3/waypoint.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup fl-helper
 * The first ns-3 stream number from which FlClientMobilityHelper draws by default (the
 * scenes' positions use kFlPositionStream, just below): every scene built in one process moves
 * its clients alike for a given --RngRun.
 */
constexpr int64_t kFlMobilityStream = (int64_t{1} << 22) + 64;

/**
 * \ingroup fl-helper
 * How the clients of a radio scene move: one of ns-3's mobility models (mobility module),
 * installed by Install() on every client given, or by a radio scene helper on the clients that
 * have no MobilityModel yet (FlRadioSceneHelperBase::SetClientMobility). Fixed (the default)
 * installs nothing: the scene then places the clients at fixed positions as before.
 *
 * - RandomWaypoint: ns3::RandomWaypointMobilityModel; start uniform in the box, destinations
 *   uniform in the box, speed uniform in [minSpeed, maxSpeed], a constant pause at each.
 * - SteadyStateRandomWaypoint: ns3::SteadyStateRandomWaypointMobilityModel (the same motion
 *   started in its stationary distribution of position, speed and pause; Navidi and Camp,
 *   "Stationary distributions for the random waypoint mobility model", IEEE Trans. Mobile
 *   Computing, 2004); pause uniform in [minPause, maxPause]; the box's z is the height.
 * - GaussMarkov: ns3::GaussMarkovMobilityModel (Liang and Haas, "Predictive distance-based
 *   mobility management for PCS networks", INFOCOM 1999): every time step the speed is
 *   s_n = alpha s_(n-1) + (1 - alpha) meanSpeed + sqrt(1 - alpha^2) x_n with x_n normal of
 *   standard deviation speedStdDev (cut at 3 of them), the direction likewise around a uniform
 *   mean direction (ns-3's default noise), in the plane; start uniform in the box, reflected
 *   at its walls.
 * - Road: ns3::ConstantVelocityMobilityModel; client i starts at start + i * spacing * u and
 *   drives at `speed` along u = direction / |direction|.
 * - Waypoints: ns3::WaypointMobilityModel; client i follows paths[i] (times strictly
 *   increasing; before the first waypoint it stands at the first position, after the last at
 *   the last).
 * - Ns2Trace: ns3::Ns2MobilityHelper on the clients in order (client i is the trace's
 *   $node_(i), ns3::ConstantVelocityMobilityModel); every client must appear in the trace.
 *
 * Every setter checks its values and throws fl::ConfigError naming the parameter
 * ("<setter> <parameter>") and the fix.
 */
class FlClientMobilityHelper
{
  public:
    /// The preset.
    enum class Kind : uint8_t
    {
        Fixed = 0,                 ///< nothing installed (the scene's fixed positions)
        RandomWaypoint,            ///< see the class documentation
        SteadyStateRandomWaypoint, ///< see the class documentation
        GaussMarkov,               ///< see the class documentation
        Road,                      ///< see the class documentation
        Waypoints,                 ///< see the class documentation
        Ns2Trace,                  ///< see the class documentation
    };

    /// Fixed: installs nothing.
    FlClientMobilityHelper() = default;

    /**
     * Random waypoint in `box` (xMin < xMax, yMin < yMax, zMin <= zMax, finite), speed uniform in
     * [minSpeed, maxSpeed] m/s (0 < minSpeed <= maxSpeed), `pause` >= 0 at each waypoint.
     */
    void SetRandomWaypoint(const Box& box, double minSpeed, double maxSpeed, Time pause);
    /**
     * Steady-state random waypoint in `box` (zMin = zMax: the height), speed uniform in
     * [minSpeed, maxSpeed] (0 < minSpeed <= maxSpeed), pause uniform in [minPause, maxPause]
     * (0 <= minPause <= maxPause).
     */
    void SetSteadyStateRandomWaypoint(const Box& box,
                                      double minSpeed,
                                      double maxSpeed,
                                      Time minPause,
                                      Time maxPause);
    /**
     * Gauss-Markov in `box`: mean speed >= 0 [m/s], speedStdDev >= 0 [m/s], alpha in [0, 1]
     * (1: constant speed and direction), time step > 0.
     */
    void SetGaussMarkov(const Box& box,
                        double meanSpeed,
                        double speedStdDev,
                        double alpha,
                        Time timeStep);
    /**
     * A road: client i starts at start + i * spacing * u and drives at speed (>= 0 m/s) along
     * u = direction / |direction| (direction non-zero, spacing >= 0 m, all finite).
     */
    void SetRoad(const Vector& start, const Vector& direction, double spacing, double speed);
    /**
     * One path per client (as many paths as clients at Install; each non-empty, times >= 0 and
     * strictly increasing, positions finite).
     */
    void SetWaypoints(const std::vector<std::vector<Waypoint>>& paths);
    /// An ns-2 movement trace (e.g. SUMO's traceExporter.py --ns2mobility-output); readable.
    void SetNs2Trace(const std::string& path);
    /// Back to Fixed.
    void SetFixed();

    /// The first stream number Install assigns (default kFlMobilityStream).
    void SetStream(int64_t stream);

    /// The preset set.
    Kind GetKind() const
    {
        return m_kind;
    }

    /// Its name: "fixed", "random-waypoint", "steady-state-random-waypoint", "gauss-markov",
    /// "road", "waypoints", "ns2-trace".
    std::string GetName() const;

    /// The trace last given to SetNs2Trace (empty if none).
    const std::string& GetNs2TracePath() const
    {
        return m_trace;
    }

    /// Whether Install installs anything (not Fixed).
    bool Moves() const
    {
        return m_kind != Kind::Fixed;
    }

    /**
     * Installs the preset's mobility model on every node of `clients` (client order; the nodes
     * must have no MobilityModel yet) and fixes its streams from SetStream's on. Fixed: nothing.
     * Throws fl::ConfigError naming "Install" for a node that has a MobilityModel, a path count
     * that differs from the clients' or a trace that does not move every client.
     * @return the number of streams used
     */
    int64_t Install(const NodeContainer& clients) const;

  private:
    /// Checks and stores the box.
    void SetBox(const char* setter, const Box& box);

    Kind m_kind{Kind::Fixed};
    Box m_box;
    double m_minSpeed{0.0};
    double m_maxSpeed{0.0};
    Time m_minPause;
    Time m_maxPause;
    double m_speedStdDev{0.0};
    double m_alpha{0.0};
    Time m_timeStep;
    Vector m_start;
    Vector m_direction;
    double m_spacing{0.0};
    std::vector<std::vector<Waypoint>> m_paths;
    std::string m_trace;
    int64_t m_stream{kFlMobilityStream};
};

/**
 * \ingroup fl-helper
 * A preset from a program's flag: "fixed" or KIND:key=value,... with KIND and keys
 *  - random-waypoint: side (m), min, max (m/s), pause (s);
 *  - steady-state-random-waypoint: side, min, max, minPause, maxPause;
 *  - gauss-markov: side, speed, sd (m/s), alpha, step (s);
 *  - road: speed (m/s), spacing (m), x0, y (m): along +x from (x0, y);
 *  - ns2-trace: path;
 * the box a square of the side centred on the origin (the AP or eNB of the scenes), at height
 * 0. Defaults: side 100, min 1, max 2, pause 0, maxPause 0, speed 1, sd 0, alpha 0.85, step 1,
 * spacing 10, x0 0, y 0.
 * Throws fl::ConfigError naming `flag` for an unknown kind or key, a value that is not a number,
 * or a value the setter refuses (its message included).
 */
FlClientMobilityHelper ParseFlClientMobility(const std::string& spec, const std::string& flag);

} // namespace ns3

#endif // FL_MOBILITY_PRESETS_H

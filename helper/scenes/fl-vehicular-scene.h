/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The vehicular scene: 802.11p (OCB) roadside units along a road, wired to the server, with
 * vehicles as clients and 3GPP TR 37.885's V2V path loss and channel condition; and what it
 * needs of an ns-2/SUMO trace (when each vehicle is on the road).
 */
#ifndef FL_VEHICULAR_SCENE_H
#define FL_VEHICULAR_SCENE_H

#include "ns3/fl-scene.h"
#include "ns3/fl-vehicular-trace.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"
#include "ns3/vector.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup fl-helper
 * Keeps the routes of a vehicular scene (FlVehicularSceneHelper): every interval it finds each
 * vehicle's nearest roadside unit (RSU) from the mobility models (what a vehicle knows from
 * its positioning and a map of the RSUs) and, when it changed, points the vehicle's default
 * route at that RSU and the server's host route to the vehicle over that RSU's backbone link.
 * Aggregated to the server node by Build(); its events run until the simulation stops (stop it
 * with Simulator::Stop).
 */
class FlVehicularRoutes : public Object
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    /// The RSU the routes of client `client` use now.
    uint32_t GetRsu(uint32_t client) const;
    /// How many times the RSU of client `client` changed since the start.
    uint32_t GetRsuChanges(uint32_t client) const;
    /// Re-evaluates the RSU of every vehicle on the road now (Build() does it once at time 0).
    void Update();
    /**
     * Whether vehicle `client` is on the road (default true). A vehicle off the road (parked
     * by the scene outside its trace span) keeps its routes and changes no RSU; when it enters
     * the road its routes move to the nearest RSU, which is no RSU change.
     */
    void SetOnRoad(uint32_t client, bool onRoad);
    /// See SetOnRoad.
    bool IsOnRoad(uint32_t client) const;

    /// Signature of the RsuChange trace: client, old RSU, new RSU.
    typedef void (*RsuChangeCallback)(uint32_t client, uint32_t from, uint32_t to);

    /// What Build() hands over (not for programs).
    struct Setup
    {
        NodeContainer rsus;                   ///< the RSU nodes, in order
        NodeContainer vehicles;               ///< the clients' nodes, in order
        std::vector<uint32_t> rsuIf;          ///< each RSU's radio interface index
        std::vector<uint32_t> vehIf;          ///< each vehicle's radio interface index
        std::vector<Ipv4Address> rsuRadio;    ///< each RSU's radio address
        std::vector<Ipv4Address> rsuBackbone; ///< each RSU's address on its backbone link
        std::vector<uint32_t> serverIf;       ///< the server's interface of each backbone link
        std::vector<Ipv4Address> vehicleAddr; ///< each vehicle's address
        Ptr<Node> server;                     ///< the server's node
        Time interval; ///< see FlVehicularSceneHelper::SetRouteUpdateInterval
    };

    /// Sets up (Build() calls it) and schedules the first update at time 0.
    void Configure(const Setup& setup);

  protected:
    void DoDispose() override;

  private:
    /// Points the routes of vehicle `i` at RSU `r`.
    void Route(uint32_t i, uint32_t r);
    /// The periodic update.
    void Tick();
    /// Re-evaluates the RSU of vehicle `i` (counting a change and firing RsuChange if `count`).
    void UpdateOne(uint32_t i, bool count);

    Setup m_setup;                   ///< see Configure
    std::vector<uint32_t> m_rsu;     ///< per vehicle: its RSU (UINT32_MAX: none yet)
    std::vector<uint32_t> m_changes; ///< per vehicle: RSU changes
    std::vector<bool> m_onRoad;      ///< per vehicle: see SetOnRoad
    EventId m_event;                 ///< the next Tick
    TracedCallback<uint32_t, uint32_t, uint32_t> m_rsuChange; ///< see RsuChangeCallback
};

/**
 * \ingroup fl-helper
 * Whether this build of the module has ns-3's wave module (802.11p OCB MAC,
 * Wifi80211pHelper): ns-3.35 to ns-3.38 have it; ns-3.39 removed it. Without it
 * FlVehicularSceneHelper::Build throws fl::ConfigError.
 */
bool FlVehicularSceneAvailable();

/**
 * \ingroup fl-helper
 * Throws the fl::ConfigError of FlVehicularSceneHelper::Build on an ns-3 without the wave
 * module (naming "FlVehicularSceneHelper::Build", the ns-3 release of this build and the
 * releases that run the scene) unless `available`; nothing otherwise.
 */
void FlRequireVehicularScene(bool available);

/**
 * \ingroup fl-helper
 * Builds a vehicular network: R roadside units (RSUs) along a road, each wired to the server's
 * node by a point-to-point link (default 1 Gb/s, 100 us, as an RSU's port on a switch), and the
 * clients as vehicles. RSUs and vehicles are IEEE 802.11p stations outside the context of a BSS
 * (OCB: no association, no beacons) on one 10 MHz channel at 5.9 GHz, from ns-3's wave module
 * (Wifi80211pHelper, NqosWaveMacHelper, YansWavePhyHelper; ns-3.35 to 3.38 only, see
 * FlVehicularSceneAvailable), at a constant rate (default OfdmRate6MbpsBW10MHz, QPSK 1/2),
 * 23 dBm. The channel's path loss is ns-3's ThreeGppV2vHighwayPropagationLossModel (or
 * ...Urban) with the matching ThreeGppV2v*ChannelConditionModel (3GPP TR 37.885 v15.3.0,
 * Tables 6.2.1-1 and 6.2-1: LOS, or NLOSv when other vehicles block the line of sight, drawn
 * from the distance; NLOS behind buildings: there are none here), shadowing on, the
 * condition redrawn every second. These models are specified for vehicle-to-vehicle links; the
 * scene uses them for the vehicle-to-RSU links too (an RSU is a radio at the vehicles' height),
 * an assumption of this scene.
 *
 * Where: the RSUs stand evenly on the segment SetRsuLine(start, end) (RSU r at start +
 * (r + 1/2) / R (end - start); default (0, 0, 0) to (2000, 0, 0): the middle of the road of the
 * module's SUMO trace, data/sumo/highway-2km.ns2); the server's node at the origin (it has no
 * radio). The clients move as SetClientMobility says (a road, an ns-2/SUMO trace, ...), or stand
 * on a disc of the scene's radius (default 10 m) around RSU (i mod R).
 *
 * Off the road: with an ns-2 trace (FlClientMobilityHelper::SetNs2Trace), Ns2MobilityHelper
 * (ns-3.37) leaves a vehicle at its first position from time 0 until its first line, and at its
 * last destination after it, both on the road, where the nearest RSU would hear it. The scene
 * instead parks each vehicle at FlParkingPosition(i) outside its span (FlReadNs2TraceSpans):
 * a parked vehicle hears nobody and nobody hears it, so the server's round counts its upload
 * lost (by the round deadline: give one) and the transport gives up on it as on any broken link.
 * The server still selects it: it does not know who is on the road. Its routes stay as they
 * were while it is parked (FlVehicularRoutes::SetOnRoad).
 *
 * Routes (OCB has no association, so no AP decides where a vehicle's frames go): one IPv4
 * subnet 10.1.0.0/16 for the radios (RSU r 10.1.0.(r + 1), vehicle i the (R + 1 + i)-th
 * address), static ARP entries among them (FlPopulateArpCaches), backbone link r the r-th /30
 * of 172.16.0.0/16 (server first). FlVehicularRoutes (aggregated to the server's node) moves a
 * vehicle's default route and the server's /32 route to it to the nearest RSU every
 * SetRouteUpdateInterval (default 200 ms; a car at 30 m/s moves 6 m in it); a packet sent in
 * between takes the old RSU, as one sent just before a handover does. Each RSU's default route
 * is the server.
 *
 * FlScene: `devices` holds the R RSUs' devices, then the N vehicles' (client i is
 * devices.Get(R + i)); `infrastructure` the R RSU nodes; the link state of client i is the SNR
 * of its last data frame its RSU received (frames addressed to another RSU are not counted),
 * its distance to its RSU now, its cell (the index of the RSU its routes use while it is on the
 * road, kFlNoCell while it is parked) and its handovers (its RSU changes,
 * FlVehicularRoutes::GetRsuChanges): the CSVs' upload_cell and handovers columns. Packet
 * fidelity only.
 */
class FlVehicularSceneHelper : public FlRadioSceneHelperBase
{
  public:
    FlVehicularSceneHelper();
    /// Number of RSUs, 1 to 250 (default 4).
    void SetRoadsideUnits(uint32_t count);
    /// The segment along which the RSUs stand (finite, start != end).
    void SetRsuLine(const Vector& start, const Vector& end);
    /// "highway" (default) or "urban": the 3GPP V2V loss and condition models.
    void SetEnvironment(const std::string& environment);
    /// Transmit power of RSUs and vehicles [dBm] (-10 to 33; default 23).
    void SetTxPower(double dbm);
    /// The constant 802.11p rate (a WifiMode name of the 10 MHz OFDM rates, default
    /// "OfdmRate6MbpsBW10MHz").
    void SetDataMode(const std::string& mode);
    /// How often FlVehicularRoutes re-evaluates the nearest RSU (> 0; default 200 ms).
    void SetRouteUpdateInterval(Time interval);
    /// Data rate of each RSU's link to the server (> 0; default 1 Gb/s).
    void SetBackboneDataRate(DataRate rate);
    /// Propagation delay of each RSU's link to the server (>= 0; default 100 us).
    void SetBackboneDelay(Time delay);
    /**
     * Creates the server, RSU and vehicle nodes, devices, channel, backbone, mobility (parking
     * the trace's vehicles off the road outside their spans), Internet stacks, addresses, ARP
     * entries and routes. Throws fl::ConfigError naming "FlVehicularSceneHelper::Build" when
     * ns-3 has no wave module (FlRequireVehicularScene), naming SetFidelity in flow fidelity.
     */
    FlScene Build(uint32_t numClients) const;
    /// The RSU positions of `count` RSUs on the segment from `start` to `end`.
    static std::vector<Vector> RsuPositions(uint32_t count, const Vector& start, const Vector& end);
    /// The index of the position of `rsus` nearest to `p` (the first on a tie).
    static uint32_t NearestRsu(const std::vector<Vector>& rsus, const Vector& p);
    /**
     * Fixes the random streams of the devices, the Internet stacks of the server, the clients
     * and the RSUs (the 3GPP models' streams are fixed at Build from kFlPositionStream + 32).
     * @return the number of streams used
     */
    static int64_t AssignStreams(const FlScene& scene, int64_t stream);

  private:
    uint32_t m_rsus;           ///< see SetRoadsideUnits
    Vector m_lineStart;        ///< see SetRsuLine
    Vector m_lineEnd;          ///< see SetRsuLine
    std::string m_environment; ///< see SetEnvironment
    double m_txPowerDbm;       ///< see SetTxPower
    std::string m_dataMode;    ///< see SetDataMode
    Time m_routeInterval;      ///< see SetRouteUpdateInterval
    DataRate m_backboneRate;   ///< see SetBackboneDataRate
    Time m_backboneDelay;      ///< see SetBackboneDelay
};

} // namespace ns3

#endif // FL_VEHICULAR_SCENE_H

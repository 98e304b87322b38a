/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The Wi-Fi ESS scene: several BSSs whose APs are wired to the server.
 */
#ifndef FL_WIFI_ESS_SCENE_H
#define FL_WIFI_ESS_SCENE_H

#include "ns3/fl-wifi-scene.h"

namespace ns3
{

/**
 * \ingroup fl-helper
 * StaWifiMac::MaxMissedBeacons of a roaming ESS's stations once they have associated
 * (FlWifiEssSceneHelper::SetRoaming): 10 beacon intervals of 102.4 ms, 1.024 s (ns-3's
 * default). A station that walks out of its AP's range notices after this time, scans for
 * WaitBeaconTimeout (120 ms) and associates with the AP it hears best. Shorter loses a station
 * its AP on a run of beacons lost to collisions or fading in a busy cell; ten lost in a row at
 * a beacon loss rate of 10 % happen with probability 1e-10 per beacon. Until their first
 * association the stations keep kFlMaxMissedBeacons, so that a crowded BSS can associate.
 */
constexpr uint32_t kFlRoamingMaxMissedBeacons = 10;

/**
 * \ingroup fl-helper
 * The default distance between neighbouring APs of a roaming ESS: 80 m. An AP's beacons reach
 * about 51 m in the scenes' channel (ns-3's threshold preamble detection, -82 dBm, over the
 * default YANS log-distance loss: 16.02 dBm - 46.68 dB - 30 log10(51.5) = -82 dBm), so
 * neighbouring cells overlap by about 20 m along the line between their APs.
 */
constexpr double kFlRoamingApSpacing = 80.0;

/**
 * \ingroup fl-helper
 * Builds an 802.11 extended service set (ESS): A access points, each its own BSS (SSID
 * "fl-ess-<a>", its own YANS channel object, so that no cell hears another, as if each AP had a
 * channel of its own), wired to the server's node by one point-to-point link each; the server is
 * on no AP. Client i is a station of AP (i mod A) (the clients are dealt to the APs in turn, so
 * that every AP serves floor(N / A) or one more), placed uniformly at random on a disc of the
 * scene's radius (10 m by default) around its AP, the offsets drawn in client order from
 * kFlPositionStream (or where the user's PositionAllocator says, SetPositionAllocator). The APs
 * stand on a square grid of ceil(sqrt(A)) columns, SetApSpacing apart (default 1,000 m: the
 * cells are separate by their channels anyway). Point-to-point links, not one CSMA backbone:
 * each AP's traffic to and from the server has its own full-duplex link (default 1 Gb/s,
 * 100 us), as an AP's port on a switch, so that the backbone is never the bottleneck the
 * radio cells are meant to be.
 *
 * Addresses: cell a is 10.(a + 1).0.0/16, its AP 10.(a + 1).0.1 and its stations from
 * 10.(a + 1).0.2 on in client order; backbone link a is the a-th /30 of 172.16.0.0/16 (the
 * server's address first, then the AP's). FlScene::serverAddress is the server's address on
 * link 0; the server reaches the other addresses of its node too. Static routes (the tree needs
 * no routing protocol, and ns-3's global routing would compute shortest paths from every node
 * of the process): each station's default route is its AP, each AP's is the server, and the
 * server routes cell a over link a.
 *
 * FlScene: `devices` holds the A APs' Wi-Fi devices (AP 0 first), then the N stations' in
 * client order (client i is devices.Get(A + i)); the backbone's point-to-point devices are not
 * in it (they draw no random numbers). `infrastructure` holds the A AP nodes in AP order. The
 * link state (FlSceneLinkState) of client i is what its own AP's PHY received from it. The
 * same settings as the BSS (standard, rate manager, radius, block-ack workaround, the stations'
 * MaxMissedBeacons kFlMaxMissedBeacons); packet fidelity only.
 *
 * Roaming (SetRoaming(true); off by default): a station keeps its address when it moves from
 * one AP to another. All APs share one SSID ("fl-ess"), one YANS channel object and one
 * channel number (the standard's, as the BSS), because ns-3's StaWifiMac (3.37) scans only the
 * channel its PHY is on: a station would never hear an AP on another channel. The APs contend
 * with each other where they hear each other, as co-channel APs do. The distribution system is
 * bridged: each AP bridges its Wi-Fi device with its port on one CSMA LAN to the server
 * (BridgeNetDevice, which learns where each station is from the frames it forwards), at the
 * backbone rate and delay; the server and the stations are one subnet, 10.1.0.0/16 (the server
 * 10.1.0.1, client i 10.1.0.(i + 2) and on, as the BSS), with static ARP entries
 * (FlPopulateArpCaches); the APs have no IP address. A station associates with the AP it
 * hears best (SNR) in its passive scan, stays with it until kFlRoamingMaxMissedBeacons beacons
 * have not come (ns-3 3.37 has no roaming on signal strength: a station keeps a far AP as long
 * as it hears its beacons), then associates with the AP it hears best. The rate manager is
 * ns3::MinstrelHtWifiManager unless SetRateManager says otherwise (it adapts to a link that
 * changes; the BSS's default IdealWifiManager reads the SNR of the last frame). The link state
 * of a client (FlSceneLinkState) is that of the AP it is, or was last, associated with:
 * distance, and rate and SNR of the client's last data frame that AP received; FlLinkState's
 * cell is that AP's index and handovers its associations after the first. Every AP's PHY hears
 * every station in range, so a roaming ESS simulates more receptions than as many separate
 * BSSs. The AP grid is centred on the origin (the mobility presets centre their box there),
 * SetApSpacing apart (default kFlRoamingApSpacing).
 */
class FlWifiEssSceneHelper : public FlWifiSceneHelperBase
{
  public:
    FlWifiEssSceneHelper();
    /// Number of access points (BSSs), 1 to 250 (default 2); Build(n) needs at least as many
    /// clients.
    void SetAccessPoints(uint32_t count);
    /// Distance between neighbouring APs on the grid [m] (>= 0; default 1,000 m, roaming
    /// kFlRoamingApSpacing).
    void SetApSpacing(double meters);
    /// Data rate of each AP's link to the server (> 0; default 1 Gb/s).
    void SetBackboneDataRate(DataRate rate);
    /// Propagation delay of each AP's link to the server (>= 0; default 100 us).
    void SetBackboneDelay(Time delay);
    /**
     * Roaming (see the class documentation): one SSID and channel, a bridged distribution
     * system, stations that change AP and keep their address. Off by default (each AP its own
     * BSS, channel object and subnet).
     */
    void SetRoaming(bool enable);
    /**
     * Creates the server, AP and client nodes, the devices, the backbone, mobility, Internet
     * stacks, addresses and routes. Throws fl::ConfigError naming SetAccessPoints if there are
     * more APs than clients, naming SetFidelity in flow fidelity (the flow-level model has no
     * ESS).
     */
    FlScene Build(uint32_t numClients) const;
    /// The AP of client `client` in an ESS of `accessPoints` APs: client mod accessPoints.
    static uint32_t ApOf(uint32_t client, uint32_t accessPoints);

  private:
    /// Roaming: the bridged CSMA backbone, the one subnet, static ARP, the link state.
    void BuildRoamingNetwork(FlScene& s) const;

    uint32_t m_aps;          ///< see SetAccessPoints
    double m_apSpacing;      ///< see SetApSpacing
    DataRate m_backboneRate; ///< see SetBackboneDataRate
    Time m_backboneDelay;    ///< see SetBackboneDelay
    bool m_roaming{false};   ///< see SetRoaming
};

} // namespace ns3

#endif // FL_WIFI_ESS_SCENE_H

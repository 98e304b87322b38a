/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * What the sources of helper/scenes/ share: addressing, streams, placement, the flow media's
 * calibration, the link-state hooks. Not for programs: the public scene API is fl-scene.h and
 * the per-scene headers.
 */
#ifndef FL_SCENE_INTERNAL_H
#define FL_SCENE_INTERNAL_H

#include "ns3/fl-scene.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/mac48-address.h"
#include "ns3/vector.h"

#include <Eigen/Core>
#include <utility>
#include <vector>

namespace ns3
{

class WifiMac;

namespace flscene
{

/// The scene's server node followed by its client nodes.
NodeContainer ServerAndClients(const FlScene& scene);

/**
 * One subnet for the whole scene: Internet stack on the server and the clients, IPv4 addresses
 * in 10.1.0.0/16 on scene.devices (the server's first, then one per client in order); sets
 * serverAddress (10.1.0.1) and clientInterfaces.
 */
void AddressOneSubnet(FlScene& scene);

/// Fixes the streams of the Internet stacks (ARP jitter, ...) of the server and the clients.
int64_t AssignInternetStreams(const FlScene& scene, int64_t stream);

/// The nodes of the container that have no MobilityModel yet.
NodeContainer WithoutMobility(const NodeContainer& nodes);

/// Uniform positions on a disc of the radius around the origin, drawn from kFlPositionStream.
Ptr<UniformDiscPositionAllocator> PositionDisc(double radius);

/// Places the nodes uniformly at random on a disc of the radius around the origin.
void PlaceOnDisc(const NodeContainer& nodes, double radius);

/// Gives the node a ConstantPositionMobilityModel at `position`.
void PlaceAt(Ptr<Node> node, const Vector& position);

/// Places the node at the origin (a node with a MobilityModel keeps it).
void PlaceAtOrigin(Ptr<Node> node);

/**
 * The calibrated flow-level parameters of an 802.11 cell (one spatial stream, the default
 * channel width of WifiStandardSettings, stations close enough for the top MCS). The PHY rate
 * is the top rate of IdealWifiManager; efficiency (MAC/ACK airtime, aggregation), contention
 * and the per-message time were fitted to packet-level FedAvg runs (see the module
 * documentation, "Flow-level fidelity").
 */
FlFlowMedium WifiFlowMedium(const std::string& standard, double& phyRate);

/// The calibrated flow-level parameters of a CSMA LAN of the given rate.
FlFlowMedium CsmaFlowMedium(DataRate rate);

/// The LTE downlink and uplink goodput [b/s] of a cell of `rbs` resource blocks (SISO, top MCS).
std::pair<double, double> LteFlowRates(uint16_t rbs);

/// IPv4 address `base` + `offset`.
Ipv4Address AddressPlus(Ipv4Address base, uint32_t offset);

/**
 * A flow-level scene with one medium for everybody (Wi-Fi cell, CSMA LAN): the server
 * 10.1.0.1, the clients 10.1.0.2, ... (the addresses of AddressOneSubnet).
 */
FlScene BuildFlowOneSubnet(FlScene s,
                           const FlFlowMedium& medium,
                           double rate,
                           Time latency,
                           double loss);

/// Gives the scene's link-state query to the server node's FlSceneLinkState (created if none).
void AttachLinkState(Ptr<Node> server, FlSceneLinkState::Query query);

/// Fixes the streams of the scene's devices (with a DeviceHelper), then of its Internet stacks.
template <typename DeviceHelper>
int64_t
AssignDeviceAndInternetStreams(const FlScene& scene, int64_t stream)
{
    DeviceHelper helper;
    const int64_t used = helper.AssignStreams(scene.devices, stream);
    return used + AssignInternetStreams(scene, stream + used);
}

/**
 * The Wi-Fi scenes' link state: the server's PHY (the APs' PHYs: s.devices.Get(0 .. aps - 1))
 * listens to the clients' data frames (client i is s.devices.Get(aps + i)). Without
 * `sharedChannel` each frame of a station reaches its own AP's PHY only (client i is in cell
 * i mod aps); with it every AP hears every station, and the link state of a client is what the
 * AP it is (or was last) associated with received from it, addressed to it. Stations
 * (StaWifiMac) also report their serving AP and handovers (FlLinkState::cell, handovers), and
 * `onAssociation(client, associations so far, AP index)` is called at each association of a
 * station.
 */
void AttachWifiLinkState(const FlScene& s,
                         uint32_t aps = 1,
                         bool sharedChannel = false,
                         std::function<void(uint32_t, uint32_t, int32_t)> onAssociation = {});

/**
 * The access points of a roaming extended service set (the Wi-Fi ESS with SetRoaming, the GFL
 * graph scene's roaming cells) and their stations, for RoamingAssociated. Plain pointers: the
 * set lives in the stations' association callbacks, which the MACs own.
 */
struct RoamingSet
{
    std::vector<WifiMac*> aps;                ///< AP a's MAC
    std::vector<Mac48Address> apAddress;      ///< AP a's address
    std::vector<WifiMac*> stations;           ///< station i's MAC
    std::vector<Mac48Address> stationAddress; ///< station i's address
};

/**
 * What a roaming set does at station `station`'s association number `associations` (1: its
 * first) with AP `ap`: after its first association the station notices a lost AP after
 * kFlRoamingMaxMissedBeacons; it and every AP end their block-ack agreements with each other
 * (IEEE Std 802.11-2020, 11.5.1); every other AP records it as gone (as an 802.11
 * reassociation's current-AP address tells the previous AP through the distribution system),
 * so that it sends it nothing more.
 */
void RoamingAssociated(const RoamingSet& set, uint32_t station, uint32_t associations, int32_t ap);

/// One infrastructure BSS: the AP's device on `ap` first, then the stations' in node order.
NetDeviceContainer InstallBss(const WifiHelper& wifi,
                              const YansWifiPhyHelper& phy,
                              WifiMacHelper& mac,
                              const Ssid& ssid,
                              Ptr<Node> ap,
                              const NodeContainer& stations);

/// Neighbours l of k in a combination matrix (a_lk > 0 or a_kl > 0, l != k), ascending.
std::vector<uint32_t> NeighborsOf(const Eigen::MatrixXd& A, uint32_t k);

} // namespace flscene

} // namespace ns3

#endif // FL_SCENE_INTERNAL_H

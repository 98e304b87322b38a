/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * One call that builds the usual Wi-Fi infrastructure scene for federated learning.
 */
#ifndef FL_WIFI_SCENARIO_HELPER_H
#define FL_WIFI_SCENARIO_HELPER_H

#include "ns3/ipv4-address.h"
#include "ns3/ipv4-interface-container.h"
#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/wifi-mac-helper.h"
#include "ns3/wifi-standards.h"

#include <string>

namespace ns3
{

/**
 * \ingroup fl
 * Wi-Fi standard and channel settings ("{number, width, band, 0}") for a standard name:
 * 80211a (ch. 36, 20 MHz), 80211g (ch. 1, 2.4 GHz), 80211n (ch. 36, 20 MHz), 80211ac and
 * 80211ax (ch. 42, 80 MHz). Stops with a message naming `who` on an unknown name.
 */
std::pair<WifiStandard, std::string> FlWifiStandardSettings(const std::string& name,
                                                            const std::string& who);

/**
 * \ingroup fl
 * First half of the ns-3.37 block-ack workaround (see FlWifiScenarioHelper::SetBlockAckWorkaround),
 * before installation: the MAC helper's ack manager sends an explicit BlockAckReq.
 */
void FlConfigureBlockAckWorkaround(WifiMacHelper& mac);

/**
 * \ingroup fl
 * Second half of the block-ack workaround, after installation: BE_BlockAckThreshold = 1 and
 * AddBaResponseTimeout = 200 ms on the best-effort queue of every Wi-Fi device in `devices`.
 */
void FlApplyBlockAckWorkaround(const NetDeviceContainer& devices);

/**
 * \ingroup fl
 * The nodes and addresses of a Wi-Fi infrastructure scene.
 */
struct FlWifiScenario
{
    Ptr<Node> apNode;                  ///< access point; hosts the FL server
    NodeContainer stations;            ///< Wi-Fi stations; one FL client each
    NetDeviceContainer apDevice;       ///< the AP's Wi-Fi device
    NetDeviceContainer staDevices;     ///< the stations' Wi-Fi devices
    Ipv4Address serverAddress;         ///< the AP's IPv4 address
    Ipv4InterfaceContainer interfaces; ///< AP first, then the stations
};

/**
 * \ingroup fl
 * Builds an 802.11 infrastructure BSS: one AP at the origin (it hosts the server) and N stations
 * placed uniformly at random on a disc around it, constant positions, log-distance path loss
 * (YansWifiChannelHelper::Default), Internet stack and IPv4 addresses in 10.1.0.0/16.
 */
/**
 * \ingroup fl
 * The ns-3 stream number from which the scene helpers draw node positions at Build(): every
 * scene built in one process gets the same positions for a given --RngRun, so that the runs of
 * a parameter sweep share their geometry. Keep other streams below it (AssignStreams numbers
 * start low) or above it.
 */
constexpr int64_t kFlPositionStream = 1 << 22;

class FlWifiScenarioHelper
{
  public:
    FlWifiScenarioHelper();
    /// Wi-Fi standard: "80211a", "80211g", "80211n" (default, 5 GHz), "80211ac", "80211ax".
    void SetStandard(const std::string& standard);
    /// Radius of the disc on which stations are placed [m] (default 10).
    void SetRadius(double meters);
    /// Remote station manager TypeId name (default "ns3::IdealWifiManager").
    void SetRateManager(const std::string& typeName);
    /**
     * Works around an ns-3.37 Wi-Fi stall (on by default). With HT/VHT/HE A-MPDU and several
     * stations receiving bursts at once, the AP's ADDBA Request/Response exchange can outlast
     * QosTxop::AddBaResponseTimeout (default 5 ms); the MPDUs queued meanwhile are then handled
     * inconsistently by originator and recipient, and the recipient's reordering buffer waits
     * for a sequence number that never comes: every later frame to that station is buffered,
     * TCP retransmits until it gives up. The workaround sets AddBaResponseTimeout = 200 ms,
     * BE_BlockAckThreshold = 1 (agreement set up before the first burst) and
     * WifiDefaultAckManager::UseExplicitBar = true. Disable it to study the stock behaviour.
     */
    void SetBlockAckWorkaround(bool enable);
    /// Creates the nodes, devices, mobility, Internet stack and addresses.
    FlWifiScenario Build(uint32_t numStations) const;
    /**
     * Fixes the random streams of the scene's Wi-Fi devices and Internet stacks (positions
     * come from kFlPositionStream at Build).
     * @return the number of streams used
     */
    static int64_t AssignStreams(const FlWifiScenario& scenario, int64_t stream);

  private:
    std::string m_standard;
    double m_radius;
    std::string m_rateManager;
    bool m_blockAckWorkaround;
};

} // namespace ns3

#endif // FL_WIFI_SCENARIO_HELPER_H

/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * One call each for the network scenes of federated learning other than Wi-Fi infrastructure
 * (see fl-wifi-scenario-helper.h): CSMA LAN, point-to-point star, Wi-Fi ad hoc and LTE.
 */
#ifndef FL_NETWORK_SCENARIOS_H
#define FL_NETWORK_SCENARIOS_H

#include "ns3/data-rate.h"
#include "ns3/ipv4-address.h"
#include "ns3/ipv4-interface-container.h"
#include "ns3/lte-helper.h"
#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/point-to-point-epc-helper.h"
#include "ns3/ptr.h"
#include "ns3/random-variable-stream.h"

#include <string>

namespace ns3
{

/**
 * \ingroup fl
 * The nodes and addresses of a federated-learning network scene: one server node and N client
 * nodes (install FlServerHelper on serverNode, FlClientHelper on clients with serverAddress).
 * Scenes with a core network also keep the helpers that must outlive the simulation.
 */
struct FlScene
{
    Ptr<Node> serverNode;      ///< hosts the FL server
    NodeContainer clients;     ///< one FL client each, in client-index order
    Ipv4Address serverAddress; ///< the address clients connect to
    /**
     * The access-network devices the helper created: for CSMA and Wi-Fi ad hoc the server's
     * device first, then the clients' in order; for the point-to-point star the server's and the
     * client's device of each link in turn (server 0, client 0, server 1, client 1, ...); for
     * LTE the eNB's device first, then the UEs' in order.
     */
    NetDeviceContainer devices;
    Ipv4InterfaceContainer clientInterfaces; ///< the clients' IPv4 interfaces, in order
    NodeContainer infrastructure;         ///< other nodes of the scene (LTE: the eNB and the PGW)
    Ptr<LteHelper> lteHelper;             ///< LTE scenes only: the LTE helper
    Ptr<PointToPointEpcHelper> epcHelper; ///< LTE scenes only: the EPC helper
};

/**
 * \ingroup fl
 * Builds one CSMA (Ethernet-like) LAN holding the server and N clients, Internet stack and IPv4
 * addresses in 10.1.0.0/16 (server 10.1.0.1). No mobility: CSMA has no propagation model.
 */
class FlCsmaSceneHelper
{
  public:
    FlCsmaSceneHelper();
    /// Data rate of the shared channel (default 100 Mb/s).
    void SetDataRate(DataRate rate);
    /// Propagation delay of the shared channel (default 6560 ns, about 2 km of cable).
    void SetDelay(Time delay);
    /// Creates the nodes, devices, Internet stack and addresses.
    FlScene Build(uint32_t numClients) const;
    /**
     * Fixes the random streams of the scene's CSMA devices (backoff).
     * @return the number of streams used
     */
    static int64_t AssignStreams(const FlScene& scene, int64_t stream);

  private:
    DataRate m_dataRate;
    Time m_delay;
};

/**
 * \ingroup fl
 * Builds a star: the server at the hub, one point-to-point link to each client, one /30 subnet
 * per link from 10.2.0.0 on. Clients connect to the server's address on the first link
 * (FlScene::serverAddress) through a static default route to their own link; the server answers
 * over the link of each client. Links may have heterogeneous rates drawn from a random variable.
 */
class FlPointToPointStarHelper
{
  public:
    FlPointToPointStarHelper();
    /// Data rate of every link (default 10 Mb/s); ignored when a rate variable is set.
    void SetDataRate(DataRate rate);
    /// Propagation delay of every link (default 2 ms).
    void SetDelay(Time delay);
    /**
     * Draws each link's rate in Mb/s from the variable (the same rate both ways). Values are
     * clamped to at least 1 kb/s. Pass nullptr to return to the fixed rate of SetDataRate.
     * Fix the variable's stream (RandomVariableStream::SetStream) before Build() for
     * reproducible rates.
     */
    void SetDataRateVariable(Ptr<RandomVariableStream> mbps);
    /// Creates the nodes, links, Internet stack, addresses and routes.
    FlScene Build(uint32_t numClients) const;
    /**
     * Fixes the streams of the Internet stacks (point-to-point devices draw no random numbers).
     * @return the number of streams used
     */
    static int64_t AssignStreams(const FlScene& scene, int64_t stream);

  private:
    DataRate m_dataRate;
    Time m_delay;
    Ptr<RandomVariableStream> m_rateVariable;
};

/**
 * \ingroup fl
 * Builds an 802.11 ad hoc network (independent BSS): the server at the origin and N clients placed
 * uniformly at random on a disc around it, all within range of each other for the default radius;
 * constant positions, log-distance path loss (YansWifiChannelHelper::Default), Internet stack and
 * IPv4 addresses in 10.1.0.0/16 (server 10.1.0.1).
 */
class FlWifiAdhocSceneHelper
{
  public:
    FlWifiAdhocSceneHelper();
    /// Wi-Fi standard: "80211a", "80211g", "80211n" (default, 5 GHz), "80211ac", "80211ax".
    void SetStandard(const std::string& standard);
    /// Radius of the disc on which clients are placed [m] (default 10).
    void SetRadius(double meters);
    /// Remote station manager TypeId name (default "ns3::IdealWifiManager").
    void SetRateManager(const std::string& typeName);
    /**
     * Applies to the ad hoc MACs the ns-3.37 block-ack stall workaround of
     * FlWifiScenarioHelper::SetBlockAckWorkaround (on by default; it matters only for standards
     * with A-MPDU, 802.11n and later): AddBaResponseTimeout = 200 ms, BE_BlockAckThreshold = 1,
     * WifiDefaultAckManager::UseExplicitBar = true.
     */
    void SetBlockAckWorkaround(bool enable);
    /**
     * Fills every node's ARP cache with the other nodes' addresses (NeighborCacheHelper; on by
     * default). Ad hoc stations send ARP requests as broadcast frames, which are neither
     * acknowledged nor retried by the MAC: clients that start at the same time send them at the
     * same instant, they collide again at every ARP retry, the entry goes dead for
     * ArpCache::DeadTimeout (100 s) and the TCP connection attempt gives up. Disable it to study
     * the stock behaviour (then stagger the clients' start times).
     */
    void SetStaticArp(bool enable);
    /// Creates the nodes, devices, mobility, Internet stack and addresses.
    FlScene Build(uint32_t numClients) const;
    /**
     * Fixes the random streams of the scene's Wi-Fi devices.
     * @return the number of streams used
     */
    static int64_t AssignStreams(const FlScene& scene, int64_t stream);

  private:
    std::string m_standard;
    double m_radius;
    std::string m_rateManager;
    bool m_blockAckWorkaround;
    bool m_staticArp;
};

/**
 * \ingroup fl
 * Builds an LTE cell with an EPC core, as ns-3's lena-simple-epc example: the clients are UEs
 * attached to one eNB at the origin, placed uniformly at random on a disc around it (constant
 * positions); the server is a remote host behind the PGW over a point-to-point link
 * (1.0.0.0/8; UEs get 7.0.0.0/8 from the EPC), with static routes both ways. Uses LteHelper's
 * defaults (Friis path loss, proportional-fair scheduler, ideal RRC) except the settings below.
 * The UEs attach at time 0 and need a few tens of milliseconds; start the clients after that
 * (e.g. at 0.5 s). The scene's helpers are kept in FlScene::lteHelper and FlScene::epcHelper.
 */
class FlLteSceneHelper
{
  public:
    FlLteSceneHelper();
    /// Radius of the disc on which UEs are placed [m] (default 50).
    void SetRadius(double meters);
    /// Downlink and uplink bandwidth in resource blocks: 6, 15, 25 (default), 50, 75 or 100.
    void SetBandwidth(uint16_t resourceBlocks);
    /**
     * RLC mode of the UEs' default bearers: "am" (acknowledged, default: reliable, suits TCP) or
     * "um" (unacknowledged, LteHelper's default with an EPC).
     */
    void SetRlcMode(const std::string& mode);
    /// Data rate of the PGW - remote host link (default 1 Gb/s).
    void SetBackhaulDataRate(DataRate rate);
    /// Delay of the PGW - remote host link (default 10 ms).
    void SetBackhaulDelay(Time delay);
    /// Creates the eNB, UEs, EPC, remote host, addresses, routes, and attaches the UEs.
    FlScene Build(uint32_t numClients) const;
    /**
     * Fixes the random streams of the eNB's and UEs' LTE devices (LteHelper::AssignStreams).
     * @return the number of streams used
     */
    static int64_t AssignStreams(const FlScene& scene, int64_t stream);

  private:
    double m_radius;
    uint16_t m_bandwidth;
    std::string m_rlcMode;
    DataRate m_backhaulRate;
    Time m_backhaulDelay;
};

} // namespace ns3

#endif // FL_NETWORK_SCENARIOS_H

/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The Wi-Fi scenes' base (standard, rate manager, channel, block-ack workaround), the
 * infrastructure BSS scene FlWifiScenarioHelper, and what the Wi-Fi cells of every scene share:
 * stations that associate without an attach storm, dozing idle stations, static ARP caches.
 */
#ifndef FL_WIFI_SCENE_H
#define FL_WIFI_SCENE_H

#include "ns3/fl-scene.h"

namespace ns3
{

/**
 * \ingroup fl-helper
 * What the Wi-Fi scenes share: the server at the origin, the clients on a disc of radius 10 m by
 * default, one YANS channel with log-distance path loss (YansWifiChannelHelper::Default),
 * constant positions, Internet stack and IPv4 addresses in 10.1.0.0/16 (server 10.1.0.1). The
 * subclasses choose the MACs.
 */
class FlWifiSceneHelperBase : public FlRadioSceneHelperBase
{
  public:
    virtual ~FlWifiSceneHelperBase() = default;
    /// Wi-Fi standard: "80211a", "80211g", "80211n" (default, 5 GHz), "80211ac", "80211ax".
    void SetStandard(const std::string& standard);
    /// Remote station manager TypeId name (default "ns3::IdealWifiManager").
    void SetRateManager(const std::string& typeName);
    /**
     * Works around an ns-3.37 Wi-Fi stall (on by default; it matters only for standards with
     * A-MPDU, 802.11n and later). With HT/VHT/HE A-MPDU and several stations receiving bursts at
     * once, the ADDBA Request/Response exchange can outlast QosTxop::AddBaResponseTimeout
     * (default 5 ms); the MPDUs queued meanwhile are then handled inconsistently by originator
     * and recipient, and the recipient's reordering buffer waits for a sequence number that never
     * comes: every later frame to that station is buffered, TCP retransmits until it gives up.
     * The workaround sets AddBaResponseTimeout = 200 ms, BE_BlockAckThreshold = 1 (agreement set
     * up before the first burst) and WifiDefaultAckManager::UseExplicitBar = true. Disable it to
     * study the stock behaviour.
     */
    void SetBlockAckWorkaround(bool enable);
    /**
     * Fixes the random streams of the scene's Wi-Fi devices and Internet stacks, the server's
     * and clients' first, then those of FlScene::infrastructure (the ESS's APs; positions come
     * from kFlPositionStream at Build).
     * @return the number of streams used
     */
    static int64_t AssignStreams(const FlScene& scene, int64_t stream);

  protected:
    /// @param name the helper's class name
    explicit FlWifiSceneHelperBase(const char* name);
    /**
     * Installs the Wi-Fi devices on scene.serverNode and scene.clients, given the Wi-Fi helper
     * (standard and rate manager set), the PHY helper (channel set) and the MAC helper (ack
     * manager set; the installer sets the MAC type); returns the server's device first, then
     * the clients' in order.
     */
    using DeviceInstaller = std::function<NetDeviceContainer(const FlScene&,
                                                             const WifiHelper&,
                                                             const YansWifiPhyHelper&,
                                                             WifiMacHelper&)>;
    /**
     * One cell on one channel: creates the nodes, devices (`install`), mobility, Internet stack
     * and addresses.
     */
    FlScene BuildWifi(uint32_t numClients, const DeviceInstaller& install) const;
    /**
     * The building blocks of a Wi-Fi cell: sets `wifi`'s standard and rate manager and `mac`'s
     * ack manager (first half of the block-ack workaround) from the settings.
     * @return the channel settings of the standard ("{number, width, band, 0}")
     */
    std::string ConfigureWifi(WifiHelper& wifi, WifiMacHelper& mac) const;
    /**
     * A PHY helper on a new YANS channel (log-distance path loss, YansWifiChannelHelper::Default),
     * tuned to `channel`: the devices installed with it hear each other and nobody else.
     */
    static YansWifiPhyHelper NewChannelPhy(const std::string& channel);
    /// Second half of the block-ack workaround on the installed devices (if it is on).
    void FinishWifiDevices(const NetDeviceContainer& devices) const;

    /// Whether SetRateManager was called (else the default, ns3::IdealWifiManager).
    bool RateManagerSet() const
    {
        return m_rateManagerSet;
    }

  private:
    std::string m_standard;    ///< see SetStandard
    std::string m_rateManager; ///< see SetRateManager
    bool m_rateManagerSet{false}; ///< SetRateManager was called
    bool m_blockAckWorkaround; ///< see SetBlockAckWorkaround
};

/**
 * \ingroup fl-helper
 * Builds an 802.11 infrastructure BSS: the server on the AP at the origin, the clients are the
 * stations, placed uniformly at random on a disc around it (FlWifiSceneHelperBase).
 */
class FlWifiScenarioHelper : public FlWifiSceneHelperBase
{
  public:
    FlWifiScenarioHelper();
    /// Creates the nodes, devices, mobility, Internet stack and addresses.
    FlScene Build(uint32_t numStations) const;
};


/**
 * \ingroup fl-helper
 * Writes permanent IPv4 ARP entries so that no ARP request is needed among the devices of
 * `devices`: every device learns the MAC address of every other device of the container whose
 * IPv4 address is in the same subnet. Unlike ns-3's NeighborCacheHelper (3.36+), which pairs the
 * devices found on each device's channel, this pairs the devices of the container, so it also
 * works for devices whose channel holds other devices than the IP-level peers (an 802.11s mesh
 * point bridges its own interfaces) and on ns-3.35. Devices without IPv4 are skipped. Call after
 * the addresses are assigned.
 * @param devices the devices
 */
void FlPopulateArpCaches(const NetDeviceContainer& devices);

/**
 * \ingroup fl-helper
 * Installs Wi-Fi station devices on the nodes, in order, associating with the SSID. With ns-3
 * before 3.37 station i scans FlAssociationStagger(i) longer than ns-3's default, so that the
 * stations' association requests do not all contend at once (see FlAssociationStagger); from
 * ns-3.37 this is WifiHelper::Install with StaWifiMac. Changes the MAC helper's type.
 * @param wifi the Wi-Fi helper (standard, rate manager)
 * @param phy the PHY helper (channel)
 * @param mac the MAC helper
 * @param ssid the BSS's SSID
 * @param stations the station nodes
 * @return their devices, in node order
 */
NetDeviceContainer FlInstallWifiStations(const WifiHelper& wifi,
                                         const YansWifiPhyHelper& phy,
                                         WifiMacHelper& mac,
                                         const Ssid& ssid,
                                         const NodeContainer& stations);


/**
 * \ingroup fl-helper
 * Lets the idle stations of an 802.11 infrastructure BSS doze. A station's PHY sleeps
 * (WifiPhy::SetSleepMode, entered through a moment off, WifiPhy::SetOffMode, which cancels a
 * preamble detection in progress) once it is associated, neither it nor the AP has a frame
 * queued, and `guard` has passed since it last transmitted or received a frame addressed to
 * it; it wakes (WifiPhy::ResumeFromSleep) the moment the AP queues a frame for it (a group-addressed frame
 * other than a beacon wakes every station) or it queues one itself. This is an ideal power
 * save: a station is awake whenever a frame is sent to it, so no frame is lost and the traffic
 * keeps its timing up to the contention of the few stations that woke to send without having
 * heard the medium while they dozed. A dozing station receives nothing: its receive gain is
 * lowered so that the channel drops each frame for it before its PHY (restored when it wakes),
 * which is what saves simulation time in a cell of many idle stations. Dozing stations miss the
 * beacons; their
 * MaxMissedBeacons is raised so that they stay associated. Call after the devices are
 * installed and before the simulation starts.
 * @param ap the AP's device
 * @param stations the stations' devices (devices that are not Wi-Fi stations are skipped)
 * @param guard idle time before a station dozes (> the SIFS and a response frame; default 1 ms)
 * @param fromStart the stations doze from time 0 until they first queue a frame (only for
 *        stations that probe actively: a passively scanning station must hear a beacon)
 */
void FlDozeIdleStations(Ptr<NetDevice> ap,
                        const NetDeviceContainer& stations,
                        Time guard = MilliSeconds(1),
                        bool fromStart = false);

} // namespace ns3

#endif // FL_WIFI_SCENE_H

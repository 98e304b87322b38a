/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The Wi-Fi scenes' base, the infrastructure BSS scene, and the Wi-Fi cells' shared parts:
 * stations' association, dozing idle stations, static ARP caches.
 */
#include "ns3/fl-wifi-scene.h"

#include "ns3/abort.h"
#include "ns3/ampdu-subframe-header.h"
#include "ns3/arp-cache.h"
#include "ns3/boolean.h"
#include "ns3/bridge-helper.h"
#include "ns3/component-carrier-ue.h"
#include "ns3/config.h"
#include "ns3/constant-position-mobility-model.h"
#include "ns3/csma-helper.h"
#include "ns3/csma-net-device.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/fl-ns3-compat.h"
#include "ns3/fl-scene-internal.h"
#include "ns3/fl-types.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-address-helper.h"
#include "ns3/ipv4-interface.h"
#include "ns3/ipv4-l3-protocol.h"
#include "ns3/ipv4-static-routing-helper.h"
#include "ns3/ipv4-static-routing.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/lte-enb-net-device.h"
#include "ns3/lte-enb-phy.h"
#include "ns3/lte-enb-rrc.h"
#include "ns3/lte-helper.h"
#include "ns3/lte-ue-net-device.h"
#include "ns3/lte-ue-phy.h"
#include "ns3/lte-ue-rrc.h"
#include "ns3/mac48-address.h"
#include "ns3/metrics.h"
#include "ns3/mobility-helper.h"
#include "ns3/mobility-model.h"
#include "ns3/point-to-point-epc-helper.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/pointer.h"
#include "ns3/position-allocator.h"
#include "ns3/qos-txop.h"
#include "ns3/queue.h"
#include "ns3/random-variable-stream.h"
#include "ns3/ssid.h"
#include "ns3/sta-wifi-mac.h"
#include "ns3/string.h"
#include "ns3/txop.h"
#include "ns3/uinteger.h"
#include "ns3/wifi-helper.h"
#include "ns3/wifi-mac-header.h"
#include "ns3/wifi-mac-helper.h"
#include "ns3/wifi-mac-queue.h"
#include "ns3/wifi-mac.h"
#include "ns3/wifi-net-device.h"
#include "ns3/wifi-phy-state-helper.h"
#include "ns3/wifi-phy.h"
#include "ns3/yans-wifi-helper.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <tuple>

namespace ns3
{

/// The log component of the network scenes (NS_LOG=FlNetworkScenarios), defined in fl-scene.cc.
LogComponent& FlNetworkScenariosLog();

namespace
{
LogComponent& g_log = FlNetworkScenariosLog();
} // namespace

using namespace flscene;

namespace
{

/**
 * Wi-Fi standard and channel settings ("{number, width, band, 0}") for a standard name:
 * 80211a (ch. 36, 20 MHz), 80211g (ch. 1, 2.4 GHz), 80211n (ch. 36, 20 MHz), 80211ac and
 * 80211ax (ch. 42, 80 MHz). Stops with a message naming `who` on an unknown name.
 */
std::pair<WifiStandard, std::string>
WifiStandardSettings(const std::string& name, const char* who)
{
    if (name == "80211a")
    {
        return {WIFI_STANDARD_80211a, "{36, 20, BAND_5GHZ, 0}"};
    }
    if (name == "80211g")
    {
        return {WIFI_STANDARD_80211g, "{1, 20, BAND_2_4GHZ, 0}"};
    }
    if (name == "80211n")
    {
        return {FL_WIFI_STANDARD_80211N, "{36, 20, BAND_5GHZ, 0}"};
    }
    if (name == "80211ac")
    {
        return {WIFI_STANDARD_80211ac, "{42, 80, BAND_5GHZ, 0}"};
    }
    if (name == "80211ax")
    {
        return {FL_WIFI_STANDARD_80211AX, "{42, 80, BAND_5GHZ, 0}"};
    }
    NS_FATAL_ERROR(who << ": unknown Wi-Fi standard '" << name
                       << "'; use 80211a, 80211g, 80211n, 80211ac or 80211ax");
}

/**
 * Second half of the block-ack workaround (FlWifiSceneHelperBase::SetBlockAckWorkaround), after
 * installation: BE_BlockAckThreshold = 1 and AddBaResponseTimeout = 200 ms on the best-effort
 * queue of every Wi-Fi device.
 */
void
ApplyBlockAckWorkaround(const NetDeviceContainer& devices)
{
    for (auto it = devices.Begin(); it != devices.End(); ++it)
    {
        Ptr<WifiNetDevice> dev = DynamicCast<WifiNetDevice>(*it);
        // Block-ack agreement before the first burst; a longer wait for the ADDBA response.
        dev->GetMac()->SetAttribute("BE_BlockAckThreshold", UintegerValue(1));
        PointerValue beTxop; // the attribute exists in every release (GetQosTxop since 3.36)
        dev->GetMac()->GetAttribute("BE_Txop", beTxop);
        Ptr<QosTxop> be = beTxop.Get<QosTxop>();
        if (be)
        {
            be->SetAttribute("AddBaResponseTimeout", TimeValue(MilliSeconds(200)));
        }
    }
}

} // namespace

// ------------------------------------------------------------------------------------ Wi-Fi

FlWifiSceneHelperBase::FlWifiSceneHelperBase(const char* name)
    : FlRadioSceneHelperBase(name, 10.0),
      m_standard("80211n"),
      m_rateManager("ns3::IdealWifiManager"),
      m_blockAckWorkaround(true)
{
}

void
FlWifiSceneHelperBase::SetStandard(const std::string& standard)
{
    m_standard = standard;
}

void
FlWifiSceneHelperBase::SetRateManager(const std::string& typeName)
{
    m_rateManager = typeName;
    m_rateManagerSet = true;
}

void
FlWifiSceneHelperBase::SetBlockAckWorkaround(bool enable)
{
    m_blockAckWorkaround = enable;
}

std::string
FlWifiSceneHelperBase::ConfigureWifi(WifiHelper& wifi, WifiMacHelper& mac) const
{
    const auto [standard, channel] = WifiStandardSettings(m_standard, m_name);
    wifi.SetStandard(standard);
    wifi.SetRemoteStationManager(m_rateManager);
    if (m_blockAckWorkaround)
    {
        // First half of the workaround: explicit BlockAckReq after a missed BlockAck.
        mac.SetAckManager("ns3::WifiDefaultAckManager", "UseExplicitBar", BooleanValue(true));
    }
    return channel;
}

YansWifiPhyHelper
FlWifiSceneHelperBase::NewChannelPhy(const std::string& channel)
{
    YansWifiChannelHelper channelHelper = YansWifiChannelHelper::Default();
    YansWifiPhyHelper phy;
    phy.SetChannel(channelHelper.Create());
    FlSetWifiChannel(phy, channel);
    return phy;
}

void
FlWifiSceneHelperBase::FinishWifiDevices(const NetDeviceContainer& devices) const
{
    if (m_blockAckWorkaround)
    {
        ApplyBlockAckWorkaround(devices);
    }
}

FlScene
FlWifiSceneHelperBase::BuildWifi(uint32_t numClients, const DeviceInstaller& install) const
{
    CheckClients(numClients);
    const std::string channel = WifiStandardSettings(m_standard, m_name).second;
    CheckMobilityFidelity();
    if (m_fidelity == FlFidelity::Flow)
    {
        double rate = 0.0;
        const FlFlowMedium medium = WifiFlowMedium(m_standard, rate);
        FlScene s =
            BuildFlowOneSubnet(NewScene(numClients), medium, rate, MicroSeconds(25), m_flowLoss);
        if (dynamic_cast<const FlWifiScenarioHelper*>(this))
        {
            // the stations associate as in ns-3: all scan at once, then those whose request
            // found no answer try again 0.5 s later (fl::AssociationModel, drawn per run)
            std::vector<Ptr<Node>> stations(s.clients.Begin(), s.clients.End());
            s.flowNetwork->SetAssociation(stations, fl::AssociationModel{});
        }
        if (m_radius > 10.0)
        {
            s.flowNetwork->AddWarning("radius " + std::to_string(m_radius) +
                                      " m: the model gives every station the top MCS, "
                                      "validated up to 10 m");
        }
        if (m_rateManager != "ns3::IdealWifiManager")
        {
            s.flowNetwork->AddWarning("rate manager " + m_rateManager +
                                      ": the model was calibrated with ns3::IdealWifiManager");
        }
        return s;
    }

    FlScene s = NewScene(numClients);

    const YansWifiPhyHelper phy = NewChannelPhy(channel);
    WifiHelper wifi;
    WifiMacHelper mac;
    ConfigureWifi(wifi, mac);
    s.devices = install(s, wifi, phy, mac);
    FinishWifiDevices(s.devices);

    PlaceAtOrigin(s.serverNode);
    PlaceClients(s.clients);
    AddressOneSubnet(s);
    AttachWifiLinkState(s);
    return s;
}

int64_t
FlWifiSceneHelperBase::AssignStreams(const FlScene& scene, int64_t stream)
{
    if (scene.flowNetwork)
    {
        return scene.flowNetwork->AssignStreams(stream);
    }
    int64_t used = AssignDeviceAndInternetStreams<WifiHelper>(scene, stream);
    if (scene.infrastructure.GetN() > 0)
    {
        used += InternetStackHelper().AssignStreams(scene.infrastructure, stream + used);
        // a roaming ESS's CSMA backbone (its backoff draws): the server's port, the APs'
        NetDeviceContainer backbone;
        NodeContainer wired(scene.serverNode);
        wired.Add(scene.infrastructure);
        for (uint32_t k = 0; k < wired.GetN(); ++k)
        {
            for (uint32_t d = 0; d < wired.Get(k)->GetNDevices(); ++d)
            {
                if (DynamicCast<CsmaNetDevice>(wired.Get(k)->GetDevice(d)))
                {
                    backbone.Add(wired.Get(k)->GetDevice(d));
                }
            }
        }
        if (backbone.GetN() > 0)
        {
            used += CsmaHelper().AssignStreams(backbone, stream + used);
        }
    }
    return used;
}

FlWifiScenarioHelper::FlWifiScenarioHelper()
    : FlWifiSceneHelperBase("FlWifiScenarioHelper")
{
}

namespace flscene
{

/// One infrastructure BSS: the AP's device on `ap` first, then the stations' in node order.
NetDeviceContainer
InstallBss(const WifiHelper& wifi,
           const YansWifiPhyHelper& phy,
           WifiMacHelper& mac,
           const Ssid& ssid,
           Ptr<Node> ap,
           const NodeContainer& stations)
{
    const NetDeviceContainer stationDevices = FlInstallWifiStations(wifi, phy, mac, ssid, stations);
    mac.SetType("ns3::ApWifiMac", "Ssid", SsidValue(ssid));
    const NetDeviceContainer apDevice = wifi.Install(phy, mac, ap);
    return NetDeviceContainer(apDevice, stationDevices);
}

} // namespace flscene

FlScene
FlWifiScenarioHelper::Build(uint32_t numStations) const
{
    return BuildWifi(
        numStations,
        [](const FlScene& scene,
           const WifiHelper& wifi,
           const YansWifiPhyHelper& phy,
           WifiMacHelper& mac) {
            return InstallBss(wifi, phy, mac, Ssid("fl-bss"), scene.serverNode, scene.clients);
        });
}


NetDeviceContainer
FlInstallWifiStations(const WifiHelper& wifi,
                      const YansWifiPhyHelper& phy,
                      WifiMacHelper& mac,
                      const Ssid& ssid,
                      const NodeContainer& stations)
{
    // ns-3 starts a station's beacon watchdog (MaxMissedBeacons beacon intervals) when it
    // sends its first association request and restarts it only on beacons received once
    // associated: a station whose association took longer (100 stations associating at once:
    // over a second) is disassociated the moment it associates, and the AP answers none of its
    // new requests, so it never reaches the server. 100 intervals (10.24 s) leave room for the
    // association of any BSS these helpers build; no station of these static scenes loses its
    // AP otherwise.
    const UintegerValue missed(kFlMaxMissedBeacons);
    if (stations.GetN() < 2 || FlAssociationStagger(1).IsZero())
    {
        mac.SetType("ns3::StaWifiMac", "Ssid", SsidValue(ssid), "MaxMissedBeacons", missed);
        return wifi.Install(phy, mac, stations);
    }
    NetDeviceContainer devices;
    for (uint32_t i = 0; i < stations.GetN(); ++i)
    {
        mac.SetType("ns3::StaWifiMac",
                    "Ssid",
                    SsidValue(ssid),
                    "WaitBeaconTimeout",
                    TimeValue(MilliSeconds(120) + FlAssociationStagger(i)),
                    "MaxMissedBeacons",
                    missed);
        devices.Add(wifi.Install(phy, mac, stations.Get(i)));
    }
    return devices;
}

namespace
{

/// The data queues of a Wi-Fi MAC: the DCF's, or the four EDCA queues (beacons not included).
std::vector<WifiMacQueue*>
DataQueuesOf(Ptr<WifiMac> mac)
{
    std::vector<WifiMacQueue*> queues;
    for (const char* name : {"Txop", "BE_Txop", "BK_Txop", "VI_Txop", "VO_Txop"})
    {
        PointerValue txop;
        mac->GetAttribute(name, txop);
        if (Ptr<Txop> t = txop.Get<Txop>())
        {
            queues.push_back(PeekPointer(t->GetWifiMacQueue()));
        }
    }
    return queues;
}

bool
AllEmpty(const std::vector<WifiMacQueue*>& queues)
{
    return std::all_of(queues.begin(), queues.end(), [](WifiMacQueue* q) { return q->IsEmpty(); });
}

using FlMpdu = WifiMacQueue::ItemType; ///< what a Wi-Fi MAC queue holds

/// The receive gain of a dozing station [dB]: no signal reaches its PHY.
constexpr double kDeafGainDb = -1000.0;

/**
 * One dozing station of FlDozeIdleStations. The traces it connects hold it; it holds its
 * station's and AP's objects by plain pointers (no reference cycle), which outlive every
 * event it schedules.
 */
class FlDozingStation : public SimpleRefCount<FlDozingStation>
{
  public:
    FlDozingStation(Ptr<WifiPhy> phy,
                    Ptr<StaWifiMac> mac,
                    std::vector<WifiMacQueue*> apQueues,
                    Time guard)
        : m_phy(PeekPointer(phy)),
          m_mac(PeekPointer(mac)),
          m_queues(DataQueuesOf(mac)),
          m_apQueues(std::move(apQueues)),
          m_guard(guard)
    {
    }

    /// Connects the station's traces.
    void Connect()
    {
        for (auto& q : m_queues)
        {
            q->TraceConnectWithoutContext("Enqueue",
                                          MakeCallback(&FlDozingStation::OwnEnqueue, Ptr<FlDozingStation>(this)));
        }
        m_phy->GetState()->TraceConnectWithoutContext(
            "State",
            MakeCallback(&FlDozingStation::PhyState, Ptr<FlDozingStation>(this)));
        m_mac->TraceConnectWithoutContext("MacRx", MakeCallback(&FlDozingStation::MacRx, Ptr<FlDozingStation>(this)));
        m_mac->TraceConnectWithoutContext("Assoc", MakeCallback(&FlDozingStation::Assoc, Ptr<FlDozingStation>(this)));
    }

    /// A frame for this station is queued (at the AP or here): wake up now.
    void Wake()
    {
        if (m_phy->IsStateSleep())
        {
            NS_LOG_DEBUG("station " << m_mac->GetAddress() << " wakes");
            if (m_deaf)
            {
                m_phy->SetRxGain(m_rxGain);
                m_deaf = false;
            }
            m_phy->ResumeFromSleep();
        }
        Activity(Simulator::Now());
    }

  private:
    void OwnEnqueue(Ptr<const FlMpdu>)
    {
        // not from within the queue's own insertion: waking makes the MAC look at the queue
        if (m_phy->IsStateSleep())
        {
            Simulator::ScheduleNow(&FlDozingStation::Wake, this);
        }
        else
        {
            Activity(Simulator::Now());
        }
    }

    void PhyState(Time start, Time duration, WifiPhyState state)
    {
        if (state == WifiPhyState::TX)
        {
            Activity(start + duration);
        }
    }

    void MacRx(Ptr<const Packet>)
    {
        Activity(Simulator::Now());
    }

    void Assoc(Mac48Address)
    {
        Activity(Simulator::Now());
    }

    void Activity(Time end)
    {
        m_last = std::max(m_last, end);
        if (!FlIsPending(m_check))
        {
            m_check = Simulator::Schedule(m_last + m_guard - Simulator::Now(),
                                          &FlDozingStation::Check,
                                          this);
        }
    }

  public:
    /// Dozes now, associated or not (at time 0, before a probing station's first frame).
    void DozeNow()
    {
        if (!m_phy->IsStateSleep() && m_phy->IsStateIdle())
        {
            Doze();
        }
    }

  private:

    void Check()
    {
        if (m_phy->IsStateSleep())
        {
            return;
        }
        const Time due = m_last + m_guard;
        if (Simulator::Now() < due)
        {
            m_check = Simulator::Schedule(due - Simulator::Now(), &FlDozingStation::Check, this);
            return;
        }
        if (!m_mac->IsAssociated())
        {
            return; // checked again once associated
        }
        const bool quiet = m_phy->IsStateIdle() || m_phy->IsStateCcaBusy();
        if (!quiet || !AllEmpty(m_queues) || !AllEmpty(m_apQueues))
        {
            Activity(Simulator::Now()); // look again a guard later
            return;
        }
        Doze();
    }

    void Doze()
    {
        NS_LOG_DEBUG("station " << m_mac->GetAddress() << " dozes");
        // Asleep through a moment off: SetOffMode cancels a preamble detection in progress,
        // which SetSleepMode alone would let run into a reception while asleep; the PPDU it
        // leaves among the PHY's current preamble events is cleared by ResumeFromSleep.
        m_phy->SetOffMode();
        m_phy->ResumeFromOff();
        m_phy->SetSleepMode();
        // and deaf: the channel drops each frame for it before its PHY (YANS and spectrum
        // channels discard a signal below the receiver's sensitivity), which is most of what
        // a sleeping receiver still costs
        m_rxGain = m_phy->GetRxGain();
        m_phy->SetRxGain(kDeafGainDb);
        m_deaf = true;
    }

    WifiPhy* m_phy;
    StaWifiMac* m_mac;
    std::vector<WifiMacQueue*> m_queues;
    std::vector<WifiMacQueue*> m_apQueues;
    Time m_guard;
    Time m_last;
    EventId m_check;
    double m_rxGain{0.0};
    bool m_deaf{false};
};

/// The AP's side of FlDozeIdleStations: wakes the station a queued frame is for.
class FlDozingCell : public SimpleRefCount<FlDozingCell>
{
  public:
    std::map<Mac48Address, Ptr<FlDozingStation>> stations; ///< by MAC address

    void ApEnqueue(Ptr<const FlMpdu> mpdu)
    {
        const Mac48Address to = mpdu->GetHeader().GetAddr1();
        if (to.IsGroup())
        {
            for (auto& kv : stations)
            {
                kv.second->Wake();
            }
            return;
        }
        auto it = stations.find(to);
        if (it != stations.end())
        {
            it->second->Wake();
        }
    }
};

} // namespace

void
FlDozeIdleStations(Ptr<NetDevice> ap,
                   const NetDeviceContainer& stations,
                   Time guard,
                   bool fromStart)
{
    Ptr<WifiNetDevice> apDevice = DynamicCast<WifiNetDevice>(ap);
    if (!apDevice || !guard.IsStrictlyPositive())
    {
        NS_FATAL_ERROR("FlDozeIdleStations: "
                       << (apDevice ? "the guard time must be > 0" : "the AP is not a Wi-Fi device"));
    }
    const std::vector<WifiMacQueue*> apQueues = DataQueuesOf(apDevice->GetMac());
    Ptr<FlDozingCell> cell = Create<FlDozingCell>();
    for (uint32_t i = 0; i < stations.GetN(); ++i)
    {
        Ptr<WifiNetDevice> dev = DynamicCast<WifiNetDevice>(stations.Get(i));
        Ptr<StaWifiMac> mac = dev ? DynamicCast<StaWifiMac>(dev->GetMac()) : nullptr;
        if (!mac)
        {
            continue;
        }
        // a dozing station misses beacons: it must not take that for a lost AP
        mac->SetAttribute("MaxMissedBeacons", UintegerValue(1000000));
        Ptr<FlDozingStation> station = Create<FlDozingStation>(dev->GetPhy(), mac, apQueues, guard);
        station->Connect();
        cell->stations[mac->GetAddress()] = station;
        if (fromStart)
        {
            Simulator::Schedule(Seconds(0), &FlDozingStation::DozeNow, station);
        }
    }
    for (auto* q : apQueues)
    {
        q->TraceConnectWithoutContext("Enqueue", MakeCallback(&FlDozingCell::ApEnqueue, cell));
    }
}

namespace
{
/// The permanent ARP entries of one device (FlPopulateArpCaches).
struct FlStaticArpEntries : public SimpleRefCount<FlStaticArpEntries>
{
    Ipv4Interface* iface{nullptr};                       ///< the device's IPv4 interface
    std::vector<std::pair<Ipv4Address, Address>> peers; ///< IPv4 address -> MAC address

    /// Writes the entries into the interface's ARP cache.
    void Write() const
    {
        Ptr<ArpCache> cache = iface->GetArpCache();
        if (!cache)
        {
            return;
        }
        for (const auto& [ip, mac] : peers)
        {
            ArpCache::Entry* entry = cache->Lookup(ip);
            if (entry == nullptr)
            {
                entry = cache->Add(ip);
            }
            entry->SetMacAddress(mac);
            entry->MarkPermanent();
        }
    }
};
} // namespace

void
FlPopulateArpCaches(const NetDeviceContainer& devices)
{
    // each device's IPv4 interface (null without IPv4)
    std::vector<Ptr<Ipv4Interface>> interfaces;
    for (uint32_t i = 0; i < devices.GetN(); ++i)
    {
        Ptr<NetDevice> d = devices.Get(i);
        Ptr<Ipv4L3Protocol> ipv4 = d->GetNode()->GetObject<Ipv4L3Protocol>();
        const int32_t index = ipv4 ? ipv4->GetInterfaceForDevice(d) : -1;
        interfaces.push_back(index < 0 ? nullptr : ipv4->GetInterface(index));
    }
    for (uint32_t i = 0; i < devices.GetN(); ++i)
    {
        if (!interfaces[i] || !interfaces[i]->GetArpCache())
        {
            continue; // no IPv4, or a device that needs no ARP
        }
        Ptr<FlStaticArpEntries> table = Create<FlStaticArpEntries>();
        table->iface = PeekPointer(interfaces[i]);
        for (uint32_t j = 0; j < devices.GetN(); ++j)
        {
            if (j == i || !interfaces[j])
            {
                continue;
            }
            for (uint32_t a = 0; a < interfaces[i]->GetNAddresses(); ++a)
            {
                const Ipv4InterfaceAddress own = interfaces[i]->GetAddress(a);
                for (uint32_t b = 0; b < interfaces[j]->GetNAddresses(); ++b)
                {
                    const Ipv4Address peer = interfaces[j]->GetAddress(b).GetLocal();
                    if (own.GetLocal().CombineMask(own.GetMask()) ==
                        peer.CombineMask(own.GetMask()))
                    {
                        table->peers.emplace_back(peer, devices.Get(j)->GetAddress());
                    }
                }
            }
        }
        table->Write();
        // ns-3's ARP flushes a device's whole cache, permanent entries too, whenever its link
        // goes up or down (ArpL3Protocol connects ArpCache::Flush to the device's link
        // changes): a Wi-Fi station's link comes up when it associates, after this call, and
        // its entries would be gone. Write them again after every link change (this callback
        // runs after the flush, connected before it).
        devices.Get(i)->AddLinkChangeCallback(FlCallback<void>([table]() { table->Write(); }));
    }
}

} // namespace ns3

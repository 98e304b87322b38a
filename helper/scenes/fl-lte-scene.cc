/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The LTE scene.
 */
#include "ns3/fl-lte-scene.h"
#include "ns3/fl-scene-internal.h"

#include "ns3/abort.h"
#include "ns3/arp-cache.h"
#include "ns3/boolean.h"
#include "ns3/bridge-helper.h"
#include "ns3/component-carrier-ue.h"
#include "ns3/config.h"
#include "ns3/constant-position-mobility-model.h"
#include "ns3/constant-velocity-mobility-model.h"
#include "ns3/csma-helper.h"
#include "ns3/csma-net-device.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/fl-ns3-compat.h"
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
 * What the eNBs' PHYs report of each UE (the last uplink SINR per cell and RNTI) and what the
 * UEs' RRCs report of their handovers.
 */
struct LteLinkObserver : public SimpleRefCount<LteLinkObserver>
{
    std::map<std::pair<uint16_t, uint16_t>, double> sinrDb; ///< (cell, RNTI) -> last SINR [dB]
    std::map<uint64_t, uint32_t> handovers;                 ///< IMSI -> handovers completed

    /// The sink of LteEnbPhy "ReportUeSinr".
    void OnUeSinr(uint16_t cellId, uint16_t rnti, double sinrLinear, uint8_t /* cc */)
    {
        sinrDb[{cellId, rnti}] = fl::ToDb(sinrLinear);
    }

    /// The sink of LteUeRrc "HandoverEndOk".
    void OnHandoverEndOk(uint64_t imsi, uint16_t /* cellId */, uint16_t /* rnti */)
    {
        ++handovers[imsi];
    }
};

/**
 * The LTE scene's link state: the serving eNB's uplink SINR reports of each UE, the distance
 * to it, its cell id and the UE's handovers.
 */
void
AttachLteLinkState(const FlScene& s,
                   const NetDeviceContainer& enbDevs,
                   const NetDeviceContainer& ueDevs)
{
    Ptr<LteLinkObserver> observer = Create<LteLinkObserver>();
    std::map<uint16_t, Ptr<Node>> enbOfCell;
    for (uint32_t e = 0; e < enbDevs.GetN(); ++e)
    {
        Ptr<LteEnbNetDevice> enb = DynamicCast<LteEnbNetDevice>(enbDevs.Get(e));
        NS_ABORT_MSG_IF(!enb, "FlLteSceneHelper: the eNB's device is not LTE");
        const bool connected = enb->GetPhy()->TraceConnectWithoutContext(
            "ReportUeSinr",
            MakeCallback(&LteLinkObserver::OnUeSinr, observer));
        NS_ABORT_MSG_IF(!connected, "FlLteSceneHelper: cannot connect ReportUeSinr");
        enbOfCell[enb->GetCellId()] = enb->GetNode();
    }
    std::vector<Ptr<LteUeNetDevice>> ues;
    for (uint32_t i = 0; i < ueDevs.GetN(); ++i)
    {
        ues.push_back(DynamicCast<LteUeNetDevice>(ueDevs.Get(i)));
        const bool connected = ues.back()->GetRrc()->TraceConnectWithoutContext(
            "HandoverEndOk",
            MakeCallback(&LteLinkObserver::OnHandoverEndOk, observer));
        NS_ABORT_MSG_IF(!connected, "FlLteSceneHelper: cannot connect HandoverEndOk");
    }
    const Ptr<Node> firstEnb = enbDevs.Get(0)->GetNode();
    const bool oneCell = enbDevs.GetN() == 1;
    AttachLinkState(s.serverNode, [observer, ues, enbOfCell, firstEnb, oneCell](uint32_t client) {
        FlLinkState st;
        if (client >= ues.size() || !ues[client])
        {
            return st;
        }
        Ptr<LteUeRrc> rrc = ues[client]->GetRrc();
        const LteUeRrc::State state = rrc ? rrc->GetState() : LteUeRrc::IDLE_START;
        const bool connected =
            state == LteUeRrc::CONNECTED_NORMALLY || state == LteUeRrc::CONNECTED_HANDOVER ||
            state == LteUeRrc::CONNECTED_PHY_PROBLEM || state == LteUeRrc::CONNECTED_REESTABLISHING;
        // the serving eNB (before the UE has one, the first: one cell's only eNB)
        auto enb = rrc ? enbOfCell.find(rrc->GetCellId()) : enbOfCell.end();
        const bool serving = connected && enb != enbOfCell.end();
        st.distanceM =
            FlNodeDistance(ues[client]->GetNode(),
                           serving || (oneCell && enb != enbOfCell.end()) ? enb->second : firstEnb);
        st.cell = serving ? static_cast<int32_t>(enb->first) : kFlNoCell;
        auto h = observer->handovers.find(ues[client]->GetImsi());
        st.handovers = h == observer->handovers.end() ? 0 : h->second;
        if (rrc)
        {
            auto it = observer->sinrDb.find({rrc->GetCellId(), rrc->GetRnti()});
            if (it != observer->sinrDb.end())
            {
                st.snrDb = it->second;
            }
        }
        return st;
    });
}

} // namespace

// -------------------------------------------------------------------------------------- LTE

FlLteSceneHelper::FlLteSceneHelper()
    : FlRadioSceneHelperBase("FlLteSceneHelper", 50.0),
      m_bandwidth(25),
      m_rlcMode("am"),
      m_rlcTxBuffer(1024 * 1024),
      m_backhaulRate("1Gb/s"),
      m_backhaulDelay(MilliSeconds(10)),
      m_cqiPeriodicity(Time()) // automatic: see SetCqiPeriodicity
{
}

void
FlLteSceneHelper::SetBandwidth(uint16_t resourceBlocks)
{
    switch (resourceBlocks)
    {
    case 6:
    case 15:
    case 25:
    case 50:
    case 75:
    case 100:
        m_bandwidth = resourceBlocks;
        break;
    default:
        NS_FATAL_ERROR("FlLteSceneHelper: bandwidth " << resourceBlocks
                                                      << " RBs is invalid; use 6, 15, 25, 50, "
                                                         "75 or 100 resource blocks");
    }
}

void
FlLteSceneHelper::SetRlcMode(const std::string& mode)
{
    if (mode != "am" && mode != "um")
    {
        NS_FATAL_ERROR("FlLteSceneHelper: RLC mode '" << mode << "' is invalid; use am or um");
    }
    m_rlcMode = mode;
}

void
FlLteSceneHelper::SetRlcTxBufferSize(uint32_t bytes)
{
    if (bytes == 0)
    {
        NS_FATAL_ERROR("FlLteSceneHelper: an RLC transmit buffer of 0 bytes drops everything; "
                       "use e.g. 1 MiB");
    }
    m_rlcTxBuffer = bytes;
}

void
FlLteSceneHelper::SetBackhaulDataRate(DataRate rate)
{
    CheckDataRate("backhaul data rate", rate);
    m_backhaulRate = rate;
}

void
FlLteSceneHelper::SetBackhaulDelay(Time delay)
{
    CheckDelay("backhaul delay", delay);
    m_backhaulDelay = delay;
}

void
FlLteSceneHelper::SetEnbs(uint32_t count)
{
    if (count == 0 || count > 16)
    {
        throw fl::ConfigError("FlLteSceneHelper::SetEnbs",
                              std::to_string(count) + " eNBs",
                              "use 1 to 16 eNBs");
    }
    m_enbs = count;
}

void
FlLteSceneHelper::SetEnbSpacing(double meters)
{
    if (!(meters > 0.0) || !std::isfinite(meters))
    {
        throw fl::ConfigError("FlLteSceneHelper::SetEnbSpacing",
                              std::to_string(meters) + " m",
                              "use a finite spacing > 0");
    }
    m_enbSpacing = meters;
}

namespace
{

/**
 * The CQI reporting period of a scene whose user gave none: FlLteDefaultCqiPeriodicity() when
 * the channel cannot change (every UE at a constant position or at a constant velocity of 0, no
 * fading model set as LteHelper's default), else ns-3's own 1 ms.
 */
Time
LteAutomaticCqiPeriodicity(const NodeContainer& ues)
{
    for (uint32_t i = 0; i < ues.GetN(); ++i)
    {
        // a UE whose model cannot move it: a constant position, or a constant velocity of 0
        Ptr<MobilityModel> m = ues.Get(i)->GetObject<MobilityModel>();
        const Vector v = m ? m->GetVelocity() : Vector();
        const bool still = DynamicCast<ConstantPositionMobilityModel>(m) ||
                           (DynamicCast<ConstantVelocityMobilityModel>(m) && v.x == 0.0 &&
                            v.y == 0.0 && v.z == 0.0);
        if (!still)
        {
            return MilliSeconds(1);
        }
    }
    TypeId::AttributeInformation fading;
    if (TypeId::LookupByName("ns3::LteHelper").LookupAttributeByName("FadingModel", &fading) &&
        !fading.initialValue->SerializeToString(fading.checker).empty())
    {
        return MilliSeconds(1);
    }
    return FlLteDefaultCqiPeriodicity();
}

} // namespace

void
FlLteSceneHelper::SetCqiPeriodicity(Time period)
{
    if (period < MilliSeconds(1) || period > MilliSeconds(160))
    {
        NS_FATAL_ERROR("FlLteSceneHelper: CQI periodicity "
                       << period.As(Time::MS)
                       << " is out of range; use 1 to 160 ms (e.g. 40 ms, or 1 ms for ns-3's own)");
    }
    m_cqiPeriodicity = period;
}

FlScene
FlLteSceneHelper::Build(uint32_t numClients) const
{
    CheckClients(numClients);
    // LteEnbRrc allots an SRS configuration index to every UE context, and the periodicity p
    // bounds how many contexts exist at once (p - 1). Contexts of random-access attempts that
    // collided live on until their connection request times out, so an attach storm holds more
    // contexts than UEs; when none is left the eNB answers a preamble with RNTI 0 and ns-3's
    // MAC scheduler aborts ("No info find in HARQ buffer for UE 0"). The helper takes the
    // smallest periodicity with as many spare contexts as UEs (p >= 2 N); above 159 UEs, where
    // 320 cannot give that, the UEs attach in groups (FlLteAttachSpacing).
    // With 320 and the UEs attaching 2 ms apart, 288 UEs (32 spare contexts) ran in every seed
    // tried; 319 (none spare) aborted in every seed.
    static const uint32_t kSrs[] = {40, 80, 160, 320};
    uint32_t srs = 0;
    for (uint32_t p : kSrs)
    {
        if (p >= 2 * numClients || (p == 320 && numClients <= FlLteMaxClients()))
        {
            srs = p;
            break;
        }
    }
    if (srs == 0)
    {
        NS_FATAL_ERROR("FlLteSceneHelper: numClients " << numClients
                                                       << " exceeds what one eNB serves here ("
                                                       << FlLteMaxClients()
                                                       << " UEs); use fewer clients");
    }

    CheckMobilityFidelity();
    if (m_fidelity == FlFidelity::Flow)
    {
        if (m_enbs > 1)
        {
            throw fl::ConfigError("FlLteSceneHelper::SetEnbs",
                                  std::to_string(m_enbs) + " eNBs in flow fidelity",
                                  "the flow-level model has one cell: use one eNB, or packet "
                                  "fidelity");
        }
        return BuildFlow(numClients);
    }
    FlScene s;
    s.lteHelper = CreateObject<LteHelper>();
    s.epcHelper = CreateObject<PointToPointEpcHelper>();
    s.lteHelper->SetEpcHelper(s.epcHelper);
    s.lteHelper->SetEnbDeviceAttribute("DlBandwidth", UintegerValue(m_bandwidth));
    s.lteHelper->SetEnbDeviceAttribute("UlBandwidth", UintegerValue(m_bandwidth));
    if (m_enbs > 1)
    {
        // handover on the A3 event (neighbour better than serving by the hysteresis for the
        // time to trigger), on RSRP, with ns-3's values stated
        s.lteHelper->SetHandoverAlgorithmType("ns3::A3RsrpHandoverAlgorithm");
        s.lteHelper->SetHandoverAlgorithmAttribute("Hysteresis",
                                                   DoubleValue(FlLteHandoverHysteresisDb()));
        s.lteHelper->SetHandoverAlgorithmAttribute("TimeToTrigger",
                                                   TimeValue(FlLteHandoverTimeToTrigger()));
    }
    Ptr<Node> pgw = s.epcHelper->GetPgwNode();

    // The server: a remote host behind the PGW (the user's server node, if given; new nodes are
    // created in the order server, eNB, UEs).
    if (m_userServer)
    {
        const FlScene nodes = NewScene(numClients);
        s.serverNode = nodes.serverNode;
        s.clients = nodes.clients;
    }
    else
    {
        s.serverNode = CreateObject<Node>();
    }
    NodeContainer server(s.serverNode);
    InternetStackHelper internet;
    internet.Install(server);
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", DataRateValue(m_backhaulRate));
    p2p.SetDeviceAttribute("Mtu", UintegerValue(1500));
    p2p.SetChannelAttribute("Delay", TimeValue(m_backhaulDelay));
    NetDeviceContainer backhaul = p2p.Install(pgw, s.serverNode);
    Ipv4AddressHelper address;
    address.SetBase("1.0.0.0", "255.0.0.0");
    Ipv4InterfaceContainer backhaulIfaces = address.Assign(backhaul);
    s.serverAddress = backhaulIfaces.GetAddress(1);
    Ipv4StaticRoutingHelper routing;
    Ptr<Ipv4StaticRouting> serverRouting =
        routing.GetStaticRouting(s.serverNode->GetObject<Ipv4>());
    serverRouting->AddNetworkRouteTo(Ipv4Address("7.0.0.0"),
                                     Ipv4Mask("255.0.0.0"),
                                     backhaulIfaces.Get(1).second);

    // The cells: eNB k at (k x spacing, 0, 0), the UEs on a disc around the first.
    NodeContainer enb;
    enb.Create(m_enbs);
    if (!m_userServer)
    {
        s.clients.Create(numClients);
    }
    PlaceAtOrigin(enb.Get(0));
    for (uint32_t k = 1; k < m_enbs; ++k)
    {
        PlaceAt(enb.Get(k), Vector(m_enbSpacing * k, 0.0, 0.0));
    }
    PlaceClients(s.clients);
    // RLC entities are created when bearers are set up: they take these defaults then.
    Config::SetDefault("ns3::LteRlcAm::MaxTxBufferSize", UintegerValue(m_rlcTxBuffer));
    Config::SetDefault("ns3::LteRlcUm::MaxTxBufferSize", UintegerValue(m_rlcTxBuffer));
    NetDeviceContainer enbDevs = s.lteHelper->InstallEnbDevice(enb);
    for (uint32_t k = 0; k < m_enbs; ++k)
    {
        Ptr<LteEnbRrc> rrc = DynamicCast<LteEnbNetDevice>(enbDevs.Get(k))->GetRrc();
        rrc->SetAttribute("SrsPeriodicity", UintegerValue(srs));
        rrc->SetAttribute(
            "EpsBearerToRlcMapping",
            EnumValue(m_rlcMode == "am" ? LteEnbRrc::RLC_AM_ALWAYS : LteEnbRrc::RLC_UM_ALWAYS));
    }
    if (m_enbs > 1)
    {
        s.lteHelper->AddX2Interface(enb);
    }
    NetDeviceContainer ueDevs = s.lteHelper->InstallUeDevice(s.clients);
    const Time cqiPeriodicity =
        m_cqiPeriodicity.IsZero() ? LteAutomaticCqiPeriodicity(s.clients) : m_cqiPeriodicity;
    for (uint32_t i = 0; i < ueDevs.GetN(); ++i)
    {
        // every component carrier's PHY reports (the scene has one carrier)
        for (const auto& cc : DynamicCast<LteUeNetDevice>(ueDevs.Get(i))->GetCcMap())
        {
            cc.second->GetPhy()->SetAttribute("DownlinkCqiPeriodicity", TimeValue(cqiPeriodicity));
        }
    }
    s.devices.Add(enbDevs);
    s.devices.Add(ueDevs);
    s.infrastructure.Add(enb);
    s.infrastructure.Add(pgw);
    AttachLteLinkState(s, enbDevs, ueDevs);

    internet.Install(s.clients);
    s.clientInterfaces = s.epcHelper->AssignUeIpv4Address(ueDevs);
    for (uint32_t i = 0; i < numClients; ++i)
    {
        Ptr<Ipv4StaticRouting> r = routing.GetStaticRouting(s.clients.Get(i)->GetObject<Ipv4>());
        r->SetDefaultRoute(s.epcHelper->GetUeDefaultGatewayAddress(), 1);
    }
    if (m_enbs > 1)
    {
        // each UE selects its cell (ns-3's idle-mode initial cell selection, strongest RSRP)
        if (2 * numClients <= srs)
        {
            s.lteHelper->Attach(ueDevs);
        }
        else
        {
            for (uint32_t i = 0; i < numClients; ++i)
            {
                Ptr<LteHelper> lte = s.lteHelper;
                Ptr<NetDevice> ue = ueDevs.Get(i);
                FlSchedule(FlLteAttachSpacing() * i, [lte, ue]() { lte->Attach(ue); });
            }
        }
    }
    else if (2 * numClients <= srs)
    {
        s.lteHelper->Attach(ueDevs, enbDevs.Get(0));
    }
    else
    {
        // fewer spare contexts than UEs: UE i attaches FlLteAttachSpacing() * i after the start
        for (uint32_t i = 0; i < numClients; ++i)
        {
            Ptr<LteHelper> lte = s.lteHelper;
            Ptr<NetDevice> ue = ueDevs.Get(i);
            Ptr<NetDevice> cell = enbDevs.Get(0);
            FlSchedule(FlLteAttachSpacing() * i, [lte, ue, cell]() { lte->Attach(ue, cell); });
        }
    }
    NS_LOG_INFO("LTE: " << m_enbs << " eNB(s), " << numClients << " UEs, " << m_bandwidth
                        << " RBs, RLC " << m_rlcMode << ", CQI every "
                        << cqiPeriodicity.As(Time::MS) << ", server " << s.serverAddress);
    return s;
}

FlScene
FlLteSceneHelper::BuildFlow(uint32_t numClients) const
{
    FlScene s = NewScene(numClients);
    s.flowNetwork = CreateObject<FlFlowNetwork>();
    const auto [dl, ul] = LteFlowRates(m_bandwidth);
    FlFlowMedium m;
    m.headerBytes = 52 + 6; // TCP/IP, PDCP and RLC (AM) headers
    m.efficiency = 1.0;     // the calibrated rates are goodputs
    m.perMessageDelay = MicroSeconds(800);
    m.discipline = fl::SharingDiscipline::PerFlow; // the eNB schedules each UE's bearer
    m.kind = "lte-dl";
    m.rateBps = dl;
    m.name = "LTE cell downlink";
    const int32_t down = s.flowNetwork->AddMedium(m);
    m.kind = "lte-ul";
    m.rateBps = ul;
    m.name = "LTE cell uplink";
    const int32_t up = s.flowNetwork->AddMedium(m);
    FlFlowInterface server;
    server.address = Ipv4Address("1.0.0.2");
    server.mask = Ipv4Mask("255.0.0.0");
    server.latency = m_backhaulDelay;
    s.flowNetwork->AddInterface(s.serverNode, server);
    s.serverAddress = server.address;
    for (uint32_t i = 0; i < numClients; ++i)
    {
        FlFlowInterface ue;
        ue.address = AddressPlus(Ipv4Address("7.0.0.0"), 2 + i);
        ue.mask = Ipv4Mask("255.0.0.0");
        ue.txMedium = up;
        ue.rxMedium = down;
        ue.latency = MilliSeconds(6); // scheduling request, grant and HARQ
        ue.lossProbability = m_flowLoss;
        s.flowNetwork->AddInterface(s.clients.Get(i), ue);
    }
    if (m_radius > 50.0)
    {
        s.flowNetwork->AddWarning("radius " + std::to_string(m_radius) +
                                  " m: the model gives every UE the top MCS, validated up to 50 m");
    }
    if (m_rlcMode != "am")
    {
        s.flowNetwork->AddWarning("RLC " + m_rlcMode + ": the model was calibrated with RLC am");
    }
    return s;
}

int64_t
FlLteSceneHelper::AssignStreams(const FlScene& scene, int64_t stream)
{
    if (scene.flowNetwork)
    {
        return scene.flowNetwork->AssignStreams(stream);
    }
    if (!scene.lteHelper)
    {
        NS_FATAL_ERROR("FlLteSceneHelper::AssignStreams: the scene has no LTE helper; pass the "
                       "FlScene returned by FlLteSceneHelper::Build");
    }
    return scene.lteHelper->AssignStreams(scene.devices, stream);
}

} // namespace ns3

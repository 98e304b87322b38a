/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The vehicular scene: 802.11p roadside units (ns-3's wave module, ns-3.35 to 3.38), 3GPP V2V
 * loss and condition models, routes to the nearest RSU, vehicles parked off the road outside
 * their trace spans.
 */
#include "ns3/fl-vehicular-scene.h"

#include "ns3/fl-scene-internal.h"
#include "ns3/fl-types.h"
#include "ns3/fl-wifi-scene.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-address-helper.h"
#include "ns3/ipv4-routing-table-entry.h"
#include "ns3/ipv4-static-routing-helper.h"
#include "ns3/ipv4-static-routing.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/mobility-model.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/simulator.h"

#ifdef FL_HAVE_WAVE
#include "ns3/boolean.h"
#include "ns3/buildings-helper.h"
#include "ns3/constant-velocity-mobility-model.h"
#include "ns3/double.h"
#include "ns3/mac48-address.h"
#include "ns3/propagation-delay-model.h"
#include "ns3/string.h"
#include "ns3/three-gpp-v2v-channel-condition-model.h"
#include "ns3/three-gpp-v2v-propagation-loss-model.h"
#include "ns3/wave-helper.h"
#include "ns3/wave-mac-helper.h"
#include "ns3/wifi-80211p-helper.h"
#include "ns3/wifi-mac-header.h"
#include "ns3/wifi-net-device.h"
#include "ns3/wifi-phy.h"
#include "ns3/yans-wifi-channel.h"
#endif

#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

namespace ns3
{

/// The log component of the network scenes (NS_LOG=FlNetworkScenarios), defined in fl-scene.cc.
LogComponent& FlNetworkScenariosLog();

namespace
{
LogComponent& g_log = FlNetworkScenariosLog();

constexpr uint32_t kNoRsu = std::numeric_limits<uint32_t>::max();

} // namespace

// ----------------------------------------------------------------------- FlVehicularRoutes

NS_OBJECT_ENSURE_REGISTERED(FlVehicularRoutes);

TypeId
FlVehicularRoutes::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FlVehicularRoutes")
            .SetParent<Object>()
            .SetGroupName("Fl")
            .AddTraceSource("RsuChange",
                            "A vehicle's routes moved to another roadside unit: client, old "
                            "RSU, new RSU.",
                            MakeTraceSourceAccessor(&FlVehicularRoutes::m_rsuChange),
                            "ns3::FlVehicularRoutes::RsuChangeCallback");
    return tid;
}

uint32_t
FlVehicularRoutes::GetRsu(uint32_t client) const
{
    return client < m_rsu.size() ? m_rsu[client] : kNoRsu;
}

uint32_t
FlVehicularRoutes::GetRsuChanges(uint32_t client) const
{
    return client < m_changes.size() ? m_changes[client] : 0;
}

void
FlVehicularRoutes::Configure(const Setup& setup)
{
    m_setup = setup;
    m_rsu.assign(setup.vehicles.GetN(), kNoRsu);
    m_changes.assign(setup.vehicles.GetN(), 0);
    m_onRoad.assign(setup.vehicles.GetN(), true);
    Update();
    m_event = Simulator::Schedule(m_setup.interval, &FlVehicularRoutes::Tick, this);
}

void
FlVehicularRoutes::Tick()
{
    Update();
    m_event = Simulator::Schedule(m_setup.interval, &FlVehicularRoutes::Tick, this);
}

void
FlVehicularRoutes::Update()
{
    for (uint32_t i = 0; i < m_setup.vehicles.GetN(); ++i)
    {
        if (m_onRoad[i])
        {
            UpdateOne(i, true);
        }
    }
}

void
FlVehicularRoutes::UpdateOne(uint32_t i, bool count)
{
    std::vector<Vector> rsus;
    for (uint32_t r = 0; r < m_setup.rsus.GetN(); ++r)
    {
        rsus.push_back(m_setup.rsus.Get(r)->GetObject<MobilityModel>()->GetPosition());
    }
    const Ptr<MobilityModel> m = m_setup.vehicles.Get(i)->GetObject<MobilityModel>();
    const uint32_t r = FlVehicularSceneHelper::NearestRsu(rsus, m->GetPosition());
    if (r != m_rsu[i])
    {
        const uint32_t from = m_rsu[i];
        Route(i, r);
        if (count && from != kNoRsu)
        {
            ++m_changes[i];
            m_rsuChange(i, from, r);
        }
    }
}

void
FlVehicularRoutes::SetOnRoad(uint32_t client, bool onRoad)
{
    if (client >= m_onRoad.size())
    {
        return;
    }
    m_onRoad[client] = onRoad;
    if (onRoad)
    {
        UpdateOne(client, false); // entering the road is no change of RSU
    }
}

bool
FlVehicularRoutes::IsOnRoad(uint32_t client) const
{
    return client < m_onRoad.size() && m_onRoad[client];
}

void
FlVehicularRoutes::Route(uint32_t i, uint32_t r)
{
    Ipv4StaticRoutingHelper helper;
    // the vehicle: its default route through RSU r
    const Ptr<Ipv4StaticRouting> vehicle =
        helper.GetStaticRouting(m_setup.vehicles.Get(i)->GetObject<Ipv4>());
    for (uint32_t k = vehicle->GetNRoutes(); k-- > 0;)
    {
        if (vehicle->GetRoute(k).IsDefault())
        {
            vehicle->RemoveRoute(k);
        }
    }
    vehicle->SetDefaultRoute(m_setup.rsuRadio[r], m_setup.vehIf[i]);
    // the server: its host route to the vehicle over RSU r's link
    const Ptr<Ipv4StaticRouting> server =
        helper.GetStaticRouting(m_setup.server->GetObject<Ipv4>());
    for (uint32_t k = server->GetNRoutes(); k-- > 0;)
    {
        const Ipv4RoutingTableEntry e = server->GetRoute(k);
        if (e.IsHost() && e.GetDest() == m_setup.vehicleAddr[i])
        {
            server->RemoveRoute(k);
        }
    }
    server->AddHostRouteTo(m_setup.vehicleAddr[i], m_setup.rsuBackbone[r], m_setup.serverIf[r]);
    m_rsu[i] = r;
    NS_LOG_LOGIC("vehicle " << i << " routes through RSU " << r);
}

void
FlVehicularRoutes::DoDispose()
{
    m_event.Cancel();
    m_setup = Setup();
    Object::DoDispose();
}

// -------------------------------------------------------------------------- availability

bool
FlVehicularSceneAvailable()
{
#ifdef FL_HAVE_WAVE
    return true;
#else
    return false;
#endif
}

void
FlRequireVehicularScene(bool available)
{
    if (available)
    {
        return;
    }
    std::ostringstream release;
#ifdef FL_NS3_VERSION
    release << "ns-3." << (FL_NS3_VERSION % 100);
#else
    release << "this ns-3";
#endif
    throw fl::ConfigError("FlVehicularSceneHelper::Build",
                          "802.11p needs ns-3's wave module, which " + release.str() +
                              " lacks (it was removed in ns-3.39, or is not enabled)",
                          "build the module against ns-3.35 to ns-3.38 with the wave module "
                          "enabled (Debian bookworm's libns3-dev 3.37 has it)");
}

// -------------------------------------------------------------------------- the helper

FlVehicularSceneHelper::FlVehicularSceneHelper()
    : FlRadioSceneHelperBase("FlVehicularSceneHelper", 10.0),
      m_rsus(4),
      m_lineStart(0.0, 0.0, 0.0),
      m_lineEnd(2000.0, 0.0, 0.0),
      m_environment("highway"),
      m_txPowerDbm(23.0),
      m_dataMode("OfdmRate6MbpsBW10MHz"),
      m_routeInterval(MilliSeconds(200)),
      m_backboneRate("1Gb/s"),
      m_backboneDelay(MicroSeconds(100))
{
}

void
FlVehicularSceneHelper::SetRoadsideUnits(uint32_t count)
{
    if (count == 0 || count > 250)
    {
        throw fl::ConfigError("FlVehicularSceneHelper::SetRoadsideUnits",
                              std::to_string(count) + " roadside units",
                              "use 1 to 250");
    }
    m_rsus = count;
}

void
FlVehicularSceneHelper::SetRsuLine(const Vector& start, const Vector& end)
{
    const bool finite = std::isfinite(start.x) && std::isfinite(start.y) &&
                        std::isfinite(start.z) && std::isfinite(end.x) && std::isfinite(end.y) &&
                        std::isfinite(end.z);
    if (!finite || CalculateDistance(start, end) == 0.0)
    {
        throw fl::ConfigError("FlVehicularSceneHelper::SetRsuLine",
                              "a segment that is not finite or has no length",
                              "give two finite, distinct end points");
    }
    m_lineStart = start;
    m_lineEnd = end;
}

void
FlVehicularSceneHelper::SetEnvironment(const std::string& environment)
{
    if (environment != "highway" && environment != "urban")
    {
        throw fl::ConfigError("FlVehicularSceneHelper::SetEnvironment",
                              "'" + environment + "'",
                              "use highway or urban (3GPP TR 37.885's V2V scenarios)");
    }
    m_environment = environment;
}

void
FlVehicularSceneHelper::SetTxPower(double dbm)
{
    if (!(dbm >= -10.0 && dbm <= 33.0))
    {
        throw fl::ConfigError("FlVehicularSceneHelper::SetTxPower",
                              std::to_string(dbm) + " dBm",
                              "use -10 to 33 dBm (802.11p's class D is 28.8 dBm)");
    }
    m_txPowerDbm = dbm;
}

void
FlVehicularSceneHelper::SetDataMode(const std::string& mode)
{
    static const char* const kModes[] = {"OfdmRate3MbpsBW10MHz",
                                         "OfdmRate4_5MbpsBW10MHz",
                                         "OfdmRate6MbpsBW10MHz",
                                         "OfdmRate9MbpsBW10MHz",
                                         "OfdmRate12MbpsBW10MHz",
                                         "OfdmRate18MbpsBW10MHz",
                                         "OfdmRate24MbpsBW10MHz",
                                         "OfdmRate27MbpsBW10MHz"};
    for (const char* m : kModes)
    {
        if (mode == m)
        {
            m_dataMode = mode;
            return;
        }
    }
    throw fl::ConfigError("FlVehicularSceneHelper::SetDataMode",
                          "'" + mode + "'",
                          "use one of the 10 MHz OFDM modes OfdmRate3MbpsBW10MHz, "
                          "OfdmRate4_5MbpsBW10MHz, OfdmRate6MbpsBW10MHz, OfdmRate9MbpsBW10MHz, "
                          "OfdmRate12MbpsBW10MHz, OfdmRate18MbpsBW10MHz, OfdmRate24MbpsBW10MHz, "
                          "OfdmRate27MbpsBW10MHz");
}

void
FlVehicularSceneHelper::SetRouteUpdateInterval(Time interval)
{
    if (!interval.IsStrictlyPositive())
    {
        throw fl::ConfigError("FlVehicularSceneHelper::SetRouteUpdateInterval",
                              std::to_string(interval.GetSeconds()) + " s",
                              "use an interval > 0");
    }
    m_routeInterval = interval;
}

void
FlVehicularSceneHelper::SetBackboneDataRate(DataRate rate)
{
    CheckDataRate("backbone data rate", rate);
    m_backboneRate = rate;
}

void
FlVehicularSceneHelper::SetBackboneDelay(Time delay)
{
    CheckDelay("backbone delay", delay);
    m_backboneDelay = delay;
}

std::vector<Vector>
FlVehicularSceneHelper::RsuPositions(uint32_t count, const Vector& start, const Vector& end)
{
    std::vector<Vector> p(count);
    for (uint32_t r = 0; r < count; ++r)
    {
        const double f = (r + 0.5) / count;
        p[r] = Vector(start.x + f * (end.x - start.x),
                      start.y + f * (end.y - start.y),
                      start.z + f * (end.z - start.z));
    }
    return p;
}

uint32_t
FlVehicularSceneHelper::NearestRsu(const std::vector<Vector>& rsus, const Vector& p)
{
    uint32_t best = 0;
    double bestD = std::numeric_limits<double>::infinity();
    for (uint32_t r = 0; r < rsus.size(); ++r)
    {
        const double d = CalculateDistance(rsus[r], p);
        if (d < bestD)
        {
            bestD = d;
            best = r;
        }
    }
    return best;
}

int64_t
FlVehicularSceneHelper::AssignStreams(const FlScene& scene, int64_t stream)
{
    return FlWifiSceneHelperBase::AssignStreams(scene, stream);
}

#ifdef FL_HAVE_WAVE

namespace
{

/**
 * The vehicular scene's link state: the SNR of the last data frame an RSU received that was
 * addressed to it, per sending vehicle.
 */
struct RsuObserver : public SimpleRefCount<RsuObserver>
{
    std::map<Mac48Address, uint32_t> clientOf; ///< a vehicle's MAC address -> client index
    std::vector<double> snrDb;                 ///< per client, NaN until its first data frame

    void Observe(Mac48Address rsu, Ptr<const Packet> packet, double signalDbm, double noiseDbm)
    {
        WifiMacHeader hdr;
        if (!packet || packet->GetSize() < hdr.GetSerializedSize() ||
            packet->PeekHeader(hdr) == 0 || !hdr.IsData() || hdr.GetAddr1() != rsu)
        {
            return;
        }
        auto it = clientOf.find(hdr.GetAddr2());
        if (it != clientOf.end())
        {
            snrDb[it->second] = FlSnrDb(signalDbm, noiseDbm);
        }
    }
};

/// One RSU PHY's MonitorSnifferRx sink, whatever the argument types of the ns-3 release.
struct RsuSniffer : public SimpleRefCount<RsuSniffer>
{
    Ptr<RsuObserver> observer;
    Mac48Address rsu;

    template <typename... A>
    void OnSnifferRx(A... args)
    {
        const auto t = std::forward_as_tuple(args...);
        observer->Observe(rsu, std::get<0>(t), std::get<4>(t).signal, std::get<4>(t).noise);
    }
};

template <typename F>
struct RsuSnifferConnector;

template <typename... A>
struct RsuSnifferConnector<void (*)(A...)>
{
    static bool Connect(Ptr<WifiPhy> phy, Ptr<RsuSniffer> sniffer)
    {
        return phy->TraceConnectWithoutContext(
            "MonitorSnifferRx",
            MakeCallback(&RsuSniffer::template OnSnifferRx<A...>, sniffer));
    }
};

} // namespace

FlScene
FlVehicularSceneHelper::Build(uint32_t numClients) const
{
    FlRequireVehicularScene(FlVehicularSceneAvailable());
    CheckClients(numClients);
    if (m_fidelity == FlFidelity::Flow)
    {
        throw fl::ConfigError("FlVehicularSceneHelper::SetFidelity",
                              "flow fidelity: the flow-level model has no vehicles",
                              "build the vehicular scene in packet fidelity");
    }
    const uint32_t numRsus = m_rsus;
    if (numRsus + numClients > 65533)
    {
        throw fl::ConfigError("FlVehicularSceneHelper::Build",
                              std::to_string(numClients) + " vehicles and " +
                                  std::to_string(numRsus) + " RSUs",
                              "at most 65,533 radios (one /16)");
    }
    FlScene s = NewScene(numClients);
    s.infrastructure.Create(numRsus);

    // Positions: the RSUs on the line, the server at the origin, the vehicles.
    const std::vector<Vector> rsuPos = RsuPositions(numRsus, m_lineStart, m_lineEnd);
    for (uint32_t r = 0; r < numRsus; ++r)
    {
        flscene::PlaceAt(s.infrastructure.Get(r), rsuPos[r]);
    }
    flscene::PlaceAtOrigin(s.serverNode);
    if (m_positions || m_mobility.Moves())
    {
        PlaceClients(s.clients);
    }
    else
    {
        Ptr<UniformDiscPositionAllocator> disc = flscene::PositionDisc(m_radius);
        for (uint32_t i = 0; i < numClients; ++i)
        {
            if (s.clients.Get(i)->GetObject<MobilityModel>())
            {
                continue;
            }
            const Vector o = disc->GetNext();
            const Vector& c = rsuPos[i % numRsus];
            flscene::PlaceAt(s.clients.Get(i), Vector(c.x + o.x, c.y + o.y, c.z));
        }
    }
    // Off the road: parked outside the trace's spans.
    std::vector<FlTraceSpan> spans;
    if (m_mobility.GetKind() == FlClientMobilityHelper::Kind::Ns2Trace)
    {
        spans = FlReadNs2TraceSpans(m_mobility.GetNs2TracePath());
        for (uint32_t i = 0; i < numClients && i < spans.size(); ++i)
        {
            const Ptr<MobilityModel> m = s.clients.Get(i)->GetObject<MobilityModel>();
            if (!spans[i].present || !m)
            {
                continue;
            }
            const Vector parking = FlParkingPosition(i);
            if (spans[i].enterS > 0.0)
            {
                m->SetPosition(parking);
                Simulator::Schedule(Seconds(spans[i].enterS),
                                    &MobilityModel::SetPosition,
                                    m,
                                    spans[i].entry);
            }
            if (std::isfinite(spans[i].leaveS))
            {
                Simulator::Schedule(Seconds(spans[i].leaveS),
                                    &MobilityModel::SetPosition,
                                    m,
                                    parking);
            }
        }
    }

    // The channel: 3GPP V2V loss and condition (buildings module: every node needs its
    // MobilityBuildingInfo; there are no buildings, so no link is NLOS).
    NodeContainer radios(s.infrastructure, s.clients);
    BuildingsHelper::Install(radios);
    Ptr<ThreeGppChannelConditionModel> condition;
    Ptr<ThreeGppPropagationLossModel> loss;
    if (m_environment == "urban")
    {
        condition = CreateObject<ThreeGppV2vUrbanChannelConditionModel>();
        loss = CreateObject<ThreeGppV2vUrbanPropagationLossModel>();
    }
    else
    {
        condition = CreateObject<ThreeGppV2vHighwayChannelConditionModel>();
        loss = CreateObject<ThreeGppV2vHighwayPropagationLossModel>();
    }
    condition->SetAttribute("UpdatePeriod", TimeValue(Seconds(1)));
    loss->SetChannelConditionModel(condition);
    loss->SetAttribute("ShadowingEnabled", BooleanValue(true));
    Ptr<YansWifiChannel> channel = CreateObject<YansWifiChannel>();
    channel->SetPropagationLossModel(loss);
    channel->SetPropagationDelayModel(CreateObject<ConstantSpeedPropagationDelayModel>());

    YansWavePhyHelper phy = YansWavePhyHelper::Default();
    phy.SetChannel(channel);
    phy.Set("TxPowerStart", DoubleValue(m_txPowerDbm));
    phy.Set("TxPowerEnd", DoubleValue(m_txPowerDbm));
    NqosWaveMacHelper mac = NqosWaveMacHelper::Default();
    Wifi80211pHelper wifi = Wifi80211pHelper::Default();
    wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager",
                                 "DataMode",
                                 StringValue(m_dataMode),
                                 "ControlMode",
                                 StringValue("OfdmRate6MbpsBW10MHz"),
                                 "NonUnicastMode",
                                 StringValue(m_dataMode));
    s.devices = wifi.Install(phy, mac, radios);
    // the loss model's frequency: the channel's
    const Ptr<WifiNetDevice> first = DynamicCast<WifiNetDevice>(s.devices.Get(0));
    loss->SetAttribute("Frequency", DoubleValue(first->GetPhy()->GetFrequency() * 1e6));
    const int64_t streams = kFlPositionStream + 32;
    condition->AssignStreams(streams);
    loss->AssignStreams(streams + 8);

    // Internet, the radio subnet, the backbone and the routes.
    InternetStackHelper internet;
    internet.Install(flscene::ServerAndClients(s));
    internet.Install(s.infrastructure);
    Ipv4AddressHelper radioAddresses("10.1.0.0", "255.255.0.0");
    const Ipv4InterfaceContainer radio = radioAddresses.Assign(s.devices);
    FlPopulateArpCaches(s.devices);
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", DataRateValue(m_backboneRate));
    p2p.SetChannelAttribute("Delay", TimeValue(m_backboneDelay));
    Ipv4AddressHelper backbone("172.16.0.0", "255.255.255.252");
    Ipv4StaticRoutingHelper routing;
    FlVehicularRoutes::Setup setup;
    setup.server = s.serverNode;
    setup.rsus = s.infrastructure;
    setup.vehicles = s.clients;
    setup.interval = m_routeInterval;
    for (uint32_t r = 0; r < numRsus; ++r)
    {
        const Ptr<Node> rsu = s.infrastructure.Get(r);
        const Ipv4InterfaceContainer link =
            backbone.Assign(p2p.Install(NodeContainer(s.serverNode, rsu)));
        backbone.NewNetwork();
        if (r == 0)
        {
            s.serverAddress = link.GetAddress(0);
        }
        routing.GetStaticRouting(rsu->GetObject<Ipv4>())
            ->SetDefaultRoute(link.GetAddress(0), link.Get(1).second);
        setup.rsuIf.push_back(radio.Get(r).second);
        setup.rsuRadio.push_back(radio.GetAddress(r));
        setup.rsuBackbone.push_back(link.GetAddress(1));
        setup.serverIf.push_back(link.Get(0).second);
    }
    for (uint32_t i = 0; i < numClients; ++i)
    {
        s.clientInterfaces.Add(radio.Get(numRsus + i));
        setup.vehIf.push_back(radio.Get(numRsus + i).second);
        setup.vehicleAddr.push_back(radio.GetAddress(numRsus + i));
    }
    Ptr<FlVehicularRoutes> routes = CreateObject<FlVehicularRoutes>();
    s.serverNode->AggregateObject(routes);
    routes->Configure(setup);
    // a parked vehicle keeps its routes (nobody hears it) and changes no RSU
    for (uint32_t i = 0; i < numClients && i < spans.size(); ++i)
    {
        if (!spans[i].present || !s.clients.Get(i)->GetObject<MobilityModel>())
        {
            continue;
        }
        if (spans[i].enterS > 0.0)
        {
            routes->SetOnRoad(i, false);
            Simulator::Schedule(Seconds(spans[i].enterS),
                                &FlVehicularRoutes::SetOnRoad,
                                routes,
                                i,
                                true);
        }
        if (std::isfinite(spans[i].leaveS))
        {
            Simulator::Schedule(Seconds(spans[i].leaveS),
                                &FlVehicularRoutes::SetOnRoad,
                                routes,
                                i,
                                false);
        }
    }

    // The link state: each RSU's PHY listens to the data frames addressed to it.
    Ptr<RsuObserver> observer = Create<RsuObserver>();
    observer->snrDb.assign(numClients, std::numeric_limits<double>::quiet_NaN());
    for (uint32_t i = 0; i < numClients; ++i)
    {
        observer->clientOf[Mac48Address::ConvertFrom(s.devices.Get(numRsus + i)->GetAddress())] = i;
    }
    for (uint32_t r = 0; r < numRsus; ++r)
    {
        const Ptr<WifiNetDevice> dev = DynamicCast<WifiNetDevice>(s.devices.Get(r));
        Ptr<RsuSniffer> sniffer = Create<RsuSniffer>();
        sniffer->observer = observer;
        sniffer->rsu = Mac48Address::ConvertFrom(dev->GetAddress());
        const bool connected =
            RsuSnifferConnector<WifiPhy::MonitorSnifferRxCallback>::Connect(dev->GetPhy(), sniffer);
        NS_ABORT_MSG_IF(!connected, "FlVehicularSceneHelper: cannot connect MonitorSnifferRx");
    }
    const NodeContainer vehicles = s.clients;
    const NodeContainer rsus = s.infrastructure;
    Ptr<FlVehicularRoutes> keeper = routes;
    flscene::AttachLinkState(s.serverNode, [observer, vehicles, rsus, keeper](uint32_t client) {
        FlLinkState st;
        if (client < observer->snrDb.size())
        {
            st.snrDb = observer->snrDb[client];
            const uint32_t r = keeper->GetRsu(client);
            if (r < rsus.GetN())
            {
                st.distanceM = FlNodeDistance(vehicles.Get(client), rsus.Get(r));
            }
            // the serving RSU: the one the car's routes go through while it is on the road
            st.cell = r < rsus.GetN() && keeper->IsOnRoad(client) ? static_cast<int32_t>(r)
                                                                   : kFlNoCell;
            st.handovers = keeper->GetRsuChanges(client);
        }
        return st;
    });
    NS_LOG_INFO("vehicular: " << numRsus << " RSUs, " << numClients << " vehicles, server "
                              << s.serverAddress);
    return s;
}

#else // no wave module

FlScene
FlVehicularSceneHelper::Build(uint32_t numClients) const
{
    FlRequireVehicularScene(FlVehicularSceneAvailable());
    (void)numClients;
    return FlScene();
}

#endif // FL_HAVE_WAVE

} // namespace ns3

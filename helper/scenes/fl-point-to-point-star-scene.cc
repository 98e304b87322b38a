/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The point-to-point star scene.
 */
#include "ns3/fl-point-to-point-star-scene.h"
#include "ns3/fl-scene-internal.h"

#include "ns3/abort.h"
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

// ------------------------------------------------------------------------ point-to-point star

FlPointToPointStarHelper::FlPointToPointStarHelper()
    : FlWiredSceneHelperBase("FlPointToPointStarHelper", DataRate("10Mb/s"), MilliSeconds(2))
{
}

void
FlPointToPointStarHelper::SetDataRateVariable(Ptr<RandomVariableStream> mbps)
{
    m_rateVariable = mbps;
}

FlScene
FlPointToPointStarHelper::Build(uint32_t numClients) const
{
    CheckClients(numClients);
    if (numClients > (1u << 22))
    {
        NS_FATAL_ERROR("FlPointToPointStarHelper: numClients " << numClients
                                                               << " exceeds the /30 subnets of "
                                                                  "10.0.0.0/8; use fewer clients");
    }
    FlScene s = NewScene(numClients);
    if (m_fidelity == FlFidelity::Flow)
    {
        BuildFlowStar(s);
        return s;
    }
    InternetStackHelper internet;
    internet.Install(ServerAndClients(s));

    Ipv4AddressHelper address;
    address.SetBase("10.2.0.0", "255.255.255.252");
    Ipv4StaticRoutingHelper routing;
    std::vector<double> linkRates(numClients);
    for (uint32_t i = 0; i < numClients; ++i)
    {
        DataRate rate = m_dataRate;
        if (m_rateVariable)
        {
            const double mbps = m_rateVariable->GetValue();
            rate = DataRate(static_cast<uint64_t>(std::max(1e3, mbps * 1e6)));
        }
        PointToPointHelper p2p;
        p2p.SetDeviceAttribute("DataRate", DataRateValue(rate));
        p2p.SetChannelAttribute("Delay", TimeValue(m_delay));
        NetDeviceContainer link = p2p.Install(s.serverNode, s.clients.Get(i));
        s.devices.Add(link);
        Ipv4InterfaceContainer ifaces = address.Assign(link);
        address.NewNetwork();
        if (i == 0)
        {
            s.serverAddress = ifaces.GetAddress(0);
        }
        s.clientInterfaces.Add(ifaces.Get(1));
        // The client reaches every server address (in particular the first link's) via its link.
        Ptr<Ipv4StaticRouting> r = routing.GetStaticRouting(s.clients.Get(i)->GetObject<Ipv4>());
        r->SetDefaultRoute(ifaces.GetAddress(0), ifaces.Get(1).second);
        NS_LOG_INFO("star link " << i << ": " << rate << ", client " << ifaces.GetAddress(1));
        linkRates[i] = static_cast<double>(rate.GetBitRate());
    }
    const Time rtt = m_delay * 2; // propagation there and back
    AttachLinkState(s.serverNode, [linkRates, rtt](uint32_t client) {
        FlLinkState st;
        if (client < linkRates.size())
        {
            st.rateBps = linkRates[client];
            st.rtt = rtt;
        }
        return st;
    });
    return s;
}

void
FlPointToPointStarHelper::BuildFlowStar(FlScene& s) const
{
    s.flowNetwork = CreateObject<FlFlowNetwork>();
    const Ipv4Address base("10.2.0.0");
    for (uint32_t i = 0; i < s.clients.GetN(); ++i)
    {
        double rate = static_cast<double>(m_dataRate.GetBitRate());
        if (m_rateVariable)
        {
            rate = std::max(1e3, m_rateVariable->GetValue() * 1e6);
        }
        FlFlowMedium link;
        link.kind = "p2p";
        link.rateBps = rate;
        link.headerBytes = 52 + 2; // TCP/IP and PPP
        link.name = "link " + std::to_string(i) + " up";
        const int32_t up = s.flowNetwork->AddMedium(link);
        link.name = "link " + std::to_string(i) + " down";
        const int32_t down = s.flowNetwork->AddMedium(link);
        FlFlowInterface server;
        server.address = AddressPlus(base, 4 * i + 1);
        server.mask = Ipv4Mask("255.255.255.252");
        server.rateBps = rate;
        server.latency = m_delay / 2;
        s.flowNetwork->AddInterface(s.serverNode, server);
        FlFlowInterface client = server;
        client.address = AddressPlus(base, 4 * i + 2);
        client.txMedium = up;
        client.rxMedium = down;
        client.lossProbability = m_flowLoss;
        s.flowNetwork->AddInterface(s.clients.Get(i), client);
        if (i == 0)
        {
            s.serverAddress = server.address;
        }
    }
}

int64_t
FlPointToPointStarHelper::AssignStreams(const FlScene& scene, int64_t stream)
{
    if (scene.flowNetwork)
    {
        return scene.flowNetwork->AssignStreams(stream);
    }
    return AssignInternetStreams(scene, stream);
}

} // namespace ns3

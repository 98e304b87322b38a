/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The CSMA scene.
 */
#include "ns3/fl-csma-scene.h"
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

// ------------------------------------------------------------------------------------- CSMA

FlCsmaSceneHelper::FlCsmaSceneHelper()
    : FlWiredSceneHelperBase("FlCsmaSceneHelper", DataRate("100Mb/s"), NanoSeconds(6560))
{
}

FlScene
FlCsmaSceneHelper::Build(uint32_t numClients) const
{
    CheckClients(numClients);
    if (m_fidelity == FlFidelity::Flow && m_switched)
    {
        throw fl::ConfigError("FlCsmaSceneHelper::SetSwitched",
                              "flow fidelity: the flow-level model has no switched LAN",
                              "build the switched LAN in packet fidelity, or the shared segment "
                              "at flow level (SetSwitched(false))");
    }
    if (m_fidelity == FlFidelity::Flow)
    {
        const FlFlowMedium medium = CsmaFlowMedium(m_dataRate);
        return BuildFlowOneSubnet(NewScene(numClients),
                                  medium,
                                  medium.rateBps,
                                  m_delay,
                                  m_flowLoss);
    }
    FlScene s = NewScene(numClients);
    CsmaHelper csma;
    csma.SetChannelAttribute("DataRate", DataRateValue(m_dataRate));
    csma.SetChannelAttribute("Delay", TimeValue(m_delay));
    if (m_switched)
    {
        const NodeContainer hosts = ServerAndClients(s);
        Ptr<Node> sw = CreateObject<Node>();
        NetDeviceContainer ports;
        for (uint32_t i = 0; i < hosts.GetN(); ++i)
        {
            // one segment (channel) per host: the host's device, then the switch's port
            const NetDeviceContainer link = csma.Install(NodeContainer(hosts.Get(i), sw));
            s.devices.Add(link.Get(0));
            ports.Add(link.Get(1));
            Ptr<Queue<Packet>> queue = DynamicCast<CsmaNetDevice>(link.Get(1))->GetQueue();
            queue->SetAttribute("MaxSize", QueueSizeValue(m_switchQueue));
        }
        BridgeHelper().Install(sw, ports);
        s.infrastructure.Add(sw);
    }
    else
    {
        s.devices = csma.Install(ServerAndClients(s));
    }
    AddressOneSubnet(s);
    const double rateBps = static_cast<double>(m_dataRate.GetBitRate());
    // propagation there and back: one segment, or the host's and the server's through the switch
    const Time rtt = m_delay * (m_switched ? 4 : 2);
    AttachLinkState(s.serverNode, [rateBps, rtt](uint32_t) {
        FlLinkState st;
        st.rateBps = rateBps;
        st.rtt = rtt;
        return st;
    });
    NS_LOG_INFO("CSMA LAN" << (m_switched ? " (switched)" : "") << ": server " << s.serverAddress
                           << " and " << numClients << " clients at " << m_dataRate);
    return s;
}

void
FlCsmaSceneHelper::SetSwitched(bool switched)
{
    m_switched = switched;
}

void
FlCsmaSceneHelper::SetSwitchPortQueueSize(QueueSize size)
{
    if (size.GetValue() == 0)
    {
        throw fl::ConfigError("FlCsmaSceneHelper::SetSwitchPortQueueSize",
                              "a queue of 0",
                              "use at least one packet, e.g. 100p (ns-3's default)");
    }
    m_switchQueue = size;
}

int64_t
FlCsmaSceneHelper::AssignStreams(const FlScene& scene, int64_t stream)
{
    if (scene.flowNetwork)
    {
        return scene.flowNetwork->AssignStreams(stream);
    }
    int64_t used = AssignDeviceAndInternetStreams<CsmaHelper>(scene, stream);
    // a switched LAN's ports back off too
    NetDeviceContainer ports;
    for (uint32_t n = 0; n < scene.infrastructure.GetN(); ++n)
    {
        Ptr<Node> node = scene.infrastructure.Get(n);
        for (uint32_t d = 0; d < node->GetNDevices(); ++d)
        {
            if (DynamicCast<CsmaNetDevice>(node->GetDevice(d)))
            {
                ports.Add(node->GetDevice(d));
            }
        }
    }
    if (ports.GetN() > 0)
    {
        used += CsmaHelper().AssignStreams(ports, stream + used);
    }
    return used;
}

} // namespace ns3

/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "ns3/fl-packet-probes.h"

#include "ns3/config.h"
#include "ns3/fl-ns3-compat.h"
#include "ns3/node-list.h"
#include "ns3/packet.h"
#include "ns3/queue-disc.h"
#include "ns3/simulator.h"
#include "ns3/sta-wifi-mac.h"
#include "ns3/tcp-l4-protocol.h"
#include "ns3/tcp-socket-base.h"
#include "ns3/wifi-mac.h"
#include "ns3/wifi-mpdu.h"
#include "ns3/wifi-net-device.h"

#include <cmath>
#include <limits>
#include <set>
#include <sstream>

namespace ns3
{

std::vector<double>
FlMeasureWifiAssociation(uint32_t stations, int64_t stream, Time until)
{
    FlWifiScenarioHelper helper;
    const FlScene scene = helper.Build(stations);
    FlWifiScenarioHelper::AssignStreams(scene, stream);
    auto times = std::make_shared<std::vector<double>>(stations,
                                                       std::numeric_limits<double>::quiet_NaN());
    for (uint32_t i = 0; i < stations; ++i)
    {
        Ptr<WifiNetDevice> dev = DynamicCast<WifiNetDevice>(scene.devices.Get(1 + i));
        NS_ABORT_MSG_IF(!dev, "FlMeasureWifiAssociation: station " << i << " has no Wi-Fi device");
        dev->GetMac()->TraceConnectWithoutContext(
            "Assoc",
            Callback<void, Mac48Address>([times, i](Mac48Address) {
                if (std::isnan((*times)[i]))
                {
                    (*times)[i] = Simulator::Now().GetSeconds();
                }
            }));
    }
    Simulator::Stop(until);
    Simulator::Run();
    Simulator::Destroy();
    return *times;
}

std::string
FlPacketLosses::Describe() const
{
    std::ostringstream os;
    os << "Wi-Fi MAC drops at the AP: " << apQueueFull << " queue full, " << apExpired
       << " MaxDelay, " << apRetryLimit << " retry limit; at the stations: " << staQueueFull
       << " queue full, " << staExpired << " MaxDelay, " << staRetryLimit << " retry limit; "
       << macOther << " other; queue discs " << queueDiscDrops << "; device queues "
       << deviceDrops << "; TCP " << tcpTimeouts << " retransmission timeouts, "
       << tcpFastRecovery << " fast recoveries";
    return os.str();
}

namespace
{

/// Connects the TCP sockets created since the last call (every socket of every node).
struct TcpSocketWatcher : public SimpleRefCount<TcpSocketWatcher>
{
    std::shared_ptr<FlPacketLosses> counts;
    std::set<TcpSocketBase*> seen;
    Time lastScan{Seconds(-1)};

    void Scan()
    {
        if (Simulator::Now() - lastScan < MilliSeconds(5))
        {
            return;
        }
        lastScan = Simulator::Now();
        const Config::MatchContainer m =
            Config::LookupMatches("/NodeList/*/$ns3::TcpL4Protocol/SocketList/*");
        for (uint32_t i = 0; i < m.GetN(); ++i)
        {
            Ptr<TcpSocketBase> s = DynamicCast<TcpSocketBase>(m.Get(i));
            if (!s || !seen.insert(PeekPointer(s)).second)
            {
                continue;
            }
            auto c = counts;
            s->TraceConnectWithoutContext(
                "CongState",
                Callback<void, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t>(
                    [c](TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now) {
                        if (now == TcpSocketState::CA_LOSS)
                        {
                            ++c->tcpTimeouts;
                        }
                        else if (now == TcpSocketState::CA_RECOVERY)
                        {
                            ++c->tcpFastRecovery;
                        }
                    }));
        }
    }
};

} // namespace

std::shared_ptr<FlPacketLosses>
FlCountPacketLosses(const FlScene& scene)
{
    auto counts = std::make_shared<FlPacketLosses>();
    Ptr<TcpSocketWatcher> watcher = Create<TcpSocketWatcher>();
    watcher->counts = counts;
    for (uint32_t d = 0; d < scene.devices.GetN(); ++d)
    {
        Ptr<WifiNetDevice> dev = DynamicCast<WifiNetDevice>(scene.devices.Get(d));
        if (!dev)
        {
            continue;
        }
        const bool ap = d == 0;
#if FL_NS3_VERSION >= 337
        dev->GetMac()->TraceConnectWithoutContext(
            "DroppedMpdu",
            Callback<void, WifiMacDropReason, Ptr<const WifiMpdu>>(
                [counts, ap](WifiMacDropReason reason, Ptr<const WifiMpdu>) {
                    switch (reason)
                    {
                    case WIFI_MAC_DROP_FAILED_ENQUEUE:
                        ++(ap ? counts->apQueueFull : counts->staQueueFull);
                        break;
                    case WIFI_MAC_DROP_EXPIRED_LIFETIME:
                        ++(ap ? counts->apExpired : counts->staExpired);
                        break;
                    case WIFI_MAC_DROP_REACHED_RETRY_LIMIT:
                        ++(ap ? counts->apRetryLimit : counts->staRetryLimit);
                        break;
                    default:
                        ++counts->macOther;
                    }
                }));
#endif
        // TCP's sockets are looked for whenever the AP's MAC hands up a frame (a socket is
        // created by a SYN or before one), at most every 5 ms
        if (ap)
        {
            dev->GetMac()->TraceConnectWithoutContext(
                "MacRx",
                Callback<void, Ptr<const Packet>>(
                    [watcher](Ptr<const Packet>) { watcher->Scan(); }));
        }
    }
    Config::ConnectWithoutContextFailSafe(
        "/NodeList/*/$ns3::TrafficControlLayer/RootQueueDiscList/*/Drop",
        Callback<void, Ptr<const QueueDiscItem>>(
            [counts](Ptr<const QueueDiscItem>) { ++counts->queueDiscDrops; }));
    Config::ConnectWithoutContextFailSafe(
        "/NodeList/*/DeviceList/*/TxQueue/Drop",
        Callback<void, Ptr<const Packet>>([counts](Ptr<const Packet>) { ++counts->deviceDrops; }));
    if (scene.devices.GetN() > 0 && !DynamicCast<WifiNetDevice>(scene.devices.Get(0)))
    {
        // no AP: look for sockets on every frame the server's device receives
        Config::ConnectWithoutContextFailSafe(
            "/NodeList/" + std::to_string(scene.serverNode->GetId()) + "/DeviceList/*/MacRx",
            Callback<void, Ptr<const Packet>>([watcher](Ptr<const Packet>) { watcher->Scan(); }));
    }
    return counts;
}

} // namespace ns3

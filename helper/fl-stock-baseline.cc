/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fl-stock-baseline.h"

#include "ns3/bulk-send-helper.h"
#include "ns3/fl-ns3-compat.h"
#include "ns3/inet-socket-address.h"
#include "ns3/packet-sink-helper.h"
#include "ns3/packet-sink.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <vector>

namespace ns3
{

FlStockExchangeResult
FlRunStockExchange(const FlScene& scene, uint64_t bytes, Time start, Time stopAt)
{
    const uint32_t n = scene.clients.GetN();
    const uint16_t downPort = 9;
    const uint16_t upPort = 10;
    PacketSinkHelper upSink("ns3::TcpSocketFactory",
                            InetSocketAddress(Ipv4Address::GetAny(), upPort));
    Ptr<PacketSink> serverSink = DynamicCast<PacketSink>(upSink.Install(scene.serverNode).Get(0));
    PacketSinkHelper downSink("ns3::TcpSocketFactory",
                              InetSocketAddress(Ipv4Address::GetAny(), downPort));
    ApplicationContainer clientSinks = downSink.Install(scene.clients);
    for (uint32_t i = 0; i < n; ++i)
    {
        BulkSendHelper down("ns3::TcpSocketFactory",
                            InetSocketAddress(scene.clientInterfaces.GetAddress(i), downPort));
        down.SetAttribute("MaxBytes", UintegerValue(bytes));
        down.Install(scene.serverNode).Start(start);
    }
    FlStockExchangeResult result;
    std::vector<uint64_t> received(n, 0);
    for (uint32_t i = 0; i < n; ++i)
    {
        Ptr<PacketSink> sink = DynamicCast<PacketSink>(clientSinks.Get(i));
        sink->TraceConnectWithoutContext(
            "Rx",
            FlCallback<void, Ptr<const Packet>, const Address&>(
                [&, i](Ptr<const Packet> p, const Address&) {
                    const bool wasShort = received[i] < bytes;
                    received[i] += p->GetSize();
                    if (wasShort && received[i] >= bytes)
                    {
                        // the download is complete: the client uploads (installed now, the
                        // node starts it at once)
                        BulkSendHelper up("ns3::TcpSocketFactory",
                                          InetSocketAddress(scene.serverAddress, upPort));
                        up.SetAttribute("MaxBytes", UintegerValue(bytes));
                        up.Install(scene.clients.Get(i)).Start(Seconds(0.0));
                        ++result.uploadsStarted;
                    }
                }));
    }
    serverSink->TraceConnectWithoutContext(
        "Rx",
        FlCallback<void, Ptr<const Packet>, const Address&>(
            [&](Ptr<const Packet>, const Address&) {
                if (serverSink->GetTotalRx() >= bytes * n)
                {
                    Simulator::Stop();
                }
            }));
    Simulator::Stop(stopAt);
    Simulator::Run();
    result.simulatedS = Simulator::Now().GetSeconds();
    result.complete = serverSink->GetTotalRx() >= bytes * n;
    return result;
}

} // namespace ns3

/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * What the FlDatagramEndpoint suites share: two nodes on a point-to-point link (or a LAN) with
 * one endpoint each, messages to send, the deliveries and counters to check.
 */
#ifndef FL_TEST_DATAGRAM_H
#define FL_TEST_DATAGRAM_H

#include "ns3/chunk-feedback.h"
#include "ns3/chunking.h"
#include "ns3/core-module.h"
#include "ns3/csma-helper.h"
#include "ns3/error-model.h"
#include "ns3/fl-datagram-endpoint.h"
#include "ns3/fl-ns3-compat.h"
#include "ns3/inet-socket-address.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-address-helper.h"
#include "ns3/ipv4-header.h"
#include "ns3/model-message.h"
#include "ns3/partial-message.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/ppp-header.h"
#include "ns3/udp-header.h"
#include "ns3/udp-socket-factory.h"
#include "ns3/wire-bytes.h"
#include <algorithm>
#include <gtest/gtest.h>
#include <iostream>
#include <list>
#include <map>
#include <memory>
#include <numeric>
#include <set>

namespace ns3
{
namespace fltest
{


constexpr uint16_t kPort = 9000;
constexpr uint32_t kIdA = 7;
constexpr uint32_t kIdB = 8;

using Bytes = std::shared_ptr<const std::vector<uint8_t>>;

/// A model message (float32 payload) of n parameters: 36 + 4 n bytes.
inline Bytes
ModelMessage(std::size_t n, uint64_t seed)
{
    fl::Rng rng(seed);
    std::normal_distribution<float> g(0.0f, 1.0f);
    Eigen::VectorXf v(static_cast<Eigen::Index>(n));
    for (auto& x : v)
    {
        x = g(rng);
    }
    return std::make_shared<const std::vector<uint8_t>>(
        fl::EncodeMessage({fl::MessageKind::LocalModel, 1, kIdA, fl::kBroadcastId, 10},
                          fl::ParamVector(v),
                          fl::Precision::Float32));
}

/// A message of len random bytes (the endpoint carries any byte string).
inline Bytes
RawMessage(std::size_t len, uint64_t seed)
{
    fl::Rng rng(seed);
    auto v = std::make_shared<std::vector<uint8_t>>(len);
    for (auto& b : *v)
    {
        b = static_cast<uint8_t>(rng());
    }
    return v;
}

struct Delivery
{
    Time at;
    FlDatagramMessage msg;
};

/// Sorted, merged copy of byte ranges.
inline std::vector<fl::IndexRange>
Merged(std::vector<fl::IndexRange> r)
{
    std::sort(r.begin(), r.end(), [](const fl::IndexRange& a, const fl::IndexRange& b) {
        return a.begin < b.begin;
    });
    std::vector<fl::IndexRange> out;
    for (const auto& x : r)
    {
        if (x.begin >= x.end)
        {
            continue;
        }
        if (!out.empty() && x.begin <= out.back().end)
        {
            out.back().end = std::max(out.back().end, x.end);
        }
        else
        {
            out.push_back(x);
        }
    }
    return out;
}

/// Every counter, for comparisons.
inline std::vector<uint64_t>
AllCounters(const FlDatagramStats& s)
{
    return {s.datagramsSent,       s.bytesSent,        s.messagesSent,      s.chunksSent,
            s.chunksRetransmitted, s.probes,           s.messagesAcked,     s.messagesUnacked,
            s.sendErrors,          s.acksSent,         s.nacksSent,         s.datagramsReceived,
            s.bytesReceived,       s.chunksAccepted,   s.chunksDuplicate,   s.chunksLate,
            s.chunksMalformed,     s.feedbackReceived, s.feedbackMalformed, s.chunksLost,
            s.messagesDelivered,   s.messagesPartial,  s.messagesDropped};
}

inline void
ExpectReceiveCountersAddUp(const FlDatagramStats& s)
{
    EXPECT_EQ(s.datagramsReceived,
              s.chunksAccepted + s.chunksDuplicate + s.chunksLate + s.chunksMalformed +
                  s.feedbackReceived + s.feedbackMalformed);
}

/**
 * Two nodes on a 100 Mb/s, 2 ms point-to-point link, a UDP socket and an endpoint on each.
 * Optional packet loss on either device's receive side; chunks dropped by B's error model are
 * recorded (message id -> chunk indices of first transmissions).
 */
class TwoNodes
{
  public:
    TwoNodes(const FlDatagramConfig& cfgA,
             const FlDatagramConfig& cfgB,
             double lossAtB = 0.0,
             double lossAtA = 0.0,
             int64_t stream = 1)
    {
        m_nodes.Create(2);
        PointToPointHelper p2p;
        p2p.SetDeviceAttribute("DataRate", StringValue("100Mb/s"));
        p2p.SetChannelAttribute("Delay", StringValue("2ms"));
        NetDeviceContainer devs = p2p.Install(m_nodes);
        InternetStackHelper internet;
        internet.Install(m_nodes);
        Ipv4AddressHelper ip;
        ip.SetBase("10.1.1.0", "255.255.255.0");
        Ipv4InterfaceContainer ifs = ip.Assign(devs);
        devA = DynamicCast<PointToPointNetDevice>(devs.Get(0));
        devB = DynamicCast<PointToPointNetDevice>(devs.Get(1));
        addrA = InetSocketAddress(ifs.GetAddress(0), kPort);
        addrB = InetSocketAddress(ifs.GetAddress(1), kPort);
        if (lossAtB > 0)
        {
            devB->SetReceiveErrorModel(MakeLoss(lossAtB, stream));
        }
        if (lossAtA > 0)
        {
            devA->SetReceiveErrorModel(MakeLoss(lossAtA, stream + 1));
        }
        devB->TraceConnectWithoutContext("PhyRxDrop", MakeCallback(&TwoNodes::DroppedAtB, this));
        devA->TraceConnectWithoutContext("MacRx", MakeCallback(&TwoNodes::ReceivedAtA, this));
        a = Create<FlDatagramEndpoint>(BoundSocket(m_nodes.Get(0)), kIdA, cfgA);
        b = Create<FlDatagramEndpoint>(BoundSocket(m_nodes.Get(1)), kIdB, cfgB);
        a->SetDeliverCallback(MakeCallback(&TwoNodes::DeliverA, this));
        b->SetDeliverCallback(MakeCallback(&TwoNodes::DeliverB, this));
    }

    Ptr<Node> GetNode(uint32_t i) const
    {
        return m_nodes.Get(i);
    }

    static Ptr<Socket> BoundSocket(Ptr<Node> node, uint16_t port = kPort)
    {
        Ptr<Socket> s = Socket::CreateSocket(node, UdpSocketFactory::GetTypeId());
        EXPECT_EQ(s->Bind(InetSocketAddress(Ipv4Address::GetAny(), port)), 0);
        return s;
    }

    Ptr<FlDatagramEndpoint> a;
    Ptr<FlDatagramEndpoint> b;
    Ptr<PointToPointNetDevice> devA;
    Ptr<PointToPointNetDevice> devB;
    Address addrA;
    Address addrB;
    std::vector<Delivery> atA;
    std::vector<Delivery> atB;
    std::map<uint32_t, std::set<uint32_t>> droppedAtB; ///< first transmissions only
    uint64_t feedbackDroppedAtB{0};
    std::vector<fl::ChunkFeedback> nacksAtA; ///< NACKs that reached A's IP layer

  private:
    static Ptr<RateErrorModel> MakeLoss(double rate, int64_t stream)
    {
        Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
        em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
        em->SetRate(rate);
        em->AssignStreams(stream);
        return em;
    }

    /// The UDP payload of a packet seen by a point-to-point device.
    static std::vector<uint8_t> UdpPayload(Ptr<const Packet> p)
    {
        Ptr<Packet> c = p->Copy();
        PppHeader ppp;
        Ipv4Header ipv4;
        UdpHeader udp;
        c->RemoveHeader(ppp);
        c->RemoveHeader(ipv4);
        c->RemoveHeader(udp);
        std::vector<uint8_t> d(c->GetSize());
        c->CopyData(d.data(), d.size());
        return d;
    }

    void ReceivedAtA(Ptr<const Packet> p)
    {
        const std::vector<uint8_t> d = UdpPayload(p);
        fl::ChunkFeedback fb;
        if (fl::ParseFeedback(d.data(), d.size(), fb) == fl::FeedbackStatus::Ok &&
            fb.type == fl::FeedbackType::Nack)
        {
            nacksAtA.push_back(fb);
        }
    }

    void DroppedAtB(Ptr<const Packet> p)
    {
        const std::vector<uint8_t> d = UdpPayload(p);
        fl::ChunkHeader h;
        if (fl::ParseChunk(d.data(), d.size(), 1u << 30, h) == fl::ChunkStatus::Ok)
        {
            if (h.flags == 0)
            {
                droppedAtB[h.messageId].insert(h.index);
            }
        }
        else
        {
            ++feedbackDroppedAtB;
        }
    }

    void DeliverA(Ptr<FlDatagramEndpoint>, FlDatagramMessage& m)
    {
        atA.push_back({Simulator::Now(), std::move(m)});
    }

    void DeliverB(Ptr<FlDatagramEndpoint>, FlDatagramMessage& m)
    {
        atB.push_back({Simulator::Now(), std::move(m)});
    }

    NodeContainer m_nodes;
};

inline FlDatagramConfig
EndpointConfig(FlHolePolicy policy, uint32_t retryLimit = 10)
{
    FlDatagramConfig c;
    c.holePolicy = policy;
    c.retryLimit = retryLimit;
    return c;
}

/// Bytes a message occupies on the wire as chunks (headers included).
inline uint64_t
ChunkBytes(std::size_t len, std::size_t maxPayload)
{
    return fl::ChunkHeader::kSize * fl::ChunkCount(len, maxPayload) + len;
}

/// The messages the loss tests send from A to B.
inline std::vector<Bytes>
LossWorkload()
{
    return {ModelMessage(50000, 1), // 200 KB
            ModelMessage(0, 2),     // header only
            ModelMessage(2500, 3),  // 10 KB
            RawMessage(1000, 4),    // one chunk
            ModelMessage(12000, 5), // 48 KB
            RawMessage(3000, 6),
            ModelMessage(10, 7),
            RawMessage(0, 8)};
}


} // namespace fltest
} // namespace ns3

#endif // FL_TEST_DATAGRAM_H

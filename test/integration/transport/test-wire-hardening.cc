/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Decoders that cannot be made to allocate or buffer what a forged field declares, over
 * simulated networks: on TCP a forged message length is rejected from its 36 header bytes, the
 * connection that carried it is reset and counted, nothing behind it is buffered, and the valid
 * messages on other connections arrive untouched; the model-size bound (the MaxMessageBytes
 * attribute, the same bound as UDP's) is honoured on TCP; a sender of the older wire version 2
 * is rejected and counted on both transports.
 */
#include "fl-test-task.h"

#include "ns3/chunking.h"
#include "ns3/core-module.h"
#include "ns3/fl-helper.h"
#include "ns3/fl-network-scenarios.h"
#include "ns3/fl-ns3-compat.h"
#include "ns3/fl-transport.h"
#include "ns3/learning-monitor.h"
#include "ns3/model-message.h"
#include "ns3/network-module.h"
#include "ns3/tcp-socket-factory.h"
#include "ns3/udp-socket-factory.h"
#include "ns3/wire-bytes.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

constexpr uint16_t kPort = 7000;

/// A model of n coordinates (1, 2, ..., n) / n.
fl::ParamVector
Model(std::size_t n)
{
    Eigen::VectorXd v(static_cast<Eigen::Index>(n));
    for (Eigen::Index i = 0; i < v.size(); ++i)
    {
        v[i] = static_cast<double>(i + 1) / static_cast<double>(n);
    }
    return fl::ParamVector(v);
}

/// A control message with tag `tag` from node `sender`.
std::vector<uint8_t>
Control(uint32_t sender, uint32_t tag)
{
    std::vector<uint8_t> out;
    const std::vector<uint8_t> payload = fl::PackU32({tag, tag + 1});
    fl::EncodeRawMessage({fl::MessageKind::Control, 1, sender, 0, tag},
                         payload.data(),
                         payload.size(),
                         out);
    return out;
}

/// The same message in wire version 2 (32-byte header without a header CRC).
std::vector<uint8_t>
AsVersion2(const std::vector<uint8_t>& v3)
{
    std::vector<uint8_t> m(v3.size() - 4);
    std::copy(v3.begin(), v3.begin() + 32, m.begin());
    std::copy(v3.begin() + fl::MessageHeader::kSize, v3.end(), m.begin() + 32);
    m[4] = fl::MessageHeader::kOldVersion;
    fl::PutU32(m.data() + 28, fl::MessageCrc(m.data(), m.data() + 32, m.size() - 32));
    return m;
}

/// A server transport on the scene's server node and what it received.
struct Server
{
    Ptr<FlTransport> transport;
    std::vector<FlInboundMessage> got;
    std::vector<Address> closed;

    Server(const FlScene& scene, FlTransportKind kind, uint32_t maxMessageBytes)
    {
        FlTransportConfig cfg;
        cfg.kind = kind;
        cfg.maxMessageBytes = maxMessageBytes;
        cfg.datagram.holePolicy = FlHolePolicy::Drop;
        transport = FlTransport::Create(scene.serverNode, scene.serverNode->GetId(), cfg);
        EXPECT_TRUE(transport->Listen(kPort));
        transport->SetReceiveCallback(
            FlCallback<void, FlInboundMessage&>([this](FlInboundMessage& in) { got.push_back(in); }));
        transport->SetPeerClosedCallback(
            FlCallback<void, const Address&>([this](const Address& a) { closed.push_back(a); }));
    }

    /// Messages received from node `sender`, by their aux field.
    std::vector<uint32_t> TagsFrom(uint32_t sender) const
    {
        std::vector<uint32_t> tags;
        for (const auto& in : got)
        {
            if (in.msg.header.sender == sender)
            {
                tags.push_back(in.msg.header.aux);
            }
        }
        return tags;
    }
};

/// A plain TCP socket on `node` connected to the server, writing whatever bytes it is given.
struct RawTcpClient
{
    Ptr<Socket> socket;
    bool connected{false};
    bool closedByPeer{false};

    RawTcpClient(Ptr<Node> node, const Address& server)
    {
        socket = Socket::CreateSocket(node, TcpSocketFactory::GetTypeId());
        EXPECT_EQ(socket->Bind(), 0);
        socket->SetConnectCallback(
            FlCallback<void, Ptr<Socket>>([this](Ptr<Socket>) { connected = true; }),
            FlCallback<void, Ptr<Socket>>([](Ptr<Socket>) { ADD_FAILURE() << "connect failed"; }));
        socket->SetCloseCallbacks(
            FlCallback<void, Ptr<Socket>>([this](Ptr<Socket>) { closedByPeer = true; }),
            FlCallback<void, Ptr<Socket>>([this](Ptr<Socket>) { closedByPeer = true; }));
        socket->Connect(server);
    }

    void Write(const std::vector<uint8_t>& bytes)
    {
        ASSERT_TRUE(connected);
        ASSERT_LE(bytes.size(), socket->GetTxAvailable());
        EXPECT_EQ(socket->Send(Create<Packet>(bytes.data(), bytes.size())),
                  static_cast<int>(bytes.size()));
    }
};

} // namespace

// A client on its own connection sends a valid message, then a header whose count was forged
// (4 MB declared, header CRC not matching), then 64 KB more, then another valid message. The
// server delivers the first, rejects the forged header from its 36 bytes, resets that connection
// (counted, the peer reported closed), and never holds more than the first message and the
// forged header: none of the 64 KB is buffered, the later valid message is not delivered. The
// same with the header CRC made to match (a forger who knows the format): the size bound
// rejects it. Meanwhile a second client's models on another connection all arrive intact.
TEST(WireHardening, ForgedTcpLengthResetsOnlyItsConnection)
{
    for (bool crcMatches : {false, true})
    {
        SCOPED_TRACE(crcMatches ? "header CRC matching, size above the bound"
                                : "header CRC not matching");
        FlScene scene = FlCsmaSceneHelper().Build(2);
        const uint32_t bound = FlMaxModelMessageBytes(1000);
        Server server(scene, FlTransportKind::Tcp, bound);
        const Address serverAddr = InetSocketAddress(scene.serverAddress, kPort);
        Ptr<Node> good = scene.clients.Get(0);
        Ptr<Node> bad = scene.clients.Get(1);

        FlTransportConfig cfg;
        Ptr<FlTransport> goodTransport = FlTransport::Create(good, good->GetId(), cfg);
        ASSERT_TRUE(goodTransport->Open());
        const fl::ParamVector model = Model(1000);
        for (uint32_t k = 0; k < 6; ++k)
        {
            FlSchedule(Seconds(1.0 + 0.05 * k), [&, k]() {
                goodTransport->SendModel({serverAddr},
                                         {fl::MessageKind::LocalModel, k, 0, 0, 100 + k},
                                         model,
                                         nullptr);
            });
        }

        RawTcpClient forger(bad, serverAddr);
        const std::vector<uint8_t> before = Control(bad->GetId(), 1);
        const std::vector<uint8_t> after = Control(bad->GetId(), 2);
        std::vector<uint8_t> forged = fl::EncodeMessage(
            {fl::MessageKind::LocalModel, 1, bad->GetId(), 0, 3},
            Model(10),
            fl::Precision::Float64);
        forged.resize(fl::MessageHeader::kSize);
        fl::PutU32(forged.data() + 20, 500000); // count: a 4 MB float64 payload
        if (crcMatches)
        {
            fl::PutU32(forged.data() + 32, fl::HeaderCrc(forged.data()));
        }
        std::vector<uint8_t> stream = before;
        stream.insert(stream.end(), forged.begin(), forged.end());
        stream.resize(stream.size() + 64 * 1024, 0x42);
        stream.insert(stream.end(), after.begin(), after.end());
        FlSchedule(Seconds(1.1), [&]() { forger.Write(stream); });

        Simulator::Stop(Seconds(5));
        Simulator::Run();

        EXPECT_EQ(server.TagsFrom(good->GetId()),
                  (std::vector<uint32_t>{100, 101, 102, 103, 104, 105}));
        for (const auto& in : server.got)
        {
            if (in.msg.header.sender == good->GetId())
            {
                EXPECT_TRUE(in.msg.params == model);
            }
        }
        EXPECT_EQ(server.TagsFrom(bad->GetId()), (std::vector<uint32_t>{1}));
        const FlTransportStats st = server.transport->Stats();
        EXPECT_EQ(st.connectionsReset, 1u);
        EXPECT_EQ(st.malformed, 1u);
        EXPECT_EQ(st.messagesDelivered, 7u);
        ASSERT_EQ(server.closed.size(), 1u); // the forger's connection, reported gone
        EXPECT_EQ(InetSocketAddress::ConvertFrom(server.closed[0]).GetIpv4(),
                  scene.clientInterfaces.GetAddress(1));
        EXPECT_TRUE(forger.closedByPeer);
        EXPECT_EQ(goodTransport->Stats().connectFailures, 0u);
        goodTransport->Close();
        server.transport->Close();
        Simulator::Destroy();
    }
}

// What the server held for the forger's connection, alone: the valid message before the forged
// header and the header itself, never the 64 KB behind it.
TEST(WireHardening, ForgedTcpLengthIsRejectedBeforeItsPayloadIsBuffered)
{
    FlScene scene = FlCsmaSceneHelper().Build(1);
    Server server(scene, FlTransportKind::Tcp, FlMaxModelMessageBytes(1000));
    const Address serverAddr = InetSocketAddress(scene.serverAddress, kPort);
    Ptr<Node> bad = scene.clients.Get(0);
    RawTcpClient forger(bad, serverAddr);
    const std::vector<uint8_t> before = Control(bad->GetId(), 1);
    std::vector<uint8_t> stream = before;
    std::vector<uint8_t> forged = fl::EncodeMessage({fl::MessageKind::LocalModel, 1, 0, 0, 3},
                                                    Model(10),
                                                    fl::Precision::Float64);
    forged.resize(fl::MessageHeader::kSize);
    fl::PutU32(forged.data() + 20, 0x0FFFFFFFu); // a 2 GiB payload declared
    stream.insert(stream.end(), forged.begin(), forged.end());
    stream.resize(stream.size() + 64 * 1024, 0x42);
    FlSchedule(Seconds(1), [&]() { forger.Write(stream); });
    Simulator::Stop(Seconds(5));
    Simulator::Run();
    EXPECT_EQ(server.TagsFrom(bad->GetId()), (std::vector<uint32_t>{1}));
    const FlTransportStats st = server.transport->Stats();
    EXPECT_EQ(st.connectionsReset, 1u);
    EXPECT_LE(st.rxPeakBuffered, before.size() + fl::MessageHeader::kSize);
    EXPECT_GT(st.bytesReceived, before.size() + fl::MessageHeader::kSize); // more came, unheld
    server.transport->Close();
    Simulator::Destroy();
}

// The bound is the whole message: a model message of exactly the bound arrives, one byte more
// resets the connection before its payload is taken.
TEST(WireHardening, TcpHonoursTheModelSizeBound)
{
    const fl::ParamVector model = Model(1000);
    const uint32_t size = fl::MessageHeader::kSize + 8000;
    for (uint32_t bound : {size, size - 1})
    {
        SCOPED_TRACE("bound " + std::to_string(bound));
        FlScene scene = FlCsmaSceneHelper().Build(1);
        Server server(scene, FlTransportKind::Tcp, bound);
        const Address serverAddr = InetSocketAddress(scene.serverAddress, kPort);
        Ptr<Node> client = scene.clients.Get(0);
        Ptr<FlTransport> t = FlTransport::Create(client, client->GetId(), FlTransportConfig());
        ASSERT_TRUE(t->Open());
        FlSchedule(Seconds(1), [&]() {
            t->SendModel({serverAddr}, {fl::MessageKind::LocalModel, 1, 0, 0, 7}, model, nullptr);
        });
        Simulator::Stop(Seconds(5));
        Simulator::Run();
        const FlTransportStats st = server.transport->Stats();
        if (bound == size)
        {
            ASSERT_EQ(server.got.size(), 1u);
            EXPECT_TRUE(server.got[0].msg.params == model);
            EXPECT_EQ(st.connectionsReset, 0u);
        }
        else
        {
            EXPECT_TRUE(server.got.empty());
            EXPECT_EQ(st.connectionsReset, 1u);
            EXPECT_EQ(st.malformed, 1u);
            EXPECT_LE(st.rxPeakBuffered, std::size_t(fl::MessageHeader::kSize));
        }
        t->Close();
        server.transport->Close();
        Simulator::Destroy();
    }
    EXPECT_THROW(FlTransport::Create(nullptr, 0, [] {
                     FlTransportConfig c;
                     c.maxMessageBytes = fl::MessageHeader::kSize - 1;
                     return c;
                 }()),
                 fl::ConfigError);
}

// A sender of the older wire version 2 is rejected with its own counted status: on TCP from its
// first 5 bytes (the connection is reset), on UDP when its message is decoded.
TEST(WireHardening, OldWireVersionIsRejectedAndCountedOnBothTransports)
{
    const std::vector<uint8_t> v3 =
        fl::EncodeMessage({fl::MessageKind::LocalModel, 1, 1, 0, 5}, Model(300), fl::Precision::Float32);
    const std::vector<uint8_t> v2 = AsVersion2(v3);
    {
        FlScene scene = FlCsmaSceneHelper().Build(1);
        Server server(scene, FlTransportKind::Tcp, FlMaxModelMessageBytes(300));
        RawTcpClient old(scene.clients.Get(0), InetSocketAddress(scene.serverAddress, kPort));
        FlSchedule(Seconds(1), [&]() { old.Write(v2); });
        Simulator::Stop(Seconds(5));
        Simulator::Run();
        const FlTransportStats st = server.transport->Stats();
        EXPECT_TRUE(server.got.empty());
        EXPECT_EQ(st.oldVersion, 1u);
        EXPECT_EQ(st.malformed, 1u);
        EXPECT_EQ(st.connectionsReset, 1u);
        EXPECT_LE(st.rxPeakBuffered, std::size_t(fl::MessageHeader::kPrefixSize));
        server.transport->Close();
        Simulator::Destroy();
    }
    {
        FlScene scene = FlCsmaSceneHelper().Build(1);
        Server server(scene, FlTransportKind::Udp, FlMaxModelMessageBytes(300));
        Ptr<Socket> raw = Socket::CreateSocket(scene.clients.Get(0), UdpSocketFactory::GetTypeId());
        ASSERT_EQ(raw->Bind(), 0);
        const auto chunks = fl::Fragment(v2.data(), v2.size(), 1, 1, 1, 1432);
        FlSchedule(Seconds(1), [&]() {
            for (const auto& c : chunks)
            {
                raw->SendTo(Create<Packet>(c.data(), c.size()),
                            0,
                            InetSocketAddress(scene.serverAddress, kPort));
            }
        });
        Simulator::Stop(Seconds(5));
        Simulator::Run();
        const FlTransportStats st = server.transport->Stats();
        EXPECT_TRUE(server.got.empty());
        EXPECT_EQ(st.oldVersion, 1u);
        EXPECT_EQ(st.malformed, 1u);
        server.transport->Close();
        Simulator::Destroy();
    }
}

// The applications' MaxMessageBytes attribute reaches the TCP transport: a FedAvg server bounded
// below its clients' model messages resets every client connection at the first upload (and
// aggregates nothing); bounded at exactly one model message, it runs normally.
TEST(WireHardening, MaxMessageBytesAttributeBoundsTcp)
{
    auto task = fltest::MakeTask<double>(2, "softmax", 8);
    const uint32_t modelMessage =
        fl::MessageHeader::kSize + 8u * static_cast<uint32_t>(task->NumParameters());
    for (uint32_t bound : {modelMessage, modelMessage - 1})
    {
        SCOPED_TRACE("bound " + std::to_string(bound));
        FlScene scene = FlCsmaSceneHelper().Build(2);
        FlFedAvgHelper fedavg(task);
        fedavg.SetServerAttribute("Rounds", UintegerValue(2));
        fedavg.SetServerAttribute("RoundDeadline", TimeValue(Seconds(2)));
        fedavg.SetServerAttribute("MaxMessageBytes", UintegerValue(bound));
        fedavg.SetClientAttribute("SecondsPerSample", DoubleValue(1e-4));
        FlFedAvgStack stack = fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress);
        FlFedAvgHelper::AssignStreams(stack, 7);
        Simulator::Stop(Seconds(20));
        Simulator::Run();
        const auto counters = stack.server->GetCounters();
        const auto records = stack.monitor->GetRecords();
        if (bound == modelMessage)
        {
            EXPECT_TRUE(stack.server->IsFinished());
            EXPECT_EQ(counters.malformed, 0u);
            ASSERT_EQ(records.size(), 3u);
            EXPECT_EQ(records[1].status, "aggregated");
            EXPECT_EQ(records[1].participants, 2u);
        }
        else
        {
            EXPECT_EQ(counters.malformed, 2u);
            EXPECT_EQ(counters.disconnects, 2u);
            for (std::size_t r = 1; r < records.size(); ++r)
            {
                EXPECT_NE(records[r].status, "aggregated");
                EXPECT_EQ(records[r].participants, 0u);
            }
        }
        Simulator::Destroy();
    }
}

/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/fl-transport.h"

#include "ns3/boolean.h"
#include "ns3/fl-flow-network.h"
#include "ns3/inet-socket-address.h"
#include "ns3/log.h"
#include "ns3/payload-codec.h"
#include "ns3/tcp-socket-factory.h"
#include "ns3/udp-socket-factory.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <deque>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlTransport");

uint32_t
FlMaxModelMessageBytes(std::size_t parameters)
{
    constexpr uint64_t kControlSlack = 4096;
    constexpr uint64_t kMax = 0xFFFFFFFFull;
    if (parameters > kMax / 8)
    {
        return static_cast<uint32_t>(kMax);
    }
    const uint64_t bytes = fl::MessageHeader::kSize +
                           fl::EncodedSize(fl::WireEncoding::Float64, parameters) + kControlSlack;
    return static_cast<uint32_t>(std::min(bytes, kMax));
}

FlTransport::FlTransport(uint32_t localId, const FlTransportConfig& config)
    : m_localId(localId),
      m_config(config)
{
}

FlTransport::~FlTransport() = default;

void
FlTransport::SetReceiveCallback(ReceiveCallback cb)
{
    m_receive = cb;
}

void
FlTransport::SetPeerClosedCallback(PeerClosedCallback cb)
{
    m_peerClosed = cb;
}

void
FlTransport::SetMessageLostCallback(MessageLostCallback cb)
{
    m_messageLost = cb;
}

void
FlTransport::SetBaseModelProvider(BaseModelProvider provider)
{
    m_baseModel = std::move(provider);
}

void
FlTransport::SendModel(const std::vector<Address>& to,
                       fl::MessageAddress header,
                       const fl::ParamVector& params,
                       fl::Rng* quantRng)
{
    header.sender = m_localId;
    auto bytes = std::make_shared<std::vector<uint8_t>>();
    fl::EncodeMessage(header, params, m_config.wire, quantRng, *bytes);
    for (const auto& a : to)
    {
        ++m_messagesSent;
        SendBytes(a, header.round, bytes);
    }
}

bool
FlTransport::BroadcastModel(fl::MessageAddress header,
                            const fl::ParamVector& params,
                            fl::Rng* quantRng)
{
    if (!CanBroadcast())
    {
        return false;
    }
    header.sender = m_localId;
    auto bytes = std::make_shared<std::vector<uint8_t>>();
    fl::EncodeMessage(header, params, m_config.wire, quantRng, *bytes);
    ++m_messagesSent;
    SendBytes(BroadcastDestination(), header.round, bytes);
    return true;
}

bool
FlTransport::CanBroadcast() const
{
    return false;
}

Address
FlTransport::BroadcastDestination() const
{
    return Address();
}

void
FlTransport::SendRaw(const Address& to, fl::MessageAddress header, const std::vector<uint8_t>& data)
{
    header.sender = m_localId;
    auto bytes = std::make_shared<std::vector<uint8_t>>();
    fl::EncodeRawMessage(header, data.data(), data.size(), *bytes);
    ++m_messagesSent;
    SendBytes(to, header.round, bytes);
}

void
FlTransport::SendSignal(const std::vector<Address>& to, fl::MessageAddress header)
{
    SendModel(to, header, fl::ParamVector(), nullptr);
}

void
FlTransport::SendAgain(const FlLostMessage& lost)
{
    if (!lost.outgoing || !lost.bytes)
    {
        return;
    }
    ++m_messagesSent;
    SendBytes(lost.peer, lost.round, lost.bytes);
}

bool
FlTransport::DeliversPartial() const
{
    return false;
}

void
FlTransport::FlushPartial()
{
}

void
FlTransport::DiscardBefore(uint32_t /* round */)
{
}

FlDatagramStats
FlTransport::DatagramStats() const
{
    return FlDatagramStats();
}

std::map<uint32_t, FlChunkTally>
FlTransport::ChunkTallies(uint32_t /* round */) const
{
    return {};
}

void
FlTransport::Deliver(FlInboundMessage& in)
{
    ++m_delivered;
    if (!m_receive.IsNull())
    {
        m_receive(in);
    }
}

namespace
{

/// Reliable stream transport: one TCP connection per peer, FlMessageSocket framing.
class FlTcpTransport : public FlTransport
{
  public:
    FlTcpTransport(Ptr<Node> node, uint32_t localId, const FlTransportConfig& config)
        : FlTransport(localId, config),
          m_node(node)
    {
    }

    ~FlTcpTransport() override
    {
        Close();
    }

    bool Listen(uint16_t port) override
    {
        m_listen = NewSocket();
        if (m_listen->Bind(InetSocketAddress(Ipv4Address::GetAny(), port)) != 0)
        {
            return false;
        }
        m_listen->Listen();
        m_listen->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                    MakeCallback(&FlTcpTransport::HandleAccept, this));
        return true;
    }

    bool Open() override
    {
        return true; // connections are opened by the first Send to a peer
    }

    void Close() override
    {
        m_closed = true;
        for (auto& c : m_connections)
        {
            c->Close();
        }
        for (auto& kv : m_connecting)
        {
            kv.second.socket->Close();
        }
        m_connecting.clear();
        if (m_listen)
        {
            m_listen->Close();
            m_listen = nullptr;
        }
    }

    void Abandon() override
    {
        m_closed = true;
        for (auto& c : m_connections)
        {
            c->GetSocket()->SetCloseCallbacks(MakeNullCallback<void, Ptr<Socket>>(),
                                              MakeNullCallback<void, Ptr<Socket>>());
            c->Detach();
        }
        for (auto& kv : m_connecting)
        {
            kv.second.socket->SetConnectCallback(MakeNullCallback<void, Ptr<Socket>>(),
                                                 MakeNullCallback<void, Ptr<Socket>>());
        }
        m_connecting.clear();
        if (m_listen)
        {
            m_listen->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                        MakeNullCallback<void, Ptr<Socket>, const Address&>());
            m_listen = nullptr;
        }
    }

    bool IsReliable() const override
    {
        return true;
    }

    void ClosePeer(const Address& peer) override
    {
        auto open = m_byAddress.find(peer);
        if (open != m_byAddress.end())
        {
            Ptr<FlMessageSocket> conn = open->second;
            m_byAddress.erase(open); // its close is no peer's close any more
            conn->Close();
        }
        auto pending = m_connecting.find(peer);
        if (pending != m_connecting.end())
        {
            pending->second.socket->SetConnectCallback(MakeNullCallback<void, Ptr<Socket>>(),
                                                       MakeNullCallback<void, Ptr<Socket>>());
            pending->second.socket->Close();
            m_messagesUnsent += pending->second.queue.size();
            m_connecting.erase(pending);
        }
    }

    FlTransportStats Stats() const override
    {
        FlTransportStats s;
        for (const auto& c : m_connections)
        {
            s.bytesSent += c->BytesSent();
            s.bytesReceived += c->BytesReceived();
            s.malformed += c->RxStats().malformedHeaders + c->RxStats().crcErrors;
            s.oldVersion += c->RxStats().oldVersionHeaders;
            s.tooLarge += c->RxStats().tooLarge;
            s.connectionsReset += c->StreamFailed() ? 1 : 0;
            s.rxPeakBuffered = std::max(s.rxPeakBuffered, c->RxStats().peakBuffered);
        }
        s.messagesSent = m_messagesSent;
        s.messagesDelivered = m_delivered;
        s.malformed += m_malformed;
        s.oldVersion += m_oldVersion;
        s.connectFailures = m_connectFailures;
        s.messagesUnsent = m_messagesUnsent;
        return s;
    }

  protected:
    void SendBytes(const Address& to,
                   uint32_t /* round */,
                   std::shared_ptr<const std::vector<uint8_t>> bytes) override
    {
        if (m_closed)
        {
            return;
        }
        auto it = m_byAddress.find(to);
        if (it != m_byAddress.end())
        {
            it->second->Send(std::move(bytes));
            return;
        }
        auto pending = m_connecting.find(to);
        if (pending == m_connecting.end())
        {
            Pending p;
            p.socket = NewSocket();
            if (p.socket->Bind() != 0)
            {
                NS_LOG_WARN("cannot bind a TCP socket on node " << m_node->GetId());
                return;
            }
            p.socket->SetConnectCallback(MakeCallback(&FlTcpTransport::Connected, this),
                                         MakeCallback(&FlTcpTransport::ConnectFailed, this));
            p.socket->Connect(to);
            pending = m_connecting.emplace(to, p).first;
        }
        pending->second.queue.push_back(std::move(bytes));
    }

  private:
    struct Pending
    {
        Ptr<Socket> socket;
        std::deque<std::shared_ptr<const std::vector<uint8_t>>> queue;
    };

    Ptr<Socket> NewSocket() const
    {
        Ptr<Socket> s = Socket::CreateSocket(m_node, TcpSocketFactory::GetTypeId());
        if (m_config.tcpSegmentSize > 0)
        {
            s->SetAttribute("SegmentSize", UintegerValue(m_config.tcpSegmentSize));
        }
        // See FlTransportConfig::tcpTimestamps. Accepted sockets inherit it from the listener.
        s->SetAttribute("Timestamp", BooleanValue(m_config.tcpTimestamps));
        s->SetAttribute("MinRto", TimeValue(m_config.tcpMinRto)); // inherited likewise
        s->SetAttribute("ConnTimeout", TimeValue(m_config.tcpConnTimeout));
        return s;
    }

    Ptr<FlMessageSocket> Adopt(Ptr<Socket> socket, const Address& peer)
    {
        Ptr<FlMessageSocket> conn =
            ns3::Create<FlMessageSocket>(socket, m_config.decodeTo, m_config.maxMessageBytes);
        conn->SetReceiveCallback(MakeCallback(&FlTcpTransport::HandleMessage, this));
        conn->SetStreamErrorCallback(MakeCallback(&FlTcpTransport::HandleStreamError, this));
        socket->SetCloseCallbacks(MakeCallback(&FlTcpTransport::HandleClose, this),
                                  MakeCallback(&FlTcpTransport::HandleClose, this));
        m_connections.push_back(conn);
        m_byAddress[peer] = conn;
        m_addressOf[PeekPointer(conn)] = peer;
        return conn;
    }

    void HandleAccept(Ptr<Socket> socket, const Address& from)
    {
        NS_LOG_FUNCTION(this << socket << from);
        Adopt(socket, from);
    }

    void Connected(Ptr<Socket> socket)
    {
        for (auto it = m_connecting.begin(); it != m_connecting.end(); ++it)
        {
            if (it->second.socket == socket)
            {
                Ptr<FlMessageSocket> conn = Adopt(socket, it->first);
                for (auto& b : it->second.queue)
                {
                    conn->Send(std::move(b));
                }
                m_connecting.erase(it);
                return;
            }
        }
    }

    void ConnectFailed(Ptr<Socket> socket)
    {
        NS_LOG_WARN("node " << m_node->GetId() << ": a TCP connection failed");
        ++m_connectFailures;
        for (auto it = m_connecting.begin(); it != m_connecting.end(); ++it)
        {
            if (it->second.socket == socket)
            {
                // the queued messages are lost, and counted (Stats().messagesUnsent)
                m_messagesUnsent += it->second.queue.size();
                m_connecting.erase(it);
                return;
            }
        }
    }

    void HandleMessage(Ptr<FlMessageSocket> conn, fl::ReceivedMessage& msg)
    {
        FlInboundMessage in;
        in.from = m_addressOf[PeekPointer(conn)];
        in.msg = std::move(msg);
        Deliver(in);
    }

    /// A malformed header ended a stream; the connection is closed: the peer is gone, as if it
    /// had closed it (the next Send to it opens a new connection).
    void HandleStreamError(Ptr<FlMessageSocket> conn)
    {
        NS_LOG_WARN("node " << m_node->GetId() << ": connection from "
                            << m_addressOf[PeekPointer(conn)]
                            << " reset after a malformed message header");
        HandleClose(conn->GetSocket());
    }

    void HandleClose(Ptr<Socket> socket)
    {
        for (auto& kv : m_byAddress)
        {
            if (kv.second->GetSocket() == socket)
            {
                const Address peer = kv.first;
                m_byAddress.erase(kv.first);
                if (!m_peerClosed.IsNull())
                {
                    m_peerClosed(peer);
                }
                return;
            }
        }
    }

    Ptr<Node> m_node;
    Ptr<Socket> m_listen;
    bool m_closed{false};
    std::vector<Ptr<FlMessageSocket>> m_connections;     ///< every connection ever (for counters)
    std::map<Address, Ptr<FlMessageSocket>> m_byAddress; ///< open connections by peer address
    std::map<const FlMessageSocket*, Address> m_addressOf;
    std::map<Address, Pending> m_connecting;
    uint64_t m_connectFailures{0}; ///< connections that failed to open
    uint64_t m_messagesUnsent{0};  ///< messages queued on them
};

/// Datagram transport: FlDatagramEndpoint (paced chunks, reassembly, hole policies).
class FlUdpTransport : public FlTransport
{
  public:
    FlUdpTransport(Ptr<Node> node, uint32_t localId, const FlTransportConfig& config)
        : FlTransport(localId, config),
          m_node(node)
    {
    }

    ~FlUdpTransport() override
    {
        Close();
    }

    bool Listen(uint16_t port) override
    {
        m_port = port;
        return Bind(InetSocketAddress(Ipv4Address::GetAny(), port));
    }

    bool CanBroadcast() const override
    {
        return m_endpoint && m_port != 0 && m_config.broadcastAddress != Ipv4Address::GetAny();
    }

    bool Open() override
    {
        Ptr<Socket> s = Socket::CreateSocket(m_node, UdpSocketFactory::GetTypeId());
        if (s->Bind() != 0)
        {
            return false;
        }
        Start(s);
        return true;
    }

    void Close() override
    {
        if (m_endpoint)
        {
            m_endpoint->Close();
        }
    }

    bool IsReliable() const override
    {
        return false;
    }

    bool DeliversPartial() const override
    {
        return m_config.datagram.holePolicy == FlHolePolicy::KeepPrevious;
    }

    void FlushPartial() override
    {
        if (m_endpoint && DeliversPartial())
        {
            m_endpoint->FlushIncomplete();
        }
    }

    void DiscardBefore(uint32_t round) override
    {
        if (m_endpoint)
        {
            m_endpoint->DiscardBefore(round);
        }
    }

    FlTransportStats Stats() const override
    {
        FlTransportStats s;
        const FlDatagramStats d = DatagramStats();
        s.bytesSent = d.bytesSent;
        s.bytesReceived = d.bytesReceived;
        s.messagesSent = m_messagesSent;
        s.messagesDelivered = m_delivered;
        s.malformed = m_malformed + d.chunksMalformed + d.feedbackMalformed;
        s.tooLarge = d.chunksTooLarge;
        s.oldVersion = m_oldVersion;
        s.chunksLost = d.chunksLost;
        s.chunksRetransmitted = d.chunksRetransmitted;
        return s;
    }

    FlDatagramStats DatagramStats() const override
    {
        return m_endpoint ? m_endpoint->Stats() : FlDatagramStats();
    }

    std::map<uint32_t, FlChunkTally> ChunkTallies(uint32_t round) const override
    {
        return m_endpoint ? m_endpoint->ChunkTallies(round) : std::map<uint32_t, FlChunkTally>();
    }

  protected:
    Address BroadcastDestination() const override
    {
        return InetSocketAddress(m_config.broadcastAddress, m_port);
    }

    void SendBytes(const Address& to,
                   uint32_t round,
                   std::shared_ptr<const std::vector<uint8_t>> bytes) override
    {
        if (m_endpoint)
        {
            m_endpoint->Send(to, round, std::move(bytes));
        }
    }

  private:
    bool Bind(const Address& local)
    {
        Ptr<Socket> s = Socket::CreateSocket(m_node, UdpSocketFactory::GetTypeId());
        if (s->Bind(local) != 0)
        {
            return false;
        }
        Start(s);
        return true;
    }

    void Start(Ptr<Socket> s)
    {
        if (m_config.broadcastAddress != Ipv4Address::GetAny())
        {
            s->SetAllowBroadcast(true);
        }
        m_endpoint = ns3::Create<FlDatagramEndpoint>(s, m_localId, m_config.datagram);
        m_endpoint->SetDeliverCallback(MakeCallback(&FlUdpTransport::HandleDatagram, this));
        // keep-previous: a message with no base model to fill holes from (e.g. a client's
        // first global model) is completed by retransmission instead.
        m_endpoint->SetCanFillHolesCallback([this](uint32_t sender, uint32_t round) {
            return m_baseModel && m_baseModel(sender, round) != nullptr;
        });
        m_endpoint->SetGiveUpCallback([this](const FlGivenUpMessage& g) { HandleGiveUp(g); });
    }

    void HandleGiveUp(const FlGivenUpMessage& g)
    {
        if (m_messageLost.IsNull())
        {
            return;
        }
        FlLostMessage lost;
        lost.outgoing = g.outgoing;
        lost.peer = g.peer;
        lost.round = g.round;
        if (g.outgoing && g.bytes && g.bytes->size() >= fl::MessageHeader::kSize &&
            fl::ParseHeader(g.bytes->data(), UINT32_MAX, lost.header) != fl::HeaderStatus::Ok)
        {
            return; // not a message of ours: nothing to tell
        }
        lost.bytes = g.bytes;
        m_messageLost(lost);
    }

    void HandleDatagram(Ptr<FlDatagramEndpoint> /* ep */, FlDatagramMessage& dm)
    {
        NS_LOG_FUNCTION(this << dm.sender << dm.round << dm.complete);
        FlInboundMessage in;
        in.from = dm.from;
        in.complete = dm.complete;
        const fl::ParamVector* base =
            (dm.complete || !m_baseModel) ? nullptr : m_baseModel(dm.sender, dm.round);
        const fl::MessageDecodeStatus st =
            DecodeDatagramMessage(dm, base, m_config.decodeTo, in.msg, &in.filledCoordinates);
        if (st != fl::MessageDecodeStatus::Ok || in.msg.header.sender != dm.sender)
        {
            NS_LOG_INFO("undecodable datagram message from " << dm.sender << ": "
                                                             << fl::MessageDecodeStatusName(st));
            ++m_malformed;
            if (st == fl::MessageDecodeStatus::OldVersion)
            {
                ++m_oldVersion;
            }
            return;
        }
        Deliver(in);
    }

    Ptr<Node> m_node;
    Ptr<FlDatagramEndpoint> m_endpoint;
    uint16_t m_port{0}; ///< listen port (0: ephemeral, no broadcast)
};

} // namespace

Ptr<FlTransport>
FlTransport::Create(Ptr<Node> node, uint32_t localId, const FlTransportConfig& config)
{
    if (config.broadcastAddress != Ipv4Address::GetAny())
    {
        if (config.kind != FlTransportKind::Udp)
        {
            throw fl::ConfigError("broadcastAddress",
                                  "is set on a TCP transport",
                                  "broadcast needs the udp transport");
        }
        if (config.datagram.holePolicy != FlHolePolicy::Drop)
        {
            throw fl::ConfigError("HolePolicy",
                                  std::string("is ") +
                                      FlHolePolicyName(config.datagram.holePolicy) +
                                      " with a broadcast address",
                                  "use drop: a broadcast has no single receiver to ACK or NACK");
        }
    }
    if (config.maxMessageBytes < fl::MessageHeader::kSize)
    {
        throw fl::ConfigError("maxMessageBytes",
                              std::to_string(config.maxMessageBytes) +
                                  " bytes is less than one model message header",
                              "use FlMaxModelMessageBytes(parameters) of the task's model");
    }
    FlTransportConfig c = config;
    c.datagram.maxMessageBytes = config.maxMessageBytes; // one bound for both transports
    if (c.kind == FlTransportKind::Udp)
    {
        // Validates the datagram settings (throws fl::ConfigError naming the field).
        return Ptr<FlTransport>(new FlUdpTransport(node, localId, c), false);
    }
    if (c.kind == FlTransportKind::Flow)
    {
        return Ptr<FlTransport>(new FlFlowTransport(node, localId, c), false);
    }
    return Ptr<FlTransport>(new FlTcpTransport(node, localId, c), false);
}

} // namespace ns3

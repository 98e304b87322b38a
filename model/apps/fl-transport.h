/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The transport seam: how FL applications move messages between nodes. One interface for a
 * reliable stream transport (TCP) and a datagram transport (UDP with chunking and hole
 * policies); encoding and decoding happen behind it, so applications have one receive path and
 * no transport branches.
 */
#ifndef FL_TRANSPORT_H
#define FL_TRANSPORT_H

#include "ns3/address.h"
#include "ns3/callback.h"
#include "ns3/fl-datagram-endpoint.h"
#include "ns3/fl-message-socket.h"
#include "ns3/ipv4-address.h"
#include "ns3/model-message.h"
#include "ns3/node.h"
#include "ns3/ptr.h"
#include "ns3/simple-ref-count.h"

#include <functional>
#include <map>
#include <memory>
#include <vector>

namespace ns3
{

/**
 * \ingroup fl-apps
 * The largest message an FL node needs to receive for a model of `parameters` coordinates: a
 * model message in the widest wire encoding (float64) plus 4 KiB for control messages. The
 * default bound of incoming messages on both transports (FlTransportConfig::maxMessageBytes):
 * declared sizes above it are rejected before anything is allocated or buffered.
 * @return the bound, saturated at 4 GiB - 1
 */
uint32_t FlMaxModelMessageBytes(std::size_t parameters);

/**
 * \ingroup fl-apps
 * Kind of transport.
 */
enum class FlTransportKind : uint8_t
{
    Tcp = 0, ///< one TCP connection per peer (reliable, flow-controlled)
    Udp = 1, ///< UDP datagrams: messages split into chunks, holes handled by a policy
    /// whole messages over a flow-level model of the links (FlFlowNetwork): TCP's bytes, no
    /// packets; needs a scene built in flow fidelity
    Flow = 2,
};

/**
 * \ingroup fl-apps
 * A message delivered by a transport: decoded, with the address it came from.
 */
struct FlInboundMessage
{
    Address from;                  ///< transport address of the sender (InetSocketAddress)
    fl::ReceivedMessage msg;       ///< header and decoded payload
    bool complete{true};           ///< false: holes were filled from the receiver's base model
    uint64_t filledCoordinates{0}; ///< coordinates taken from the base model (holes)
};

/**
 * \ingroup fl-apps
 * A message a datagram transport gave up (FlTransport's MessageLostCallback): an outgoing one
 * no acknowledgement came for after its probes, or an incoming one that stayed incomplete
 * after its retries (see FlGivenUpMessage). Reliable transports never report one: their lost
 * peers close (PeerClosedCallback).
 */
struct FlLostMessage
{
    bool outgoing{false}; ///< true: sent by this transport; false: received (incomplete)
    Address peer;         ///< the destination, or the address the chunks came from
    uint32_t round{0};    ///< the round of its chunks
    /// outgoing: the message's header (kind, receiver, aux); incoming: default (not known)
    fl::MessageHeader header;
    /// outgoing: the encoded message (shared), for SendAgain; incoming: null
    std::shared_ptr<const std::vector<uint8_t>> bytes;
};

/**
 * \ingroup fl-apps
 * Counters of a transport (all peers).
 */
struct FlTransportStats
{
    uint64_t bytesSent{0};         ///< payload bytes handed to sockets (TCP stream, UDP datagrams)
    uint64_t bytesReceived{0};     ///< bytes read from sockets
    uint64_t messagesSent{0};      ///< messages given to Send (one per destination)
    uint64_t messagesDelivered{0}; ///< messages delivered to the application
    uint64_t malformed{0};         ///< messages or streams rejected (header, CRC, undecodable)
    uint64_t oldVersion{0};        ///< of which: in the older wire version 2 (outdated sender)
    uint64_t connectionsReset{0};  ///< TCP connections closed because a header failed
    uint64_t tooLarge{0};          ///< of the malformed: messages (TCP) or chunks (UDP) declaring
                                   ///< more than maxMessageBytes
    /// TCP: most bytes one connection held at once for messages not delivered yet (at most one
    /// message of maxMessageBytes and one socket read; nothing behind a failed header).
    uint64_t rxPeakBuffered{0};
    uint64_t chunksLost{0};        ///< UDP chunks given up or left as holes
    uint64_t chunksRetransmitted{0}; ///< UDP chunks sent again
    uint64_t connectFailures{0};     ///< TCP connections that could not be opened
    uint64_t messagesUnsent{0};      ///< messages dropped with a connection that failed to open
};

/**
 * \ingroup fl-apps
 * The settings of a transport.
 */
struct FlTransportConfig
{
    FlTransportKind kind{FlTransportKind::Tcp};       ///< TCP or UDP
    fl::WireEncoding wire{fl::WireEncoding::Float64}; ///< encoding of model payloads
    fl::Precision decodeTo{fl::Precision::Float64};   ///< precision of decoded models
    uint32_t tcpSegmentSize{1448};                    ///< TCP segment size (0 = default)
    /**
     * TCP timestamps (RFC 7323) on this transport's sockets. Off by default: ns-3.37 updates
     * the timestamp it echoes only while the segment's sequence number is at most the last
     * acknowledgement sent in a pure ACK, and an FL connection whose messages fit in a few
     * segments acknowledges by piggy-backing on its next message; the echo then stays at
     * the handshake's, every RTT sample is the connection's age, and the retransmission timeout
     * grows with it (a lost segment waits that long; each segment leaves a cancelled timer of
     * that horizon in the scheduler). Without timestamps RTT is timed from the send history.
     */
    bool tcpTimestamps{false};
    /**
     * TCP's minimum retransmission timeout on this transport's sockets (ns3::TcpSocketBase
     * MinRto; ns-3's default is 1 s, as RFC 6298 recommends; Linux uses 200 ms). Every segment
     * re-arms its connection's retransmission timer and ns-3 cancels events lazily, so the
     * scheduler holds a cancelled timer for each segment sent within the last timeout: a
     * shorter minimum holds fewer. It changes a run only where a timeout fires. Positive.
     */
    Time tcpMinRto{Seconds(1)};
    /**
     * Time before this transport's sockets send a SYN again (ns3::TcpSocket::ConnTimeout, which
     * ns-3 doubles after each retry): 1 s, the initial retransmission timeout of RFC 6298
     * (section 2.1) that Linux uses too; ns-3's default is 3 s. Positive.
     */
    Time tcpConnTimeout{Seconds(1)};
    /**
     * Largest incoming message (header and payload) on either transport: a TCP stream whose
     * header declares more is closed before any of its payload is buffered; a UDP chunk
     * declaring more is malformed. It replaces datagram.maxMessageBytes. Use
     * FlMaxModelMessageBytes of the task's model (the applications do).
     */
    uint32_t maxMessageBytes{fl::kDefaultMaxMessageBytes};
    FlDatagramConfig datagram; ///< UDP settings (its maxMessageBytes is set from the above)
    /**
     * UDP only: the subnet broadcast address of the node's link (e.g. 10.1.255.255), or 0.0.0.0
     * (default) for none. When set, BroadcastModel sends one datagram sequence to it at the
     * listen port: one link-layer broadcast, heard by every node in range (802.11 broadcast
     * frames get no MAC ACK and no retry). Needs datagram.holePolicy = Drop: a broadcast has
     * no single receiver to give feedback.
     */
    Ipv4Address broadcastAddress{Ipv4Address::GetAny()};
};

/**
 * \ingroup fl-apps
 * Moves messages between FL nodes. Create one with FlTransport::Create, set the callbacks, then
 * Listen (accept peers on a port) or Open (an ephemeral port; peers are reached by Send).
 * Any node may send to any node whose address it knows: clients to servers, servers to
 * servers, peers to peers.
 */
class FlTransport : public SimpleRefCount<FlTransport>
{
  public:
    /// Receives every decoded message.
    using ReceiveCallback = Callback<void, FlInboundMessage&>;
    /// A reliable peer closed its connection (never called by datagram transports).
    using PeerClosedCallback = Callback<void, const Address&>;
    /// A message was given up (datagram transports only; see FlLostMessage).
    using MessageLostCallback = Callback<void, const FlLostMessage&>;
    /**
     * The receiver's base model for a partial message from `sender` (node id) of `round`,
     * whose holes are filled from it (UDP keep-previous); nullptr if there is none (the message
     * is then undecodable and counted as malformed).
     */
    using BaseModelProvider =
        std::function<const fl::ParamVector*(uint32_t sender, uint32_t round)>;

    /**
     * @param node the node the transport's sockets live on
     * @param localId the node-level id written into every message this transport sends
     * @param config the settings (throws fl::ConfigError naming the field if invalid)
     * @return a TCP, UDP or flow-level transport (Flow: throws fl::ConfigError if the node is
     *         not in an FlFlowNetwork)
     */
    static Ptr<FlTransport> Create(Ptr<Node> node,
                                   uint32_t localId,
                                   const FlTransportConfig& config);

    virtual ~FlTransport();

    /// Sets the receive callback.
    void SetReceiveCallback(ReceiveCallback cb);
    /// Sets the peer-closed callback.
    void SetPeerClosedCallback(PeerClosedCallback cb);
    /// Sets the message-lost callback.
    void SetMessageLostCallback(MessageLostCallback cb);
    /// Sets the provider of base models for partial messages.
    void SetBaseModelProvider(BaseModelProvider provider);

    /// Accepts peers on `port`; returns false if the port cannot be bound.
    virtual bool Listen(uint16_t port) = 0;
    /// Prepares to send from an ephemeral port; returns false if no socket can be bound.
    virtual bool Open() = 0;
    /// Closes every socket; nothing is sent or delivered afterwards.
    virtual void Close() = 0;

    /**
     * Lets go of every socket without closing it (no FIN, nothing sent), for the disposal at
     * Simulator::Destroy: the node's stack may already be disposed there (ns-3.35 disposes it
     * before the applications; a TCP close then sends through a dead IPv4 and crashes).
     * Nothing is delivered afterwards. Default: Close (a UDP close sends nothing).
     */
    virtual void Abandon()
    {
        Close();
    }

    /**
     * Closes this transport's connection to `peer`, if it has one (a stream transport), so that
     * the next message to it opens a new connection: for a client handed over to a server it
     * talked to before, whose end of the old connection may be gone (ns-3's TCP answers a
     * segment of a connection it forgot with silence, not a reset). Messages still queued on it
     * may be lost. A datagram transport has no connection (default: nothing).
     */
    virtual void ClosePeer(const Address& peer)
    {
        (void)peer;
    }

    /**
     * Encodes a model message once (the transport's wire encoding; `quantRng` for int8, may be
     * null otherwise) and sends the same bytes to every destination. The header's sender is
     * this transport's local id.
     */
    void SendModel(const std::vector<Address>& to,
                   fl::MessageAddress header,
                   const fl::ParamVector& params,
                   fl::Rng* quantRng);
    /**
     * Encodes a model message once and sends it as one link-layer broadcast (UDP to
     * FlTransportConfig::broadcastAddress at the listen port; chunked like any UDP message).
     * @return false, sending nothing, if the transport cannot broadcast (CanBroadcast)
     */
    bool BroadcastModel(fl::MessageAddress header,
                        const fl::ParamVector& params,
                        fl::Rng* quantRng);
    /// Whether BroadcastModel works: UDP with a broadcast address, listening on a port.
    virtual bool CanBroadcast() const;
    /// Sends a raw (control) message, e.g. a Join or a list of scalars.
    void SendRaw(const Address& to, fl::MessageAddress header, const std::vector<uint8_t>& data);
    /// Sends a header-only message (e.g. Stop) to every destination.
    void SendSignal(const std::vector<Address>& to, fl::MessageAddress header);
    /**
     * Sends an outgoing message that was given up (FlLostMessage with outgoing set) again, as a
     * new message with the same bytes (not re-encoded); does nothing for an incoming one.
     */
    void SendAgain(const FlLostMessage& lost);

    /// Whether delivery is reliable (TCP) or best effort (UDP: the application may repeat).
    virtual bool IsReliable() const = 0;
    /// Whether messages may be delivered with holes filled from a base model (UDP keep-previous).
    virtual bool DeliversPartial() const;
    /// Delivers incomplete incoming messages now, with holes, if DeliversPartial(); else no-op.
    virtual void FlushPartial();
    /// Forgets outgoing and incoming messages of rounds < round (UDP; no-op for TCP).
    virtual void DiscardBefore(uint32_t round);

    /// Counters over all peers.
    virtual FlTransportStats Stats() const = 0;
    /// Detailed UDP counters (all zero for TCP).
    virtual FlDatagramStats DatagramStats() const;
    /// UDP: chunks of round `round` sent to and received from each peer id (see
    /// FlDatagramEndpoint::ChunkTallies); empty for TCP, which loses nothing.
    virtual std::map<uint32_t, FlChunkTally> ChunkTallies(uint32_t round) const;

    /// The local node-level id.
    uint32_t LocalId() const
    {
        return m_localId;
    }

  protected:
    FlTransport(uint32_t localId, const FlTransportConfig& config);

    /// The destination of BroadcastModel (valid if CanBroadcast()).
    virtual Address BroadcastDestination() const;
    /// Sends already encoded bytes to one destination.
    virtual void SendBytes(const Address& to,
                           uint32_t round,
                           std::shared_ptr<const std::vector<uint8_t>> bytes) = 0;
    /// Hands a decoded message to the application.
    void Deliver(FlInboundMessage& in);

    uint32_t m_localId;              ///< node-level id of this end
    FlTransportConfig m_config;      ///< settings
    BaseModelProvider m_baseModel;   ///< see SetBaseModelProvider
    PeerClosedCallback m_peerClosed; ///< see SetPeerClosedCallback
    MessageLostCallback m_messageLost; ///< see SetMessageLostCallback
    uint64_t m_messagesSent{0};      ///< messages handed to SendBytes
    uint64_t m_delivered{0};         ///< messages delivered
    uint64_t m_malformed{0};         ///< undecodable or inconsistent messages
    uint64_t m_oldVersion{0};        ///< of which: older wire version

  private:
    ReceiveCallback m_receive;
};

} // namespace ns3

#endif // FL_TRANSPORT_H

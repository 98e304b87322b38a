/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The flow-level network: FL messages cross the network as whole messages whose delivery time
 * comes from a model of the links (rate, latency, airtime sharing on a shared medium, loss)
 * instead of packets. Nodes carry no devices and no Internet stack, only the addresses the
 * packet-level scene would give them; applications reach it through the Flow transport
 * (FlTransportKind::Flow), which encodes and decodes the same bytes as TCP.
 */
#ifndef FL_FLOW_NETWORK_H
#define FL_FLOW_NETWORK_H

#include "ns3/event-id.h"
#include "ns3/fl-transport.h"
#include "ns3/ipv4-address.h"
#include "ns3/node.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/processor-sharing.h"
#include "ns3/random-variable-stream.h"

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

class FlFlowTransport;

/**
 * \ingroup fl-apps
 * The calibrated parameters of one shared medium (a Wi-Fi cell, a CSMA LAN, an LTE cell's
 * uplink or downlink, one direction of a point-to-point link). Messages on it share its airtime
 * by processor sharing. The delivery time of a message of B bytes sent over interfaces of rate
 * R is: queueing behind earlier messages of the same connection, then
 * (B + ceil(B / segmentBytes) headerBytes) 8 / (R efficiency) + ceil(B / segmentBytes)
 * perPacketAirtime seconds of exclusive use of the medium (fl::FlowMessageAirtime), shared
 * equally among the active messages (and reduced by `contention` per extra active sender,
 * fl::SharedCapacity), then perMessageDelay and the one-way latency of both ends.
 */
struct FlFlowMedium
{
    std::string name;        ///< e.g. "wifi 80211n cell 0" (in warnings)
    std::string kind;        ///< "wifi", "csma", "lte-ul", "lte-dl", "p2p" (validity bounds)
    double rateBps{0.0};     ///< link rate of every interface on it [b/s]; 0: the interface's
    double efficiency{1.0};  ///< MAC/ACK airtime efficiency in (0, 1]
    double contention{0.0};  ///< capacity loss per extra active sender (fl::SharedCapacity)
    /// who gets an equal share: each station, its messages one after the other (one transmit
    /// queue each: Wi-Fi, CSMA), or each flow (a scheduler per UE: LTE; one flow at a time
    /// anyway: point-to-point), or BySize (each station, a message that fits TCP's initial
    /// window alone, larger ones sharing the station's turn: CSMA). PerSenderShared (a
    /// station's connections always share its turn) is closer for large messages and farther
    /// for small ones (module documentation, "Flow-level fidelity").
    fl::SharingDiscipline discipline{fl::SharingDiscipline::PerSender};
    /// a message of more bytes than this is bulk (BySize sharing, the bulk load): TCP's
    /// initial window (ns3::TcpSocket::InitialCwnd, 10 segments of 1448 bytes)
    uint32_t burstBytes{14480};
    double bulkFree{0.0};    ///< bulk messages served without loss (fl::BulkLoadCapacity)
    double bulkPenalty{0.0}; ///< capacity loss as bulk messages grow (fl::BulkLoadCapacity)
    uint32_t segmentBytes{1448}; ///< payload bytes per packet (the TCP segment size)
    uint32_t headerBytes{52};    ///< TCP/IP (and link) header bytes per packet
    /// airtime of the medium per packet besides its bytes (a Wi-Fi cell: preamble, SIFS, ACK,
    /// DIFS, backoff and its share of TCP's acknowledgements), shared like the bytes' airtime
    Time perPacketAirtime;
    Time perMessageDelay; ///< fixed time per message (ACK clocking, scheduling)
};

/**
 * \ingroup fl-apps
 * One address of a node in the flow-level network.
 */
struct FlFlowInterface
{
    Ipv4Address address;              ///< e.g. 10.1.0.2 (what the packet scene would assign)
    Ipv4Mask mask{"255.255.0.0"};     ///< its subnet (chooses the sending interface)
    int32_t txMedium{-1};             ///< medium its sent messages cross (-1: none)
    int32_t rxMedium{-1};             ///< medium its received messages cross (-1: none)
    double rateBps{1e8};              ///< link rate on those media [b/s] (PHY rate / MCS)
    Time latency;                     ///< one-way latency of this end
    double lossProbability{0.0};      ///< probability that a message it sends or receives is lost
    /// when the interface can carry data (Wi-Fi association, LTE attach done); a connection
    /// opened earlier loses its SYN and sends it again after SynRetry, then twice as long each
    /// time (the TCP connection timeout, FlSynRetryWait)
    Time readyAt;
};

/**
 * \ingroup fl-apps
 * Numeric bounds beyond which the flow model was not validated against packet-level runs: a
 * run that crosses one gets a warning (FlFlowNetwork::ValidityWarnings).
 */
struct FlFlowValidity
{
    uint32_t maxStationsWifi{30};   ///< stations per Wi-Fi cell
    uint32_t maxStationsCsma{30};   ///< nodes per CSMA LAN
    uint32_t maxStationsLte{40};    ///< UEs per LTE cell
    double maxLossProbability{0.0}; ///< message loss probability (loss is not validated)
    uint32_t maxConcurrentFlows{64}; ///< messages in flight at once on one medium
    uint32_t bulkBytes{49152};       ///< a message of at least this many bytes is bulk
    uint32_t maxBulkWifi{4};         ///< bulk messages in flight at once in a Wi-Fi cell
    uint32_t maxBulkCsma{5};         ///< bulk messages in flight at once on a CSMA LAN
    uint32_t maxBulkLte{15};         ///< bulk messages in flight at once on an LTE link
    uint32_t maxMessageBytes{0};     ///< largest message validated (0: no bound)
};

/**
 * \ingroup fl-apps
 * How long a connection opened `early` before both ends can carry data waits before its SYN
 * gets through, as ns-3's TcpSocketBase retries it: the SYNs leave at 0, T, 3 T, 7 T, ...
 * (the timeout T = `timeout` doubled after each retry), and the first one at or after the
 * ready time goes through: the wait is T (2^k - 1) for the smallest k with T (2^k - 1) >=
 * early. Zero if `early` is not positive.
 */
Time FlSynRetryWait(Time early, Time timeout);

/**
 * \ingroup fl-apps
 * The flow-level network: media, the interfaces of the nodes, the connections between
 * transports and the messages in flight. Build it with a scene helper in flow fidelity
 * (FlSceneHelperBase::SetFidelity), or by hand: AddMedium, Install (per node), AddInterface.
 */
class FlFlowNetwork : public Object
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    FlFlowNetwork();
    ~FlFlowNetwork() override;

    /// Adds a medium; @return its id
    int32_t AddMedium(const FlFlowMedium& medium);
    /// The medium of an id.
    const FlFlowMedium& GetMedium(int32_t id) const;
    /// Makes the node part of this network (aggregates an FlFlowStack to it).
    void Install(Ptr<Node> node);
    /// Gives the node (installed) an address.
    void AddInterface(Ptr<Node> node, const FlFlowInterface& iface);
    /// Sets FlFlowInterface::readyAt of every interface of the node.
    void SetReadyAt(Ptr<Node> node, Time ready);
    /**
     * The stations of a Wi-Fi BSS associate as fl::DrawAssociationTimes draws it (from this
     * network's second stream, AssignStreams, when the first connection opens): sets the
     * readyAt of each node, in order, to its station's association time.
     */
    void SetAssociation(const std::vector<Ptr<Node>>& stations, const fl::AssociationModel& model);
    /// The association times drawn (empty before the first connection or without a BSS) [s].
    const std::vector<double>& AssociationTimes() const
    {
        return m_associationTimes;
    }
    /// The interfaces of node `nodeId` (empty if none).
    const std::vector<FlFlowInterface>& GetInterfaces(uint32_t nodeId) const;
    /// The node id owning `address`, or -1.
    int64_t NodeOf(Ipv4Address address) const;
    /// The interface of node `nodeId` to send to `to` from: the one in its subnet, else the first.
    const FlFlowInterface& SourceInterface(uint32_t nodeId, Ipv4Address to) const;

    /// Adds a warning of the scene builder (e.g. a radius beyond the validated one).
    void AddWarning(const std::string& warning);
    /// Sets the validity bounds (ValidityWarnings).
    void SetValidity(const FlFlowValidity& validity);
    /**
     * The bounds this run crosses, one sentence each: stations on a medium, loss probability,
     * and (after a run) the most messages in flight at once on one medium and the largest
     * message. Empty if none.
     */
    std::vector<std::string> ValidityWarnings() const;

    /**
     * Fixes the streams of the loss draws (`stream`) and of the stations' association
     * (`stream` + 1, SetAssociation).
     * @return the number of streams used (2)
     */
    int64_t AssignStreams(int64_t stream);

    /// Whether any interface loses messages.
    bool IsLossy() const;

    /// The most messages in flight at once on one medium of `kind` ("wifi", "p2p", ...) so far.
    std::size_t PeakInFlight(const std::string& kind) const;

    /// Bytes of the largest message accepted so far.
    std::size_t LargestMessage() const
    {
        return m_largestMessage;
    }

    /**
     * Sends `bytes` from the transport bound at `from` to the one bound at `to` (both
     * InetSocketAddress). The bytes are delivered as they are, whatever they hold: the receiving
     * transport checks them as a TCP receiver checks its stream.
     * @param senderNode id of the sending node (contention, interfaces)
     * @param from the sender's address and port
     * @param to the receiver's address and port
     * @param bytes the message
     * @return false if nothing listens at `to` (the message is dropped)
     */
    bool Transmit(uint32_t senderNode,
                  const Address& from,
                  const Address& to,
                  std::shared_ptr<const std::vector<uint8_t>> bytes);

    /// Counters of the network.
    struct Counters
    {
        uint64_t messages{0};  ///< messages given to Transmit and accepted
        uint64_t delivered{0}; ///< messages handed to their receiving transport
        uint64_t lost{0};      ///< messages lost (loss probability)
        uint64_t bytes{0};     ///< bytes of the accepted messages
    };

    /// The counters.
    const Counters& GetCounters() const
    {
        return m_counters;
    }

    /// Binds a transport at (address of the node, port); port 0: a fresh ephemeral port.
    /// @return the port, or 0 if it is taken
    uint16_t Bind(FlFlowTransport* transport, uint32_t nodeId, uint16_t port);
    /// Unbinds every address of the transport.
    void Unbind(const FlFlowTransport* transport);

  protected:
    void DoDispose() override;

  private:
    /// One message on its way.
    struct Message
    {
        uint64_t id{0};
        uint32_t senderNode{0};
        Address from;
        Address to;
        std::shared_ptr<const std::vector<uint8_t>> bytes;
        std::vector<std::pair<int32_t, double>> hops; ///< (medium, work [s]) still to cross
        Time tail;                                    ///< latency and fixed delays after them
        bool lost{false};
        std::pair<Address, Address> connection;
    };

    /// A medium in use: its parameters and the messages it serves.
    struct MediumState
    {
        FlFlowMedium params;
        fl::ProcessorSharingMedium ps;
        std::map<uint64_t, std::shared_ptr<Message>> active;
        EventId next;
        std::size_t peakActive{0};
        std::size_t bulkActive{0}; ///< bulk messages in service now
        std::size_t peakBulk{0};
        std::map<uint32_t, bool> stations; ///< node ids with an interface on it
    };

    void StartNextHop(std::shared_ptr<Message> m);
    void Schedule(int32_t medium);
    void Complete(int32_t medium);
    void Finish(std::shared_ptr<Message> m);
    void Deliver(std::shared_ptr<Message> m);
    double Now() const;

    std::vector<MediumState> m_media;
    std::map<uint32_t, std::vector<FlFlowInterface>> m_interfaces; ///< by node id
    std::map<Ipv4Address, uint32_t> m_nodeOf;
    std::map<Address, FlFlowTransport*> m_bound; ///< transports unbind before they go
    std::map<uint32_t, uint16_t> m_nextPort; ///< per node
    /// per connection (from, to): messages waiting behind the one in service (TCP order)
    std::map<std::pair<Address, Address>, std::deque<std::shared_ptr<Message>>> m_queues;
    std::map<std::pair<Address, Address>, bool> m_open; ///< connections set up (handshake done)
    Ptr<UniformRandomVariable> m_loss;
    Ptr<UniformRandomVariable> m_association; ///< draws the stations' association
    std::vector<Ptr<Node>> m_associating;     ///< SetAssociation: stations not yet drawn
    fl::AssociationModel m_associationModel;
    std::vector<double> m_associationTimes;
    void DrawAssociation();
    FlFlowValidity m_validity;
    Counters m_counters;
    uint64_t m_nextId{1};
    bool m_handshake{true}; ///< TcpHandshake attribute
    Time m_synRetry;        ///< SynRetry attribute
    double m_maxLoss{0.0};
    std::size_t m_largestMessage{0}; ///< bytes of the largest message accepted
    std::vector<std::string> m_warnings; ///< AddWarning
};

/**
 * \ingroup fl-apps
 * What a node of the flow-level network holds (aggregated to it by FlFlowNetwork::Install):
 * the network it belongs to. The Flow transport finds the network through it.
 */
class FlFlowStack : public Object
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    /// The network.
    Ptr<FlFlowNetwork> GetNetwork() const
    {
        return m_network;
    }
    /// Sets the network.
    void SetNetwork(Ptr<FlFlowNetwork> network)
    {
        m_network = network;
    }

  protected:
    void DoDispose() override;

  private:
    Ptr<FlFlowNetwork> m_network;
};

/**
 * \ingroup fl-apps
 * The Flow transport: messages encoded exactly as on TCP (same bytes, same header) and
 * delivered whole, after the delay of the flow-level network, to the transport bound at the
 * destination; the receiver checks the bytes as a TCP receiver checks its stream (a malformed
 * header or a message above maxMessageBytes is counted and dropped, and the connection is
 * reported closed). Created by FlTransport::Create for FlTransportKind::Flow on a node
 * installed in an FlFlowNetwork.
 */
class FlFlowTransport : public FlTransport
{
  public:
    /// @param node the node (installed in a flow network); @param localId; @param config
    FlFlowTransport(Ptr<Node> node, uint32_t localId, const FlTransportConfig& config);
    ~FlFlowTransport() override;

    bool Listen(uint16_t port) override;
    bool Open() override;
    void Close() override;
    bool IsReliable() const override;
    FlTransportStats Stats() const override;

    /// Called by the network: the bytes of one message from `from` arrived.
    void Receive(const Address& from, const std::vector<uint8_t>& bytes);
    /// Called by the network: a message to `to` could not be sent (nothing listens there).
    void Unreachable();

  protected:
    void SendBytes(const Address& to,
                   uint32_t round,
                   std::shared_ptr<const std::vector<uint8_t>> bytes) override;

  private:
    Ptr<Node> m_node;
    Ptr<FlFlowNetwork> m_network;
    uint16_t m_port{0};
    bool m_closed{false};
    uint64_t m_bytesSent{0};
    uint64_t m_bytesReceived{0};
    uint64_t m_reset{0};
    uint64_t m_unsent{0};
};

} // namespace ns3

#endif // FL_FLOW_NETWORK_H

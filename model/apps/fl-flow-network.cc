/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/fl-flow-network.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/fl-ns3-compat.h"
#include "ns3/inet-socket-address.h"
#include "ns3/log.h"
#include "ns3/message-reassembler.h"
#include "ns3/nstime.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlFlowNetwork");
NS_OBJECT_ENSURE_REGISTERED(FlFlowNetwork);
NS_OBJECT_ENSURE_REGISTERED(FlFlowStack);

namespace
{
/// First ephemeral port (as ns-3's Ipv4EndPointDemux).
constexpr uint16_t kFirstEphemeralPort = 49153;
} // namespace

Time
FlSynRetryWait(Time early, Time timeout)
{
    if (!early.IsStrictlyPositive())
    {
        return Time();
    }
    NS_ABORT_MSG_UNLESS(timeout.IsStrictlyPositive(), "FlSynRetryWait: the timeout must be > 0");
    Time wait;
    Time next = timeout;
    while (wait < early)
    {
        wait += next; // the next SYN leaves `next` after the previous one
        next = next * 2;
    }
    return wait;
}

TypeId
FlFlowNetwork::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FlFlowNetwork")
            .SetParent<Object>()
            .SetGroupName("Fl")
            .AddConstructor<FlFlowNetwork>()
            .AddAttribute("TcpHandshake",
                          "The first message of each connection waits one round-trip time "
                          "first (the TCP three-way handshake).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&FlFlowNetwork::m_handshake),
                          MakeBooleanChecker())
            .AddAttribute("SynRetry",
                          "A connection opened before both ends are ready (FlFlowInterface "
                          "readyAt) sends its SYN again after this long, then twice as long each "
                          "time (FlSynRetryWait): the TCP connection timeout of the packet-level "
                          "transport (FlApplicationBase::TcpConnTimeout, ns3::TcpSocket::"
                          "ConnTimeout), 1 s as RFC 6298.",
                          TimeValue(Seconds(1)),
                          MakeTimeAccessor(&FlFlowNetwork::m_synRetry),
                          MakeTimeChecker(MilliSeconds(1)));
    return tid;
}

FlFlowNetwork::FlFlowNetwork()
    : m_loss(CreateObject<UniformRandomVariable>()),
      m_association(CreateObject<UniformRandomVariable>())
{
}

FlFlowNetwork::~FlFlowNetwork() = default;

void
FlFlowNetwork::DoDispose()
{
    for (auto& m : m_media)
    {
        Simulator::Cancel(m.next);
        m.active.clear();
    }
    m_queues.clear();
    m_bound.clear();
    m_loss = nullptr;
    Object::DoDispose();
}

int32_t
FlFlowNetwork::AddMedium(const FlFlowMedium& medium)
{
    if (!(medium.efficiency > 0.0 && medium.efficiency <= 1.0) || !(medium.contention >= 0.0) ||
        !(medium.bulkFree >= 0.0) || !(medium.bulkPenalty >= 0.0) || medium.segmentBytes == 0)
    {
        NS_FATAL_ERROR("FlFlowNetwork: medium '" << medium.name
                                                 << "' has efficiency outside (0, 1], a negative "
                                                    "contention or bulk load, or a segment size "
                                                    "of 0");
    }
    MediumState st;
    st.params = medium;
    st.ps = fl::ProcessorSharingMedium(medium.contention, medium.discipline);
    st.ps.SetBulkLoad(medium.bulkFree, medium.bulkPenalty);
    m_media.push_back(std::move(st));
    return static_cast<int32_t>(m_media.size() - 1);
}

const FlFlowMedium&
FlFlowNetwork::GetMedium(int32_t id) const
{
    return m_media.at(static_cast<std::size_t>(id)).params;
}

void
FlFlowNetwork::Install(Ptr<Node> node)
{
    if (node->GetObject<FlFlowStack>())
    {
        return;
    }
    Ptr<FlFlowStack> stack = CreateObject<FlFlowStack>();
    stack->SetNetwork(this);
    node->AggregateObject(stack);
    m_interfaces[node->GetId()];
}

void
FlFlowNetwork::AddInterface(Ptr<Node> node, const FlFlowInterface& iface)
{
    Install(node);
    if (m_nodeOf.count(iface.address))
    {
        NS_FATAL_ERROR("FlFlowNetwork: address " << iface.address << " is given twice");
    }
    if (!(iface.rateBps > 0.0) || !(iface.lossProbability >= 0.0 && iface.lossProbability <= 1.0))
    {
        NS_FATAL_ERROR("FlFlowNetwork: interface " << iface.address
                                                   << " needs a rate > 0 and a loss probability "
                                                      "in [0, 1]");
    }
    for (int32_t m : {iface.txMedium, iface.rxMedium})
    {
        if (m >= static_cast<int32_t>(m_media.size()))
        {
            NS_FATAL_ERROR("FlFlowNetwork: interface " << iface.address << " names medium " << m
                                                       << ", which does not exist");
        }
        if (m >= 0)
        {
            m_media[m].stations[node->GetId()] = true;
        }
    }
    m_interfaces[node->GetId()].push_back(iface);
    m_nodeOf[iface.address] = node->GetId();
    m_maxLoss = std::max(m_maxLoss, iface.lossProbability);
}

void
FlFlowNetwork::SetReadyAt(Ptr<Node> node, Time ready)
{
    for (auto& i : m_interfaces[node->GetId()])
    {
        i.readyAt = ready;
    }
}

void
FlFlowNetwork::SetAssociation(const std::vector<Ptr<Node>>& stations,
                              const fl::AssociationModel& model)
{
    m_associating = stations;
    m_associationModel = model;
    m_associationTimes.clear();
}

void
FlFlowNetwork::DrawAssociation()
{
    if (m_associating.empty())
    {
        return;
    }
    m_associationTimes =
        fl::DrawAssociationTimes(static_cast<uint32_t>(m_associating.size()),
                                 m_associationModel,
                                 [this]() { return m_association->GetValue(0.0, 1.0); });
    for (std::size_t i = 0; i < m_associating.size(); ++i)
    {
        SetReadyAt(m_associating[i], Seconds(m_associationTimes[i]));
    }
    m_associating.clear();
}

const std::vector<FlFlowInterface>&
FlFlowNetwork::GetInterfaces(uint32_t nodeId) const
{
    static const std::vector<FlFlowInterface> none;
    auto it = m_interfaces.find(nodeId);
    return it == m_interfaces.end() ? none : it->second;
}

int64_t
FlFlowNetwork::NodeOf(Ipv4Address address) const
{
    auto it = m_nodeOf.find(address);
    return it == m_nodeOf.end() ? -1 : static_cast<int64_t>(it->second);
}

const FlFlowInterface&
FlFlowNetwork::SourceInterface(uint32_t nodeId, Ipv4Address to) const
{
    const auto& ifaces = GetInterfaces(nodeId);
    if (ifaces.empty())
    {
        NS_FATAL_ERROR("FlFlowNetwork: node " << nodeId << " has no address in the flow network");
    }
    for (const auto& i : ifaces)
    {
        if (i.mask.IsMatch(i.address, to))
        {
            return i;
        }
    }
    return ifaces.front();
}

void
FlFlowNetwork::AddWarning(const std::string& warning)
{
    m_warnings.push_back(warning);
}

void
FlFlowNetwork::SetValidity(const FlFlowValidity& validity)
{
    m_validity = validity;
}

std::vector<std::string>
FlFlowNetwork::ValidityWarnings() const
{
    std::vector<std::string> out = m_warnings;
    for (const auto& m : m_media)
    {
        const std::size_t stations = m.stations.size();
        const std::string& k = m.params.kind;
        // the server (AP, hub) is on the medium too: count the other nodes
        const std::size_t clients = stations > 0 ? stations - 1 : 0;
        uint32_t bound = 0;
        std::string what;
        if (k == "wifi")
        {
            bound = m_validity.maxStationsWifi;
            what = "stations per Wi-Fi cell";
        }
        else if (k == "csma")
        {
            bound = m_validity.maxStationsCsma;
            what = "clients per CSMA LAN";
        }
        else if (k == "lte-ul" || k == "lte-dl")
        {
            bound = m_validity.maxStationsLte;
            what = "UEs per LTE cell";
        }
        if (bound > 0 && (k == "lte-ul" ? stations : clients) > bound)
        {
            std::ostringstream os;
            os << m.params.name << ": " << (k == "lte-ul" ? stations : clients) << " " << what
               << ", above the " << bound << " validated against packet-level runs";
            out.push_back(os.str());
        }
        const uint32_t bulkBound = k == "wifi"   ? m_validity.maxBulkWifi
                                   : k == "csma" ? m_validity.maxBulkCsma
                                   : (k == "lte-ul" || k == "lte-dl") ? m_validity.maxBulkLte
                                                                      : 0;
        if (bulkBound > 0 && m.peakBulk > bulkBound)
        {
            std::ostringstream os;
            os << m.params.name << ": " << m.peakBulk << " messages of " << m_validity.bulkBytes
               << " bytes or more in flight at once, above the " << bulkBound
               << " validated against packet-level runs (heavy offered load: contention and TCP "
                  "losses the model does not capture make packet-level rounds longer)";
            out.push_back(os.str());
        }
        if (m.peakActive > m_validity.maxConcurrentFlows)
        {
            std::ostringstream os;
            os << m.params.name << ": " << m.peakActive
               << " messages in flight at once, above the " << m_validity.maxConcurrentFlows
               << " validated against packet-level runs (heavy contention)";
            out.push_back(os.str());
        }
    }
    if (m_validity.maxMessageBytes > 0 && m_largestMessage > m_validity.maxMessageBytes)
    {
        std::ostringstream os;
        os << "a message of " << m_largestMessage << " bytes, above the "
           << m_validity.maxMessageBytes
           << " bytes validated against packet-level runs for this scene (longer transfers "
              "meet TCP's slow start and congestion control, which the model does not "
              "follow)";
        out.push_back(os.str());
    }
    if (m_maxLoss > m_validity.maxLossProbability)
    {
        std::ostringstream os;
        os << "message loss probability " << m_maxLoss << " is above "
           << m_validity.maxLossProbability
           << ": loss is modelled as whole messages lost, not as TCP retransmissions; delays "
              "under loss were not validated against packet-level runs";
        out.push_back(os.str());
    }
    return out;
}

int64_t
FlFlowNetwork::AssignStreams(int64_t stream)
{
    m_loss->SetStream(stream);
    m_association->SetStream(stream + 1);
    return 2;
}

bool
FlFlowNetwork::IsLossy() const
{
    return m_maxLoss > 0.0;
}

std::size_t
FlFlowNetwork::PeakInFlight(const std::string& kind) const
{
    std::size_t peak = 0;
    for (const auto& m : m_media)
    {
        if (m.params.kind == kind)
        {
            peak = std::max(peak, m.peakActive);
        }
    }
    return peak;
}

uint16_t
FlFlowNetwork::Bind(FlFlowTransport* transport, uint32_t nodeId, uint16_t port)
{
    const auto& ifaces = GetInterfaces(nodeId);
    if (ifaces.empty())
    {
        return 0;
    }
    if (port == 0)
    {
        uint16_t& next = m_nextPort[nodeId];
        if (next < kFirstEphemeralPort)
        {
            next = kFirstEphemeralPort;
        }
        port = next++;
    }
    for (const auto& i : ifaces)
    {
        if (m_bound.count(InetSocketAddress(i.address, port)))
        {
            return 0;
        }
    }
    for (const auto& i : ifaces)
    {
        m_bound[InetSocketAddress(i.address, port)] = transport;
    }
    return port;
}

void
FlFlowNetwork::Unbind(const FlFlowTransport* transport)
{
    for (auto it = m_bound.begin(); it != m_bound.end();)
    {
        it = it->second == transport ? m_bound.erase(it) : std::next(it);
    }
}

double
FlFlowNetwork::Now() const
{
    return Simulator::Now().GetSeconds();
}

bool
FlFlowNetwork::Transmit(uint32_t senderNode,
                        const Address& from,
                        const Address& to,
                        std::shared_ptr<const std::vector<uint8_t>> bytes)
{
    if (!InetSocketAddress::IsMatchingType(to) || m_bound.count(to) == 0)
    {
        return false;
    }
    const Ipv4Address dst = InetSocketAddress::ConvertFrom(to).GetIpv4();
    const FlFlowInterface& src = SourceInterface(senderNode, dst);
    const int64_t dstNode = NodeOf(dst);
    const FlFlowInterface& rcv = SourceInterface(static_cast<uint32_t>(dstNode), dst);

    auto m = std::make_shared<Message>();
    m->id = m_nextId++;
    m->senderNode = senderNode;
    m->from = from;
    m->to = to;
    m->bytes = std::move(bytes);
    m->connection = {from, to};
    const double size = static_cast<double>(m->bytes->size());
    Time fixed = src.latency + rcv.latency;
    // the media crossed: the sender's, then the receiver's (once if they are the same)
    std::vector<std::pair<int32_t, double>> media;
    if (src.txMedium >= 0)
    {
        media.emplace_back(src.txMedium, src.rateBps);
    }
    if (rcv.rxMedium >= 0 && rcv.rxMedium != src.txMedium)
    {
        media.emplace_back(rcv.rxMedium, rcv.rateBps);
    }
    for (const auto& [id, ifaceRate] : media)
    {
        const FlFlowMedium& p = m_media[id].params;
        const double rate = p.rateBps > 0.0 ? p.rateBps : ifaceRate;
        const double packets = std::ceil(size / p.segmentBytes);
        const double wire = size + packets * p.headerBytes;
        m->hops.emplace_back(id,
                             fl::FlowMessageAirtime(wire,
                                                    rate,
                                                    p.efficiency,
                                                    packets,
                                                    p.perPacketAirtime.GetSeconds()));
        fixed += p.perMessageDelay;
    }
    m->tail = fixed;
    const double loss = 1.0 - (1.0 - src.lossProbability) * (1.0 - rcv.lossProbability);
    if (loss > 0.0)
    {
        m->lost = m_loss->GetValue(0.0, 1.0) < loss;
    }
    ++m_counters.messages;
    m_counters.bytes += m->bytes->size();
    m_largestMessage = std::max(m_largestMessage, m->bytes->size());

    auto& queue = m_queues[m->connection];
    queue.push_back(m);
    if (queue.size() > 1)
    {
        return true; // behind an earlier message of the same connection (TCP keeps order)
    }
    if (m_handshake && !m_open[m->connection])
    {
        m_open[m->connection] = true;
        m_open[{to, from}] = true; // the answer goes over the same connection
        // SYN, SYN-ACK: one round trip before the first byte; a SYN sent before both ends can
        // carry data is lost and sent again after the connection timeout
        DrawAssociation();
        const Time ready = Max(src.readyAt, rcv.readyAt);
        Time wait = fixed * 2;
        wait += FlSynRetryWait(ready - Simulator::Now(), m_synRetry);
        FlSchedule(wait, [this, m]() { StartNextHop(m); });
        return true;
    }
    StartNextHop(m);
    return true;
}

void
FlFlowNetwork::StartNextHop(std::shared_ptr<Message> m)
{
    if (m->hops.empty())
    {
        Finish(m);
        return;
    }
    const auto [id, work] = m->hops.front();
    MediumState& st = m_media[id];
    st.ps.Advance(Now());
    st.ps.Add(m->id, work, m->senderNode, m->bytes->size() > st.params.burstBytes);
    st.active[m->id] = m;
    st.peakActive = std::max(st.peakActive, st.active.size());
    if (m->bytes->size() >= m_validity.bulkBytes)
    {
        st.peakBulk = std::max(st.peakBulk, ++st.bulkActive);
    }
    Schedule(id);
}

void
FlFlowNetwork::Schedule(int32_t medium)
{
    MediumState& st = m_media[medium];
    Simulator::Cancel(st.next);
    uint64_t id = 0;
    double end = 0.0;
    if (!st.ps.NextCompletion(id, end))
    {
        return;
    }
    // round up to the next nanosecond: the flow is done when the event runs
    const double delay = std::max(0.0, end - Now());
    st.next = Simulator::Schedule(NanoSeconds(static_cast<int64_t>(std::ceil(delay * 1e9))),
                                  &FlFlowNetwork::Complete,
                                  this,
                                  medium);
}

void
FlFlowNetwork::Complete(int32_t medium)
{
    MediumState& st = m_media[medium];
    uint64_t id = 0;
    double end = 0.0;
    if (!st.ps.NextCompletion(id, end))
    {
        return;
    }
    st.ps.Advance(Now());
    st.ps.Remove(id);
    std::shared_ptr<Message> m = st.active.at(id);
    st.active.erase(id);
    if (m->bytes->size() >= m_validity.bulkBytes)
    {
        --st.bulkActive;
    }
    Schedule(medium);
    m->hops.erase(m->hops.begin());
    StartNextHop(m);
}

void
FlFlowNetwork::Finish(std::shared_ptr<Message> m)
{
    // the connection's next message starts now (its bytes follow this one's on the link)
    auto q = m_queues.find(m->connection);
    if (q != m_queues.end())
    {
        q->second.pop_front();
        if (!q->second.empty())
        {
            StartNextHop(q->second.front());
        }
        else
        {
            m_queues.erase(q);
        }
    }
    FlSchedule(m->tail, [this, m]() { Deliver(m); });
}

void
FlFlowNetwork::Deliver(std::shared_ptr<Message> m)
{
    if (m->lost)
    {
        ++m_counters.lost;
        return;
    }
    auto it = m_bound.find(m->to);
    if (it == m_bound.end())
    {
        return; // the receiver closed meanwhile
    }
    ++m_counters.delivered;
    it->second->Receive(m->from, *m->bytes);
}

// ----------------------------------------------------------------------------- FlFlowStack

TypeId
FlFlowStack::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FlFlowStack")
                            .SetParent<Object>()
                            .SetGroupName("Fl")
                            .AddConstructor<FlFlowStack>();
    return tid;
}

void
FlFlowStack::DoDispose()
{
    m_network = nullptr;
    Object::DoDispose();
}

// ------------------------------------------------------------------------- FlFlowTransport

FlFlowTransport::FlFlowTransport(Ptr<Node> node, uint32_t localId, const FlTransportConfig& config)
    : FlTransport(localId, config),
      m_node(node)
{
    Ptr<FlFlowStack> stack = node->GetObject<FlFlowStack>();
    if (!stack || !stack->GetNetwork())
    {
        throw fl::ConfigError("Transport",
                              "is flow on node " + std::to_string(node->GetId()) +
                                  ", which is not in a flow-level network",
                              "build the scene with SetFidelity(\"flow\"), or use tcp or udp");
    }
    m_network = stack->GetNetwork();
}

FlFlowTransport::~FlFlowTransport()
{
    Close();
}

bool
FlFlowTransport::Listen(uint16_t port)
{
    m_port = m_network->Bind(this, m_node->GetId(), port);
    return m_port != 0;
}

bool
FlFlowTransport::Open()
{
    m_port = m_network->Bind(this, m_node->GetId(), 0);
    return m_port != 0;
}

void
FlFlowTransport::Close()
{
    m_closed = true;
    if (m_network)
    {
        m_network->Unbind(this);
    }
}

bool
FlFlowTransport::IsReliable() const
{
    return !m_network->IsLossy();
}

FlTransportStats
FlFlowTransport::Stats() const
{
    FlTransportStats s;
    s.bytesSent = m_bytesSent;
    s.bytesReceived = m_bytesReceived;
    s.messagesSent = m_messagesSent;
    s.messagesDelivered = m_delivered;
    s.malformed = m_malformed;
    s.oldVersion = m_oldVersion;
    s.connectionsReset = m_reset;
    s.connectFailures = m_unsent;
    s.messagesUnsent = m_unsent;
    return s;
}

void
FlFlowTransport::SendBytes(const Address& to,
                           uint32_t /* round */,
                           std::shared_ptr<const std::vector<uint8_t>> bytes)
{
    if (m_closed || m_port == 0)
    {
        return;
    }
    if (!InetSocketAddress::IsMatchingType(to))
    {
        Unreachable();
        return;
    }
    const Ipv4Address dst = InetSocketAddress::ConvertFrom(to).GetIpv4();
    const Address from =
        InetSocketAddress(m_network->SourceInterface(m_node->GetId(), dst).address, m_port);
    const std::size_t size = bytes->size();
    if (!m_network->Transmit(m_node->GetId(), from, to, std::move(bytes)))
    {
        Unreachable();
        return;
    }
    m_bytesSent += size;
}

void
FlFlowTransport::Unreachable()
{
    NS_LOG_WARN("node " << m_node->GetId() << ": nothing listens at the destination");
    ++m_unsent;
}

void
FlFlowTransport::Receive(const Address& from, const std::vector<uint8_t>& bytes)
{
    if (m_closed)
    {
        return;
    }
    m_bytesReceived += bytes.size();
    // the same checks as a TCP receiver's stream framing
    fl::MessageReassembler framing(m_config.decodeTo, m_config.maxMessageBytes);
    framing.Push(bytes.data(), bytes.size());
    FlInboundMessage in;
    in.from = from;
    bool any = false;
    while (framing.Pop(in.msg))
    {
        any = true;
        Deliver(in);
        in = FlInboundMessage();
        in.from = from;
    }
    const fl::ReassemblerStats& st = framing.Stats();
    m_malformed += st.malformedHeaders + st.crcErrors;
    m_oldVersion += st.oldVersionHeaders;
    if (framing.Failed() || (!any && st.crcErrors == 0 && framing.Buffered() > 0))
    {
        if (!framing.Failed())
        {
            ++m_malformed; // a truncated message: no complete message in the bytes
        }
        // as TCP: the stream from that peer is unusable, its connection is reset
        NS_LOG_WARN("node " << m_node->GetId() << ": malformed message from " << from
                            << " dropped");
        ++m_reset;
        if (!m_peerClosed.IsNull())
        {
            m_peerClosed(from);
        }
    }
}

} // namespace ns3

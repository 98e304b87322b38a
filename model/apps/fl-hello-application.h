/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Neighbour discovery over the network: every node broadcasts a hello (fl::Hello: itself, its
 * degree and the nodes it hears) every Interval over UDP, and keeps what it heard in an
 * fl::NeighbourTable; a node is a neighbour while its hellos, which list this node, keep coming
 * within Timeout. For decentralised learning over nodes that move (ad hoc Wi-Fi): who the
 * neighbours are, and their degrees for the Metropolis weights, learned from the radio.
 */
#ifndef FL_HELLO_APPLICATION_H
#define FL_HELLO_APPLICATION_H

#include "ns3/application.h"
#include "ns3/event-id.h"
#include "ns3/fl-graph-exchange.h"
#include "ns3/ipv4-address.h"
#include "ns3/neighbour-discovery.h"
#include "ns3/nstime.h"
#include "ns3/random-variable-stream.h"
#include "ns3/socket.h"
#include "ns3/traced-callback.h"

#include <map>
#include <memory>
#include <vector>

namespace ns3
{

/**
 * \ingroup fl-apps
 * Hellos in, hellos out: one node's neighbour discovery (fl::NeighbourTable) over UDP broadcast
 * on Port. The first hello leaves at start plus a uniform jitter in [0, Jitter), then one every
 * Interval plus a fresh jitter (nodes that start together do not stay in step). A datagram that
 * is not one well-formed hello (fl::UnpackHello) is dropped and counted.
 */
class FlHelloApplication : public Application
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    FlHelloApplication();
    ~FlHelloApplication() override;

    /// What the application counted.
    struct Counters
    {
        uint64_t sent{0};      ///< hellos sent
        uint64_t received{0};  ///< hellos accepted
        uint64_t malformed{0}; ///< datagrams dropped as no well-formed hello
    };

    /// The node's id in the hellos (Id attribute, or the ns-3 node id if unset).
    uint32_t GetId() const;
    /// The symmetric neighbours now (ascending ids).
    std::vector<uint32_t> GetNeighbours() const;
    /// The symmetric neighbours now with their announced degrees.
    std::map<uint32_t, uint32_t> GetNeighbourDegrees() const;
    /// The nodes heard within the timeout now.
    std::vector<uint32_t> GetHeard() const;
    /// The IPv4 address node `id`'s last hello came from (Ipv4Address() if never heard).
    Ipv4Address GetAddress(uint32_t id) const;
    /**
     * This node's neighbourhood now, for a graph exchange on a changing graph
     * (FlGraphExchangeConfig::neighbourSource): its symmetric neighbours at the addresses their
     * hellos came from and `port`, with its own column of Metropolis weights from their
     * announced degrees (fl::LocalMetropolisWeights: a_lk = 1 / max(n_l, n_k), a_kk the rest).
     * No neighbour: a_kk = 1.
     */
    FlGraphNeighbourhood GetNeighbourhood(uint16_t port) const;
    /// The counters.
    const Counters& GetCounters() const;
    /// Assigns the jitter's stream; returns the number of streams used (1).
    int64_t AssignStreams(int64_t stream);

    /**
     * Checks the settings of a learning helper's neighbour discovery: `interval` > 0 and
     * `timeout` above the interval and its jitter (a tenth of it). Throws fl::ConfigError
     * naming "interval" or "timeout".
     */
    static void CheckDiscovery(Time interval, Time timeout);
    /**
     * The hello application of a learning helper's node: Id `id`, hellos every `interval` plus
     * a jitter of up to a tenth of it, neighbours forgotten after `timeout`, started at `start`,
     * added to `node`.
     */
    static Ptr<FlHelloApplication> InstallOn(Ptr<Node> node,
                                             uint32_t id,
                                             Time interval,
                                             Time timeout,
                                             Time start);

    /// Signature of the NeighboursChanged trace: the node's id and its new neighbours.
    using NeighboursCallback = void (*)(uint32_t id, const std::vector<uint32_t>& neighbours);

  protected:
    void DoDispose() override;

  private:
    void StartApplication() override;
    void StopApplication() override;
    void SendHello();
    void Receive(Ptr<Socket> socket);
    void CheckChanged();
    double Now() const;

    Time m_interval;
    Time m_timeout;
    Time m_jitter;
    uint16_t m_port;
    uint32_t m_idAttr;
    uint32_t m_id{0};
    Ptr<UniformRandomVariable> m_jitterRv;
    Ptr<Socket> m_socket;
    EventId m_sendEvent;
    std::unique_ptr<fl::NeighbourTable> m_table;
    std::vector<uint32_t> m_lastNeighbours;
    std::map<uint32_t, Ipv4Address> m_addresses; ///< where each node's last hello came from
    Counters m_counters;
    TracedCallback<uint32_t, const std::vector<uint32_t>&> m_changedTrace;
};

} // namespace ns3

#endif // FL_HELLO_APPLICATION_H

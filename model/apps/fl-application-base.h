/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * What the FL server and client applications share: the transport (TCP or UDP with chunking)
 * and its settings, the wire encoding of models.
 */
#ifndef FL_APPLICATION_BASE_H
#define FL_APPLICATION_BASE_H

#include "ns3/application.h"
#include "ns3/data-rate.h"
#include "ns3/fl-transport.h"
#include "ns3/ipv4-address.h"
#include "ns3/learning-task.h"
#include "ns3/privacy-accountant.h"
#include "ns3/nstime.h"
#include "ns3/payload-codec.h"
#include "ns3/traced-callback.h"

#include <memory>
#include <string>

namespace ns3
{

struct FlLinkState;

/**
 * \ingroup fl-apps
 * The role of a node in a learning system (FlModelReport).
 */
enum class FlNodeRole : uint8_t
{
    Server = 0, ///< holds a global (or server-level) model
    Client = 1, ///< trains locally and reports to a server
    Peer = 2,   ///< a decentralised worker or diffusion agent
};

/// "server", "client" or "peer".
const char* FlNodeRoleName(FlNodeRole role);

/**
 * \ingroup fl-apps
 * A model a node holds, as reported through the "ModelReport" trace of every FL application.
 */
struct FlCombinedTerm;

struct FlModelReport
{
    uint32_t round{0};                     ///< round (iteration) of the model
    uint32_t node{0};                      ///< node-level id of the reporting node
    FlNodeRole role{FlNodeRole::Server};   ///< its role
    const fl::ParamVector* model{nullptr}; ///< the model (valid during the call)
    /// What a node of a graph (GFL server, diffusion agent) held before it combined its
    /// neighbours' messages: GFL's psi_{p,i}, diffusion's phi_{k,i} (valid during the call);
    /// null for nodes that do not combine (the network metrics then take the model itself).
    const fl::ParamVector* aggregate{nullptr};
    uint32_t missingNeighbours{0}; ///< neighbour messages of this round missing at the combination
    uint32_t droppedClients{0};    ///< GFL: sampled clients whose upload did not count this round
    /// A node of a graph: the terms of its combination as made (its own first; null for nodes
    /// that do not combine), from which the network view measures how far the weights the
    /// nodes gave are from doubly stochastic, and a changing graph's epsilon
    const std::vector<FlCombinedTerm>* combination{nullptr};
    /// Whether the reporting application has a transport whose counters the two fields below
    /// copy (filled by FlApplicationBase::ReportModel). False for applications that send
    /// nothing through an FlTransport, e.g. DWFL's workers on the analog over-the-air channel
    /// and the OTA parameter server: their bytes are then 0 and not a measurement.
    bool countsBytes{false};
    /// Bytes the application's transport had handed to its sockets (TCP stream, UDP datagrams)
    /// since it started, when the report was made (FlTransportStats::bytesSent).
    uint64_t bytesSent{0};
    /// Bytes its transport had read from its sockets by then (FlTransportStats::bytesReceived).
    uint64_t bytesReceived{0};
};

/**
 * \ingroup fl-apps
 * Base of every FL application: the transport attributes (set them to the same values on all
 * nodes that talk to each other: FlServerHelper / FlClientHelper, or Config::SetDefault on
 * "ns3::FlApplicationBase::..."), the transport they configure, and the "ModelReport" trace
 * through which every application reports the models it holds (the observer seam).
 */
class FlApplicationBase : public Application
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    FlApplicationBase();
    ~FlApplicationBase() override;

    /// The transport kind configured (valid once started).
    FlTransportKind GetTransportKind() const
    {
        return m_transportKind;
    }

    /// The node-level id this application writes into its messages (its node's id).
    uint32_t GetNodeLevelId() const;

    /// The application's transport (valid once started; null before): round steps use it to
    /// talk to peers, observers to read its counters.
    Ptr<FlTransport> GetTransport() const
    {
        return m_transport;
    }

    /**
     * What observers read without naming an application class: the learning task whose
     * models this application holds (null if none, the default).
     */
    virtual std::shared_ptr<const fl::LearningTask> GetLearningTask() const;
    /// Whether the application perturbs what it sends (default false).
    virtual bool HasUplinkPerturbation() const;
    /// The privacy its perturbation has given so far at `delta` (default NaN: none).
    virtual double GetUplinkEpsilon(double delta) const;
    /// The mechanism of its perturbation (default Gaussian; meaningful if HasUplinkPerturbation).
    virtual fl::MechanismKind GetUplinkMechanism() const;
    /// Where its perturbation's noise seeds come from (default: derived from the run seed).
    virtual fl::NoiseSource GetUplinkNoiseSource() const;
    /// The learner index of this application (client index; default: none, 0xffffffff).
    virtual uint32_t GetLearnerIndex() const;
    /**
     * A server: what it knows of client `client`'s link now (FlServerApplication: the scene's
     * link state and the last response time); default: nothing known.
     */
    virtual FlLinkState GetClientLinkState(uint32_t client) const;

    /// TracedCallback signature of ModelReport.
    using ModelReportCallback = void (*)(const FlModelReport& report);

  protected:
    void DoDispose() override;

    /**
     * Parses the transport attributes, creates the transport and makes it listen on
     * `listenPort` (or open an ephemeral port if 0); stops the simulation with NS_FATAL_ERROR
     * naming the attribute if one is invalid or the port cannot be bound. Set the transport's
     * callbacks right after (nothing is delivered before the simulation runs on).
     * @param who the class name for error messages
     * @param decodeTo precision of decoded models (the task's)
     * @param listenPort port to accept peers on, or 0
     * @param modelParameters the task's parameter count (bounds incoming messages, TCP and UDP,
     *        unless MaxMessageBytes is set)
     */
    Ptr<FlTransport> StartTransport(const char* who,
                                    fl::Precision decodeTo,
                                    uint16_t listenPort,
                                    std::size_t modelParameters);

    /// The bound on incoming messages for models of `values` values: MaxMessageBytes if set,
    /// else FlMaxModelMessageBytes(values).
    uint32_t MaxMessageBytesFor(std::size_t values) const;
    /// The wire encoding of model payloads (parsed WirePrecision; valid once the transport started).
    fl::WireEncoding Wire() const;

    /// Reports a model this node holds (the ModelReport trace).
    void ReportModel(uint32_t round, FlNodeRole role, const fl::ParamVector& model);
    /// Reports `report` (round, role, model and what else it carries; its node and its
    /// transport's byte counters are set here).
    void ReportModel(FlModelReport report);

    /// True if anything is connected to the ModelReport trace.
    bool ModelReportHasSinks() const
    {
        return !m_modelReportTrace.IsEmpty();
    }

    fl::WireEncoding m_wire{fl::WireEncoding::Float64};    ///< parsed WirePrecision
    FlTransportKind m_transportKind{FlTransportKind::Tcp}; ///< parsed Transport
    Ptr<FlTransport> m_transport;                          ///< created by CreateTransport

  private:
    std::string m_transportName;
    std::string m_wirePrecision;
    std::string m_holePolicy;
    uint32_t m_tcpSegmentSize{1448};
    bool m_tcpTimestamps{false}; //!< TcpTimestamps attribute
    Time m_tcpMinRto{Seconds(1)}; //!< TcpMinRto attribute
    Time m_tcpConnTimeout{Seconds(1)}; //!< TcpConnTimeout attribute
    uint32_t m_udpMtu{1500};
    DataRate m_pacingRate;
    Time m_reassemblyTimeout;
    Time m_ackTimeout;
    Time m_congestionTarget;
    uint32_t m_retryLimit{5};
    uint32_t m_maxMessageBytes{0};
    uint32_t m_udpMaxMessageBytes{0}; ///< deprecated name of m_maxMessageBytes
    Ipv4Address m_udpBroadcastAddress;
    TracedCallback<const FlModelReport&> m_modelReportTrace;
};

} // namespace ns3

#endif // FL_APPLICATION_BASE_H

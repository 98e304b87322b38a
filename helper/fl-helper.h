/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Helpers that install the FedAvg server and clients.
 */
#ifndef FL_HELPER_H
#define FL_HELPER_H

#include "ns3/application-container.h"
#include "ns3/fl-client-application.h"
#include "ns3/fl-codec-strategy.h"
#include "ns3/fl-server-application.h"
#include "ns3/ipv4-address.h"
#include "ns3/learning-monitor.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/random-variable-stream.h"
#include "ns3/secagg-helper.h"

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup fl-helper
 * Installs an FlServerApplication sharing one learning task.
 */
class FlServerHelper
{
  public:
    /// @param task the learning task (shared with the clients and the monitor)
    explicit FlServerHelper(std::shared_ptr<const fl::LearningTask> task);
    /// Sets an attribute of the server application (see FlServerApplication::GetTypeId).
    void SetAttribute(const std::string& name, const AttributeValue& value);
    /// Installs one server on the node.
    ApplicationContainer Install(Ptr<Node> node) const;

  private:
    std::shared_ptr<const fl::LearningTask> m_task;
    ObjectFactory m_factory;
};

/**
 * \ingroup fl-helper
 * Installs FlClientApplications: the i-th node of a container gets client index
 * firstIndex + i (the i-th data set of the task).
 */
class FlClientHelper
{
  public:
    /**
     * @param task the learning task
     * @param serverAddress IPv4 address of the server's node
     * @param port the server's TCP port
     */
    FlClientHelper(std::shared_ptr<const fl::LearningTask> task,
                   Ipv4Address serverAddress,
                   uint16_t port = 9000);
    /// Sets an attribute of every client application (see FlClientApplication::GetTypeId).
    void SetAttribute(const std::string& name, const AttributeValue& value);
    /**
     * Heterogeneous devices: each client installed afterwards gets its FlopRate attribute
     * (FLOP/s) drawn from this variable, once, at Install (e.g. a LogNormalRandomVariable).
     * Draws below 1 FLOP/s are an error. Fix the variable's stream (SetStream) first for
     * reproducible speeds. nullptr returns to the FlopRate attribute.
     */
    void SetComputeSpeedVariable(Ptr<RandomVariableStream> flopsPerSecond);
    /// Installs one client per node; client indices firstIndex, firstIndex + 1, ...
    ApplicationContainer Install(const NodeContainer& nodes, uint32_t firstIndex = 0) const;

  private:
    std::shared_ptr<const fl::LearningTask> m_task;
    ObjectFactory m_factory;
    Ptr<RandomVariableStream> m_speed;
};

/**
 * Assigns fixed random stream numbers to every fl application in the container.
 * @return the number of streams used
 */
int64_t FlAssignStreams(const ApplicationContainer& apps, int64_t stream);

/**
 * \ingroup fl-helper
 * What FlFedAvgHelper::Install built.
 */
struct FlFedAvgStack
{
    ApplicationContainer serverApps; ///< the server (one application)
    ApplicationContainer clientApps; ///< one client per node, in client-index order
    Ptr<FlServerApplication> server; ///< the server application
    Ptr<LearningMonitor> monitor;    ///< observes the server and the clients
    FlSecAggParties secAgg;          ///< the secure-aggregation steps (SetSecureAggregation)
};

/**
 * \ingroup fl-helper
 * The whole FedAvg stack in one call: a server on one node, one client per node (client i
 * trains on the task's data set i), the transport attributes set alike on both sides, clients
 * started one after another (unsynchronised devices; simultaneous joins make ns-3.37's Wi-Fi
 * block-ack set-up fail more often), and a LearningMonitor on the server and the clients.
 *
 * \code
 *   FlFedAvgHelper fedavg(task);
 *   fedavg.SetServerAttribute("Rounds", UintegerValue(20));
 *   fedavg.SetTransportAttribute("Transport", StringValue("udp"));
 *   fedavg.SetMonitorAttribute("OutputFile", StringValue("run.csv"));
 *   FlFedAvgStack stack = fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress);
 *   fedavg.AssignStreams(stack, 100);
 *   Simulator::Run();
 * \endcode
 */
class FlFedAvgHelper
{
  public:
    /// @param task the learning task (shared by the server, the clients and the monitor)
    explicit FlFedAvgHelper(std::shared_ptr<const fl::LearningTask> task);

    /// Sets an attribute of the server (FlServerApplication).
    void SetServerAttribute(const std::string& name, const AttributeValue& value);
    /// Sets an attribute of every client (FlClientApplication).
    void SetClientAttribute(const std::string& name, const AttributeValue& value);
    /// Sets an FlApplicationBase (transport) attribute on the server and every client alike.
    void SetTransportAttribute(const std::string& name, const AttributeValue& value);
    /// Sets an attribute of the LearningMonitor (OutputFile, ClientOutputFile, Verbose).
    void SetMonitorAttribute(const std::string& name, const AttributeValue& value);
    /// Per-client compute speeds (see FlClientHelper::SetComputeSpeedVariable).
    void SetComputeSpeedVariable(Ptr<RandomVariableStream> flopsPerSecond);
    /**
     * The server's strategy (FlServerStrategy; default FedAvgStrategy), created at Install
     * from its TypeId name and attributes, e.g.
     * SetStrategy("ns3::FedBuffStrategy", "BufferSize", UintegerValue(10)), or by short name
     * (FlStrategyRegistry: "fedavg", "fedasync", "fedbuff", "qffl", or one a program
     * registered), which sets the client strategy of the pair too.
     */
    void SetStrategy(const std::string& typeName,
                     const std::string& n1 = "",
                     const AttributeValue& v1 = EmptyAttributeValue(),
                     const std::string& n2 = "",
                     const AttributeValue& v2 = EmptyAttributeValue(),
                     const std::string& n3 = "",
                     const AttributeValue& v3 = EmptyAttributeValue(),
                     const std::string& n4 = "",
                     const AttributeValue& v4 = EmptyAttributeValue());
    /// Sets one attribute of the strategy (after SetStrategy, or of the default FedAvgStrategy).
    void SetStrategyAttribute(const std::string& name, const AttributeValue& value);
    /// The server's strategy: this object itself (one server only).
    void SetStrategy(Ptr<FlServerStrategy> strategy);
    /**
     * The clients' strategy (FlClientStrategy; default: the task's training, the trained model
     * sent), one object per client created at Install from its TypeId name and attributes,
     * e.g. q-FFL: SetStrategy("ns3::QfflServerStrategy") with
     * SetClientStrategy("ns3::QfflClientStrategy", "Q", DoubleValue(5)). With SetUplinkCodec
     * it is the codec's inner client strategy.
     */
    void SetClientStrategy(const std::string& typeName,
                           const std::string& n1 = "",
                           const AttributeValue& v1 = EmptyAttributeValue(),
                           const std::string& n2 = "",
                           const AttributeValue& v2 = EmptyAttributeValue());
    /**
     * The privacy seam at every client's uplink: `make` is called once per client (a
     * perturbation may keep per-sender state) and its result set with
     * FlClientApplication::SetUplinkPerturbation.
     */
    void SetUplinkPerturbation(std::function<std::shared_ptr<fl::Perturbation>()> make);
    /**
     * The uplink codec as a stage around the strategy pair: one codec object (e.g.
     * fl::EgaUplinkCodec) shared by the server's CodecServerStrategy, around the server strategy
     * (SetStrategy; default FedAvgStrategy), and every client's CodecClientStrategy, around the
     * client strategy (SetClientStrategy; default the task's training), with LossWeightExponent
     * `lossWeightExponent` (loss-weighted FedAvg: weight = upload weight x meanLoss^q; 0: the
     * upload weight, by default the sample count; not q-FFL) and UploadIsModel `uploadIsModel`
     * on both halves (false for uploads that are changes already, e.g. SCAFFOLD's). The server
     * strategy must aggregate from a weighted mean (CodecServerStrategy::Start says which do
     * not). Null: no codec.
     */
    void SetUplinkCodec(std::shared_ptr<const fl::UplinkCodec> codec,
                        double lossWeightExponent = 0.0,
                        bool uploadIsModel = true);
    /**
     * Secure aggregation of the uploads (Bonawitz et al. 2017 or SecAgg+; configure `secagg`
     * first): Install creates the server half and one client half per client with
     * FlSecAggHelper::Create (client ids = client indices) and sets them as the uplink step of
     * the server and the clients. Each client uploads n_k w_k and n_k, both masked; the server
     * learns only sum n_k w_k and sum n_k, and the next global model is their quotient
     * (fl::FedAvgReferenceConfig::secureFractionBits is the in-process mirror). With an uplink
     * codec (SetUplinkCodec) that has a sum path (fl::UplinkCodec::SumSize, e.g.
     * fl::EgaUplinkCodec) the codec's two phases run first in the clear (statistic and weight
     * per client), then each client masks its payload values (EGA: its codes) with weight 1 and
     * the server learns only their sum over the survivors U3 and U3, and decodes that
     * (fl::UplinkAggregator::AddSum). Install throws fl::ConfigError if it is combined with an
     * uplink codec without a sum path, StragglerPolicy accept,
     * an asynchronous strategy, a strategy's ServerMomentum or ServerLearningRate != 1,
     * ClientSampling weighted, ClientsPerRound 1 or
     * fewer than 2 clients.
     */
    void SetSecureAggregation(const FlSecAggHelper& secagg);

    /// Server start, first client start, spacing (default 0, 0.5 s after Wi-Fi/LTE attach, 20 ms).
    void SetStartTimes(Time server, Time firstClient, Time clientSpacing);

    /**
     * Installs the server on `serverNode` and one client per node of `clients`, connected to
     * `serverAddress`, and a monitor; sets the start times. If a scene helper built
     * `serverNode` (FlSceneLinkState aggregated to it), the server hands the scene's link state
     * to its strategy (FlServerApplication::SetLinkStateProvider): client i's is that of the
     * scene's i-th client, so pass the scene's clients in order. Throws fl::ConfigError on a
     * combination SetSecureAggregation does not support.
     */
    FlFedAvgStack Install(Ptr<Node> serverNode,
                          const NodeContainer& clients,
                          Ipv4Address serverAddress) const;

    /**
     * Fixes the random streams of the stack's applications; returns how many it used. Without
     * it ns-3 numbers streams in the order generators are created, so a run with secure
     * aggregation (whose helper creates generators first) samples other clients than the same
     * run without: call it to pair such runs client for client.
     */
    static int64_t AssignStreams(const FlFedAvgStack& stack, int64_t stream);

  private:
    using AttributeList = std::vector<std::pair<std::string, Ptr<AttributeValue>>>;

    std::shared_ptr<const fl::LearningTask> m_task;
    FlServerHelper m_server;
    AttributeList m_clientAttributes;  ///< applied to every client in order
    AttributeList m_monitorAttributes; ///< applied to the monitor in order
    Ptr<RandomVariableStream> m_speed;
    ObjectFactory m_strategyFactory; ///< the server's strategy
    Ptr<FlServerStrategy> m_strategy; ///< or this object
    ObjectFactory m_clientStrategyFactory; ///< the clients' strategy (no TypeId: the default)
    std::function<std::shared_ptr<fl::Perturbation>()> m_makePerturbation;
    std::shared_ptr<const fl::UplinkCodec> m_codec;
    bool m_uploadIsModel{true};
    double m_lossWeightExponent{
        0.0}; ///< loss-weighted FedAvg's q for the clients' codec strategies
    std::shared_ptr<FlSecAggHelper> m_secAgg;
    Time m_serverStart{Seconds(0)};
    Time m_firstClient{Seconds(0.5)};
    Time m_clientSpacing{MilliSeconds(20)};
};

} // namespace ns3

#endif // FL_HELPER_H

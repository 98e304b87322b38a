/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/gfl-helper.h"

#include "ns3/boolean.h"
#include "ns3/csma-helper.h"
#include "ns3/double.h"
#include "ns3/error-model.h"
#include "ns3/fl-ns3-compat.h"
#include "ns3/fl-scene-internal.h"
#include "ns3/global-value.h"
#include "ns3/graph.h"
#include "ns3/inet-socket-address.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-address-helper.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/mesh-helper.h"
#include "ns3/mesh-point-device.h"
#include "ns3/mobility-helper.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/pointer.h"
#include "ns3/position-allocator.h"
#include "ns3/simulator.h"
#include "ns3/ssid.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"
#include "ns3/wifi-helper.h"
#include "ns3/wifi-mac-helper.h"
#include "ns3/wifi-net-device.h"
#include "ns3/wifi-phy.h"
#include "ns3/yans-wifi-helper.h"

#include <cmath>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlGflHelper");

using flscene::NeighborsOf;

namespace
{
constexpr uint16_t kGflPort = 9300;
constexpr uint16_t kAgentPort = 9200;

/// The subnet broadcast address of the interface of `node` that holds `local`.
Ipv4Address
SubnetBroadcastOf(Ptr<Node> node, Ipv4Address local)
{
    Ptr<Ipv4> ipv4 = node->GetObject<Ipv4>();
    for (uint32_t i = 0; ipv4 && i < ipv4->GetNInterfaces(); ++i)
    {
        for (uint32_t a = 0; a < ipv4->GetNAddresses(i); ++a)
        {
            if (ipv4->GetAddress(i, a).GetLocal() == local)
            {
                return ipv4->GetAddress(i, a).GetBroadcast();
            }
        }
    }
    NS_FATAL_ERROR("DiffusionHelper: node " << node->GetId() << " has no interface with address "
                                            << local
                                            << "; give each agent the address of its own node");
}

void
Fatal(const fl::ConfigError& e)
{
    NS_FATAL_ERROR(e.what());
}

std::string
TransportValue(const std::string& kind, const char* who)
{
    if (kind != "tcp" && kind != "udp")
    {
        NS_FATAL_ERROR(who << "::SetTransport: \"" << kind
                           << "\" is not a transport (use tcp or udp)");
    }
    return kind;
}
} // namespace

// ------------------------------------------------------------------ shared by GFL and GHP

FlGraphRunHelperBase::FlGraphRunHelperBase(std::shared_ptr<const fl::LearningTask> task,
                                           std::string transport)
    : m_task(std::move(task)),
      m_transport(std::move(transport)),
      m_tracker(CreateObject<FlLearningTracker>())
{
}

void
FlGraphRunHelperBase::SetNetwork(std::size_t nodes,
                                 const fl::NodeNoiseConfig& noise,
                                 const Eigen::MatrixXd& combination,
                                 double mu,
                                 double clipNorm,
                                 std::size_t parameters,
                                 double delta,
                                 const Eigen::VectorXd& reference)
{
    m_tracker->SetNetwork(
        nodes,
        reference,
        std::make_shared<fl::GraphPrivacyAccountant>(
            fl::MakeGraphPrivacyAccountant(combination, noise, mu, clipNorm, parameters, delta)));
}

void
FlGraphRunHelperBase::SetExchangeTimeout(Time timeout)
{
    m_timeout = timeout;
}

void
FlGraphRunHelperBase::SetTcpMinRto(Time minRto)
{
    if (!minRto.IsStrictlyPositive())
    {
        throw fl::ConfigError("TcpMinRto",
                              "must be positive",
                              "use e.g. 1s (ns-3's and RFC 6298's) or 200ms (Linux's)");
    }
    m_tcpMinRto = minRto;
}

void
FlGraphRunHelperBase::SetIterationCallback(fl::NetworkIterationCallback cb)
{
    m_tracker->SetIterationCallback(std::move(cb));
}

void
FlGraphRunHelperBase::SetStallTimeout(Time timeout)
{
    m_tracker->SetStallTimeout(timeout, []() { Simulator::Stop(); });
}

// ------------------------------------------------------------------------------------- GFL

FlGflHelper::FlGflHelper(std::shared_ptr<const fl::LearningTask> task, const fl::GflConfig& config)
    : FlGraphRunHelperBase(std::move(task), "tcp"),
      m_config(config)
{
    const auto P = static_cast<std::size_t>(m_config.combination.rows());
    try
    {
        fl::ValidateCombinationMatrix(m_config.combination,
                                      P,
                                      m_config.serverNoise.kind,
                                      "combination");
        if (m_config.clientsPerServer == 0 || m_task->NumClients() != P * m_config.clientsPerServer)
        {
            throw fl::ConfigError("clientsPerServer",
                                  "does not match the task's " +
                                      std::to_string(m_task->NumClients()) + " clients",
                                  "build the task with P * K clients");
        }
        if (!(m_config.dropoutProbability >= 0.0 && m_config.dropoutProbability < 1.0))
        {
            throw fl::ConfigError("dropoutProbability",
                                  "is " + std::to_string(m_config.dropoutProbability),
                                  "use a probability in [0, 1)");
        }
        if (m_config.clientNoise.kind == fl::NodeNoiseKind::IidBroadcast ||
            m_config.clientNoise.kind == fl::NodeNoiseKind::GraphHomomorphic)
        {
            throw fl::ConfigError("clientNoise",
                                  "is not none or iid-per-link",
                                  "use none or iid-per-link (noisy models / noisy updates)");
        }
        fl::CheckGflSecureAggregation(m_config);
        SetNetwork(P,
                   m_config.serverNoise,
                   m_config.combination,
                   m_config.mu,
                   m_config.clipNorm,
                   m_task->NumParameters(),
                   m_config.delta,
                   m_config.reference);
    }
    catch (const fl::ConfigError& e)
    {
        Fatal(e);
    }
}

void
FlGflHelper::SetTransport(const std::string& kind)
{
    TransportValue(kind, "FlGflHelper");
    m_transport = kind;
}

void
FlGflHelper::SetRoundDeadline(Time deadline)
{
    m_deadline = deadline;
}

void
FlGflHelper::SetSecondsPerSample(double s)
{
    m_secondsPerSample = s;
}

void
FlGflHelper::SetPartition(std::vector<uint32_t> rankOf, uint32_t localRank, Time grace)
{
    if (grace.IsStrictlyNegative())
    {
        NS_FATAL_ERROR("FlGflHelper: partition grace " << grace.As(Time::MS)
                                                       << " is negative; give >= 0");
    }
    m_rankOf = std::move(rankOf);
    m_localRank = localRank;
    m_grace = grace;
}

void
FlGflHelper::SetHandover(bool enable)
{
    m_handover = enable;
}

void
FlGflHelper::SetJoinWindow(Time window)
{
    if (window.IsStrictlyNegative())
    {
        fl::ExitOnConfigError("FlGflHelper",
                              fl::ConfigError("SetJoinWindow",
                                              "is negative",
                                              "give a window >= 0 (0: wait for all K clients)"));
    }
    m_joinWindow = window;
}

void
FlGflHelper::SetClientStartStagger(Time stagger)
{
    if (stagger.IsStrictlyNegative())
    {
        NS_FATAL_ERROR("FlGflHelper: client start stagger " << stagger.As(Time::MS)
                                                            << " is negative; give >= 0");
    }
    m_startStagger = stagger;
}

std::vector<Ptr<FlServerApplication>>
FlGflHelper::Install(const FlGraphScene& scene)
{
    const auto& A = m_config.combination;
    const auto P = static_cast<uint32_t>(A.rows());
    const auto K = static_cast<uint32_t>(m_config.clientsPerServer);
    if (scene.servers.GetN() != P || scene.cells.size() != P)
    {
        NS_FATAL_ERROR("FlGflHelper: the scene has " << scene.servers.GetN()
                                                     << " servers but the combination matrix " << P
                                                     << "; build it from the same matrix");
    }
    const std::string transport = TransportValue(m_transport, "FlGflHelper");
    const Time startStagger = m_startStagger.IsStrictlyNegative()
                                  ? (scene.cellKind == "wifi" ? MilliSeconds(2) : Time(0))
                                  : m_startStagger;
    if (scene.flowNetwork)
    {
        if (transport != "tcp")
        {
            Fatal(fl::ConfigError("FlGflHelper::SetTransport",
                                  "is " + transport + " on a flow-level scene",
                                  "use tcp (the flow model carries TCP's bytes) or build the "
                                  "scene in packet fidelity"));
        }
        const auto L = static_cast<uint32_t>(
            m_config.sampledClients > 0 ? m_config.sampledClients : m_config.clientsPerServer);
        if (scene.cellKind == "wifi" && L > FlGflFlowValidity::kMaxSampledPerCell)
        {
            scene.flowNetwork->AddWarning(
                "L = " + std::to_string(L) + " sampled clients per cell, above the " +
                std::to_string(FlGflFlowValidity::kMaxSampledPerCell) +
                " validated against packet-level runs (many stations contending at once for "
                "a cell: collisions the model does not capture make packet-level iterations "
                "longer)");
        }
        if (m_config.secureAggregation)
        {
            scene.flowNetwork->AddWarning("secure aggregation: the flow-level model of GFL was "
                                          "validated without it");
        }
        if (m_config.dropoutProbability > 0.0 || m_deadline.IsStrictlyPositive())
        {
            scene.flowNetwork->AddWarning("dropouts or a round deadline: the flow-level model "
                                          "of GFL was validated with every sampled client "
                                          "answering");
        }
    }
    const auto& taskTrainer = m_task->GetTrainerConfig();
    auto perClient = [&](const std::vector<std::size_t>& v, std::size_t c, std::size_t fallback) {
        return v.empty() ? fallback : (v.size() == 1 ? v.front() : v.at(c));
    };
    const bool partitioned = !m_rankOf.empty();
    if (partitioned && m_rankOf.size() != P)
    {
        NS_FATAL_ERROR("FlGflHelper: the partition gives ranks for "
                       << m_rankOf.size() << " servers but the combination matrix has " << P
                       << "; partition the same servers (fl::PartitionServers)");
    }
    auto local = [&](uint32_t p) { return !partitioned || m_rankOf[p] == m_localRank; };
    m_localFinished = std::make_shared<uint32_t>(0);
    uint32_t localServers = 0;
    for (uint32_t p = 0; p < P; ++p)
    {
        localServers += local(p) ? 1 : 0;
    }
    if (!partitioned)
    {
        // a flow-level run says at its end which validated bounds it crossed
        Ptr<FlFlowNetwork> flow = scene.flowNetwork;
        m_tracker->SetFinish(m_config.iterations, [flow]() {
            if (flow)
            {
                FlPrintGraphFlowWarnings("FlGflHelper", flow);
            }
            Simulator::Stop(MilliSeconds(100));
        });
    }
    // A server learns of a dropout only from the client's silence: with dropouts the round
    // needs a deadline (GflDropoutDeadline() unless one was set).
    // Roaming cells: a client may leave a cell mid-round, and it is silent there too.
    const bool roaming = scene.membership != nullptr;
    const bool handover = roaming && m_handover;
    if (handover && m_config.secureAggregation)
    {
        fl::ExitOnConfigError(
            "FlGflHelper",
            fl::ConfigError("FlGraphSceneHelper::SetCellRoaming",
                            "roaming cells with secure aggregation",
                            "secure aggregation's rosters are fixed per server; build the scene "
                            "without roaming, or run without secure aggregation"));
    }
    // Roaming cells: a server's own clients may be in other cells at the start
    const Time joinWindow = m_joinWindow.IsStrictlyNegative()
                                ? (roaming ? GflRoamingJoinWindow() : Seconds(0))
                                : m_joinWindow;
    const Time deadline =
        ((m_config.dropoutProbability > 0.0 || roaming) && !m_deadline.IsStrictlyPositive())
            ? GflDropoutDeadline()
            : m_deadline;
    if (m_config.secureAggregation)
    {
        m_secAgg.SetAttribute("FractionBits", UintegerValue(m_config.maskFractionBits));
        m_secAgg.SetAttribute("Threshold", UintegerValue(m_config.secureThreshold));
        const uint32_t K = static_cast<uint32_t>(m_config.clientsPerServer);
        const uint32_t L =
            m_config.sampledClients == 0
                ? K
                : std::min<uint32_t>(K, static_cast<uint32_t>(m_config.sampledClients));
        m_secAgg.SetCohortSize(L); // the clients refuse smaller rosters
    }
    std::vector<Ptr<FlServerApplication>> servers;
    for (uint32_t p = 0; p < P; ++p)
    {
        if (!local(p))
        {
            continue; // another rank's server
        }
        GflServerStrategy::Config sc;
        sc.clientsPerServer = K;
        sc.sampledClients = static_cast<uint32_t>(m_config.sampledClients);
        sc.serverSeed = fl::GflServerSeed(m_config.seed, p);
        sc.uplink = m_config.uplink;
        sc.mu = m_config.mu;
        sc.exchange.self = p;
        sc.exchange.selfWeight = A(p, p);
        for (uint32_t l : NeighborsOf(A, p))
        {
            FlGraphExchangeConfig::Neighbor nb;
            nb.index = l;
            nb.address = InetSocketAddress(scene.peerAddress.at({p, l}), kGflPort);
            nb.weight = A(l, p);
            sc.exchange.neighbors.push_back(nb);
        }
        sc.exchange.noise = m_config.serverNoise;
        sc.exchange.seed = sc.serverSeed;
        sc.exchange.policy = m_config.missingPolicy;
        sc.exchange.timeout = m_timeout;
        sc.followCells = handover;
        Ptr<GflServerStrategy> step;
        try
        {
            step = CreateObject<GflServerStrategy>(sc);
        }
        catch (const fl::ConfigError& e)
        {
            Fatal(e);
        }
        if (partitioned)
        {
            // this rank stops once its own servers are done (the tracker would wait for all)
            const uint32_t last = m_config.iterations;
            const Time grace = m_grace;
            auto finished = m_localFinished;
            step->SetIterationCallback([=](const GflIterationReport& r) {
                if (r.iteration == last && ++*finished == localServers)
                {
                    Simulator::Stop(grace);
                }
            });
        }
        m_steps.push_back(step);

        Ptr<FlServerApplication> server = CreateObject<FlServerApplication>();
        server->SetAttribute("Transport", StringValue(transport));
        server->SetAttribute("TcpMinRto", TimeValue(m_tcpMinRto));
        server->SetAttribute("Port", UintegerValue(kGflPort));
        server->SetAttribute("Rounds", UintegerValue(m_config.iterations));
        server->SetAttribute("ExpectedClients", UintegerValue(K));
        server->SetAttribute("InitSeed", UintegerValue(fl::InitialModelSeed(m_config.seed)));
        server->SetAttribute("StopSimulation", BooleanValue(false));
        server->SetAttribute("RoundDeadline", TimeValue(deadline));
        server->SetAttribute("JoinWindow", TimeValue(joinWindow));
        server->SetTask(m_task);
        server->SetStrategy(step);
        if (roaming)
        {
            // the cell each client is in: what the server's AP knows of its associations
            Ptr<FlCellMembership> membership = scene.membership;
            std::vector<Ptr<Node>> clientNodes;
            for (const auto& cell : scene.cells)
            {
                for (uint32_t k = 0; k < cell.GetN(); ++k)
                {
                    clientNodes.push_back(cell.Get(k));
                }
            }
            NodeContainer serverNodes = scene.servers;
            server->SetLinkStateProvider([membership, clientNodes, serverNodes](uint32_t c) {
                FlLinkState st;
                if (c >= membership->cell.size())
                {
                    return st;
                }
                st.cell = membership->cell[c];
                st.handovers =
                    membership->associations[c] > 0 ? membership->associations[c] - 1 : 0;
                if (membership->lastCell[c] >= 0)
                {
                    st.distanceM = FlNodeDistance(
                        clientNodes[c],
                        serverNodes.Get(static_cast<uint32_t>(membership->lastCell[c])));
                }
                return st;
            });
        }
        FlSecAggParties parties;
        if (m_config.secureAggregation)
        {
            std::vector<uint32_t> ids;
            for (uint32_t k = 0; k < K; ++k)
            {
                ids.push_back(p * K + k);
            }
            try
            {
                parties = m_secAgg.Create(ids);
            }
            catch (const fl::ConfigError& e)
            {
                Fatal(e);
            }
            server->SetUplinkStep(parties.server);
            m_parties.push_back(parties);
        }
        server->SetStartTime(Seconds(0.1));
        scene.servers.Get(p)->AddApplication(server);
        servers.push_back(server);

        for (uint32_t k = 0; k < K; ++k)
        {
            const uint32_t c = p * K + k;
            Ptr<FlClientApplication> client = CreateObject<FlClientApplication>();
            client->SetAttribute("Transport", StringValue(transport));
            client->SetAttribute("TcpMinRto", TimeValue(m_tcpMinRto));
            client->SetAttribute("ServerAddress", AddressValue(scene.cellServer[p]));
            client->SetAttribute("ServerPort", UintegerValue(kGflPort));
            client->SetAttribute("ClientIndex", UintegerValue(c));
            client->SetAttribute("TrainingSeed",
                                 UintegerValue(fl::GflClientSeed(m_config.seed, p, k)));
            client->SetAttribute("SecondsPerSample", DoubleValue(m_secondsPerSample));
            client->SetTask(m_task);
            try
            {
                GflClientStrategy::Config cc;
                cc.trainer = fl::GflTrainerConfig(
                    m_config.mu,
                    perClient(m_config.work.localSteps, c, taskTrainer.localSteps),
                    perClient(m_config.work.batchSizes, c, taskTrainer.batchSize),
                    m_config.clipNorm);
                cc.uplink = m_config.uplink;
                cc.mu = m_config.mu;
                cc.server = p;
                cc.dropoutProbability = m_config.dropoutProbability;
                cc.noiseSource = m_config.clientNoise.source;
                client->SetStrategy(CreateObject<GflClientStrategy>(cc));
                if (m_config.secureAggregation)
                {
                    client->SetUplinkStep(parties.clients.at(c));
                }
                if (m_config.clientNoise.kind != fl::NodeNoiseKind::None)
                {
                    client->SetUplinkPerturbation(std::shared_ptr<fl::Perturbation>(
                        fl::MakeNodePerturbation(m_config.clientNoise, 1.0, "clientNoise")));
                }
            }
            catch (const fl::ConfigError& e)
            {
                Fatal(e);
            }
            client->SetStartTime(Seconds(0.2) + startStagger * k);
            scene.cells[p].Get(k)->AddApplication(client);
            m_clients.push_back(client);
        }
    }
    if (roaming)
    {
        // a client associated with another server's AP joins that server (with handover); one
        // back in its server's cell joins it again (the server may have forgotten it)
        std::vector<Ptr<FlClientApplication>> clients = m_clients;
        std::vector<Ipv4Address> cellServer = scene.cellServer;
        scene.membership->onAssociation = [clients, cellServer, handover](uint32_t c,
                                                                          uint32_t server) {
            Ptr<FlClientApplication> client = clients.at(c);
            if (client->GetServerAddress() == cellServer.at(server))
            {
                client->Rejoin();
            }
            else if (handover)
            {
                client->SwitchServer(cellServer.at(server));
            }
        };
    }
    if (!partitioned)
    {
        // server p is graph node p: its ModelReport carries psi_{p,i}, the missing neighbour
        // messages and the dropped clients (GflServerStrategy::DescribeModel)
        m_tracker->InstallNetwork(
            std::vector<Ptr<FlApplicationBase>>(servers.begin(), servers.end()));
    }
    return servers;
}

// ------------------------------------------------------------------------------ diffusion

DiffusionHelper::DiffusionHelper(std::shared_ptr<const fl::LearningTask> task,
                                 const fl::DiffusionConfig& config)
    : FlGraphRunHelperBase(std::move(task), "broadcast"),
      m_config(config)
{
    const std::size_t n = m_task->NumClients();
    try
    {
        fl::DiffusionAdaptConfig(m_config.mu, m_config.batchSize, m_config.clipNorm);
        if (m_config.combination.size() == 0)
        {
            // a graph learned from the network (SetNeighbourDiscovery): the epsilons of a
            // changing graph, from the weights the agents report
            const fl::MechanismSpec mech =
                fl::MakeNodePerturbation(m_config.noise, 0.5, "combination weight")->Mechanism(0.0);
            m_tracker->SetNetwork(n, m_config.reference, nullptr);
            m_tracker->SetLiveGraphAccountant(
                std::make_shared<fl::LiveGraphPrivacyAccountant>(m_config.noise.kind,
                                                                 mech.kind,
                                                                 mech.scale,
                                                                 m_config.mu,
                                                                 m_config.clipNorm,
                                                                 m_task->NumParameters(),
                                                                 n,
                                                                 m_config.delta));
            return;
        }
        fl::ValidateCombinationMatrix(m_config.combination, n, m_config.noise.kind, "combination");
        SetNetwork(n,
                   m_config.noise,
                   m_config.combination,
                   m_config.mu,
                   m_config.clipNorm,
                   m_task->NumParameters(),
                   m_config.delta,
                   m_config.reference);
    }
    catch (const fl::ConfigError& e)
    {
        Fatal(e);
    }
}

void
DiffusionHelper::SetNeighbourDiscovery(Time interval, Time timeout)
{
    FlHelloApplication::CheckDiscovery(interval, timeout);
    if (m_config.combination.size() != 0)
    {
        throw fl::ConfigError("combination",
                              "is given, but the neighbours and weights are to be learned from "
                              "the hellos",
                              "give the configuration an empty combination matrix");
    }
    m_helloInterval = interval;
    m_helloTimeout = timeout;
}

void
DiffusionHelper::SetTransport(const std::string& kind)
{
    if (kind != "broadcast")
    {
        TransportValue(kind, "DiffusionHelper");
    }
    m_transport = kind;
}

void
DiffusionHelper::SetComputeTime(Time t)
{
    m_compute = t;
}

void
DiffusionHelper::SetIterationPeriod(Time period)
{
    m_period = period;
}

void
DiffusionHelper::SetReleaseJitter(Time jitter)
{
    m_jitter = jitter;
}

int64_t
DiffusionHelper::AssignStreams(int64_t stream)
{
    m_stream = stream;
    const auto n = static_cast<int64_t>(m_task->NumClients());
    return m_config.combination.size() == 0 ? 2 * n : n; // hellos: n more
}

void
DiffusionHelper::SetLinkLossCallback(LinkLossCallback cb)
{
    m_linkLoss = std::make_shared<LinkLossCallback>(std::move(cb));
}

std::vector<Ptr<DiffusionAgentApplication>>
DiffusionHelper::Install(const NodeContainer& nodes, const std::vector<Ipv4Address>& addresses)
{
    const auto& A = m_config.combination;
    const auto n = static_cast<uint32_t>(m_task->NumClients());
    if (A.size() == 0 && !Live())
    {
        Fatal(fl::ConfigError("combination",
                              "is empty and no neighbour discovery is set",
                              "give a combination matrix, or call SetNeighbourDiscovery"));
    }
    if (nodes.GetN() != n || addresses.size() != n)
    {
        NS_FATAL_ERROR("DiffusionHelper: " << nodes.GetN() << " nodes and " << addresses.size()
                                           << " addresses for " << n
                                           << " agents; give one node and address per agent");
    }
    const bool broadcast = m_transport == "broadcast";
    const std::string transport =
        broadcast ? std::string("udp") : TransportValue(m_transport, "DiffusionHelper");
    Time timeout = m_timeout;
    if (timeout.IsZero() && m_period.IsStrictlyPositive())
    {
        timeout = Seconds(m_period.GetSeconds() * 0.9) - m_compute - m_jitter;
    }
    else if (timeout.IsZero() && broadcast)
    {
        timeout = Seconds(1);
    }
    fl::Rng initRng(fl::InitialModelSeed(m_config.seed));
    const fl::ParamVector w0 = m_task->InitialParameters(initRng);
    Time agentStart = Seconds(0.1);
    m_hellos.clear();
    if (Live())
    {
        for (uint32_t k = 0; k < n; ++k)
        {
            Ptr<FlHelloApplication> hello = FlHelloApplication::InstallOn(nodes.Get(k),
                                                                          k,
                                                                          m_helloInterval,
                                                                          m_helloTimeout,
                                                                          Seconds(0.1));
            if (m_stream >= 0)
            {
                hello->AssignStreams(m_stream + n + k);
            }
            m_hellos.push_back(hello);
        }
        agentStart = Seconds(0.1) + 3 * m_helloInterval;
    }
    m_tracker->SetFinish(m_config.iterations, []() { Simulator::Stop(MilliSeconds(100)); });
    std::vector<Ptr<DiffusionAgentApplication>> agents;
    for (uint32_t k = 0; k < n; ++k)
    {
        FlGraphExchangeConfig ex;
        ex.self = k;
        if (Live())
        {
            // this iteration's neighbours and Metropolis column, from the hellos heard
            Ptr<FlHelloApplication> hello = m_hellos[k];
            ex.selfWeight = 1.0;
            ex.nodes = n;
            ex.neighbourSource = [hello](uint32_t) { return hello->GetNeighbourhood(kAgentPort); };
        }
        else
        {
            ex.selfWeight = A(k, k);
            for (uint32_t l : NeighborsOf(A, k))
            {
                FlGraphExchangeConfig::Neighbor nb;
                nb.index = l;
                nb.address = InetSocketAddress(addresses[l], kAgentPort);
                nb.weight = A(l, k);
                ex.neighbors.push_back(nb);
            }
        }
        ex.noise = m_config.noise;
        ex.seed = fl::DiffusionAgentSeed(m_config.seed, k);
        ex.policy = m_config.missingPolicy;
        ex.timeout = timeout;
        Ptr<DiffusionAgentApplication> app = CreateObject<DiffusionAgentApplication>();
        app->SetAttribute("Transport", StringValue(transport));
        app->SetAttribute("TcpMinRto", TimeValue(m_tcpMinRto));
        if (broadcast)
        {
            app->SetAttribute("HolePolicy", StringValue("drop"));
            app->SetAttribute("UdpBroadcastAddress",
                              Ipv4AddressValue(SubnetBroadcastOf(nodes.Get(k), addresses[k])));
        }
        app->SetAttribute("Port", UintegerValue(kAgentPort));
        app->SetAttribute("Iterations", UintegerValue(m_config.iterations));
        app->SetAttribute("AgentIndex", UintegerValue(k));
        app->SetAttribute("Mu", DoubleValue(m_config.mu));
        app->SetAttribute("BatchSize", UintegerValue(m_config.batchSize));
        app->SetAttribute("ClipNorm", DoubleValue(m_config.clipNorm));
        app->SetAttribute("ComputeTime", TimeValue(m_compute));
        app->SetAttribute("IterationPeriod", TimeValue(m_period));
        app->SetAttribute("ReleaseJitter", TimeValue(m_jitter));
        if (m_stream >= 0)
        {
            app->AssignStreams(m_stream + k);
        }
        app->SetTask(m_task);
        app->SetExchange(ex);
        app->SetInitialModel(w0);
        std::shared_ptr<LinkLossCallback> linkLoss = m_linkLoss;
        DiffusionAgentApplication* self = PeekPointer(app);
        if (linkLoss)
        {
            app->SetIterationCallback([linkLoss, self](uint32_t agent,
                                                       uint32_t i,
                                                       const fl::ParamVector&,
                                                       const fl::ParamVector&,
                                                       const fl::CombineOutcome&) {
                if (*linkLoss)
                {
                    for (uint32_t l : self->GetLastMissing())
                    {
                        (*linkLoss)(i, l, agent);
                    }
                }
            });
        }
        app->SetStartTime(agentStart);
        nodes.Get(k)->AddApplication(app);
        agents.push_back(app);
    }
    // agent k is graph node k: its ModelReport carries phi_{k,i} and the missing messages
    m_tracker->InstallNetwork(std::vector<Ptr<FlApplicationBase>>(agents.begin(), agents.end()));
    return agents;
}

} // namespace ns3

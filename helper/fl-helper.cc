/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/fl-helper.h"

#include "ns3/fl-strategy-registry.h"
#include "ns3/fl-network-scenarios.h"

#include "ns3/address.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

namespace ns3
{

namespace
{

/**
 * The TypeId of the strategy `typeName` (a `parameter` of FlFedAvgHelper), a child of `base`
 * with a constructor; throws fl::ConfigError naming what is missing: the registration (a type
 * defined in a program needs NS_OBJECT_ENSURE_REGISTERED), the base class or the constructor.
 */
TypeId
FlStrategyTypeId(const std::string& parameter,
                 const std::string& typeName,
                 TypeId base,
                 const std::string& examples)
{
    TypeId tid;
    if (!TypeId::LookupByNameFailSafe(typeName, &tid))
    {
        throw fl::ConfigError(parameter,
                              "no TypeId \"" + typeName + "\" is registered",
                              "a strategy defined in your program needs "
                              "NS_OBJECT_ENSURE_REGISTERED(<class>) at file scope; or use e.g. " +
                                  examples);
    }
    if (!tid.IsChildOf(base))
    {
        throw fl::ConfigError(parameter,
                              "\"" + typeName + "\" is not a " + base.GetName(),
                              "derive it from " + base.GetName() + ", or use e.g. " + examples);
    }
    if (!tid.HasConstructor())
    {
        throw fl::ConfigError(parameter,
                              "\"" + typeName + "\" has no constructor in its TypeId",
                              "add .AddConstructor<" + typeName.substr(typeName.rfind(':') + 1) +
                                  ">() to its GetTypeId()");
    }
    return tid;
}

} // namespace

FlServerHelper::FlServerHelper(std::shared_ptr<const fl::LearningTask> task)
    : m_task(std::move(task))
{
    if (!m_task)
    {
        NS_FATAL_ERROR("FlServerHelper: task is null; build a fl::SupervisedTask first");
    }
    m_factory.SetTypeId(FlServerApplication::GetTypeId());
}

void
FlServerHelper::SetAttribute(const std::string& name, const AttributeValue& value)
{
    m_factory.Set(name, value);
}

ApplicationContainer
FlServerHelper::Install(Ptr<Node> node) const
{
    Ptr<FlServerApplication> app = m_factory.Create<FlServerApplication>();
    app->SetTask(m_task);
    node->AddApplication(app);
    return ApplicationContainer(app);
}

FlClientHelper::FlClientHelper(std::shared_ptr<const fl::LearningTask> task,
                               Ipv4Address serverAddress,
                               uint16_t port)
    : m_task(std::move(task))
{
    if (!m_task)
    {
        NS_FATAL_ERROR("FlClientHelper: task is null; build a fl::SupervisedTask first");
    }
    m_factory.SetTypeId(FlClientApplication::GetTypeId());
    m_factory.Set("ServerAddress", AddressValue(serverAddress));
    m_factory.Set("ServerPort", UintegerValue(port));
}

void
FlClientHelper::SetAttribute(const std::string& name, const AttributeValue& value)
{
    m_factory.Set(name, value);
}

void
FlClientHelper::SetComputeSpeedVariable(Ptr<RandomVariableStream> flopsPerSecond)
{
    m_speed = flopsPerSecond;
}

ApplicationContainer
FlClientHelper::Install(const NodeContainer& nodes, uint32_t firstIndex) const
{
    if (firstIndex + nodes.GetN() > m_task->NumClients())
    {
        NS_FATAL_ERROR("FlClientHelper: installing clients "
                       << firstIndex << ".." << firstIndex + nodes.GetN() - 1
                       << " but the task has only " << m_task->NumClients()
                       << " client data sets; partition the "
                          "data into as many parts as clients");
    }
    ApplicationContainer apps;
    for (uint32_t i = 0; i < nodes.GetN(); ++i)
    {
        Ptr<FlClientApplication> app = m_factory.Create<FlClientApplication>();
        app->SetAttribute("ClientIndex", UintegerValue(firstIndex + i));
        if (m_speed)
        {
            const double speed = m_speed->GetValue();
            if (!(speed >= 1.0))
            {
                NS_FATAL_ERROR("FlClientHelper::SetComputeSpeedVariable: drew a speed of "
                               << speed << " FLOP/s for client " << firstIndex + i
                               << "; use a distribution of positive rates such as "
                                  "LogNormalRandomVariable with Mu = ln(1e9)");
            }
            app->SetAttribute("FlopRate", DoubleValue(speed));
        }
        app->SetTask(m_task);
        nodes.Get(i)->AddApplication(app);
        apps.Add(app);
    }
    return apps;
}

int64_t
FlAssignStreams(const ApplicationContainer& apps, int64_t stream)
{
    int64_t used = 0;
    for (auto it = apps.Begin(); it != apps.End(); ++it)
    {
        if (auto s = DynamicCast<FlServerApplication>(*it))
        {
            used += s->AssignStreams(stream + used);
        }
        else if (auto c = DynamicCast<FlClientApplication>(*it))
        {
            used += c->AssignStreams(stream + used);
        }
    }
    return used;
}

FlFedAvgHelper::FlFedAvgHelper(std::shared_ptr<const fl::LearningTask> task)
    : m_task(task),
      m_server(task)
{
    m_strategyFactory.SetTypeId(FedAvgStrategy::GetTypeId());
}

void
FlFedAvgHelper::SetServerAttribute(const std::string& name, const AttributeValue& value)
{
    m_server.SetAttribute(name, value);
}

void
FlFedAvgHelper::SetClientAttribute(const std::string& name, const AttributeValue& value)
{
    m_clientAttributes.emplace_back(name, value.Copy());
}

void
FlFedAvgHelper::SetTransportAttribute(const std::string& name, const AttributeValue& value)
{
    SetServerAttribute(name, value);
    SetClientAttribute(name, value);
}

void
FlFedAvgHelper::SetMonitorAttribute(const std::string& name, const AttributeValue& value)
{
    m_monitorAttributes.emplace_back(name, value.Copy());
}

void
FlFedAvgHelper::SetComputeSpeedVariable(Ptr<RandomVariableStream> flopsPerSecond)
{
    m_speed = flopsPerSecond;
}

void
FlFedAvgHelper::SetStrategy(const std::string& typeName,
                            const std::string& n1,
                            const AttributeValue& v1,
                            const std::string& n2,
                            const AttributeValue& v2,
                            const std::string& n3,
                            const AttributeValue& v3,
                            const std::string& n4,
                            const AttributeValue& v4)
{
    // a short name (FlStrategyRegistry) names both halves; a TypeId name the server's
    std::string serverType = typeName;
    if (typeName.find("::") == std::string::npos)
    {
        const FlStrategyEntry entry = FlStrategyRegistry::Get(typeName);
        serverType = entry.serverType;
        if (!entry.clientType.empty())
        {
            SetClientStrategy(entry.clientType);
        }
    }
    const TypeId tid = FlStrategyTypeId("strategy",
                                        serverType,
                                        FlServerStrategy::GetTypeId(),
                                        "fedavg, fedasync, fedbuff, qffl, ns3::FedAvgStrategy, "
                                        "ns3::FedAsyncStrategy or ns3::FedBuffStrategy");
    m_strategyFactory = ObjectFactory();
    m_strategyFactory.SetTypeId(tid);
    m_strategy = nullptr;
    const std::pair<const std::string*, const AttributeValue*> attrs[] = {{&n1, &v1},
                                                                          {&n2, &v2},
                                                                          {&n3, &v3},
                                                                          {&n4, &v4}};
    for (const auto& a : attrs)
    {
        if (!a.first->empty())
        {
            m_strategyFactory.Set(*a.first, *a.second);
        }
    }
}

void
FlFedAvgHelper::SetClientStrategy(const std::string& typeName,
                                  const std::string& n1,
                                  const AttributeValue& v1,
                                  const std::string& n2,
                                  const AttributeValue& v2)
{
    const TypeId tid = FlStrategyTypeId("clientStrategy",
                                        typeName,
                                        FlClientStrategy::GetTypeId(),
                                        "ns3::QfflClientStrategy");
    m_clientStrategyFactory = ObjectFactory();
    m_clientStrategyFactory.SetTypeId(tid);
    for (const auto& a : {std::make_pair(&n1, &v1), std::make_pair(&n2, &v2)})
    {
        if (!a.first->empty())
        {
            m_clientStrategyFactory.Set(*a.first, *a.second);
        }
    }
}

void
FlFedAvgHelper::SetStrategyAttribute(const std::string& name, const AttributeValue& value)
{
    m_strategyFactory.Set(name, value);
}

void
FlFedAvgHelper::SetStrategy(Ptr<FlServerStrategy> strategy)
{
    m_strategy = strategy;
}

void
FlFedAvgHelper::SetUplinkPerturbation(std::function<std::shared_ptr<fl::Perturbation>()> make)
{
    m_makePerturbation = std::move(make);
}

void
FlFedAvgHelper::SetUplinkCodec(std::shared_ptr<const fl::UplinkCodec> codec,
                               double lossWeightExponent,
                               bool uploadIsModel)
{
    m_codec = std::move(codec);
    m_lossWeightExponent = lossWeightExponent;
    m_uploadIsModel = uploadIsModel;
}

void
FlFedAvgHelper::SetSecureAggregation(const FlSecAggHelper& secagg)
{
    m_secAgg = std::make_shared<FlSecAggHelper>(secagg);
}

void
FlFedAvgHelper::SetStartTimes(Time server, Time firstClient, Time clientSpacing)
{
    m_serverStart = server;
    m_firstClient = firstClient;
    m_clientSpacing = clientSpacing;
}

FlFedAvgStack
FlFedAvgHelper::Install(Ptr<Node> serverNode,
                        const NodeContainer& clients,
                        Ipv4Address serverAddress) const
{
    FlFedAvgStack stack;
    stack.serverApps = m_server.Install(serverNode);
    stack.server = DynamicCast<FlServerApplication>(stack.serverApps.Get(0));
    if (Ptr<FlSceneLinkState> links = FlGetSceneLinkState(serverNode))
    {
        // the scene's link state (FlSceneLinkState) for the strategy's port; the server node
        // keeps it as long as the server lives (a Ptr here would hold the node in a cycle)
        const FlSceneLinkState* source = PeekPointer(links);
        stack.server->SetLinkStateProvider(
            [source](uint32_t client) { return source->Get(client); });
    }
    Ptr<FlServerStrategy> strategy =
        m_strategy ? m_strategy : m_strategyFactory.Create<FlServerStrategy>();
    if (m_codec)
    {
        // The codec is a stage around the strategy: it carries the uploads, the strategy
        // aggregates their decoded mean (CodecServerStrategy::Start checks that it can).
        Ptr<CodecServerStrategy> codecStrategy = CreateObject<CodecServerStrategy>();
        codecStrategy->SetCodec(m_codec);
        codecStrategy->SetInner(strategy);
        codecStrategy->SetAttribute("UploadIsModel", BooleanValue(m_uploadIsModel));
        codecStrategy->CheckInner(m_task->NumParameters()); // said now, not when it starts
        strategy = codecStrategy;
    }
    stack.server->SetStrategy(strategy);
    UintegerValue port;
    stack.server->GetAttribute("Port", port);
    FlClientHelper clientHelper(m_task, serverAddress, static_cast<uint16_t>(port.Get()));
    for (const auto& kv : m_clientAttributes)
    {
        clientHelper.SetAttribute(kv.first, *kv.second);
    }
    if (m_speed)
    {
        clientHelper.SetComputeSpeedVariable(m_speed);
    }
    if (m_secAgg)
    {
        // What secure aggregation cannot be combined with, said before the run.
        if (m_codec && m_codec->SumSize(m_task->NumParameters()) == 0)
        {
            throw fl::ConfigError("SetSecureAggregation",
                                  "combined with the uplink codec " + m_codec->Name() +
                                      ", whose payloads do not add in the encoded domain",
                                  "use one of them, or a codec with a sum path "
                                  "(fl::UplinkCodec::SumSize, e.g. fl::EgaUplinkCodec)");
        }
        // The server's rules with this strategy and an uplink step, checked now (the server
        // checks the same when it starts), with the clients about to be installed.
        FlRoundRules rules = stack.server->RoundRules(*strategy, m_task->NumParameters(), true);
        if (rules.expectedClients == 0)
        {
            rules.expectedClients = clients.GetN();
        }
        FlCheckRoundRules(rules, [](const std::string& attribute) {
            return attribute == "ExpectedClients" ? std::string("clients") : attribute;
        });
        UintegerValue perRound;
        stack.server->GetAttribute("ClientsPerRound", perRound);
        if (perRound.Get() == 1 || clients.GetN() < 2)
        {
            throw fl::ConfigError("ClientsPerRound",
                                  perRound.Get() == 1 ? std::string("1 with secure aggregation")
                                                      : std::to_string(clients.GetN()) +
                                                            " client(s) with secure aggregation",
                                  "sample at least 2 clients: the sum of one upload is the "
                                  "upload");
        }
    }
    stack.clientApps = clientHelper.Install(clients);
    if (m_secAgg)
    {
        std::vector<uint32_t> ids;
        for (uint32_t i = 0; i < stack.clientApps.GetN(); ++i)
        {
            ids.push_back(
                DynamicCast<FlClientApplication>(stack.clientApps.Get(i))->GetClientIndex());
        }
        // The rosters the server will sample: a synchronous round's ClientsPerRound (0: all),
        // an asynchronous strategy's cohort. The clients refuse smaller rosters (MinClients,
        // unless set), and a rule that cannot serve this size (e.g. a Threshold above it) is a
        // configuration error now, not an idle run.
        UintegerValue perRound;
        stack.server->GetAttribute("ClientsPerRound", perRound);
        const uint32_t all = static_cast<uint32_t>(ids.size());
        FlAsyncHooks* async = FlAsyncHooksOf(PeekPointer(strategy));
        const uint32_t cohort =
            async ? async->UplinkCohortSize()
                  : (perRound.Get() == 0 ? all : std::min<uint32_t>(all, perRound.Get()));
        m_secAgg->SetCohortSize(cohort);
        m_secAgg->Guarantee(cohort); // throws ConfigError naming the attribute
        stack.secAgg = m_secAgg->Create(ids);
        stack.server->SetUplinkStep(stack.secAgg.server);
        for (uint32_t i = 0; i < stack.clientApps.GetN(); ++i)
        {
            auto c = DynamicCast<FlClientApplication>(stack.clientApps.Get(i));
            c->SetUplinkStep(stack.secAgg.clients.at(ids[i]));
        }
    }
    for (uint32_t i = 0; m_makePerturbation && i < stack.clientApps.GetN(); ++i)
    {
        DynamicCast<FlClientApplication>(stack.clientApps.Get(i))
            ->SetUplinkPerturbation(m_makePerturbation());
    }
    if (m_codec && m_makePerturbation && m_lossWeightExponent != 0.0)
    {
        throw fl::ConfigError("SetUplinkPerturbation",
                              "with the uplink codec " + m_codec->Name() +
                                  " and a loss weight exponent of " +
                                  std::to_string(m_lossWeightExponent) +
                                  ": the phase-1 weight depends on the training loss, which the "
                                  "noise does not cover, and no epsilon bounds it",
                              "use a loss weight exponent of 0 with uplink noise (the codec then "
                              "sends only functions of the noised upload and the public weight)");
    }
    const bool clientStrategy = m_clientStrategyFactory.GetTypeId() != TypeId();
    for (uint32_t i = 0; (clientStrategy || m_codec) && i < stack.clientApps.GetN(); ++i)
    {
        Ptr<FlClientStrategy> s = clientStrategy
                                      ? m_clientStrategyFactory.Create<FlClientStrategy>()
                                      : CreateObject<FlClientStrategy>();
        if (m_codec)
        {
            Ptr<CodecClientStrategy> c = CreateObject<CodecClientStrategy>();
            c->SetCodec(m_codec);
            c->SetInner(s);
            c->SetAttribute("LossWeightExponent", DoubleValue(m_lossWeightExponent));
            c->SetAttribute("UploadIsModel", BooleanValue(m_uploadIsModel));
            s = c;
        }
        DynamicCast<FlClientApplication>(stack.clientApps.Get(i))->SetStrategy(s);
    }
    stack.serverApps.Start(m_serverStart);
    for (uint32_t i = 0; i < stack.clientApps.GetN(); ++i)
    {
        stack.clientApps.Get(i)->SetStartTime(m_firstClient + m_clientSpacing * i);
    }
    stack.monitor = CreateObject<LearningMonitor>();
    for (const auto& kv : m_monitorAttributes)
    {
        stack.monitor->SetAttribute(kv.first, *kv.second);
    }
    stack.monitor->Install(stack.server);
    stack.monitor->InstallClients(stack.clientApps);
    return stack;
}

int64_t
FlFedAvgHelper::AssignStreams(const FlFedAvgStack& stack, int64_t stream)
{
    const int64_t used = FlAssignStreams(stack.serverApps, stream);
    return used + FlAssignStreams(stack.clientApps, stream + used);
}

} // namespace ns3

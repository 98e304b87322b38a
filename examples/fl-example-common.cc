/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * What the FedAvg examples share (declared in fl-example-common.h): the task, the server rules
 * and RunFedAvg, compiled once for all of them (their options: fl-example-options.cc).
 */
#include "fl-example-common.h"

namespace ns3
{
namespace flexample
{

fl::TaskSpec
TaskSpecOf(const FedAvgOptions& o)
{
    fl::TaskSpec t;
    t.clients = o.clients;
    t.dataset = o.dataset;
    t.standardise = o.standardise;
    t.featureShift = o.featureShift;
    t.featureScale = o.featureScale;
    t.model = o.model;
    t.partition = o.partition;
    t.alpha = o.alpha;
    t.shards = o.shards;
    t.samplesPerClient = o.samplesPerClient;
    t.syntheticDim = o.syntheticDim;
    t.clustersPerClass = o.clustersPerClass;
    t.separation = o.separation;
    t.testSamples = o.testSamples;
    t.batchSize = o.batchSize;
    t.learningRate = o.learningRate;
    t.localEpochs = o.localEpochs;
    t.proxMu = o.proxMu;
    t.clipNorm = o.clipNorm;
    t.precision = o.precision;
    return t;
}

bool
IsUserDataset(const FedAvgOptions& o)
{
    return fl::IsUserDataset(o.dataset);
}

std::size_t
DatasetDim(const FedAvgOptions& o)
{
    return fl::DatasetDim(TaskSpecOf(o));
}

void
HeterogeneousDeviceDefaults(FedAvgOptions& o)
{
    o.clients = 20;
    o.maxTime = 40.0;
    o.flopRateMedian = 2e7;
    o.flopRateSigma = 1.0;
    o.targetAccuracy = 0.75;
    o.timeBudget = true;
}

std::string
FedAvgFlagOf(const std::string& attribute)
{
    static const std::map<std::string, std::string> flags{{"StragglerPolicy", "--stragglerPolicy"},
                                                          {"RoundDeadline", "--deadline"},
                                                          {"MinQuorum", "--minQuorum"},
                                                          {"ClientSampling", "--sampling"}};
    const auto it = flags.find(attribute);
    return it != flags.end() ? it->second : attribute;
}

/**
 * The strategy of --strategy (a short name of FlStrategyRegistry) with the options' values of the
 * attributes it has: one table from attribute to flag, no branch per strategy.
 */
ObjectFactory
StrategyFactory(const FedAvgOptions& o, const std::string& strategy)
{
    const FlStrategyEntry entry = FlStrategyRegistry::Get(strategy, "--strategy");
    ObjectFactory factory;
    factory.SetTypeId(entry.serverType);
    const TypeId tid = factory.GetTypeId();
    const std::pair<const char*, Ptr<const AttributeValue>> values[] = {
        {"Alpha", Create<DoubleValue>(o.asyncAlpha)},
        {"BufferSize", Create<UintegerValue>(o.bufferSize)},
        {"ServerMomentum", Create<DoubleValue>(o.serverMomentum)},
        {"ServerLearningRate", Create<DoubleValue>(o.serverLearningRate)},
        {"StalenessExponent", Create<DoubleValue>(o.stalenessExponent)},
        {"StalenessFunction", Create<StringValue>(o.stalenessFunction)},
        {"StalenessA", Create<DoubleValue>(o.stalenessExponent)},
    };
    for (const auto& [attribute, value] : values)
    {
        TypeId::AttributeInformation info;
        if (tid.LookupAttributeByName(attribute, &info))
        {
            factory.Set(attribute, *value);
        }
    }
    return factory;
}

void
CheckServerRules(const FedAvgOptions& o, const std::string& strategy, double deadline)
{
    Ptr<FlServerStrategy> s = StrategyFactory(o, strategy).Create<FlServerStrategy>();
    FlRoundRules rules = FlRoundRules::Of(*s, 0);
    rules.uplinkStep = o.secure != "none";
    rules.acceptStale = o.stragglerPolicy == "accept";
    rules.roundDeadline = deadline > 0.0;
    rules.minQuorum = o.minQuorum;
    rules.weightedSampling = o.sampling == "weighted";
    FlCheckRoundRules(rules, FedAvgFlagOf);
}

std::string
RoundsFileName(const std::string& output)
{
    return output.substr(0, output.rfind(".csv")) + "-rounds.csv";
}

std::shared_ptr<fl::LearningTask>
BuildFedAvgTask(const FedAvgOptions& o)
{
    try
    {
        PrintDatasetNotes(o.dataset, o.standardise, std::cout);
        return FlBuildTask(TaskSpecOf(o));
    }
    catch (const std::exception& e)
    {
        std::cerr << e.what() << std::endl;
        return nullptr;
    }
}

int
RunFedAvg(const std::string& name,
          const FedAvgOptions& o,
          std::shared_ptr<fl::LearningTask> task,
          Ptr<Node> serverNode,
          const NodeContainer& clients,
          Ipv4Address serverAddress,
          const std::function<int64_t(int64_t)>& assignNetworkStreams,
          std::chrono::steady_clock::time_point wallStart,
          const std::function<double(uint32_t)>& radioEnergy,
          RunResult* result)
{
    if (o.leaveClients > clients.GetN())
    {
        std::cerr << name << ": --leaveClients=" << o.leaveClients
                  << " exceeds --clients=" << clients.GetN() << " (fix: lower it)" << std::endl;
        Simulator::Destroy();
        return 2;
    }
    try
    {
        CheckServerRules(o, o.strategy, o.deadline); // as the flags' checks did
    }
    catch (const fl::ConfigError& e)
    {
        std::cerr << name << ": " << e.what() << std::endl;
        Simulator::Destroy();
        return 2;
    }
    FlFedAvgHelper fedavg(task);
    fedavg.SetServerAttribute("Rounds", UintegerValue(o.rounds));
    fedavg.SetServerAttribute("RoundDeadline", TimeValue(Seconds(o.deadline)));
    if (o.expectedClients > 0)
    {
        fedavg.SetServerAttribute("ExpectedClients", UintegerValue(o.expectedClients));
    }
    {
        // the strategy by name, with the attributes it has (StrategyFactory)
        const FlStrategyEntry entry = FlStrategyRegistry::Get(o.strategy, "--strategy");
        fedavg.SetStrategy(StrategyFactory(o, o.strategy).Create<FlServerStrategy>());
        if (!entry.clientType.empty())
        {
            fedavg.SetClientStrategy(entry.clientType);
        }
    }
    fedavg.SetServerAttribute("ClientsPerRound", UintegerValue(o.clientsPerRound));
    fedavg.SetServerAttribute("ClientSampling", StringValue(o.sampling));
    fedavg.SetServerAttribute("StragglerPolicy", StringValue(o.stragglerPolicy));
    fedavg.SetServerAttribute("MaxStaleness", UintegerValue(o.maxStaleness));
    fedavg.SetServerAttribute("MinQuorum", UintegerValue(o.minQuorum));
    fedavg.SetServerAttribute("QuorumPolicy", StringValue(o.quorumPolicy));
    fedavg.SetClientAttribute("SecondsPerSample", DoubleValue(o.secondsPerSample));
    fedavg.SetClientAttribute("ComputePower", DoubleValue(o.computePower));
    fedavg.SetClientAttribute("DropoutProbability", DoubleValue(o.dropout));
    fedavg.SetTransportAttribute("WirePrecision", StringValue(o.wirePrecision));
    fedavg.SetTransportAttribute("Transport", StringValue(o.transport));
    fedavg.SetTransportAttribute("HolePolicy", StringValue(o.holePolicy));
    fedavg.SetTransportAttribute(
        "TcpMinRto",
        TimeValue(MicroSeconds(static_cast<int64_t>(std::llround(o.tcpMinRtoMs * 1e3)))));
    fedavg.SetTransportAttribute(
        "UdpPacingRate",
        DataRateValue(DataRate(static_cast<uint64_t>(o.udpPacingMbps * 1e6))));
    if (o.serverPacingMbps > 0.0)
    {
        fedavg.SetServerAttribute(
            "UdpPacingRate",
            DataRateValue(DataRate(static_cast<uint64_t>(o.serverPacingMbps * 1e6))));
    }
    fedavg.SetTransportAttribute("RetryLimit", UintegerValue(o.retryLimit));
    fedavg.SetTransportAttribute(
        "ReassemblyTimeout",
        TimeValue(MicroSeconds(static_cast<int64_t>(std::llround(o.reassemblyTimeoutMs * 1e3)))));
    fedavg.SetTransportAttribute(
        "AckTimeout",
        TimeValue(MicroSeconds(static_cast<int64_t>(std::llround(o.ackTimeoutMs * 1e3)))));
    fedavg.SetTransportAttribute(
        "CongestionTarget",
        TimeValue(MicroSeconds(static_cast<int64_t>(std::llround(o.congestionTargetMs * 1e3)))));
    if (o.serverCongestionTargetMs >= 0.0)
    {
        fedavg.SetServerAttribute("CongestionTarget",
                                  TimeValue(MicroSeconds(static_cast<int64_t>(
                                      std::llround(o.serverCongestionTargetMs * 1e3)))));
    }
    if (o.flopRateMedian > 0.0)
    {
        // Heterogeneous devices: log-normal speeds around the median, from a fixed stream.
        Ptr<LogNormalRandomVariable> speed = CreateObject<LogNormalRandomVariable>();
        speed->SetAttribute("Mu", DoubleValue(std::log(o.flopRateMedian)));
        speed->SetAttribute("Sigma", DoubleValue(o.flopRateSigma));
        speed->SetStream(50);
        fedavg.SetComputeSpeedVariable(speed);
    }
    fedavg.SetMonitorAttribute("OutputFile", StringValue(o.output));
    fedavg.SetMonitorAttribute("Verbose", BooleanValue(!o.quiet));
    fedavg.SetMonitorAttribute("ClientOutputFile", StringValue(o.clientOutput));
    if (o.secure != "none")
    {
        FlSecAggHelper secagg;
        ConfigureSecureAggregation(secagg, o);
        secagg.AssignStreams(1 << 21); // the run seed of the reproducible keys
        // the rosters: a synchronous round's sampled clients, or FedBuff's cohort of K
        const uint32_t cohort =
            o.strategy == "fedbuff"
                ? o.bufferSize
                : (o.clientsPerRound == 0 ? o.clients : std::min(o.clients, o.clientsPerRound));
        std::cout << secagg.Describe(std::max<uint32_t>(cohort, 2)) << std::endl;
        fedavg.SetSecureAggregation(secagg);
    }
    // Clients join 20 ms apart after association/attachment, as unsynchronised devices would:
    // the first at --clientStart (the helper's default, 0.5 s).
    fedavg.SetStartTimes(Seconds(0), Seconds(o.clientStart), MilliSeconds(20));
    FlFedAvgStack stack;
    try
    {
        stack = fedavg.Install(serverNode, clients, serverAddress);
    }
    catch (const fl::ConfigError& e)
    {
        std::cerr << name << ": " << e.what() << std::endl;
        Simulator::Destroy();
        return 2;
    }
    for (uint32_t i = 0; i < o.leaveClients; ++i)
    {
        stack.clientApps.Get(i)->SetAttribute("LeaveTime", TimeValue(Seconds(o.leaveTime)));
    }
    for (uint32_t i = 0; i < o.clientStartS.size() && i < stack.clientApps.GetN(); ++i)
    {
        stack.clientApps.Get(i)->SetStartTime(Seconds(o.clientStartS[i]));
    }
    // The applications' streams first, then the network's: the learning randomness (initial
    // model, mini-batches, sampling) is the same whatever network carries the messages, so a
    // flow-level run learns the same models as a packet-level one.
    int64_t stream = 100;
    stream += FlFedAvgHelper::AssignStreams(stack, stream);
    assignNetworkStreams(stream);

    Ptr<LearningMonitor> monitor = stack.monitor;
    if (radioEnergy)
    {
        monitor->SetRadioEnergyReader(radioEnergy);
    }
    FlowMonitorHelper flowHelper;
    Ptr<FlowMonitor> flows;
    if (!o.flowMonitor.empty())
    {
        flows = flowHelper.InstallAll();
    }

    // The staleness of every aggregated update (rounds or model versions late).
    std::map<uint32_t, uint64_t> staleness;
    stack.server->TraceConnectWithoutContext(
        "RoundEnd",
        FlCallback<void, const FlRoundReport&>([&staleness](const FlRoundReport& r) {
            if (r.status == FlRoundStatus::Aggregated)
            {
                for (const FlUpdateInfo& u : r.updates)
                {
                    ++staleness[u.staleness];
                }
            }
        }));
    // Divergence: a non-finite test loss or global model stops the run (no round can recover).
    Ptr<FlServerApplication> server = stack.server;
    bool diverged = false;
    uint32_t divergedRound = 0;
    monitor->TraceConnectWithoutContext(
        "RoundRecorded",
        FlCallback<void, const FlRoundRecord&>([&](const FlRoundRecord& r) {
            const fl::ParamVector& w = server->GetGlobalModel();
            const bool finiteModel = w.GetPrecision() == fl::Precision::Float32
                                         ? w.Get<float>().allFinite()
                                         : w.Get<double>().allFinite();
            if (!diverged && !(std::isfinite(r.testLoss) && finiteModel))
            {
                diverged = true;
                divergedRound = r.round;
                Simulator::Stop();
            }
        }));

    // The server stops the simulation after its last round; maxTime bounds a stalled run.
    Simulator::Stop(Seconds(o.maxTime));
    try
    {
        Simulator::Run();
    }
    catch (const fl::ConfigError& e)
    {
        // a configuration error found during the run (e.g. an upload that does not fit the
        // secure-aggregation encoding): the run ends here
        std::cerr << name << ": " << e.what() << std::endl;
        return 2;
    }

    if (!diverged)
    {
        server->ReportUnfinishedRound(); // a round still open gets its row (status timeout)
    }
    const auto& rec = monitor->GetRecords();
    if (result)
    {
        result->staleness = staleness;
    }
    uint64_t bytes = 0;
    uint64_t chunksLost = 0;
    uint64_t chunksRetx = 0;
    uint32_t stale = 0;
    uint32_t stragglers = 0;
    double energyRadio = 0.0;
    double energyCompute = 0.0;
    std::map<std::string, uint32_t> statuses; // rounds by status (row 0, the initial model, aside)
    for (std::size_t i = 1; i < rec.size(); ++i)
    {
        ++statuses[rec[i].status];
    }
    for (const auto& r : rec)
    {
        bytes += r.bytesDown + r.bytesUp;
        chunksLost += r.chunksLost;
        chunksRetx += r.chunksRetx;
        stale += r.stale;
        stragglers += r.stragglers;
        energyRadio += std::isnan(r.energyRadioJ) ? 0.0 : r.energyRadioJ;
        energyCompute += std::isnan(r.energyComputeJ) ? 0.0 : r.energyComputeJ;
    }
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    std::cout << "summary: rounds=" << server->GetCompletedRounds()
              << " rounds_started=" << (rec.empty() ? 0 : rec.size() - 1)
              << " rounds_aggregated=" << statuses["aggregated"]
              << " rounds_skipped=" << statuses["skipped"] + statuses["empty"]
              << " rounds_repeated=" << statuses["repeated"]
              << " rounds_timeout=" << statuses["timeout"];
    if (o.secure != "none")
    {
        std::cout << " rounds_aborted=" << statuses["aborted"];
    }
    if (!rec.empty())
    {
        std::cout << " final_accuracy=" << rec.back().testAccuracy
                  << " final_loss=" << rec.back().testLoss
                  << " simulated_time_s=" << rec.back().timeS;
    }
    const double tta = monitor->TimeToAccuracy(o.targetAccuracy);
    std::cout << " time_to_" << o.targetAccuracy
              << "_s=" << (tta < 0 ? std::string("never") : std::to_string(tta))
              << " bytes=" << bytes << " stragglers=" << stragglers << " stale=" << stale;
    if (o.transport == "udp")
    {
        std::cout << " chunks_lost=" << chunksLost << " chunks_retx=" << chunksRetx;
    }
    std::cout << " energy_compute_j=" << energyCompute;
    if (radioEnergy)
    {
        std::cout << " energy_radio_j=" << energyRadio;
    }
    if (result)
    {
        result->records = rec;
        if (!rec.empty())
        {
            result->finalAccuracy = rec.back().testAccuracy;
            result->finalLoss = rec.back().testLoss;
            result->simulatedTimeS = rec.back().timeS;
        }
        result->timeToAccuracyS = tta;
        result->completedRounds = server->GetCompletedRounds();
        result->uplinkAborted = server->GetCounters().roundsAborted;
        result->bytes = bytes;
        result->chunksLost = chunksLost;
        result->chunksRetx = chunksRetx;
        result->stale = stale;
        result->stragglers = stragglers;
        double parts = 0.0;
        for (std::size_t i = 1; i < rec.size(); ++i)
        {
            parts += rec[i].participants;
        }
        result->meanParticipants = rec.size() > 1 ? parts / (rec.size() - 1) : 0.0;
        result->energyRadioJ = radioEnergy ? energyRadio : std::nan("");
        result->energyComputeJ = energyCompute;
        result->wallS = wall;
    }
    const auto counters = server->GetCounters();
    std::cout << " malformed=" << counters.malformed << " events=" << Simulator::GetEventCount()
              << " wall_s=" << std::setprecision(3) << wall << std::setprecision(6) << std::endl;
    if (stack.secAgg.server)
    {
        const auto& sc = stack.secAgg.server->GetCounters();
        std::cout << "secure aggregation: " << sc.completed << " sums decoded, " << sc.aborted
                  << " rounds aborted below t, " << sc.timeouts << " phase timeouts, "
                  << sc.malformed << " malformed and " << sc.rejected
                  << " refused messages dropped; server sent " << sc.bytesSent << " B and received "
                  << sc.bytesReceived << " B of protocol messages" << std::endl;
    }
    if (!o.output.empty())
    {
        std::cout << "results: " << o.output << std::endl;
    }
    if (flows)
    {
        flows->CheckForLostPackets();
        uint64_t txPackets = 0;
        uint64_t rxPackets = 0;
        uint64_t lostPackets = 0;
        double delaySum = 0.0;
        for (const auto& kv : flows->GetFlowStats())
        {
            txPackets += kv.second.txPackets;
            rxPackets += kv.second.rxPackets;
            lostPackets += kv.second.lostPackets;
            delaySum += kv.second.delaySum.GetSeconds();
        }
        flows->SerializeToXmlFile(o.flowMonitor, true, true);
        std::cout << "flows: " << flows->GetFlowStats().size() << " flows, tx_packets=" << txPackets
                  << " rx_packets=" << rxPackets << " lost_packets=" << lostPackets
                  << " mean_delay_ms=" << (rxPackets ? 1e3 * delaySum / rxPackets : 0.0)
                  << "; details: " << o.flowMonitor << std::endl;
    }
    const std::string scaleAdvice = FeatureScaleAdvice(o.dataset, o.standardise);
    if (diverged)
    {
        std::cerr << name << ": diverged in round " << divergedRound
                  << ": the test loss or the global model is not finite; stopped (fix: "
                  << (scaleAdvice.empty() ? "lower --learningRate or --serverLearningRate"
                                          : "--standardise=standardise, as " + scaleAdvice +
                                                "; or a lower --learningRate")
                  << ")" << std::endl;
    }
    else if (!scaleAdvice.empty() && !rec.empty() &&
             rec.back().testAccuracy <= 1.5 / fl::LoadUserDataset(o.dataset).train.numClasses)
    {
        std::cerr << name << ": the final accuracy " << rec.back().testAccuracy
                  << " is about chance, and " << scaleAdvice << " (fix: --standardise=standardise)"
                  << std::endl;
    }
    const bool finished = !diverged && (server->IsFinished() || o.timeBudget);
    if (!finished && !diverged)
    {
        std::cerr << name << ": stopped at --maxTime=" << o.maxTime << " s after "
                  << server->GetCompletedRounds() << " of " << o.rounds
                  << " rounds (a round did not complete; see --deadline)" << std::endl;
    }
    const bool aggregated = o.rounds == 0 || statuses["aggregated"] > 0;
    if (!aggregated)
    {
        std::cerr << name << ": no round aggregated an update ("
                  << (rec.empty() ? 0 : rec.size() - 1)
                  << " started: " << statuses["skipped"] + statuses["empty"]
                  << " skipped or empty, " << statuses["repeated"] << " repeated, "
                  << statuses["timeout"] << " timed out): no update reached the server"
                  << (o.transport == "udp" ? " (chunks_lost=" + std::to_string(chunksLost) +
                                                 "; see --holePolicy, --retryLimit)"
                                           : std::string())
                  << "; see --deadline, --minQuorum" << std::endl;
    }
    Simulator::Destroy();
    return finished && aggregated ? 0 : 1;
}
} // namespace flexample
} // namespace ns3

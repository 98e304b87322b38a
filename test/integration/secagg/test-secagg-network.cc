/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Secure aggregation over ns-3 links (SecAggServerStep and SecAggClientStep behind the generic
 * apps' uplink-step seam; Bonawitz et al., ACM CCS 2017, and SecAgg+ of Bell et al., ACM CCS
 * 2020): FedAvg over an 802.11 cell, every protocol message a real packet.
 *  - a lossless run equals the in-process reference that sums the same fixed-point encodings,
 *    bit for bit, in both key modes;
 *  - clients that go silent in different phases (up to n - t) are recovered exactly;
 *  - below t the round aborts with a clear status and the server keeps its model;
 *  - a round of one sampled client is refused (by the helper) or aborts (at run time) without
 *    anything uploaded, least of all in the clear;
 *  - SecAgg+ on a Harary graph over the network equals its in-process sum;
 *  - malformed protocol messages are dropped and counted.
 */
#include "fl-test-config-error.h"
#include "fl-test-task.h"

#include "ns3/core-module.h"
#include "ns3/fedavg-reference.h"
#include "ns3/fl-helper.h"
#include "ns3/fl-network-scenarios.h"
#include "ns3/fl-ns3-compat.h"
#include "ns3/learning-monitor.h"
#include "ns3/secagg-helper.h"

#include <gtest/gtest.h>

using namespace ns3;
using fltest::ExpectConfigError;
using fltest::MakeTask;

namespace
{

/// A client step that sends malformed SecAgg messages before each real answer (test (f)).
class MalformedInjector : public FlUplinkClientStep
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::test::SecAggMalformedInjector")
                                .SetParent<FlUplinkClientStep>()
                                .SetGroupName("Fl");
        return tid;
    }

    explicit MalformedInjector(Ptr<SecAggClientStep> inner)
        : m_inner(inner)
    {
    }

    void SetPort(uint32_t client, std::size_t dim, Port port) override
    {
        m_client = client;
        m_port = port;
        m_inner->SetPort(client, dim, port);
    }

    void Upload(uint32_t round, const fl::ParamVector& update, uint64_t weight) override
    {
        m_inner->Upload(round, update, weight);
    }

    bool Receive(uint32_t round, uint32_t tag, const std::vector<uint8_t>& bytes) override
    {
        fl::SecAggMessageType type;
        uint64_t instance = 0;
        if (tag == kSecAggControlTag && fl::PeekSecAggHeader(bytes, type, instance) &&
            type == fl::SecAggMessageType::KeyList)
        {
            // 1: not a SecAgg message at all
            m_port.send(round, kSecAggControlTag, std::vector<uint8_t>(40, 0xAB));
            // 2: an EncryptedShares header with a body cut short
            fl::SecAggBoxList list;
            list.party = m_client;
            list.boxes.push_back({m_client + 1, {}});
            fl::SecAggBytes cut = fl::PackSecAggEncryptedShares(instance, list);
            cut.resize(cut.size() - 7);
            m_port.send(round, kSecAggControlTag, cut);
            // 3: a well-formed message that claims to come from another client
            list.party = m_client == 0 ? 1 : 0;
            m_port.send(round, kSecAggControlTag, fl::PackSecAggEncryptedShares(instance, list));
            // 4: a lying list count
            list.party = m_client;
            fl::SecAggBytes lying = fl::PackSecAggEncryptedShares(instance, list);
            lying[kSecAggHeaderBytesForTest + 4] = 0xFF;
            m_port.send(round, kSecAggControlTag, lying);
            m_injected += 4;
        }
        return m_inner->Receive(round, tag, bytes);
    }

    uint32_t Injected() const
    {
        return m_injected;
    }

    static constexpr std::size_t kSecAggHeaderBytesForTest = fl::kSecAggHeaderBytes;

  private:
    Ptr<SecAggClientStep> m_inner;
    Port m_port;
    uint32_t m_client{0};
    uint32_t m_injected{0};
};

/// A client step that records every protocol byte its client sends (the reproducibility test).
class Recorder : public FlUplinkClientStep
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("ns3::test::SecAggRecorder").SetParent<FlUplinkClientStep>().SetGroupName("Fl");
        return tid;
    }

    Recorder(Ptr<SecAggClientStep> inner, std::shared_ptr<std::vector<uint8_t>> sink)
        : m_inner(inner),
          m_sink(std::move(sink))
    {
    }

    void SetPort(uint32_t client, std::size_t dim, Port port) override
    {
        auto sink = m_sink;
        Port recording;
        recording.upload = [port, sink](uint32_t round, const std::vector<uint8_t>& bytes) {
            sink->insert(sink->end(), bytes.begin(), bytes.end());
            port.upload(round, bytes);
        };
        recording.send = [port,
                          sink](uint32_t round, uint32_t tag, const std::vector<uint8_t>& bytes) {
            sink->insert(sink->end(), bytes.begin(), bytes.end());
            port.send(round, tag, bytes);
        };
        m_inner->SetPort(client, dim, recording);
    }

    void Upload(uint32_t round, const fl::ParamVector& update, uint64_t weight) override
    {
        m_inner->Upload(round, update, weight);
    }

    bool Receive(uint32_t round, uint32_t tag, const std::vector<uint8_t>& bytes) override
    {
        return m_inner->Receive(round, tag, bytes);
    }

  private:
    Ptr<SecAggClientStep> m_inner;
    std::shared_ptr<std::vector<uint8_t>> m_sink;
};

/// What one network run gave.
struct SecureRun
{
    std::vector<fl::ParamVector> globals;  ///< round 0 (initial) and every closed round
    std::vector<FlRoundReport> reports;    ///< the server's RoundEnd reports (round >= 1)
    std::vector<SecAggRoundReport> secagg; ///< the step's RoundEnd reports
    std::vector<uint64_t> clientSeeds;
    SecAggServerStep::Counters server;
    std::vector<SecAggClientStep::Counters> clients;
    std::vector<uint8_t> recorded; ///< what client 0 sent (RunSpec::record)
    FlServerApplication::Counters app;
    uint32_t completed{0};
    double simulatedSeconds{0.0};
};

/// Settings of one run.
struct RunSpec
{
    uint32_t clients{5};
    uint32_t rounds{2};
    std::string variant{"secagg"};
    std::string keyMode{"random"};
    uint32_t threshold{0};
    Time timeout{Seconds(1)};
    Time deadline{Seconds(0)};
    uint32_t clientsPerRound{0};
    /// per-client failure injection: client -> (phase, rounds)
    std::map<uint32_t, std::pair<std::string, std::string>> drops;
    std::set<uint32_t> injectors;             ///< clients that also send malformed messages
    std::map<std::string, double> plusThreat; ///< SecAgg+ attribute values
    Time beaconPeriod{MilliSeconds(250)};     ///< SecAgg+ beacon period (both halves)
    Time beaconLead{MilliSeconds(750)};       ///< SecAgg+ beacon lead (server)
    bool useHelper{true}; ///< FlFedAvgHelper::SetSecureAggregation (false: by hand, any L)
    bool record{false};   ///< record every protocol byte client 0 sends
};

SecureRun
RunSecure(std::shared_ptr<const fl::LearningTask> task, const RunSpec& spec)
{
    SecureRun out;
    FlWifiScenarioHelper wifi;
    FlScene scene = wifi.Build(spec.clients);

    FlSecAggHelper secagg;
    secagg.SetAttribute("Variant", StringValue(spec.variant));
    secagg.SetAttribute("KeyMode", StringValue(spec.keyMode));
    secagg.SetAttribute("Threshold", UintegerValue(spec.threshold));
    secagg.SetAttribute("FractionBits", UintegerValue(32));
    for (const auto& [name, value] : spec.plusThreat)
    {
        secagg.SetAttribute(name, DoubleValue(value));
    }
    secagg.SetServerAttribute("Timeout", TimeValue(spec.timeout));
    secagg.SetAttribute("BeaconPeriod", TimeValue(spec.beaconPeriod));
    secagg.SetServerAttribute("BeaconLead", TimeValue(spec.beaconLead));
    secagg.AssignStreams(7);

    Ptr<FlServerApplication> server;
    std::vector<Ptr<FlClientApplication>> clientApps;
    FlSecAggParties parties;
    FlFedAvgStack stack; // keeps the monitor alive during the run
    if (spec.useHelper)
    {
        FlFedAvgHelper fedavg(task);
        fedavg.SetServerAttribute("Rounds", UintegerValue(spec.rounds));
        fedavg.SetServerAttribute("InitSeed", UintegerValue(12345));
        fedavg.SetServerAttribute("RoundDeadline", TimeValue(spec.deadline));
        fedavg.SetServerAttribute("ClientsPerRound", UintegerValue(spec.clientsPerRound));
        fedavg.SetSecureAggregation(secagg);
        stack = fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress);
        server = stack.server;
        parties = stack.secAgg;
        for (uint32_t i = 0; i < stack.clientApps.GetN(); ++i)
        {
            clientApps.push_back(DynamicCast<FlClientApplication>(stack.clientApps.Get(i)));
        }
    }
    else
    {
        FlServerHelper sh(task);
        sh.SetAttribute("Rounds", UintegerValue(spec.rounds));
        sh.SetAttribute("InitSeed", UintegerValue(12345));
        sh.SetAttribute("RoundDeadline", TimeValue(spec.deadline));
        sh.SetAttribute("ClientsPerRound", UintegerValue(spec.clientsPerRound));
        ApplicationContainer sapps = sh.Install(scene.serverNode);
        server = DynamicCast<FlServerApplication>(sapps.Get(0));
        FlClientHelper ch(task, scene.serverAddress);
        ApplicationContainer capps = ch.Install(scene.clients);
        std::vector<uint32_t> ids;
        for (uint32_t i = 0; i < capps.GetN(); ++i)
        {
            clientApps.push_back(DynamicCast<FlClientApplication>(capps.Get(i)));
            ids.push_back(i);
        }
        parties = secagg.Create(ids);
        server->SetUplinkStep(parties.server);
        for (uint32_t i = 0; i < capps.GetN(); ++i)
        {
            clientApps[i]->SetUplinkStep(parties.clients.at(i));
            clientApps[i]->SetStartTime(Seconds(0.5) + MilliSeconds(20) * i);
        }
        sapps.Start(Seconds(0));
    }
    std::vector<Ptr<MalformedInjector>> injectors;
    auto recorded = std::make_shared<std::vector<uint8_t>>();
    if (spec.record)
    {
        clientApps[0]->SetUplinkStep(CreateObject<Recorder>(parties.clients.at(0), recorded));
    }
    for (uint32_t i = 0; i < clientApps.size(); ++i)
    {
        out.clientSeeds.push_back(1000 + 17 * i);
        clientApps[i]->SetAttribute("TrainingSeed", UintegerValue(out.clientSeeds.back()));
        auto drop = spec.drops.find(i);
        if (drop != spec.drops.end())
        {
            parties.clients.at(i)->SetAttribute("DropBeforePhase", StringValue(drop->second.first));
            parties.clients.at(i)->SetAttribute("DropRounds", StringValue(drop->second.second));
        }
        if (spec.injectors.count(i) != 0)
        {
            injectors.push_back(CreateObject<MalformedInjector>(parties.clients.at(i)));
            clientApps[i]->SetUplinkStep(injectors.back());
        }
    }
    server->TraceConnectWithoutContext(
        "RoundEnd",
        FlCallback<void, const FlRoundReport&>([&out](const FlRoundReport& r) {
            out.globals.push_back(*r.globalModel);
            if (r.round > 0)
            {
                out.reports.push_back(r);
                out.reports.back().globalModel = nullptr;
            }
        }));
    parties.server->TraceConnectWithoutContext(
        "RoundEnd",
        FlCallback<void, const SecAggRoundReport&>(
            [&out](const SecAggRoundReport& r) { out.secagg.push_back(r); }));
    Simulator::Stop(Seconds(300));
    Simulator::Run();
    out.completed = server->GetCompletedRounds();
    out.app = server->GetCounters();
    out.server = parties.server->GetCounters();
    for (const auto& [id, c] : parties.clients)
    {
        out.clients.push_back(c->GetCounters());
    }
    out.simulatedSeconds = Simulator::Now().GetSeconds();
    out.recorded = *recorded;
    Simulator::Destroy();
    return out;
}

/// The in-process reference with the same seeds and the secure sum of the same encodings.
std::vector<fl::ParamVector>
Reference(const fl::LearningTask& task,
          const SecureRun& net,
          uint32_t rounds,
          std::function<bool(uint32_t, uint32_t)> dropUpload = {})
{
    std::vector<fl::ParamVector> globals;
    fl::FedAvgReferenceConfig cfg;
    cfg.rounds = rounds;
    cfg.initSeed = 12345;
    cfg.clientSeeds = net.clientSeeds;
    cfg.secureFractionBits = 32;
    cfg.dropUpload = std::move(dropUpload);
    cfg.onRound = [&globals](uint32_t, const fl::ParamVector& g) { globals.push_back(g); };
    fl::RunFedAvgReference(task, cfg);
    return globals;
}

} // namespace

TEST(SecAggNetwork, LosslessRunEqualsTheInProcessFixedPointSumInBothKeyModes)
{
    auto task = MakeTask<double>(5, "softmax:l2=0.001");
    std::vector<fl::ParamVector> first;
    for (const char* mode : {"random", "reproducible"})
    {
        SCOPED_TRACE(mode);
        RunSpec spec;
        spec.keyMode = mode;
        spec.rounds = 3;
        const SecureRun net = RunSecure(task, spec);
        ASSERT_EQ(net.completed, 3u);
        const auto ref = Reference(*task, net, 3);
        ASSERT_EQ(net.globals.size(), ref.size());
        for (std::size_t r = 0; r < ref.size(); ++r)
        {
            EXPECT_TRUE(net.globals[r] == ref[r]) << "global model of round " << r;
        }
        for (uint32_t r = 1; r <= 3; ++r)
        {
            EXPECT_FALSE(net.globals[r] == net.globals[r - 1]); // it learned
            EXPECT_EQ(net.reports[r - 1].status, FlRoundStatus::Aggregated);
            EXPECT_EQ(net.reports[r - 1].participants.size(), 5u);
            EXPECT_EQ(net.reports[r - 1].uplinkStatus, "ok");
        }
        ASSERT_EQ(net.secagg.size(), 3u);
        EXPECT_EQ(net.secagg[0].threshold, 4u); // floor(2 * 5 / 3) + 1
        for (int u = 0; u < 5; ++u)
        {
            EXPECT_EQ(net.secagg[0].sets[u], 5u) << "U" << u + 1;
        }
        EXPECT_EQ(net.server.completed, 3u);
        EXPECT_EQ(net.server.malformed + net.server.rejected + net.server.late, 0u);
        // 5 messages per client and round, 4 + the setup from the server to each client
        EXPECT_EQ(net.server.messagesReceived, 3u * 5 * 5);
        EXPECT_EQ(net.server.messagesSent, 3u * 5 * 5);
        for (const auto& c : net.clients)
        {
            EXPECT_EQ(c.advertised, 3u);
            EXPECT_EQ(c.maskedInputs, 3u);
            EXPECT_EQ(c.unmasked, 3u);
            EXPECT_EQ(c.refused + c.malformed, 0u);
        }
        if (first.empty())
        {
            first = net.globals;
        }
        else
        {
            EXPECT_EQ(first.size(), net.globals.size()); // the sum does not depend on the keys
            for (std::size_t r = 0; r < first.size(); ++r)
            {
                EXPECT_TRUE(first[r] == net.globals[r]);
            }
        }
        std::cout << mode << " keys: 3 secure rounds in " << net.simulatedSeconds
                  << " s simulated, server sent " << net.server.bytesSent << " B, received "
                  << net.server.bytesReceived << " B of protocol messages" << std::endl;
    }
}

TEST(SecAggNetwork, ReproducibleKeysRepeatARunBitForBitAndOnlyThem)
{
    // KeyMode reproducible: every key derives from the run seed the helper draws from the ns-3
    // run, so the same RngRun sends the same protocol bytes; another RngRun, or random keys, do
    // not (and every run decodes the same models: the sum does not depend on the keys).
    auto task = MakeTask<double>(4, "softmax:l2=0.001");
    auto run = [&](const char* mode, uint32_t rngRun) {
        RngSeedManager::SetRun(rngRun);
        RunSpec spec;
        spec.clients = 4;
        spec.rounds = 2;
        spec.keyMode = mode;
        spec.record = true;
        return RunSecure(task, spec);
    };
    const SecureRun a = run("reproducible", 1);
    const SecureRun b = run("reproducible", 1);
    const SecureRun c = run("reproducible", 2);
    const SecureRun d = run("random", 1);
    RngSeedManager::SetRun(1);
    ASSERT_FALSE(a.recorded.empty());
    EXPECT_EQ(a.recorded, b.recorded);
    EXPECT_NE(a.recorded, c.recorded);
    EXPECT_NE(a.recorded, d.recorded);
    EXPECT_EQ(a.recorded.size(), d.recorded.size());
    for (const SecureRun* r : {&b, &c, &d})
    {
        ASSERT_EQ(r->globals.size(), a.globals.size());
        EXPECT_TRUE(r->globals.back() == a.globals.back());
    }
}

TEST(SecAggNetwork, DropoutsInEveryPhaseUpToNMinusTAreRecoveredExactly)
{
    // n = 10, t = 7 (floor(2n/3) + 1): three clients go silent in round 1, each before another
    // phase: client 1 before sharing its keys (in U1, not in U2), client 3 before its masked
    // input (in U2, not in U3: its mask key is reconstructed), client 5 before unmasking (in U3
    // and U4: its input counts, it just does not help to unmask). Round 2 has no dropout.
    auto task = MakeTask<double>(10, "softmax:l2=0.001");
    RunSpec spec;
    spec.clients = 10;
    spec.rounds = 2;
    spec.timeout = Seconds(1);
    spec.drops[1] = {"shares", "1"};
    spec.drops[3] = {"input", "1"};
    spec.drops[5] = {"unmask", "1"};
    const SecureRun net = RunSecure(task, spec);
    ASSERT_EQ(net.completed, 2u);
    const auto ref = Reference(*task, net, 2, [](uint32_t round, uint32_t client) {
        return round == 1 && (client == 1 || client == 3);
    });
    ASSERT_EQ(net.globals.size(), 3u);
    for (std::size_t r = 0; r < 3; ++r)
    {
        EXPECT_TRUE(net.globals[r] == ref[r]) << "global model of round " << r;
    }
    ASSERT_EQ(net.secagg.size(), 2u);
    const SecAggRoundReport& r1 = net.secagg[0];
    EXPECT_TRUE(r1.ok);
    EXPECT_EQ(r1.threshold, 7u);
    EXPECT_EQ(r1.sets[0], 10u); // U1: everyone advertised
    EXPECT_EQ(r1.sets[1], 9u);  // U2: not client 1
    EXPECT_EQ(r1.sets[2], 8u);  // U3: not client 3 either
    EXPECT_EQ(r1.sets[3], 8u);  // U4: every survivor signed
    EXPECT_EQ(r1.sets[4], 7u);  // U5: client 5 did not unmask
    EXPECT_EQ(r1.timeouts, 3u); // three phases waited for a silent client
    EXPECT_EQ(net.reports[0].participants, (std::vector<uint32_t>{0, 2, 4, 5, 6, 7, 8, 9}));
    EXPECT_TRUE(net.secagg[1].ok);
    EXPECT_EQ(net.secagg[1].timeouts, 0u);
    EXPECT_EQ(net.reports[1].participants.size(), 10u);
    EXPECT_EQ(net.server.aborted, 0u);
}

TEST(SecAggNetwork, BelowThresholdTheRoundAbortsAndTheServerKeepsItsModel)
{
    // n = 5, t = 4: in round 2 three clients stop before their masked input, so U3 has 2 < t.
    auto task = MakeTask<double>(5, "softmax:l2=0.001");
    RunSpec spec;
    spec.rounds = 3;
    spec.timeout = Seconds(1);
    for (uint32_t c : {0u, 2u, 4u})
    {
        spec.drops[c] = {"input", "2"};
    }
    const SecureRun net = RunSecure(task, spec);
    ASSERT_EQ(net.completed, 3u); // the aborted round counts; the run goes on
    ASSERT_EQ(net.reports.size(), 3u);
    EXPECT_EQ(net.reports[1].status, FlRoundStatus::Aborted);
    EXPECT_STREQ(FlRoundStatusName(net.reports[1].status), "aborted");
    EXPECT_EQ(net.reports[1].uplinkStatus,
              "fewer clients than the threshold t (or than the smallest roster): aborted");
    EXPECT_TRUE(net.reports[1].participants.empty());
    EXPECT_TRUE(net.globals[2] == net.globals[1]); // the model of round 1 is kept
    EXPECT_EQ(net.reports[2].status, FlRoundStatus::Aggregated);
    EXPECT_FALSE(net.globals[3] == net.globals[2]);
    EXPECT_EQ(net.app.roundsAborted, 1u);
    EXPECT_EQ(net.server.aborted, 1u);
    ASSERT_EQ(net.secagg.size(), 3u);
    EXPECT_FALSE(net.secagg[1].ok);
    EXPECT_EQ(net.secagg[1].status, fl::SecAggStatus::TooFewClients);
    EXPECT_EQ(net.secagg[1].sets[2], 0u); // U3 was never fixed
    // Round 1 (before the abort) is the reference's round 1, bit for bit.
    const auto ref = Reference(*task, net, 1);
    EXPECT_TRUE(net.globals[1] == ref[1]);
}

TEST(SecAggNetwork, OneSampledClientIsRefusedOrAbortsWithoutUploading)
{
    auto task = MakeTask<double>(3, "softmax:l2=0.001");
    // The helper refuses the configuration before the run.
    {
        FlWifiScenarioHelper wifi;
        FlScene scene = wifi.Build(3);
        FlFedAvgHelper fedavg(task);
        fedavg.SetServerAttribute("ClientsPerRound", UintegerValue(1));
        fedavg.SetSecureAggregation(FlSecAggHelper());
        ExpectConfigError(
            [&] { fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress); },
            "ClientsPerRound",
            "sample at least 2 clients");
        Simulator::Destroy();
    }
    // Built by hand, a round of one sampled client aborts at run time: the step sends no setup,
    // so the client never advertises keys, and nothing of its update goes out.
    RunSpec spec;
    spec.clients = 3;
    spec.rounds = 2;
    spec.clientsPerRound = 1;
    spec.deadline = Seconds(2);
    spec.useHelper = false;
    const SecureRun net = RunSecure(task, spec);
    ASSERT_EQ(net.completed, 2u);
    for (const auto& r : net.reports)
    {
        EXPECT_EQ(r.status, FlRoundStatus::Aborted);
        EXPECT_NE(r.uplinkStatus.find("fewer than the 2 clients of the smallest roster"),
                  std::string::npos)
            << r.uplinkStatus;
        EXPECT_EQ(r.bytesUp, 0u) << "round " << r.round << ": something was uploaded";
    }
    EXPECT_TRUE(net.globals.back() == net.globals.front());
    EXPECT_EQ(net.server.messagesSent, 0u);
    EXPECT_EQ(net.server.messagesReceived, 0u);
    uint64_t discardedOrPending = 0;
    for (const auto& c : net.clients)
    {
        EXPECT_EQ(c.advertised, 0u);
        EXPECT_EQ(c.messagesSent, 0u);
        discardedOrPending += c.discarded;
    }
    std::cout << "uploads kept back for want of a setup: " << discardedOrPending << std::endl;
}

TEST(SecAggNetwork, SecAggPlusOverTheNetworkEqualsItsInProcessSum)
{
    // n = 10 clients on a random Harary graph (SecAggPlusParameters for no corrupt and 10 %
    // dropped clients), one client dropping before its masked input in round 1.
    auto task = MakeTask<double>(10, "softmax:l2=0.001");
    RunSpec spec;
    spec.clients = 10;
    spec.rounds = 2;
    spec.variant = "secaggplus";
    spec.keyMode = "reproducible";
    spec.plusThreat["DropoutFraction"] = 0.1;
    spec.timeout = Seconds(1);
    spec.drops[6] = {"input", "1"};
    const SecureRun net = RunSecure(task, spec);
    ASSERT_EQ(net.completed, 2u);
    fl::SecAggPlusThreat threat;
    threat.dropoutFraction = 0.1;
    const fl::SecAggPlusChoice choice = fl::SecAggPlusParameters(10, threat);
    std::cout << "SecAgg+ for n = 10: k = " << choice.neighbours << ", t = " << choice.threshold
              << (choice.complete ? " (complete)" : "") << std::endl;
    ASSERT_FALSE(choice.complete) << "the test needs a sparse graph";
    ASSERT_EQ(net.secagg.size(), 2u);
    EXPECT_EQ(net.secagg[0].neighbours, choice.neighbours);
    EXPECT_EQ(net.secagg[0].threshold, choice.threshold);
    EXPECT_TRUE(net.secagg[0].ok);
    EXPECT_EQ(net.secagg[0].sets[2], 9u);
    const auto ref = Reference(*task, net, 2, [](uint32_t round, uint32_t client) {
        return round == 1 && client == 6;
    });
    for (std::size_t r = 0; r < ref.size(); ++r)
    {
        EXPECT_TRUE(net.globals.at(r) == ref[r]) << "global model of round " << r;
    }
    std::cout << "SecAgg+ server: " << net.server.bytesSent << " B sent, "
              << net.server.bytesReceived << " B received in 2 rounds" << std::endl;
}

TEST(SecAggNetwork, ASecAggPlusSetupWhoseBeaconRoundIsAlreadyPublicIsRefused)
{
    // A server that names a beacon round that is public by the time the setup arrives could have
    // chosen the roster knowing the graph: every client refuses, nothing is uploaded. (Forced
    // here with a beacon of period 1 ns and no lead: the round is public 1 ns after the setup
    // leaves the server.)
    auto task = MakeTask<double>(10, "softmax:l2=0.001");
    RunSpec spec;
    spec.clients = 10;
    spec.rounds = 2;
    spec.variant = "secaggplus";
    spec.plusThreat["DropoutFraction"] = 0.1;
    spec.beaconPeriod = NanoSeconds(1);
    spec.beaconLead = Seconds(0);
    spec.deadline = Seconds(3);
    const SecureRun net = RunSecure(task, spec);
    ASSERT_EQ(net.completed, 2u);
    for (const auto& r : net.reports)
    {
        EXPECT_EQ(r.status, FlRoundStatus::Aborted) << "round " << r.round;
    }
    EXPECT_TRUE(net.globals.back() == net.globals.front());
    for (const auto& c : net.clients)
    {
        EXPECT_EQ(c.setups, 0u);
        EXPECT_EQ(c.advertised, 0u);
        EXPECT_EQ(c.maskedInputs, 0u);
        EXPECT_EQ(c.refused, 2u); // one stale setup per round
    }
    // With the default lead, the same run completes (the previous SecAgg+ test): the refusal is
    // the beacon's, not the variant's.
}

TEST(SecAggNetwork, ASecondSetupForAnInstanceIsRefused)
{
    // A client takes part in one roster and one graph per instance: a server that sends a second
    // setup for the same round (another roster) is refused, as is one for an older round.
    FlSecAggHelper secagg;
    FlSecAggParties parties = secagg.Create({0, 1, 2, 3});
    Ptr<SecAggClientStep> c = parties.clients.at(1);
    std::vector<std::vector<uint8_t>> sent;
    FlUplinkClientStep::Port port;
    port.upload = [&sent](uint32_t, const std::vector<uint8_t>& b) { sent.push_back(b); };
    port.send = [&sent](uint32_t, uint32_t, const std::vector<uint8_t>& b) { sent.push_back(b); };
    c->SetPort(1, 3, port);
    fl::SecAggRule rule;
    auto setup = [&](uint64_t round, std::vector<uint32_t> roster) {
        return fl::PackSecAggRoundSetup(
            round,
            fl::SecAggSetupOf(fl::MakeSecAggRoundConfig(round, roster, 3, rule, 0)));
    };
    EXPECT_TRUE(c->Receive(5, kSecAggControlTag, setup(5, {0, 1, 2, 3})));
    EXPECT_EQ(c->GetCounters().setups, 1u);
    EXPECT_TRUE(c->Receive(5, kSecAggControlTag, setup(5, {1, 2, 3})));
    EXPECT_EQ(c->GetCounters().setups, 1u);
    EXPECT_EQ(c->GetCounters().refused, 1u);
    EXPECT_EQ(c->LastRefusal(), fl::SecAggStatus::InconsistentRequest);
    EXPECT_TRUE(c->Receive(4, kSecAggControlTag, setup(4, {0, 1, 2, 3})));
    EXPECT_EQ(c->GetCounters().refused, 2u);
    // A roster below the cohort size the clients were given (MinClients) is refused too.
    FlSecAggHelper sized;
    sized.SetCohortSize(4);
    FlSecAggParties four = sized.Create({0, 1, 2, 3});
    four.clients.at(1)->SetPort(1, 3, port);
    EXPECT_TRUE(four.clients.at(1)->Receive(6, kSecAggControlTag, setup(6, {0, 1, 2})));
    EXPECT_EQ(four.clients.at(1)->GetCounters().setups, 0u);
    EXPECT_EQ(four.clients.at(1)->LastRefusal(), fl::SecAggStatus::TooFewClients);
    EXPECT_TRUE(sent.empty()); // nothing went out: the input was never given
    Simulator::Destroy();
}

TEST(SecAggNetwork, ThresholdsTheRostersCannotServeAreConfigurationErrors)
{
    // A threshold above the sampled clients, or one that is not above (n + n_C) / 2, is refused
    // by the helper before anything runs, naming the attribute.
    auto task = MakeTask<double>(5, "softmax:l2=0.001");
    for (const auto& [t, fix] :
         std::vector<std::pair<uint32_t, std::string>>{{6, "rosters of 5 clients"},
                                                        {2, "rosters of 5 clients"}})
    {
        FlWifiScenarioHelper wifi;
        FlScene scene = wifi.Build(5);
        FlFedAvgHelper fedavg(task);
        FlSecAggHelper secagg;
        secagg.SetAttribute("Threshold", UintegerValue(t));
        fedavg.SetSecureAggregation(secagg);
        ExpectConfigError(
            [&] { fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress); },
            "ns3::SecAggServerStep::Threshold",
            fix);
        Simulator::Destroy();
    }
    // Every secure run can print its guarantee with its numbers.
    FlSecAggHelper secagg;
    const std::string g = secagg.Guarantee(10);
    EXPECT_NE(g.find("n = 10 clients, t = 7"), std::string::npos) << g;
    EXPECT_NE(g.find("at most n_C = 3 clients"), std::string::npos) << g;
    EXPECT_NE(g.find("at least t - n_C = 4 honest inputs"), std::string::npos) << g;
    EXPECT_NE(g.find("up to n - t = 3 clients may drop out"), std::string::npos) << g;
    EXPECT_NE(g.find("S minus {v}"), std::string::npos) << g;
}

TEST(SecAggNetwork, MalformedMessagesAreDroppedAndCounted)
{
    auto task = MakeTask<double>(5, "softmax:l2=0.001");
    RunSpec spec;
    spec.rounds = 1;
    spec.injectors = {2};
    const SecureRun net = RunSecure(task, spec);
    ASSERT_EQ(net.completed, 1u);
    EXPECT_EQ(net.server.malformed, 4u); // garbage, a cut body, a forged sender, a lying count
    EXPECT_EQ(net.server.rejected, 0u);
    EXPECT_EQ(net.server.aborted, 0u);
    // ... and changed nothing: the sum is the reference's
    const auto ref = Reference(*task, net, 1);
    EXPECT_TRUE(net.globals.at(1) == ref[1]);
    EXPECT_EQ(net.reports.at(0).participants.size(), 5u);
}

TEST(SecAggNetwork, HelperRefusesCombinationsItCannotServe)
{
    auto task = MakeTask<double>(3, "softmax:l2=0.001");
    FlWifiScenarioHelper wifi;
    FlScene scene = wifi.Build(3);
    {
        FlFedAvgHelper fedavg(task);
        FlSecAggHelper bad;
        bad.SetAttribute("Variant", StringValue("secagg2"));
        fedavg.SetSecureAggregation(bad);
        ExpectConfigError(
            [&] { fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress); },
            "ns3::SecAggServerStep::Variant");
    }
    {
        FlSecAggHelper h;
        ExpectConfigError([&] { h.Create({4}); }, "clients");
        h.SetAttribute("KeyMode", StringValue("reproducible"));
        EXPECT_NE(h.Describe().find("INSECURE"), std::string::npos);
    }
    Simulator::Destroy();
}

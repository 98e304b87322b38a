/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Tests of the platform seams: the round aggregation and client sampling as pure calls, the
 * in-process reference runner, the round step (a toy algorithm written on the seam), the
 * transport between arbitrary nodes (peer and control messages over TCP and UDP), and the
 * generic learning tracker fed by the ModelReport trace.
 */
#include "fl-test-task.h"

#include "ns3/core-module.h"
#include "ns3/fedavg-reference.h"
#include "ns3/fl-helper.h"
#include "ns3/fl-learning-tracker.h"
#include "ns3/fl-network-scenarios.h"
#include "ns3/fl-ns3-compat.h"
#include "ns3/fl-transport.h"
#include "ns3/inet-socket-address.h"
#include "ns3/perturbation.h"

#include <atomic>
#include <fstream>
#include <gtest/gtest.h>
#include <memory>
#include <sstream>
#include <tuple>

using namespace ns3;

namespace
{

fl::ParamVector
Vec3(double a, double b, double c)
{
    fl::Vec<double> v(3);
    v << a, b, c;
    return fl::ParamVector(v);
}

} // namespace

TEST(RoundAggregation, PlainFedAvgIsTheWeightedAverageBitForBit)
{
    const fl::ParamVector cur = Vec3(0, 0, 0);
    const fl::ParamVector a = Vec3(1, 2, 3);
    const fl::ParamVector b = Vec3(-1, 5, 0.5);
    std::vector<fl::RoundUpdate> u(2);
    u[0].model = &a;
    u[0].sampleCount = 30;
    u[1].model = &b;
    u[1].sampleCount = 10;
    fl::ParamVector velocity;
    std::vector<double> w;
    const fl::ParamVector got = fl::AggregateRound(cur, u, {}, velocity, &w);
    const fl::ParamVector want = fl::FedAvgAggregate({&a, &b}, {30.0, 10.0});
    EXPECT_EQ(got.Get<double>(), want.Get<double>());
    EXPECT_EQ(w, (std::vector<double>{30.0, 10.0}));
    // (30 a + 10 b) / 40 by hand.
    EXPECT_NEAR(got.Get<double>()(0), 0.5, 1e-15);
    EXPECT_NEAR(got.Get<double>()(1), 2.75, 1e-15);
    EXPECT_NEAR(got.Get<double>()(2), 2.375, 1e-15);
}

TEST(RoundAggregation, StaleUpdatesAreTranslatedAndDiscounted)
{
    const fl::ParamVector cur = Vec3(1, 1, 1);
    const fl::ParamVector base = Vec3(0, 0, 0);
    const fl::ParamVector fresh = Vec3(2, 2, 2);
    const fl::ParamVector stale = Vec3(0, 4, 8); // trained from `base`, 3 rounds ago
    std::vector<fl::RoundUpdate> u(2);
    u[0].model = &fresh;
    u[0].sampleCount = 10;
    u[1].model = &stale;
    u[1].base = &base;
    u[1].sampleCount = 10;
    u[1].staleness = 3;
    fl::RoundAggregationConfig cfg;
    cfg.stalenessExponent = 0.5; // (1 + 3)^-0.5 = 1/2
    fl::ParamVector velocity;
    std::vector<double> w;
    const fl::ParamVector got = fl::AggregateRound(cur, u, cfg, velocity, &w);
    EXPECT_DOUBLE_EQ(w[1], 5.0);
    // translated stale = cur + (stale - base) = (1, 5, 9); (10 fresh + 5 translated) / 15
    const double want[3] = {(20.0 + 5.0) / 15.0, (20.0 + 25.0) / 15.0, (20.0 + 45.0) / 15.0};
    for (int i = 0; i < 3; ++i)
    {
        EXPECT_NEAR(got.Get<double>()(i), want[i], 1e-14);
    }
    u[1].base = nullptr;
    EXPECT_THROW(fl::AggregateRound(cur, u, cfg, velocity), fl::ConfigError);
}

TEST(RoundAggregation, MomentumIsTheServerMomentumStep)
{
    const fl::ParamVector cur = Vec3(1, 1, 1);
    const fl::ParamVector a = Vec3(0, 2, 4);
    std::vector<fl::RoundUpdate> u(1);
    u[0].model = &a;
    u[0].sampleCount = 1;
    fl::RoundAggregationConfig cfg;
    cfg.serverMomentum = 0.9;
    cfg.serverLearningRate = 0.5;
    fl::ParamVector velocity;
    const fl::ParamVector got = fl::AggregateRound(cur, u, cfg, velocity);
    // delta = cur - avg = (1, -1, -3); velocity = delta; w = cur - 0.5 delta
    EXPECT_NEAR(got.Get<double>()(0), 0.5, 1e-15);
    EXPECT_NEAR(got.Get<double>()(1), 1.5, 1e-15);
    EXPECT_NEAR(got.Get<double>()(2), 2.5, 1e-15);
    EXPECT_NEAR(velocity.Get<double>()(2), -3.0, 1e-15);
}

TEST(ClientSampling, UniformIsAPartialFisherYatesOnTheGivenDraws)
{
    std::vector<std::pair<uint32_t, uint32_t>> asked;
    std::vector<uint32_t> script{4, 1}; // j for i = 0, 1
    auto uniformInt = [&](uint32_t lo, uint32_t hi) {
        asked.emplace_back(lo, hi);
        return script[asked.size() - 1];
    };
    auto never = []() -> double {
        ADD_FAILURE() << "uniform sampling drew a real number";
        return 0.0;
    };
    // pool 10..14: swap(0,4) -> 14 11 12 13 10; swap(1,1) -> 14 11 ...; keep 2, sorted
    EXPECT_EQ(fl::SampleClients({10, 11, 12, 13, 14}, {}, 2, uniformInt, never),
              (std::vector<uint32_t>{11, 14}));
    EXPECT_EQ(asked, (std::vector<std::pair<uint32_t, uint32_t>>{{0, 4}, {1, 4}}));
    asked.clear();
    EXPECT_EQ(fl::SampleClients({3, 1, 2}, {}, 0, uniformInt, never),
              (std::vector<uint32_t>{1, 2, 3}));
    EXPECT_EQ(fl::SampleClients({3, 1, 2}, {}, 7, uniformInt, never),
              (std::vector<uint32_t>{1, 2, 3}));
    EXPECT_TRUE(asked.empty()); // everybody selected: no draw
}

TEST(ClientSampling, WeightedDrawsProportionallyToTheWeights)
{
    // A zero weight is never drawn; all the mass on one client makes it the first pick.
    double u = 0.3;
    auto uniform01 = [&]() { return u; };
    auto noInt = [](uint32_t, uint32_t) -> uint32_t {
        ADD_FAILURE() << "weighted sampling drew an index";
        return 0;
    };
    EXPECT_EQ(fl::SampleClients({0, 1, 2}, {0.0, 5.0, 0.0}, 1, noInt, uniform01),
              (std::vector<uint32_t>{1}));
    EXPECT_THROW(fl::SampleClients({0, 1}, {1.0}, 1, noInt, uniform01), fl::ConfigError);
}

TEST(ReferenceRunner, Float64CodecLinkEqualsTheIdealLink)
{
    auto task = fltest::MakeTask<double>(4, "softmax");
    fl::FedAvgReferenceConfig cfg;
    cfg.rounds = 3;
    cfg.initSeed = 7;
    cfg.clientSeeds = {11, 12, 13, 14};
    std::vector<fl::ParamVector> seen;
    cfg.onRound = [&](uint32_t, const fl::ParamVector& g) { seen.push_back(g); };
    const fl::FedAvgReferenceResult ideal = fl::RunFedAvgReference(*task, cfg);
    EXPECT_EQ(seen.size(), 4u); // round 0 and three rounds
    cfg.onRound = nullptr;
    cfg.link =
        fl::WireCodecLink(fl::WireEncoding::Float64, fl::Precision::Float64, 7, cfg.clientSeeds);
    const fl::FedAvgReferenceResult coded = fl::RunFedAvgReference(*task, cfg);
    EXPECT_EQ(ideal.finalModel.Get<double>(), coded.finalModel.Get<double>());
    EXPECT_GT(ideal.samplesProcessed, 0u);
    // float16 on the wire is lossy: the models differ.
    cfg.link =
        fl::WireCodecLink(fl::WireEncoding::Float16, fl::Precision::Float64, 7, cfg.clientSeeds);
    const fl::FedAvgReferenceResult half = fl::RunFedAvgReference(*task, cfg);
    EXPECT_NE(ideal.finalModel.Get<double>(), half.finalModel.Get<double>());
    cfg.clientSeeds.pop_back();
    EXPECT_THROW(fl::RunFedAvgReference(*task, cfg), fl::ConfigError);
}

namespace
{

// ---------------------------------------------------------------------------------------------
// A toy algorithm written on the strategy seam: the server adds a constant to every coordinate
// of the aggregate, after "thinking" for 50 ms of simulated time. These lines are all it takes.
class AddConstantStep : public FedAvgStrategy
{
  public:
    explicit AddConstantStep(double c)
        : m_c(c)
    {
    }

    void AfterAggregation(const Context& ctx,
                          fl::ParamVector& model,
                          std::function<void()> done) override
    {
        model.Get<double>().array() += m_c;
        ++calls;
        lastRound = ctx.round;
        FlSchedule(MilliSeconds(50), [done]() { done(); });
    }

    double m_c;
    uint32_t calls{0};
    uint32_t lastRound{0};
};

// ---------------------------------------------------------------------------------------------

} // namespace

// A strategy set by name that the program never registered (no NS_OBJECT_ENSURE_REGISTERED), a
// type that is not a server strategy, and one without a constructor: each error says which, with
// its fix (doc/fl-user.rst, "Writing a strategy").
TEST(RoundStep, SetStrategyByNameSaysWhatIsMissing)
{
    auto task = fltest::MakeTask<double>(2, "softmax");
    FlFedAvgHelper fedavg(task);
    auto error = [&fedavg](const std::string& name, bool client) {
        try
        {
            if (client)
            {
                fedavg.SetClientStrategy(name);
            }
            else
            {
                fedavg.SetStrategy(name);
            }
        }
        catch (const fl::ConfigError& e)
        {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    const std::string unregistered = error("ns3::AStrategyNobodyRegistered", false);
    EXPECT_NE(unregistered.find("no TypeId \"ns3::AStrategyNobodyRegistered\" is registered"),
              std::string::npos)
        << unregistered;
    EXPECT_NE(unregistered.find("NS_OBJECT_ENSURE_REGISTERED"), std::string::npos) << unregistered;
    const std::string other = error("ns3::Node", false);
    EXPECT_NE(other.find("\"ns3::Node\" is not a ns3::FlServerStrategy"), std::string::npos)
        << other;
    const std::string abstract = error("ns3::FlAsyncStrategy", false);
    EXPECT_NE(abstract.find("has no constructor"), std::string::npos) << abstract;
    EXPECT_NE(abstract.find(".AddConstructor<FlAsyncStrategy>()"), std::string::npos) << abstract;
    const std::string client = error("ns3::FedAvgStrategy", true);
    EXPECT_NE(client.find("is not a ns3::FlClientStrategy"), std::string::npos) << client;
    EXPECT_EQ(error("ns3::FedBuffStrategy", false), "no error");
}

TEST(RoundStep, ToyAlgorithmOnTheSeamMatchesItsInProcessMirror)
{
    const uint32_t n = 3;
    const uint32_t rounds = 3;
    auto task = fltest::MakeTask<double>(n, "softmax");
    FlCsmaSceneHelper csma;
    FlScene scene = csma.Build(n);
    Ptr<AddConstantStep> step = CreateObject<AddConstantStep>(0.25);
    FlFedAvgHelper fedavg(task);
    fedavg.SetServerAttribute("Rounds", UintegerValue(rounds));
    fedavg.SetServerAttribute("InitSeed", UintegerValue(5));
    fedavg.SetStrategy(step);
    FlFedAvgStack stack = fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress);
    std::vector<uint64_t> seeds;
    for (uint32_t i = 0; i < n; ++i)
    {
        seeds.push_back(100 + i);
        stack.clientApps.Get(i)->SetAttribute("TrainingSeed", UintegerValue(seeds.back()));
    }
    std::vector<FlRoundReport> reports;
    stack.server->TraceConnectWithoutContext(
        "RoundEnd",
        MakeCallback(+[](std::vector<FlRoundReport>* out, const FlRoundReport& r) {
            out->push_back(r);
        }).Bind(&reports));
    Simulator::Stop(Seconds(60));
    Simulator::Run();
    ASSERT_TRUE(stack.server->IsFinished());
    const fl::ParamVector network = stack.server->GetGlobalModel();
    Simulator::Destroy();

    EXPECT_EQ(step->calls, rounds);
    EXPECT_EQ(step->lastRound, rounds);
    ASSERT_EQ(reports.size(), rounds + 1);
    for (uint32_t r = 1; r <= rounds; ++r)
    {
        // The round ends when the step calls done: at least its 50 ms after the aggregation.
        EXPECT_GE((reports[r].end - reports[r].start).GetSeconds(), 0.05);
    }
    fl::FedAvgReferenceConfig cfg;
    cfg.rounds = rounds;
    cfg.initSeed = 5;
    cfg.clientSeeds = seeds;
    cfg.step = [](uint32_t, fl::ParamVector& m) { m.Get<double>().array() += 0.25; };
    const fl::FedAvgReferenceResult ref = fl::RunFedAvgReference(*task, cfg);
    EXPECT_EQ(network.Get<double>(), ref.finalModel.Get<double>());
}

TEST(PrivacySeam, UplinkNoiseOverTheNetworkEqualsTheInProcessMirror)
{
    const uint32_t n = 3;
    const uint32_t rounds = 2;
    const double sigma = 0.05;
    auto task = fltest::MakeTask<double>(n, "softmax");
    FlCsmaSceneHelper csma;
    FlScene scene = csma.Build(n);
    FlFedAvgHelper fedavg(task);
    fedavg.SetServerAttribute("Rounds", UintegerValue(rounds));
    fedavg.SetServerAttribute("InitSeed", UintegerValue(9));
    fedavg.SetUplinkPerturbation([sigma]() {
        return std::make_shared<fl::GaussianPerturbation>(sigma, fl::NoiseScope::PerLink);
    });
    FlFedAvgStack stack = fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress);
    std::vector<uint64_t> seeds{21, 22, 23};
    for (uint32_t i = 0; i < n; ++i)
    {
        stack.clientApps.Get(i)->SetAttribute("TrainingSeed", UintegerValue(seeds[i]));
    }
    Simulator::Stop(Seconds(60));
    Simulator::Run();
    ASSERT_TRUE(stack.server->IsFinished());
    const fl::ParamVector network = stack.server->GetGlobalModel();
    Simulator::Destroy();

    fl::FedAvgReferenceConfig cfg;
    cfg.rounds = rounds;
    cfg.initSeed = 9;
    cfg.clientSeeds = seeds;
    cfg.link.up = [&](uint32_t r, uint32_t k, const fl::ParamVector& w) {
        fl::ParamVector noisy = w;
        fl::GaussianPerturbation p(sigma, fl::NoiseScope::PerLink);
        fl::Rng rng(fl::UplinkNoiseSeed(seeds[k], r));
        p.BeginIteration(noisy.Size(), rng);
        p.PerturbOutgoing(noisy, 0, rng);
        return noisy;
    };
    const fl::FedAvgReferenceResult noisy = fl::RunFedAvgReference(*task, cfg);
    EXPECT_EQ(network.Get<double>(), noisy.finalModel.Get<double>());
    cfg.link.up = nullptr;
    const fl::FedAvgReferenceResult clean = fl::RunFedAvgReference(*task, cfg);
    // The noise moved the model, by about sigma / sqrt(n) per coordinate.
    const double rms = (network.Get<double>() - clean.finalModel.Get<double>()).norm() /
                       std::sqrt(static_cast<double>(network.Size()));
    EXPECT_GT(rms, 0.1 * sigma / std::sqrt(n));
}

// The uplink noise of FedAvg clients reports its eps: each upload is one Gaussian release of
// the uploaded model with l2 sensitivity 2 G eta E (E = 2 steps of eta = 0.05 clipped to G = 1:
// 0.2) at sigma = 0.5, composed over the 3 rounds by Renyi DP; Laplace noise of scale b needs the
// l1 sensitivity sqrt(M) 0.2 and composes by summing: 3 sqrt(M) 0.2 / b. The monitor's
// epsilon_uplink column is the least private client's (all three upload every round here).
TEST(PrivacySeam, UplinkNoiseReportsItsEpsilon)
{
    const uint32_t n = 3;
    const uint32_t rounds = 3;
    fl::LocalTrainerConfig tc = fltest::TestTrainer();
    tc.localSteps = 2;
    tc.learningRate = 0.05;
    tc.clipNorm = 1.0;
    auto task = fltest::MakeTask<double>(n, "softmax", 8, tc);
    for (bool laplace : {false, true})
    {
        FlCsmaSceneHelper csma;
        FlScene scene = csma.Build(n);
        FlFedAvgHelper fedavg(task);
        fedavg.SetServerAttribute("Rounds", UintegerValue(rounds));
        fedavg.SetUplinkPerturbation([laplace]() -> std::shared_ptr<fl::Perturbation> {
            if (laplace)
            {
                return std::make_shared<fl::LaplacePerturbation>(2.0, fl::NoiseScope::PerLink);
            }
            return std::make_shared<fl::GaussianPerturbation>(0.5, fl::NoiseScope::PerLink);
        });
        FlFedAvgStack stack = fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress);
        Simulator::Stop(Seconds(60));
        Simulator::Run();
        ASSERT_TRUE(stack.server->IsFinished());
        double expected = 0.0;
        if (laplace)
        {
            expected = 3.0 * std::sqrt(static_cast<double>(task->NumParameters())) * 0.2 / 2.0;
        }
        else
        {
            fl::PrivacyAccountant ref;
            ref.AddGaussian(0.2, 0.5, 3);
            expected = ref.Epsilon(1e-5, fl::Composition::Rdp);
        }
        for (uint32_t i = 0; i < n; ++i)
        {
            auto client = DynamicCast<FlClientApplication>(stack.clientApps.Get(i));
            EXPECT_NEAR(client->GetUplinkEpsilon(1e-5), expected, 1e-12 * expected)
                << (laplace ? "laplace" : "gaussian") << " client " << i;
        }
        const auto& records = stack.monitor->GetRecords();
        ASSERT_EQ(records.size(), rounds + 1);
        EXPECT_EQ(records.front().epsilonUplink, 0.0); // no upload yet
        EXPECT_NEAR(records.back().epsilonUplink, expected, 1e-12 * expected);
        Simulator::Destroy();
    }
    // Without clipping the uploads have no sensitivity bound: eps is infinite.
    fl::UplinkPrivacyAccountant unclipped;
    unclipped.RecordUpload(fl::MechanismSpec{fl::MechanismKind::Gaussian, 0.0, 1.0},
                           fltest::TestTrainer(),
                           5,
                           10);
    EXPECT_TRUE(std::isinf(unclipped.Epsilon(1e-5)));
    EXPECT_DOUBLE_EQ(fl::LocalTrainingSensitivity(tc, 2), 0.2);
    tc.stepRule = fl::StepRule::DividedBySteps; // steps of eta / E: 2 G eta
    EXPECT_DOUBLE_EQ(fl::LocalTrainingSensitivity(tc, 2), 0.1);
}

namespace
{

/// Two nodes on a CSMA LAN, each with a transport listening on port 7000.
struct PeerPair
{
    FlScene scene;
    Ptr<FlTransport> a;
    Ptr<FlTransport> b;
    std::vector<FlInboundMessage> atA;
    std::vector<FlInboundMessage> atB;

    void Receive(bool atNodeA, FlInboundMessage& in)
    {
        (atNodeA ? atA : atB).push_back(in);
    }
};

void
ExchangePeerMessages(FlTransportKind kind)
{
    PeerPair p;
    FlCsmaSceneHelper csma;
    p.scene = csma.Build(1); // node 0: the "server" node, node 1: the client node
    FlTransportConfig cfg;
    cfg.kind = kind;
    cfg.wire = fl::WireEncoding::Float32;
    cfg.decodeTo = fl::Precision::Float64;
    Ptr<Node> na = p.scene.serverNode;
    Ptr<Node> nb = p.scene.clients.Get(0);
    p.a = FlTransport::Create(na, na->GetId(), cfg);
    p.b = FlTransport::Create(nb, nb->GetId(), cfg);
    ASSERT_TRUE(p.a->Listen(7000));
    ASSERT_TRUE(p.b->Listen(7000));
    p.a->SetReceiveCallback(
        MakeCallback(+[](PeerPair* pp, FlInboundMessage& in) { pp->Receive(true, in); }).Bind(&p));
    p.b->SetReceiveCallback(
        MakeCallback(+[](PeerPair* pp, FlInboundMessage& in) { pp->Receive(false, in); }).Bind(&p));
    const Address addrA = InetSocketAddress(p.scene.serverAddress, 7000);
    const Address addrB = InetSocketAddress(p.scene.clientInterfaces.GetAddress(0), 7000);
    const fl::ParamVector model = Vec3(0.5, -2.0, 1e-3);
    FlSchedule(Seconds(1), [&]() {
        // a -> b: a neighbour model and a control list; b -> a: a control scalar.
        p.a->SendModel({addrB}, {fl::MessageKind::PeerModel, 4, 0, nb->GetId(), 0}, model, nullptr);
        p.a->SendRaw(addrB,
                     {fl::MessageKind::Control, 4, 0, nb->GetId(), 9},
                     fl::PackU32({1, 2, 3}));
        p.b->SendRaw(addrA, {fl::MessageKind::Control, 4, 0, na->GetId(), 1}, fl::PackF64({0.125}));
    });
    Simulator::Stop(Seconds(5));
    Simulator::Run();
    ASSERT_EQ(p.atB.size(), 2u);
    const auto& peer = p.atB[0].msg;
    EXPECT_EQ(peer.header.kind, fl::MessageKind::PeerModel);
    EXPECT_EQ(peer.header.sender, na->GetId());
    EXPECT_EQ(peer.header.receiver, nb->GetId());
    EXPECT_EQ(peer.header.round, 4u);
    ASSERT_EQ(peer.params.Size(), 3u);
    for (int i = 0; i < 3; ++i)
    {
        // float32 on the wire
        EXPECT_EQ(peer.params.Get<double>()(i),
                  static_cast<double>(static_cast<float>(model.Get<double>()(i))));
    }
    std::vector<uint32_t> list;
    EXPECT_EQ(p.atB[1].msg.header.kind, fl::MessageKind::Control);
    EXPECT_EQ(p.atB[1].msg.header.aux, 9u);
    ASSERT_TRUE(fl::UnpackU32(p.atB[1].msg.raw, list));
    EXPECT_EQ(list, (std::vector<uint32_t>{1, 2, 3}));
    ASSERT_EQ(p.atA.size(), 1u);
    std::vector<double> scalar;
    ASSERT_TRUE(fl::UnpackF64(p.atA[0].msg.raw, scalar));
    EXPECT_EQ(scalar, (std::vector<double>{0.125}));
    EXPECT_EQ(p.atA[0].msg.header.sender, nb->GetId());
    EXPECT_EQ(p.a->Stats().messagesSent, 2u);
    EXPECT_EQ(p.b->Stats().messagesDelivered, 2u);
    EXPECT_EQ(p.a->Stats().malformed + p.b->Stats().malformed, 0u);
    EXPECT_GT(p.a->Stats().bytesSent, 0u);
    EXPECT_EQ(p.a->IsReliable(), kind == FlTransportKind::Tcp);
    p.a->Close();
    p.b->Close();
    Simulator::Destroy();
}

} // namespace

TEST(Transport, PeersExchangeModelsAndControlMessagesOverTcp)
{
    ExchangePeerMessages(FlTransportKind::Tcp);
}

TEST(Transport, PeersExchangeModelsAndControlMessagesOverUdp)
{
    ExchangePeerMessages(FlTransportKind::Udp);
}

TEST(Transport, TcpConnectionThatCannotOpenCountsItsQueuedMessages)
{
    // Node b does not listen: a's SYNs go unanswered by any socket, TCP gives up after its
    // retries (ConnCount 6, the transport's ConnTimeout of 1 s doubling, as RFC 6298 and Linux:
    // 1 + 2 + 4 + 8 + 16 + 32 = 63 s after the first SYN; with ns-3's 3 s, 189 s), the
    // connection fails, and the two messages queued on it are dropped and counted (nothing lost
    // silently).
    FlCsmaSceneHelper csma;
    FlScene scene = csma.Build(1);
    FlTransportConfig cfg;
    Ptr<Node> na = scene.serverNode;
    Ptr<Node> nb = scene.clients.Get(0);
    Ptr<FlTransport> a = FlTransport::Create(na, na->GetId(), cfg);
    ASSERT_TRUE(a->Listen(7000));
    const Address addrB = InetSocketAddress(scene.clientInterfaces.GetAddress(0), 7000);
    const fl::ParamVector model = Vec3(1.0, 2.0, 3.0);
    FlSchedule(Seconds(1), [&]() {
        a->SendModel({addrB}, {fl::MessageKind::PeerModel, 1, 0, nb->GetId(), 0}, model, nullptr);
        a->SendRaw(addrB, {fl::MessageKind::Control, 1, 0, nb->GetId(), 3}, fl::PackU32({7}));
    });
    uint64_t failedBefore = 99;
    uint64_t failedAfter = 99;
    FlSchedule(Seconds(1 + 63 - 0.5), [&]() { failedBefore = a->Stats().connectFailures; });
    FlSchedule(Seconds(1 + 63 + 0.5), [&]() { failedAfter = a->Stats().connectFailures; });
    Simulator::Stop(Seconds(400));
    Simulator::Run();
    const FlTransportStats st = a->Stats();
    EXPECT_EQ(st.messagesSent, 2u);
    EXPECT_EQ(st.connectFailures, 1u);
    EXPECT_EQ(st.messagesUnsent, 2u);
    EXPECT_EQ(failedBefore, 0u);
    EXPECT_EQ(failedAfter, 1u);
    a->Close();
    Simulator::Destroy();
}

// Two nodes out of step: node 1 reports round 1 before node 2 reports round 0. Round 0 is
// aggregated at node 1's round-1 report; node 2's late round-0 report must not write round 0 a
// second time (it is dropped and counted), and round 1 then holds both nodes' reports.
TEST(LearningTracker, AReportOfAnAggregatedRoundIsDroppedNotWrittenTwice)
{
    Ptr<FlLearningTracker> tracker = CreateObject<FlLearningTracker>();
    tracker->SetReferenceOptimum(Eigen::VectorXd::Zero(2));
    fl::ParamVector a(Eigen::VectorXd(Eigen::VectorXd::Constant(2, 1.0)));
    fl::ParamVector b(Eigen::VectorXd(Eigen::VectorXd::Constant(2, 3.0)));
    auto report = [](uint32_t round, uint32_t node, const fl::ParamVector& m) {
        FlModelReport r;
        r.round = round;
        r.node = node;
        r.role = FlNodeRole::Peer;
        r.model = &m;
        return r;
    };
    tracker->Record(report(0, 1, a), 0.1);
    tracker->Record(report(1, 1, a), 0.2); // round 0 aggregated now, with node 1 only
    tracker->Record(report(0, 2, b), 0.3); // late
    tracker->Record(report(1, 2, b), 0.4);
    tracker->Flush();
    EXPECT_EQ(tracker->GetLateReports(), 1u);
    std::map<uint32_t, std::vector<double>> nodes; // round -> values of network|nodes
    for (const auto& r : tracker->GetRows())
    {
        if (r.node == "network" && r.metric == "nodes")
        {
            nodes[r.round].push_back(r.value);
        }
    }
    ASSERT_EQ(nodes.size(), 2u);
    EXPECT_EQ(nodes[0], std::vector<double>{1.0}); // one row, node 1's report
    EXPECT_EQ(nodes[1], std::vector<double>{2.0});
    // Round 1's disagreement: centroid (2, 2), (1/2) * (2 + 2) = 2.
    double disagreement = -1.0;
    for (const auto& r : tracker->GetRows())
    {
        if (r.round == 1 && r.node == "network" && r.metric == "disagreement")
        {
            disagreement = r.value;
        }
    }
    EXPECT_NEAR(disagreement, 2.0, 1e-12);
}

TEST(LearningTracker, AggregatesTheReportedModelsOfEveryRole)
{
    const uint32_t n = 3;
    auto task = fltest::MakeTask<double>(n, "softmax");
    FlCsmaSceneHelper csma;
    FlScene scene = csma.Build(n);
    FlFedAvgHelper fedavg(task);
    fedavg.SetServerAttribute("Rounds", UintegerValue(2));
    FlFedAvgStack stack = fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress);
    Ptr<FlLearningTracker> tracker = CreateObject<FlLearningTracker>();
    tracker->SetTask(task);
    // A reference point (the origin) makes the MSD metrics appear.
    tracker->SetReferenceOptimum(
        Eigen::VectorXd::Zero(static_cast<Eigen::Index>(task->NumParameters())));
    auto accountant = std::make_shared<fl::PrivacyAccountant>();
    tracker->SetAccountant(accountant, 1e-5, fl::Composition::Zcdp);
    tracker->InstallAll();
    // Feed the accountant one Gaussian step per round, at every round start.
    stack.server->TraceConnectWithoutContext(
        "RoundStart",
        MakeCallback(+[](fl::PrivacyAccountant* acc, uint32_t, const std::vector<uint32_t>&) {
            acc->AddGaussian(1.0, 4.0);
        }).Bind(accountant.get()));
    Simulator::Stop(Seconds(60));
    Simulator::Run();
    tracker->Flush();
    const auto& monitorRows = stack.monitor->GetRecords();
    ASSERT_EQ(monitorRows.size(), 3u);
    const std::string server = std::to_string(scene.serverNode->GetId());
    std::map<std::pair<uint32_t, std::string>, double> m; // (round, node|metric|role) -> value
    for (const auto& r : tracker->GetRows())
    {
        m[{r.round, r.node + "|" + r.metric + "|" + r.role}] = r.value;
    }
    for (uint32_t round = 0; round <= 2; ++round)
    {
        // The server's model is the global model the FedAvg monitor evaluates.
        EXPECT_DOUBLE_EQ(m.at({round, server + "|test_accuracy|server"}),
                         monitorRows[round].testAccuracy);
        EXPECT_DOUBLE_EQ(m.at({round, "centroid|test_loss|server"}), monitorRows[round].testLoss);
        EXPECT_EQ(m.at({round, "network|disagreement|server"}), 0.0);
        // ||w - 0||^2 in dB
        const double norm2 = stack.server->GetGlobalModel().Get<double>().squaredNorm();
        if (round == 2)
        {
            EXPECT_NEAR(m.at({round, server + "|msd_db|server"}), 10 * std::log10(norm2), 1e-9);
        }
    }
    for (uint32_t round = 1; round <= 2; ++round)
    {
        EXPECT_EQ(m.at({round, "network|nodes|client"}), n);
        EXPECT_GT(m.at({round, "network|disagreement|client"}), 0.0); // clients drift apart
        // zCDP of `round` Gaussian steps of sensitivity 1, sigma 4: rho = round / 32
        const double rho = round / 32.0;
        EXPECT_NEAR(m.at({round, "network|epsilon|server"}),
                    rho + 2 * std::sqrt(rho * std::log(1e5)),
                    1e-12);
    }
    Simulator::Destroy();
}

namespace
{
/// A small FedAvg run (server and 3 clients over CSMA, 2 rounds) watched by one tracker that
/// also writes the wide view; every application's own transport counters are read, by a
/// second sink of the ModelReport trace, at the moment it reports.
struct TrackedFedAvgRun
{
    Ptr<FlLearningTracker> tracker;
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> sentAtReport; ///< (round, node) -> bytes
    std::map<uint32_t, uint64_t> sentAfterRun;                      ///< node -> bytes
    std::map<uint32_t, std::string> roleOf;                         ///< node -> role name
    std::string wideFile;
};

struct CounterProbe
{
    TrackedFedAvgRun* run;
    Ptr<FlApplicationBase> app;
};

void
ProbeCounters(CounterProbe* probe, const FlModelReport& report)
{
    Ptr<FlTransport> t = probe->app->GetTransport();
    if (t) // a server's round-0 report comes before its transport opens
    {
        probe->run->sentAtReport[{report.round, report.node}] = t->Stats().bytesSent;
    }
    probe->run->roleOf[report.node] = FlNodeRoleName(report.role);
}

void
RunTrackedFedAvg(TrackedFedAvgRun& run, bool withReference, const std::string& wideName)
{
    const uint32_t n = 3;
    auto task = fltest::MakeTask<double>(n, "softmax");
    FlCsmaSceneHelper csma;
    FlScene scene = csma.Build(n);
    FlFedAvgHelper fedavg(task);
    fedavg.SetServerAttribute("Rounds", UintegerValue(2));
    FlFedAvgStack stack = fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress);
    run.tracker = CreateObject<FlLearningTracker>();
    run.tracker->SetTask(task);
    if (withReference)
    {
        run.tracker->SetReferenceOptimum(
            Eigen::VectorXd::Zero(static_cast<Eigen::Index>(task->NumParameters())));
    }
    run.wideFile = ::testing::TempDir() + wideName;
    run.tracker->SetWideOutput(run.wideFile);
    run.tracker->InstallAll();
    std::vector<Ptr<FlApplicationBase>> apps{stack.server};
    for (auto it = stack.clientApps.Begin(); it != stack.clientApps.End(); ++it)
    {
        apps.push_back(DynamicCast<FlApplicationBase>(*it));
    }
    std::vector<std::unique_ptr<CounterProbe>> probes;
    for (const auto& app : apps)
    {
        probes.push_back(std::make_unique<CounterProbe>(CounterProbe{&run, app}));
        app->TraceConnectWithoutContext("ModelReport",
                                        MakeBoundCallback(&ProbeCounters, probes.back().get()));
    }
    Simulator::Stop(Seconds(60));
    Simulator::Run();
    run.tracker->Flush();
    for (const auto& app : apps)
    {
        ASSERT_TRUE(app->GetTransport());
        run.sentAfterRun[app->GetNodeLevelId()] = app->GetTransport()->Stats().bytesSent;
    }
    Simulator::Destroy();
}
} // namespace

// Every node's bytes_sent row is its application's own transport counter at its report (the
// last round's: at the end of the run, next test), and the network row of a role is the sum
// over the role's nodes that reported the round.
TEST(LearningTracker, BytesSentRowsAreTheTransportCountersAndTheirSum)
{
    TrackedFedAvgRun run;
    RunTrackedFedAvg(run, false, "fl-tracker-bytes-wide.csv");
    std::map<std::pair<uint32_t, uint32_t>, double> perNode;         // (round, node)
    std::map<std::pair<uint32_t, std::string>, double> networkTotal; // (round, role)
    for (const auto& r : run.tracker->GetRows())
    {
        if (r.metric != "bytes_sent")
        {
            continue;
        }
        if (r.node == "network")
        {
            EXPECT_EQ(networkTotal.count({r.round, r.role}), 0u) << "two totals";
            networkTotal[{r.round, r.role}] = r.value;
        }
        else
        {
            const auto node = static_cast<uint32_t>(std::stoul(r.node));
            EXPECT_EQ(r.role, run.roleOf.at(node));
            perNode[{r.round, node}] = r.value;
        }
    }
    // one row per report made with a transport: the server's rounds 1, 2, the clients' 1, 2
    ASSERT_EQ(perNode.size(), run.sentAtReport.size());
    EXPECT_EQ(perNode.size(), 2u + 3u * 2u);
    std::map<std::pair<uint32_t, std::string>, double> sums;
    for (const auto& kv : run.sentAtReport)
    {
        const bool last = kv.first.first == 2; // the end of the run's counters
        const uint64_t counter = last ? run.sentAfterRun.at(kv.first.second) : kv.second;
        EXPECT_EQ(perNode.at(kv.first), static_cast<double>(counter));
        EXPECT_GT(kv.second, 0u); // every node had sent something by round 1
        EXPECT_LE(kv.second, run.sentAfterRun.at(kv.first.second));
        sums[{kv.first.first, run.roleOf.at(kv.first.second)}] += static_cast<double>(counter);
    }
    EXPECT_EQ(networkTotal, sums);
    // cumulative: round 2 of a node is at least its round 1
    for (const auto& kv : run.sentAtReport)
    {
        if (kv.first.first == 2)
        {
            EXPECT_GE(kv.second, run.sentAtReport.at({1, kv.first.second}));
        }
    }
    EXPECT_GT(networkTotal.at({2, "server"}), networkTotal.at({1, "server"}));
    // the server's round-0 report precedes its transport: no bytes row, no server total
    EXPECT_EQ(networkTotal.count({0, "server"}), 0u);
}

// The end of the run: the last round's bytes_sent of every node is what its transport had sent
// when Simulator::Run returned, Stop messages after the last report included, and the role's
// network row of the last round their sum; no second row of the same (round, node, metric).
TEST(LearningTracker, LastRoundBytesSentAreTheCountersAfterTheRun)
{
    TrackedFedAvgRun run;
    RunTrackedFedAvg(run, false, "fl-tracker-final-bytes-wide.csv");
    std::map<std::string, double> roleSums;
    uint32_t lastRound = 0;
    for (const auto& kv : run.sentAtReport)
    {
        lastRound = std::max(lastRound, kv.first.first);
    }
    ASSERT_EQ(lastRound, 2u);
    for (const auto& kv : run.sentAfterRun)
    {
        const std::string node = std::to_string(kv.first);
        EXPECT_EQ(run.tracker->GetLast(node, "bytes_sent"), static_cast<double>(kv.second))
            << "node " << node;
        roleSums[run.roleOf.at(kv.first)] += static_cast<double>(kv.second);
    }
    std::map<std::tuple<uint32_t, std::string, std::string>, int> seen;
    std::map<std::string, double> lastNetwork;
    for (const auto& r : run.tracker->GetRows())
    {
        if (r.metric == "bytes_sent")
        {
            EXPECT_EQ(++seen[std::make_tuple(r.round, r.node, r.role)], 1)
                << r.round << " " << r.node;
            if (r.node == "network" && r.round == lastRound)
            {
                lastNetwork[r.role] = r.value;
            }
        }
    }
    EXPECT_EQ(lastNetwork, roleSums);
    // the server's Stop messages went out after its last report: the fix is measurable
    uint32_t server = 0;
    for (const auto& kv : run.roleOf)
    {
        server = kv.second == "server" ? kv.first : server;
    }
    ASSERT_EQ(run.roleOf.at(server), "server");
    EXPECT_GT(run.sentAfterRun.at(server), run.sentAtReport.at({lastRound, server}));
    // the wide view's last server row carries the same total
    const auto& wide = run.tracker->GetWideRows();
    for (const auto& w : wide)
    {
        if (w.round == lastRound)
        {
            EXPECT_EQ(w.bytesSent, roleSums.at(w.role)) << w.role;
        }
    }
}

namespace
{
/// A learning task that counts the evaluations made of its models (and forwards everything).
class CountingTask : public fl::LearningTask
{
  public:
    explicit CountingTask(std::shared_ptr<const fl::LearningTask> inner)
        : m_inner(std::move(inner))
    {
    }

    fl::Precision GetPrecision() const override
    {
        return m_inner->GetPrecision();
    }

    std::size_t NumParameters() const override
    {
        return m_inner->NumParameters();
    }

    std::size_t NumClients() const override
    {
        return m_inner->NumClients();
    }

    std::size_t ClientSamples(std::size_t client) const override
    {
        return m_inner->ClientSamples(client);
    }

    fl::ParamVector InitialParameters(fl::Rng& rng) const override
    {
        return m_inner->InitialParameters(rng);
    }

    const fl::LocalTrainerConfig& GetTrainerConfig() const override
    {
        return m_inner->GetTrainerConfig();
    }

    fl::TrainOutcome TrainClient(std::size_t client,
                                 const fl::ParamVector& start,
                                 fl::Rng& rng) const override
    {
        return m_inner->TrainClient(client, start, rng);
    }

    void TrainClientInto(std::size_t client,
                         const fl::ParamVector& start,
                         fl::Rng& rng,
                         fl::TrainOutcome& out) const override
    {
        m_inner->TrainClientInto(client, start, rng, out);
    }

    bool PlanClient(std::size_t client, fl::TrainingPlan& plan) const override
    {
        return m_inner->PlanClient(client, plan);
    }

    fl::Evaluation Evaluate(const fl::ParamVector& w) const override
    {
        ++evaluations;
        return m_inner->Evaluate(w);
    }

    fl::Evaluation EvaluateTraining(const fl::ParamVector& w) const override
    {
        ++trainingEvaluations;
        return m_inner->EvaluateTraining(w);
    }

    std::string Describe() const override
    {
        return m_inner->Describe();
    }

    mutable std::atomic<uint64_t> evaluations{0};         ///< Evaluate calls
    mutable std::atomic<uint64_t> trainingEvaluations{0}; ///< EvaluateTraining calls

  private:
    std::shared_ptr<const fl::LearningTask> m_inner;
};
} // namespace

// LearningMonitor is the round view of its tracker: its rows are the tracker's, and when the
// same tracker also takes the applications' ModelReport, each global model is evaluated once
// (the server's long rows and its centroid take the round view's evaluation).
TEST(LearningTracker, MonitorRowsAreTheTrackersRoundViewWithOneEvaluationPerGlobalModel)
{
    const uint32_t n = 3;
    const uint32_t rounds = 2;
    auto task = std::make_shared<CountingTask>(fltest::MakeTask<double>(n, "softmax"));
    FlCsmaSceneHelper csma;
    FlScene scene = csma.Build(n);
    FlFedAvgHelper fedavg(task);
    fedavg.SetServerAttribute("Rounds", UintegerValue(rounds));
    const std::string file = ::testing::TempDir() + "fl-monitor-round-view.csv";
    fedavg.SetMonitorAttribute("OutputFile", StringValue(file));
    FlFedAvgStack stack = fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress);
    Ptr<FlLearningTracker> tracker = stack.monitor->GetTracker();
    ASSERT_TRUE(tracker);
    tracker->SetTask(task);
    tracker->Install(stack.serverApps);
    tracker->Install(stack.clientApps);
    Simulator::Stop(Seconds(60));
    Simulator::Run();
    tracker->Flush();
    const auto& records = stack.monitor->GetRecords();
    EXPECT_EQ(&records, &tracker->GetRoundRecords());
    ASSERT_EQ(records.size(), rounds + 1u);
    const std::string server = std::to_string(stack.server->GetNodeLevelId());
    std::map<uint32_t, double> serverLoss, centroidLoss;
    for (const auto& r : tracker->GetRows())
    {
        if (r.role == "server" && r.metric == "test_loss")
        {
            (r.node == server ? serverLoss : centroidLoss)[r.round] = r.value;
        }
    }
    ASSERT_EQ(serverLoss.size(), rounds + 1u);
    for (const auto& rec : records)
    {
        EXPECT_EQ(serverLoss.at(rec.round), rec.testLoss) << rec.round;
        EXPECT_EQ(centroidLoss.at(rec.round), rec.testLoss) << rec.round;
    }
    // one evaluation per global model (rounds 0..2), the 3 clients' models of rounds 1 and 2
    // and their centroids; the training loss only for the global models
    EXPECT_EQ(task->evaluations.load(), (rounds + 1u) + n * rounds + rounds);
    EXPECT_EQ(task->trainingEvaluations.load(), rounds + 1u);
    Simulator::Destroy();
    // the file: the header and one CsvRow per record
    std::ifstream in(file);
    std::string line;
    ASSERT_TRUE(std::getline(in, line));
    EXPECT_EQ(line, LearningMonitor::CsvHeader());
    for (const auto& rec : records)
    {
        ASSERT_TRUE(std::getline(in, line));
        EXPECT_EQ(line, LearningMonitor::CsvRow(rec));
    }
}

// The wide view holds, row by row, the values of the long rows of the same run.
TEST(LearningTracker, WideViewEqualsTheLongRowsOfTheSameRun)
{
    TrackedFedAvgRun run;
    RunTrackedFedAvg(run, true, "fl-tracker-wide.csv");
    const double nan = std::numeric_limits<double>::quiet_NaN();
    // (round, node|metric, role) -> value of the aggregate rows
    std::map<std::tuple<uint32_t, std::string, std::string>, double> aggregate;
    std::map<std::pair<uint32_t, std::string>, std::vector<double>> nodeLoss, nodeAcc;
    std::map<uint32_t, double> times;
    for (const auto& r : run.tracker->GetRows())
    {
        times[r.round] = r.timeS;
        if (r.node == "network" || r.node == "centroid")
        {
            aggregate[{r.round, r.node + "|" + r.metric, r.role}] = r.value;
        }
        else if (r.metric == "test_loss")
        {
            nodeLoss[{r.round, r.role}].push_back(r.value);
        }
        else if (r.metric == "test_accuracy")
        {
            nodeAcc[{r.round, r.role}].push_back(r.value);
        }
    }
    auto long_ = [&](uint32_t round, const std::string& what, const std::string& role) {
        auto it = aggregate.find({round, what, role});
        return it == aggregate.end() ? nan : it->second;
    };
    auto mean = [](const std::vector<double>& v) {
        double s = 0.0;
        for (double x : v)
        {
            s += x;
        }
        return s / static_cast<double>(v.size());
    };
    auto same = [](double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; };
    const auto& wide = run.tracker->GetWideRows();
    // rounds 0..2 of the server, 1..2 of the clients
    ASSERT_EQ(wide.size(), 5u);
    for (const auto& w : wide)
    {
        SCOPED_TRACE(std::to_string(w.round) + " " + w.role);
        EXPECT_EQ(w.timeS, times.at(w.round));
        EXPECT_EQ(w.nodes, long_(w.round, "network|nodes", w.role));
        EXPECT_EQ(w.nodes, w.role == "server" ? 1.0 : 3.0);
        EXPECT_EQ(w.centroidTestLoss, long_(w.round, "centroid|test_loss", w.role));
        EXPECT_EQ(w.centroidTestAccuracy, long_(w.round, "centroid|test_accuracy", w.role));
        EXPECT_EQ(w.disagreement, long_(w.round, "network|disagreement", w.role));
        EXPECT_EQ(w.centroidMsdDb, long_(w.round, "centroid|msd_db", w.role));
        EXPECT_EQ(w.avgMsdDb, long_(w.round, "network|avg_msd_db", w.role));
        EXPECT_TRUE(same(w.bytesSent, long_(w.round, "network|bytes_sent", w.role)));
        EXPECT_EQ(w.meanNodeTestLoss, mean(nodeLoss.at({w.round, w.role})));
        EXPECT_EQ(w.meanNodeTestAccuracy, mean(nodeAcc.at({w.round, w.role})));
        EXPECT_TRUE(std::isnan(w.epsilon)); // no accountant in this run
        EXPECT_FALSE(std::isnan(w.centroidMsdDb));
    }
    EXPECT_TRUE(std::isnan(wide.front().bytesSent)); // the server's round 0: nothing counted
    EXPECT_FALSE(std::isnan(wide.back().bytesSent));
    // the file: the header, then the same values, with empty fields for NaN
    std::ifstream in(run.wideFile);
    std::string line;
    ASSERT_TRUE(std::getline(in, line));
    EXPECT_EQ(line, FlLearningTracker::WideCsvHeader());
    for (const auto& w : wide)
    {
        ASSERT_TRUE(std::getline(in, line));
        std::vector<std::string> f;
        std::stringstream ss(line);
        std::string cell;
        while (std::getline(ss, cell, ','))
        {
            f.push_back(cell);
        }
        if (!line.empty() && line.back() == ',')
        {
            f.emplace_back();
        }
        ASSERT_EQ(f.size(), 13u) << line;
        EXPECT_EQ(std::stoul(f[0]), w.round);
        EXPECT_EQ(f[2], w.role);
        const double values[] = {w.timeS,
                                 nan,
                                 w.nodes,
                                 w.centroidTestLoss,
                                 w.centroidTestAccuracy,
                                 w.meanNodeTestLoss,
                                 w.meanNodeTestAccuracy,
                                 w.disagreement,
                                 w.centroidMsdDb,
                                 w.avgMsdDb,
                                 w.epsilon,
                                 w.bytesSent};
        for (std::size_t k = 1; k < 13; ++k)
        {
            if (k == 2)
            {
                continue;
            }
            const double v = values[k - 1];
            if (std::isnan(v))
            {
                EXPECT_TRUE(f[k].empty()) << "column " << k << ": " << f[k];
            }
            else if (std::isinf(v)) // MSD of the zero initial model against w = 0
            {
                EXPECT_EQ(std::stod(f[k]), v) << "column " << k;
            }
            else
            {
                EXPECT_NEAR(std::stod(f[k]), v, 1e-9 * std::max(1.0, std::abs(v)))
                    << "column " << k;
            }
        }
    }
    EXPECT_FALSE(std::getline(in, line));
}

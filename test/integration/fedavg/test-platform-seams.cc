/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Tests of the platform seams: the round aggregation and client sampling as pure calls, the
 * in-process reference runner, the round step (a toy algorithm written on the seam), the
 * transport between arbitrary nodes (peer and control messages over TCP and UDP). The
 * learning tracker's tests are in test-learning-tracker.cc.
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

/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The strategy seam's own contract: the round rules in one place, one Aggregate for individual
 * updates and a summing step's sum, what a strategy attaches to the model reaching the client's
 * fit, the gradient hook of local training, and uploads above the bound the server applies.
 */
#include "fl-test-config-error.h"
#include "fl-test-task.h"

#include "ns3/core-module.h"
#include "ns3/fl-module.h"

#include <gtest/gtest.h>

#include <mutex>

using namespace ns3;

namespace
{

/// A 1e-12 bound relative to the larger magnitude (float64 sums of a few terms).
void
ExpectClose(const Eigen::VectorXd& a, const Eigen::VectorXd& b, double tol = 1e-12)
{
    ASSERT_EQ(a.size(), b.size());
    for (Eigen::Index i = 0; i < a.size(); ++i)
    {
        EXPECT_NEAR(a[i], b[i], tol * std::max(1.0, std::abs(b[i]))) << "coordinate " << i;
    }
}

fl::ParamVector
MakeValues(std::initializer_list<double> v)
{
    Eigen::VectorXd x(static_cast<Eigen::Index>(v.size()));
    Eigen::Index i = 0;
    for (double e : v)
    {
        x[i++] = e;
    }
    return fl::ParamVector(std::move(x));
}

} // namespace

// ---------------------------------------------------------------------------------------------
// The round rules: one function, asked by the server, the helper and the example flags.

TEST(RoundRules, RefuseWhatTheStrategyDeclaresItCannotServe)
{
    FlRoundRules r;
    r.strategy = "ns3::Individual";
    r.traits.individualUpdates = true;
    EXPECT_NO_THROW(FlCheckRoundRules(r));
    r.uplinkStep = true;
    fltest::ExpectConfigError([&] { FlCheckRoundRules(r); }, "strategy", "reveals only their sum");

    FlRoundRules stale;
    stale.strategy = "ns3::FreshOnly";
    stale.traits.staleUpdates = false;
    EXPECT_NO_THROW(FlCheckRoundRules(stale));
    stale.acceptStale = true;
    fltest::ExpectConfigError([&] { FlCheckRoundRules(stale); }, "StragglerPolicy", "use drop");

    FlRoundRules async;
    async.strategy = "ns3::Async";
    async.asynchronous = true;
    async.traits.attachmentValues = 3;
    fltest::ExpectConfigError([&] { FlCheckRoundRules(async); }, "strategy", "asynchronous");
}

TEST(RoundRules, NameTheProgramsFlags)
{
    FlRoundRules r;
    r.strategy = "ns3::FedAsyncStrategy";
    r.asynchronous = true;
    r.minQuorum = 2;
    fltest::ExpectConfigError(
        [&] {
            FlCheckRoundRules(r, [](const std::string& a) {
                return a == "MinQuorum" ? std::string("--minQuorum") : a;
            });
        },
        "--minQuorum");
    // the cohort of an asynchronous strategy with an uplink step against the clients there are
    FlRoundRules cohort;
    cohort.strategy = "ns3::FedBuffStrategy";
    cohort.asynchronous = true;
    cohort.uplinkStep = true;
    cohort.cohortSize = 5;
    cohort.expectedClients = 4;
    fltest::ExpectConfigError([&] { FlCheckRoundRules(cohort); }, "ExpectedClients", "cohort of 5");
    cohort.expectedClients = 5;
    cohort.clientsPerRound = 3;
    fltest::ExpectConfigError([&] { FlCheckRoundRules(cohort); }, "ClientsPerRound", "multiple of 5");
}

TEST(RoundRules, OfAStrategyReadsItsTraitsAndInterfaces)
{
    Ptr<FlServerStrategy> fedbuff = CreateObject<FedBuffStrategy>();
    const FlRoundRules r = FlRoundRules::Of(*fedbuff, 10);
    EXPECT_TRUE(r.asynchronous);
    EXPECT_FALSE(r.phases);
    EXPECT_EQ(r.cohortSize, 10u); // BufferSize's default
    EXPECT_EQ(r.strategy, "ns3::FedBuffStrategy");
    Ptr<FlServerStrategy> qffl = CreateObject<QfflServerStrategy>();
    const FlRoundRules q = FlRoundRules::Of(*qffl, 10);
    EXPECT_FALSE(q.asynchronous);
    EXPECT_TRUE(q.traits.rawUploads);
    EXPECT_EQ(q.traits.uploadValues, 11u);
    EXPECT_FALSE(q.traits.staleUpdates);
    EXPECT_EQ(FlAsyncHooksOf(PeekPointer(qffl)), nullptr);
    EXPECT_NE(FlAsyncHooksOf(PeekPointer(fedbuff)), nullptr);
}

// ---------------------------------------------------------------------------------------------
// One Aggregate: the same FedAvgM step from individual updates and from a summing step's sum.

TEST(StrategyAggregate, FedAvgMFromASumEqualsFedAvgMFromTheUpdates)
{
    const fl::ParamVector start = MakeValues({0.5, -1.0, 2.0});
    const fl::ParamVector a = MakeValues({0.7, -0.8, 1.5});
    const fl::ParamVector b = MakeValues({0.1, -1.4, 2.6});
    const double na = 30.0;
    const double nb = 10.0;
    auto run = [&](bool asSum, uint32_t rounds) {
        Ptr<FedAvgStrategy> s = CreateObject<FedAvgStrategy>();
        s->SetAttribute("ServerMomentum", DoubleValue(0.9));
        s->SetAttribute("ServerLearningRate", DoubleValue(0.7));
        fl::ParamVector model = start;
        for (uint32_t r = 1; r <= rounds; ++r)
        {
            FlAggregationInput in;
            in.clients = {0, 1};
            Eigen::VectorXd sum;
            if (asSum)
            {
                sum = na * a.Get<double>() + nb * b.Get<double>();
                in.sum = &sum;
                in.totalWeight = na + nb;
            }
            else
            {
                in.updates = {{&a, nullptr, na, 0}, {&b, nullptr, nb, 0}};
            }
            std::vector<double> weights;
            FlServerStrategy::Context ctx;
            ctx.round = r;
            EXPECT_TRUE(s->Aggregate(ctx, in, model, weights));
        }
        return model.Get<double>();
    };
    // by hand: avg = (30 a + 10 b) / 40; v = 0.9 v + (w - avg); w -= 0.7 v
    const Eigen::VectorXd avg = (na * a.Get<double>() + nb * b.Get<double>()) / (na + nb);
    Eigen::VectorXd w = start.Get<double>();
    Eigen::VectorXd v = Eigen::VectorXd::Zero(3);
    for (int r = 0; r < 2; ++r)
    {
        v = 0.9 * v + (w - avg);
        w -= 0.7 * v;
    }
    ExpectClose(run(false, 2), w);
    ExpectClose(run(true, 2), w);
}

TEST(StrategyAggregate, WeightedMeanOfUpdatesAndOfASum)
{
    const fl::ParamVector a = MakeValues({1.0, 2.0});
    const fl::ParamVector b = MakeValues({3.0, -2.0});
    FlAggregationInput in;
    in.clients = {4, 7};
    in.updates = {{&a, nullptr, 1.0, 0}, {&b, nullptr, 3.0, 0}};
    ExpectClose(in.WeightedMean(), Eigen::Vector2d(2.5, -1.0));
    Eigen::VectorXd sum = Eigen::Vector2d(10.0, -4.0);
    FlAggregationInput s;
    s.clients = {4, 7};
    s.sum = &sum;
    s.totalWeight = 4.0;
    EXPECT_TRUE(s.IsSum());
    ExpectClose(s.WeightedMean(), Eigen::Vector2d(2.5, -1.0));
    const std::vector<uint8_t> bytes{1, 2};
    FlAggregationInput raw;
    raw.clients = {1};
    raw.payloads = {&bytes};
    fltest::ExpectConfigError([&] { raw.WeightedMean(); }, "strategy");
}

TEST(ParamVectorSlices, ConcatenateThenSliceGivesThePartsBack)
{
    const fl::ParamVector model = MakeValues({1.0, 2.0, 3.0});
    const fl::ParamVector extra = MakeValues({-4.0, 5.5});
    const fl::ParamVector whole = fl::Concatenate(model, extra);
    ASSERT_EQ(whole.Size(), 5u);
    EXPECT_TRUE(fl::Slice(whole, 0, 3) == model);
    EXPECT_TRUE(fl::Slice(whole, 3, 2) == extra);
    const fl::ParamVector f = model.ConvertedTo(fl::Precision::Float32);
    EXPECT_EQ(fl::Concatenate(f, extra).GetPrecision(), fl::Precision::Float32);
    fltest::ExpectConfigError([&] { fl::Slice(whole, 4, 2); }, "count");
}

// ---------------------------------------------------------------------------------------------
// The gradient hook: one full-batch step with a shift s is the step without it minus eta s.

TEST(GradientHook, AShiftMovesEveryStepByTheLearningRateTimesTheShift)
{
    auto task = fltest::MakeTask<double>(2, "softmax");
    fl::LocalTrainerConfig tc = task->GetTrainerConfig();
    tc.batchSize = 0; // full batch: no sampling, the same gradients with and without the hook
    tc.localSteps = 1;
    const std::size_t d = task->NumParameters();
    fl::Rng init(3);
    const fl::ParamVector start = task->InitialParameters(init);
    fl::Rng r1(7);
    const fl::TrainOutcome plain = fl::TrainClientWith(*task, 1, start, tc, r1);
    Eigen::VectorXd shift = Eigen::VectorXd::LinSpaced(static_cast<Eigen::Index>(d), -1.0, 2.0);
    tc.gradientHook = std::make_shared<fl::GradientShift>(shift);
    fl::Rng r2(7);
    const fl::TrainOutcome shifted = fl::TrainClientWith(*task, 1, start, tc, r2);
    ExpectClose(shifted.params.Get<double>(),
                Eigen::VectorXd(plain.params.Get<double>() - tc.learningRate * shift));
    // a hook's term may depend on the data (SCAFFOLD's c_i): no uplink privacy bound with one
    fl::LocalTrainerConfig clipped = tc;
    clipped.clipNorm = 1.0;
    EXPECT_TRUE(std::isinf(fl::LocalTrainingSensitivity(clipped, 1)));
    clipped.gradientHook = nullptr;
    EXPECT_DOUBLE_EQ(fl::LocalTrainingSensitivity(clipped, 1), 2.0 * tc.learningRate);
    fl::UplinkPrivacyAccountant accountant;
    accountant.RecordUnboundedUpload();
    EXPECT_EQ(accountant.Uploads(), 1u);
    EXPECT_TRUE(std::isinf(accountant.Epsilon(1e-5)));
    // a shift of another size is a configuration error naming the hook
    tc.gradientHook = std::make_shared<fl::GradientShift>(Eigen::VectorXd::Ones(2));
    fl::Rng r3(7);
    fltest::ExpectConfigError([&] { fl::TrainClientWith(*task, 1, start, tc, r3); },
                              "gradientHook");
}

// ---------------------------------------------------------------------------------------------
// The attachment: values a server strategy sends with the model reach the client's fit, in the
// same message, over TCP and over UDP.

namespace
{

/// Attaches [round, round / 2, -round] to every model and aggregates as FedAvg.
class AttachRound : public FedAvgStrategy
{
  public:
    FlStrategyTraits Traits(std::size_t numParameters) const override
    {
        FlStrategyTraits t = FedAvgStrategy::Traits(numParameters);
        t.attachmentValues = 3;
        return t;
    }

    void ConfigureRound(const Context& ctx,
                        const std::vector<uint32_t>& /* selected */,
                        FlRoundConfig& config) override
    {
        const double r = ctx.round;
        config.attachment = MakeValues({r, r / 2.0, -r});
    }
};

/// Records what its fit was given (the fit may run on a thread of the training pool).
struct Seen
{
    std::mutex mutex;
    std::vector<std::pair<uint32_t, Eigen::VectorXd>> attachments;
};

class RecordAttachment : public FlClientStrategy
{
  public:
    explicit RecordAttachment(std::shared_ptr<Seen> seen)
        : m_seen(std::move(seen))
    {
    }

    std::size_t AttachmentValues(std::size_t /* numParameters */) const override
    {
        return 3;
    }

    FitFunction MakeFit() const override
    {
        FitFunction base = FlClientStrategy::MakeFit();
        std::shared_ptr<Seen> seen = m_seen;
        return [base, seen](const FlFitInput& in, FlClientFit& out) {
            {
                std::lock_guard<std::mutex> lock(seen->mutex);
                seen->attachments.emplace_back(in.round,
                                               in.attachment->ConvertedTo(fl::Precision::Float64)
                                                   .Get<double>());
            }
            base(in, out);
        };
    }

  private:
    std::shared_ptr<Seen> m_seen;
};

/// Runs `rounds` rounds of AttachRound with RecordAttachment clients over a CSMA cell.
std::shared_ptr<Seen>
RunAttached(const std::string& transport, uint32_t rounds, fl::ParamVector* final)
{
    const uint32_t n = 3;
    auto task = fltest::MakeTask<double>(n, "softmax");
    FlCsmaSceneHelper csma;
    FlScene scene = csma.Build(n);
    FlFedAvgHelper fedavg(task);
    fedavg.SetServerAttribute("Rounds", UintegerValue(rounds));
    fedavg.SetServerAttribute("InitSeed", UintegerValue(5));
    fedavg.SetTransportAttribute("Transport", StringValue(transport));
    fedavg.SetStrategy(CreateObject<AttachRound>());
    FlFedAvgStack stack = fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress);
    auto seen = std::make_shared<Seen>();
    for (uint32_t i = 0; i < n; ++i)
    {
        auto c = DynamicCast<FlClientApplication>(stack.clientApps.Get(i));
        c->SetStrategy(CreateObject<RecordAttachment>(seen));
        c->SetAttribute("TrainingSeed", UintegerValue(100 + i));
    }
    Simulator::Stop(Seconds(60));
    Simulator::Run();
    EXPECT_TRUE(stack.server->IsFinished());
    *final = stack.server->GetGlobalModel();
    Simulator::Destroy();
    return seen;
}

} // namespace

TEST(Attachment, ReachesEveryFitWithItsModelOverTcpAndUdp)
{
    fl::ParamVector tcpModel;
    fl::ParamVector udpModel;
    for (const std::string transport : {"tcp", "udp"})
    {
        const uint32_t rounds = 2;
        fl::ParamVector& model = transport == "tcp" ? tcpModel : udpModel;
        const auto seen = RunAttached(transport, rounds, &model);
        ASSERT_EQ(seen->attachments.size(), 3u * rounds) << transport;
        for (const auto& [round, values] : seen->attachments)
        {
            const double r = round;
            ExpectClose(values, Eigen::Vector3d(r, r / 2.0, -r));
        }
    }
    // the attachment changes nothing else: FedAvg's models, as without it
    const uint32_t n = 3;
    auto task = fltest::MakeTask<double>(n, "softmax");
    fl::FedAvgReferenceConfig cfg;
    cfg.rounds = 2;
    cfg.initSeed = 5;
    cfg.clientSeeds = {100, 101, 102};
    const fl::FedAvgReferenceResult ref = fl::RunFedAvgReference(*task, cfg);
    EXPECT_EQ(tcpModel.Get<double>(), ref.finalModel.Get<double>());
    EXPECT_EQ(udpModel.Get<double>(), ref.finalModel.Get<double>());
}

// ---------------------------------------------------------------------------------------------
// Uploads of another size than declared, or above the server's bound, are said loudly.

namespace
{

/// Uploads its trained model twice over ([w; w]), declaring `declared` upload values.
class DoubleUpload : public FlClientStrategy
{
  public:
    explicit DoubleUpload(std::size_t declaredFactor)
        : m_factor(declaredFactor)
    {
    }

    std::size_t UploadValues(std::size_t numParameters) const override
    {
        return m_factor * numParameters;
    }

    FitFunction MakeFit() const override
    {
        FitFunction base = FlClientStrategy::MakeFit();
        return [base](const FlFitInput& in, FlClientFit& out) {
            base(in, out);
            out.upload = fl::Concatenate(out.training.params, out.training.params);
            out.ownUpload = true;
        };
    }

  private:
    std::size_t m_factor;
};

/// One round with DoubleUpload clients declaring `factor` x the model's values.
void
RunDoubleUpload(std::size_t factor,
                uint32_t serverMaxBytes,
                uint32_t clientMaxBytes,
                const std::string& transport = "tcp")
{
    const uint32_t n = 2;
    auto task = fltest::MakeTask<double>(n, "softmax");
    FlCsmaSceneHelper csma;
    FlScene scene = csma.Build(n);
    FlFedAvgHelper fedavg(task);
    fedavg.SetServerAttribute("Rounds", UintegerValue(1));
    fedavg.SetServerAttribute("MaxMessageBytes", UintegerValue(serverMaxBytes));
    fedavg.SetClientAttribute("MaxMessageBytes", UintegerValue(clientMaxBytes));
    fedavg.SetTransportAttribute("Transport", StringValue(transport));
    fedavg.SetServerAttribute("RoundDeadline", TimeValue(Seconds(5)));
    FlFedAvgStack stack = fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress);
    for (uint32_t i = 0; i < n; ++i)
    {
        DynamicCast<FlClientApplication>(stack.clientApps.Get(i))
            ->SetStrategy(CreateObject<DoubleUpload>(factor));
    }
    Simulator::Stop(Seconds(20));
    Simulator::Run();
    Simulator::Destroy();
}

} // namespace

TEST(UploadSize, AnUploadOfAnotherSizeThanDeclaredEndsTheRunNamingTheStrategy)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(RunDoubleUpload(1, 0, 0),
                testing::ExitedWithCode(2),
                "invalid strategy:.*upload of [0-9]+ values but declares");
}

TEST(UploadSize, AnUploadAboveTheBoundEndsTheRunNamingMaxMessageBytes)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    // d = 36 (softmax, 8 features + bias, 4 classes): a model message is 36 + 8 d = 324 bytes,
    // the upload [w; w] 612; both sides bound messages at 400 bytes
    EXPECT_EXIT(RunDoubleUpload(2, 400, 400),
                testing::ExitedWithCode(2),
                "invalid MaxMessageBytes:.*upload .* of 612 bytes, above the server's bound of 400");
}

TEST(UploadSize, TheServerSaysWhenItDropsAMessageAboveItsBound)
{
    for (const std::string transport : {"tcp", "udp"})
    {
        // the clients declare [w; w] (their default bound follows), the server keeps its own:
        // it drops the uploads and says so on the error stream
        testing::internal::CaptureStderr();
        RunDoubleUpload(2, 400, 0, transport);
        const std::string err = testing::internal::GetCapturedStderr();
        EXPECT_NE(err.find("FlServerApplication: a client sent a message above MaxMessageBytes "
                           "(400 bytes)"),
                  std::string::npos)
            << transport << ": " << err;
    }
}

// ---------------------------------------------------------------------------------------------
// The fit's commit runs when the upload leaves, never for a training that was discarded.

namespace
{

/// Counts the commits of its fits.
class CountCommits : public FlClientStrategy
{
  public:
    explicit CountCommits(std::shared_ptr<uint32_t> commits)
        : m_commits(std::move(commits))
    {
    }

    FitFunction MakeFit() const override
    {
        FitFunction base = FlClientStrategy::MakeFit();
        std::shared_ptr<uint32_t> commits = m_commits;
        return [base, commits](const FlFitInput& in, FlClientFit& out) {
            base(in, out);
            out.onUploadSent = [commits]() { ++*commits; };
        };
    }

  private:
    std::shared_ptr<uint32_t> m_commits;
};

} // namespace

TEST(UploadCommit, RunsForEveryUploadSentAndNotForADiscardedTraining)
{
    const uint32_t n = 3;
    auto task = fltest::MakeTask<double>(n, "softmax");
    FlCsmaSceneHelper csma;
    FlScene scene = csma.Build(n);
    FlFedAvgHelper fedavg(task);
    fedavg.SetServerAttribute("Rounds", UintegerValue(2));
    // 40 samples processed per training at 0.1 s each: every upload leaves 4 s after its model
    fedavg.SetClientAttribute("SecondsPerSample", DoubleValue(0.1));
    FlFedAvgStack stack = fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress);
    auto commits = std::make_shared<uint32_t>(0);
    for (uint32_t i = 0; i < n; ++i)
    {
        DynamicCast<FlClientApplication>(stack.clientApps.Get(i))
            ->SetStrategy(CreateObject<CountCommits>(commits));
    }
    // client 2 leaves while it trains on the first model: that training never leaves
    stack.clientApps.Get(2)->SetAttribute("LeaveTime", TimeValue(Seconds(3)));
    Simulator::Stop(Seconds(60));
    Simulator::Run();
    const bool finished = stack.server->IsFinished();
    const uint32_t trained2 =
        DynamicCast<FlClientApplication>(stack.clientApps.Get(2))->GetRoundsTrained();
    Simulator::Destroy();
    EXPECT_TRUE(finished);
    EXPECT_EQ(trained2, 1u) << "client 2 trained once before it left";
    EXPECT_EQ(*commits, 4u) << "two rounds of clients 0 and 1; client 2's training was discarded";
}

/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The uplink pipeline composes with any strategy: each uplink stage (none, the clients' Gaussian
 * noise, secure aggregation, the EGA codec) with each strategy (FedAvg, FedBuff, FedAdam and
 * SCAFFOLD option II, the last two exactly as written outside the module in test/external), run
 * over a CSMA scene and again in process (FlRunInProcess) from the network run's seeds, initial
 * model, selections and (FedBuff) arrival order. Every model of every round must be equal bit for
 * bit: the in-process run makes the same draws and the same floating-point operations in the same
 * order (individual uploads in client order, secure aggregation's fixed-point sum, which is exact
 * whatever the order, the codec's decode), so the network decides only when and to whom. FedBuff
 * with the codec is refused with a clear error: the codec's phases need a round. The last row
 * runs the whole pipeline in its order: noise on the upload, the codec, secure aggregation of
 * the codec's values, the decode, the strategy.
 */
#include "external/fedopt-strategy.h"
#include "external/scaffold-strategy.h"
#include "fl-test-config-error.h"
#include "fl-test-task.h"

#include "ns3/core-module.h"
#include "ns3/ega-codec.h"
#include "ns3/ega-uplink-codec.h"
#include "ns3/fl-codec-strategy.h"
#include "ns3/fl-helper.h"
#include "ns3/fl-in-process.h"
#include "ns3/fl-network-scenarios.h"
#include "ns3/secagg-helper.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <map>
#include <string>
#include <tuple>

using namespace ns3;

namespace
{

constexpr uint32_t kClients = 4;
constexpr uint32_t kRounds = 3;
constexpr uint64_t kInitSeed = 7;
constexpr double kSigma = 0.01; // the noise stage's Gaussian standard deviation

std::shared_ptr<const fl::UplinkCodec>
Ega()
{
    fl::Rng rng(3);
    return std::make_shared<fl::EgaUplinkCodec>(std::make_shared<fl::EgaLinearCodec>(8, 8, rng),
                                                64);
}

/// One cell of the matrix: a stage (or stages joined by +) and a strategy.
struct Cell
{
    std::string stage;    ///< none, noise, secagg, codec or e.g. noise+codec+secagg
    std::string strategy; ///< fedavg, fedbuff, fedadam, scaffold

    /// Whether the cell has `stage`.
    bool Has(const std::string& s) const
    {
        return stage.find(s) != std::string::npos;
    }
};

std::string
CellName(const testing::TestParamInfo<std::tuple<std::string, std::string>>& info)
{
    std::string stage = std::get<0>(info.param);
    std::replace(stage.begin(), stage.end(), '+', '_');
    return stage + "_" + std::get<1>(info.param);
}

/// The server strategy of a cell (a fresh object: one for the network, one in process).
Ptr<FlServerStrategy>
ServerStrategy(const Cell& cell)
{
    Ptr<FlServerStrategy> s;
    if (cell.strategy == "fedbuff")
    {
        s = CreateObjectWithAttributes<FedBuffStrategy>("BufferSize", UintegerValue(2));
    }
    else if (cell.strategy == "fedadam")
    {
        s = CreateObjectWithAttributes<FedOptStrategy>("Eta", DoubleValue(0.05));
    }
    else if (cell.strategy == "scaffold")
    {
        s = CreateObject<ScaffoldServerStrategy>();
    }
    else
    {
        s = CreateObject<FedAvgStrategy>();
    }
    return s;
}

/// The client strategy of a cell for one client (without the codec stage).
Ptr<FlClientStrategy>
ClientStrategy(const Cell& cell)
{
    if (cell.strategy == "scaffold")
    {
        return CreateObject<ScaffoldClientStrategy>();
    }
    return CreateObject<FlClientStrategy>();
}

/// What the network run reported.
struct NetRun
{
    std::map<uint32_t, fl::ParamVector> models;             ///< round -> global model
    std::map<uint32_t, std::vector<uint32_t>> selected;     ///< round -> selected
    std::map<uint32_t, std::vector<uint32_t>> participants; ///< round -> participants
    std::vector<FlUpdateInfo> arrivals;                     ///< updates by arrival
    uint32_t serverNode{0};
};

std::shared_ptr<const fl::LearningTask>
Task()
{
    static auto task = fltest::MakeTask<double>(kClients, "softmax:l2=0.001");
    return task;
}

void
Configure(const Cell& cell, FlFedAvgHelper& fedavg)
{
    fedavg.SetServerAttribute("Rounds", UintegerValue(kRounds));
    fedavg.SetServerAttribute("InitSeed", UintegerValue(kInitSeed));
    // a sample of 3 of the 4 clients per round; FedBuff: all 4 at work
    fedavg.SetServerAttribute("ClientsPerRound", UintegerValue(cell.strategy == "fedbuff" ? 4 : 3));
    fedavg.SetStrategy(ServerStrategy(cell));
    if (cell.strategy == "scaffold")
    {
        fedavg.SetClientStrategy("ns3::ScaffoldClientStrategy");
    }
    if (cell.Has("noise"))
    {
        fedavg.SetUplinkPerturbation([]() {
            return std::make_shared<fl::GaussianPerturbation>(kSigma, fl::NoiseScope::PerLink);
        });
    }
    if (cell.Has("secagg"))
    {
        fedavg.SetSecureAggregation(FlSecAggHelper());
    }
    if (cell.Has("codec"))
    {
        fedavg.SetUplinkCodec(Ega(), 0.0, cell.strategy != "scaffold");
    }
}

NetRun
RunNetwork(const Cell& cell)
{
    NetRun run;
    FlCsmaSceneHelper csma;
    FlScene scene = csma.Build(kClients);
    FlFedAvgHelper fedavg(Task());
    Configure(cell, fedavg);
    FlFedAvgStack stack = fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress);
    for (uint32_t i = 0; i < stack.clientApps.GetN(); ++i)
    {
        stack.clientApps.Get(i)->SetAttribute("TrainingSeed", UintegerValue(100 + i));
    }
    run.serverNode = scene.serverNode->GetId();
    stack.server->TraceConnectWithoutContext(
        "RoundEnd",
        MakeCallback(+[](NetRun* r, const FlRoundReport& report) {
            r->models[report.round] = *report.globalModel;
            r->selected[report.round] = report.selected;
            r->participants[report.round] = report.participants;
            std::vector<FlUpdateInfo> updates = report.updates;
            std::stable_sort(
                updates.begin(),
                updates.end(),
                [](const FlUpdateInfo& a, const FlUpdateInfo& b) { return a.arrival < b.arrival; });
            r->arrivals.insert(r->arrivals.end(), updates.begin(), updates.end());
        }).Bind(&run));
    Simulator::Stop(Seconds(600));
    Simulator::Run();
    EXPECT_TRUE(stack.server->IsFinished());
    Simulator::Destroy();
    return run;
}

FlInProcessResult
RunInProcess(const Cell& cell, const NetRun& net)
{
    FlInProcessConfig cfg;
    cfg.task = Task();
    cfg.initial = net.models.at(0);
    cfg.serverSeed = kInitSeed;
    for (uint32_t i = 0; i < kClients; ++i)
    {
        cfg.clientSeeds.push_back(100 + i);
    }
    cfg.rounds = kRounds;
    cfg.serverNode = net.serverNode;
    const bool async = cell.strategy == "fedbuff";
    if (!async)
    {
        cfg.selected = [&net](uint32_t round) { return net.selected.at(round); };
    }
    else
    {
        cfg.arrivals = net.arrivals;
    }
    Ptr<FlServerStrategy> server = ServerStrategy(cell);
    const bool uploadIsModel = cell.strategy != "scaffold";
    if (cell.Has("codec"))
    {
        auto codec = CreateObject<CodecServerStrategy>();
        codec->SetCodec(Ega());
        codec->SetInner(server);
        codec->SetAttribute("UploadIsModel", BooleanValue(uploadIsModel));
        server = codec;
    }
    cfg.clientStrategy = [cell, uploadIsModel](uint32_t) -> Ptr<FlClientStrategy> {
        Ptr<FlClientStrategy> s = ClientStrategy(cell);
        if (!cell.Has("codec"))
        {
            return s;
        }
        auto codec = CreateObject<CodecClientStrategy>();
        codec->SetCodec(Ega());
        codec->SetInner(s);
        codec->SetAttribute("UploadIsModel", BooleanValue(uploadIsModel));
        return codec;
    };
    if (cell.Has("noise"))
    {
        cfg.perturbation = [](uint32_t) {
            return std::make_shared<fl::GaussianPerturbation>(kSigma, fl::NoiseScope::PerLink);
        };
    }
    if (cell.Has("secagg"))
    {
        cfg.sumFractionBits = fl::kDefaultMaskFractionBits;
        cfg.cohortSize = async ? 2 : 0;
    }
    return FlRunInProcess(server, cfg);
}

class UplinkMatrix : public testing::TestWithParam<std::tuple<std::string, std::string>>
{
};

} // namespace

TEST_P(UplinkMatrix, NetworkRunEqualsInProcessRunBitForBit)
{
    const Cell cell{std::get<0>(GetParam()), std::get<1>(GetParam())};
    if (cell.Has("codec") && cell.strategy == "fedbuff")
    {
        // the codec's phases need a round: refused before anything runs, naming the strategy
        FlCsmaSceneHelper csma;
        FlScene scene = csma.Build(kClients);
        FlFedAvgHelper fedavg(Task());
        Configure(cell, fedavg);
        fltest::ExpectConfigError(
            [&] { fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress); },
            "strategy");
        Simulator::Destroy();
        return;
    }
    const NetRun net = RunNetwork(cell);
    ASSERT_EQ(net.models.size(), kRounds + 1) << "the network run did not finish its rounds";
    const FlInProcessResult ref = RunInProcess(cell, net);
    ASSERT_EQ(ref.models.size(), kRounds + 1);
    for (uint32_t r = 1; r <= kRounds; ++r)
    {
        const Eigen::VectorXd a =
            net.models.at(r).ConvertedTo(fl::Precision::Float64).Get<double>();
        const Eigen::VectorXd b = ref.models[r].ConvertedTo(fl::Precision::Float64).Get<double>();
        ASSERT_EQ(a.size(), b.size());
        EXPECT_EQ((a - b).cwiseAbs().maxCoeff(), 0.0) << "round " << r;
        // the round changed the model (the stage did not swallow the uploads)
        const Eigen::VectorXd prev =
            net.models.at(r - 1).ConvertedTo(fl::Precision::Float64).Get<double>();
        EXPECT_GT((a - prev).cwiseAbs().maxCoeff(), 1e-6) << "round " << r;
        if (cell.strategy != "fedbuff")
        {
            EXPECT_EQ(ref.participants[r], net.participants.at(r)) << "round " << r;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(
    StageByStrategy,
    UplinkMatrix,
    testing::Combine(testing::Values("none", "noise", "secagg", "codec", "noise+codec+secagg"),
                     testing::Values("fedavg", "fedbuff", "fedadam", "scaffold")),
    CellName);

/*
 * Each stage does what it says, seen in process (the network cells above equal these runs): the
 * noise moves every round's model; secure aggregation's fixed-point sum (f = 40 fraction bits:
 * each weighted upload rounded by at most 2^-41, so the mean by at most 2^-41 per coordinate)
 * reproduces the plain run to within 1e-9 over three rounds (FedAdam's step amplifies a change
 * of its mean by at most 2 eta (1 - beta1) / tau = 10, and local training is a contraction here:
 * the bound is about 1e-11, the check 100 times looser); the codec is lossy but unbiased, and
 * stays within 0.5 of the plain model per coordinate (a sanity bound: the
 * codec's own error bound is checked with the EGA tests) while differing from it.
 */
TEST(UplinkMatrix, EachStageChangesTheRunAsItShould)
{
    for (const std::string strategy : {"fedavg", "fedadam", "scaffold"})
    {
        NetRun plainNet;
        std::map<std::string, FlInProcessResult> runs;
        for (const std::string stage : {"none", "noise", "secagg", "codec"})
        {
            const Cell cell{stage, strategy};
            if (stage == "none")
            {
                plainNet = RunNetwork(cell); // the seeds, initial model and selections
            }
            runs[stage] = RunInProcess(cell, plainNet);
        }
        for (uint32_t r = 1; r <= kRounds; ++r)
        {
            const auto x = [&](const std::string& stage) -> Eigen::VectorXd {
                return runs[stage].models[r].ConvertedTo(fl::Precision::Float64).Get<double>();
            };
            const double noise = (x("noise") - x("none")).cwiseAbs().maxCoeff();
            const double secagg = (x("secagg") - x("none")).cwiseAbs().maxCoeff();
            const double codec = (x("codec") - x("none")).cwiseAbs().maxCoeff();
            EXPECT_GT(noise, 1e-4) << strategy << " round " << r;
            EXPECT_LE(secagg, 1e-9) << strategy << " round " << r;
            EXPECT_GT(codec, 0.0) << strategy << " round " << r;
            EXPECT_LT(codec, 0.5) << strategy << " round " << r;
        }
    }
}

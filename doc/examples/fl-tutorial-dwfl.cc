// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tutorial: decentralized learning over the analog channel (DWFL: S. Chen, D. Yu, Y. Zou, J. Yu,
 * X. Cheng, "Decentralized Wireless Federated Learning with Differential Privacy",
 * arXiv:2109.09142, 2021). Ten workers, no server, exchange their models as one over-the-air
 * sum each round; the channel noise counts towards differential privacy, and the tracker reports
 * the composed privacy loss of the run as it goes.
 *
 * Shown in doc/fl-ota-dwfl.rst ("Tutorial"); the tests build it out of tree against the
 * installed module, as a user would (ctest install.tutorial.*), and run it for two rounds.
 */
#include "ns3/core-module.h"
#include "ns3/fl-module.h"
#include "ns3/mobility-module.h"

#include <iostream>

using namespace ns3;

// Called by the tracker's Row trace for every row, while the simulation runs.
static void
PrintRow(const FlMetricRow& row)
{
    if (row.node == "centroid" && row.metric == "test_accuracy")
        std::cout << "round " << row.round << ": centroid accuracy " << row.value << "\n";
}

int main(int argc, char* argv[])
{
    uint32_t rounds = 50;
    uint32_t workers = 10;
    double epsilon = 0.5; // per round, the paper's default; 0 = no artificial noise
    CommandLine cmd(__FILE__);
    cmd.AddValue("rounds", "DWFL rounds T", rounds);
    cmd.AddValue("workers", "workers N", workers);
    cmd.AddValue("epsilon", "per-round privacy budget", epsilon);
    cmd.Parse(argc, argv);

    // 1. Data: an IID share per worker, each centred on its own mean (never pooled).
    fl::Rng rng(1);
    fl::GaussianMixtureConfig mix;                       // 20-dim, 10 classes
    auto centres = fl::MakeMixtureCentres(mix, rng);
    auto train = fl::SampleGaussianMixture<double>(centres, 200 * workers, rng);
    auto test = fl::SampleGaussianMixture<double>(centres, 1000, rng);
    std::vector<fl::Dataset<double>> shares;
    for (const auto& idx : fl::PartitionIid(train.Size(), workers, rng))
        shares.push_back(train.Subset(idx));
    std::vector<fl::Dataset<double>*> holders{&test};    // the evaluator holds the test set
    for (auto& share : shares)
        holders.push_back(&share);
    fl::StandardiseEachHolder(holders, fl::FeatureScaling::Centre);

    // DWFL's local step: one clipped mini-batch SGD step per round, in float64.
    fl::LocalTrainerConfig sgd;                          // batch 32, one step
    sgd.learningRate = 0.05;                             // gamma
    sgd.clipNorm = 1.0;                                  // g_max
    auto model = fl::MakeModel<double>("softmax:l2=0", train.Dim(), 10);
    auto task = std::make_shared<fl::SupervisedTask<double>>(model, sgd, shares, test);

    // 2. Workers on a disc of 20 m around the origin, the sender-only channel's reference
    //    position (OtaChannel::ReferencePosition): path loss is measured to that point.
    NodeContainer nodes;
    nodes.Create(workers);
    MobilityHelper mobility;
    mobility.SetPositionAllocator("ns3::UniformDiscPositionAllocator", "rho", DoubleValue(20.0));
    mobility.Install(nodes);

    // 3. One analog over-the-air channel and a DWFL worker per node.
    DwflHelper dwfl;
    dwfl.Ota().SetPhyAttribute("TxPower", DoubleValue(60.0));   // dBm, the paper's default
    dwfl.SetWorkerAttribute("Rounds", UintegerValue(rounds));
    dwfl.SetWorkerAttribute("TargetEpsilon", DoubleValue(epsilon));
    DwflNetwork net = dwfl.Install(nodes, task);
    DwflHelper::AssignStreams(net, 1);

    // 4. Privacy over the run: worker 0's receptions, composed with Renyi DP at delta 1e-5.
    auto accountant = std::make_shared<fl::PrivacyAccountant>();
    DynamicCast<DwflWorkerApplication>(net.workers.Get(0))->SetPrivacyAccountant(accountant);

    // 5. The tracker: centroid accuracy, disagreement and epsilon per round (round 0 = the
    //    initial model), to a CSV and, through its Row trace, to the screen as the run goes.
    auto tracker = CreateObject<FlLearningTracker>();
    tracker->SetTask(task);
    tracker->SetAttribute("OutputFile", StringValue("dwfl.csv"));
    tracker->SetAccountant(accountant, 1e-5, fl::Composition::Rdp,
                           fl::DwflComposedStatement("worker 0", 1e-5));
    tracker->Install(net.workers);
    tracker->TraceConnectWithoutContext("Row", MakeCallback(&PrintRow));

    // 6. Run.
    net.workers.Start(Seconds(0));
    Simulator::Run();
    tracker->Flush();          // the last round's rows
    std::cout << "composed epsilon after " << rounds << " rounds: "
              << tracker->GetLast("network", "epsilon") << "\n";
    Simulator::Destroy();
}

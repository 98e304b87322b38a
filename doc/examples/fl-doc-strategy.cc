// SPDX-License-Identifier: GPL-2.0-only
/*
 * A server-side algorithm written on the fl module's strategy seam, as a user writes it in a
 * script of their own (doc/fl-user.rst, "Writing a strategy", shows this file): after FedAvg's
 * aggregation the server adds a constant C to every coordinate of the global model, after
 * "thinking" for 50 ms of simulated time. The generic server and clients do not change.
 *
 * Runs FedAvg over a CSMA LAN with the README tutorial's float32 task and checks what it can
 * see from outside: the strategy was called once per round, and every round lasted at least
 * its 50 ms of thinking. Exit status 0 if so, 1 otherwise.
 *
 *   fl-doc-strategy --rounds=3 --c=0.5
 */

#include "ns3/core-module.h"
#include "ns3/fl-module.h"

#include <iostream>
#include <vector>

using namespace ns3;

// doc:strategy:begin
/// FedAvg, then C added to every coordinate of the aggregate, 50 ms of simulated time later.
class AddConstantStrategy : public FedAvgStrategy
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::AddConstantStrategy")
                                .SetParent<FedAvgStrategy>()
                                .SetGroupName("fl")
                                .AddConstructor<AddConstantStrategy>()
                                .AddAttribute("C",
                                              "The constant added to every coordinate.",
                                              DoubleValue(0.25),
                                              MakeDoubleAccessor(&AddConstantStrategy::m_c),
                                              MakeDoubleChecker<double>());
        return tid;
    }

    void AfterAggregation(const Context& /* ctx: the round and its status */,
                          fl::ParamVector& model,
                          std::function<void()> done) override
    {
        // The maths; in a real algorithm one pure function under model/algorithms, tested
        // against a hand computation. The model has the task's scalar: float32 or float64.
        if (model.GetPrecision() == fl::Precision::Float32)
        {
            model.Get<float>().array() += static_cast<float>(m_c);
        }
        else
        {
            model.Get<double>().array() += m_c;
        }
        ++m_calls;
        FlSchedule(MilliSeconds(50), [done]() { done(); });
    }

    /// How many times AfterAggregation ran.
    uint32_t GetCalls() const
    {
        return m_calls;
    }

  private:
    double m_c{0.25};
    uint32_t m_calls{0};
};

// Registers the TypeId when the program starts, so that SetStrategy finds it by name.
NS_OBJECT_ENSURE_REGISTERED(AddConstantStrategy);

// doc:strategy:end

int
main(int argc, char* argv[])
{
    uint32_t rounds = 3;
    double c = 0.5;
    CommandLine cmd(__FILE__);
    cmd.AddValue("rounds", "FedAvg rounds", rounds);
    cmd.AddValue("c", "the constant the strategy adds after each aggregation", c);
    cmd.Parse(argc, argv);

    // The README tutorial's task (float32), smaller: 4 clients, IID shares.
    fl::Rng rng(1);
    fl::GaussianMixtureConfig mix;
    auto centres = fl::MakeMixtureCentres(mix, rng);
    auto train = fl::SampleGaussianMixture<float>(centres, 800, rng);
    auto test = fl::SampleGaussianMixture<float>(centres, 400, rng);
    std::vector<fl::Dataset<float>> clients;
    for (const auto& idx : fl::PartitionIid(train.Size(), 4, rng))
    {
        clients.push_back(train.Subset(idx));
    }
    fl::LocalTrainerConfig sgd;
    sgd.localEpochs = 1;
    auto model = fl::MakeModel<float>("mlp:hidden=64", train.Dim(), 10);
    auto task = std::make_shared<fl::SupervisedTask<float>>(model, sgd, clients, test);

    FlCsmaSceneHelper csma;
    FlScene scene = csma.Build(4);

    // doc:install:begin
    FlFedAvgHelper fedavg(task);
    fedavg.SetServerAttribute("Rounds", UintegerValue(rounds));
    fedavg.SetStrategy("ns3::AddConstantStrategy", "C", DoubleValue(c));
    FlFedAvgStack stack = fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress);
    // doc:install:end

    std::vector<FlRoundReport> reports;
    stack.server->TraceConnectWithoutContext(
        "RoundEnd",
        MakeCallback(+[](std::vector<FlRoundReport>* out, const FlRoundReport& r) {
            out->push_back(r);
        }).Bind(&reports));

    Simulator::Run(); // the server stops the simulation after the last round
    Ptr<AddConstantStrategy> strategy =
        DynamicCast<AddConstantStrategy>(stack.server->GetStrategy());
    Simulator::Destroy();

    bool ok = strategy && strategy->GetCalls() == rounds && reports.size() == rounds + 1;
    for (std::size_t r = 1; ok && r < reports.size(); ++r)
    {
        ok = (reports[r].end - reports[r].start).GetSeconds() >= 0.05;
    }
    std::cout << "AddConstantStrategy (C = " << c << "): called after "
              << (strategy ? strategy->GetCalls() : 0) << " of " << rounds << " rounds; "
              << (ok ? "every round lasted its 50 ms of thinking" : "FAILED") << "\n";
    return ok ? 0 : 1;
}

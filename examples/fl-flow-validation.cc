/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * fl-flow-validation: the flow-level network against packets. For every network (802.11n BSS,
 * CSMA LAN, LTE cell), client count and model size it runs the same FedAvg job twice, once with
 * ns-3 devices and packets, once over the flow-level model (FlSceneHelperBase::SetFidelity),
 * and prints the error of the flow run on the mean round duration and on the time to the
 * target accuracy, whether the learned models are identical, and the wall-clock speed-up.
 *
 *   fl-flow-validation                                  # the validation set of the documentation
 *   fl-flow-validation --networks=wifi --clients=1 --models=mlp:hidden=64,mlp:hidden=1024
 *   fl-flow-validation --help
 */

#include "fl-example-common.h"

#include "ns3/fl-network-scenarios.h"

#include <sstream>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("FlFlowValidation");

namespace
{

std::vector<std::string>
Split(const std::string& text)
{
    std::vector<std::string> out;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ','))
    {
        if (!item.empty())
        {
            out.push_back(item);
        }
    }
    return out;
}

/// Mean duration of rounds 2.. (round 1 also holds the joins) [s].
double
MeanRound(const flexample::RunResult& r)
{
    double sum = 0.0;
    uint32_t n = 0;
    for (std::size_t i = 2; i < r.records.size(); ++i)
    {
        sum += r.records[i].durationS;
        ++n;
    }
    return n ? sum / n : std::nan("");
}

bool
SameLearning(const flexample::RunResult& a, const flexample::RunResult& b)
{
    if (a.records.size() != b.records.size())
    {
        return false;
    }
    for (std::size_t i = 0; i < a.records.size(); ++i)
    {
        if (a.records[i].testLoss != b.records[i].testLoss ||
            a.records[i].testAccuracy != b.records[i].testAccuracy)
        {
            return false;
        }
    }
    return true;
}

flexample::RunResult
RunOne(const std::string& net, FlFidelity fidelity, flexample::FedAvgOptions o)
{
    flexample::RunResult result;
    const auto wallStart = std::chrono::steady_clock::now();
    std::shared_ptr<fl::LearningTask> task = flexample::BuildFedAvgTask(o);
    FlScene scene;
    std::function<int64_t(int64_t)> assign;
    if (net == "wifi")
    {
        FlWifiScenarioHelper h;
        h.SetFidelity(fidelity);
        scene = h.Build(o.clients);
        assign = [&scene](int64_t s) { return FlWifiScenarioHelper::AssignStreams(scene, s); };
    }
    else if (net == "csma")
    {
        FlCsmaSceneHelper h;
        h.SetFidelity(fidelity);
        scene = h.Build(o.clients);
        assign = [&scene](int64_t s) { return FlCsmaSceneHelper::AssignStreams(scene, s); };
    }
    else
    {
        FlLteSceneHelper h;
        h.SetFidelity(fidelity);
        scene = h.Build(o.clients);
        assign = [&scene](int64_t s) { return FlLteSceneHelper::AssignStreams(scene, s); };
    }
    FlPrintFlowWarnings("fl-flow-validation", scene);
    flexample::RunFedAvg("fl-flow-validation",
                         o,
                         task,
                         scene.serverNode,
                         scene.clients,
                         scene.serverAddress,
                         assign,
                         wallStart,
                         {},
                         &result);
    return result;
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string networks = "wifi,csma,lte";
    std::string clientList = "1,10,20";
    std::string models = "mlp:hidden=64,mlp:hidden=1024";
    uint32_t rounds = 8;
    double target = 0.6;

    flexample::Flags flags(__FILE__);
    flags.Cmd().Usage(
        "Runs the same FedAvg job over packets and over the flow-level network model and prints "
        "the flow run's error on the mean round duration and the time to accuracy, whether the "
        "learned models are identical, and the wall-clock speed-up. One client per network is "
        "the calibration set of the flow model's parameters; more clients validate it.");
    flags.AddText("networks", "Comma-separated networks: wifi, csma, lte", networks);
    flags.AddText("clients", "Comma-separated client counts (1 to 100)", clientList);
    flags.AddText("models", "Comma-separated model specs (see fl-fedavg-wifi --model)", models);
    flags.AddSize("rounds", "FedAvg rounds per run", rounds, 3u, flexample::Bound{1000, "fl-flow-validation.cc"});
    flags.AddReal("targetAccuracy",
                  "Accuracy of the time-to-accuracy column",
                  target,
                  flexample::Range::Closed(0.0, 1.0));
    flags.AddCheck([&]() {
        for (const auto& n : Split(networks))
        {
            if (n != "wifi" && n != "csma" && n != "lte")
            {
                throw fl::ConfigError("--networks",
                                      "'" + n + "' is not a network",
                                      "use wifi, csma or lte");
            }
        }
        for (const auto& c : Split(clientList))
        {
            char* end = nullptr;
            const long v = std::strtol(c.c_str(), &end, 10);
            if (*end != '\0' || v < 1 || v > 100)
            {
                throw fl::ConfigError("--clients",
                                      "'" + c + "' is not a client count",
                                      "give whole numbers in [1, 100]");
            }
        }
        if (Split(clientList).empty() || Split(networks).empty() || Split(models).empty())
        {
            throw fl::ConfigError("--networks/--clients/--models",
                                  "a list is empty",
                                  "give at least one item each");
        }
    });
    if (!flags.Parse(argc, argv))
    {
        return flexample::kExitBadFlag;
    }

    std::cout << "network clients model              round_packet_s round_flow_s round_err_% "
                 "tta_packet_s tta_flow_s tta_err_% same_models wall_packet_s wall_flow_s "
                 "speedup"
              << std::endl;
    for (const auto& net : Split(networks))
    {
        for (const auto& c : Split(clientList))
        {
            for (const auto& model : Split(models))
            {
                flexample::FedAvgOptions o;
                o.clients = static_cast<uint32_t>(std::stoul(c));
                o.rounds = rounds;
                o.model = model;
                o.quiet = true;
                o.output = "";
                o.wirePrecision = "float32";
                o.targetAccuracy = target;
                std::streambuf* saved = std::cout.rdbuf();
                std::ostringstream sink;
                std::cout.rdbuf(sink.rdbuf()); // the runs' summaries
                const auto p = RunOne(net, FlFidelity::Packet, o);
                const auto f = RunOne(net, FlFidelity::Flow, o);
                std::cout.rdbuf(saved);
                const double rp = MeanRound(p);
                const double rf = MeanRound(f);
                const bool tta = p.timeToAccuracyS >= 0 && f.timeToAccuracyS >= 0;
                std::cout << std::left << std::setw(8) << net << std::setw(8) << c
                          << std::setw(19) << model << std::right << std::fixed
                          << std::setprecision(4) << std::setw(14) << rp << std::setw(13) << rf
                          << std::setprecision(1) << std::setw(12) << 100.0 * (rf - rp) / rp
                          << std::setprecision(3) << std::setw(13) << p.timeToAccuracyS
                          << std::setw(11) << f.timeToAccuracyS << std::setprecision(1)
                          << std::setw(10)
                          << (tta ? 100.0 * (f.timeToAccuracyS - p.timeToAccuracyS) /
                                        p.timeToAccuracyS
                                  : std::nan(""))
                          << std::setw(12) << (SameLearning(p, f) ? "yes" : "no")
                          << std::setprecision(2) << std::setw(14) << p.wallS << std::setw(12)
                          << f.wallS << std::setprecision(0) << std::setw(8) << p.wallS / f.wallS
                          << std::defaultfloat << std::endl;
            }
        }
    }
    return 0;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * FedAdam and FedYogi written as a user of the installed fl module writes an algorithm of their
 * own: the strategy (fedopt-strategy.h) and this check, only the installed headers
 * (ns3/fl-module.h), nothing changed in the module.
 *
 * S. J. Reddi, Z. Charles, M. Zaheer, Z. Garrett, K. Rush, J. Konečný, S. Kumar, H. B. McMahan,
 * "Adaptive Federated Optimization", ICLR 2021, Algorithm 2 (FedOpt; its FedAdam and FedYogi
 * lines), with the paper's names:
 *   Delta_t = the clients' mean update                                            (line 9)
 *   m_t = beta1 m_{t-1} + (1 - beta1) Delta_t,   m_{-1} = 0                       (line 10)
 *   FedYogi: v_t = v_{t-1} - (1 - beta2) Delta_t^2 sign(v_{t-1} - Delta_t^2)      (line 12)
 *   FedAdam: v_t = beta2 v_{t-1} + (1 - beta2) Delta_t^2,   v_{-1} = tau^2        (line 13)
 *   x_{t+1} = x_t + eta m_t / (sqrt(v_t) + tau)                                   (line 14)
 * (all element-wise). Line 9 of the paper is the uniform mean over the sampled clients; here it
 * is FedAvg's weighting by the clients' sample counts, n_k / sum_k n_k, which is what the
 * server's aggregation input gives (FlAggregationInput::WeightedMean) both from the individual
 * uploads and from the sum that secure aggregation reveals. The paper fixes beta1 = 0.9 and
 * beta2 = 0.99 in its experiments (Section 5) and tunes eta and tau per task; the defaults of
 * Eta and Tau below are a starting point, not the paper's.
 *
 * The program runs FedAvg clients (the module's default client strategy) over a CSMA LAN, with
 * the strategy on the server, for one round, four times: FedAdam and FedYogi, each with plain
 * uploads and with the module's secure aggregation. It records the initial global model x_0,
 * every client's trained model y_k of round 1 and the server's model x_1, recomputes x_1 by hand
 * from x_0 and the y_k (plain Eigen, written out below without the strategy's code) and compares:
 *  - plain uploads: |x_1 - hand| <= 1e-12 max(1, |hand|) per coordinate (float64 throughout; the
 *    two computations differ only in the order of their additions);
 *  - secure aggregation: the mean comes from a sum of fixed-point words (FlSecAggHelper,
 *    FractionBits f = 40): each client's n_k y_k is rounded to a multiple of 2^-f, so the mean
 *    is off by at most e = (K 2^-(f+1) + 2^-52 sum_k n_k |y_k|_inf) / sum_k n_k. One step of
 *    line 14 changes by at most L e with L = 2 eta (1 - beta1) / tau (the derivative of
 *    eta (1 - beta1) Delta / (sqrt(v_0) + tau) in Delta, for FedAdam and FedYogi alike, unless
 *    |Delta| sits within e of tau where FedYogi's sign switches; the program checks it does not;
 *    FedYogi's branch v_0 = tau^2 - (1 - beta2) Delta^2 needs beta2 >= 1/4 for the factor 2).
 *    Tolerance: 1e-12 max(1, |hand|) + L e (about 1e-14 here; printed).
 * Prints one PASS or FAIL line per check; exit status 0 if all pass, 1 otherwise, 2 on bad flags.
 *
 *   fedadam [--clients=4] [--eta=0.1] [--tau=1e-3] [--beta1=0.9] [--beta2=0.99]
 */

#include "ns3/core-module.h"
#include "ns3/fl-module.h"

#include "fedopt-strategy.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// The server's hyper-parameters, as the program passes them.
struct Hyper
{
    double eta{0.1};
    double beta1{0.9};
    double beta2{0.99};
    double tau{1e-3};
};

/// What one run recorded from outside the strategy.
struct Recorded
{
    Eigen::VectorXd x0;                    ///< the initial global model (round 0)
    Eigen::VectorXd x1;                    ///< the server's model after round 1
    bool aggregated{false};                ///< round 1 ended with status "aggregated"
    std::vector<uint32_t> participants;    ///< round 1's participants
    std::map<uint32_t, Eigen::VectorXd> y; ///< each client's trained model of round 1
};

Eigen::VectorXd
ToDouble(const fl::ParamVector& v)
{
    return v.ConvertedTo(fl::Precision::Float64).Get<double>();
}

/// One round of FedAvg clients with FedOptStrategy over a CSMA LAN; records x_0, the y_k, x_1.
Recorded
RunOnce(std::shared_ptr<const fl::LearningTask> task,
        uint32_t clients,
        const std::string& variant,
        const Hyper& h,
        bool secure)
{
    auto rec = std::make_shared<Recorded>();
    FlCsmaSceneHelper csma;
    FlScene scene = csma.Build(clients);

    FlFedAvgHelper fedavg(task);
    fedavg.SetServerAttribute("Rounds", UintegerValue(1));
    fedavg.SetServerAttribute("InitSeed", UintegerValue(2021));
    fedavg.SetStrategy("ns3::FedOptStrategy",
                       "Variant",
                       StringValue(variant),
                       "Eta",
                       DoubleValue(h.eta),
                       "Tau",
                       DoubleValue(h.tau));
    fedavg.SetStrategyAttribute("Beta1", DoubleValue(h.beta1));
    fedavg.SetStrategyAttribute("Beta2", DoubleValue(h.beta2));
    if (secure)
    {
        FlSecAggHelper secagg; // FractionBits 40 (the default), checked below
        fedavg.SetSecureAggregation(secagg);
    }
    FlFedAvgStack stack = fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress);

    stack.server->TraceConnectWithoutContext(
        "RoundEnd",
        MakeCallback(+[](Recorded* r, const FlRoundReport& report) {
            if (report.round == 0)
            {
                r->x0 = ToDouble(*report.globalModel);
            }
            else if (report.round == 1)
            {
                r->x1 = ToDouble(*report.globalModel);
                r->aggregated = report.status == FlRoundStatus::Aggregated;
                r->participants = report.participants;
            }
        }).Bind(rec.get()));
    for (uint32_t i = 0; i < stack.clientApps.GetN(); ++i)
    {
        auto app = DynamicCast<FlClientApplication>(stack.clientApps.Get(i));
        app->TraceConnectWithoutContext(
            "ModelReport",
            MakeCallback(+[](Recorded* r, uint32_t client, const FlModelReport& m) {
                if (m.round == 1)
                {
                    r->y[client] = ToDouble(*m.model); // the trained (uploaded) model
                }
            }).Bind(rec.get(), app->GetClientIndex()));
    }

    Simulator::Run(); // the server stops the simulation after its round
    Simulator::Destroy();
    return *rec;
}

/// sign(a) in {-1, 0, 1}.
double
Sign(double a)
{
    return static_cast<double>((a > 0.0) - (a < 0.0));
}

/**
 * x_1 by hand (Algorithm 2, t = 0), coordinate by coordinate, from x_0 and the clients' trained
 * models, weights n_k / sum n_k. Also returns Delta_0 (for FedYogi's switch check).
 */
Eigen::VectorXd
HandStep(const Recorded& r,
         const fl::LearningTask& task,
         const std::string& variant,
         const Hyper& h,
         Eigen::VectorXd& delta)
{
    double n = 0.0;
    for (uint32_t k : r.participants)
    {
        n += static_cast<double>(task.ClientSamples(k));
    }
    const Eigen::Index d = r.x0.size();
    delta = Eigen::VectorXd::Zero(d);
    for (uint32_t k : r.participants)
    {
        const double w = static_cast<double>(task.ClientSamples(k)) / n;
        delta += w * (r.y.at(k) - r.x0); // Delta_0 = sum_k (n_k / n) (y_k - x_0)
    }
    Eigen::VectorXd x1(d);
    for (Eigen::Index j = 0; j < d; ++j)
    {
        const double D = delta[j];
        const double m = (1.0 - h.beta1) * D; // m_{-1} = 0
        const double vPrev = h.tau * h.tau;   // v_{-1} = tau^2
        const double v = variant == "yogi" ? vPrev - (1.0 - h.beta2) * D * D * Sign(vPrev - D * D)
                                           : h.beta2 * vPrev + (1.0 - h.beta2) * D * D;
        x1[j] = r.x0[j] + h.eta * m / (std::sqrt(v) + h.tau);
    }
    return x1;
}

/// max_j |a_j - b_j| / max(1, |b_j|)
double
MaxRelativeError(const Eigen::VectorXd& a, const Eigen::VectorXd& b)
{
    double e = 0.0;
    for (Eigen::Index j = 0; j < b.size(); ++j)
    {
        e = std::max(e, std::abs(a[j] - b[j]) / std::max(1.0, std::abs(b[j])));
    }
    return e;
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t clients = 4;
    Hyper h;
    CommandLine cmd(__FILE__);
    cmd.Usage("FedAdam and FedYogi (Reddi et al., \"Adaptive Federated Optimization\", ICLR 2021, "
              "Algorithm 2) as a server strategy written outside the fl module, run for one "
              "round over a CSMA LAN (plain uploads and secure aggregation) and checked against "
              "the paper's update computed by hand. Exit status 0 if every check passes.");
    cmd.AddValue("clients", "number of FedAvg clients (>= 2)", clients);
    cmd.AddValue("eta", "server learning rate eta (> 0)", h.eta);
    cmd.AddValue("tau", "adaptivity tau (> 0)", h.tau);
    cmd.AddValue("beta1", "first-moment decay beta1 in [0, 1)", h.beta1);
    cmd.AddValue("beta2", "second-moment decay beta2 in [0.25, 1) (the check's bound)", h.beta2);
    cmd.Parse(argc, argv);
    if (clients < 2 || clients > 64)
    {
        std::cerr << "fedadam: invalid --clients=" << clients
                  << " (fix: pass a number of clients from 2 to 64)\n";
        return 2;
    }
    if (!(h.beta2 >= 0.25 && h.beta2 < 1.0))
    {
        // the derivative bound of the secure-aggregation check needs sqrt(beta2) >= 1/2
        std::cerr << "fedadam: invalid --beta2=" << h.beta2
                  << " (fix: pass a value in [0.25, 1); the check's error bound assumes it)\n";
        return 2;
    }

    // A float64 task from the module's synthetic data: the README tutorial's Gaussian mixture,
    // a small MLP (random initial model), IID shares of unequal size (so the weights matter).
    fl::Rng rng(7);
    fl::GaussianMixtureConfig mix;
    auto centres = fl::MakeMixtureCentres(mix, rng);
    auto train = fl::SampleGaussianMixture<double>(centres, 150 * clients, rng);
    auto test = fl::SampleGaussianMixture<double>(centres, 200, rng);
    std::vector<fl::Dataset<double>> shares;
    for (const auto& idx : fl::PartitionIid(train.Size(), clients, rng))
    {
        shares.push_back(train.Subset(idx));
    }
    // unequal shares: client k keeps its first 60 + 20 k samples
    for (uint32_t k = 0; k < clients; ++k)
    {
        std::vector<std::size_t> keep(std::min<std::size_t>(shares[k].Size(), 60 + 20 * k));
        for (std::size_t i = 0; i < keep.size(); ++i)
        {
            keep[i] = i;
        }
        shares[k] = shares[k].Subset(keep);
    }
    fl::LocalTrainerConfig sgd;
    sgd.localEpochs = 1;
    sgd.batchSize = 16;
    auto model = fl::MakeModel<double>("mlp:hidden=16", train.Dim(), 10);
    auto task = std::make_shared<fl::SupervisedTask<double>>(model, sgd, shares, test);

    const unsigned fractionBits = 40; // FlSecAggHelper's default FractionBits
    bool allPass = true;
    for (const std::string variant : {"adam", "yogi"})
    {
        for (bool secure : {false, true})
        {
            const Recorded r = RunOnce(task, clients, variant, h, secure);
            const std::string name = std::string(variant == "adam" ? "FedAdam" : "FedYogi") +
                                     (secure ? " (secure aggregation)" : " (plain uploads)");
            if (!r.aggregated || r.participants.size() != clients || r.y.size() != clients ||
                r.x0.size() == 0 || r.x1.size() != r.x0.size())
            {
                std::cout << "FAIL " << name << ": round 1 did not aggregate all " << clients
                          << " clients' models (" << r.participants.size() << " participants, "
                          << r.y.size() << " trained models recorded)\n";
                allPass = false;
                continue;
            }
            Eigen::VectorXd delta;
            const Eigen::VectorXd hand = HandStep(r, *task, variant, h, delta);
            const double err = MaxRelativeError(r.x1, hand);
            double tol = 1e-12;
            std::string why = "float64, order of additions only";
            if (secure)
            {
                double n = 0.0;
                double mass = 0.0;
                for (uint32_t k : r.participants)
                {
                    const double nk = static_cast<double>(task->ClientSamples(k));
                    n += nk;
                    mass += nk * r.y.at(k).cwiseAbs().maxCoeff();
                }
                const double e = (static_cast<double>(r.participants.size()) *
                                      std::ldexp(1.0, -static_cast<int>(fractionBits) - 1) +
                                  std::ldexp(1.0, -52) * mass) /
                                 n;
                const double lipschitz = 2.0 * h.eta * (1.0 - h.beta1) / h.tau;
                // FedYogi's sign(v_{-1} - Delta^2) must not flip within e of Delta
                const double nearSwitch = (delta.cwiseAbs().array() - h.tau).abs().minCoeff();
                if (variant == "yogi" && nearSwitch <= e)
                {
                    std::cout << "FAIL " << name << ": a coordinate of Delta_0 lies within " << e
                              << " of tau, where the bound does not hold\n";
                    allPass = false;
                    continue;
                }
                tol += lipschitz * e;
                char buf[160];
                std::snprintf(buf,
                              sizeof(buf),
                              "fixed point 2^-%u: mean off by <= %.3g, step by <= %.3g",
                              fractionBits,
                              e,
                              lipschitz * e);
                why = buf;
            }
            const bool pass = err <= tol;
            allPass = allPass && pass;
            std::printf("%s %s round 1, %u clients, %zu parameters: max |x_1 - hand| / "
                        "max(1, |hand|) = %.3g (tolerance %.3g: %s)\n",
                        pass ? "PASS" : "FAIL",
                        name.c_str(),
                        clients,
                        static_cast<std::size_t>(hand.size()),
                        err,
                        tol,
                        why.c_str());
        }
    }
    return allPass ? 0 : 1;
}

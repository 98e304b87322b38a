// SPDX-License-Identifier: GPL-2.0-only
/*
 * SCAFFOLD with option II control variates, written as a user of the installed fl module writes
 * an algorithm of their own: the strategy pair (scaffold-strategy.h) and this check, only the
 * installed headers (ns3/fl-module.h), nothing changed in the module.
 *
 * S. P. Karimireddy, S. Kale, M. Mohri, S. J. Reddi, S. U. Stich, A. T. Suresh, "SCAFFOLD:
 * Stochastic Controlled Averaging for Federated Learning", ICML 2020, Algorithm 1, with the
 * paper's names (x the server model, c the server control variate, c_i client i's, S the sampled
 * clients, N all clients, K local steps of size eta_l, eta_g the global step):
 *   client i in S: y_i <- x                                                      (line 7)
 *     K times: y_i <- y_i - eta_l (g_i(y_i) - c_i + c)                           (lines 9, 10)
 *     c_i^+ = c_i - c + (x - y_i) / (K eta_l)                     (line 12, option II)
 *     sends (Delta y_i, Delta c_i) = (y_i - x, c_i^+ - c_i); c_i <- c_i^+        (lines 13, 14)
 *   server: (Delta x, Delta c) = (1/|S|) sum_{i in S} (Delta y_i, Delta c_i)     (line 16)
 *     x <- x + eta_g Delta x,   c <- c + (|S| / N) Delta c                       (line 17)
 * The server attaches c to the model it sends (the module's round attachment, in the same
 * message), the client keeps c_i in its strategy object, corrects the local gradient through the
 * local trainer's gradient hook (fl::GradientShift with c - c_i) and uploads the 2d values
 * [Delta y_i; Delta c_i]. The server works from the mean of those uploads only, so the same
 * strategy runs from the sum a secure-aggregation step reveals (the clients' upload weight is 1,
 * which makes sum / total weight the uniform mean of line 16).
 *
 * The program runs it over a CSMA LAN for two rounds with N clients, |S| of them sampled each
 * round, on ridge regression (the module's synthetic regression data, full-batch local steps:
 * no sampling inside the training), records the server's x and c after rounds 1 and 2 and the
 * clients sampled, and recomputes both by hand: every sampled client's K corrected gradient
 * steps in plain Eigen from its data (the ridge gradient (2/n) X^T (X y - d) + 2 rho y written
 * out), its c_i^+, and the server's line 17. Round 1 has c = c_i = 0; round 2 exercises the
 * correction c - c_i. It runs twice: with plain uploads, checked to |server - hand| <=
 * 1e-12 max(1, |hand|) per coordinate (float64 throughout; the computations differ only in the
 * order of their additions), and with the module's secure aggregation (FlSecAggHelper,
 * FractionBits f = 40), checked to 1e-12 plus a bound derived in main(): each round's mean is
 * off by at most 2^-(f+1) per coordinate (plus float64 rounding), and that error reaches round
 * 2's clients through x and c, whose effect on K contracting gradient steps is bounded (about
 * 5e-12 here; printed). Prints one PASS or FAIL line per check; exit status 0 if all pass, 1
 * otherwise, 2 on bad flags.
 *
 *   scaffold [--clients=4] [--sampled=3] [--localSteps=5] [--etaL=0.1] [--etaG=1]
 */

#include "ns3/core-module.h"
#include "ns3/fl-module.h"

#include "scaffold-strategy.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

using namespace ns3;
using scaffold::ToDouble;

namespace
{

/// What the run recorded from outside the strategies, per round.
struct Recorded
{
    std::map<uint32_t, Eigen::VectorXd> x;             ///< server model after round r (0: x_0)
    std::map<uint32_t, Eigen::VectorXd> c;             ///< server c after round r
    std::map<uint32_t, std::vector<uint32_t>> sampled; ///< participants of round r
    std::map<uint32_t, bool> aggregated;               ///< round r aggregated
};

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

/// Runs SCAFFOLD over a CSMA LAN and records x, c and the sampled clients of every round.
Recorded
RunScaffold(std::shared_ptr<const fl::LearningTask> task,
            uint32_t clients,
            uint32_t sampled,
            uint32_t rounds,
            double etaG,
            bool secure)
{
    auto rec = std::make_shared<Recorded>();
    FlCsmaSceneHelper csma;
    FlScene scene = csma.Build(clients);
    FlFedAvgHelper fedavg(task);
    fedavg.SetServerAttribute("Rounds", UintegerValue(rounds));
    fedavg.SetServerAttribute("ClientsPerRound", UintegerValue(sampled));
    fedavg.SetStrategy("ns3::ScaffoldServerStrategy", "GlobalLearningRate", DoubleValue(etaG));
    fedavg.SetClientStrategy("ns3::ScaffoldClientStrategy");
    if (secure)
    {
        FlSecAggHelper secagg; // FractionBits 40 (the default), in the check's bound
        fedavg.SetSecureAggregation(secagg);
    }
    FlFedAvgStack stack = fedavg.Install(scene.serverNode, scene.clients, scene.serverAddress);
    stack.server->TraceConnectWithoutContext(
        "RoundEnd",
        MakeCallback(+[](Recorded* r, const FlRoundReport& report) {
            r->x[report.round] = ToDouble(*report.globalModel);
            r->sampled[report.round] = report.participants;
            r->aggregated[report.round] = report.status == FlRoundStatus::Aggregated;
        }).Bind(rec.get()));
    stack.server->GetStrategy()->TraceConnectWithoutContext(
        "ControlVariate",
        MakeCallback(+[](Recorded* r, uint32_t round, const fl::ParamVector& c) {
            r->c[round] = ToDouble(c);
        }).Bind(rec.get()));
    Simulator::Run(); // the server stops the simulation after the last round
    Simulator::Destroy();
    return *rec;
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t clients = 4;
    uint32_t sampled = 3;
    uint32_t localSteps = 5;
    double etaL = 0.1;
    double etaG = 1.0;
    const uint32_t rounds = 2;
    CommandLine cmd(__FILE__);
    cmd.Usage("SCAFFOLD with option II control variates (Karimireddy et al., \"SCAFFOLD: "
              "Stochastic Controlled Averaging for Federated Learning\", ICML 2020, Algorithm 1) "
              "as a server and a client strategy written outside the fl module, run for two "
              "rounds over a CSMA LAN and checked against the algorithm computed by hand. Exit "
              "status 0 if every check passes.");
    cmd.AddValue("clients", "number of clients N (>= 2)", clients);
    cmd.AddValue("sampled", "clients sampled per round |S| (1..N)", sampled);
    cmd.AddValue("localSteps", "local steps K (>= 1)", localSteps);
    cmd.AddValue("etaL", "local step size eta_l (> 0)", etaL);
    cmd.AddValue("etaG", "global step size eta_g (> 0)", etaG);
    cmd.Parse(argc, argv);
    if (clients < 2 || clients > 64)
    {
        std::cerr << "scaffold: invalid --clients=" << clients << " (fix: pass 2 to 64)\n";
        return 2;
    }
    if (sampled < 1 || sampled > clients)
    {
        std::cerr << "scaffold: invalid --sampled=" << sampled << " (fix: pass 1 to --clients)\n";
        return 2;
    }
    if (localSteps < 1 || localSteps > 1000)
    {
        std::cerr << "scaffold: invalid --localSteps=" << localSteps << " (fix: pass 1 to 1000)\n";
        return 2;
    }
    if (!(etaL > 0.0) || !(etaL < 1.0) || !(etaG > 0.0) || !std::isfinite(etaG))
    {
        std::cerr << "scaffold: invalid --etaL or --etaG (fix: 0 < etaL < 1, etaG > 0)\n";
        return 2;
    }

    // Ridge regression on the module's synthetic regression data (d = u^T w* + v, a random
    // covariance per client), full-batch steps: the local training draws no random numbers.
    const double rho = 0.01;
    fl::Rng rng(3);
    fl::RegressionTaskConfig rc;
    rc.dim = 5;
    rc.agents = clients + 1; // the last one is the test set
    rc.samplesPerAgent = 40;
    rc.covarianceScale = 0.2;
    auto reg = fl::MakeRegressionTask<double>(rc, rng);
    std::vector<fl::Dataset<double>> shares;
    for (uint32_t k = 0; k < clients; ++k)
    {
        shares.push_back(reg.agents[k].data);
    }
    fl::LocalTrainerConfig sgd;
    sgd.batchSize = 0; // full batch
    sgd.localSteps = localSteps;
    sgd.localEpochs = 0.0;
    sgd.learningRate = etaL;
    auto model = fl::MakeModel<double>("ridge:rho=" + std::to_string(rho), rc.dim, 1);
    auto task =
        std::make_shared<fl::SupervisedTask<double>>(model, sgd, shares, reg.agents[clients].data);

    // The secure-aggregation check's bound needs ||I - eta_l H_i||_2 <= 1 for every client,
    // H_i = (2/n) X^T X + 2 rho I the ridge Hessian: eta_l lambda_max(H_i) <= 2.
    const auto d = static_cast<Eigen::Index>(rc.dim);
    for (uint32_t i = 0; i < clients; ++i)
    {
        const auto& X = task->ClientData(i).features;
        const double n = static_cast<double>(X.rows());
        const Eigen::MatrixXd H =
            (2.0 / n) * X.transpose() * X + 2.0 * rho * Eigen::MatrixXd::Identity(d, d);
        const double lmax =
            Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(H).eigenvalues().maxCoeff();
        if (etaL * lmax > 2.0)
        {
            std::cerr << "scaffold: invalid --etaL=" << etaL << " (fix: at most " << 2.0 / lmax
                      << ", so that local training contracts on client " << i << ")\n";
            return 2;
        }
    }

    const unsigned fractionBits = 40; // FlSecAggHelper's default FractionBits
    const double frac = static_cast<double>(sampled) / static_cast<double>(clients); // |S|/N
    const double kEta = static_cast<double>(localSteps) * etaL;
    bool allPass = true;
    for (bool secure : {false, true})
    {
        const Recorded rec = RunScaffold(task, clients, sampled, rounds, etaG, secure);
        const std::string name =
            std::string("SCAFFOLD") + (secure ? " (secure aggregation)" : " (plain uploads)");
        if (rec.x.count(0) == 0)
        {
            std::cout << "FAIL " << name << ": the server reported no initial model\n";
            allPass = false;
            continue;
        }
        // By hand: Algorithm 1 from x_0 (the server's initial model), c = c_i = 0.
        Eigen::VectorXd x = rec.x.at(0);
        Eigen::VectorXd c = Eigen::VectorXd::Zero(d);
        std::vector<Eigen::VectorXd> ci(clients, Eigen::VectorXd::Zero(d));
        // Secure aggregation: bounds on |server - hand| (2-norm, so per coordinate too).
        double boundX = 0.0;
        double boundC = 0.0;
        for (uint32_t r = 1; r <= rounds; ++r)
        {
            if (!rec.aggregated.count(r) || !rec.aggregated.at(r) ||
                rec.sampled.at(r).size() != sampled || rec.c.count(r) == 0)
            {
                std::cout << "FAIL " << name << " round " << r << ": did not aggregate " << sampled
                          << " clients\n";
                allPass = false;
                break;
            }
            Eigen::VectorXd dx = Eigen::VectorXd::Zero(d);
            Eigen::VectorXd dc = Eigen::VectorXd::Zero(d);
            double correction = 0.0; // max |c - c_i| over the sampled clients: round 2 uses it
            for (uint32_t i : rec.sampled.at(r))
            {
                const fl::Dataset<double>& data = task->ClientData(i);
                const auto& X = data.features;
                const auto& t = data.targets;
                const double n = static_cast<double>(X.rows());
                correction = std::max(correction, (c - ci[i]).cwiseAbs().maxCoeff());
                Eigen::VectorXd y = x; // line 7
                for (uint32_t k = 0; k < localSteps; ++k)
                {
                    const Eigen::VectorXd g =
                        (2.0 / n) * X.transpose() * (X * y - t) + 2.0 * rho * y;
                    y -= etaL * (g - ci[i] + c); // lines 9, 10
                }
                const Eigen::VectorXd ciPlus = ci[i] - c + (x - y) / kEta; // line 12
                dx += (y - x) / static_cast<double>(sampled);              // line 16
                dc += (ciPlus - ci[i]) / static_cast<double>(sampled);
                ci[i] = ciPlus; // line 14
            }
            x += etaG * dx; // line 17
            c += frac * dc; // line 17
            double tolX = 1e-12;
            double tolC = 1e-12;
            if (secure)
            {
                // The step sums round(u_k 2^f) 2^-f over S (upload weight 1): the mean of the
                // uploads u_k = [Delta y_k; Delta c_k] is off by e <= 2^-(f+1) + 2^-52 |mean|
                // per coordinate, sqrt(d) e in 2-norm per half. The clients' inputs of round r
                // are off by the bounds of round r - 1 (dx, dc): local training is affine,
                // y_K = A^K x + sum_j A^j eta_l (b_i - c + c_i) with A = I - eta_l H_i,
                // ||A|| <= 1, so Delta y is off by <= 2 dx + K eta_l dc and Delta c_i =
                // -c + (x - y_K) / (K eta_l) by <= 2 dc + 2 dx / (K eta_l).
                // (c_i itself is exact through round 2: round 1 trains from the exact x_0, c = 0.)
                const double mean = std::max(dx.cwiseAbs().maxCoeff(), dc.cwiseAbs().maxCoeff());
                const double e = std::sqrt(static_cast<double>(d)) *
                                 (std::ldexp(1.0, -static_cast<int>(fractionBits) - 1) +
                                  std::ldexp(1.0, -52) * (mean + 1.0));
                const double bx = boundX + etaG * (2.0 * boundX + kEta * boundC + e);
                const double bc = boundC + frac * (2.0 * boundC + 2.0 * boundX / kEta + e);
                boundX = bx;
                boundC = bc;
                tolX += boundX;
                tolC += boundC;
            }
            const double ex = MaxRelativeError(rec.x.at(r), x);
            const double ec = MaxRelativeError(rec.c.at(r), c);
            const bool pass = ex <= tolX && ec <= tolC && (r == 1 || correction > 0.0);
            allPass = allPass && pass;
            std::string who;
            for (uint32_t i : rec.sampled.at(r))
            {
                who += (who.empty() ? "" : ",") + std::to_string(i);
            }
            std::printf("%s %s round %u (S = {%s} of N = %u, K = %u, max |c - c_i| = %.3g): "
                        "max |x - hand| / max(1, |hand|) = %.3g (tolerance %.3g), for c %.3g "
                        "(tolerance %.3g)%s\n",
                        pass ? "PASS" : "FAIL",
                        name.c_str(),
                        r,
                        who.c_str(),
                        clients,
                        localSteps,
                        correction,
                        ex,
                        tolX,
                        ec,
                        tolC,
                        secure ? "" : ": float64, order of additions only");
        }
    }
    return allPass ? 0 : 1;
}

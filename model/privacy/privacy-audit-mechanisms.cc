/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/privacy-audit-mechanisms.h"

#include "ns3/diffusion.h"
#include "ns3/dwfl-composition.h"
#include "ns3/dwfl-privacy.h"
#include "ns3/dwfl.h"
#include "ns3/fast-normal.h"
#include "ns3/gfl-privacy.h"
#include "ns3/gfl.h"
#include "ns3/graph.h"
#include "ns3/learning-task.h"
#include "ns3/linear-models.h"
#include "ns3/ota-parameter-server.h"
#include "ns3/ota-signal.h"
#include "ns3/perturbation.h"
#include "ns3/privacy-accountant.h"
#include "ns3/thread-pool.h"

#include <cmath>
#include <memory>
#include <sstream>

namespace ns3
{
namespace fl
{

namespace
{

constexpr double kDelta = 1e-5; ///< the audits' delta
constexpr double kTarget = 1e3; ///< |d| of the worst-case samples: every gradient is clipped
constexpr double kClip = 1.0;   ///< G, g_max
constexpr std::size_t kDim = 2; ///< model dimension M = d

/// u = (1, 1) / sqrt(2): the direction in which the neighbouring inputs push the models.
Eigen::VectorXd
Direction()
{
    return Eigen::VectorXd::Ones(kDim) / std::sqrt(static_cast<double>(kDim));
}

/**
 * A ridge task (no regulariser) whose clients hold one sample each, u = (1, 1) with target
 * +kTarget (even clients: input D0) or -kTarget (odd clients: input D1): every clipped gradient
 * is G u' with u' = -/+ (1, 1)/sqrt(2), so the two inputs move a model by the full sensitivity.
 */
std::shared_ptr<SupervisedTask<double>>
WorstCaseTask(std::size_t pairs, const LocalTrainerConfig& trainer)
{
    std::vector<Dataset<double>> clients;
    for (std::size_t k = 0; k < 2 * pairs; ++k)
    {
        Dataset<double> d;
        d.features = Mat<double>::Ones(1, kDim);
        d.targets = Vec<double>::Constant(1, k % 2 == 0 ? kTarget : -kTarget);
        d.kind = TargetKind::Regression;
        clients.push_back(std::move(d));
    }
    Dataset<double> test = clients.front();
    return std::make_shared<SupervisedTask<double>>(
        std::make_shared<RidgeRegression<double>>(kDim, 0.0),
        trainer,
        std::move(clients),
        std::move(test));
}

/// Likelihood-ratio score of i.i.d. Laplace noise around mu0 (D0) or mu1 (D1), up to 1/b.
double
LaplaceScore(const Eigen::VectorXd& x, const Eigen::VectorXd& mu0, const Eigen::VectorXd& mu1)
{
    return ((x - mu0).cwiseAbs() - (x - mu1).cwiseAbs()).sum();
}

/// Projection score <x - mu0, unit(mu1 - mu0)> (the Gaussian likelihood ratio, up to scale).
double
GaussianScore(const Eigen::VectorXd& x, const Eigen::VectorXd& mu0, const Eigen::VectorXd& mu1)
{
    return (x - mu0).dot((mu1 - mu0).normalized());
}

std::string
Num(double v)
{
    std::ostringstream os;
    os << v;
    return os.str();
}

// ---------------------------------------------------------------------------- FedAvg uplink

AuditMechanism
FedAvgUplink(MechanismKind kind)
{
    LocalTrainerConfig trainer;
    trainer.localSteps = 5;
    trainer.localEpochs = 0.0;
    trainer.batchSize = 1;
    trainer.learningRate = 0.1;
    trainer.clipNorm = kClip;
    auto task = WorstCaseTask(1, trainer);
    Rng init(1);
    const ParamVector start = task->InitialParameters(init);
    // the client's training (deterministic here: one sample per batch), D0 and D1
    Rng r0(2);
    Rng r1(2);
    const ParamVector trained0 = task->TrainClient(0, start, r0).params;
    const ParamVector trained1 = task->TrainClient(1, start, r1).params;
    const double l2 = LocalTrainingSensitivity(trainer, trainer.localSteps); // 2 G eta E
    const bool laplace = kind == MechanismKind::Laplace;
    // calibrated for eps = 1 per upload: b = sqrt(M) Delta_2, sigma = Delta_2 sqrt(2 ln(1.25/d))
    const double scale = laplace ? std::sqrt(static_cast<double>(kDim)) * l2
                                 : l2 * std::sqrt(2.0 * std::log(1.25 / kDelta));
    std::shared_ptr<Perturbation> noise =
        laplace ? std::shared_ptr<Perturbation>(
                      std::make_shared<LaplacePerturbation>(scale, NoiseScope::PerLink))
                : std::shared_ptr<Perturbation>(
                      std::make_shared<GaussianPerturbation>(scale, NoiseScope::PerLink));
    UplinkPrivacyAccountant claim;
    claim.RecordUpload(noise->Mechanism(0.0), trainer, trainer.localSteps, kDim);
    AuditMechanism m;
    m.name = laplace ? "fedavg-uplink-laplace" : "fedavg-uplink-gaussian";
    m.description = std::string("FedAvg client upload, ") + (laplace ? "Laplace" : "Gaussian") +
                    " uplink noise of scale " + Num(scale) +
                    ", one round; adversary: the "
                    "server; D0/D1: the client's one sample with target +/-" +
                    Num(kTarget) + " (clipped gradients of opposite directions, " +
                    Num(trainer.localSteps) + " steps)";
    m.claimedEpsilon = claim.Epsilon(kDelta);
    m.delta = kDelta;
    const Eigen::VectorXd mu0 = trained0.Get<double>();
    const Eigen::VectorXd mu1 = trained1.Get<double>();
    m.trial = [=](bool second, uint64_t seed) {
        // as FlClientApplication: one engine Rng(UplinkNoiseSeed(trainingSeed, round))
        ParamVector upload = second ? trained1 : trained0;
        std::shared_ptr<Perturbation> p =
            laplace ? std::shared_ptr<Perturbation>(
                          std::make_shared<LaplacePerturbation>(scale, NoiseScope::PerLink))
                    : std::shared_ptr<Perturbation>(
                          std::make_shared<GaussianPerturbation>(scale, NoiseScope::PerLink));
        Rng rng(UplinkNoiseSeed(seed, 1));
        p->BeginIteration(upload.Size(), rng);
        p->PerturbOutgoing(upload, 0, rng);
        const Eigen::VectorXd& x = upload.Get<double>();
        return laplace ? LaplaceScore(x, mu0, mu1) : GaussianScore(x, mu0, mu1);
    };
    return m;
}

// --------------------------------------------------------------------------- GFL and GHP

/// The graph of the GFL and GHP audits: four nodes, complete, Metropolis weights (a = 1/4).
Eigen::MatrixXd
AuditGraph()
{
    return MetropolisWeights(CompleteGraph(4));
}

/**
 * A node's release in iteration 1: node 0 computes its value from its clients (GFL: the
 * client step of each of its two clients and the server average) or its own adapt step (GHP),
 * on D0 or D1, and releases it with `noise` to its three neighbours; the adversary sees the
 * copy to neighbour 1 (OneLink) or every copy (AllLinks).
 */
AuditMechanism
GraphRelease(bool ghp, NodeNoiseConfig noise, GraphAdversary adversary)
{
    const double mu = 0.5;
    const Eigen::MatrixXd A = AuditGraph();
    LocalTrainerConfig base;
    base.batchSize = 1;
    base.clipNorm = kClip;
    auto task = WorstCaseTask(2, base); // clients 0, 2: D0; clients 1, 3: D1
    Rng init(1);
    const ParamVector w0 = task->InitialParameters(init);
    ParamVector value[2];
    for (int h = 0; h < 2; ++h)
    {
        if (ghp)
        {
            // the adapt step phi = w - mu clip(grad Q) (GHP eq. 3/14)
            Rng rng(3);
            value[h] =
                TrainClientWith(*task, h, w0, DiffusionAdaptConfig(mu, 1, kClip), rng).params;
        }
        else
        {
            // GFL: two clients, E = 5 steps of mu / E each, uniform server average (eq. 7)
            const LocalTrainerConfig t = GflTrainerConfig(mu, 5, 1, kClip);
            std::vector<GflClientResult> up;
            for (std::size_t c : {static_cast<std::size_t>(h), static_cast<std::size_t>(h + 2)})
            {
                up.push_back(
                    GflClientStep(*task, c, w0, t, GflUplink::Models, mu, nullptr, 0, 7 + c, 1));
            }
            value[h] = GflServerAverage({&up[0].upload, &up[1].upload});
        }
    }
    const std::vector<uint32_t> neighbours{1, 2, 3};
    const MechanismSpec mech = MakeNodePerturbation(noise, A(0, 0), "a_00")->Mechanism(0.0);
    GraphPrivacyAccountant claim(noise.kind, mech.kind, mech.scale, mu, kClip, kDim, A, kDelta);
    claim.RecordIteration();
    AuditMechanism m;
    m.name = std::string(ghp ? "ghp" : "gfl") + "-" + GraphAdversaryName(adversary) + "-" +
             NodeNoiseKindName(noise.kind) + "-" +
             (noise.distribution == NoiseDistribution::Laplace ? "laplace" : "gaussian");
    m.description =
        std::string(ghp ? "GHP agent" : "GFL server") +
        " release, iteration 1, four nodes (complete graph, Metropolis weights), " +
        NodeNoiseKindName(noise.kind) + " noise of scale " + Num(noise.scale) + "; adversary: " +
        (adversary == GraphAdversary::OneLink    ? "an eavesdropper on one link"
         : adversary == GraphAdversary::AllLinks ? "an eavesdropper on every link of the node"
                                                 : "its neighbouring node 1 (the target's copy, "
                                                   "its other neighbours' messages do not "
                                                   "depend on the target's data in iteration "
                                                   "1)") +
        "; D0/D1: every sample of the node" + (ghp ? "" : "'s clients") + " with target +/-" +
        Num(kTarget);
    m.claimedEpsilon = claim.Epsilon(adversary);
    m.delta = kDelta;
    const Eigen::VectorXd mu0 = value[0].Get<double>();
    const Eigen::VectorXd mu1 = value[1].Get<double>();
    const bool laplace = noise.distribution == NoiseDistribution::Laplace;
    m.trial = [=](bool second, uint64_t seed) {
        auto p = MakeNodePerturbation(noise, A(0, 0), "a_00");
        NodeRelease out;
        ReleaseNodeMessages(*p, second ? value[1] : value[0], 0, neighbours, seed, 1, out);
        auto score = [&](const ParamVector& v) {
            return laplace ? LaplaceScore(v.Get<double>(), mu0, mu1)
                           : GaussianScore(v.Get<double>(), mu0, mu1);
        };
        if (out.broadcast)
        {
            return score(out.message); // one message for every neighbour
        }
        if (adversary != GraphAdversary::AllLinks)
        {
            return score(out.perLink[0]); // the copy to neighbour 1
        }
        double s = 0.0;
        for (const ParamVector& copy : out.perLink)
        {
            s += score(copy);
        }
        return s;
    };
    return m;
}

/**
 * GHP on a graph that changes (fl::LiveGraphPrivacyAccountant): four agents, two iterations,
 * per-link Laplace noise. Iteration 1 runs on the complete graph, iteration 2 on the graph
 * without the link 0 - 3 (agent 3 has moved away from agent 0), each with its Metropolis
 * weights. Agent 0 holds D0 or D1, the others one fixed sample each. The adversary eavesdrops
 * on the link 0 -> 1 in both iterations: it scores both copies of agent 0 around their
 * noiseless means under D0 and D1. The second copy depends on the first iteration's
 * combination (the other agents' noise included), which the claim's drift bound covers.
 */
AuditMechanism
LiveGraphRelease(double scale)
{
    const double mu = 0.5;
    const std::size_t N = 4;
    std::vector<Eigen::MatrixXd> graphs{
        MetropolisWeights(CompleteGraph(N)),
        MetropolisWeights(Graph(N, {{0, 1}, {0, 2}, {1, 2}, {1, 3}, {2, 3}}))};
    LocalTrainerConfig base;
    base.batchSize = 1;
    base.clipNorm = kClip;
    auto task = WorstCaseTask(1, base); // client 0: D0, client 1: D1
    Rng init(1);
    const ParamVector w0 = task->InitialParameters(init);
    const NodeNoiseConfig noise{NodeNoiseKind::IidPerLink, NoiseDistribution::Laplace, scale};
    // agent k's data: agent 0 the input's, every other agent D0's sample
    auto adapt = [task, mu](bool second, uint32_t k, const ParamVector& w) {
        Rng rng(3);
        const std::size_t client = (k == 0 && second) ? 1 : 0;
        return TrainClientWith(*task, client, w, DiffusionAdaptConfig(mu, 1, kClip), rng).params;
    };
    // two iterations; returns agent 0's copies to agent 1 (its noiseless values without noise)
    auto run = [=](bool second, const NodeNoiseConfig& n, uint64_t seed) {
        std::vector<ParamVector> models(N, w0);
        std::vector<ParamVector> observed;
        std::vector<uint64_t> seeds;
        for (uint32_t k = 0; k < N; ++k)
        {
            seeds.push_back(DeriveSeed(seed, k));
        }
        for (uint32_t i = 1; i <= graphs.size(); ++i)
        {
            std::vector<ParamVector> values;
            for (uint32_t k = 0; k < N; ++k)
            {
                values.push_back(adapt(second, k, models[k]));
            }
            GraphExchange exchange(graphs[i - 1], n, seeds, MissingMessagePolicy::ReuseLast);
            exchange.Step(i, values, models);
            const NodeRelease& r = exchange.Release(0);
            observed.push_back(r.broadcast ? r.message : r.perLink.at(0)); // agent 1 first
        }
        return observed;
    };
    const NodeNoiseConfig none{NodeNoiseKind::None, NoiseDistribution::Laplace, 0.0};
    const std::vector<ParamVector> mean0 = run(false, none, 0);
    const std::vector<ParamVector> mean1 = run(true, none, 0);
    const MechanismSpec mech = MakeNodePerturbation(noise, 0.25, "a_00")->Mechanism(0.0);
    LiveGraphPrivacyAccountant claim(noise.kind, mech.kind, mech.scale, mu, kClip, kDim, N, kDelta);
    for (const Eigen::MatrixXd& A : graphs)
    {
        claim.RecordIteration(A);
    }
    AuditMechanism m;
    m.name = "ghp-live-one-link-iid-per-link-laplace";
    m.description = "GHP agent release on a graph that changes, iterations 1 and 2, four agents "
                    "(complete graph, then without the link 0 - 3; Metropolis weights of "
                    "each), iid-per-link Laplace noise of scale " +
                    Num(scale) +
                    "; adversary: an eavesdropper on the link 0 -> 1 in both iterations; "
                    "D0/D1: agent 0's sample with target +/-" +
                    Num(kTarget);
    m.claimedEpsilon = claim.Epsilon(GraphAdversary::OneLink);
    m.delta = kDelta;
    m.trial = [=](bool second, uint64_t seed) {
        const std::vector<ParamVector> copies = run(second, noise, seed);
        double score = 0.0;
        for (std::size_t i = 0; i < copies.size(); ++i)
        {
            score += LaplaceScore(copies[i].Get<double>(),
                                  mean0[i].Get<double>(),
                                  mean1[i].Get<double>());
        }
        return score;
    };
    return m;
}

// ----------------------------------------------------------------------------------- DWFL

/// The channel of the DWFL and parameter-server audits: three workers, P = 100.
struct AuditChannel
{
    std::vector<double> gain{1.0, 1.3, 1.6};
    std::vector<double> power{100.0, 100.0, 100.0};
};

DwflPrivacyParams
AuditDwflParams()
{
    DwflPrivacyParams p;
    p.gamma = 0.1;
    p.gMax = kClip;
    p.sigma2 = 1.0;
    p.sigmaM2 = 1.0;
    p.delta = kDelta;
    return p;
}

/// Worker k's clipped local step on the quadratic loss (1/2) ||x - a_k||^2, in place.
void
QuadraticStep(Eigen::VectorXd& x, const Eigen::VectorXd& a, double gamma)
{
    Eigen::VectorXd g = x - a;
    DwflLocalStep(x, g, gamma, kClip);
}

/// The receiver noise of one reception: the phy's complex noise, its real values.
Eigen::VectorXd
ReceiverNoise(double sigmaM2, uint64_t seed)
{
    SymbolVector symbols = SymbolVector::Zero(static_cast<Eigen::Index>(SymbolCount(kDim)));
    Rng rng(seed);
    AddComplexNoise(symbols, 2.0 * sigmaM2, rng); // CN(0, 2 sigma_m^2): sigma_m^2 per real value
    return RealView(symbols).head(kDim);
}

AuditMechanism
DwflReceiver(uint32_t rounds)
{
    const AuditChannel ch;
    const DwflPrivacyParams params = AuditDwflParams();
    const double epsRound = 0.1;
    const double kappa = DwflMaxKappa(ch.gain, ch.power, params, epsRound);
    DwflRoundSetup s;
    s.gainAbs = ch.gain;
    s.powerW = ch.power;
    s.c = DwflAlignmentAmplitude(ch.gain, ch.power, kappa);
    s.beta = CalibrateDwflBeta(ch.gain, ch.power, s.c, params, epsRound);
    s.eta = DwflAveragingRate(0.0, ch.gain.size());
    s.params = params;
    const std::vector<double> alpha = DwflPowerFractions(ch.gain, ch.power, s.c);
    AuditMechanism m;
    m.name = "dwfl-receiver-T" + std::to_string(rounds);
    m.description = "DWFL, 3 workers, eq. (11) eps = " + Num(epsRound) +
                    " per round (calibrated artificial noise), Practical decode, " +
                    std::to_string(rounds) +
                    " round(s); adversary: worker 0 (its receptions); "
                    "D0/D1: worker 1's data pull it to +/-" +
                    Num(kTarget) + " u (clipped)";
    m.claimedEpsilon = DwflComposedEpsilon(0, DwflDecode::Practical, s, rounds, kDelta);
    m.delta = kDelta;
    m.trial = [=](bool second, uint64_t seed) {
        const std::size_t n = s.gainAbs.size();
        const Eigen::VectorXd u = Direction();
        std::vector<Eigen::VectorXd> x(n, Eigen::VectorXd::Zero(kDim));
        std::vector<Eigen::VectorXd> target(n, Eigen::VectorXd::Zero(kDim));
        target[1] = (second ? -kTarget : kTarget) * u;
        std::vector<Eigen::VectorXd> noise(n, Eigen::VectorXd(kDim));
        std::vector<Eigen::VectorXd> signal(n, Eigen::VectorXd(kDim));
        std::vector<Eigen::VectorXd> rxNoise(n);
        std::vector<Eigen::VectorXd> received;
        double score = 0.0;
        for (uint32_t t = 0; t < rounds; ++t)
        {
            std::vector<const Eigen::VectorXd*> signals;
            std::vector<const Eigen::VectorXd*> noises;
            for (std::size_t k = 0; k < n; ++k)
            {
                QuadraticStep(x[k], target[k], params.gamma); // Algorithm 1, steps 1-2
                FillNormal(noise[k], std::sqrt(params.sigma2), DeriveSeed(seed, t, 2 * k));
                DwflTransmitSignal(x[k], noise[k], alpha[k], s.beta[k], s.powerW[k], signal[k]);
                rxNoise[k] = ReceiverNoise(params.sigmaM2, DeriveSeed(seed, t, 2 * k + 1));
                signals.push_back(&signal[k]);
                noises.push_back(&rxNoise[k]);
            }
            DwflSuperpose(signals, s.gainAbs, noises, received); // v_i for every receiver
            score -= received[0].dot(u); // D0 pushes worker 1 to +u, D1 to -u
            for (std::size_t k = 0; k < n; ++k)
            {
                const double a = DwflNoiseGain(s.gainAbs[k], s.powerW[k], s.beta[k], s.c);
                DwflPracticalUpdate(x[k], received[k], noise[k], a, s.c, n, s.eta);
            }
        }
        return score;
    };
    return m;
}

// ---------------------------------------------------------------- over-the-air parameter server

AuditMechanism
OtaParameterServer(uint32_t rounds)
{
    const AuditChannel ch;
    DwflPrivacyParams params = AuditDwflParams();
    const double epsRound = 0.5;
    const double kappa = OtaPsMaxKappa(ch.gain, ch.power, params, epsRound);
    const double c = DwflAlignmentAmplitude(ch.gain, ch.power, kappa);
    const std::vector<double> beta = CalibrateOtaPsBeta(ch.gain, ch.power, c, params, epsRound);
    const std::vector<double> alpha = DwflPowerFractions(ch.gain, ch.power, c);
    PrivacyAccountant claim;
    claim.Add(OtaPsServerMechanism(ch.gain, ch.power, beta, c, params), rounds);
    AuditMechanism m;
    m.name = "ota-ps-server-T" + std::to_string(rounds);
    m.description =
        "over-the-air parameter server (Seif, Tandon, Li), 3 workers, eps = " + Num(epsRound) +
        " per round at the server, " + std::to_string(rounds) +
        " round(s); adversary: the server (its receptions); D0/D1: worker 1's data "
        "pull it to +/-" +
        Num(kTarget) + " u (clipped)";
    m.claimedEpsilon = claim.Epsilon(kDelta, Composition::Rdp);
    m.delta = kDelta;
    m.trial = [=](bool second, uint64_t seed) {
        const std::size_t n = ch.gain.size();
        const Eigen::VectorXd u = Direction();
        Eigen::VectorXd w = Eigen::VectorXd::Zero(kDim);
        std::vector<Eigen::VectorXd> target(n, Eigen::VectorXd::Zero(kDim));
        target[1] = (second ? -kTarget : kTarget) * u;
        std::vector<Eigen::VectorXd> signal(n, Eigen::VectorXd(kDim));
        Eigen::VectorXd x(kDim);
        Eigen::VectorXd g(kDim);
        Eigen::VectorXd noise(kDim);
        Eigen::VectorXd y;
        double score = 0.0;
        for (uint32_t t = 0; t < rounds; ++t)
        {
            std::vector<const Eigen::VectorXd*> signals;
            for (std::size_t k = 0; k < n; ++k)
            {
                x = w;
                QuadraticStep(x, target[k], params.gamma);
                GradientFromStep(w, x, params.gamma, g); // the clipped gradient sent
                FillNormal(noise, std::sqrt(params.sigma2), DeriveSeed(seed, t, 2 * k));
                DwflTransmitSignal(g, noise, alpha[k], beta[k], ch.power[k], signal[k]);
                signals.push_back(&signal[k]);
            }
            OtaPsSuperpose(signals,
                           ch.gain,
                           ReceiverNoise(params.sigmaM2, DeriveSeed(seed, t, 99)),
                           y);
            score -= y.dot(u); // D0's gradient points to -u (the pull to +u): D1 adds +u
            OtaPsUpdate(w, y, c, n, params.gamma);
        }
        return -score;
    };
    return m;
}

} // namespace

AuditMechanism
GaussianReferenceMechanism(double sigmaFactor, double delta)
{
    const double sigma = std::sqrt(2.0 * std::log(1.25 / delta)) * sigmaFactor;
    AuditMechanism m;
    m.name = sigmaFactor == 1.0 ? "gaussian-reference" : "gaussian-sigma-x" + Num(sigmaFactor);
    m.description = "one Gaussian release, l2 sensitivity 1, sigma = " + Num(sigma) +
                    " (the classic calibration for eps = 1 times " + Num(sigmaFactor) +
                    "); D0/D1: the value 0 or 1";
    m.claimedEpsilon = 1.0;
    m.delta = delta;
    m.trial = [sigma](bool second, uint64_t seed) {
        ParamVector v(Eigen::VectorXd(Eigen::VectorXd::Constant(1, second ? 1.0 : 0.0)));
        GaussianPerturbation p(sigma, NoiseScope::PerLink);
        Rng rng(seed);
        p.BeginIteration(1, rng);
        p.PerturbOutgoing(v, 0, rng);
        return v.Get<double>()[0];
    };
    return m;
}

std::vector<AuditMechanism>
PrivacyAuditMechanisms()
{
    std::vector<AuditMechanism> ms;
    ms.push_back(GaussianReferenceMechanism(1.0, kDelta));
    ms.push_back(FedAvgUplink(MechanismKind::Gaussian));
    ms.push_back(FedAvgUplink(MechanismKind::Laplace));
    NodeNoiseConfig laplaceLink{NodeNoiseKind::IidPerLink,
                                NoiseDistribution::Laplace,
                                std::sqrt(2.0)};
    NodeNoiseConfig gaussianLink{NodeNoiseKind::IidPerLink, NoiseDistribution::Gaussian, 4.0};
    NodeNoiseConfig gaussianGh{NodeNoiseKind::GraphHomomorphic, NoiseDistribution::Gaussian, 4.0};
    ms.push_back(GraphRelease(false, laplaceLink, GraphAdversary::OneLink));
    ms.push_back(GraphRelease(false, laplaceLink, GraphAdversary::Neighbour));
    ms.push_back(GraphRelease(false, gaussianLink, GraphAdversary::AllLinks));
    ms.push_back(GraphRelease(true, gaussianGh, GraphAdversary::OneLink));
    ms.push_back(LiveGraphRelease(std::sqrt(2.0)));
    for (uint32_t t = 1; t <= 10; ++t)
    {
        ms.push_back(DwflReceiver(t));
    }
    ms.push_back(OtaParameterServer(1));
    ms.push_back(OtaParameterServer(10));
    return ms;
}

std::vector<AuditRow>
RunPrivacyAudit(const std::vector<AuditMechanism>& mechanisms,
                uint64_t trials,
                double alpha,
                uint64_t seed)
{
    if (trials == 0)
    {
        throw ConfigError("trials", "is 0", "run at least one trial per input");
    }
    const double rowAlpha = BonferroniAlpha(alpha, mechanisms.size());
    std::vector<AuditRow> rows;
    for (std::size_t r = 0; r < mechanisms.size(); ++r)
    {
        const AuditMechanism& m = mechanisms[r];
        std::vector<double> scores[4];
        for (int set = 0; set < 4; ++set)
        {
            // sets 0, 1: calibration under D0, D1; sets 2, 3: evaluation
            scores[set].resize(trials);
            const uint64_t base = DeriveSeed(seed, r, static_cast<uint64_t>(set));
            const bool second = set % 2 == 1;
            std::vector<double>& out = scores[set];
            TrainingPool().ParallelFor(trials, [&](std::size_t i) {
                out[i] = m.trial(second, DeriveSeed(base, i));
            });
        }
        AuditRow row;
        row.name = m.name;
        row.description = m.description;
        row.claimedEpsilon = m.claimedEpsilon;
        row.audit = AuditScores(scores[0], scores[1], scores[2], scores[3], m.delta, rowAlpha);
        row.testable = m.claimedEpsilon <= row.audit.auditableMax;
        rows.push_back(std::move(row));
    }
    return rows;
}

} // namespace fl
} // namespace ns3

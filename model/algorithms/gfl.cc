/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/gfl.h"

#include "ns3/fedavg.h"
#include "ns3/gfl-privacy.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <sstream>

namespace ns3
{
namespace fl
{

namespace
{

void
RequireMu(double mu)
{
    if (!(mu > 0.0) || !std::isfinite(mu))
    {
        std::ostringstream s;
        s << mu;
        throw ConfigError("mu", "is " + s.str(), "use a positive, finite step size");
    }
}

void
RequireSameShape(const ParamVector& a, const ParamVector& b, const std::string& what)
{
    if (a.GetPrecision() != b.GetPrecision() || a.Size() != b.Size())
    {
        throw ConfigError(what,
                          "has " + std::to_string(b.Size()) + " " +
                              PrecisionName(b.GetPrecision()) + " entries, expected " +
                              std::to_string(a.Size()) + " " + PrecisionName(a.GetPrecision()),
                          "use vectors of the task's model and precision");
    }
}

Eigen::VectorXd
AsDouble(const ParamVector& v)
{
    return v.GetPrecision() == Precision::Float64 ? v.Get<double>()
                                                  : Eigen::VectorXd(v.Get<float>().cast<double>());
}

ParamVector
FromDouble(const Eigen::VectorXd& v, Precision p)
{
    if (p == Precision::Float64)
    {
        return ParamVector(v);
    }
    return ParamVector(Eigen::VectorXf(v.cast<float>()));
}

} // namespace

const char*
GflUplinkName(GflUplink uplink)
{
    return uplink == GflUplink::Updates ? "updates" : "models";
}

GflUplink
ParseGflUplink(const std::string& name, const std::string& parameter)
{
    if (name == "models" || name == "model")
    {
        return GflUplink::Models;
    }
    if (name == "updates" || name == "update")
    {
        return GflUplink::Updates;
    }
    throw ConfigError(parameter, "unknown uplink '" + name + "'", "use models or updates");
}

std::vector<uint32_t>
GflSampleClients(std::size_t clients, std::size_t sampled, uint64_t serverSeed, uint32_t iteration)
{
    std::vector<uint32_t> pool(clients);
    for (std::size_t k = 0; k < clients; ++k)
    {
        pool[k] = static_cast<uint32_t>(k);
    }
    Rng rng(GflSamplingSeed(serverSeed, iteration));
    return SampleClients(
        std::move(pool),
        {},
        sampled,
        [&rng](uint32_t lo, uint32_t hi) {
            return std::uniform_int_distribution<uint32_t>(lo, hi)(rng);
        },
        [&rng]() { return std::uniform_real_distribution<double>(0.0, 1.0)(rng); });
}

LocalTrainerConfig
GflTrainerConfig(double mu, std::size_t localSteps, std::size_t batchSize, double clipNorm)
{
    RequireMu(mu);
    if (localSteps == 0)
    {
        throw ConfigError("localSteps", "E is 0", "give every client at least one local step");
    }
    if (batchSize == 0)
    {
        throw ConfigError("batchSize", "B is 0", "give every client mini-batches of >= 1 sample");
    }
    LocalTrainerConfig c;
    c.localSteps = localSteps;
    c.localEpochs = 0.0;
    c.batchSize = batchSize;
    c.stepRule = StepRule::DividedBySteps; // mu / E per step (eq. 3)
    c.learningRate = mu;
    c.clipNorm = clipNorm;
    c.Validate();
    return c;
}

ParamVector
GflClientUpdate(const ParamVector& start, const ParamVector& trained, double mu)
{
    RequireMu(mu);
    RequireSameShape(start, trained, "trained");
    if (start.GetPrecision() == Precision::Float64)
    {
        // u = (w_{p,i-1} - w_{p,k,i}) / mu   (eq. 54)
        return ParamVector(Eigen::VectorXd((start.Get<double>() - trained.Get<double>()) / mu));
    }
    return ParamVector(
        Eigen::VectorXf((start.Get<float>() - trained.Get<float>()) / static_cast<float>(mu)));
}

GflClientResult
GflClientStep(const LearningTask& task,
              std::size_t taskClient,
              const ParamVector& start,
              const LocalTrainerConfig& trainer,
              GflUplink uplink,
              double mu,
              Perturbation* noise,
              uint32_t server,
              uint64_t clientSeed,
              uint32_t iteration,
              NoiseSource source)
{
    GflClientResult r;
    Rng rng(GflTrainingSeed(clientSeed, iteration));
    r.training = TrainClientWith(task, taskClient, start, trainer, rng); // eqs. (3), (6)
    r.upload = uplink == GflUplink::Updates ? GflClientUpdate(start, r.training.params, mu)
                                            : r.training.params;
    if (noise != nullptr)
    {
        Rng noiseRng(NoiseSeed(source, UplinkNoiseSeed(clientSeed, iteration)));
        noise->BeginIteration(r.upload.Size(), noiseRng);
        noise->PerturbOutgoing(r.upload, server, noiseRng); // + g_{p,k,i}
    }
    return r;
}

ParamVector
GflServerAverage(const std::vector<const ParamVector*>& received,
                 const std::vector<double>& weights)
{
    // psi = sum_k c_k x_k, c_k = 1/L by default   (eq. 7)
    return FedAvgAggregate(received,
                           weights.empty() ? std::vector<double>(received.size(), 1.0) : weights);
}

ParamVector
GflApplyUpdate(const ParamVector& current, const ParamVector& averageUpdate, double mu)
{
    RequireMu(mu);
    RequireSameShape(current, averageUpdate, "averageUpdate");
    if (current.GetPrecision() == Precision::Float64)
    {
        // psi = w_{p,i-1} - mu (1/L) sum_k (u_k + g_k)   (eq. 55)
        return ParamVector(
            Eigen::VectorXd(current.Get<double>() - mu * averageUpdate.Get<double>()));
    }
    return ParamVector(Eigen::VectorXf(current.Get<float>() -
                                       static_cast<float>(mu) * averageUpdate.Get<float>()));
}

bool
GflSecureAverage(const std::vector<uint32_t>& sampled,
                 const std::vector<const ParamVector*>& uploads,
                 uint32_t threshold,
                 unsigned fractionBits,
                 ParamVector& average)
{
    if (uploads.empty())
    {
        return false; // nobody advertised keys: the protocol has no one to aggregate
    }
    SecAggRule rule;
    rule.threshold = threshold;
    rule.fractionBits = fractionBits;
    // the configuration the network server announces (it checks t against |sampled| too)
    const SecAggConfig config = MakeSecAggRoundConfig(0, sampled, uploads.front()->Size(), rule, 0);
    if (uploads.size() < config.threshold)
    {
        return false; // fewer than t survivors: the protocol aborts
    }
    std::vector<Eigen::VectorXd> x;
    x.reserve(uploads.size());
    std::vector<const Eigen::VectorXd*> inputs;
    for (const ParamVector* u : uploads)
    {
        x.push_back(AsDouble(*u));
    }
    for (const auto& v : x)
    {
        inputs.push_back(&v);
    }
    const SecAggResult r = SecAggPlainSum(inputs,
                                          std::vector<uint64_t>(uploads.size(), 1),
                                          fractionBits,
                                          sampled.size());
    // psi = (1/|S|) sum_{k in S} x_k   (eq. 7 over the survivors S, as the server decodes it)
    average = FromDouble(r.Mean(), uploads.front()->GetPrecision());
    return true;
}

std::string
GflSecureAggregationGuarantee(std::size_t sampled, uint32_t threshold)
{
    std::vector<uint32_t> ids(sampled);
    for (std::size_t k = 0; k < sampled; ++k)
    {
        ids[k] = static_cast<uint32_t>(k);
    }
    SecAggRule rule;
    rule.threshold = threshold;
    return SecAggGuaranteeOf(MakeSecAggRoundConfig(0, ids, 1, rule, 0)).Text();
}

void
CheckGflSecureAggregation(const GflConfig& config)
{
    if (!config.secureAggregation)
    {
        return;
    }
    const std::size_t K = config.clientsPerServer;
    const std::size_t L = config.sampledClients == 0 ? K : std::min(config.sampledClients, K);
    if (L < 2)
    {
        throw ConfigError("sampledClients",
                          "L = " + std::to_string(L) + " with secure aggregation",
                          "sample at least 2 clients per server (the sum of one upload is the "
                          "upload), or turn secure aggregation off");
    }
    std::vector<uint32_t> ids(L);
    for (std::size_t k = 0; k < L; ++k)
    {
        ids[k] = static_cast<uint32_t>(k);
    }
    SecAggRule rule;
    rule.threshold = config.secureThreshold;
    rule.fractionBits = config.maskFractionBits;
    MakeSecAggRoundConfig(0, ids, 1, rule, 0); // t and the fraction bits against L
}

GflLocalWork
DrawGflLocalWork(std::size_t clients,
                 std::size_t eMin,
                 std::size_t eMax,
                 std::size_t bMin,
                 std::size_t bMax,
                 uint64_t seed)
{
    if (eMin == 0 || eMax < eMin)
    {
        throw ConfigError("localSteps",
                          "range [" + std::to_string(eMin) + ", " + std::to_string(eMax) +
                              "] is empty or starts at 0",
                          "use 1 <= eMin <= eMax, e.g. [1, 10]");
    }
    if (bMin == 0 || bMax < bMin)
    {
        throw ConfigError("batchSize",
                          "range [" + std::to_string(bMin) + ", " + std::to_string(bMax) +
                              "] is empty or starts at 0",
                          "use 1 <= bMin <= bMax, e.g. [5, 10]");
    }
    Rng rng(seed);
    std::uniform_int_distribution<std::size_t> e(eMin, eMax);
    std::uniform_int_distribution<std::size_t> b(bMin, bMax);
    GflLocalWork work;
    for (std::size_t c = 0; c < clients; ++c)
    {
        work.localSteps.push_back(e(rng));
        work.batchSizes.push_back(b(rng));
    }
    return work;
}

NetworkRunResult
RunGflInProcess(const LearningTask& task,
                const GflConfig& config,
                const NetworkIterationCallback& onIteration)
{
    const auto servers = static_cast<std::size_t>(config.combination.rows());
    ValidateCombinationMatrix(config.combination, servers, config.serverNoise.kind, "combination");
    const std::size_t K = config.clientsPerServer;
    if (K == 0 || task.NumClients() != servers * K)
    {
        throw ConfigError("clientsPerServer",
                          "K = " + std::to_string(K) + " with " + std::to_string(servers) +
                              " servers, but the task has " + std::to_string(task.NumClients()) +
                              " clients",
                          "build the task with P * K clients (client k of server p is p * K + k)");
    }
    const std::size_t L = config.sampledClients == 0 ? K : std::min(config.sampledClients, K);
    RequireMu(config.mu);
    if (!(config.dropoutProbability >= 0.0 && config.dropoutProbability < 1.0))
    {
        throw ConfigError("dropoutProbability",
                          "is " + std::to_string(config.dropoutProbability),
                          "use a probability in [0, 1)");
    }
    CheckGflSecureAggregation(config);
    auto perClient =
        [&](const std::vector<std::size_t>& v, std::size_t fallback, const std::string& name) {
            if (v.empty())
            {
                return std::vector<std::size_t>(task.NumClients(), fallback);
            }
            if (v.size() == 1)
            {
                return std::vector<std::size_t>(task.NumClients(), v.front());
            }
            if (v.size() != task.NumClients())
            {
                throw ConfigError(name,
                                  std::to_string(v.size()) + " values for " +
                                      std::to_string(task.NumClients()) + " clients",
                                  "give one value per client, one for all, or none");
            }
            return v;
        };
    const auto& taskTrainer = task.GetTrainerConfig();
    const auto steps = perClient(config.work.localSteps, taskTrainer.localSteps, "localSteps");
    const auto batches = perClient(config.work.batchSizes, taskTrainer.batchSize, "batchSizes");
    std::vector<LocalTrainerConfig> trainers;
    for (std::size_t c = 0; c < task.NumClients(); ++c)
    {
        trainers.push_back(GflTrainerConfig(config.mu, steps[c], batches[c], config.clipNorm));
    }
    if (config.clientNoise.kind == NodeNoiseKind::IidBroadcast ||
        config.clientNoise.kind == NodeNoiseKind::GraphHomomorphic)
    {
        throw ConfigError("clientNoise",
                          std::string("kind ") + NodeNoiseKindName(config.clientNoise.kind) +
                              " has no meaning for a client's single upload",
                          "use none or iid-per-link (noisy models / noisy updates)");
    }

    std::vector<uint64_t> serverSeeds(servers);
    std::vector<uint64_t> clientSeeds(task.NumClients());
    for (std::size_t p = 0; p < servers; ++p)
    {
        serverSeeds[p] = GflServerSeed(config.seed, static_cast<uint32_t>(p));
        for (std::size_t k = 0; k < K; ++k)
        {
            clientSeeds[p * K + k] =
                GflClientSeed(config.seed, static_cast<uint32_t>(p), static_cast<uint32_t>(k));
        }
    }
    std::vector<std::unique_ptr<Perturbation>> clientNoise;
    for (std::size_t c = 0; c < task.NumClients(); ++c)
    {
        clientNoise.push_back(config.clientNoise.kind == NodeNoiseKind::None
                                  ? nullptr
                                  : MakeNodePerturbation(config.clientNoise, 1.0, "clientNoise"));
    }
    GraphExchange exchange(config.combination,
                           config.serverNoise,
                           serverSeeds,
                           config.missingPolicy,
                           config.delivered);
    GraphPrivacyAccountant accountant = MakeGraphPrivacyAccountant(config.combination,
                                                                   config.serverNoise,
                                                                   config.mu,
                                                                   config.clipNorm,
                                                                   task.NumParameters(),
                                                                   config.delta);

    Rng initRng(InitialModelSeed(config.seed));
    const ParamVector w0 = task.InitialParameters(initRng);
    std::vector<ParamVector> models(servers, w0);
    std::vector<ParamVector> psi(servers, w0);
    NetworkRunResult result;
    ParamVector centroid;
    NetworkIterationReport report;
    report.models = &models;
    report.aggregates = &psi;
    ReportNetworkIteration(onIteration,
                           0,
                           0,
                           0,
                           &accountant,
                           models,
                           psi,
                           config.reference,
                           centroid,
                           report);
    const std::size_t perIteration = exchange.TransmissionsPerIteration();
    std::vector<GflClientResult> steps_;
    std::vector<const ParamVector*> received;
    for (uint32_t i = 1; i <= config.iterations; ++i)
    {
        std::size_t droppedNow = 0;
        for (std::size_t p = 0; p < servers; ++p)
        {
            const std::vector<uint32_t> sampled = GflSampleClients(K, L, serverSeeds[p], i);
            std::vector<uint32_t> dropped;
            steps_.clear();
            steps_.reserve(sampled.size());
            for (uint32_t k : sampled)
            {
                const std::size_t c = p * K + k;
                if (config.dropoutProbability > 0.0)
                {
                    Rng drop(GflDropoutSeed(clientSeeds[c], i));
                    if (std::uniform_real_distribution<double>(0.0, 1.0)(drop) <
                        config.dropoutProbability)
                    {
                        dropped.push_back(k);
                        continue;
                    }
                }
                steps_.push_back(GflClientStep(task,
                                               c,
                                               models[p],
                                               trainers[c],
                                               config.uplink,
                                               config.mu,
                                               clientNoise[c].get(),
                                               static_cast<uint32_t>(p),
                                               clientSeeds[c],
                                               i,
                                               config.clientNoise.source));
                result.flops += steps_.back().training.flops;
            }
            droppedNow += dropped.size();
            result.clientUploads += steps_.size();
            if (steps_.empty())
            {
                psi[p] = models[p]; // nobody uploaded: the server keeps w_{p,i-1}
                continue;
            }
            received.clear();
            for (const auto& s : steps_)
            {
                received.push_back(&s.upload);
            }
            ParamVector average;
            if (config.secureAggregation)
            {
                if (!GflSecureAverage(sampled,
                                      received,
                                      config.secureThreshold,
                                      config.maskFractionBits,
                                      average))
                {
                    // below t the protocol aborts: the server keeps w_{p,i-1} and no upload
                    // counts (as over the network)
                    droppedNow += sampled.size() - dropped.size();
                    result.clientUploads -= steps_.size();
                    psi[p] = models[p];
                    continue;
                }
            }
            else
            {
                average = GflServerAverage(received); // eq. (7)
            }
            psi[p] = config.uplink == GflUplink::Updates
                         ? GflApplyUpdate(models[p], average, config.mu)
                         : std::move(average);
        }
        // exchange with the neighbours and combine (eq. 8)
        const std::size_t lost = exchange.Step(i, psi, models);
        accountant.RecordIteration();
        result.transmissions += perIteration;
        result.lostMessages += lost;
        result.droppedClients += droppedNow;
        ReportNetworkIteration(onIteration,
                               i,
                               lost,
                               droppedNow,
                               &accountant,
                               models,
                               psi,
                               config.reference,
                               centroid,
                               report);
    }
    FinishNetworkRun(models, psi, config.reference, accountant, result);
    return result;
}

} // namespace fl
} // namespace ns3

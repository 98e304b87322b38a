/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/qffl.h"

#include "ns3/fedavg.h"
#include "ns3/fl-types.h"
#include "ns3/thread-pool.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <string>

namespace ns3
{
namespace fl
{

namespace
{

/// A ParamVector's values in float64.
Eigen::VectorXd
AsDouble(const ParamVector& v)
{
    return v.GetPrecision() == Precision::Float64 ? v.Get<double>() : v.Get<float>().cast<double>();
}

} // namespace

double
QfflLipschitz(const LocalTrainerConfig& trainer)
{
    if (trainer.stepRule != StepRule::Fixed)
    {
        throw ConfigError("stepRule",
                          "is not Fixed: q-FFL's L = 1/eta needs one local learning rate",
                          "use the Fixed step rule");
    }
    if (!(trainer.learningRate > 0.0 && std::isfinite(trainer.learningRate)))
    {
        throw ConfigError("learningRate",
                          "is " + std::to_string(trainer.learningRate),
                          "use a positive local learning rate eta (L = 1/eta)");
    }
    return 1.0 / trainer.learningRate;
}

QfflClientUpdate
QfflClientQuantities(const ParamVector& received,
                     const ParamVector& local,
                     double loss,
                     double q,
                     double lipschitz)
{
    if (received.Size() != local.Size())
    {
        throw ConfigError("local",
                          "has " + std::to_string(local.Size()) +
                              " parameters, the received "
                              "model " +
                              std::to_string(received.Size()),
                          "pass the client's model trained from the received one");
    }
    if (!(q >= 0.0 && std::isfinite(q)))
    {
        throw ConfigError("q", "is " + std::to_string(q), "use a fairness exponent q >= 0");
    }
    if (!(lipschitz > 0.0 && std::isfinite(lipschitz)))
    {
        throw ConfigError("L", "is " + std::to_string(lipschitz), "use L = 1/eta > 0");
    }
    if (!(loss >= 0.0 && std::isfinite(loss)))
    {
        throw ConfigError("loss",
                          "F_k(w^t) is " + std::to_string(loss),
                          "q-FFL needs a finite, non-negative local loss");
    }
    if (loss == 0.0 && q > 0.0 && q < 1.0)
    {
        throw ConfigError("loss",
                          "F_k(w^t) is 0 with q = " + std::to_string(q) + ": F^(q-1) is infinite",
                          "use q = 0 or q >= 1, or a task whose losses are positive");
    }
    QfflClientUpdate u;
    // L (w^t - w_bar_k)
    const Eigen::VectorXd step = lipschitz * (AsDouble(received) - AsDouble(local));
    const double fq = std::pow(loss, q); // F^q (F^0 = 1)
    u.delta = fq * step;                 // Delta_k = F^q L (w^t - w_bar_k)
    // h_k = q F^(q-1) ||L (w^t - w_bar_k)||^2 + L F^q  (the first term vanishes for q = 0)
    const double first = q == 0.0 ? 0.0 : q * std::pow(loss, q - 1.0) * step.squaredNorm();
    u.h = first + lipschitz * fq;
    return u;
}

void
QfflServerStep(ParamVector& global, const std::vector<const QfflClientUpdate*>& updates)
{
    if (updates.empty())
    {
        throw ConfigError("updates", "none", "give at least one client's Delta_k and h_k");
    }
    const auto d = static_cast<Eigen::Index>(global.Size());
    Eigen::VectorXd sumDelta = Eigen::VectorXd::Zero(d);
    double sumH = 0.0;
    for (const QfflClientUpdate* u : updates)
    {
        if (u == nullptr || u->delta.size() != d)
        {
            throw ConfigError("updates",
                              "an update's Delta_k does not have the model's " + std::to_string(d) +
                                  " entries",
                              "pass each client's QfflClientQuantities");
        }
        sumDelta += u->delta;
        sumH += u->h;
    }
    if (!(sumH > 0.0 && std::isfinite(sumH)))
    {
        throw ConfigError("h",
                          "sum of h_k is " + std::to_string(sumH),
                          "q-FFL needs sum h_k > 0 (losses and L positive)");
    }
    // w^{t+1} = w^t - sum_k Delta_k / sum_k h_k
    const Eigen::VectorXd next = AsDouble(global) - sumDelta / sumH;
    global = global.GetPrecision() == Precision::Float64
                 ? ParamVector(next)
                 : ParamVector(Eigen::VectorXf(next.cast<float>()));
}

std::vector<uint32_t>
QfflSampleClients(const std::vector<uint32_t>& clients,
                  const std::vector<double>& samples,
                  std::size_t count,
                  uint64_t seed,
                  uint32_t round)
{
    if (samples.size() != clients.size())
    {
        throw ConfigError("samples",
                          std::to_string(samples.size()) + " sample counts for " +
                              std::to_string(clients.size()) + " clients",
                          "give each eligible client's sample count n_k");
    }
    if (count == 0 || count >= clients.size())
    {
        std::vector<uint32_t> all = clients;
        std::sort(all.begin(), all.end());
        return all;
    }
    Rng rng(QfflSamplingSeed(seed, round));
    std::uniform_real_distribution<double> u01(0.0, 1.0);
    std::vector<uint32_t> chosen =
        WeightedSampleWithoutReplacement(clients, samples, count, [&]() { return u01(rng); });
    std::sort(chosen.begin(), chosen.end());
    return chosen;
}

std::vector<uint8_t>
PackQfflUpdate(const QfflClientUpdate& update)
{
    std::vector<uint8_t> bytes(8 * (static_cast<std::size_t>(update.delta.size()) + 1));
    auto put = [&bytes](std::size_t i, double v) {
        uint64_t bits = 0;
        std::memcpy(&bits, &v, 8);
        for (int b = 0; b < 8; ++b)
        {
            bytes[8 * i + b] = static_cast<uint8_t>(bits >> (8 * b)); // little-endian
        }
    };
    put(0, update.h);
    for (Eigen::Index j = 0; j < update.delta.size(); ++j)
    {
        put(static_cast<std::size_t>(j) + 1, update.delta[j]);
    }
    return bytes;
}

bool
UnpackQfflUpdate(const std::vector<uint8_t>& bytes, std::size_t d, QfflClientUpdate& out)
{
    if (bytes.size() != 8 * (d + 1))
    {
        return false;
    }
    auto get = [&bytes](std::size_t i) {
        uint64_t bits = 0;
        for (int b = 0; b < 8; ++b)
        {
            bits |= static_cast<uint64_t>(bytes[8 * i + b]) << (8 * b);
        }
        double v = 0.0;
        std::memcpy(&v, &bits, 8);
        return v;
    };
    QfflClientUpdate u;
    u.h = get(0);
    u.delta.resize(static_cast<Eigen::Index>(d));
    for (std::size_t j = 0; j < d; ++j)
    {
        u.delta[static_cast<Eigen::Index>(j)] = get(j + 1);
    }
    if (!std::isfinite(u.h) || !u.delta.allFinite())
    {
        return false;
    }
    out = std::move(u);
    return true;
}

ParamVector
RunQfflReference(const LearningTask& task, const QfflReferenceConfig& config)
{
    const std::size_t n = task.NumClients();
    if (config.clientSeeds.size() != n)
    {
        throw ConfigError("clientSeeds",
                          std::to_string(config.clientSeeds.size()) + " seeds for " +
                              std::to_string(n) + " clients",
                          "give one training seed per client");
    }
    const double lipschitz = QfflLipschitz(task.GetTrainerConfig());
    Rng initRng(config.initSeed);
    ParamVector global = task.InitialParameters(initRng);
    if (config.onRound)
    {
        config.onRound(0, global);
    }
    std::vector<uint32_t> all(n);
    std::iota(all.begin(), all.end(), 0U);
    std::vector<double> samples(n);
    for (std::size_t k = 0; k < n; ++k)
    {
        samples[k] = static_cast<double>(task.ClientSamples(k));
    }
    for (uint32_t r = 1; r <= config.rounds; ++r)
    {
        const std::vector<uint32_t> selected =
            QfflSampleClients(all, samples, config.clientsPerRound, config.initSeed, r);
        std::vector<QfflClientUpdate> updates(selected.size());
        std::vector<TrainOutcome> outs(selected.size());
        TrainingPool().ParallelFor(selected.size(), [&](std::size_t i) {
            const uint32_t k = selected[i];
            const double loss = task.ClientLoss(k, global); // F_k(w^t)
            Rng rng(DeriveSeed(config.clientSeeds[k], r));
            task.TrainClientInto(k, global, rng, outs[i]);
            updates[i] = QfflClientQuantities(global, outs[i].params, loss, config.q, lipschitz);
        });
        std::vector<const QfflClientUpdate*> ptrs;
        for (const auto& u : updates)
        {
            ptrs.push_back(&u);
        }
        QfflServerStep(global, ptrs);
        if (config.onRound)
        {
            config.onRound(r, global);
        }
    }
    return global;
}

} // namespace fl
} // namespace ns3

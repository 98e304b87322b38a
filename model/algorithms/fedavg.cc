/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/fedavg.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace ns3
{
namespace fl
{

template <typename S>
Vec<S>
WeightedAverage(const std::vector<const Vec<S>*>& models, const std::vector<double>& weights)
{
    if (models.empty())
    {
        throw ConfigError("models", "no models to average", "aggregate at least one model");
    }
    if (models.size() != weights.size())
    {
        throw ConfigError("weights",
                          std::to_string(weights.size()) + " weights for " +
                              std::to_string(models.size()) + " models",
                          "give one weight per model");
    }
    double total = 0.0;
    for (double w : weights)
    {
        if (!(w >= 0.0))
        {
            throw ConfigError("weights", "negative or NaN weight", "use sample counts >= 0");
        }
        total += w;
    }
    if (!(total > 0.0))
    {
        throw ConfigError("weights", "total weight is zero", "give at least one positive weight");
    }
    const Eigen::Index n = models.front()->size();
    Vec<S> out = Vec<S>::Zero(n);
    for (std::size_t k = 0; k < models.size(); ++k)
    {
        if (models[k]->size() != n)
        {
            throw ConfigError("models",
                              "model " + std::to_string(k) + " has " +
                                  std::to_string(models[k]->size()) + " parameters, expected " +
                                  std::to_string(n),
                              "aggregate models of one architecture");
        }
        out.noalias() += static_cast<S>(weights[k] / total) * (*models[k]);
    }
    return out;
}

ParamVector
FedAvgAggregate(const std::vector<const ParamVector*>& models, const std::vector<double>& weights)
{
    if (models.empty())
    {
        throw ConfigError("models", "no models to average", "aggregate at least one model");
    }
    const Precision p = models.front()->GetPrecision();
    if (p == Precision::Float64)
    {
        std::vector<const Vec<double>*> v;
        v.reserve(models.size());
        for (const auto* m : models)
        {
            v.push_back(&m->Get<double>());
        }
        return ParamVector(WeightedAverage<double>(v, weights));
    }
    std::vector<const Vec<float>*> v;
    v.reserve(models.size());
    for (const auto* m : models)
    {
        v.push_back(&m->Get<float>());
    }
    return ParamVector(WeightedAverage<float>(v, weights));
}

template <typename S>
void
ServerMomentumStep(Vec<S>& w, const Vec<S>& avg, Vec<S>& velocity, double beta, double eta)
{
    if (!(beta >= 0.0 && beta < 1.0))
    {
        throw ConfigError("ServerMomentum",
                          "beta = " + std::to_string(beta) + " is outside [0, 1)",
                          "use e.g. 0.9, or 0 for no momentum");
    }
    if (!(eta > 0.0))
    {
        throw ConfigError("ServerLearningRate",
                          "eta = " + std::to_string(eta) + " is not positive",
                          "use e.g. 1");
    }
    if (w.size() != avg.size())
    {
        throw ConfigError("avg",
                          "has " + std::to_string(avg.size()) + " parameters, the model " +
                              std::to_string(w.size()),
                          "average models of the global model's architecture");
    }
    if (velocity.size() == 0)
    {
        velocity = Vec<S>::Zero(w.size());
    }
    if (velocity.size() != w.size())
    {
        throw ConfigError("velocity",
                          "size differs from the model's",
                          "reset the momentum when the model changes");
    }
    velocity = static_cast<S>(beta) * velocity + (w - avg);
    w.noalias() -= static_cast<S>(eta) * velocity;
}

void
ServerMomentumStep(ParamVector& w,
                   const ParamVector& avg,
                   ParamVector& velocity,
                   double beta,
                   double eta)
{
    if (velocity.Size() == 0)
    {
        velocity = ParamVector::Zeros(w.GetPrecision(), w.Size());
    }
    if (w.GetPrecision() == Precision::Float64)
    {
        ServerMomentumStep<double>(w.Get<double>(),
                                   avg.Get<double>(),
                                   velocity.Get<double>(),
                                   beta,
                                   eta);
    }
    else
    {
        ServerMomentumStep<float>(w.Get<float>(),
                                  avg.Get<float>(),
                                  velocity.Get<float>(),
                                  beta,
                                  eta);
    }
}

double
StalenessWeight(uint32_t staleness, double exponent)
{
    if (!(exponent >= 0.0) || !std::isfinite(exponent))
    {
        throw ConfigError("StalenessExponent",
                          "= " + std::to_string(exponent) + " is negative or not finite",
                          "use 0 (no discount) or e.g. 0.5");
    }
    if (exponent == 0.0)
    {
        return 1.0;
    }
    return std::pow(1.0 + static_cast<double>(staleness), -exponent);
}

namespace
{
template <typename S>
ParamVector
Translate(const Vec<S>& w, const Vec<S>& base, const Vec<S>& current)
{
    Vec<S> out = current + (w - base);
    return ParamVector(std::move(out));
}
} // namespace

ParamVector
TranslateStaleModel(const ParamVector& clientModel,
                    const ParamVector& base,
                    const ParamVector& current)
{
    if (clientModel.GetPrecision() != base.GetPrecision() ||
        clientModel.GetPrecision() != current.GetPrecision())
    {
        throw ConfigError("clientModel",
                          "precisions of the client model, its base and the current model differ",
                          "keep every model of a run in the task's precision");
    }
    if (clientModel.Size() != base.Size() || clientModel.Size() != current.Size())
    {
        throw ConfigError("clientModel",
                          "sizes " + std::to_string(clientModel.Size()) + ", " +
                              std::to_string(base.Size()) + " and " +
                              std::to_string(current.Size()) + " differ",
                          "translate models of one architecture");
    }
    if (clientModel.GetPrecision() == Precision::Float64)
    {
        return Translate<double>(clientModel.Get<double>(),
                                 base.Get<double>(),
                                 current.Get<double>());
    }
    return Translate<float>(clientModel.Get<float>(), base.Get<float>(), current.Get<float>());
}

std::vector<uint32_t>
WeightedSampleWithoutReplacement(const std::vector<uint32_t>& pool,
                                 const std::vector<double>& weights,
                                 std::size_t count,
                                 const std::function<double()>& uniform01)
{
    if (weights.size() != pool.size())
    {
        throw ConfigError("weights",
                          "has " + std::to_string(weights.size()) + " entries for a pool of " +
                              std::to_string(pool.size()),
                          "give one weight per item");
    }
    for (double w : weights)
    {
        if (!(w >= 0.0) || !std::isfinite(w))
        {
            throw ConfigError("weights",
                              "contains " + std::to_string(w),
                              "use finite non-negative weights (e.g. sample counts)");
        }
    }
    if (count >= pool.size())
    {
        std::vector<uint32_t> all = pool;
        std::sort(all.begin(), all.end());
        return all;
    }
    std::vector<uint32_t> items = pool;
    std::vector<double> w = weights;
    std::vector<uint32_t> chosen;
    chosen.reserve(count);
    for (std::size_t i = 0; i < count; ++i)
    {
        double total = 0.0;
        for (double x : w)
        {
            total += x;
        }
        if (!(total > 0.0))
        {
            throw ConfigError("weights",
                              "all remaining items have weight 0 but " + std::to_string(count - i) +
                                  " more are needed",
                              "give every eligible item a positive weight");
        }
        const double u = uniform01() * total;
        std::size_t j = 0;
        double acc = 0.0;
        for (; j + 1 < w.size(); ++j)
        {
            acc += w[j];
            if (u < acc && w[j] > 0.0)
            {
                break;
            }
        }
        while (w[j] == 0.0) // u landed at the very end: take the last positive weight
        {
            --j;
        }
        chosen.push_back(items[j]);
        items.erase(items.begin() + static_cast<std::ptrdiff_t>(j));
        w.erase(w.begin() + static_cast<std::ptrdiff_t>(j));
    }
    std::sort(chosen.begin(), chosen.end());
    return chosen;
}

ParamVector
AggregateRound(const ParamVector& current,
               const std::vector<RoundUpdate>& updates,
               const RoundAggregationConfig& config,
               ParamVector& velocity,
               std::vector<double>* weightsOut)
{
    std::vector<const ParamVector*> models;
    std::vector<ParamVector> translated; // stale models brought to the current round
    std::vector<double> weights;
    models.reserve(updates.size());
    translated.reserve(updates.size());
    weights.reserve(updates.size());
    for (const RoundUpdate& u : updates)
    {
        if (u.model == nullptr)
        {
            throw ConfigError("updates", "an update has no model", "pass every update's model");
        }
        double weight = u.sampleCount;
        const ParamVector* model = u.model;
        if (u.staleness > 0)
        {
            if (u.base == nullptr)
            {
                throw ConfigError("updates",
                                  "a stale update has no base model",
                                  "pass the global model the client trained from");
            }
            weight *= StalenessWeight(u.staleness, config.stalenessExponent);
            translated.push_back(TranslateStaleModel(*u.model, *u.base, current));
            model = &translated.back();
        }
        models.push_back(model);
        weights.push_back(weight);
    }
    ParamVector avg = FedAvgAggregate(models, weights);
    if (weightsOut != nullptr)
    {
        *weightsOut = weights;
    }
    if (config.serverMomentum == 0.0 && config.serverLearningRate == 1.0)
    {
        return avg; // plain FedAvg, bit for bit
    }
    ParamVector w = current;
    ServerMomentumStep(w, avg, velocity, config.serverMomentum, config.serverLearningRate);
    return w;
}

std::vector<uint32_t>
SampleClients(std::vector<uint32_t> pool,
              const std::vector<double>& weights,
              std::size_t count,
              const std::function<uint32_t(uint32_t lo, uint32_t hi)>& uniformInt,
              const std::function<double()>& uniform01)
{
    const std::size_t want = (count == 0 || count >= pool.size()) ? pool.size() : count;
    if (!weights.empty() && want < pool.size())
    {
        return WeightedSampleWithoutReplacement(pool, weights, want, uniform01);
    }
    for (std::size_t i = 0; i < want && pool.size() > want; ++i)
    {
        const auto j = static_cast<std::size_t>(
            uniformInt(static_cast<uint32_t>(i), static_cast<uint32_t>(pool.size() - 1)));
        std::swap(pool[i], pool[j]);
    }
    pool.resize(want);
    std::sort(pool.begin(), pool.end());
    return pool;
}

template void ServerMomentumStep(Vec<double>&, const Vec<double>&, Vec<double>&, double, double);
template void ServerMomentumStep(Vec<float>&, const Vec<float>&, Vec<float>&, double, double);

template Vec<double> WeightedAverage(const std::vector<const Vec<double>*>&,
                                     const std::vector<double>&);
template Vec<float> WeightedAverage(const std::vector<const Vec<float>*>&,
                                    const std::vector<double>&);

} // namespace fl
} // namespace ns3

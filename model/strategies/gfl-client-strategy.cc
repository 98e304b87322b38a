/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/gfl-client-strategy.h"

#include <random>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(GflClientStrategy);

TypeId
GflClientStrategy::GetTypeId()
{
    // Created by FlGflHelper with its configuration (CreateObject<GflClientStrategy>(config)).
    static TypeId tid =
        TypeId("ns3::GflClientStrategy").SetParent<FlClientStrategy>().SetGroupName("Fl");
    return tid;
}

GflClientStrategy::GflClientStrategy()
    : GflClientStrategy(Config())
{
}

GflClientStrategy::GflClientStrategy(Config config)
    : m_config(std::move(config))
{
    if (!(m_config.mu > 0.0))
    {
        throw fl::ConfigError("mu", "is " + std::to_string(m_config.mu), "use mu > 0");
    }
    if (!(m_config.dropoutProbability >= 0.0 && m_config.dropoutProbability <= 1.0))
    {
        throw fl::ConfigError("dropoutProbability",
                              "is " + std::to_string(m_config.dropoutProbability),
                              "use a probability in [0, 1]");
    }
}

bool
GflClientStrategy::Silent(uint64_t trainingSeed, uint32_t round) const
{
    if (!(m_config.dropoutProbability > 0.0))
    {
        return false;
    }
    // the in-process runner's decision (RunGflInProcess): one engine per (client, round)
    fl::Rng drop(fl::GflDropoutSeed(trainingSeed, round));
    return std::uniform_real_distribution<double>(0.0, 1.0)(drop) < m_config.dropoutProbability;
}

bool
GflClientStrategy::Plan(const fl::LearningTask& task, uint32_t client, fl::TrainingPlan& plan) const
{
    return fl::PlanClientWith(task, client, m_config.trainer, plan);
}

FlClientStrategy::FitFunction
GflClientStrategy::MakeFit() const
{
    const Config c = m_config; // owned by the closure
    return [c](const FlFitInput& in, FlClientFit& out) {
        // E_{p,k} steps of mu / E_{p,k}, model or update uplink, client noise (gfl.h)
        fl::GflClientResult r = fl::GflClientStep(*in.task,
                                                  in.client,
                                                  *in.start,
                                                  c.trainer,
                                                  c.uplink,
                                                  c.mu,
                                                  in.perturbation,
                                                  c.server,
                                                  in.seed,
                                                  in.round,
                                                  c.noiseSource);
        out.training = std::move(r.training);
        out.upload = std::move(r.upload);
        out.ownUpload = true;
    };
}

bool
GflClientStrategy::PerturbsUpload() const
{
    return true;
}

uint64_t
GflClientStrategy::UploadWeight(const fl::LearningTask& /* task */, uint32_t /* client */) const
{
    return 1;
}

} // namespace ns3

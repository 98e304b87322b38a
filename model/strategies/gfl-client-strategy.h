/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The GFL client (E. Rizk, S. Vlaski, A. H. Sayed, "Privatized Graph Federated Learning",
 * arXiv:2203.07105, 2022, eqs. (3), (6); eq. (54) of its journal version, EURASIP J. Adv.
 * Signal Process. 2023, article 87) as a client strategy: fl::GflClientStep (E_{p,k} steps of
 * size mu / E_{p,k}, the model or the averaged update uploaded, the client noise drawn as the
 * in-process runner draws it) and the in-process dropout rule.
 */
#ifndef GFL_CLIENT_STRATEGY_H
#define GFL_CLIENT_STRATEGY_H

#include "ns3/fl-client-strategy.h"
#include "ns3/gfl.h"

namespace ns3
{

/**
 * \ingroup fl-strategies
 * The GFL client strategy (FlGflHelper installs it with CreateObject<GflClientStrategy>(config)).
 */
class GflClientStrategy : public FlClientStrategy
{
  public:
    /// What the client does.
    struct Config
    {
        fl::LocalTrainerConfig trainer;               ///< E_{p,k}, B_{p,k}, mu / E (GflTrainerConfig)
        fl::GflUplink uplink{fl::GflUplink::Models};  ///< model (eq. 7) or update (eq. 55)
        double mu{0.1};                               ///< step size
        uint32_t server{0};                           ///< the server's graph index p
        double dropoutProbability{0.0};               ///< per sampled round
        fl::NoiseSource noiseSource{fl::NoiseSource::RunSeed}; ///< the client noise's seeds
    };

    /// \return the TypeId
    static TypeId GetTypeId();
    /// Throws fl::ConfigError for mu <= 0 or a dropout probability outside [0, 1].
    explicit GflClientStrategy(Config config);
    GflClientStrategy();

    /// Dropout as in process: Rng(fl::GflDropoutSeed(trainingSeed, round)) < probability.
    bool Silent(uint64_t trainingSeed, uint32_t round) const override;
    bool Plan(const fl::LearningTask& task, uint32_t client, fl::TrainingPlan& plan) const override;
    FitFunction MakeFit() const override;
    bool PerturbsUpload() const override;
    /// 1: the GFL server averages uniformly.
    uint64_t UploadWeight(const fl::LearningTask& task, uint32_t client) const override;

  private:
    Config m_config;
};

} // namespace ns3

#endif // GFL_CLIENT_STRATEGY_H

// SPDX-License-Identifier: GPL-2.0-only
/*
 * FedAdam and FedYogi on the server (Reddi et al., "Adaptive Federated Optimization", ICLR 2021,
 * Algorithm 2), written against the installed headers only: the strategy of fedadam.cc, in a
 * header so that the strategy matrix of the module's own tests runs the same class.
 */
#ifndef FL_EXTERNAL_FEDOPT_STRATEGY_H
#define FL_EXTERNAL_FEDOPT_STRATEGY_H

#include "ns3/core-module.h"
#include "ns3/fl-module.h"

#include <Eigen/Dense>
#include <cmath>
#include <string>

namespace ns3
{

/**
 * FedAdam / FedYogi (Reddi et al., ICLR 2021, Algorithm 2) on the server: FedAvg's weighted mean
 * of the clients' models gives Delta_t, then lines 10-14. Works from the weighted sum of a
 * summing uplink step (secure aggregation) as well as from individual uploads.
 */
class FedOptStrategy : public FlServerStrategy
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("ns3::FedOptStrategy")
                .SetParent<FlServerStrategy>()
                .SetGroupName("fl")
                .AddConstructor<FedOptStrategy>()
                .AddAttribute("Variant",
                              "adam (FedAdam, Algorithm 2 line 13) or yogi (FedYogi, line 12).",
                              StringValue("adam"),
                              MakeStringAccessor(&FedOptStrategy::m_variant),
                              MakeStringChecker())
                .AddAttribute("Eta",
                              "Server learning rate eta (line 14), > 0.",
                              DoubleValue(0.1),
                              MakeDoubleAccessor(&FedOptStrategy::m_eta),
                              MakeDoubleChecker<double>())
                .AddAttribute("Beta1",
                              "First-moment decay beta1 in [0, 1) (line 10).",
                              DoubleValue(0.9),
                              MakeDoubleAccessor(&FedOptStrategy::m_beta1),
                              MakeDoubleChecker<double>())
                .AddAttribute("Beta2",
                              "Second-moment decay beta2 in [0, 1) (lines 12, 13).",
                              DoubleValue(0.99),
                              MakeDoubleAccessor(&FedOptStrategy::m_beta2),
                              MakeDoubleChecker<double>())
                .AddAttribute("Tau",
                              "Adaptivity tau > 0 (line 14); v_{-1} = tau^2.",
                              DoubleValue(1e-3),
                              MakeDoubleAccessor(&FedOptStrategy::m_tau),
                              MakeDoubleChecker<double>());
        return tid;
    }

    FlStrategyTraits Traits(std::size_t /* numParameters */) const override
    {
        FlStrategyTraits t;
        t.individualUpdates = false; // the weighted mean is enough: composes with secure sums
        t.staleUpdates = false;      // Delta_t is the update of the current round's model
        return t;
    }

    void Start(const FlStrategySetup& setup) override
    {
        if (m_variant != "adam" && m_variant != "yogi")
        {
            throw fl::ConfigError("Variant", "is '" + m_variant + "'", "use adam or yogi");
        }
        if (!(m_eta > 0.0) || !std::isfinite(m_eta))
        {
            throw fl::ConfigError("Eta", "must be a finite number > 0", "pass e.g. Eta=0.1");
        }
        if (!(m_beta1 >= 0.0 && m_beta1 < 1.0) || !(m_beta2 >= 0.0 && m_beta2 < 1.0))
        {
            throw fl::ConfigError("Beta1/Beta2", "must lie in [0, 1)", "use e.g. 0.9 and 0.99");
        }
        if (!(m_tau > 0.0) || !std::isfinite(m_tau))
        {
            throw fl::ConfigError("Tau", "must be a finite number > 0", "pass e.g. Tau=1e-3");
        }
        const auto d = static_cast<Eigen::Index>(setup.numParameters);
        m_m = Eigen::VectorXd::Zero(d);                    // m_{-1} = 0
        m_v = Eigen::VectorXd::Constant(d, m_tau * m_tau); // v_{-1} = tau^2
    }

    bool Aggregate(const Context& /* ctx */,
                   const FlAggregationInput& in,
                   fl::ParamVector& model,
                   std::vector<double>& weights) override
    {
        const Eigen::VectorXd x = model.ConvertedTo(fl::Precision::Float64).Get<double>();
        const Eigen::VectorXd delta = in.WeightedMean() - x; // line 9 (weighted by n_k)
        const Eigen::ArrayXd d2 = delta.array().square();
        m_m = m_beta1 * m_m + (1.0 - m_beta1) * delta; // line 10
        if (m_variant == "yogi")
        {
            m_v.array() -= (1.0 - m_beta2) * d2 * (m_v.array() - d2).sign(); // line 12
        }
        else
        {
            m_v = m_beta2 * m_v + (1.0 - m_beta2) * d2.matrix(); // line 13
        }
        const Eigen::VectorXd next =
            x.array() + m_eta * m_m.array() / (m_v.array().sqrt() + m_tau); // line 14
        model = fl::ParamVector(next).ConvertedTo(model.GetPrecision());
        weights.clear();
        if (!in.IsSum())
        {
            for (const auto& u : in.updates)
            {
                weights.push_back(u.sampleCount);
            }
        }
        return true;
    }

  private:
    std::string m_variant{"adam"};
    double m_eta{0.1};
    double m_beta1{0.9};
    double m_beta2{0.99};
    double m_tau{1e-3};
    Eigen::VectorXd m_m; ///< m_t
    Eigen::VectorXd m_v; ///< v_t
};

NS_OBJECT_ENSURE_REGISTERED(FedOptStrategy);

} // namespace ns3

#endif // FL_EXTERNAL_FEDOPT_STRATEGY_H

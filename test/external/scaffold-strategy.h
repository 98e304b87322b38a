// SPDX-License-Identifier: GPL-2.0-only
/*
 * SCAFFOLD with option II control variates (Karimireddy et al., "SCAFFOLD: Stochastic Controlled
 * Averaging for Federated Learning", ICML 2020, Algorithm 1), written against the installed
 * headers only: the strategy pair of scaffold.cc, in a header so that the strategy matrix of the
 * module's own tests runs the same classes.
 */
#ifndef FL_EXTERNAL_SCAFFOLD_STRATEGY_H
#define FL_EXTERNAL_SCAFFOLD_STRATEGY_H

#include "ns3/core-module.h"
#include "ns3/fl-module.h"

#include <Eigen/Dense>
#include <cmath>
#include <memory>
#include <mutex>

namespace ns3
{

namespace scaffold
{

inline Eigen::VectorXd
ToDouble(const fl::ParamVector& v)
{
    return v.ConvertedTo(fl::Precision::Float64).Get<double>();
}

} // namespace scaffold

/**
 * The server half of SCAFFOLD (Algorithm 1, lines 16-17): attaches c to the model, and turns the
 * mean of the clients' [Delta y; Delta c] into x and c. The ControlVariate trace reports c after
 * every aggregation.
 */
class ScaffoldServerStrategy : public FlServerStrategy
{
  public:
    /// Signature of the ControlVariate trace: the round and the server's c after it.
    typedef void (*ControlVariateCallback)(uint32_t round, const fl::ParamVector& c);

    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("ns3::ScaffoldServerStrategy")
                .SetParent<FlServerStrategy>()
                .SetGroupName("fl")
                .AddConstructor<ScaffoldServerStrategy>()
                .AddAttribute("GlobalLearningRate",
                              "The global step size eta_g (Algorithm 1 line 17), > 0.",
                              DoubleValue(1.0),
                              MakeDoubleAccessor(&ScaffoldServerStrategy::m_etaG),
                              MakeDoubleChecker<double>())
                .AddTraceSource("ControlVariate",
                                "The server control variate c after a round's aggregation.",
                                MakeTraceSourceAccessor(&ScaffoldServerStrategy::m_cTrace),
                                "ns3::ScaffoldServerStrategy::ControlVariateCallback");
        return tid;
    }

    FlStrategyTraits Traits(std::size_t numParameters) const override
    {
        FlStrategyTraits t;
        t.uploadValues = 2 * numParameters; // [Delta y_i; Delta c_i]
        t.attachmentValues = numParameters; // c, with the model
        t.individualUpdates = false;        // the mean is enough: composes with secure sums
        t.staleUpdates = false;             // Delta y_i is relative to this round's x
        return t;
    }

    void Start(const FlStrategySetup& setup) override
    {
        if (!(m_etaG > 0.0) || !std::isfinite(m_etaG))
        {
            throw fl::ConfigError("GlobalLearningRate",
                                  "must be a finite number > 0",
                                  "pass e.g. GlobalLearningRate=1");
        }
        m_d = static_cast<Eigen::Index>(setup.numParameters);
        m_c = Eigen::VectorXd::Zero(m_d); // c = 0 (line 2's initialisation)
    }

    void ConfigureRound(const Context& /* ctx */,
                        const std::vector<uint32_t>& /* selected */,
                        FlRoundConfig& config) override
    {
        config.attachment = fl::ParamVector(m_c); // (x, c) go to the sampled clients (line 6)
    }

    bool Aggregate(const Context& ctx,
                   const FlAggregationInput& in,
                   fl::ParamVector& model,
                   std::vector<double>& weights) override
    {
        // line 16: the uniform mean over S of the clients' [Delta y_i; Delta c_i] (their upload
        // weight is 1, for individual uploads and a secure sum alike)
        const Eigen::VectorXd mean = in.WeightedMean();
        weights.assign(in.clients.size(), 1.0);
        const double sampled = static_cast<double>(in.clients.size());  // |S|
        const double all = static_cast<double>(Port().roster().size()); // N
        Eigen::VectorXd x = scaffold::ToDouble(model);
        x += m_etaG * mean.head(m_d);            // line 17: x <- x + eta_g Delta x
        m_c += (sampled / all) * mean.tail(m_d); // line 17: c <- c + |S|/N Delta c
        model = fl::ParamVector(x).ConvertedTo(model.GetPrecision());
        m_cTrace(ctx.round, fl::ParamVector(m_c));
        return true;
    }

  private:
    double m_etaG{1.0};
    Eigen::Index m_d{0};
    Eigen::VectorXd m_c; ///< c
    TracedCallback<uint32_t, const fl::ParamVector&> m_cTrace;
};

NS_OBJECT_ENSURE_REGISTERED(ScaffoldServerStrategy);

/**
 * The client half of SCAFFOLD (Algorithm 1, lines 7-14, option II): K local steps with the
 * gradient corrected by c - c_i, then c_i^+ and the upload [y_i - x; c_i^+ - c_i]. Keeps c_i.
 */
class ScaffoldClientStrategy : public FlClientStrategy
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::ScaffoldClientStrategy")
                                .SetParent<FlClientStrategy>()
                                .SetGroupName("fl")
                                .AddConstructor<ScaffoldClientStrategy>();
        return tid;
    }

    std::size_t UploadValues(std::size_t numParameters) const override
    {
        return 2 * numParameters;
    }

    std::size_t AttachmentValues(std::size_t numParameters) const override
    {
        return numParameters;
    }

    uint64_t UploadWeight(const fl::LearningTask& /* task */, uint32_t /* client */) const override
    {
        return 1; // line 16 is the uniform mean over S
    }

    void Start(const fl::LearningTask& task,
               uint32_t /* client */,
               bool /* hasUplinkStep */) override
    {
        const fl::LocalTrainerConfig& t = task.GetTrainerConfig();
        if (t.stepRule != fl::StepRule::Fixed || t.proxMu != 0.0 || t.clipNorm != 0.0 ||
            t.gradientHook)
        {
            throw fl::ConfigError("trainer",
                                  "SCAFFOLD's option II needs K plain steps of size eta_l",
                                  "use a fixed step rule, no proximal term, no clipping");
        }
    }

    bool Plan(const fl::LearningTask& task, uint32_t client, fl::TrainingPlan& plan) const override
    {
        // the gradient hook changes no step count: the plan is the task's own
        return fl::PlanClientWith(task, client, task.GetTrainerConfig(), plan);
    }

    FitFunction MakeFit() const override
    {
        // c_i lives in a record the fit shares with the strategy (the fit may run on a thread
        // of the training pool): read before training, replaced by c_i^+ when the upload leaves.
        std::shared_ptr<State> state = m_state;
        return [state](const FlFitInput& in, FlClientFit& out) {
            const Eigen::VectorXd x = scaffold::ToDouble(*in.start);
            const auto d = x.size();
            const Eigen::VectorXd c = scaffold::ToDouble(*in.attachment);
            Eigen::VectorXd ci;
            {
                std::lock_guard<std::mutex> lock(state->mutex);
                if (state->ci.size() != d)
                {
                    state->ci = Eigen::VectorXd::Zero(d); // c_i = 0 before its first round
                }
                ci = state->ci;
            }
            fl::LocalTrainerConfig config = in.task->GetTrainerConfig();
            config.gradientHook = std::make_shared<fl::GradientShift>(c - ci); // line 10
            fl::Rng rng(fl::DeriveSeed(in.seed, in.round));
            out.training = fl::TrainClientWith(*in.task, in.client, *in.start, config, rng);
            const Eigen::VectorXd y = scaffold::ToDouble(out.training.params);
            const double k = static_cast<double>(out.training.steps);
            const Eigen::VectorXd ciPlus = ci - c + (x - y) / (k * config.learningRate); // line 12
            Eigen::VectorXd upload(2 * d);
            upload << y - x, ciPlus - ci; // line 13
            out.upload = fl::ParamVector(upload).ConvertedTo(in.start->GetPrecision());
            out.ownUpload = true;
            // line 14, once the upload has left (a discarded training changes nothing)
            out.onUploadSent = [state, ciPlus]() {
                std::lock_guard<std::mutex> lock(state->mutex);
                state->ci = ciPlus;
            };
        };
    }

  private:
    /// c_i.
    struct State
    {
        std::mutex mutex;
        Eigen::VectorXd ci;
    };

    std::shared_ptr<State> m_state{std::make_shared<State>()};
};

NS_OBJECT_ENSURE_REGISTERED(ScaffoldClientStrategy);

} // namespace ns3

#endif // FL_EXTERNAL_SCAFFOLD_STRATEGY_H

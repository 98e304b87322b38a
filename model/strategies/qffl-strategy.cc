/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/qffl-strategy.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("QfflStrategy");
NS_OBJECT_ENSURE_REGISTERED(QfflServerStrategy);
NS_OBJECT_ENSURE_REGISTERED(QfflClientStrategy);

TypeId
QfflServerStrategy::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::QfflServerStrategy")
            .SetParent<FlServerStrategy>()
            .SetGroupName("Fl")
            .AddConstructor<QfflServerStrategy>()
            .AddAttribute("ClientsPerRound",
                          "|S_t|: clients drawn per round with probabilities proportional to "
                          "their sample counts (Li et al., ICLR 2020, Algorithm 2); 0 = every "
                          "eligible client. The server's own ClientsPerRound is not used.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&QfflServerStrategy::m_clientsPerRound),
                          MakeUintegerChecker<uint32_t>());
    return tid;
}

QfflServerStrategy::QfflServerStrategy() = default;

FlStrategyTraits
QfflServerStrategy::Traits(std::size_t numParameters) const
{
    FlStrategyTraits t;
    t.rawUploads = true;                  // fl::PackQfflUpdate: h_k and Delta_k in float64
    t.uploadValues = numParameters + 1;   // [Delta_k; h_k] through an uplink step
    t.staleUpdates = false; // Algorithm 2 steps from Delta_k and h_k of the current model
    return t;
}

void
QfflServerStrategy::Start(const FlStrategySetup& setup)
{
    m_parameters = setup.numParameters;
}

bool
QfflServerStrategy::SelectClients(uint32_t round,
                                  const std::vector<uint32_t>& eligible,
                                  std::vector<uint32_t>& selected)
{
    // S_t with p_k = n_k / n (Algorithm 2), from the server's seed as in process
    std::vector<double> samples;
    for (uint32_t k : eligible)
    {
        samples.push_back(static_cast<double>(Port().sampleCount(k)));
    }
    try
    {
        selected =
            fl::QfflSampleClients(eligible, samples, m_clientsPerRound, Port().seed(), round);
    }
    catch (const fl::ConfigError& e)
    {
        fl::ExitOnConfigError("QfflServerStrategy", e);
    }
    return true;
}

bool
QfflServerStrategy::Aggregate(const Context& /* ctx */,
                              const FlAggregationInput& in,
                              fl::ParamVector& model,
                              std::vector<double>& weights)
{
    if (in.IsSum())
    {
        const Eigen::VectorXd& sum = *in.sum;
        const auto d = static_cast<Eigen::Index>(model.Size());
        if (sum.size() != d + 1 || !(sum[d] > 0.0) || !sum.allFinite())
        {
            return false;
        }
        // the step's sum is [sum Delta_k; sum h_k]: one step from the sums
        fl::QfflClientUpdate total;
        total.delta = sum.head(d);
        total.h = sum[d];
        fl::QfflServerStep(model, {&total});
        weights.assign(in.clients.size(), 1.0);
        return true;
    }
    weights.assign(in.clients.size(), std::numeric_limits<double>::quiet_NaN());
    std::vector<fl::QfflClientUpdate> updates(in.clients.size());
    std::vector<const fl::QfflClientUpdate*> used;
    for (std::size_t i = 0; i < in.clients.size(); ++i)
    {
        if (!fl::UnpackQfflUpdate(*in.payloads[i], model.Size(), updates[i]))
        {
            NS_LOG_WARN("client " << in.clients[i] << ": malformed q-FFL upload of "
                                  << in.payloads[i]->size() << " bytes, left out");
            continue;
        }
        weights[i] = updates[i].h;
        used.push_back(&updates[i]);
    }
    if (used.empty())
    {
        return false;
    }
    try
    {
        fl::QfflServerStep(model, used); // w <- w - sum Delta_k / sum h_k
    }
    catch (const fl::ConfigError& e)
    {
        fl::ExitOnConfigError("QfflServerStrategy", e);
    }
    return true;
}

TypeId
QfflClientStrategy::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::QfflClientStrategy")
            .SetParent<FlClientStrategy>()
            .SetGroupName("Fl")
            .AddConstructor<QfflClientStrategy>()
            .AddAttribute("Q",
                          "Fairness exponent q >= 0 of q-FFL (Li et al., ICLR 2020); q = 0 is "
                          "FedAvg with clients sampled in proportion to their sample counts.",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&QfflClientStrategy::m_q),
                          MakeDoubleChecker<double>(0.0));
    return tid;
}

QfflClientStrategy::QfflClientStrategy() = default;

void
QfflClientStrategy::Start(const fl::LearningTask& task,
                          uint32_t /* client */,
                          bool /* hasUplinkStep */)
{
    fl::QfflLipschitz(task.GetTrainerConfig()); // throws unless the step rule is Fixed
}

FlClientStrategy::FitFunction
QfflClientStrategy::MakeFit() const
{
    const double q = m_q;
    return [q](const FlFitInput& in, FlClientFit& out) {
        if (in.perturbation != nullptr)
        {
            throw fl::ConfigError("SetUplinkPerturbation",
                                  "with q-FFL: h_k carries the client's loss unperturbed and no "
                                  "privacy accounting covers it",
                                  "run q-FFL without uplink noise");
        }
        const fl::LearningTask& task = *in.task;
        const fl::ParamVector& start = *in.start;
        const double loss = task.ClientLoss(in.client, start); // F_k(w^t), at the received model
        fl::Rng rng(fl::DeriveSeed(in.seed, in.round));
        task.TrainClientInto(in.client, start, rng, out.training);
        const fl::QfflClientUpdate u =
            fl::QfflClientQuantities(start,
                                     out.training.params,
                                     loss,
                                     q,
                                     fl::QfflLipschitz(task.GetTrainerConfig()));
        Eigen::VectorXd values(u.delta.size() + 1);
        values << u.delta, u.h; // [Delta_k; h_k]: what an uplink step sums
        out.upload = fl::ParamVector(std::move(values));
        out.ownUpload = true;
        out.raw = fl::PackQfflUpdate(u); // sent as is without an uplink step
    };
}

bool
QfflClientStrategy::PerturbsUpload() const
{
    return true; // the fit gets the perturbation, and refuses it
}

uint64_t
QfflClientStrategy::UploadWeight(const fl::LearningTask& /* task */, uint32_t /* client */) const
{
    return 1; // the step sums [Delta_k; h_k] unweighted
}

std::size_t
QfflClientStrategy::UploadValues(std::size_t numParameters) const
{
    return numParameters + 1;
}

} // namespace ns3

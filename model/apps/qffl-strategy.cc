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

void
QfflServerStrategy::Start(std::size_t numParameters, bool acceptsStale, bool /* hasUplinkStep */)
{
    if (acceptsStale)
    {
        throw fl::ConfigError("StragglerPolicy",
                              "accept with q-FFL",
                              "use drop: Algorithm 2 steps from the clients' Delta_k and h_k of "
                              "the current model");
    }
    m_parameters = numParameters;
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
QfflServerStrategy::RawUploads() const
{
    return true;
}

uint32_t
QfflServerStrategy::AggregatePayloads(const Context& /* ctx */,
                                      const std::vector<uint32_t>& clients,
                                      const std::vector<const std::vector<uint8_t>*>& payloads,
                                      fl::ParamVector& model,
                                      std::vector<double>& weights)
{
    weights.assign(clients.size(), std::numeric_limits<double>::quiet_NaN());
    std::vector<fl::QfflClientUpdate> updates(clients.size());
    std::vector<const fl::QfflClientUpdate*> used;
    for (std::size_t i = 0; i < clients.size(); ++i)
    {
        if (!fl::UnpackQfflUpdate(*payloads[i], model.Size(), updates[i]))
        {
            NS_LOG_WARN("client " << clients[i] << ": malformed q-FFL upload of "
                                  << payloads[i]->size() << " bytes, left out");
            continue;
        }
        weights[i] = updates[i].h;
        used.push_back(&updates[i]);
    }
    if (used.empty())
    {
        return 0;
    }
    try
    {
        fl::QfflServerStep(model, used); // w <- w - sum Delta_k / sum h_k
    }
    catch (const fl::ConfigError& e)
    {
        fl::ExitOnConfigError("QfflServerStrategy", e);
    }
    return static_cast<uint32_t>(used.size());
}

bool
QfflServerStrategy::AggregatePayloadSum(const Context& /* ctx */,
                                        const Eigen::VectorXd& sum,
                                        const std::vector<uint32_t>& participants,
                                        fl::ParamVector& model,
                                        std::vector<double>& weights)
{
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
    weights.assign(participants.size(), 1.0);
    return true;
}

std::size_t
QfflServerStrategy::UplinkStepSize(std::size_t numParameters) const
{
    return numParameters + 1; // [Delta_k; h_k]
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
    return [q](const fl::LearningTask& task,
               uint32_t client,
               const fl::ParamVector& start,
               uint64_t seed,
               uint32_t round,
               fl::Perturbation* perturbation,
               FlClientFit& out) {
        if (perturbation != nullptr)
        {
            throw fl::ConfigError("SetUplinkPerturbation",
                                  "with q-FFL: h_k carries the client's loss unperturbed and no "
                                  "privacy accounting covers it",
                                  "run q-FFL without uplink noise");
        }
        const double loss = task.ClientLoss(client, start); // F_k(w^t), at the received model
        fl::Rng rng(fl::DeriveSeed(seed, round));
        task.TrainClientInto(client, start, rng, out.training);
        const fl::QfflClientUpdate u =
            fl::QfflClientQuantities(start,
                                     out.training.params,
                                     loss,
                                     q,
                                     fl::QfflLipschitz(task.GetTrainerConfig()));
        Eigen::VectorXd values(u.delta.size() + 1);
        values << u.delta, u.h; // [Delta_k; h_k]
        out.upload = fl::ParamVector(std::move(values));
        out.ownUpload = true;
    };
}

bool
QfflClientStrategy::PerturbsUpload() const
{
    return true; // the fit gets the perturbation, and refuses it
}

bool
QfflClientStrategy::PhasesBeforeUpload() const
{
    return true; // the upload is raw: UploadReady sends it
}

void
QfflClientStrategy::UploadReady(const fl::LearningTask& /* task */,
                                uint32_t /* client */,
                                uint32_t round,
                                const fl::ParamVector& /* received */,
                                const fl::ParamVector& upload,
                                double /* meanLoss */)
{
    if (Port().hasUplinkStep())
    {
        Port().uplinkStepUpload(round, upload, 1); // the step sums [Delta_k; h_k]
        return;
    }
    const Eigen::VectorXd& values = upload.Get<double>();
    fl::QfflClientUpdate u;
    u.delta = values.head(values.size() - 1);
    u.h = values[values.size() - 1];
    Port().uploadRaw(round, fl::PackQfflUpdate(u));
}

std::size_t
QfflClientStrategy::UplinkStepSize(std::size_t numParameters) const
{
    return numParameters + 1;
}

} // namespace ns3

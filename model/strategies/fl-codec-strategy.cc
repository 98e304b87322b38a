/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/fl-codec-strategy.h"

#include "ns3/double.h"
#include "ns3/fatal-error.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <chrono>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlCodecStrategy");
NS_OBJECT_ENSURE_REGISTERED(CodecServerStrategy);
NS_OBJECT_ENSURE_REGISTERED(CodecClientStrategy);

TypeId
CodecServerStrategy::GetTypeId()
{
    static TypeId tid = TypeId("ns3::CodecServerStrategy")
                            .SetParent<FlServerStrategy>()
                            .SetGroupName("Fl")
                            .AddConstructor<CodecServerStrategy>();
    return tid;
}

CodecServerStrategy::CodecServerStrategy() = default;

void
CodecServerStrategy::SetCodec(std::shared_ptr<const fl::UplinkCodec> codec)
{
    m_codec = std::move(codec);
}

std::shared_ptr<const fl::UplinkCodec>
CodecServerStrategy::GetCodec() const
{
    return m_codec;
}

FlStrategyTraits
CodecServerStrategy::Traits(std::size_t numParameters) const
{
    FlStrategyTraits t;
    t.rawUploads = true; // codec payloads
    const std::size_t sumSize = m_codec ? m_codec->SumSize(numParameters) : 0;
    t.uploadValues = sumSize != 0 ? sumSize : numParameters; // what an uplink step carries
    t.individualUpdates = sumSize == 0; // payloads that do not add need each client's
    t.staleUpdates = false; // a late payload was encoded for another round's parameters
    return t;
}

void
CodecServerStrategy::Start(const FlStrategySetup& setup)
{
    const std::size_t numParameters = setup.numParameters;
    const bool acceptsStale = setup.acceptsStale;
    const bool hasUplinkStep = setup.hasUplinkStep;
    if (!m_codec)
    {
        throw fl::ConfigError("CodecServerStrategy",
                              "no uplink codec",
                              "call SetCodec, or FlFedAvgHelper::SetUplinkCodec");
    }
    if (acceptsStale)
    {
        throw fl::ConfigError("StragglerPolicy",
                              "accept with the uplink codec " + m_codec->Name(),
                              "use drop: a late payload was encoded for another round's "
                              "parameters");
    }
    if (hasUplinkStep && m_codec->SumSize(numParameters) == 0)
    {
        throw fl::ConfigError("CodecServerStrategy",
                              "an uplink step delivers only sums, and the payloads of the uplink "
                              "codec " +
                                  m_codec->Name() + " do not add",
                              "use a codec with a sum path, or one of the two");
    }
}

void
CodecServerStrategy::ConfigureRound(const Context& ctx,
                                    const std::vector<uint32_t>& /* selected */,
                                    FlRoundConfig& /* config */)
{
    m_round = ctx.round;
    m_reports.clear();
    m_params = fl::UplinkRoundParams();
    m_agreedAt = Time();
}

FlPhaseHooks::Verdict
CodecServerStrategy::PhaseMessage(const Context& /* ctx */,
                                  uint32_t client,
                                  uint32_t tag,
                                  const std::vector<uint8_t>& bytes)
{
    if (tag != fl::kUplinkReportTag || m_reports.count(client) != 0)
    {
        return Verdict::Unexpected;
    }
    fl::UplinkReport r;
    r.client = client;
    if (!fl::UnpackUplinkReport(bytes, r))
    {
        return Verdict::Malformed;
    }
    m_reports[client] = r;
    return Verdict::Accepted;
}

bool
CodecServerStrategy::PhasesDone(const Context& ctx,
                                const std::vector<uint32_t>& waiting,
                                bool deadlineHit,
                                std::vector<uint32_t>& uploaders)
{
    uploaders.clear();
    if (!deadlineHit && m_reports.size() < waiting.size())
    {
        return false;
    }
    if (m_reports.empty())
    {
        return true; // nobody reported: an empty round
    }
    std::vector<fl::UplinkReport> reports;
    for (const auto& kv : m_reports)
    {
        reports.push_back(kv.second);
        uploaders.push_back(kv.first);
    }
    m_params = m_codec->Agree(reports);
    m_agreedAt = Simulator::Now();
    const std::vector<uint8_t> bytes = m_params.Pack();
    for (uint32_t client : uploaders)
    {
        Port().sendControl(client, ctx.round, fl::kUplinkParamsTag, bytes);
    }
    return true;
}

void
CodecServerStrategy::ClientLeft(uint32_t client)
{
    m_reports.erase(client); // the round no longer waits for its report or payload
}

void
CodecServerStrategy::DescribeRound(FlRoundReport& report) const
{
    if (report.round != m_round)
    {
        return;
    }
    report.codecReports = static_cast<uint32_t>(m_reports.size());
    report.agreed = m_agreedAt;
    report.codecScale = m_params.scale;
}

bool
CodecServerStrategy::Aggregate(const Context& ctx,
                               const FlAggregationInput& in,
                               fl::ParamVector& model,
                               std::vector<double>& weights)
{
    if (in.IsSum())
    {
        // the codec's sum path: the step's sum of the participants' payload values
        double total = 0.0;
        weights.clear();
        for (uint32_t client : in.clients)
        {
            auto rep = m_reports.find(client);
            weights.push_back(rep != m_reports.end() ? rep->second.weight : 0.0);
            total += weights.back();
        }
        auto agg = m_codec->Begin(m_params, model.Size(), model.GetPrecision());
        if (!agg->AddSum(*in.sum, in.clients, total))
        {
            return false;
        }
        fl::Rng rng(fl::UplinkDecodeSeed(Port().seed(), ctx.round));
        fl::AddInPlace(model, agg->Finish(rng));
        return true;
    }
    // payloads added in client order, decoded once
    auto agg = m_codec->Begin(m_params, model.Size(), model.GetPrecision());
    weights.assign(in.clients.size(), std::numeric_limits<double>::quiet_NaN());
    for (std::size_t i = 0; i < in.clients.size(); ++i)
    {
        auto rep = m_reports.find(in.clients[i]);
        if (rep == m_reports.end())
        {
            continue; // no report, no parameters: not a payload of this round
        }
        const double weight = rep->second.weight;
        if (agg->Add(in.clients[i], *in.payloads[i], weight))
        {
            weights[i] = weight;
        }
    }
    if (agg->Count() == 0)
    {
        return false;
    }
    fl::Rng rng(fl::UplinkDecodeSeed(Port().seed(), ctx.round));
    fl::AddInPlace(model, agg->Finish(rng));
    return true;
}

TypeId
CodecClientStrategy::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CodecClientStrategy")
            .SetParent<FlClientStrategy>()
            .SetGroupName("Fl")
            .AddConstructor<CodecClientStrategy>()
            .AddAttribute("LossWeightExponent",
                          "Exponent q of loss-weighted FedAvg: the client's aggregation weight "
                          "is samples x (mean training loss)^q (0 = FedAvg's sample count). "
                          "This is the EGA paper's client importance lambda_i, not q-FFL "
                          "(Li et al., ICLR 2020; see QfflServerStrategy).",
                          DoubleValue(0.0),
                          MakeDoubleAccessor(&CodecClientStrategy::m_lossWeightExponent),
                          MakeDoubleChecker<double>(0.0, 100.0));
    return tid;
}

CodecClientStrategy::CodecClientStrategy() = default;

void
CodecClientStrategy::SetCodec(std::shared_ptr<const fl::UplinkCodec> codec)
{
    m_codec = std::move(codec);
}

double
CodecClientStrategy::GetEncodeSeconds() const
{
    return m_encodeSeconds;
}

uint32_t
CodecClientStrategy::GetUploads() const
{
    return m_uploads;
}

void
CodecClientStrategy::Start(const fl::LearningTask& task, uint32_t client, bool hasUplinkStep)
{
    if (!m_codec)
    {
        throw fl::ConfigError("CodecClientStrategy",
                              "no uplink codec",
                              "call SetCodec, or FlFedAvgHelper::SetUplinkCodec");
    }
    m_client = client;
    m_parameters = task.NumParameters();
    if (hasUplinkStep && m_codec->SumSize(m_parameters) == 0)
    {
        throw fl::ConfigError("CodecClientStrategy",
                              "an uplink step delivers only sums, and the payloads of the uplink "
                              "codec " +
                                  m_codec->Name() + " do not add",
                              "use a codec with a sum path, or one of the two");
    }
}

bool
CodecClientStrategy::PhasesBeforeUpload() const
{
    return true;
}

void
CodecClientStrategy::UploadReady(const fl::LearningTask& task,
                                 uint32_t client,
                                 uint32_t round,
                                 const fl::ParamVector& received,
                                 const fl::ParamVector& upload,
                                 double meanLoss)
{
    // Phase 1: report the statistic and the weight; the payload follows the parameters.
    m_delta = fl::Difference(upload, received);
    m_weight = fl::UplinkClientWeight(static_cast<double>(task.ClientSamples(client)),
                                      meanLoss,
                                      m_lossWeightExponent);
    fl::UplinkReport r;
    r.statistic = m_codec->Statistic(m_delta);
    r.weight = m_weight;
    m_round = round;
    Port().sendControl(round, fl::kUplinkReportTag, fl::PackUplinkReport(r));
}

bool
CodecClientStrategy::Receive(uint32_t round, uint32_t tag, const std::vector<uint8_t>& bytes)
{
    if (tag != fl::kUplinkParamsTag)
    {
        return false;
    }
    fl::UplinkRoundParams params;
    if (m_round == 0 || round != m_round || !fl::UplinkRoundParams::Unpack(bytes, params))
    {
        Port().unexpected();
        return true;
    }
    m_round = 0;
    // Phase 2: the payload under the agreed parameters.
    fl::Rng rng(fl::UplinkEncodeSeed(Port().trainingSeed(), round));
    std::vector<uint8_t> payload;
    const auto t0 = std::chrono::steady_clock::now();
    try
    {
        payload = m_codec->Encode(m_delta, params, m_client, m_weight, rng);
    }
    catch (const fl::ConfigError& e)
    {
        fl::ExitOnConfigError("CodecClientStrategy", e);
    }
    m_encodeSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ++m_uploads;
    if (Port().hasUplinkStep())
    {
        // The codec's sum path: the step sends what it makes of the payload values (weight 1:
        // the client's weight is inside them), the server gets their sum.
        Eigen::VectorXd values;
        if (!m_codec->PayloadValues(payload, m_parameters, values))
        {
            NS_FATAL_ERROR("CodecClientStrategy: the uplink codec "
                           << m_codec->Name() << " gave no values for its own payload");
        }
        Port().uplinkStepUpload(round, fl::ParamVector(std::move(values)), 1);
        return true;
    }
    Port().uploadRaw(round, payload);
    return true;
}

void
CodecClientStrategy::Superseded()
{
    m_round = 0; // a newer model supersedes a report still waiting for parameters
}

std::size_t
CodecClientStrategy::UploadValues(std::size_t numParameters) const
{
    return m_codec ? m_codec->SumSize(numParameters) : numParameters;
}

} // namespace ns3

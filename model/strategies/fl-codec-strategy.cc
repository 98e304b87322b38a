/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/fl-codec-strategy.h"

#include "ns3/boolean.h"
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
    static TypeId tid =
        TypeId("ns3::CodecServerStrategy")
            .SetParent<FlServerStrategy>()
            .SetGroupName("Fl")
            .AddConstructor<CodecServerStrategy>()
            .AddAttribute("UploadIsModel",
                          "Whether the clients' uploads are models (FedAvg, FedProx, FedAdam: the "
                          "codec encodes the upload minus the model sent, and the model is added "
                          "back to the decoded mean) or changes already (false: the codec encodes "
                          "the upload itself, e.g. SCAFFOLD's model and control-variate changes). "
                          "Set the same on the clients' CodecClientStrategy.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&CodecServerStrategy::m_uploadIsModel),
                          MakeBooleanChecker());
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

void
CodecServerStrategy::SetInner(Ptr<FlServerStrategy> inner)
{
    m_inner = inner;
}

Ptr<FlServerStrategy>
CodecServerStrategy::GetInner() const
{
    Inner();
    return m_inner;
}

FlServerStrategy&
CodecServerStrategy::Inner() const
{
    if (!m_inner)
    {
        m_inner = CreateObject<FedAvgStrategy>();
    }
    m_inner->SetPort(Port()); // the inner strategy reaches the network through the same port
    return *m_inner;
}

void
CodecServerStrategy::DoDispose()
{
    m_inner = nullptr;
    FlServerStrategy::DoDispose();
}

namespace
{
/// The values a client of `inner` uploads for a model of `numParameters`.
std::size_t
InnerValues(const FlStrategyTraits& inner, std::size_t numParameters)
{
    return inner.uploadValues != 0 ? inner.uploadValues : numParameters;
}
} // namespace

FlStrategyTraits
CodecServerStrategy::Traits(std::size_t numParameters) const
{
    FlStrategyTraits t = Inner().Traits(numParameters); // its attachment is its own
    const std::size_t values = InnerValues(t, numParameters);
    t.rawUploads = true; // codec payloads
    const std::size_t sumSize = m_codec ? m_codec->SumSize(values) : 0;
    t.uploadValues = sumSize != 0 ? sumSize : values; // what an uplink step carries
    t.individualUpdates = sumSize == 0; // payloads that do not add need each client's
    t.staleUpdates = false; // a late payload was encoded for another round's parameters
    return t;
}

void
CodecServerStrategy::Start(const FlStrategySetup& setup)
{
    const std::size_t numParameters = setup.numParameters;
    if (!m_codec)
    {
        throw fl::ConfigError("CodecServerStrategy",
                              "no uplink codec",
                              "call SetCodec, or FlFedAvgHelper::SetUplinkCodec");
    }
    if (setup.acceptsStale)
    {
        throw fl::ConfigError("StragglerPolicy",
                              "accept with the uplink codec " + m_codec->Name(),
                              "use drop: a late payload was encoded for another round's "
                              "parameters");
    }
    FlServerStrategy& inner = Inner();
    const std::size_t values = InnerValues(inner.Traits(numParameters), numParameters);
    if (setup.hasUplinkStep && m_codec->SumSize(values) == 0)
    {
        throw fl::ConfigError("CodecServerStrategy",
                              "an uplink step delivers only sums, and the payloads of the uplink "
                              "codec " +
                                  m_codec->Name() + " do not add",
                              "use a codec with a sum path, or one of the two");
    }
    CheckInner(numParameters);
    FlStrategySetup innerSetup = setup;
    innerSetup.hasUplinkStep = true; // it gets a sum, as after a summing step
    inner.Start(innerSetup);
}

void
CodecServerStrategy::CheckInner(std::size_t numParameters) const
{
    FlServerStrategy& inner = Inner();
    const std::string innerName = inner.GetInstanceTypeId().GetName();
    const FlStrategyTraits innerTraits = inner.Traits(numParameters);
    const std::size_t values = InnerValues(innerTraits, numParameters);
    const std::string codec = m_codec ? m_codec->Name() : std::string("(none)");
    if (innerTraits.rawUploads || innerTraits.individualUpdates || FlPhaseHooksOf(&inner) ||
        FlAsyncHooksOf(&inner) || FlPeerHooksOf(&inner))
    {
        throw fl::ConfigError(
            "strategy",
            innerName + " inside the uplink codec " + codec +
                ": the codec hands its strategy one decoded weighted mean per round",
            "use a synchronous strategy that aggregates from a weighted mean (no individual "
            "updates, raw uploads, phases or peer messages of its own), e.g. ns3::FedAvgStrategy");
    }
    if (m_uploadIsModel && values < numParameters)
    {
        throw fl::ConfigError("UploadIsModel",
                              "true with uploads of " + std::to_string(values) +
                                  " values, fewer than the model's " +
                                  std::to_string(numParameters),
                              "set UploadIsModel=false on both codec halves: the uploads are "
                              "changes, encoded as they are");
    }
}

bool
CodecServerStrategy::SelectClients(uint32_t round,
                                   const std::vector<uint32_t>& eligible,
                                   std::vector<uint32_t>& selected)
{
    return Inner().SelectClients(round, eligible, selected);
}

void
CodecServerStrategy::ConfigureRound(const Context& ctx,
                                    const std::vector<uint32_t>& selected,
                                    FlRoundConfig& config)
{
    m_round = ctx.round;
    m_reports.clear();
    m_params = fl::UplinkRoundParams();
    m_agreedAt = Time();
    Inner().ConfigureRound(ctx, selected, config);
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
    Inner().ClientLeft(client);
}

void
CodecServerStrategy::DescribeRound(FlRoundReport& report) const
{
    Inner().DescribeRound(report);
    if (report.round != m_round)
    {
        return;
    }
    report.codecReports = static_cast<uint32_t>(m_reports.size());
    report.agreed = m_agreedAt;
    report.codecScale = m_params.scale;
}

void
CodecServerStrategy::AfterAggregation(const Context& ctx,
                                      fl::ParamVector& model,
                                      std::function<void()> done)
{
    Inner().AfterAggregation(ctx, model, std::move(done));
}

bool
CodecServerStrategy::Aggregate(const Context& ctx,
                               const FlAggregationInput& in,
                               fl::ParamVector& model,
                               std::vector<double>& weights)
{
    FlServerStrategy& inner = Inner();
    const std::size_t values = InnerValues(inner.Traits(model.Size()), model.Size());
    auto agg = m_codec->Begin(m_params, values, model.GetPrecision());
    FlAggregationInput mean; // what the inner strategy gets: the decoded mean, total weight 1
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
        if (!agg->AddSum(*in.sum, in.clients, total))
        {
            return false;
        }
        mean.clients = in.clients;
    }
    else
    {
        // payloads added in client order, decoded once
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
                mean.clients.push_back(in.clients[i]);
            }
        }
        if (agg->Count() == 0)
        {
            return false;
        }
    }
    fl::Rng rng(fl::UplinkDecodeSeed(Port().seed(), ctx.round));
    const fl::ParamVector decoded = agg->Finish(rng);
    // r + u in float64; for a float32 model the inner strategy's rounding of it equals the
    // float32 sum r + u (float64 carries more than 2 x 24 + 2 bits, so rounding twice is exact)
    const Eigen::VectorXd sum =
        fl::UploadReference(model, values, m_uploadIsModel)
            .ConvertedTo(fl::Precision::Float64)
            .Get<double>() +
        decoded.ConvertedTo(fl::Precision::Float64).Get<double>();
    mean.sum = &sum;
    mean.totalWeight = 1.0;
    std::vector<double> innerWeights;
    return inner.Aggregate(ctx, mean, model, innerWeights);
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
                          "is (the inner strategy's upload weight, by default the sample count) "
                          "x (mean training loss)^q (0 = that weight alone). This is the EGA "
                          "paper's client importance lambda_i, not q-FFL (Li et al., ICLR 2020; "
                          "see QfflServerStrategy).",
                          DoubleValue(0.0),
                          MakeDoubleAccessor(&CodecClientStrategy::m_lossWeightExponent),
                          MakeDoubleChecker<double>(0.0, 100.0))
            .AddAttribute("UploadIsModel",
                          "Whether the inner strategy's upload is a model (the codec encodes it "
                          "minus the model received) or a change already (false: encoded as "
                          "is). The same as the server's CodecServerStrategy.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&CodecClientStrategy::m_uploadIsModel),
                          MakeBooleanChecker());
    return tid;
}

CodecClientStrategy::CodecClientStrategy() = default;

void
CodecClientStrategy::SetCodec(std::shared_ptr<const fl::UplinkCodec> codec)
{
    m_codec = std::move(codec);
}

void
CodecClientStrategy::SetInner(Ptr<FlClientStrategy> inner)
{
    m_inner = inner;
}

Ptr<FlClientStrategy>
CodecClientStrategy::GetInner() const
{
    Inner();
    return m_inner;
}

FlClientStrategy&
CodecClientStrategy::Inner() const
{
    if (!m_inner)
    {
        m_inner = CreateObject<FlClientStrategy>();
    }
    return *m_inner;
}

void
CodecClientStrategy::DoDispose()
{
    m_inner = nullptr;
    FlClientStrategy::DoDispose();
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

bool
CodecClientStrategy::Silent(uint64_t trainingSeed, uint32_t round) const
{
    return Inner().Silent(trainingSeed, round);
}

bool
CodecClientStrategy::Plan(const fl::LearningTask& task,
                          uint32_t client,
                          fl::TrainingPlan& plan) const
{
    return Inner().Plan(task, client, plan);
}

FlClientStrategy::FitFunction
CodecClientStrategy::MakeFit() const
{
    FitFunction fit = Inner().MakeFit();
    return [fit](const FlFitInput& in, FlClientFit& out) {
        fit(in, out);
        if (!out.raw.empty())
        {
            throw fl::ConfigError("strategy",
                                  "a client strategy with raw uploads inside the uplink codec",
                                  "the codec encodes upload values: use a strategy whose fit "
                                  "forms values (FlClientFit::upload)");
        }
    };
}

bool
CodecClientStrategy::PerturbsUpload() const
{
    return Inner().PerturbsUpload();
}

uint64_t
CodecClientStrategy::UploadWeight(const fl::LearningTask& task, uint32_t client) const
{
    return Inner().UploadWeight(task, client);
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
    FlClientStrategy& inner = Inner();
    m_values = inner.UploadValues(task.NumParameters());
    if (hasUplinkStep && m_codec->SumSize(m_values) == 0)
    {
        throw fl::ConfigError("CodecClientStrategy",
                              "an uplink step delivers only sums, and the payloads of the uplink "
                              "codec " +
                                  m_codec->Name() + " do not add",
                              "use a codec with a sum path, or one of the two");
    }
    if (inner.PhasesBeforeUpload())
    {
        throw fl::ConfigError("clientStrategy",
                              inner.GetInstanceTypeId().GetName() +
                                  " has phases before its upload, inside the uplink codec " +
                                  m_codec->Name(),
                              "use a client strategy without phases of its own");
    }
    if (m_uploadIsModel && m_values < task.NumParameters())
    {
        throw fl::ConfigError("UploadIsModel",
                              "true with uploads of " + std::to_string(m_values) +
                                  " values, fewer than the model's " +
                                  std::to_string(task.NumParameters()),
                              "set UploadIsModel=false on both codec halves");
    }
    inner.SetPort(Port());
    inner.Start(task, client, true); // its upload reaches the server as part of a sum
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
    const fl::ParamVector reference =
        fl::UploadReference(received, upload.Size(), m_uploadIsModel);
    m_delta = fl::Difference(upload.GetPrecision() == reference.GetPrecision()
                                 ? upload
                                 : upload.ConvertedTo(reference.GetPrecision()),
                             reference);
    m_weight = fl::UplinkClientWeight(static_cast<double>(Inner().UploadWeight(task, client)),
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
        if (!m_codec->PayloadValues(payload, m_values, values))
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
    Inner().Superseded();
}

std::size_t
CodecClientStrategy::UploadValues(std::size_t numParameters) const
{
    const std::size_t values = Inner().UploadValues(numParameters);
    const std::size_t sumSize = m_codec ? m_codec->SumSize(values) : 0;
    return sumSize != 0 ? sumSize : values;
}

std::size_t
CodecClientStrategy::AttachmentValues(std::size_t numParameters) const
{
    return Inner().AttachmentValues(numParameters);
}

} // namespace ns3

/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The uplink codec (fl::UplinkCodec, uplink-codec.h) as a strategy pair: a round with two
 * phases before the model update (a scalar report per client, the agreed parameters broadcast
 * back), raw codec payloads as uploads, summed in the encoded domain and decoded once. EGA
 * (fl::EgaUplinkCodec) is its codec; loss-weighted FedAvg (weights samples x mean loss^q, the
 * EGA paper's client importance lambda_i; not q-FFL) is the client half's LossWeightExponent.
 */
#ifndef FL_CODEC_STRATEGY_H
#define FL_CODEC_STRATEGY_H

#include "ns3/fl-client-strategy.h"
#include "ns3/fl-server-strategy.h"
#include "ns3/uplink-codec.h"

#include <map>
#include <memory>

namespace ns3
{

/**
 * \ingroup fl-strategies
 * The server half of the uplink codec. Each round has two phases before the upload: the
 * selected clients report a scalar and their weight (Control, fl::kUplinkReportTag); when
 * every selected client still in the round reported (or at the deadline, with the clients
 * heard so far, and a fresh deadline for the uploads) the codec agrees the round's parameters
 * (fl::UplinkCodec::Agree), which go to the reporters (Control, fl::kUplinkParamsTag); the
 * reporters upload codec payloads (raw LocalModel messages), which are added in client order
 * and decoded once: w += Finish() (decode draws seeded by fl::UplinkDecodeSeed of the initial
 * model's seed and the round). After an uplink step (one with a sum path only,
 * fl::UplinkCodec::SumSize) the step's sum of the payload values is decoded instead
 * (fl::UplinkAggregator::AddSum). Not combinable with StragglerPolicy accept.
 */
class CodecServerStrategy : public FlServerStrategy, public FlPhaseHooks
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    CodecServerStrategy();

    /// The codec (shared with the clients' CodecClientStrategy). Set it before the server starts.
    void SetCodec(std::shared_ptr<const fl::UplinkCodec> codec);
    /// The codec.
    std::shared_ptr<const fl::UplinkCodec> GetCodec() const;

    FlStrategyTraits Traits(std::size_t numParameters) const override;
    void Start(const FlStrategySetup& setup) override;
    void ConfigureRound(const Context& ctx,
                        const std::vector<uint32_t>& selected,
                        FlRoundConfig& config) override;
    Verdict PhaseMessage(const Context& ctx,
                         uint32_t client,
                         uint32_t tag,
                         const std::vector<uint8_t>& bytes) override;
    bool PhasesDone(const Context& ctx,
                    const std::vector<uint32_t>& waiting,
                    bool deadlineHit,
                    std::vector<uint32_t>& uploaders) override;
    void ClientLeft(uint32_t client) override;
    void DescribeRound(FlRoundReport& report) const override;
    /// The payloads added in client order and decoded once, or the step's sum decoded.
    bool Aggregate(const Context& ctx,
                   const FlAggregationInput& in,
                   fl::ParamVector& model,
                   std::vector<double>& weights) override;

  private:
    std::shared_ptr<const fl::UplinkCodec> m_codec;
    uint32_t m_round{0};                            ///< the round the state below belongs to
    std::map<uint32_t, fl::UplinkReport> m_reports; ///< this round's phase-1 reports
    fl::UplinkRoundParams m_params;                 ///< this round's agreed parameters
    Time m_agreedAt;                                ///< when they were broadcast
};

/**
 * \ingroup fl-strategies
 * The client half of the uplink codec: when the compute time has elapsed the client reports
 * Statistic(update) and its weight fl::UplinkClientWeight(samples, meanLoss, LossWeightExponent) in
 * a Control message; when the server's round parameters arrive it sends Encode(update, params) as a
 * raw LocalModel message, update = trained model (after the uplink perturbation, if any) minus the
 * global model received (encode draws seeded by fl::UplinkEncodeSeed). With an uplink step the step
 * gets UplinkCodec::PayloadValues of the payload with weight 1 instead (the client's weight is
 * inside the values).
 */
class CodecClientStrategy : public FlClientStrategy
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    CodecClientStrategy();

    /// The codec (shared with the server's CodecServerStrategy). Set it before the client starts.
    void SetCodec(std::shared_ptr<const fl::UplinkCodec> codec);

    /// Wall-clock seconds spent in the codec's Encode so far (real CPU time, not simulated).
    double GetEncodeSeconds() const;
    /// Codec payloads sent so far.
    uint32_t GetUploads() const;

    void Start(const fl::LearningTask& task, uint32_t client, bool hasUplinkStep) override;
    bool PhasesBeforeUpload() const override;
    void UploadReady(const fl::LearningTask& task,
                     uint32_t client,
                     uint32_t round,
                     const fl::ParamVector& received,
                     const fl::ParamVector& upload,
                     double meanLoss) override;
    bool Receive(uint32_t round, uint32_t tag, const std::vector<uint8_t>& bytes) override;
    void Superseded() override;
    std::size_t UploadValues(std::size_t numParameters) const override;

  private:
    std::shared_ptr<const fl::UplinkCodec> m_codec;
    double m_lossWeightExponent{0.0}; ///< LossWeightExponent attribute
    uint32_t m_client{0};        ///< the client index
    std::size_t m_parameters{0}; ///< the model size
    fl::ParamVector m_delta;     ///< the pending update: trained - received
    double m_weight{0.0};        ///< its weight
    uint32_t m_round{0};         ///< round of the report awaiting parameters (0: none)
    double m_encodeSeconds{0.0};
    uint32_t m_uploads{0};
};

} // namespace ns3

#endif // FL_CODEC_STRATEGY_H

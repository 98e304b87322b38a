/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The uplink codec (fl::UplinkCodec, uplink-codec.h) as a stage of the uplink pipeline, around
 * any strategy pair that works from a weighted mean: a round with two phases before the upload
 * (a scalar report per client, the agreed parameters broadcast back), raw codec payloads as
 * uploads, summed in the encoded domain (or by a summing uplink step such as secure aggregation)
 * and decoded once; the inner strategies train, form the uploads and turn the decoded mean into
 * the model. The pipeline of one upload, in order: the client strategy's fit -> the client's
 * uplink noise (FlClientApplication::SetUplinkPerturbation) -> this codec -> the uplink step
 * (secure aggregation) -> the network; on the server: the step's sum -> the codec's decode ->
 * the server strategy. EGA (fl::EgaUplinkCodec) is its codec; loss-weighted FedAvg (weights
 * samples x mean loss^q, the EGA paper's client importance lambda_i; not q-FFL) is the client
 * half's LossWeightExponent.
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
 * The server half of the uplink codec, a stage around another server strategy (SetInner;
 * default FedAvgStrategy): the codec carries the uploads, the inner strategy decides the rest.
 * Each round has two phases before the upload: the selected clients report a scalar and their
 * weight (Control, fl::kUplinkReportTag); when every selected client still in the round reported
 * (or at the deadline, with the clients heard so far, and a fresh deadline for the uploads) the
 * codec agrees the round's parameters (fl::UplinkCodec::Agree), which go to the reporters
 * (Control, fl::kUplinkParamsTag); the reporters upload codec payloads (raw LocalModel messages),
 * which are added in client order and decoded once (decode draws seeded by
 * fl::UplinkDecodeSeed of the initial model's seed and the round). After an uplink step (one
 * with a sum path only, fl::UplinkCodec::SumSize) the step's sum of the payload values is decoded
 * instead (fl::UplinkAggregator::AddSum). The decoded weighted mean of the clients' encoded
 * values u, plus the reference r the clients encoded against (fl::UploadReference: the model
 * sent, if UploadIsModel), is what the inner strategy's Aggregate gets, as a sum of total weight
 * 1: sum = r + u. With the default inner strategy that is w <- w + u.
 *
 * The inner strategy must work from a weighted mean (no individual updates, no raw uploads, no
 * phases of its own, not asynchronous: its traits and optional interfaces are checked at Start);
 * its selection, attachment, AfterAggregation and reports are its own. Not combinable with
 * StragglerPolicy accept (a late payload was encoded for another round's parameters).
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
    /// The strategy the decoded mean goes to (default: a FedAvgStrategy). Set it before Start.
    void SetInner(Ptr<FlServerStrategy> inner);
    /// The inner strategy.
    Ptr<FlServerStrategy> GetInner() const;
    /**
     * Throws fl::ConfigError (naming "strategy" or "UploadIsModel") unless the inner strategy
     * can take the codec's decoded mean for a model of `numParameters` (Start checks it too).
     */
    void CheckInner(std::size_t numParameters) const;

    FlStrategyTraits Traits(std::size_t numParameters) const override;
    void Start(const FlStrategySetup& setup) override;
    bool SelectClients(uint32_t round,
                       const std::vector<uint32_t>& eligible,
                       std::vector<uint32_t>& selected) override;
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
    /// The payloads added in client order and decoded once (or the step's sum decoded), the
    /// reference added back, handed to the inner strategy as a sum of total weight 1.
    bool Aggregate(const Context& ctx,
                   const FlAggregationInput& in,
                   fl::ParamVector& model,
                   std::vector<double>& weights) override;
    void AfterAggregation(const Context& ctx,
                          fl::ParamVector& model,
                          std::function<void()> done) override;
    void ClientLeft(uint32_t client) override;
    void DescribeRound(FlRoundReport& report) const override;

  protected:
    void DoDispose() override;

  private:
    /// The inner strategy, with the server's port.
    FlServerStrategy& Inner() const;

    std::shared_ptr<const fl::UplinkCodec> m_codec;
    mutable Ptr<FlServerStrategy> m_inner;          ///< created on first use if not set
    bool m_uploadIsModel{true};                     ///< UploadIsModel attribute
    uint32_t m_round{0};                            ///< the round the state below belongs to
    std::map<uint32_t, fl::UplinkReport> m_reports; ///< this round's phase-1 reports
    fl::UplinkRoundParams m_params;                 ///< this round's agreed parameters
    Time m_agreedAt;                                ///< when they were broadcast
};

/**
 * \ingroup fl-strategies
 * The client half of the uplink codec, a stage around another client strategy (SetInner;
 * default FlClientStrategy, the task's own training): the inner strategy trains and forms the
 * upload x (the client's uplink noise, if any, is added to it first), the stage encodes
 * x - r, r = fl::UploadReference(model received, |x|, UploadIsModel). When the compute time has
 * elapsed the client reports Statistic(x - r) and its weight
 * fl::UplinkClientWeight(inner UploadWeight, meanLoss, LossWeightExponent) in a Control message;
 * when the server's round parameters arrive it sends Encode(x - r, params) as a raw LocalModel
 * message (encode draws seeded by fl::UplinkEncodeSeed). With an uplink step the step gets
 * UplinkCodec::PayloadValues of the payload with weight 1 instead (the client's weight is inside
 * the values). The inner strategy may not have phases or raw uploads of its own.
 */
class CodecClientStrategy : public FlClientStrategy
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    CodecClientStrategy();

    /// The codec (shared with the server's CodecServerStrategy). Set it before the client starts.
    void SetCodec(std::shared_ptr<const fl::UplinkCodec> codec);
    /// The strategy that trains and forms the upload (default: FlClientStrategy).
    void SetInner(Ptr<FlClientStrategy> inner);
    /// The inner strategy.
    Ptr<FlClientStrategy> GetInner() const;

    /// Wall-clock seconds spent in the codec's Encode so far (real CPU time, not simulated).
    double GetEncodeSeconds() const;
    /// Codec payloads sent so far.
    uint32_t GetUploads() const;

    bool Silent(uint64_t trainingSeed, uint32_t round) const override;
    bool Plan(const fl::LearningTask& task, uint32_t client, fl::TrainingPlan& plan) const override;
    FitFunction MakeFit() const override;
    bool PerturbsUpload() const override;
    uint64_t UploadWeight(const fl::LearningTask& task, uint32_t client) const override;
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
    std::size_t AttachmentValues(std::size_t numParameters) const override;

  protected:
    void DoDispose() override;

  private:
    /// The inner strategy.
    FlClientStrategy& Inner() const;

    std::shared_ptr<const fl::UplinkCodec> m_codec;
    mutable Ptr<FlClientStrategy> m_inner; ///< created on first use if not set
    double m_lossWeightExponent{0.0}; ///< LossWeightExponent attribute
    bool m_uploadIsModel{true};       ///< UploadIsModel attribute
    uint32_t m_client{0};             ///< the client index
    std::size_t m_values{0};          ///< the inner strategy's upload size
    fl::ParamVector m_delta;          ///< the pending encoded input: upload - reference
    double m_weight{0.0};             ///< its weight
    uint32_t m_round{0};              ///< round of the report awaiting parameters (0: none)
    double m_encodeSeconds{0.0};
    uint32_t m_uploads{0};
};

} // namespace ns3

#endif // FL_CODEC_STRATEGY_H

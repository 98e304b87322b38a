/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The uplink-codec seam (pure, no ns-3 header): how a client's update becomes the bytes it sends
 * and how the server turns what it received back into one aggregate. The FedAvg applications
 * (FlClientApplication, FlServerApplication) and the in-process reference runner
 * (RunFedAvgReference) call the same object, so a lossless network run equals the in-process
 * run bit for bit. EGA implements it (ega-uplink-codec.h); without a codec the apps send models
 * in the transport's wire encoding and average them (FedAvg).
 *
 * A round with a codec, as data (update_i = w_i - w, the client's change of the global model):
 *   phase 1: client i -> server  UplinkReport{statistic_i, weight_i}   (Control, 16-byte payload)
 *            server -> clients   params = Agree(reports)               (Control, 24-byte payload)
 *   phase 2: client i -> server  bytes_i = Encode(update_i, params, i, weight_i)  (LocalModel, raw)
 *   server:  agg = Aggregator(params); agg.Add(i, bytes_i) for i in client order; u = agg.Finish()
 *            w <- w + u
 * u estimates the weighted mean sum_i p_i update_i with p_i = weight_i / sum_j weight_j, the
 * weights being the clients' FedAvg weights (sample counts) times any algorithm factor
 * (loss-weighted FedAvg's loss^q).
 *
 * Codecs whose payloads add in the encoded domain (EGA: the server only ever needs the sum of
 * the codes) also offer a sum path, so that an uplink step that hides single payloads (secure
 * aggregation) can deliver their sum instead:
 *   client i: v_i = PayloadValues(bytes_i)    SumSize(d) reals, uploaded with weight 1 (the
 *                                             client's weight is already inside v_i)
 *   step:     S = sum_{i in U} v_i, U         (the server learns S and U, no v_i)
 *   server:   agg = Aggregator(params); agg.AddSum(S, U, sum_{i in U} weight_i); u = agg.Finish()
 * AddSum(sum_i v_i, U, W_U) followed by Finish gives the same aggregate, bit for bit, as Add of
 * the payloads of U in client order when the sum of their values is exact in double (e.g. values
 * on a fixed-point grid, as secure aggregation delivers them).
 */
#ifndef FL_UPLINK_CODEC_H
#define FL_UPLINK_CODEC_H

#include "ns3/param-vector.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{
namespace fl
{

/// What a client reports in phase 1 of a round.
struct UplinkReport
{
    uint32_t client{0};  ///< client index
    double statistic{0}; ///< codec-defined scalar of the update (EGA: max |update|)
    double weight{0};    ///< the client's aggregation weight (sample count x algorithm factor)
};

/// What the server broadcasts after phase 1 (or fixes alone if the codec needs no agreement).
struct UplinkRoundParams
{
    double scale{0.0};       ///< codec-defined scale (EGA: the normalisation n)
    double totalWeight{0.0}; ///< sum of the reporting clients' weights
    uint32_t slots{0};       ///< clients the decoder expects (EGA: the codec's m)

    /// The 24-byte control payload: PackF64({scale, totalWeight, slots}).
    std::vector<uint8_t> Pack() const;
    /// Parses Pack() bytes; false (out untouched) on a wrong length or non-finite / negative
    /// values, or slots that are not a whole number in [1, 2^31).
    static bool Unpack(const std::vector<uint8_t>& bytes, UplinkRoundParams& out);
};

/// Packs a phase-1 report as PackF64({statistic, weight}) (16 bytes).
std::vector<uint8_t> PackUplinkReport(const UplinkReport& r);
/// Parses PackUplinkReport bytes (client left as is); false on a wrong length or non-finite or
/// negative values.
bool UnpackUplinkReport(const std::vector<uint8_t>& bytes, UplinkReport& out);

/// The server half of one round: accumulates payloads in the encoded domain, decodes once.
class UplinkAggregator
{
  public:
    virtual ~UplinkAggregator() = default;
    /**
     * Adds client `client`'s payload, sent with aggregation weight `weight` (its phase-1
     * weight). Returns false, changing nothing, if the payload is malformed (wrong size,
     * non-finite values): the caller counts it and treats the client as missing.
     */
    virtual bool Add(uint32_t client, const std::vector<uint8_t>& payload, double weight) = 0;
    /// Number of payloads added.
    virtual uint32_t Count() const = 0;
    /**
     * The aggregate update (d entries, precision of the model) from the payloads added. Called
     * once, with at least one payload added. `rng` feeds codecs whose decoding draws noise.
     */
    virtual ParamVector Finish(Rng& rng) = 0;

    /**
     * The sum path (see the file comment): instead of Add, the sum `sum` over the clients
     * `participants` (ascending, at least one) of UplinkCodec::PayloadValues of their payloads,
     * with `weight` the sum of their phase-1 weights in ascending client order. Afterwards
     * Count() is participants.size() and Finish decodes as after an Add of each payload (slots
     * of clients not in `participants` filled as the codec fills missing clients). Returns
     * false, changing nothing, if the codec's payloads do not add (the default), a payload was
     * added already, `sum` has another size than SumSize or a non-finite value, there are more
     * participants than the round has slots, or `weight` is not positive.
     */
    virtual bool AddSum(const Eigen::VectorXd& sum,
                        const std::vector<uint32_t>& participants,
                        double weight);
};

/**
 * The uplink-codec seam. Immutable after construction; one object may be shared by every
 * client and the server of a simulation (clients use the encoder half, the server both).
 */
class UplinkCodec
{
  public:
    virtual ~UplinkCodec() = default;

    /// Short name for logs and result files.
    virtual std::string Name() const = 0;

    /// Phase 1, client: the scalar the client reports about its update (default 0).
    virtual double Statistic(const ParamVector& update) const;

    /**
     * Phase 1, server: the round's parameters from the reports (sorted by client, at least one).
     * Throws ConfigError if the reports cannot be served (e.g. more clients than slots).
     */
    virtual UplinkRoundParams Agree(const std::vector<UplinkReport>& reports) const = 0;

    /**
     * Phase 2, client: the payload for `update` (the client's change of the global model) sent
     * with weight `weight` under `params`; `rng` is the client's draw for this round.
     */
    virtual std::vector<uint8_t> Encode(const ParamVector& update,
                                        const UplinkRoundParams& params,
                                        uint32_t client,
                                        double weight,
                                        Rng& rng) const = 0;

    /// Server: an aggregator for one round of a model with `parameters` coordinates of
    /// precision `precision`.
    virtual std::unique_ptr<UplinkAggregator> Begin(const UplinkRoundParams& params,
                                                    std::size_t parameters,
                                                    Precision precision) const = 0;

    /**
     * The sum path: how many real values a payload of a model with `parameters` coordinates
     * adds in the encoded domain, or 0 if payloads do not add (the default: no sum path, so no
     * uplink step that delivers only sums).
     */
    virtual std::size_t SumSize(std::size_t parameters) const;

    /**
     * The sum path, client: the SumSize(parameters) reals of `payload` (an Encode result) that
     * the server may receive summed over clients. False (values untouched) if the codec has no
     * sum path or the payload is malformed.
     */
    virtual bool PayloadValues(const std::vector<uint8_t>& payload,
                               std::size_t parameters,
                               Eigen::VectorXd& values) const;
};

/// model += update, in the model's precision (ConfigError on a size or precision mismatch).
void AddInPlace(ParamVector& model, const ParamVector& update);
/// local - global in their (common) precision (ConfigError on a mismatch).
ParamVector Difference(const ParamVector& local, const ParamVector& global);
/**
 * What a codec encodes an upload of `values` reals relative to: the model the upload was
 * trained from (`model`, zero-padded to `values` when the upload is longer, e.g. a model and a
 * control-variate change) if `uploadIsModel`, else zeros (an upload that is a change already),
 * in the model's precision. The client encodes upload - reference, the server adds the reference
 * back to the decoded mean: for a model upload, update_i = w_i - w as above.
 */
ParamVector UploadReference(const ParamVector& model, std::size_t values, bool uploadIsModel);
/**
 * The phase-1 weight of a client: samples x meanLoss^q, meanLoss the mean loss of its local
 * training ("loss-weighted FedAvg", the EGA paper's client importance lambda_i; q = 0: samples).
 * Not q-FFL (Li et al., ICLR 2020), which steps with Delta_k and h_k from the loss at the
 * received model: see qffl.h.
 */
double UplinkClientWeight(double samples, double meanLoss, double q);

/// Seeds of the codec's draws, shared by the apps and the reference runner.
uint64_t UplinkEncodeSeed(uint64_t clientTrainingSeed, uint32_t round);
/// The server's decode seed of round `round`.
uint64_t UplinkDecodeSeed(uint64_t serverInitSeed, uint32_t round);

/// Control-message tags (MessageAddress::aux) of the two phases.
constexpr uint32_t kUplinkReportTag = 0x45474131u; ///< client -> server phase-1 report
constexpr uint32_t kUplinkParamsTag = 0x45474132u; ///< server -> clients round parameters

} // namespace fl
} // namespace ns3

#endif // FL_UPLINK_CODEC_H

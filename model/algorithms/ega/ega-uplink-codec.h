/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * EGA behind the uplink-codec seam (D. Zeng et al., "Encoded Gradients Aggregation against
 * Gradient Leakage in Federated Learning", arXiv:2205.13216, 2022, Algorithm 2; pure, no ns-3
 * header).
 *
 * Phase 1: client i reports statistic_i = max_k |update_i,k| and its weight w_i. The server
 * agrees on M = the codec's m (or the number of reporters for a codec trained for any m),
 * W = sum_i w_i and n = max_i lambda_i statistic_i with lambda_i = M w_i / W (the paper's
 * "largest absolute value" of the lambda-weighted updates).
 * Phase 2: client i sends codes_i = E_c(blocks(Q(lambda_i update_i; s, n))) as float32
 * (ceil(d/b) h values, 4 bytes each). The server sums the codes of the U clients that arrived,
 * fills the M - |U| missing ones with E_c(0) (EgaZeroCodes), decodes once (Eq. 5) and rescales:
 *     u = (W / W_U) (n/s) unblock(D_c(S / M)),   W_U = sum_{i in U} w_i,
 * so that u estimates sum_{i in U} (w_i / W_U) update_i, the FedAvg step of the clients heard
 * (dropped clients: "fill with E(0) and rescale").
 *
 * Sum path (secure aggregation): the codes are what adds, so PayloadValues are the h ceil(d/b)
 * codes of a payload (column by column, as packed) and AddSum takes S = sum_{i in U} codes_i
 * with U and W_U; Finish then fills the M - |U| slots with E_c(0) and decodes exactly as above.
 * The curious-server probe (Eq. 2) needs single clients' codes and does not run on a sum.
 */
#ifndef FL_EGA_UPLINK_CODEC_H
#define FL_EGA_UPLINK_CODEC_H

#include "ns3/ega-codec.h"
#include "ns3/uplink-codec.h"

#include <functional>
#include <memory>

namespace ns3
{
namespace fl
{

/// One Eq. (2) probe of the curious server on one client in one round.
struct EgaProbeRecord
{
    uint32_t client{0};      ///< the client probed
    double lambda{0.0};      ///< its lambda_i
    Eigen::VectorXd leaked;  ///< the server's estimate of the client's update (leak / lambda_i)
};

/// EGA as an UplinkCodec.
class EgaUplinkCodec : public UplinkCodec
{
  public:
    /**
     * @param codec the block codec (shared by clients and server)
     * @param s quantisation level (ConfigError naming "s" if the codec was built for another)
     */
    EgaUplinkCodec(std::shared_ptr<const EgaCodec> codec, uint32_t s);

    std::string Name() const override;
    double Statistic(const ParamVector& update) const override;
    UplinkRoundParams Agree(const std::vector<UplinkReport>& reports) const override;
    std::vector<uint8_t> Encode(const ParamVector& update,
                                const UplinkRoundParams& params,
                                uint32_t client,
                                double weight,
                                Rng& rng) const override;
    std::unique_ptr<UplinkAggregator> Begin(const UplinkRoundParams& params,
                                            std::size_t parameters,
                                            Precision precision) const override;

    /// The codes of a model of d parameters: ceil(d/b) h.
    std::size_t SumSize(std::size_t parameters) const override;
    bool PayloadValues(const std::vector<uint8_t>& payload,
                       std::size_t parameters,
                       Eigen::VectorXd& values) const override;

    /// Payload bytes of one client for a model of d parameters: 4 ceil(d/b) h.
    std::size_t PayloadBytes(std::size_t d) const;

    /**
     * The curious-server probe (Eq. 2), run by the server on every client of every round after
     * decoding (M extra decodes per round; simulation instrumentation, not part of EGA).
     */
    void SetProbeSink(std::function<void(const EgaProbeRecord&)> sink);
    /// Instrumentation: called by Encode with (client, the update it encodes, lambda_i).
    void SetEncodeSink(std::function<void(uint32_t, const Eigen::VectorXd&, double)> sink);

    /// The block codec.
    const EgaCodec& Codec() const
    {
        return *m_codec;
    }

    /// lambda_i = M w_i / W.
    static double Lambda(const UplinkRoundParams& params, double weight);

  private:
    class Aggregator;
    std::shared_ptr<const EgaCodec> m_codec;
    uint32_t m_s;
    std::function<void(const EgaProbeRecord&)> m_probeSink;
    std::function<void(uint32_t, const Eigen::VectorXd&, double)> m_encodeSink;
};

/**
 * Decodes an EGA payload (float32 codes, little-endian) of `blocks` blocks of code length h into
 * `codes` (h x blocks). False if the size differs or a value is not finite (codes untouched).
 */
bool EgaUnpackCodes(const std::vector<uint8_t>& payload,
                    uint32_t h,
                    std::size_t blocks,
                    Eigen::MatrixXd& codes);

/// Packs codes (h x K) as float32 little-endian, column by column.
std::vector<uint8_t> EgaPackCodes(const Eigen::MatrixXd& codes);

} // namespace fl
} // namespace ns3

#endif // FL_EGA_UPLINK_CODEC_H

/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * EGA codecs (D. Zeng et al., "Encoded Gradients Aggregation against Gradient Leakage in Federated
 * Learning", arXiv:2205.13216, 2022; pure, no ns-3 header): the block-level encoder
 * E_c : Q_s^b -> R^h and decoder D_c : R^h -> R^b behind one interface, and two cheaper stand-ins
 * (ours, not the paper's):
 *  - EgaLinearCodec: E_c(l) = A l with orthonormal columns (h >= b), D_c(c) = A^T c. Exactly
 *    additive, D_c(mean_i E_c(l_i)) = mean_i l_i to rounding: the negative control of the
 *    curious-server probe (Eq. 2 recovers a client exactly).
 *  - EgaGaussianCodec: the analytic surrogate of Theorem 1. E_c is the identity (h = b), D_c adds
 *    nu ~ N(0, sigma^2) per entry, with sigma measured for a learned codec (EgaMeasuredSigmas).
 * The learned residual-MLP codec of the paper is EgaMlpCodec (ega-mlp-codec.h).
 *
 * Blocks and codes are columns: Encode maps a b x K matrix (K blocks of one client, quantised
 * integers) to h x K codes in one matrix product; Decode maps the *mean* code of the m clients
 * (h x K, the paper's (1/m) sum_i E_c(l_i)) to b x K blocks in the quantised domain. Scaling by
 * n/s and (un)blocking are in ega-quantizer.h and ega-aggregate.h.
 */
#ifndef FL_EGA_CODEC_H
#define FL_EGA_CODEC_H

#include "ns3/fl-types.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{
namespace fl
{

/**
 * A block encoder/decoder pair of EGA. Implementations are immutable after construction and
 * may be shared by every client (encoder) and the server (decoder) of a simulation.
 */
class EgaCodec
{
  public:
    virtual ~EgaCodec() = default;

    /// Block length b (input of the encoder, output of the decoder).
    virtual uint32_t BlockSize() const = 0;

    /// Code length h (output of the encoder); h < b compresses by b / h.
    virtual uint32_t CodeSize() const = 0;

    /**
     * Quantisation level s the codec was built for, or 0 if it works for any s. Aggregation
     * refuses a different s.
     */
    virtual uint32_t DesignLevel() const
    {
        return 0;
    }

    /**
     * Number m of clients whose mean code the decoder was trained on, or 0 if any m. Aggregation
     * refuses a different number of codes.
     */
    virtual uint32_t DesignClients() const
    {
        return 0;
    }

    /**
     * Codes of K blocks: `codes` (resized to h x K) = E_c applied to every column of `blocks`
     * (b x K); `codes` must not share memory with `blocks`. Throws ConfigError naming "blocks" if
     * the row count is not b.
     */
    virtual void Encode(const Eigen::Ref<const Eigen::MatrixXd>& blocks,
                        Eigen::MatrixXd& codes) const = 0;

    /**
     * Blocks from mean codes: `blocks` (resized to b x K) = D_c applied to every column of
     * `meanCodes` (h x K). `rng` feeds codecs whose decoding draws noise (the Gaussian
     * surrogate); deterministic codecs leave it untouched. Throws ConfigError naming "codes" if
     * the row count is not h.
     */
    virtual void Decode(const Eigen::Ref<const Eigen::MatrixXd>& meanCodes,
                        Eigen::MatrixXd& blocks,
                        Rng& rng) const = 0;

    /// Short name for logs and result files ("linear", "gaussian", "mlp").
    virtual std::string Name() const = 0;

  protected:
    /// Throws ConfigError naming `parameter` unless `rows` equals `expected`.
    static void CheckRows(Eigen::Index rows,
                          uint32_t expected,
                          const char* parameter,
                          const char* what);
};

/**
 * The exactly additive linear codec: A in R^{h x b} with orthonormal columns (A^T A = I, drawn as
 * the Q factor of a Gaussian matrix), E_c(l) = A l, D_c(c) = A^T c.
 */
class EgaLinearCodec : public EgaCodec
{
  public:
    /**
     * Draws A from `rng` (b x h standard normals, column by column, then a Householder QR).
     * Throws ConfigError naming "b" if b = 0 and naming "h" unless h >= b (an exactly additive
     * linear codec cannot compress).
     */
    EgaLinearCodec(uint32_t b, uint32_t h, Rng& rng);

    uint32_t BlockSize() const override;
    uint32_t CodeSize() const override;
    void Encode(const Eigen::Ref<const Eigen::MatrixXd>& blocks,
                Eigen::MatrixXd& codes) const override;
    void Decode(const Eigen::Ref<const Eigen::MatrixXd>& meanCodes,
                Eigen::MatrixXd& blocks,
                Rng& rng) const override;
    std::string Name() const override;

    /// The encoding matrix A (h x b).
    const Eigen::MatrixXd& Matrix() const
    {
        return m_a;
    }

  private:
    Eigen::MatrixXd m_a;
};

/**
 * The Gaussian surrogate: E_c is the identity (h = b), D_c(c) = c + nu with nu ~ N(0, sigma^2)
 * i.i.d. per entry (drawn with std::normal_distribution from the Rng passed to Decode), i.e.
 * exactly the assumption under which Theorem 1 is proved. sigma is in quantised units.
 */
class EgaGaussianCodec : public EgaCodec
{
  public:
    /**
     * Surrogate of a codec with block length b and error sigma, built for level s and m clients
     * (0 = unspecified). Throws ConfigError naming "b" if b = 0 and "sigma" unless sigma is
     * finite and >= 0.
     */
    EgaGaussianCodec(uint32_t b, double sigma, uint32_t s = 0, uint32_t m = 0);

    uint32_t BlockSize() const override;
    uint32_t CodeSize() const override;
    uint32_t DesignLevel() const override;
    uint32_t DesignClients() const override;
    void Encode(const Eigen::Ref<const Eigen::MatrixXd>& blocks,
                Eigen::MatrixXd& codes) const override;
    void Decode(const Eigen::Ref<const Eigen::MatrixXd>& meanCodes,
                Eigen::MatrixXd& blocks,
                Rng& rng) const override;
    std::string Name() const override;

    /// Error standard deviation sigma in quantised units.
    double Sigma() const
    {
        return m_sigma;
    }

  private:
    uint32_t m_b;
    double m_sigma;
    uint32_t m_s;
    uint32_t m_m;
};

/**
 * One measured codec: the held-out error sigma (RMS of D_c(mean E_c(l_i)) - mean l_i over the
 * held-out synthetic groups, in quantised units) of a residual-MLP codec trained by
 * fl-ega-train with the given shape and training length.
 */
struct EgaSigmaEntry
{
    uint32_t b;                ///< block length
    uint32_t h;                ///< code length
    uint32_t s;                ///< quantisation level
    uint32_t m;                ///< clients per round
    uint32_t width;            ///< hidden width of the MLPs
    uint32_t depth;            ///< residual blocks per MLP
    uint32_t expansion;        ///< inner width of a residual block / width
    uint32_t epochs;           ///< training epochs
    double sigma;              ///< held-out error, quantised units (float32 weights)
    double probeRelativeError; ///< Eq. (2) probe on the held-out groups (EgaCodecProbeStats)
    double cpuSeconds;         ///< CPU time of the training (one core)
};

/// The table of measured codecs (doc/fl-ega.rst, "EGA codec"), filled by runs of fl-ega-train.
const std::vector<EgaSigmaEntry>& EgaMeasuredSigmas();

/**
 * sigma of the measured codec with these (b, h, s, m) (the lowest, if several: Algorithm 1 keeps
 * the best codec).
 * Throws ConfigError naming "sigma" and listing the measured combinations if there is none.
 */
double EgaLookupSigma(uint32_t b, uint32_t h, uint32_t s, uint32_t m);

} // namespace fl
} // namespace ns3

#endif // FL_EGA_CODEC_H

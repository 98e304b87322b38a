/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * EGA aggregation in the encoded domain and the curious-server probe (D. Zeng et al., "Encoded
 * Gradients Aggregation against Gradient Leakage in Federated Learning", arXiv:2205.13216, 2022,
 * Eqs. 2, 5 and Algorithm 2), pure (no ns-3 header). A round, as data:
 *   client i: codes_i = E_c(blocks(Q(lambda_i dw_i; s, n)))         EgaEncodeUpdate
 *   server:   S = sum_i codes_i                                     EgaAccumulate
 *             g_rec = (n/s) unblock(D_c(S / m))                     EgaDecodeAggregate (Eq. 5)
 * and g_rec ~ (1/m) sum_i lambda_i dw_i up to the quantisation and codec errors (Theorem 1). The
 * sign of the global step and the choice of n (two-phase max |dw|, decaying schedule) belong to
 * the caller.
 *
 * Eq. (2): a curious server that can encode swaps client i's codes for the codes of zero and
 * re-decodes; m times the difference is its estimate of client i's update:
 *   leak_i = m [ g_rec - (n/s) unblock(D_c((S - codes_i + E_c(0)) / m)) ].
 * For an exactly additive codec leak_i = (n/s) Q(lambda_i dw_i) exactly; for a learned codec it
 * carries m (nu - nu'), the amplified difference of two decoding errors.
 */
#ifndef FL_EGA_AGGREGATE_H
#define FL_EGA_AGGREGATE_H

#include "ns3/ega-codec.h"

#include <cstddef>
#include <cstdint>

namespace ns3
{
namespace fl
{

/**
 * Throws ConfigError naming "s" if the codec was built for another quantisation level, and "m"
 * if its decoder was trained for another number of clients (a round with dropped clients must
 * fill their codes with EgaZeroCodes first, or use a codec trained for the smaller m).
 */
void CheckEgaCodecFits(const EgaCodec& codec, uint32_t s, uint32_t m);

/**
 * The client's upload: codes (h x ceil(d/b)) = E_c of every block of Q(lambda x; s, n), all
 * blocks in one Encode call. Throws ConfigError on bad s, n, lambda, a non-finite update or a
 * codec built for another s.
 */
void EgaEncodeUpdate(const EgaCodec& codec,
                     const Eigen::Ref<const Eigen::VectorXd>& update,
                     uint32_t s,
                     double n,
                     Rng& rng,
                     Eigen::MatrixXd& codes,
                     double lambda = 1.0);

/**
 * Adds one client's codes to the running sum. An empty `sum` (0 x 0) becomes a copy of
 * `codes`; otherwise the shapes must agree (ConfigError naming "codes").
 */
void EgaAccumulate(Eigen::MatrixXd& sum, const Eigen::Ref<const Eigen::MatrixXd>& codes);

/**
 * Eq. (5): aggregate (d entries) = (n/s) unblock(D_c(codeSum / m)), one Decode call for all
 * blocks. Throws ConfigError naming "m" (see CheckEgaCodecFits, or m = 0), "s", "n", or "d" if
 * the blocks hold fewer than d entries.
 */
void EgaDecodeAggregate(const EgaCodec& codec,
                        const Eigen::Ref<const Eigen::MatrixXd>& codeSum,
                        uint32_t m,
                        std::size_t d,
                        uint32_t s,
                        double n,
                        Rng& rng,
                        Eigen::VectorXd& aggregate);

/// E_c(0) for `blocks` blocks (h x blocks): the upload of a client whose quantised update is 0.
void EgaZeroCodes(const EgaCodec& codec, Eigen::Index blocks, Eigen::MatrixXd& codes);

/**
 * Eq. (2) probe of the curious server against client i: leaked = m [aggregate - (n/s)
 * unblock(D_c((codeSum - clientCodes + E_c(0)) / m))], where `aggregate` is the round's decoded
 * aggregate (EgaDecodeAggregate of the same codeSum). Throws ConfigError as EgaDecodeAggregate,
 * or naming "clientCodes" / "aggregate" on a shape mismatch.
 */
void EgaCuriousServerProbe(const EgaCodec& codec,
                           const Eigen::Ref<const Eigen::MatrixXd>& codeSum,
                           const Eigen::Ref<const Eigen::MatrixXd>& clientCodes,
                           const Eigen::Ref<const Eigen::VectorXd>& aggregate,
                           uint32_t m,
                           uint32_t s,
                           double n,
                           Rng& rng,
                           Eigen::VectorXd& leaked);

/// ||estimate - truth|| / ||truth|| (infinity if truth = 0 and estimate != truth, 0 if equal).
double EgaRelativeError(const Eigen::Ref<const Eigen::VectorXd>& estimate,
                        const Eigen::Ref<const Eigen::VectorXd>& truth);

/// Cosine similarity <a, b> / (||a|| ||b||) (0 if either is zero).
double EgaCosineSimilarity(const Eigen::Ref<const Eigen::VectorXd>& a,
                           const Eigen::Ref<const Eigen::VectorXd>& b);

} // namespace fl
} // namespace ns3

#endif // FL_EGA_AGGREGATE_H

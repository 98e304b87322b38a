/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * EGA aggregation in the encoded domain and the curious-server probe (ega-aggregate.h).
 */
#include "ns3/ega-aggregate.h"

#include "ns3/ega-quantizer.h"

#include <cmath>
#include <limits>
#include <string>

namespace ns3
{
namespace fl
{

namespace
{

void
CheckLevel(const EgaCodec& codec, uint32_t s)
{
    if (codec.DesignLevel() != 0 && codec.DesignLevel() != s)
    {
        throw ConfigError("s",
                          "the " + codec.Name() + " codec was built for s = " +
                              std::to_string(codec.DesignLevel()) + ", not " + std::to_string(s),
                          "quantise with the codec's level or train a codec for this s");
    }
}

} // namespace

void
CheckEgaCodecFits(const EgaCodec& codec, uint32_t s, uint32_t m)
{
    CheckLevel(codec, s);
    if (m == 0)
    {
        throw ConfigError("m", "zero clients", "aggregate at least one client");
    }
    if (codec.DesignClients() != 0 && codec.DesignClients() != m)
    {
        throw ConfigError("m",
                          "the " + codec.Name() + " decoder was trained for m = " +
                              std::to_string(codec.DesignClients()) + " clients, the sum has " +
                              std::to_string(m),
                          "fill the codes of missing clients with EgaZeroCodes (and rescale), or "
                          "use a codec trained for this m");
    }
}

void
EgaEncodeUpdate(const EgaCodec& codec,
                const Eigen::Ref<const Eigen::VectorXd>& update,
                uint32_t s,
                double n,
                Rng& rng,
                Eigen::MatrixXd& codes,
                double lambda)
{
    CheckLevel(codec, s);
    Eigen::MatrixXd blocks;
    EgaQuantizeToBlocks(update, s, n, codec.BlockSize(), rng, blocks, lambda);
    codec.Encode(blocks, codes);
}

void
EgaAccumulate(Eigen::MatrixXd& sum, const Eigen::Ref<const Eigen::MatrixXd>& codes)
{
    if (sum.size() == 0)
    {
        sum = codes;
        return;
    }
    if (sum.rows() != codes.rows() || sum.cols() != codes.cols())
    {
        throw ConfigError("codes",
                          "a " + std::to_string(codes.rows()) + " x " +
                              std::to_string(codes.cols()) + " upload, the sum is " +
                              std::to_string(sum.rows()) + " x " + std::to_string(sum.cols()),
                          "sum codes of the same codec and model size only");
    }
    sum += codes;
}

void
EgaDecodeAggregate(const EgaCodec& codec,
                   const Eigen::Ref<const Eigen::MatrixXd>& codeSum,
                   uint32_t m,
                   std::size_t d,
                   uint32_t s,
                   double n,
                   Rng& rng,
                   Eigen::VectorXd& aggregate)
{
    ValidateEgaQuantizer(s, n);
    CheckEgaCodecFits(codec, s, m);
    Eigen::MatrixXd blocks;
    codec.Decode(codeSum / static_cast<double>(m), blocks, rng);
    EgaFromBlocks(blocks, d, aggregate);
    aggregate *= n / static_cast<double>(s);
}

void
EgaZeroCodes(const EgaCodec& codec, Eigen::Index blocks, Eigen::MatrixXd& codes)
{
    codec.Encode(Eigen::MatrixXd::Zero(codec.BlockSize(), blocks), codes);
}

void
EgaCuriousServerProbe(const EgaCodec& codec,
                      const Eigen::Ref<const Eigen::MatrixXd>& codeSum,
                      const Eigen::Ref<const Eigen::MatrixXd>& clientCodes,
                      const Eigen::Ref<const Eigen::VectorXd>& aggregate,
                      uint32_t m,
                      uint32_t s,
                      double n,
                      Rng& rng,
                      Eigen::VectorXd& leaked)
{
    if (clientCodes.rows() != codeSum.rows() || clientCodes.cols() != codeSum.cols())
    {
        throw ConfigError("clientCodes",
                          "shape differs from the code sum's",
                          "pass the codes the client uploaded in this round");
    }
    Eigen::MatrixXd swapped;
    EgaZeroCodes(codec, codeSum.cols(), swapped);
    swapped += codeSum - clientCodes;
    const std::size_t d = static_cast<std::size_t>(aggregate.size());
    if (d > static_cast<std::size_t>(codeSum.cols()) * codec.BlockSize() || d == 0)
    {
        throw ConfigError("aggregate",
                          "has " + std::to_string(d) + " entries, the codes hold " +
                              std::to_string(codeSum.cols()) + " blocks of " +
                              std::to_string(codec.BlockSize()),
                          "pass the round's decoded aggregate");
    }
    EgaDecodeAggregate(codec, swapped, m, d, s, n, rng, leaked);
    leaked = static_cast<double>(m) * (aggregate - leaked);
}

double
EgaRelativeError(const Eigen::Ref<const Eigen::VectorXd>& estimate,
                 const Eigen::Ref<const Eigen::VectorXd>& truth)
{
    const double diff = (estimate - truth).norm();
    const double ref = truth.norm();
    if (ref == 0.0)
    {
        return diff == 0.0 ? 0.0 : std::numeric_limits<double>::infinity();
    }
    return diff / ref;
}

double
EgaCosineSimilarity(const Eigen::Ref<const Eigen::VectorXd>& a,
                    const Eigen::Ref<const Eigen::VectorXd>& b)
{
    const double na = a.norm();
    const double nb = b.norm();
    if (na == 0.0 || nb == 0.0)
    {
        return 0.0;
    }
    return a.dot(b) / (na * nb);
}

} // namespace fl
} // namespace ns3

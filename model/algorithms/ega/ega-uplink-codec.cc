/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/ega-uplink-codec.h"

#include "ns3/ega-aggregate.h"
#include "ns3/ega-quantizer.h"

#include <cmath>
#include <cstring>
#include <tuple>

namespace ns3
{
namespace fl
{

std::vector<uint8_t>
EgaPackCodes(const Eigen::MatrixXd& codes)
{
    std::vector<uint8_t> out(static_cast<std::size_t>(codes.size()) * 4);
    for (Eigen::Index i = 0; i < codes.size(); ++i)
    {
        const float f = static_cast<float>(codes.data()[i]);
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        for (int b = 0; b < 4; ++b)
        {
            out[static_cast<std::size_t>(i) * 4 + b] = static_cast<uint8_t>(bits >> (8 * b));
        }
    }
    return out;
}

bool
EgaUnpackCodes(const std::vector<uint8_t>& payload,
               uint32_t h,
               std::size_t blocks,
               Eigen::MatrixXd& codes)
{
    const std::size_t n = static_cast<std::size_t>(h) * blocks;
    if (h == 0 || blocks == 0 || payload.size() != n * 4)
    {
        return false;
    }
    Eigen::MatrixXd out(h, static_cast<Eigen::Index>(blocks));
    for (std::size_t i = 0; i < n; ++i)
    {
        uint32_t bits = 0;
        for (int b = 0; b < 4; ++b)
        {
            bits |= static_cast<uint32_t>(payload[i * 4 + b]) << (8 * b);
        }
        float f;
        std::memcpy(&f, &bits, 4);
        if (!std::isfinite(f))
        {
            return false;
        }
        out.data()[i] = static_cast<double>(f);
    }
    codes = std::move(out);
    return true;
}

EgaUplinkCodec::EgaUplinkCodec(std::shared_ptr<const EgaCodec> codec, uint32_t s)
    : m_codec(std::move(codec)),
      m_s(s)
{
    if (!m_codec)
    {
        throw ConfigError("codec", "none given", "pass an EGA codec");
    }
    ValidateEgaQuantizer(s, 1.0);
    if (m_codec->DesignLevel() != 0 && m_codec->DesignLevel() != s)
    {
        throw ConfigError("s",
                          "the codec was built for s = " + std::to_string(m_codec->DesignLevel()) +
                              ", not " + std::to_string(s),
                          "use the codec's s");
    }
}

std::string
EgaUplinkCodec::Name() const
{
    return "ega-" + m_codec->Name();
}

double
EgaUplinkCodec::Statistic(const ParamVector& update) const
{
    const Eigen::VectorXd u = update.ConvertedTo(Precision::Float64).Get<double>();
    return u.size() == 0 ? 0.0 : u.cwiseAbs().maxCoeff();
}

double
EgaUplinkCodec::Lambda(const UplinkRoundParams& params, double weight)
{
    return params.totalWeight > 0.0
               ? static_cast<double>(params.slots) * weight / params.totalWeight
               : 0.0;
}

UplinkRoundParams
EgaUplinkCodec::Agree(const std::vector<UplinkReport>& reports) const
{
    if (reports.empty())
    {
        throw ConfigError("reports", "no client reported", "agree only with at least one report");
    }
    const uint32_t designed = m_codec->DesignClients();
    if (designed != 0 && reports.size() > designed)
    {
        throw ConfigError("ClientsPerRound",
                          std::to_string(reports.size()) + " clients in a round, the " +
                              m_codec->Name() + " decoder was trained for m = " +
                              std::to_string(designed),
                          "select at most m clients per round, or train a codec for more");
    }
    UplinkRoundParams p;
    p.slots = designed != 0 ? designed : static_cast<uint32_t>(reports.size());
    for (const auto& r : reports)
    {
        p.totalWeight += r.weight;
    }
    double n = 0.0;
    for (const auto& r : reports)
    {
        n = std::max(n, Lambda(p, r.weight) * r.statistic);
    }
    p.scale = n > 0.0 && std::isfinite(n) ? n : 1.0; // all-zero updates: any n quantises to 0
    return p;
}

std::vector<uint8_t>
EgaUplinkCodec::Encode(const ParamVector& update,
                       const UplinkRoundParams& params,
                       uint32_t client,
                       double weight,
                       Rng& rng) const
{
    const Eigen::VectorXd u = update.ConvertedTo(Precision::Float64).Get<double>();
    const double lambda = Lambda(params, weight);
    if (m_encodeSink)
    {
        m_encodeSink(client, u, lambda);
    }
    Eigen::MatrixXd codes;
    EgaEncodeUpdate(*m_codec, u, m_s, params.scale, rng, codes, lambda);
    return EgaPackCodes(codes);
}

std::size_t
EgaUplinkCodec::PayloadBytes(std::size_t d) const
{
    return 4 * SumSize(d);
}

std::size_t
EgaUplinkCodec::SumSize(std::size_t parameters) const
{
    const std::size_t b = m_codec->BlockSize();
    return ((parameters + b - 1) / b) * m_codec->CodeSize();
}

bool
EgaUplinkCodec::PayloadValues(const std::vector<uint8_t>& payload,
                              std::size_t parameters,
                              Eigen::VectorXd& values) const
{
    const std::size_t b = m_codec->BlockSize();
    Eigen::MatrixXd codes;
    if (!EgaUnpackCodes(payload, m_codec->CodeSize(), (parameters + b - 1) / b, codes))
    {
        return false;
    }
    values = Eigen::Map<const Eigen::VectorXd>(codes.data(), codes.size());
    return true;
}

void
EgaUplinkCodec::SetProbeSink(std::function<void(const EgaProbeRecord&)> sink)
{
    m_probeSink = std::move(sink);
}

void
EgaUplinkCodec::SetEncodeSink(std::function<void(uint32_t, const Eigen::VectorXd&, double)> sink)
{
    m_encodeSink = std::move(sink);
}

class EgaUplinkCodec::Aggregator : public UplinkAggregator
{
  public:
    Aggregator(const EgaUplinkCodec& owner,
               const UplinkRoundParams& params,
               std::size_t d,
               Precision precision)
        : m_owner(owner),
          m_params(params),
          m_d(d),
          m_precision(precision)
    {
        const std::size_t b = owner.m_codec->BlockSize();
        m_blocks = (d + b - 1) / b;
    }

    bool Add(uint32_t client, const std::vector<uint8_t>& payload, double weight) override
    {
        Eigen::MatrixXd codes;
        if (m_summed || m_count >= m_params.slots ||
            !EgaUnpackCodes(payload, m_owner.m_codec->CodeSize(), m_blocks, codes))
        {
            return false;
        }
        EgaAccumulate(m_sum, codes);
        m_weight += weight;
        ++m_count;
        if (m_owner.m_probeSink)
        {
            m_codes.emplace_back(client, weight, std::move(codes));
        }
        return true;
    }

    bool AddSum(const Eigen::VectorXd& sum,
                const std::vector<uint32_t>& participants,
                double weight) override
    {
        const auto h = static_cast<Eigen::Index>(m_owner.m_codec->CodeSize());
        const auto k = static_cast<Eigen::Index>(m_blocks);
        if (m_count != 0 || participants.empty() || participants.size() > m_params.slots ||
            sum.size() != h * k || !sum.allFinite() || !(weight > 0.0) || !std::isfinite(weight))
        {
            return false;
        }
        // the same h x K layout as EgaUnpackCodes (column by column)
        m_sum = Eigen::Map<const Eigen::MatrixXd>(sum.data(), h, k);
        m_weight = weight;
        m_count = static_cast<uint32_t>(participants.size());
        m_summed = true;
        return true;
    }

    uint32_t Count() const override
    {
        return m_count;
    }

    ParamVector Finish(Rng& rng) override
    {
        if (m_count == 0 || !(m_weight > 0.0))
        {
            throw ConfigError("payloads", "none with a positive weight", "add one first");
        }
        const EgaCodec& codec = *m_owner.m_codec;
        if (m_count < m_params.slots)
        {
            // Dropped clients: their slots hold the encoding of Q(0).
            Eigen::MatrixXd zero;
            EgaZeroCodes(codec, static_cast<Eigen::Index>(m_blocks), zero);
            m_sum += static_cast<double>(m_params.slots - m_count) * zero;
        }
        Eigen::VectorXd agg;
        EgaDecodeAggregate(codec, m_sum, m_params.slots, m_d, m_owner.m_s, m_params.scale, rng, agg);
        const double rescale = m_params.totalWeight / m_weight;
        if (rescale != 1.0)
        {
            agg *= rescale;
        }
        if (m_owner.m_probeSink && !m_summed) // a sum hides the single clients' codes
        {
            for (const auto& [client, weight, codes] : m_codes)
            {
                EgaProbeRecord rec;
                rec.client = client;
                rec.lambda = EgaUplinkCodec::Lambda(m_params, weight);
                // The probe runs on the sum as decoded (before the dropout rescale).
                Eigen::VectorXd decoded = agg / rescale;
                EgaCuriousServerProbe(codec,
                                      m_sum,
                                      codes,
                                      decoded,
                                      m_params.slots,
                                      m_owner.m_s,
                                      m_params.scale,
                                      rng,
                                      rec.leaked);
                if (rec.lambda > 0.0)
                {
                    rec.leaked /= rec.lambda;
                }
                m_owner.m_probeSink(rec);
            }
        }
        if (m_precision == Precision::Float64)
        {
            return ParamVector(std::move(agg));
        }
        return ParamVector(Eigen::VectorXf(agg.cast<float>()));
    }

  private:
    const EgaUplinkCodec& m_owner;
    UplinkRoundParams m_params;
    std::size_t m_d;
    Precision m_precision;
    std::size_t m_blocks{0};
    Eigen::MatrixXd m_sum;
    double m_weight{0.0};
    uint32_t m_count{0};
    bool m_summed{false}; ///< finished from AddSum
    std::vector<std::tuple<uint32_t, double, Eigen::MatrixXd>> m_codes;
};

std::unique_ptr<UplinkAggregator>
EgaUplinkCodec::Begin(const UplinkRoundParams& params,
                      std::size_t parameters,
                      Precision precision) const
{
    if (params.slots == 0 || (m_codec->DesignClients() != 0 &&
                              params.slots != m_codec->DesignClients()))
    {
        throw ConfigError("slots",
                          std::to_string(params.slots) + " for a codec of m = " +
                              std::to_string(m_codec->DesignClients()),
                          "use the parameters Agree returned");
    }
    if (parameters == 0)
    {
        throw ConfigError("parameters", "zero", "aggregate a non-empty model");
    }
    return std::make_unique<Aggregator>(*this, params, parameters, precision);
}

} // namespace fl
} // namespace ns3

/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/uplink-codec.h"

#include "ns3/model-message.h"

#include <cmath>

namespace ns3
{
namespace fl
{

std::vector<uint8_t>
UplinkRoundParams::Pack() const
{
    return PackF64({scale, totalWeight, static_cast<double>(slots)});
}

bool
UplinkRoundParams::Unpack(const std::vector<uint8_t>& bytes, UplinkRoundParams& out)
{
    std::vector<double> v;
    if (bytes.size() != 24 || !UnpackF64(bytes, v) || v.size() != 3)
    {
        return false;
    }
    for (double x : v)
    {
        if (!std::isfinite(x) || x < 0.0)
        {
            return false;
        }
    }
    if (v[2] < 1.0 || v[2] >= 2147483648.0 || v[2] != std::floor(v[2]))
    {
        return false;
    }
    out.scale = v[0];
    out.totalWeight = v[1];
    out.slots = static_cast<uint32_t>(v[2]);
    return true;
}

std::vector<uint8_t>
PackUplinkReport(const UplinkReport& r)
{
    return PackF64({r.statistic, r.weight});
}

bool
UnpackUplinkReport(const std::vector<uint8_t>& bytes, UplinkReport& out)
{
    std::vector<double> v;
    if (bytes.size() != 16 || !UnpackF64(bytes, v) || v.size() != 2)
    {
        return false;
    }
    if (!std::isfinite(v[0]) || !std::isfinite(v[1]) || v[0] < 0.0 || v[1] < 0.0)
    {
        return false;
    }
    out.statistic = v[0];
    out.weight = v[1];
    return true;
}

double
UplinkCodec::Statistic(const ParamVector& /* update */) const
{
    return 0.0;
}

bool
UplinkAggregator::AddSum(const Eigen::VectorXd& /* sum */,
                         const std::vector<uint32_t>& /* participants */,
                         double /* weight */)
{
    return false;
}

std::size_t
UplinkCodec::SumSize(std::size_t /* parameters */) const
{
    return 0;
}

bool
UplinkCodec::PayloadValues(const std::vector<uint8_t>& /* payload */,
                           std::size_t /* parameters */,
                           Eigen::VectorXd& /* values */) const
{
    return false;
}

namespace
{
void
CheckSame(const ParamVector& a, const ParamVector& b, const char* what)
{
    if (a.Size() != b.Size() || a.GetPrecision() != b.GetPrecision())
    {
        throw ConfigError(what,
                          "vectors of " + std::to_string(a.Size()) + " and " +
                              std::to_string(b.Size()) + " entries (or precisions) differ",
                          "combine vectors of the same model");
    }
}
} // namespace

void
AddInPlace(ParamVector& model, const ParamVector& update)
{
    CheckSame(model, update, "update");
    if (model.GetPrecision() == Precision::Float64)
    {
        model.Get<double>() += update.Get<double>();
    }
    else
    {
        model.Get<float>() += update.Get<float>();
    }
}

ParamVector
Difference(const ParamVector& local, const ParamVector& global)
{
    CheckSame(local, global, "local model");
    if (local.GetPrecision() == Precision::Float64)
    {
        return ParamVector(Eigen::VectorXd(local.Get<double>() - global.Get<double>()));
    }
    return ParamVector(Eigen::VectorXf(local.Get<float>() - global.Get<float>()));
}

ParamVector
UploadReference(const ParamVector& model, std::size_t values, bool uploadIsModel)
{
    if (uploadIsModel && values == model.Size())
    {
        return model;
    }
    if (uploadIsModel && values < model.Size())
    {
        throw ConfigError("uploadValues",
                          std::to_string(values) + " values, fewer than the model's " +
                              std::to_string(model.Size()),
                          "an upload that is a model has at least the model's size");
    }
    Eigen::VectorXd ref = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(values));
    if (uploadIsModel)
    {
        ref.head(static_cast<Eigen::Index>(model.Size())) =
            model.ConvertedTo(Precision::Float64).Get<double>();
    }
    return ParamVector(ref).ConvertedTo(model.GetPrecision());
}

double
UplinkClientWeight(double samples, double meanLoss, double q)
{
    if (q == 0.0)
    {
        return samples;
    }
    const double loss = std::isfinite(meanLoss) && meanLoss > 0.0 ? meanLoss : 0.0;
    return samples * std::pow(loss, q);
}

uint64_t
UplinkEncodeSeed(uint64_t clientTrainingSeed, uint32_t round)
{
    return DeriveSeed(clientTrainingSeed, round, 0xE6A1);
}

uint64_t
UplinkDecodeSeed(uint64_t serverInitSeed, uint32_t round)
{
    return DeriveSeed(serverInitSeed, round, 0xE6A2);
}

} // namespace fl
} // namespace ns3

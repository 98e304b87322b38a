/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/param-vector.h"

#include <cstring>

namespace ns3
{
namespace fl
{

ParamVector
ParamVector::Zeros(Precision p, std::size_t n)
{
    const auto len = static_cast<Eigen::Index>(n);
    if (p == Precision::Float64)
    {
        return ParamVector(Eigen::VectorXd(Eigen::VectorXd::Zero(len)));
    }
    return ParamVector(Eigen::VectorXf(Eigen::VectorXf::Zero(len)));
}

std::size_t
ParamVector::Size() const
{
    return std::visit([](const auto& v) { return static_cast<std::size_t>(v.size()); }, m_v);
}

double
ParamVector::At(std::size_t i) const
{
    return std::visit(
        [i](const auto& v) { return static_cast<double>(v[static_cast<Eigen::Index>(i)]); },
        m_v);
}

ParamVector
ParamVector::ConvertedTo(Precision p) const
{
    if (p == GetPrecision())
    {
        return *this;
    }
    if (p == Precision::Float64)
    {
        return ParamVector(Get<float>().cast<double>().eval());
    }
    return ParamVector(Get<double>().cast<float>().eval());
}

bool
ParamVector::operator==(const ParamVector& other) const
{
    if (GetPrecision() != other.GetPrecision() || Size() != other.Size())
    {
        return false;
    }
    const std::size_t bytes = Size() * PrecisionBytes(GetPrecision());
    const void* a = GetPrecision() == Precision::Float64
                        ? static_cast<const void*>(Get<double>().data())
                        : static_cast<const void*>(Get<float>().data());
    const void* b = GetPrecision() == Precision::Float64
                        ? static_cast<const void*>(other.Get<double>().data())
                        : static_cast<const void*>(other.Get<float>().data());
    return bytes == 0 || std::memcmp(a, b, bytes) == 0;
}

void
ParamVector::ThrowPrecisionMismatch(Precision wanted) const
{
    throw ConfigError("precision",
                      std::string("vector holds ") + PrecisionName(GetPrecision()) + " but " +
                          PrecisionName(wanted) + " was requested",
                      "use the same Precision for the task and the code that reads its vectors");
}

} // namespace fl
} // namespace ns3

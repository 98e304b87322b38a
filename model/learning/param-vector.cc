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

ParamVector
Concatenate(const ParamVector& a, const ParamVector& b)
{
    const ParamVector bb = b.ConvertedTo(a.GetPrecision());
    const auto n = static_cast<Eigen::Index>(a.Size() + b.Size());
    if (a.GetPrecision() == Precision::Float64)
    {
        Eigen::VectorXd v(n);
        v << a.Get<double>(), bb.Get<double>();
        return ParamVector(std::move(v));
    }
    Eigen::VectorXf v(n);
    v << a.Get<float>(), bb.Get<float>();
    return ParamVector(std::move(v));
}

ParamVector
Slice(const ParamVector& v, std::size_t offset, std::size_t count)
{
    if (offset > v.Size() || count > v.Size() - offset)
    {
        throw ConfigError("count",
                          "elements [" + std::to_string(offset) + ", " +
                              std::to_string(offset + count) + ") of a vector of " +
                              std::to_string(v.Size()),
                          "slice inside the vector");
    }
    const auto o = static_cast<Eigen::Index>(offset);
    const auto c = static_cast<Eigen::Index>(count);
    if (v.GetPrecision() == Precision::Float64)
    {
        return ParamVector(Eigen::VectorXd(v.Get<double>().segment(o, c)));
    }
    return ParamVector(Eigen::VectorXf(v.Get<float>().segment(o, c)));
}

} // namespace fl
} // namespace ns3

/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * A flat parameter vector whose scalar type (float64 or float32) is chosen at run time.
 */
#ifndef FL_PARAM_VECTOR_H
#define FL_PARAM_VECTOR_H

#include "ns3/fl-types.h"

#include <type_traits>
#include <variant>

namespace ns3
{
namespace fl
{

/**
 * A model's flat parameter vector in float64 or float32. The network layers move ParamVectors
 * without knowing the scalar; the learning code gets the typed Eigen vector back with Get<S>().
 */
class ParamVector
{
  public:
    /// An empty float64 vector.
    ParamVector() = default;

    /// Takes a float64 vector.
    explicit ParamVector(Eigen::VectorXd v)
        : m_v(std::move(v))
    {
    }

    /// Takes a float32 vector.
    explicit ParamVector(Eigen::VectorXf v)
        : m_v(std::move(v))
    {
    }

    /**
     * Takes any Eigen vector expression (e.g. Eigen::VectorXd::Zero(n), a * x + y) and
     * evaluates it at its own scalar type: double gives a float64 vector, float a float32 one.
     */
    template <typename Derived>
    explicit ParamVector(const Eigen::MatrixBase<Derived>& e)
        : m_v(Vec<typename Derived::Scalar>(e))
    {
        static_assert(std::is_same_v<typename Derived::Scalar, double> ||
                          std::is_same_v<typename Derived::Scalar, float>,
                      "ParamVector holds float64 or float32 elements: cast the expression with "
                      ".cast<double>() or .cast<float>()");
    }

    /// A zero vector of n elements of precision p.
    static ParamVector Zeros(Precision p, std::size_t n);

    /// Precision of the elements.
    Precision GetPrecision() const
    {
        return m_v.index() == 0 ? Precision::Float64 : Precision::Float32;
    }

    /// Number of elements.
    std::size_t Size() const;

    /// The typed vector; throws ConfigError if S does not match the stored precision.
    template <typename S>
    const Vec<S>& Get() const
    {
        const auto* p = std::get_if<Vec<S>>(&m_v);
        if (!p)
        {
            ThrowPrecisionMismatch(PrecisionOf<S>());
        }
        return *p;
    }

    /// The typed vector (mutable); throws ConfigError if S does not match.
    template <typename S>
    Vec<S>& Get()
    {
        auto* p = std::get_if<Vec<S>>(&m_v);
        if (!p)
        {
            ThrowPrecisionMismatch(PrecisionOf<S>());
        }
        return *p;
    }

    /// Element i converted to double (for inspection and tests; not for hot loops).
    double At(std::size_t i) const;

    /// The same values converted to precision p (a copy, or a plain copy if p matches).
    ParamVector ConvertedTo(Precision p) const;

    /// Bitwise equality of precision, size and every element.
    bool operator==(const ParamVector& other) const;

    bool operator!=(const ParamVector& other) const
    {
        return !(*this == other);
    }

  private:
    [[noreturn]] void ThrowPrecisionMismatch(Precision wanted) const;
    std::variant<Eigen::VectorXd, Eigen::VectorXf> m_v;
};

/// [a; b] in a's precision (b converted): a model followed by what travels with it.
ParamVector Concatenate(const ParamVector& a, const ParamVector& b);

/// Elements [offset, offset + count) of v, in v's precision. Throws ConfigError naming "count"
/// if the range is not inside v.
ParamVector Slice(const ParamVector& v, std::size_t offset, std::size_t count);

} // namespace fl
} // namespace ns3

#endif // FL_PARAM_VECTOR_H

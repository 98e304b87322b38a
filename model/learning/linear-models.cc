/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/linear-models.h"

#include "ns3/mlp-model.h"
#include "ns3/softmax-cross-entropy.h"
#include "ns3/text-parse.h"

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <limits>

namespace ns3
{
namespace fl
{

namespace
{

/// Throws ConfigError unless `value` is finite and >= 0.
void
CheckNonNegative(double value, const std::string& parameter)
{
    if (!(value >= 0.0) || !std::isfinite(value))
    {
        throw ConfigError(parameter,
                          "must be a finite number >= 0, got " + std::to_string(value),
                          "pass e.g. " + parameter + "=0.01, or 0 to switch it off");
    }
}

/// Throws ConfigError unless `dim` > 0.
void
CheckPositive(std::size_t value, const std::string& parameter)
{
    if (value == 0)
    {
        throw ConfigError(parameter, "must be > 0", "give a positive " + parameter);
    }
}

/// Throws ConfigError unless w, X and y have the sizes a model with `params` parameters and
/// input dimension `dim` expects.
template <typename S>
void
CheckShapes(const std::string& model,
            std::size_t params,
            std::size_t dim,
            const Vec<S>& w,
            const Eigen::Ref<const Mat<S>>& X,
            const Eigen::Ref<const Vec<S>>* y)
{
    if (static_cast<std::size_t>(w.size()) != params)
    {
        throw ConfigError("parameters",
                          model + " has " + std::to_string(params) +
                              " parameters, got a vector of " + std::to_string(w.size()),
                          "pass a parameter vector made by this model");
    }
    if (static_cast<std::size_t>(X.cols()) != dim)
    {
        throw ConfigError("features",
                          model + " expects " + std::to_string(dim) + " features, got " +
                              std::to_string(X.cols()),
                          "build the model with the data set's dimension");
    }
    if (y != nullptr && y->size() != X.rows())
    {
        throw ConfigError("targets",
                          std::to_string(X.rows()) + " feature rows but " +
                              std::to_string(y->size()) + " targets",
                          "give one target per sample");
    }
}

/**
 * Per-thread scratch vector of at least `n` entries (returns a view of exactly n). Convex models
 * have no scratch members, so they borrow these: no allocation per call once grown.
 */
template <typename S>
Eigen::VectorBlock<Vec<S>>
ScratchVec(Eigen::Index n)
{
    thread_local Vec<S> buf;
    if (buf.size() < n)
    {
        buf.resize(n);
    }
    return buf.head(n);
}

/// Per-thread scratch matrix with exactly `cols` columns and at least `rows` rows (view of rows).
template <typename S>
Eigen::Block<Mat<S>, Eigen::Dynamic, Eigen::Dynamic, true>
ScratchMat(Eigen::Index rows, Eigen::Index cols)
{
    thread_local Mat<S> buf;
    if (buf.rows() < rows || buf.cols() != cols)
    {
        buf.resize(std::max(rows, buf.cols() == cols ? buf.rows() : Eigen::Index(0)), cols);
    }
    return buf.topRows(rows);
}

/// softplus(x) = ln(1 + e^x) without overflow.
template <typename T>
inline T
Softplus(T x)
{
    return x > T(0) ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
}

/// Logistic sigmoid 1 / (1 + e^{-x}) without overflow.
template <typename T>
inline T
Sigmoid(T x)
{
    if (x >= T(0))
    {
        return T(1) / (T(1) + std::exp(-x));
    }
    const T e = std::exp(x);
    return e / (T(1) + e);
}

} // namespace

// ------------------------------------------------------------------------------------------
// LinearScoreModel
// ------------------------------------------------------------------------------------------

template <typename S>
LinearScoreModel<S>::LinearScoreModel(std::string name,
                                      TargetKind kind,
                                      std::size_t dim,
                                      double rho)
    : m_name(std::move(name)),
      m_kind(kind),
      m_dim(dim),
      m_rho(rho)
{
    CheckPositive(dim, "dim");
    CheckNonNegative(rho, "rho");
}

template <typename S>
std::string
LinearScoreModel<S>::Name() const
{
    return m_name;
}

template <typename S>
std::size_t
LinearScoreModel<S>::NumParameters() const
{
    return m_dim;
}

template <typename S>
std::size_t
LinearScoreModel<S>::InputDim() const
{
    return m_dim;
}

template <typename S>
TargetKind
LinearScoreModel<S>::Kind() const
{
    return m_kind;
}

template <typename S>
std::size_t
LinearScoreModel<S>::NumOutputs() const
{
    return 1;
}

template <typename S>
Vec<S>
LinearScoreModel<S>::InitialParameters(Rng& /* rng */) const
{
    return Vec<S>::Zero(static_cast<Eigen::Index>(m_dim));
}

template <typename S>
Mat<S>
LinearScoreModel<S>::Predict(const Vec<S>& w, const MatRef& X) const
{
    CheckSizes(w, X, nullptr);
    Mat<S> out(X.rows(), 1);
    out.col(0).noalias() = X * w;
    return out;
}

template <typename S>
void
LinearScoreModel<S>::CheckSizes(const Vec<S>& w, const MatRef& X, const VecRef* y) const
{
    CheckShapes<S>(m_name, m_dim, m_dim, w, X, y);
}

// ------------------------------------------------------------------------------------------
// RidgeRegression
// ------------------------------------------------------------------------------------------

template <typename S>
RidgeRegression<S>::RidgeRegression(std::size_t dim, double rho)
    : LinearScoreModel<S>("ridge", TargetKind::Regression, dim, rho)
{
}

template <typename S>
S
RidgeRegression<S>::Loss(const Vec<S>& w, const MatRef& X, const VecRef& y) const
{
    this->CheckSizes(w, X, &y);
    S loss = static_cast<S>(this->Rho()) * w.squaredNorm();
    const Eigen::Index n = X.rows();
    if (n > 0)
    {
        auto r = ScratchVec<S>(n);
        r.noalias() = X * w;
        r -= y;
        loss += r.squaredNorm() / static_cast<S>(n);
    }
    return loss;
}

template <typename S>
S
RidgeRegression<S>::LossAndGradient(const Vec<S>& w,
                                    const MatRef& X,
                                    const VecRef& y,
                                    Vec<S>& grad) const
{
    this->CheckSizes(w, X, &y);
    const S rho = static_cast<S>(this->Rho());
    grad.resize(static_cast<Eigen::Index>(this->InputDim()));
    S loss = rho * w.squaredNorm();
    const Eigen::Index n = X.rows();
    if (n > 0)
    {
        auto r = ScratchVec<S>(n);
        r.noalias() = X * w;
        r -= y;
        loss += r.squaredNorm() / static_cast<S>(n);
        grad.noalias() = (S(2) / static_cast<S>(n)) * (X.transpose() * r);
        grad += (S(2) * rho) * w;
    }
    else
    {
        grad = (S(2) * rho) * w;
    }
    return loss;
}

template <typename S>
double
RidgeRegression<S>::FlopsPerSample() const
{
    // Forward u^T w (2M), backward u * residual accumulated into the gradient (2M).
    return 4.0 * static_cast<double>(this->InputDim());
}

template <typename S>
Eigen::VectorXd
RidgeOptimum(const std::vector<const Dataset<S>*>& parts, double rho)
{
    CheckNonNegative(rho, "rho");
    if (parts.empty())
    {
        throw ConfigError("parts", "no data sets given", "pass at least one data set");
    }
    const Eigen::Index dim = parts.front() != nullptr ? parts.front()->features.cols() : 0;
    Eigen::MatrixXd R = Eigen::MatrixXd::Zero(dim, dim);
    Eigen::VectorXd r = Eigen::VectorXd::Zero(dim);
    for (const Dataset<S>* part : parts)
    {
        if (part == nullptr || part->Size() == 0 || part->features.cols() != dim ||
            part->targets.size() != part->features.rows())
        {
            throw ConfigError("parts",
                              "a data set is missing, empty or of another dimension",
                              "pass non-empty data sets with the same feature dimension");
        }
        const Eigen::MatrixXd X = part->features.template cast<double>();
        const Eigen::VectorXd d = part->targets.template cast<double>();
        const double invN = 1.0 / static_cast<double>(X.rows());
        R.noalias() += invN * (X.transpose() * X);
        r.noalias() += invN * (X.transpose() * d);
    }
    const double invK = 1.0 / static_cast<double>(parts.size());
    R *= invK;
    r *= invK;
    R.diagonal().array() += rho;
    Eigen::LDLT<Eigen::MatrixXd> ldlt(R);
    if (ldlt.info() != Eigen::Success || !ldlt.isPositive())
    {
        throw ConfigError("rho",
                          "the averaged covariance plus rho I is not positive definite",
                          "use rho > 0 or more samples than features");
    }
    return ldlt.solve(r);
}

// ------------------------------------------------------------------------------------------
// LogisticRegression
// ------------------------------------------------------------------------------------------

template <typename S>
LogisticRegression<S>::LogisticRegression(std::size_t dim, double rho)
    : LinearScoreModel<S>("logistic", TargetKind::BinarySigned, dim, rho)
{
}

template <typename S>
S
LogisticRegression<S>::Loss(const Vec<S>& w, const MatRef& X, const VecRef& y) const
{
    this->CheckSizes(w, X, &y);
    S loss = static_cast<S>(0.5 * this->Rho()) * w.squaredNorm();
    const Eigen::Index n = X.rows();
    if (n > 0)
    {
        auto m = ScratchVec<S>(n);
        m.noalias() = X * w;
        S sum(0);
        for (Eigen::Index i = 0; i < n; ++i)
        {
            sum += Softplus(-y[i] * m[i]);
        }
        loss += sum / static_cast<S>(n);
    }
    return loss;
}

template <typename S>
S
LogisticRegression<S>::LossAndGradient(const Vec<S>& w,
                                       const MatRef& X,
                                       const VecRef& y,
                                       Vec<S>& grad) const
{
    this->CheckSizes(w, X, &y);
    const S rho = static_cast<S>(this->Rho());
    grad.resize(static_cast<Eigen::Index>(this->InputDim()));
    S loss = S(0.5) * rho * w.squaredNorm();
    const Eigen::Index n = X.rows();
    if (n > 0)
    {
        auto m = ScratchVec<S>(n);
        m.noalias() = X * w;
        const S invN = S(1) / static_cast<S>(n);
        S sum(0);
        for (Eigen::Index i = 0; i < n; ++i)
        {
            const S t = y[i] * m[i];
            sum += Softplus(-t);
            // d/dw ln(1 + exp(-t)) = -sigma(-t) * gamma * h
            m[i] = -invN * y[i] * Sigmoid(-t);
        }
        loss += sum * invN;
        grad.noalias() = X.transpose() * m;
        grad += rho * w;
    }
    else
    {
        grad = rho * w;
    }
    return loss;
}

template <typename S>
double
LogisticRegression<S>::FlopsPerSample() const
{
    // 2M forward, 2M for the gradient accumulation, plus the exp/log1p of the sample.
    return 4.0 * static_cast<double>(this->InputDim()) + 20.0;
}

template <typename S>
Eigen::VectorXd
LogisticOptimum(const Dataset<S>& data, double rho, int maxIterations)
{
    CheckNonNegative(rho, "rho");
    if (maxIterations < 1)
    {
        throw ConfigError("maxIterations", "must be >= 1", "pass e.g. 100");
    }
    if (data.Size() == 0 || data.targets.size() != data.features.rows())
    {
        throw ConfigError("data",
                          "empty, or features and targets differ in length",
                          "pass a non-empty data set with one label per sample");
    }
    const Eigen::MatrixXd X = data.features.template cast<double>();
    const Eigen::VectorXd y = data.targets.template cast<double>();
    const Eigen::Index n = X.rows();
    const Eigen::Index dim = X.cols();
    const double invN = 1.0 / static_cast<double>(n);

    auto objective = [&](const Eigen::VectorXd& w) {
        const Eigen::VectorXd m = X * w;
        double sum = 0.0;
        for (Eigen::Index i = 0; i < n; ++i)
        {
            sum += Softplus(-y[i] * m[i]);
        }
        return sum * invN + 0.5 * rho * w.squaredNorm();
    };

    Eigen::VectorXd w = Eigen::VectorXd::Zero(dim);
    Eigen::VectorXd coef(n);
    Eigen::VectorXd curv(n);
    Eigen::VectorXd grad(dim);
    Eigen::MatrixXd H(dim, dim);
    double J = objective(w);
    for (int it = 0; it < maxIterations; ++it)
    {
        const Eigen::VectorXd m = X * w;
        for (Eigen::Index i = 0; i < n; ++i)
        {
            const double t = y[i] * m[i];
            const double s = Sigmoid(-t); // sigma(-t); sigma(t) = 1 - s
            coef[i] = -invN * y[i] * s;
            curv[i] = invN * s * Sigmoid(t) * y[i] * y[i];
        }
        grad.noalias() = X.transpose() * coef;
        grad += rho * w;
        if (grad.norm() < 1e-12)
        {
            break;
        }
        // Exact Hessian (1/N) sum sigma(t) sigma(-t) gamma^2 h h^T + rho I.
        H.noalias() = X.transpose() * curv.asDiagonal() * X;
        H.diagonal().array() += rho;
        Eigen::LDLT<Eigen::MatrixXd> ldlt(H);
        if (ldlt.info() != Eigen::Success || !ldlt.isPositive())
        {
            H.diagonal().array() += 1e-12;
            ldlt.compute(H);
        }
        const Eigen::VectorXd step = ldlt.solve(grad);
        // Damped Newton (Armijo backtracking); the tolerance absorbs rounding of J near w°.
        const double slope = grad.dot(step);
        double alpha = 1.0;
        Eigen::VectorXd next = w - step;
        double Jnext = objective(next);
        const double tol = 8.0 * std::numeric_limits<double>::epsilon() * std::max(1.0, J);
        for (int k = 0; k < 40 && !(Jnext <= J - 1e-4 * alpha * slope + tol); ++k)
        {
            alpha *= 0.5;
            next = w - alpha * step;
            Jnext = objective(next);
        }
        w = next;
        J = Jnext;
    }
    return w;
}

// ------------------------------------------------------------------------------------------
// SoftmaxRegression
// ------------------------------------------------------------------------------------------

template <typename S>
SoftmaxRegression<S>::SoftmaxRegression(std::size_t dim, std::size_t classes, double l2)
    : m_dim(dim),
      m_classes(classes),
      m_l2(l2)
{
    CheckPositive(dim, "dim");
    if (classes < 2)
    {
        throw ConfigError("classes",
                          "softmax regression needs at least 2 classes, got " +
                              std::to_string(classes),
                          "set numClasses to the number of classes in the data");
    }
    CheckNonNegative(l2, "l2");
}

template <typename S>
std::string
SoftmaxRegression<S>::Name() const
{
    return "softmax";
}

template <typename S>
std::size_t
SoftmaxRegression<S>::NumParameters() const
{
    return m_classes * m_dim + m_classes;
}

template <typename S>
std::size_t
SoftmaxRegression<S>::InputDim() const
{
    return m_dim;
}

template <typename S>
TargetKind
SoftmaxRegression<S>::Kind() const
{
    return TargetKind::Categorical;
}

template <typename S>
std::size_t
SoftmaxRegression<S>::NumOutputs() const
{
    return m_classes;
}

template <typename S>
Vec<S>
SoftmaxRegression<S>::InitialParameters(Rng& /* rng */) const
{
    return Vec<S>::Zero(static_cast<Eigen::Index>(NumParameters()));
}

namespace
{

/// Logits Z = X W^T + 1 b^T of softmax regression, written into Z.
template <typename S>
void
SoftmaxLogits(const Vec<S>& w,
              const Eigen::Ref<const Mat<S>>& X,
              std::size_t classes,
              Eigen::Ref<Mat<S>> Z)
{
    const auto C = static_cast<Eigen::Index>(classes);
    const Eigen::Index d = X.cols();
    Eigen::Map<const Mat<S>> W(w.data(), C, d);
    Eigen::Map<const Vec<S>> b(w.data() + C * d, C);
    Z.noalias() = X * W.transpose();
    Z.rowwise() += b.transpose();
}

} // namespace

template <typename S>
S
SoftmaxRegression<S>::Loss(const Vec<S>& w, const MatRef& X, const VecRef& y) const
{
    CheckShapes<S>("softmax", NumParameters(), m_dim, w, X, &y);
    const auto C = static_cast<Eigen::Index>(m_classes);
    const auto d = static_cast<Eigen::Index>(m_dim);
    S loss(0);
    if (m_l2 > 0.0)
    {
        loss += static_cast<S>(0.5 * m_l2) * w.head(C * d).squaredNorm();
    }
    if (X.rows() > 0)
    {
        auto Z = ScratchMat<S>(X.rows(), C);
        SoftmaxLogits<S>(w, X, m_classes, Z);
        loss += SoftmaxCrossEntropy<S>(Z, y, false);
    }
    return loss;
}

template <typename S>
S
SoftmaxRegression<S>::LossAndGradient(const Vec<S>& w,
                                      const MatRef& X,
                                      const VecRef& y,
                                      Vec<S>& grad) const
{
    CheckShapes<S>("softmax", NumParameters(), m_dim, w, X, &y);
    const auto C = static_cast<Eigen::Index>(m_classes);
    const auto d = static_cast<Eigen::Index>(m_dim);
    grad.resize(static_cast<Eigen::Index>(NumParameters()));
    Eigen::Map<Mat<S>> gW(grad.data(), C, d);
    Eigen::Map<Vec<S>> gb(grad.data() + C * d, C);
    S loss(0);
    if (X.rows() > 0)
    {
        auto Z = ScratchMat<S>(X.rows(), C);
        SoftmaxLogits<S>(w, X, m_classes, Z);
        loss += SoftmaxCrossEntropy<S>(Z, y, true); // Z now holds dLoss/dlogits
        gW.noalias() = Z.transpose() * X;
        gb.noalias() = Z.colwise().sum().transpose();
    }
    else
    {
        grad.setZero();
    }
    if (m_l2 > 0.0)
    {
        const S l2 = static_cast<S>(m_l2);
        loss += S(0.5) * l2 * w.head(C * d).squaredNorm();
        grad.head(C * d) += l2 * w.head(C * d);
    }
    return loss;
}

template <typename S>
Mat<S>
SoftmaxRegression<S>::Predict(const Vec<S>& w, const MatRef& X) const
{
    CheckShapes<S>("softmax", NumParameters(), m_dim, w, X, nullptr);
    Mat<S> out(X.rows(), static_cast<Eigen::Index>(m_classes));
    SoftmaxLogits<S>(w, X, m_classes, out);
    return out;
}

template <typename S>
double
SoftmaxRegression<S>::FlopsPerSample() const
{
    // Logits (2Cd), weight gradient (2Cd), softmax and bias terms (~10C).
    return 4.0 * static_cast<double>(m_classes * m_dim) + 10.0 * static_cast<double>(m_classes);
}

// ------------------------------------------------------------------------------------------
// MakeModel
// ------------------------------------------------------------------------------------------

namespace
{

/// The valid model specifications, for error messages.
const char* const kModelChoices =
    "use one of ridge[:rho=R], logistic[:rho=R], softmax[:l2=L], "
    "mlp[:hidden=H1-H2-...,l2=L,activation=relu|tanh], e.g. \"mlp:hidden=128,l2=0\"";

/// Largest layer size a specification may ask for.
constexpr std::size_t kMaxLayerSize = 999999999;

/// Value of a numeric option (rho, l2): a finite number >= 0.
double
ParseSpecNumber(const std::string& key, const std::string& value)
{
    try
    {
        return ParseDouble(value, "model", 0.0);
    }
    catch (const ConfigError&)
    {
        throw ConfigError("model",
                          "option " + key + "='" + value + "' is not a finite number >= 0",
                          "write e.g. " + key + "=0.01");
    }
}

/// Layer sizes of option hidden, e.g. "256-64".
std::vector<std::size_t>
ParseHidden(const std::string& value)
{
    std::vector<std::size_t> sizes;
    try
    {
        for (const std::string& item : SplitList(value, "model", kDefaultMaxListItems, '-'))
        {
            sizes.push_back(ParseSize(item, "model", 1, kMaxLayerSize));
        }
    }
    catch (const ConfigError&)
    {
        throw ConfigError("model",
                          "option hidden='" + value + "' is not a list of positive layer sizes",
                          "write e.g. hidden=128 or hidden=256-64");
    }
    return sizes;
}

} // namespace

template <typename S>
std::shared_ptr<Model<S>>
MakeModel(const std::string& spec, std::size_t inputDim, std::size_t numClasses)
{
    const std::size_t colon = spec.find(':');
    const std::string name = spec.substr(0, colon);
    std::vector<std::pair<std::string, std::string>> options;
    if (colon != std::string::npos)
    {
        for (const std::string& item : SplitList(spec.substr(colon + 1), "model"))
        {
            const std::size_t eq = item.find('=');
            if (eq == std::string::npos || eq == 0)
            {
                throw ConfigError("model",
                                  "option '" + item + "' in \"" + spec + "\" is not key=value",
                                  kModelChoices);
            }
            options.emplace_back(item.substr(0, eq), item.substr(eq + 1));
        }
    }

    auto unknownOption = [&](const std::string& key, const std::string& valid) {
        return ConfigError("model",
                           "unknown option '" + key + "' for model " + name + " in \"" + spec +
                               "\"",
                           "valid options for " + name + ": " + valid);
    };

    if (name == "ridge" || name == "logistic")
    {
        double rho = 0.0;
        for (const auto& [key, value] : options)
        {
            if (key != "rho")
            {
                throw unknownOption(key, "rho");
            }
            rho = ParseSpecNumber(key, value);
        }
        if (name == "ridge")
        {
            return std::make_shared<RidgeRegression<S>>(inputDim, rho);
        }
        if (numClasses > 2)
        {
            throw ConfigError("model",
                              "logistic regression is binary but the data has " +
                                  std::to_string(numClasses) + " classes",
                              "use softmax or mlp for more than two classes");
        }
        return std::make_shared<LogisticRegression<S>>(inputDim, rho);
    }
    if (name == "softmax")
    {
        double l2 = 0.0;
        for (const auto& [key, value] : options)
        {
            if (key != "l2")
            {
                throw unknownOption(key, "l2");
            }
            l2 = ParseSpecNumber(key, value);
        }
        return std::make_shared<SoftmaxRegression<S>>(inputDim, numClasses, l2);
    }
    if (name == "mlp")
    {
        std::vector<std::size_t> hidden{128};
        double l2 = 0.0;
        Activation activation = Activation::Relu;
        for (const auto& [key, value] : options)
        {
            if (key == "hidden")
            {
                hidden = ParseHidden(value);
            }
            else if (key == "l2")
            {
                l2 = ParseSpecNumber(key, value);
            }
            else if (key == "activation")
            {
                if (value == "relu")
                {
                    activation = Activation::Relu;
                }
                else if (value == "tanh")
                {
                    activation = Activation::Tanh;
                }
                else
                {
                    throw ConfigError("model",
                                      "unknown activation '" + value + "' in \"" + spec + "\"",
                                      "use activation=relu or activation=tanh");
                }
            }
            else
            {
                throw unknownOption(key, "hidden, l2, activation");
            }
        }
        std::vector<std::size_t> layers{inputDim};
        layers.insert(layers.end(), hidden.begin(), hidden.end());
        layers.push_back(numClasses);
        return std::make_shared<MlpClassifier<S>>(layers, activation, l2);
    }
    throw ConfigError("model", "unknown model '" + name + "' in \"" + spec + "\"", kModelChoices);
}

#define FL_INSTANTIATE_LINEAR_MODELS(S)                                                            \
    template class LinearScoreModel<S>;                                                            \
    template class RidgeRegression<S>;                                                             \
    template class LogisticRegression<S>;                                                          \
    template class SoftmaxRegression<S>;                                                           \
    template Eigen::VectorXd RidgeOptimum(const std::vector<const Dataset<S>*>&, double);          \
    template Eigen::VectorXd LogisticOptimum(const Dataset<S>&, double, int);                      \
    template std::shared_ptr<Model<S>> MakeModel(const std::string&, std::size_t, std::size_t);

FL_INSTANTIATE_LINEAR_MODELS(double)
FL_INSTANTIATE_LINEAR_MODELS(float)

} // namespace fl
} // namespace ns3

/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/mlp-model.h"

#include "ns3/softmax-cross-entropy.h"

#include <algorithm>
#include <cmath>

namespace ns3
{
namespace fl
{

namespace
{

template <typename S>
using RowMap = Eigen::Map<Mat<S>>;
template <typename S>
using ConstRowMap = Eigen::Map<const Mat<S>>;

/// Makes `buf` at least `rows` x `cols` (never shrinks the rows) and returns its first `rows`.
template <typename S>
Eigen::Ref<Mat<S>>
Rows(Mat<S>& buf, Eigen::Index rows, Eigen::Index cols)
{
    if (buf.rows() < rows || buf.cols() != cols)
    {
        buf.resize(buf.cols() == cols ? std::max(rows, buf.rows()) : rows, cols);
    }
    return buf.topRows(rows);
}

} // namespace

template <typename S>
MlpClassifier<S>::MlpClassifier(std::vector<std::size_t> layers, Activation activation, double l2)
    : m_layers(std::move(layers)),
      m_activation(activation),
      m_l2(l2),
      m_numParams(0)
{
    if (m_layers.size() < 3)
    {
        throw ConfigError(
            "layers",
            "an MLP needs input, at least one hidden layer and an output layer, got " +
                std::to_string(m_layers.size()) + " sizes",
            "pass e.g. {784, 128, 10}");
    }
    for (std::size_t l = 0; l < m_layers.size(); ++l)
    {
        if (m_layers[l] == 0)
        {
            throw ConfigError("layers",
                              "layer " + std::to_string(l) + " has size 0",
                              "give every layer a positive size");
        }
    }
    if (m_layers.back() < 2)
    {
        throw ConfigError("classes",
                          "an MLP classifier needs at least 2 classes, got " +
                              std::to_string(m_layers.back()),
                          "set numClasses to the number of classes in the data");
    }
    if (!(l2 >= 0.0) || !std::isfinite(l2))
    {
        throw ConfigError("l2",
                          "must be a finite number >= 0, got " + std::to_string(l2),
                          "pass e.g. l2=1e-4, or 0 to switch it off");
    }
    if (activation != Activation::Relu && activation != Activation::Tanh)
    {
        throw ConfigError("activation", "unknown activation", "use relu or tanh");
    }
    for (std::size_t l = 1; l < m_layers.size(); ++l)
    {
        m_numParams += m_layers[l] * m_layers[l - 1] + m_layers[l];
    }
}

template <typename S>
typename MlpClassifier<S>::Scratch&
MlpClassifier<S>::Buffers() const
{
    thread_local Scratch scratch;
    if (scratch.act.size() != m_layers.size())
    {
        scratch.act.resize(m_layers.size());
        scratch.delta.resize(m_layers.size());
    }
    return scratch;
}

template <typename S>
std::string
MlpClassifier<S>::Name() const
{
    std::string name = "mlp";
    for (std::size_t size : m_layers)
    {
        name += "-" + std::to_string(size);
    }
    if (m_activation == Activation::Tanh)
    {
        name += "-tanh";
    }
    return name;
}

template <typename S>
std::size_t
MlpClassifier<S>::NumParameters() const
{
    return m_numParams;
}

template <typename S>
std::size_t
MlpClassifier<S>::InputDim() const
{
    return m_layers.front();
}

template <typename S>
TargetKind
MlpClassifier<S>::Kind() const
{
    return TargetKind::Categorical;
}

template <typename S>
std::size_t
MlpClassifier<S>::NumOutputs() const
{
    return m_layers.back();
}

template <typename S>
Vec<S>
MlpClassifier<S>::InitialParameters(Rng& rng) const
{
    Vec<S> w(static_cast<Eigen::Index>(m_numParams));
    Eigen::Index off = 0;
    for (std::size_t l = 1; l < m_layers.size(); ++l)
    {
        const double fanIn = static_cast<double>(m_layers[l - 1]);
        const double fanOut = static_cast<double>(m_layers[l]);
        const double limit = m_activation == Activation::Relu ? std::sqrt(6.0 / fanIn)
                                                              : std::sqrt(6.0 / (fanIn + fanOut));
        std::uniform_real_distribution<double> dist(-limit, limit);
        const auto weights = static_cast<Eigen::Index>(m_layers[l] * m_layers[l - 1]);
        for (Eigen::Index i = 0; i < weights; ++i)
        {
            w[off + i] = static_cast<S>(dist(rng));
        }
        off += weights;
        const auto biases = static_cast<Eigen::Index>(m_layers[l]);
        w.segment(off, biases).setZero();
        off += biases;
    }
    return w;
}

namespace
{

/**
 * Forward pass of the MLP on X (n x in): fills act[1..L] with the hidden activations and, in
 * act[L], the logits. Weights are read in place from w (no copies).
 */
template <typename S>
void
MlpForward(const std::vector<std::size_t>& layers,
           Activation activation,
           const Vec<S>& w,
           const Eigen::Ref<const Mat<S>>& X,
           std::vector<Mat<S>>& act)
{
    const Eigen::Index n = X.rows();
    const std::size_t L = layers.size() - 1;
    Eigen::Index off = 0;
    for (std::size_t l = 1; l <= L; ++l)
    {
        const auto in = static_cast<Eigen::Index>(layers[l - 1]);
        const auto out = static_cast<Eigen::Index>(layers[l]);
        ConstRowMap<S> W(w.data() + off, out, in);
        Eigen::Map<const Eigen::Matrix<S, 1, Eigen::Dynamic>> b(w.data() + off + out * in, out);
        off += out * in + out;

        Eigen::Ref<Mat<S>> Z = Rows(act[l], n, out);
        if (l == 1)
        {
            Z.noalias() = X * W.transpose();
        }
        else
        {
            Z.noalias() = act[l - 1].topRows(n) * W.transpose();
        }
        if (l == L)
        {
            Z.rowwise() += b;
        }
        else if (activation == Activation::Relu)
        {
            for (Eigen::Index i = 0; i < n; ++i)
            {
                Z.row(i).array() = (Z.row(i).array() + b.array()).max(S(0));
            }
        }
        else
        {
            for (Eigen::Index i = 0; i < n; ++i)
            {
                Z.row(i).array() = (Z.row(i).array() + b.array()).tanh();
            }
        }
    }
}

} // namespace

template <typename S>
S
MlpClassifier<S>::Loss(const Vec<S>& w, const MatRef& X, const VecRef& y) const
{
    if (static_cast<std::size_t>(w.size()) != m_numParams ||
        static_cast<std::size_t>(X.cols()) != m_layers.front() || y.size() != X.rows())
    {
        throw ConfigError("features",
                          Name() + ": parameters, features or targets have the wrong size (w " +
                              std::to_string(w.size()) + ", X " + std::to_string(X.rows()) + "x" +
                              std::to_string(X.cols()) + ", y " + std::to_string(y.size()) + ")",
                          "pass data of the model's input dimension and one target per row");
    }
    S loss(0);
    if (m_l2 > 0.0)
    {
        Eigen::Index off = 0;
        S sq(0);
        for (std::size_t l = 1; l < m_layers.size(); ++l)
        {
            const auto weights = static_cast<Eigen::Index>(m_layers[l] * m_layers[l - 1]);
            sq += w.segment(off, weights).squaredNorm();
            off += weights + static_cast<Eigen::Index>(m_layers[l]);
        }
        loss += static_cast<S>(0.5 * m_l2) * sq;
    }
    if (X.rows() > 0)
    {
        Scratch& scratch = Buffers();
        MlpForward<S>(m_layers, m_activation, w, X, scratch.act);
        loss += SoftmaxCrossEntropy<S>(scratch.act.back().topRows(X.rows()), y, false);
    }
    return loss;
}

template <typename S>
S
MlpClassifier<S>::LossAndGradient(const Vec<S>& w,
                                  const MatRef& X,
                                  const VecRef& y,
                                  Vec<S>& grad) const
{
    if (static_cast<std::size_t>(w.size()) != m_numParams ||
        static_cast<std::size_t>(X.cols()) != m_layers.front() || y.size() != X.rows())
    {
        throw ConfigError("features",
                          Name() + ": parameters, features or targets have the wrong size (w " +
                              std::to_string(w.size()) + ", X " + std::to_string(X.rows()) + "x" +
                              std::to_string(X.cols()) + ", y " + std::to_string(y.size()) + ")",
                          "pass data of the model's input dimension and one target per row");
    }
    grad.resize(static_cast<Eigen::Index>(m_numParams));
    const Eigen::Index n = X.rows();
    const std::size_t L = m_layers.size() - 1;
    const S l2 = static_cast<S>(m_l2);
    S loss(0);
    if (n == 0)
    {
        grad.setZero();
    }
    else
    {
        Scratch& scratch = Buffers();
        MlpForward<S>(m_layers, m_activation, w, X, scratch.act);
        // scratch.act[L] becomes dLoss/dlogits.
        loss += SoftmaxCrossEntropy<S>(scratch.act[L].topRows(n), y, true);

        // Backward, last layer first; `off` is the start of layer l's block in w and grad.
        Eigen::Index off = static_cast<Eigen::Index>(m_numParams);
        for (std::size_t l = L; l >= 1; --l)
        {
            const auto in = static_cast<Eigen::Index>(m_layers[l - 1]);
            const auto out = static_cast<Eigen::Index>(m_layers[l]);
            off -= out * in + out;
            ConstRowMap<S> W(w.data() + off, out, in);
            RowMap<S> gW(grad.data() + off, out, in);
            Eigen::Map<Eigen::Matrix<S, 1, Eigen::Dynamic>> gb(grad.data() + off + out * in, out);
            const auto D = (l == L ? scratch.act[L] : scratch.delta[l]).topRows(n);

            if (l == 1)
            {
                gW.noalias() = D.transpose() * X;
            }
            else
            {
                gW.noalias() = D.transpose() * scratch.act[l - 1].topRows(n);
            }
            gb = D.colwise().sum();
            if (m_l2 > 0.0)
            {
                gW += l2 * W;
            }
            if (l > 1)
            {
                // Back-propagate through W_l and the activation of layer l-1.
                Eigen::Ref<Mat<S>> Dprev = Rows(scratch.delta[l - 1], n, in);
                Dprev.noalias() = D * W;
                const auto A = scratch.act[l - 1].topRows(n);
                if (m_activation == Activation::Relu)
                {
                    Dprev.array() = (A.array() > S(0)).select(Dprev.array(), S(0));
                }
                else
                {
                    Dprev.array() *= S(1) - A.array().square();
                }
            }
        }
    }
    if (m_l2 > 0.0)
    {
        Eigen::Index off = 0;
        S sq(0);
        for (std::size_t l = 1; l <= L; ++l)
        {
            const auto weights = static_cast<Eigen::Index>(m_layers[l] * m_layers[l - 1]);
            sq += w.segment(off, weights).squaredNorm();
            if (n == 0)
            {
                grad.segment(off, weights) = l2 * w.segment(off, weights);
            }
            off += weights + static_cast<Eigen::Index>(m_layers[l]);
        }
        loss += S(0.5) * l2 * sq;
    }
    return loss;
}

template <typename S>
Mat<S>
MlpClassifier<S>::Predict(const Vec<S>& w, const MatRef& X) const
{
    if (static_cast<std::size_t>(w.size()) != m_numParams ||
        static_cast<std::size_t>(X.cols()) != m_layers.front())
    {
        throw ConfigError("features",
                          Name() + ": parameters or features have the wrong size (w " +
                              std::to_string(w.size()) + ", X " + std::to_string(X.rows()) + "x" +
                              std::to_string(X.cols()) + ")",
                          "pass data of the model's input dimension");
    }
    if (X.rows() == 0)
    {
        return Mat<S>(0, static_cast<Eigen::Index>(m_layers.back()));
    }
    Scratch& scratch = Buffers();
    MlpForward<S>(m_layers, m_activation, w, X, scratch.act);
    return scratch.act.back().topRows(X.rows());
}

double
MlpGemmFlopsPerSample(const std::vector<std::size_t>& layers)
{
    double weights = 0.0;           // W
    double firstLayerWeights = 0.0; // W_1
    for (std::size_t l = 1; l < layers.size(); ++l)
    {
        const auto w = static_cast<double>(layers[l] * layers[l - 1]);
        weights += w;
        if (l == 1)
        {
            firstLayerWeights = w;
        }
    }
    return 6.0 * weights - 2.0 * firstLayerWeights;
}

template <typename S>
double
MlpClassifier<S>::FlopsPerSample() const
{
    // The weight matrices' work (MlpGemmFlopsPerSample), plus per unit: bias, activation and its
    // derivative, bias gradient (~6).
    double units = 0.0;
    for (std::size_t l = 1; l < m_layers.size(); ++l)
    {
        units += static_cast<double>(m_layers[l]);
    }
    return MlpGemmFlopsPerSample(m_layers) + 6.0 * units;
}

template class MlpClassifier<double>;
template class MlpClassifier<float>;

} // namespace fl
} // namespace ns3

/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ns3
{
namespace fl
{

namespace
{

/// Rows evaluated per model call.
constexpr Eigen::Index kChunkRows = 1024;

/// Number of rows in [begin, begin + count) whose prediction matches the label.
template <typename S>
std::size_t
CountCorrect(const Model<S>& model,
             const Vec<S>& w,
             const Dataset<S>& data,
             Eigen::Index begin,
             Eigen::Index count)
{
    const Mat<S> scores = model.Predict(w, data.features.middleRows(begin, count));
    std::size_t correct = 0;
    for (Eigen::Index i = 0; i < count; ++i)
    {
        int predicted = 0;
        if (scores.cols() > 1)
        {
            Eigen::Index arg = 0;
            scores.row(i).maxCoeff(&arg);
            predicted = static_cast<int>(arg);
        }
        else
        {
            predicted = scores(i, 0) > S(0) ? 1 : 0;
        }
        if (predicted == data.Label(static_cast<std::size_t>(begin + i)))
        {
            ++correct;
        }
    }
    return correct;
}

/// Throws ConfigError unless the data set fits the model.
template <typename S>
void
CheckData(const Model<S>& model, const Dataset<S>& data)
{
    if (data.Size() > 0 && data.Dim() != model.InputDim())
    {
        throw ConfigError("data",
                          "has " + std::to_string(data.Dim()) + " features but " + model.Name() +
                              " expects " + std::to_string(model.InputDim()),
                          "evaluate on data of the model's input dimension");
    }
    if (data.targets.size() != data.features.rows())
    {
        throw ConfigError("data",
                          std::to_string(data.features.rows()) + " feature rows but " +
                              std::to_string(data.targets.size()) + " targets",
                          "give one target per sample");
    }
}

} // namespace

template <typename S>
Evaluation
Evaluate(const Model<S>& model, const Vec<S>& w, const Dataset<S>& data)
{
    CheckData(model, data);
    Evaluation ev;
    ev.samples = data.Size();
    const auto n = static_cast<Eigen::Index>(data.Size());
    if (n == 0)
    {
        ev.loss = std::numeric_limits<double>::quiet_NaN();
        ev.accuracy = std::numeric_limits<double>::quiet_NaN();
        return ev;
    }
    const bool classify = model.Kind() != TargetKind::Regression;
    double loss = 0.0;
    std::size_t correct = 0;
    for (Eigen::Index begin = 0; begin < n; begin += kChunkRows)
    {
        const Eigen::Index count = std::min(kChunkRows, n - begin);
        // Each chunk's loss includes the regulariser once; weighting the chunks by their share
        // of the rows gives the mean data loss plus the regulariser.
        const double chunkLoss =
            static_cast<double>(model.Loss(w,
                                           data.features.middleRows(begin, count),
                                           data.targets.segment(begin, count)));
        loss += chunkLoss * static_cast<double>(count) / static_cast<double>(n);
        if (classify)
        {
            correct += CountCorrect(model, w, data, begin, count);
        }
    }
    ev.loss = loss;
    ev.accuracy = classify ? static_cast<double>(correct) / static_cast<double>(n)
                           : std::numeric_limits<double>::quiet_NaN();
    return ev;
}

template <typename S>
double
Accuracy(const Model<S>& model, const Vec<S>& w, const Dataset<S>& data)
{
    CheckData(model, data);
    const auto n = static_cast<Eigen::Index>(data.Size());
    if (model.Kind() == TargetKind::Regression || n == 0)
    {
        return std::numeric_limits<double>::quiet_NaN();
    }
    std::size_t correct = 0;
    for (Eigen::Index begin = 0; begin < n; begin += kChunkRows)
    {
        correct += CountCorrect(model, w, data, begin, std::min(kChunkRows, n - begin));
    }
    return static_cast<double>(correct) / static_cast<double>(n);
}

template <typename S>
double
Msd(const Vec<S>& w, const Eigen::VectorXd& wOpt)
{
    if (w.size() != wOpt.size())
    {
        throw ConfigError("wOpt",
                          "has " + std::to_string(wOpt.size()) + " entries, w has " +
                              std::to_string(w.size()),
                          "compare parameter vectors of the same model");
    }
    return (w.template cast<double>() - wOpt).squaredNorm();
}

double
ToDb(double x)
{
    if (x == 0.0)
    {
        return -std::numeric_limits<double>::infinity();
    }
    return 10.0 * std::log10(x);
}

#define FL_INSTANTIATE_METRICS(S)                                                                  \
    template Evaluation Evaluate(const Model<S>&, const Vec<S>&, const Dataset<S>&);               \
    template double Accuracy(const Model<S>&, const Vec<S>&, const Dataset<S>&);                   \
    template double Msd(const Vec<S>&, const Eigen::VectorXd&);

FL_INSTANTIATE_METRICS(double)
FL_INSTANTIATE_METRICS(float)

double
StudentT975(std::size_t dof)
{
    // t_{0.975, dof}, dof = 1 .. 30 (Fisher & Yates' tables).
    static const double kTable[] = {12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912,
                                    2.364624,  2.306004, 2.262157, 2.228139, 2.200985, 2.178813,
                                    2.160369,  2.144787, 2.131450, 2.119905, 2.109816, 2.100922,
                                    2.093024,  2.085963, 2.079614, 2.073873, 2.068658, 2.063899,
                                    2.059539,  2.055529, 2.051831, 2.048407, 2.045230, 2.042272};
    if (dof == 0)
    {
        return std::numeric_limits<double>::quiet_NaN();
    }
    if (dof <= 30)
    {
        return kTable[dof - 1];
    }
    // Cornish-Fisher: z + (z^3 + z) / (4 v) + (5 z^5 + 16 z^3 + 3 z) / (96 v^2), z = 1.959964.
    const double z = 1.959963984540054;
    const double v = static_cast<double>(dof);
    return z + (z * z * z + z) / (4.0 * v) +
           (5.0 * std::pow(z, 5) + 16.0 * z * z * z + 3.0 * z) / (96.0 * v * v);
}

MeanCi
MeanCi95(const std::vector<double>& xs)
{
    MeanCi r;
    r.n = xs.size();
    if (xs.empty())
    {
        r.mean = std::numeric_limits<double>::quiet_NaN();
        r.halfWidth = r.mean;
        return r;
    }
    double sum = 0.0;
    for (double x : xs)
    {
        sum += x;
    }
    r.mean = sum / static_cast<double>(r.n);
    if (r.n < 2)
    {
        r.halfWidth = std::numeric_limits<double>::quiet_NaN();
        return r;
    }
    double ss = 0.0;
    for (double x : xs)
    {
        ss += (x - r.mean) * (x - r.mean);
    }
    const double sd = std::sqrt(ss / static_cast<double>(r.n - 1));
    r.halfWidth = StudentT975(r.n - 1) * sd / std::sqrt(static_cast<double>(r.n));
    return r;
}

} // namespace fl
} // namespace ns3

/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "gradient-leakage.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>

namespace ns3
{
namespace fl
{

Eigen::VectorXd
SoftmaxSingleSampleGradient(const Eigen::MatrixXd& W,
                            const Eigen::VectorXd& bias,
                            const Eigen::VectorXd& x,
                            int y)
{
    Eigen::VectorXd z = W * x + bias;
    z.array() -= z.maxCoeff();
    Eigen::VectorXd p = z.array().exp();
    p /= p.sum();
    p(y) -= 1.0;
    const Eigen::Index C = W.rows();
    const Eigen::Index D = W.cols();
    Eigen::VectorXd g(C * D + C);
    for (Eigen::Index c = 0; c < C; ++c)
    {
        g.segment(c * D, D) = p(c) * x;
    }
    g.tail(C) = p;
    return g;
}

Eigen::VectorXd
ReconstructSoftmaxInput(const Eigen::VectorXd& g, Eigen::Index C, Eigen::Index D)
{
    Eigen::Index k = 0;
    g.tail(C).cwiseAbs().maxCoeff(&k);
    const double bk = g(C * D + k);
    if (bk == 0.0)
    {
        return Eigen::VectorXd::Zero(D);
    }
    return g.segment(k * D, D) / bk;
}

double
ClippedPsnr(const Eigen::VectorXd& estimate, const Eigen::VectorXd& reference)
{
    const Eigen::VectorXd c = estimate.cwiseMax(0.0).cwiseMin(1.0);
    const double mse = (c - reference).squaredNorm() / static_cast<double>(reference.size());
    return mse == 0.0 ? 99.0 : std::min(99.0, 10.0 * std::log10(1.0 / mse));
}

bool
WriteImageMatrix(const std::string& path, const Eigen::VectorXd& image, int side)
{
    std::ofstream f(path);
    f << std::setprecision(4);
    for (int i = 0; i < side * side; ++i)
    {
        f << std::clamp(image(i), 0.0, 1.0) << ((i + 1) % side == 0 ? "\n" : " ");
    }
    return f.good();
}

} // namespace fl
} // namespace ns3

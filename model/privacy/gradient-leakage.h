/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Input reconstruction from a single-sample softmax-regression update (pure, no ns-3 header):
 * the analytic gradient-leakage attack that EGA (D. Zeng, S. Liu, S. Liang, Z. Li, H. Wang,
 * I. King, Z. Xu, "Encoded Gradients Aggregation against Gradient Leakage in Federated Learning",
 * arXiv:2205.13216, 2022) defends against, and the PSNR it is scored with.
 *
 * Softmax regression z = W x + b (C classes, D features), cross-entropy loss, one sample (x, y):
 *     dL/dW = (p - e_y) x^T,   dL/db = p - e_y,   p = softmax(z).
 * Every row k of dW is (p_k - [k = y]) x, so x = dW_k / db_k for any k with db_k != 0; the
 * attack takes the k with the largest |db_k| (the best-conditioned division). A scaled update
 * (-lr times the gradient) leaks x the same way.
 */
#ifndef FL_GRADIENT_LEAKAGE_H
#define FL_GRADIENT_LEAKAGE_H

#include <Eigen/Dense>
#include <string>
#include <vector>

namespace ns3
{
namespace fl
{

/**
 * Softmax regression, one sample: the gradient [dW row-major (C x D), db] of the cross-entropy
 * at (x, y), length C D + C.
 */
Eigen::VectorXd SoftmaxSingleSampleGradient(const Eigen::MatrixXd& W,
                                            const Eigen::VectorXd& bias,
                                            const Eigen::VectorXd& x,
                                            int y);

/**
 * The attack: x = g[k D .. k D + D) / g[C D + k] for the k with the largest |db_k| (zeros if that
 * entry is 0). `g` is laid out as SoftmaxSingleSampleGradient's result (any scale).
 */
Eigen::VectorXd ReconstructSoftmaxInput(const Eigen::VectorXd& g, Eigen::Index C, Eigen::Index D);

/**
 * PSNR in dB of an image in [0, 1] against its reference: the estimate is clipped to [0, 1], then
 * 10 log10(1 / MSE), capped at 99 dB (also for MSE = 0).
 */
double ClippedPsnr(const Eigen::VectorXd& estimate, const Eigen::VectorXd& reference);

/**
 * Writes an image of side x side values as a text matrix clipped to [0, 1], 4 significant digits,
 * one row per line (gnuplot: `matrix with image`). Returns false if the file could not be written.
 */
bool WriteImageMatrix(const std::string& path, const Eigen::VectorXd& image, int side);

} // namespace fl
} // namespace ns3

#endif // FL_GRADIENT_LEAKAGE_H

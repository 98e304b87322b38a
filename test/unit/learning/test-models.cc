/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Tests of the models (ridge, logistic, softmax, MLP), their reference optima, the model factory
 * and the metrics.
 */
#include "fl-test-config-error.h"

#include "ns3/linear-models.h"
#include "ns3/metrics.h"
#include "ns3/mlp-model.h"
#include "ns3/param-vector.h"
#include "ns3/softmax-cross-entropy.h"

#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <random>

using namespace ns3::fl;
using fltest::ExpectConfigError;

namespace
{

/// n x d matrix of standard normal entries.
Mat<double>
Gaussian(Eigen::Index n, Eigen::Index d, Rng& rng)
{
    std::normal_distribution<double> normal(0.0, 1.0);
    Mat<double> X(n, d);
    for (Eigen::Index i = 0; i < X.size(); ++i)
    {
        X.data()[i] = normal(rng);
    }
    return X;
}

/// Vector of n standard normal entries.
Vec<double>
GaussianVec(Eigen::Index n, Rng& rng)
{
    return Gaussian(n, 1, rng).col(0);
}

/// Random targets of the kind `model` expects.
Vec<double>
RandomTargets(const Model<double>& model, Eigen::Index n, Rng& rng)
{
    Vec<double> y(n);
    if (model.Kind() == TargetKind::Regression)
    {
        return GaussianVec(n, rng);
    }
    if (model.Kind() == TargetKind::BinarySigned)
    {
        std::bernoulli_distribution coin(0.5);
        for (Eigen::Index i = 0; i < n; ++i)
        {
            y[i] = coin(rng) ? 1.0 : -1.0;
        }
        return y;
    }
    std::uniform_int_distribution<int> cls(0, static_cast<int>(model.NumOutputs()) - 1);
    for (Eigen::Index i = 0; i < n; ++i)
    {
        y[i] = cls(rng);
    }
    return y;
}

/// Central finite-difference gradient of model.Loss at w.
Vec<double>
NumericalGradient(const Model<double>& model,
                  Vec<double> w,
                  const Mat<double>& X,
                  const Vec<double>& y,
                  double h)
{
    Vec<double> g(w.size());
    for (Eigen::Index i = 0; i < w.size(); ++i)
    {
        const double wi = w[i];
        w[i] = wi + h;
        const double plus = model.Loss(w, X, y);
        w[i] = wi - h;
        const double minus = model.Loss(w, X, y);
        w[i] = wi;
        g[i] = (plus - minus) / (2.0 * h);
    }
    return g;
}

/// Norm-wise relative difference ||a - b|| / max(||a||, ||b||).
template <typename A, typename B>
double
RelErr(const A& a, const B& b)
{
    const double scale = std::max({a.norm(), b.norm(), 1e-300});
    return (a - b).norm() / scale;
}

/// A data set of the kind `model` expects.
Dataset<double>
RandomData(const Model<double>& model, Eigen::Index n, Rng& rng)
{
    Dataset<double> d;
    d.features = Gaussian(n, static_cast<Eigen::Index>(model.InputDim()), rng);
    d.targets = RandomTargets(model, n, rng);
    d.kind = model.Kind();
    d.numClasses = model.Kind() == TargetKind::Regression
                       ? 0
                       : static_cast<int>(std::max<std::size_t>(2, model.NumOutputs()));
    return d;
}

/// Every model configuration exercised by the generic tests (double precision).
std::vector<std::shared_ptr<Model<double>>>
AllModels()
{
    return {
        std::make_shared<RidgeRegression<double>>(6, 0.0),
        std::make_shared<RidgeRegression<double>>(6, 0.5),
        std::make_shared<LogisticRegression<double>>(6, 0.0),
        std::make_shared<LogisticRegression<double>>(6, 0.5),
        std::make_shared<SoftmaxRegression<double>>(6, 4, 0.0),
        std::make_shared<SoftmaxRegression<double>>(6, 4, 0.3),
        std::make_shared<MlpClassifier<double>>(std::vector<std::size_t>{6, 7, 4},
                                                Activation::Relu,
                                                0.0),
        std::make_shared<MlpClassifier<double>>(std::vector<std::size_t>{6, 7, 4},
                                                Activation::Relu,
                                                0.2),
        std::make_shared<MlpClassifier<double>>(std::vector<std::size_t>{6, 7, 4},
                                                Activation::Tanh,
                                                0.0),
        std::make_shared<MlpClassifier<double>>(std::vector<std::size_t>{6, 5, 4, 3},
                                                Activation::Tanh,
                                                0.2),
        std::make_shared<MlpClassifier<double>>(std::vector<std::size_t>{6, 5, 4, 3},
                                                Activation::Relu,
                                                0.1),
    };
}

} // namespace

// ---------------------------------------------------------------------------------------------
// Gradients
// ---------------------------------------------------------------------------------------------

// An Eigen expression builds a ParamVector at its own scalar type (no ambiguity between the
// float64 and float32 constructors); plain vectors keep theirs.
TEST(ParamVectorConstruction, EigenExpressionsTakeTheirScalarType)
{
    const ParamVector zeros(Eigen::VectorXd::Zero(3));
    EXPECT_EQ(zeros.GetPrecision(), Precision::Float64);
    EXPECT_EQ(zeros.Size(), 3u);
    const Eigen::VectorXf x = Eigen::VectorXf::LinSpaced(4, 1.0f, 4.0f);
    const ParamVector scaled(2.0f * x + Eigen::VectorXf::Ones(4));
    ASSERT_EQ(scaled.GetPrecision(), Precision::Float32);
    EXPECT_FLOAT_EQ(scaled.Get<float>()(3), 9.0f);
    const Eigen::VectorXd d = Eigen::VectorXd::Constant(2, 0.5);
    const ParamVector copy(d);
    ASSERT_EQ(copy.GetPrecision(), Precision::Float64);
    EXPECT_DOUBLE_EQ(copy.At(1), 0.5);
    const ParamVector f32(x);
    EXPECT_EQ(f32.GetPrecision(), Precision::Float32);
}

TEST(Models, GradientMatchesCentralDifferences)
{
    Rng rng(42);
    for (const auto& model : AllModels())
    {
        SCOPED_TRACE(model->Name());
        const Eigen::Index n = 13;
        const Mat<double> X = Gaussian(n, static_cast<Eigen::Index>(model->InputDim()), rng);
        const Vec<double> y = RandomTargets(*model, n, rng);
        // Random parameters (also non-zero biases), not just the initial point.
        const Vec<double> w =
            0.7 * GaussianVec(static_cast<Eigen::Index>(model->NumParameters()), rng);
        Vec<double> grad;
        const double loss = model->LossAndGradient(w, X, y, grad);
        ASSERT_EQ(static_cast<std::size_t>(grad.size()), model->NumParameters());
        EXPECT_NEAR(loss, model->Loss(w, X, y), 1e-14 * std::abs(loss));
        const Vec<double> numeric = NumericalGradient(*model, w, X, y, 1e-5);
        EXPECT_LT(RelErr(grad, numeric), 1e-6);
    }
}

TEST(Models, GradientOfEmptyBatchIsRegulariserGradient)
{
    Rng rng(3);
    for (const auto& model : AllModels())
    {
        SCOPED_TRACE(model->Name());
        const Vec<double> w = GaussianVec(static_cast<Eigen::Index>(model->NumParameters()), rng);
        const Mat<double> X(0, static_cast<Eigen::Index>(model->InputDim()));
        const Vec<double> y(0);
        Vec<double> grad;
        const double loss = model->LossAndGradient(w, X, y, grad);
        EXPECT_TRUE(std::isfinite(loss));
        EXPECT_LT(RelErr(grad, NumericalGradient(*model, w, X, y, 1e-5)), 1e-6);
    }
}

TEST(Models, FloatAgreesWithDouble)
{
    Rng rng(7);
    std::vector<std::pair<std::shared_ptr<Model<double>>, std::shared_ptr<Model<float>>>> pairs{
        {std::make_shared<RidgeRegression<double>>(6, 0.5),
         std::make_shared<RidgeRegression<float>>(6, 0.5)},
        {std::make_shared<LogisticRegression<double>>(6, 0.5),
         std::make_shared<LogisticRegression<float>>(6, 0.5)},
        {std::make_shared<SoftmaxRegression<double>>(6, 4, 0.3),
         std::make_shared<SoftmaxRegression<float>>(6, 4, 0.3)},
        {std::make_shared<MlpClassifier<double>>(std::vector<std::size_t>{6, 7, 4},
                                                 Activation::Relu,
                                                 0.2),
         std::make_shared<MlpClassifier<float>>(std::vector<std::size_t>{6, 7, 4},
                                                Activation::Relu,
                                                0.2)},
        {std::make_shared<MlpClassifier<double>>(std::vector<std::size_t>{6, 5, 4, 3},
                                                 Activation::Tanh,
                                                 0.0),
         std::make_shared<MlpClassifier<float>>(std::vector<std::size_t>{6, 5, 4, 3},
                                                Activation::Tanh,
                                                0.0)},
    };
    for (const auto& [md, mf] : pairs)
    {
        SCOPED_TRACE(md->Name());
        ASSERT_EQ(md->NumParameters(), mf->NumParameters());
        const Eigen::Index n = 40;
        const Mat<double> X = Gaussian(n, 6, rng);
        const Vec<double> y = RandomTargets(*md, n, rng);
        const Vec<double> w =
            0.5 * GaussianVec(static_cast<Eigen::Index>(md->NumParameters()), rng);
        Vec<double> gd;
        Vec<float> gf;
        const double ld = md->LossAndGradient(w, X, y, gd);
        const float lf = mf->LossAndGradient(w.cast<float>(), X.cast<float>(), y.cast<float>(), gf);
        EXPECT_NEAR(lf, ld, 1e-4 * std::abs(ld));
        EXPECT_LT(RelErr(gf.cast<double>(), gd), 1e-4);
        const Mat<double> pd = md->Predict(w, X);
        const Mat<float> pf = mf->Predict(w.cast<float>(), X.cast<float>());
        EXPECT_LT(RelErr(pf.cast<double>(), pd), 1e-4);
    }
}

TEST(Models, LossesAreNumericallyStable)
{
    // Huge margins must give finite losses and gradients (log-sum-exp and log1p forms).
    LogisticRegression<double> logistic(2, 0.0);
    Mat<double> X(2, 2);
    X << 1000.0, 0.0, -1000.0, 0.0;
    Vec<double> y(2);
    y << 1.0, 1.0;
    Vec<double> w(2);
    w << 1.0, 0.0;
    Vec<double> g;
    const double l = logistic.LossAndGradient(w, X, y, g);
    EXPECT_NEAR(l, 0.5 * 1000.0, 1e-9); // ln(1 + e^-1000) ~ 0, ln(1 + e^1000) ~ 1000
    EXPECT_TRUE(g.allFinite());

    SoftmaxRegression<float> softmax(2, 3, 0.0);
    Vec<float> ws = Vec<float>::Zero(9);
    ws.head(6) << 500.0f, 0.0f, 0.0f, 0.0f, -500.0f, 0.0f;
    Mat<float> Xs(1, 2);
    Xs << 10.0f, 0.0f;
    Vec<float> ys(1);
    ys << 2.0f;
    Vec<float> gs;
    const float ls = softmax.LossAndGradient(ws, Xs, ys, gs);
    EXPECT_NEAR(ls, 10000.0f, 1.0f); // logits (5000, 0, -5000), label 2
    EXPECT_TRUE(gs.allFinite());
}

TEST(Models, ScratchReuseAcrossBatchSizes)
{
    // The MLP keeps scratch buffers sized for the largest batch so far; results on a smaller
    // batch must equal those of a fresh model.
    Rng rng(11);
    MlpClassifier<double> used({5, 6, 3}, Activation::Relu, 0.1);
    MlpClassifier<double> fresh({5, 6, 3}, Activation::Relu, 0.1);
    const Vec<double> w = used.InitialParameters(rng);
    const Mat<double> big = Gaussian(50, 5, rng);
    const Mat<double> small = Gaussian(9, 5, rng);
    Vec<double> yBig = Vec<double>::Zero(50);
    Vec<double> ySmall(9);
    ySmall << 0, 1, 2, 0, 1, 2, 0, 1, 2;
    Vec<double> g1;
    Vec<double> g2;
    used.LossAndGradient(w, big, yBig, g1);
    const double l1 = used.LossAndGradient(w, small, ySmall, g1);
    const double l2 = fresh.LossAndGradient(w, small, ySmall, g2);
    EXPECT_EQ(l1, l2);
    EXPECT_TRUE(g1 == g2);
    EXPECT_TRUE(used.Predict(w, small) == fresh.Predict(w, small));
}

// ---------------------------------------------------------------------------------------------
// Reference optima
// ---------------------------------------------------------------------------------------------

TEST(Models, RidgeOptimumMatchesClosedFormAndZeroesGradient)
{
    Rng rng(5);
    const double rho = 0.1;
    std::vector<Dataset<double>> parts(3);
    const std::vector<Eigen::Index> sizes{40, 75, 13};
    Eigen::VectorXd wTrue(4);
    wTrue << 1.0, -2.0, 0.5, 3.0;
    for (std::size_t k = 0; k < parts.size(); ++k)
    {
        parts[k].features = Gaussian(sizes[k], 4, rng) * (1.0 + static_cast<double>(k));
        parts[k].targets = parts[k].features * wTrue + 0.3 * GaussianVec(sizes[k], rng);
    }
    const std::vector<const Dataset<double>*> ptrs{&parts[0], &parts[1], &parts[2]};
    const Eigen::VectorXd wOpt = RidgeOptimum(ptrs, rho);

    // Independent closed form: explicit sums of outer products, solved by LU.
    Eigen::MatrixXd R = Eigen::MatrixXd::Zero(4, 4);
    Eigen::VectorXd r = Eigen::VectorXd::Zero(4);
    for (const auto& p : parts)
    {
        Eigen::MatrixXd Rk = Eigen::MatrixXd::Zero(4, 4);
        Eigen::VectorXd rk = Eigen::VectorXd::Zero(4);
        for (Eigen::Index i = 0; i < p.features.rows(); ++i)
        {
            const Eigen::VectorXd u = p.features.row(i).transpose();
            Rk += u * u.transpose();
            rk += p.targets[i] * u;
        }
        R += Rk / static_cast<double>(p.features.rows()) / 3.0;
        r += rk / static_cast<double>(p.features.rows()) / 3.0;
    }
    const Eigen::VectorXd ref = (R + rho * Eigen::MatrixXd::Identity(4, 4)).fullPivLu().solve(r);
    EXPECT_LT(RelErr(wOpt, ref), 1e-12);

    // The equal-weight average of the per-data-set gradients vanishes at w°.
    RidgeRegression<double> model(4, rho);
    Vec<double> avg = Vec<double>::Zero(4);
    for (const auto& p : parts)
    {
        Vec<double> g;
        model.LossAndGradient(wOpt, p.features, p.targets, g);
        avg += g / 3.0;
    }
    EXPECT_LT(avg.norm(), 1e-10);

    // Single data set: the model's own gradient vanishes.
    Vec<double> g;
    model.LossAndGradient(RidgeOptimum<double>({&parts[1]}, rho),
                          parts[1].features,
                          parts[1].targets,
                          g);
    EXPECT_LT(g.norm(), 1e-10);

    ExpectConfigError([&] { RidgeOptimum<double>({}, rho); }, "parts");
    ExpectConfigError([&] { RidgeOptimum(ptrs, -1.0); }, "rho");
}

TEST(Models, FullBatchGradientDescentOnRidgeConvergesToOptimum)
{
    // J is L-smooth and mu-strongly convex with L = 2 lambda_max(R + rho I) and
    // mu = 2 lambda_min(R + rho I), R = X^T X / N. GD with step 1/L contracts the distance to w°
    // by (1 - mu/L) per step.
    Rng rng(8);
    const double rho = 0.05;
    Dataset<double> d;
    d.features = Gaussian(200, 5, rng);
    d.targets = GaussianVec(200, rng);
    const Eigen::VectorXd wOpt = RidgeOptimum<double>({&d}, rho);
    const Eigen::MatrixXd A = Eigen::MatrixXd(d.features.transpose() * d.features) / 200.0 +
                              rho * Eigen::MatrixXd::Identity(5, 5);
    const Eigen::VectorXd eig = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(A).eigenvalues();
    const double L = 2.0 * eig.maxCoeff();
    const double mu = 2.0 * eig.minCoeff();
    RidgeRegression<double> model(5, rho);
    Vec<double> w = Vec<double>::Zero(5);
    Vec<double> g;
    const int steps = 300;
    for (int k = 0; k < steps; ++k)
    {
        model.LossAndGradient(w, d.features, d.targets, g);
        w -= (1.0 / L) * g;
    }
    const double bound = std::pow(1.0 - mu / L, steps) * wOpt.norm();
    EXPECT_LE((w - wOpt).norm(), bound + 1e-12);
    EXPECT_LT((w - wOpt).norm(), 1e-9);
}

TEST(Models, LogisticOptimumAndGradientDescentConvergence)
{
    Rng rng(9);
    const double rho = 0.1;
    Dataset<double> d;
    d.kind = TargetKind::BinarySigned;
    d.numClasses = 2;
    d.features = Gaussian(300, 4, rng);
    Eigen::VectorXd wTrue(4);
    wTrue << 2.0, -1.0, 0.5, 0.0;
    d.targets.resize(300);
    std::bernoulli_distribution flip(0.1);
    for (Eigen::Index i = 0; i < 300; ++i)
    {
        const double s = d.features.row(i).dot(wTrue) >= 0 ? 1.0 : -1.0;
        d.targets[i] = flip(rng) ? -s : s;
    }
    const Eigen::VectorXd wOpt = LogisticOptimum(d, rho);
    LogisticRegression<double> model(4, rho);
    Vec<double> g;
    model.LossAndGradient(wOpt, d.features, d.targets, g);
    EXPECT_LT(g.norm(), 1e-10);

    // Assumptions for the tolerance: labels are +-1 and sigma'(t) <= 1/4, so J is L-smooth with
    // L = lambda_max(X^T X / N) / 4 + rho, and rho-strongly convex. GD with step 1/L then
    // satisfies ||w_k - w°|| <= (1 - rho/L)^k ||w_0 - w°|| (w_0 = 0).
    const Eigen::MatrixXd C = Eigen::MatrixXd(d.features.transpose() * d.features) / 300.0;
    const double L =
        Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(C).eigenvalues().maxCoeff() / 4.0 + rho;
    Vec<double> w = Vec<double>::Zero(4);
    const int steps = 150;
    for (int k = 0; k < steps; ++k)
    {
        model.LossAndGradient(w, d.features, d.targets, g);
        w -= (1.0 / L) * g;
        const double bound = std::pow(1.0 - rho / L, k + 1) * wOpt.norm();
        ASSERT_LE((w - wOpt).norm(), bound + 1e-12) << "step " << k;
    }
    EXPECT_LT((w - wOpt).norm(), 1e-8);

    // The optimum is the minimiser: small perturbations increase the risk.
    const double J = model.Loss(wOpt, d.features, d.targets);
    for (int i = 0; i < 4; ++i)
    {
        Vec<double> p = wOpt;
        p[i] += 1e-3;
        EXPECT_GT(model.Loss(p, d.features, d.targets), J);
    }
}

// ---------------------------------------------------------------------------------------------
// Shapes, construction, factory
// ---------------------------------------------------------------------------------------------

TEST(Models, MlpParameterCountAndInitialisation)
{
    MlpClassifier<float> mlp({784, 128, 10}, Activation::Relu, 0.0);
    EXPECT_EQ(mlp.NumParameters(), 101770u);
    EXPECT_EQ(mlp.Name(), "mlp-784-128-10");
    EXPECT_EQ(mlp.InputDim(), 784u);
    EXPECT_EQ(mlp.NumOutputs(), 10u);
    EXPECT_EQ(mlp.Kind(), TargetKind::Categorical);
    // 6 FLOPs per weight (forward, weight gradient, back-propagation), except 4 for the first
    // layer (no error to propagate into the input), plus 6 per unit.
    EXPECT_DOUBLE_EQ(mlp.FlopsPerSample(), 4.0 * 784 * 128 + 6.0 * 128 * 10 + 6.0 * (128 + 10));

    Rng a(1);
    Rng b(1);
    const Vec<float> w = mlp.InitialParameters(a);
    EXPECT_TRUE(w == mlp.InitialParameters(b));
    // He uniform: |W1| <= sqrt(6 / 784), biases zero.
    const float lim1 = std::sqrt(6.0f / 784.0f);
    EXPECT_LE(w.head(784 * 128).cwiseAbs().maxCoeff(), lim1);
    EXPECT_GT(w.head(784 * 128).cwiseAbs().maxCoeff(), 0.9f * lim1);
    EXPECT_EQ(w.segment(784 * 128, 128).cwiseAbs().maxCoeff(), 0.0f);
    EXPECT_EQ(w.tail(10).cwiseAbs().maxCoeff(), 0.0f);

    // Glorot uniform for tanh: |W1| <= sqrt(6 / (784 + 128)).
    MlpClassifier<float> tanh({784, 128, 10}, Activation::Tanh, 0.0);
    EXPECT_LE(tanh.InitialParameters(a).head(784 * 128).cwiseAbs().maxCoeff(),
              std::sqrt(6.0f / 912.0f));

    // Convex models start at zero.
    EXPECT_TRUE(RidgeRegression<double>(3, 0.1).InitialParameters(a).isZero(0.0));
    EXPECT_TRUE(SoftmaxRegression<double>(3, 4, 0.1).InitialParameters(a).isZero(0.0));
    EXPECT_EQ(SoftmaxRegression<double>(3, 4, 0.1).NumParameters(), 16u);
}

TEST(Models, PredictShapes)
{
    Rng rng(2);
    for (const auto& model : AllModels())
    {
        SCOPED_TRACE(model->Name());
        const Mat<double> X = Gaussian(7, static_cast<Eigen::Index>(model->InputDim()), rng);
        const Vec<double> w = GaussianVec(static_cast<Eigen::Index>(model->NumParameters()), rng);
        const Mat<double> p = model->Predict(w, X);
        EXPECT_EQ(p.rows(), 7);
        EXPECT_EQ(static_cast<std::size_t>(p.cols()), model->NumOutputs());
        EXPECT_EQ(model->Predict(w, X.topRows(0)).rows(), 0);
    }
    // Ridge and logistic scores are X w.
    RidgeRegression<double> ridge(3, 0.0);
    Mat<double> X(2, 3);
    X << 1, 2, 3, 4, 5, 6;
    Vec<double> w(3);
    w << 1, 0, -1;
    EXPECT_DOUBLE_EQ(ridge.Predict(w, X)(0, 0), -2.0);
    EXPECT_DOUBLE_EQ(ridge.Predict(w, X)(1, 0), -2.0);
}

TEST(Models, ShapeMismatchesAreRejected)
{
    RidgeRegression<double> ridge(3, 0.0);
    MlpClassifier<double> mlp({3, 4, 2}, Activation::Relu, 0.0);
    const Mat<double> X = Mat<double>::Zero(2, 4);
    const Vec<double> y = Vec<double>::Zero(2);
    Vec<double> g;
    EXPECT_THROW(ridge.Loss(Vec<double>::Zero(3), X, y), ConfigError);
    EXPECT_THROW(ridge.Loss(Vec<double>::Zero(4), Mat<double>::Zero(2, 3), y), ConfigError);
    EXPECT_THROW(mlp.LossAndGradient(Vec<double>::Zero(26), X, y, g), ConfigError);
    EXPECT_THROW(mlp.Loss(Vec<double>::Zero(26), Mat<double>::Zero(2, 3), Vec<double>::Zero(3)),
                 ConfigError);
    // Class labels out of range.
    Vec<double> bad(2);
    bad << 0, 2;
    EXPECT_THROW(mlp.Loss(Vec<double>::Zero(26), Mat<double>::Zero(2, 3), bad), ConfigError);
}

TEST(Models, ConstructorValidation)
{
    ExpectConfigError([] { RidgeRegression<double>(0, 0.1); }, "dim");
    ExpectConfigError([] { RidgeRegression<double>(3, -0.1); }, "rho");
    ExpectConfigError([] { LogisticRegression<float>(3, std::nan("")); }, "rho");
    ExpectConfigError([] { LogisticRegression<float>(0, 0.1); }, "dim");
    ExpectConfigError([] { SoftmaxRegression<double>(3, 1, 0.0); }, "classes");
    ExpectConfigError([] { SoftmaxRegression<double>(3, 3, -1.0); }, "l2");
    ExpectConfigError([] { MlpClassifier<double>({3, 2}, Activation::Relu, 0.0); }, "layers");
    ExpectConfigError([] { MlpClassifier<double>({3, 0, 2}, Activation::Relu, 0.0); }, "layers");
    ExpectConfigError([] { MlpClassifier<double>({3, 4, 1}, Activation::Relu, 0.0); }, "classes");
    ExpectConfigError([] { MlpClassifier<double>({3, 4, 2}, Activation::Tanh, -1.0); }, "l2");
    EXPECT_NO_THROW(RidgeRegression<double>(3, 0.0));
}

TEST(Models, SoftmaxCrossEntropyClosedForm)
{
    // Row 0: exp(z) = (1, 2, 5), label 2: ln 8 - ln 5. Row 1: equal logits, label 0: ln 3.
    Mat<double> Z(2, 3);
    Z << 0.0, std::log(2.0), std::log(5.0), 1.0, 1.0, 1.0;
    const Mat<double> logits = Z;
    Vec<double> y(2);
    y << 2, 0;
    const double expected = 0.5 * (std::log(8.0 / 5.0) + std::log(3.0));
    EXPECT_NEAR(SoftmaxCrossEntropy<double>(Z, y, false), expected, 1e-12);
    EXPECT_TRUE(Z == logits); // the loss alone leaves the logits alone
    EXPECT_NEAR(SoftmaxCrossEntropy<double>(Z, y, true), expected, 1e-12);
    // dLoss/dZ = (softmax - onehot) / n.
    Mat<double> grad(2, 3);
    grad << 1.0 / 16, 1.0 / 8, -3.0 / 16, -1.0 / 3, 1.0 / 6, 1.0 / 6;
    EXPECT_LT((Z - grad).cwiseAbs().maxCoeff(), 1e-12);

    // Shifting every logit of a row by a constant changes nothing; large logits do not overflow.
    Mat<double> big = logits.array() + 1000.0;
    EXPECT_NEAR(SoftmaxCrossEntropy<double>(big, y, false), expected, 1e-12);

    y << 3, 0;
    EXPECT_THROW(SoftmaxCrossEntropy<double>(Z, y, false), ConfigError);
    EXPECT_EQ(ClassIndex(2.0, 3), 2);
    EXPECT_THROW(ClassIndex(-1.0, 3), ConfigError);
}

TEST(Models, MlpGemmFlopsClosedForm)
{
    // 6 W - 2 W_1: W = 784*128 + 128*10, W_1 = 784*128.
    EXPECT_EQ(MlpGemmFlopsPerSample({784, 128, 10}), 4.0 * 784 * 128 + 6.0 * 128 * 10);
    // W = 5*4 + 4*3 + 3*2 = 38, W_1 = 20: 228 - 40.
    EXPECT_EQ(MlpGemmFlopsPerSample({5, 4, 3, 2}), 188.0);
    // The model adds 6 FLOPs per unit.
    MlpClassifier<float> mlp({5, 4, 3, 2}, Activation::Tanh, 0.0);
    EXPECT_EQ(mlp.FlopsPerSample(), 188.0 + 6.0 * (4 + 3 + 2));
}

TEST(Models, RidgeAndLogisticShareTheLinearScoreModel)
{
    RidgeRegression<double> ridge(3, 0.25);
    LogisticRegression<double> logistic(3, 0.5);
    const std::vector<const LinearScoreModel<double>*> models{&ridge, &logistic};
    Rng rng(3);
    Mat<double> X(2, 3);
    X << 1, 2, 3, -1, 0, 4;
    Vec<double> w(3);
    w << 0.5, -1, 2;
    for (const auto* m : models)
    {
        EXPECT_EQ(m->NumParameters(), 3u);
        EXPECT_EQ(m->InputDim(), 3u);
        EXPECT_EQ(m->NumOutputs(), 1u);
        EXPECT_TRUE(m->InitialParameters(rng) == Vec<double>::Zero(3));
        const Mat<double> p = m->Predict(w, X);
        ASSERT_EQ(p.rows(), 2);
        ASSERT_EQ(p.cols(), 1);
        EXPECT_EQ(p(0, 0), 4.5); // 0.5 - 2 + 6
        EXPECT_EQ(p(1, 0), 7.5); // -0.5 + 8
        // Size errors name the model.
        ExpectConfigError([&] { m->Predict(Vec<double>::Zero(4), X); }, "parameters", m->Name());
    }
    EXPECT_EQ(ridge.Name(), "ridge");
    EXPECT_EQ(ridge.Kind(), TargetKind::Regression);
    EXPECT_EQ(ridge.Rho(), 0.25);
    EXPECT_EQ(logistic.Name(), "logistic");
    EXPECT_EQ(logistic.Kind(), TargetKind::BinarySigned);
    EXPECT_EQ(logistic.Rho(), 0.5);
}

TEST(Models, MakeModelParsesSpecs)
{
    auto ridge = MakeModel<double>("ridge:rho=0.1", 5, 0);
    EXPECT_EQ(ridge->Name(), "ridge");
    EXPECT_EQ(ridge->NumParameters(), 5u);
    EXPECT_DOUBLE_EQ(dynamic_cast<RidgeRegression<double>&>(*ridge).Rho(), 0.1);

    auto logistic = MakeModel<float>("logistic:rho=0.1", 5, 2);
    EXPECT_EQ(logistic->Kind(), TargetKind::BinarySigned);
    EXPECT_DOUBLE_EQ(dynamic_cast<LogisticRegression<float>&>(*logistic).Rho(), 0.1);

    auto softmax = MakeModel<double>("softmax:l2=1e-4", 784, 10);
    EXPECT_EQ(softmax->Name(), "softmax");
    EXPECT_EQ(softmax->NumParameters(), 7850u);
    EXPECT_EQ(MakeModel<double>("softmax", 4, 3)->NumParameters(), 15u);

    auto mlp = MakeModel<float>("mlp:hidden=128,l2=0,activation=relu", 784, 10);
    EXPECT_EQ(mlp->NumParameters(), 101770u);
    EXPECT_EQ(mlp->Name(), "mlp-784-128-10");

    auto deep = MakeModel<float>("mlp:hidden=256-64", 784, 10);
    EXPECT_EQ(dynamic_cast<MlpClassifier<float>&>(*deep).Layers(),
              (std::vector<std::size_t>{784, 256, 64, 10}));
    EXPECT_EQ(deep->NumParameters(), 784u * 256 + 256 + 256 * 64 + 64 + 64 * 10 + 10);

    auto tanh = MakeModel<double>("mlp:hidden=8,activation=tanh,l2=0.5", 3, 2);
    EXPECT_EQ(tanh->Name(), "mlp-3-8-2-tanh");
    EXPECT_EQ(MakeModel<double>("mlp", 3, 2)->Name(), "mlp-3-128-2");
    // Spaces around options are trimmed.
    EXPECT_EQ(MakeModel<double>("mlp: hidden=8 , l2=0", 3, 2)->Name(), "mlp-3-8-2");
}

TEST(Models, MakeModelRejectsBadSpecs)
{
    ExpectConfigError([] { MakeModel<double>("cnn", 4, 3); }, "model", "ridge");
    ExpectConfigError([] { MakeModel<double>("", 4, 3); }, "model", "softmax");
    ExpectConfigError([] { MakeModel<double>("ridge:alpha=1", 4, 0); }, "model", "rho");
    ExpectConfigError([] { MakeModel<double>("ridge:rho=-1", 4, 0); }, "model", "rho");
    ExpectConfigError([] { MakeModel<double>("ridge:rho=abc", 4, 0); }, "model", "rho");
    ExpectConfigError([] { MakeModel<double>("ridge:rho=0.1x", 4, 0); }, "model", "rho");
    ExpectConfigError([] { MakeModel<double>("softmax:rho=1", 4, 3); }, "model", "l2");
    ExpectConfigError([] { MakeModel<double>("mlp:hidden", 4, 3); }, "model", "hidden");
    ExpectConfigError([] { MakeModel<double>("mlp:hidden=0", 4, 3); }, "model", "hidden");
    ExpectConfigError([] { MakeModel<double>("mlp:hidden=12-", 4, 3); }, "model", "hidden");
    ExpectConfigError([] { MakeModel<double>("mlp:hidden=a", 4, 3); }, "model", "hidden");
    ExpectConfigError([] { MakeModel<double>("mlp:hidden=1000000000", 4, 3); }, "model", "hidden");
    ExpectConfigError([] { MakeModel<double>("ridge:rho=1e999", 4, 0); }, "model", "rho");
    ExpectConfigError([] { MakeModel<double>("mlp:hidden=8,", 4, 3); }, "model", "ends with");
    ExpectConfigError([] { MakeModel<double>("mlp:hidden=8,,l2=0", 4, 3); }, "model", "item 2");
    ExpectConfigError([] { MakeModel<double>("mlp:activation=sigmoid", 4, 3); }, "model", "tanh");
    ExpectConfigError([] { MakeModel<double>("mlp:dropout=0.5", 4, 3); }, "model", "activation");
    ExpectConfigError([] { MakeModel<double>("logistic", 4, 3); }, "model", "softmax");
    // Bad data-derived sizes are reported by the model constructors.
    ExpectConfigError([] { MakeModel<double>("softmax", 4, 1); }, "classes");
    ExpectConfigError([] { MakeModel<double>("ridge", 0, 0); }, "dim");
}

// ---------------------------------------------------------------------------------------------
// Metrics
// ---------------------------------------------------------------------------------------------

TEST(Metrics, EvaluateInChunksEqualsWholeLoss)
{
    Rng rng(4);
    for (const auto& model : AllModels())
    {
        SCOPED_TRACE(model->Name());
        const Dataset<double> d = RandomData(*model, 2500, rng); // 3 chunks of <= 1024
        const Vec<double> w =
            0.3 * GaussianVec(static_cast<Eigen::Index>(model->NumParameters()), rng);
        const Evaluation ev = Evaluate(*model, w, d);
        EXPECT_EQ(ev.samples, 2500u);
        const double whole = model->Loss(w, d.features, d.targets);
        EXPECT_NEAR(ev.loss, whole, 1e-12 * std::abs(whole));
        if (model->Kind() == TargetKind::Regression)
        {
            EXPECT_TRUE(std::isnan(ev.accuracy));
        }
        else
        {
            EXPECT_DOUBLE_EQ(ev.accuracy, Accuracy(*model, w, d));
            EXPECT_GE(ev.accuracy, 0.0);
            EXPECT_LE(ev.accuracy, 1.0);
        }
    }
}

TEST(Metrics, AccuracyArgmaxAndSign)
{
    // Softmax with W = I, b = 0: the predicted class is the argmax of the features.
    SoftmaxRegression<double> softmax(3, 3, 0.0);
    Vec<double> w = Vec<double>::Zero(12);
    w[0] = w[4] = w[8] = 1.0;
    Dataset<double> d;
    d.kind = TargetKind::Categorical;
    d.numClasses = 3;
    d.features.resize(4, 3);
    d.features << 1, 0, 0, 0, 2, 1, 0, 1, 3, 5, 0, 0;
    d.targets.resize(4);
    d.targets << 0, 1, 2, 1; // the last one is wrong
    EXPECT_DOUBLE_EQ(Accuracy(softmax, w, d), 0.75);

    // Logistic: the sign of h^T w is the class.
    LogisticRegression<double> logistic(2, 0.0);
    Vec<double> wl(2);
    wl << 1.0, 0.0;
    Dataset<double> b;
    b.kind = TargetKind::BinarySigned;
    b.numClasses = 2;
    b.features.resize(4, 2);
    b.features << 1, 5, -2, 1, 3, -1, -1, 0;
    b.targets.resize(4);
    b.targets << 1, -1, 1, 1;
    EXPECT_DOUBLE_EQ(Accuracy(logistic, wl, b), 0.75);
    EXPECT_DOUBLE_EQ(Evaluate(logistic, wl, b).accuracy, 0.75);

    // Regression has no accuracy.
    RidgeRegression<double> ridge(2, 0.0);
    EXPECT_TRUE(std::isnan(Accuracy(ridge, wl, b)));
}

TEST(Metrics, MsdAndDecibels)
{
    Vec<float> w(2);
    w << 1.0f, 2.0f;
    Eigen::VectorXd opt = Eigen::VectorXd::Zero(2);
    EXPECT_DOUBLE_EQ(Msd(w, opt), 5.0);
    EXPECT_THROW(Msd(w, Eigen::VectorXd::Zero(3)), ConfigError);
    EXPECT_DOUBLE_EQ(ToDb(100.0), 20.0);
    EXPECT_DOUBLE_EQ(ToDb(1e-3), -30.0);
    EXPECT_EQ(ToDb(0.0), -std::numeric_limits<double>::infinity());
}

// Mean and 95 % confidence half-width by hand: {1, 2, 3, 4}: mean 2.5, s = sqrt(5/3),
// t_{0.975,3} = 3.182446, half-width 3.182446 sqrt(5/3) / 2; beyond the table the t quantile's
// expansion is within 1e-4 of the exact values (t_{0.975,31} = 2.039513, t_{0.975,60} = 2.000298)
// and tends to 1.96.
TEST(Metrics, MeanAndConfidenceInterval)
{
    const MeanCi ci = MeanCi95({1.0, 2.0, 3.0, 4.0});
    EXPECT_EQ(ci.n, 4U);
    EXPECT_DOUBLE_EQ(ci.mean, 2.5);
    EXPECT_NEAR(ci.halfWidth, 3.182446 * std::sqrt(5.0 / 3.0) / 2.0, 1e-12);
    EXPECT_TRUE(std::isnan(MeanCi95({7.0}).halfWidth));
    EXPECT_DOUBLE_EQ(MeanCi95({7.0}).mean, 7.0);
    EXPECT_TRUE(std::isnan(MeanCi95({}).mean));
    EXPECT_NEAR(StudentT975(31), 2.039513, 1e-4);
    EXPECT_NEAR(StudentT975(100000), 1.959964, 1e-4);
    EXPECT_NEAR(StudentT975(60), 2.000298, 1e-4);
}

/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/uplink-privacy.h"

#include <cmath>
#include <limits>
#include <sstream>
#include <string>

namespace ns3
{
namespace fl
{

void
PerturbUpload(Perturbation& perturbation,
              NoiseSource source,
              uint64_t trainingSeed,
              uint32_t round,
              uint32_t receiver,
              ParamVector& upload)
{
    Rng noiseRng(NoiseSeed(source, UplinkNoiseSeed(trainingSeed, round)));
    perturbation.BeginIteration(upload.Size(), noiseRng);
    perturbation.PerturbOutgoing(upload, receiver, noiseRng);
}

double
LocalTrainingSensitivity(const LocalTrainerConfig& trainer, std::size_t steps)
{
    trainer.Validate();
    if (steps < 1)
    {
        throw ConfigError("steps", "is 0", "count the local steps the client ran (>= 1)");
    }
    const double eta = trainer.stepRule == StepRule::DividedBySteps
                           ? trainer.learningRate / static_cast<double>(steps)
                           : trainer.learningRate;
    if (trainer.clipNorm <= 0.0 || eta * trainer.proxMu > 2.0 || trainer.gradientHook)
    {
        return std::numeric_limits<double>::infinity();
    }
    return 2.0 * trainer.clipNorm * eta * static_cast<double>(steps);
}

PrivacyStatement
UplinkStatement(MechanismKind mechanism, double delta)
{
    PrivacyStatement s;
    const bool laplace = mechanism == MechanismKind::Laplace;
    s.mechanism = mechanism == MechanismKind::None
                      ? "none (no noise: eps is infinite)"
                      : std::string(laplace ? "laplace" : "gaussian") +
                            " noise, i.i.d. entries, on the uploaded model";
    s.sensitivity = std::string(laplace ? "l1 <= sqrt(M) " : "l2 <= ") +
                    "2 G sum_e eta_e (E local steps, gradients clipped to l2 norm G, from the "
                    "broadcast model)";
    s.unit = "the data set of one client";
    s.neighbouring = "replace it with any other data set of the same size";
    s.adversary = "the server (honest but curious) or an eavesdropper on the client's uplink";
    s.proof = "doc/fl-privacy.rst, section \"FedAvg uplink noise\"";
    std::ostringstream c;
    if (laplace)
    {
        c << "basic (sum of per-upload eps) over the rounds the client uploaded in";
    }
    else
    {
        c << "renyi dp over the rounds the client uploaded in, to (eps, delta) at delta = "
          << delta;
    }
    s.composition = c.str();
    return s;
}

void
UplinkPrivacyAccountant::RecordUpload(const MechanismSpec& noise,
                                      const LocalTrainerConfig& trainer,
                                      std::size_t steps,
                                      std::size_t dim)
{
    ++m_uploads;
    const double l2 = LocalTrainingSensitivity(trainer, steps);
    if (noise.kind == MechanismKind::None || !std::isfinite(l2))
    {
        m_infinite = true;
        return;
    }
    m_gaussian = m_gaussian || noise.kind == MechanismKind::Gaussian;
    const double sensitivity =
        noise.kind == MechanismKind::Laplace ? std::sqrt(static_cast<double>(dim)) * l2 : l2;
    m_accountant.Add(MechanismSpec{noise.kind, sensitivity, noise.scale});
}

void
UplinkPrivacyAccountant::RecordUnboundedUpload()
{
    ++m_uploads;
    m_infinite = true;
}

double
UplinkPrivacyAccountant::Epsilon(double delta) const
{
    if (m_uploads == 0)
    {
        return 0.0;
    }
    if (m_infinite)
    {
        return std::numeric_limits<double>::infinity();
    }
    return m_accountant.Epsilon(delta, m_gaussian ? Composition::Rdp : Composition::Basic);
}

} // namespace fl
} // namespace ns3

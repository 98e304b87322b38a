/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The privacy of a FedAvg client's uplink noise (any server-client algorithm whose clients send
 * their locally trained model with noise added): the sensitivity of local training, what the
 * epsilon means, and the accountant the client application keeps. Pure (no ns-3 header).
 * Proof: doc/fl-privacy.rst, section "FedAvg uplink noise".
 */
#ifndef FL_UPLINK_PRIVACY_H
#define FL_UPLINK_PRIVACY_H

#include "ns3/local-trainer.h"
#include "ns3/noise-source.h"
#include "ns3/perturbation.h"
#include "ns3/privacy-accountant.h"

#include <cstddef>
#include <cstdint>

namespace ns3
{
namespace fl
{

/**
 * The noise stage of a client's uplink (the FedAvg client application and in-process runs call
 * it alike): `perturbation` applied to `upload`, addressed to node `receiver`, with the draws of
 * Rng(NoiseSeed(source, UplinkNoiseSeed(trainingSeed, round))) after BeginIteration.
 */
void PerturbUpload(Perturbation& perturbation,
                   NoiseSource source,
                   uint64_t trainingSeed,
                   uint32_t round,
                   uint32_t receiver,
                   ParamVector& upload);

/**
 * L2 sensitivity of a client's uploaded model to the replacement of its data set, for E local
 * steps of clipped SGD from the same (public) global model, w_e = w_{e-1} - eta_e (clip_G(g_e) +
 * proxMu (w_{e-1} - w_0)): the two runs' difference d_e = (1 - eta_e proxMu) d_{e-1} - eta_e
 * (c_e - c'_e) with ||c_e - c'_e|| <= 2 G, so ||d_E|| <= 2 G sum_e eta_e whenever
 * 0 <= eta_e proxMu <= 2. sum_e eta_e = eta E (fixed steps) or eta (steps eta / E). +infinity
 * if gradients are not clipped (clipNorm = 0), eta proxMu > 2, or the trainer has a gradient hook
 * (its term may depend on the data, as SCAFFOLD's c_i does). Throws ConfigError as
 * LocalTrainerConfig::Validate and on steps = 0.
 */
double LocalTrainingSensitivity(const LocalTrainerConfig& trainer, std::size_t steps);

/**
 * What a FedAvg client's uplink epsilon means: `mechanism` noise on its uploaded model, the l2
 * (Gaussian) or l1 <= sqrt(M) l2 (Laplace) sensitivity of LocalTrainingSensitivity, one client's
 * data set replaced, the server or an eavesdropper of the client's uplink, composed over the
 * rounds the client uploaded in (basic for Laplace, Renyi DP at `delta` for Gaussian).
 */
PrivacyStatement UplinkStatement(MechanismKind mechanism, double delta);

/**
 * The privacy a client's uplink noise gives its data set against the server: fed once per
 * upload with the perturbation's mechanism at LocalTrainingSensitivity (times sqrt(M) for
 * Laplace noise), composed with basic composition (Laplace) or Renyi DP (Gaussian). Each round
 * starts from the broadcast global model, a post-processing of earlier releases, so adaptive
 * composition applies without a drifting sensitivity. Proof: doc/fl-privacy.rst, section
 * "FedAvg uplink noise".
 */
class UplinkPrivacyAccountant
{
  public:
    /// Records one upload: the mechanism's kind and scale, the local steps it trained and M.
    void RecordUpload(const MechanismSpec& noise,
                      const LocalTrainerConfig& trainer,
                      std::size_t steps,
                      std::size_t dim);
    /// Uploads recorded.
    uint64_t Uploads() const
    {
        return m_uploads;
    }
    /// Records one upload whose sensitivity is not bounded (a client strategy that forms its own
    /// upload, or trains with a gradient hook): eps becomes +inf.
    void RecordUnboundedUpload();
    /// eps at delta (0 before any upload; +inf if an upload had no noise, no clipping or no
    /// bound).
    double Epsilon(double delta) const;

  private:
    PrivacyAccountant m_accountant;
    uint64_t m_uploads{0};
    bool m_infinite{false};
    bool m_gaussian{false};
};

} // namespace fl
} // namespace ns3

#endif // FL_UPLINK_PRIVACY_H

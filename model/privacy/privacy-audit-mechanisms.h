/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The mechanisms the module reports an epsilon for, as experiments for a privacy audit
 * (pure; no ns-3 header): each runs the code of the runs (the client's local training and
 * uplink perturbation, GFL's client step, server average and release, the graph release of
 * GHP, DWFL's local step, signal, superposition and update over T rounds, the over-the-air
 * parameter server's rounds) on two neighbouring inputs chosen to be worst case (data whose
 * clipped gradients point in opposite directions, so the released values differ by the full
 * sensitivity), and returns the score of the adversary's test; the claimed epsilon comes from
 * the module's own accountant for the same setting. fl-privacy-audit prints the table.
 */
#ifndef FL_PRIVACY_AUDIT_MECHANISMS_H
#define FL_PRIVACY_AUDIT_MECHANISMS_H

#include "ns3/privacy-audit.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ns3
{
namespace fl
{

/// One mechanism to audit.
struct AuditMechanism
{
    std::string name;           ///< e.g. "dwfl-receiver-T3"
    std::string description;    ///< the mechanism, the adversary and the neighbouring inputs
    double claimedEpsilon{0.0}; ///< what the module claims for it (its accountant)
    double delta{1e-5};         ///< the claim's delta
    /// One run on input D0 (second = false) or D1 (true), all randomness from `seed`; returns
    /// the adversary's score (larger: D1 more likely).
    std::function<double(bool second, uint64_t seed)> trial;
};

/// One audited row.
struct AuditRow
{
    std::string name;           ///< the mechanism
    std::string description;    ///< what it is
    double claimedEpsilon{0.0}; ///< the module's claim
    ThresholdAudit audit;       ///< the lower bound and its counts
    bool testable{true};        ///< claimedEpsilon <= audit.auditableMax
};

/**
 * The module's mechanisms at delta = 1e-5: a reference Gaussian release calibrated to eps = 1
 * (the classic bound), FedAvg's uplink noise (Gaussian and Laplace, one round), GFL's server
 * release in iteration 1 against an eavesdropper on one link and a neighbouring server
 * (per-link Laplace) and on all links of the server (per-link Gaussian, 3 copies), GHP's
 * graph-homomorphic release against
 * one link, GHP's releases over two iterations of a graph that changes against one link
 * (fl::LiveGraphPrivacyAccountant's claim), DWFL's reception at worker 0 over T = 1..10 rounds (3 workers, eps = 0.1 per round,
 * Practical decode), and the over-the-air parameter server's reception over 1 and 10 rounds.
 */
std::vector<AuditMechanism> PrivacyAuditMechanisms();

/**
 * The single Gaussian release of l2 sensitivity 1 with sigma = sigmaFactor times the classic
 * calibration for eps = 1 at delta (sigma = sqrt(2 ln(1.25/delta)) sigmaFactor), claimed at
 * eps = 1: the audit's power check (sigmaFactor 1: a correct claim; 1/4: a claim that is
 * false and must be refuted). Drawn through fl::GaussianPerturbation.
 */
AuditMechanism GaussianReferenceMechanism(double sigmaFactor, double delta);

/**
 * Audits each mechanism: `trials` runs per input for the calibration set (seeds from
 * DeriveSeed(seed, row, 0 or 1)) and as many for the evaluation set (DeriveSeed(seed, row, 2 or
 * 3)), AuditScores at BonferroniAlpha(alpha, mechanisms.size()). The trials run on the training
 * thread pool; every trial has its own seed, so the result does not depend on the threads.
 */
std::vector<AuditRow> RunPrivacyAudit(const std::vector<AuditMechanism>& mechanisms,
                                      uint64_t trials,
                                      double alpha,
                                      uint64_t seed);

} // namespace fl
} // namespace ns3

#endif // FL_PRIVACY_AUDIT_MECHANISMS_H

/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Perturbations: the noise a sender adds where a model or an update leaves a node (client
 * uplink, server to neighbour server, peer broadcast) and to the copy it keeps.
 */
#ifndef FL_PERTURBATION_H
#define FL_PERTURBATION_H

#include "ns3/param-vector.h"
#include "ns3/privacy-accountant.h"

#include <cstdint>
#include <string>

namespace ns3
{
namespace fl
{

/**
 * Seed of the engine that draws a client's uplink noise in `round` from its training seed (so
 * that an in-process run can draw the same noise as the applications).
 */
inline uint64_t
UplinkNoiseSeed(uint64_t trainingSeed, uint32_t round)
{
    return DeriveSeed(trainingSeed, round, 0x501E);
}

/**
 * What a sender adds to the vectors it releases. Per iteration the sender calls
 * BeginIteration once, then PerturbOutgoing on the copy for each receiver, and PerturbKept on
 * the copy it keeps. Noise is drawn in double precision from the Rng passed in (so a seeded
 * engine reproduces it bit for bit) and rounded to the vector's precision when added; float32
 * and float64 vectors receive the same draws.
 */
class Perturbation
{
  public:
    virtual ~Perturbation() = default;

    /**
     * Starts an iteration whose vectors have `dim` entries. Mechanisms that draw one noise per
     * sender per iteration draw it here; the default does nothing.
     */
    virtual void BeginIteration(std::size_t dim, Rng& rng);

    /// Adds the noise for `receiver` in place to the copy sent to it.
    virtual void PerturbOutgoing(ParamVector& copy, uint32_t receiver, Rng& rng) = 0;

    /**
     * Adds the sender's term to its own kept copy (graph-homomorphic perturbations put their
     * compensating self term here). The default leaves the copy untouched.
     */
    virtual void PerturbKept(ParamVector& own, Rng& rng);

    /**
     * What one receiver observes, for a PrivacyAccountant: the noise kind and scale of this
     * perturbation with the query's `sensitivity` (L2 for Gaussian, L1 for Laplace), which only
     * the algorithm knows (clipping norm, step size, round). Receivers that pool the copies
     * they got from one sender in one iteration see one release under PerSender noise and one
     * release per copy under PerLink noise; account for them accordingly.
     */
    virtual MechanismSpec Mechanism(double sensitivity) const = 0;

    /// Short name for logs and result files, e.g. "gaussian-per-link".
    virtual std::string Name() const = 0;
};

/// No noise: every call leaves the vector's bytes and the engine untouched.
class NoPerturbation : public Perturbation
{
  public:
    void PerturbOutgoing(ParamVector& copy, uint32_t receiver, Rng& rng) override;
    MechanismSpec Mechanism(double sensitivity) const override;
    std::string Name() const override;
};

/// Whether independent noise is drawn per link or once per sender and iteration.
enum class NoiseScope : uint8_t
{
    PerLink,   ///< a fresh draw for every outgoing copy
    PerSender, ///< one draw per iteration (BeginIteration), the same for every receiver
};

/// Name of a noise scope ("per-link", "per-sender").
const char* NoiseScopeName(NoiseScope scope);

/**
 * Independent identically distributed noise on every entry of an outgoing copy; the kept copy
 * is left untouched. Subclasses fix the distribution.
 */
class IidNoisePerturbation : public Perturbation
{
  public:
    /// Noise scope of this perturbation.
    NoiseScope Scope() const
    {
        return m_scope;
    }

    /// Draws the per-sender noise (PerSender); does nothing for PerLink.
    void BeginIteration(std::size_t dim, Rng& rng) override;

    /**
     * Adds a fresh draw (PerLink) or this iteration's draw (PerSender; throws ConfigError naming
     * "dim" if the copy's size differs from the dim of BeginIteration).
     */
    void PerturbOutgoing(ParamVector& copy, uint32_t receiver, Rng& rng) override;

    std::string Name() const override;

  protected:
    /// A perturbation of the given scope whose distribution is called `distribution` in Name().
    IidNoisePerturbation(NoiseScope scope, std::string distribution);

    /// Fills `noise` (already sized) with i.i.d. draws of the distribution.
    virtual void Draw(Eigen::VectorXd& noise, Rng& rng) const = 0;

  private:
    NoiseScope m_scope;
    std::string m_distribution;
    bool m_drawn{false};           ///< BeginIteration has drawn m_senderNoise (PerSender)
    Eigen::VectorXd m_senderNoise; ///< this iteration's per-sender draw
};

/// N(0, sigma^2) on every entry (Gaussian mechanism, L2 sensitivity).
class GaussianPerturbation : public IidNoisePerturbation
{
  public:
    /// Throws ConfigError naming "sigma" unless sigma is finite and > 0.
    GaussianPerturbation(double sigma, NoiseScope scope);

    /// Standard deviation sigma.
    double Sigma() const
    {
        return m_sigma;
    }

    MechanismSpec Mechanism(double sensitivity) const override;

  private:
    void Draw(Eigen::VectorXd& noise, Rng& rng) const override;
    double m_sigma;
};

/**
 * Lap(0, b) on every entry, density exp(-|x|/b)/(2b), variance 2 b^2 (Laplace mechanism, L1
 * sensitivity). Each entry is an Exp(1) magnitude times b with a sign from one engine bit.
 */
class LaplacePerturbation : public IidNoisePerturbation
{
  public:
    /// Throws ConfigError naming "b" unless b is finite and > 0.
    LaplacePerturbation(double b, NoiseScope scope);

    /// Scale b.
    double Scale() const
    {
        return m_b;
    }

    MechanismSpec Mechanism(double sensitivity) const override;

  private:
    void Draw(Eigen::VectorXd& noise, Rng& rng) const override;
    double m_b;
};

} // namespace fl
} // namespace ns3

#endif // FL_PERTURBATION_H

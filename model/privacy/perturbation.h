/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Perturbations: the noise a sender adds where a model or an update leaves a node (client
 * uplink, server to neighbour server, peer broadcast) and to the copy it keeps.
 */
#ifndef FL_PERTURBATION_H
#define FL_PERTURBATION_H

#include "ns3/noise-source.h"
#include "ns3/param-vector.h"
#include "ns3/privacy-accountant.h"

#include <cstdint>
#include <memory>
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

    /**
     * True if every receiver gets the same copy in an iteration (no noise, per-sender and
     * broadcast noise, graph-homomorphic noise), so that one broadcast carries it; false if the
     * copies differ (per-link noise). The default is false.
     */
    virtual bool SameForEveryReceiver() const;
};

/// No noise: every call leaves the vector's bytes and the engine untouched.
class NoPerturbation : public Perturbation
{
  public:
    void PerturbOutgoing(ParamVector& copy, uint32_t receiver, Rng& rng) override;
    MechanismSpec Mechanism(double sensitivity) const override;
    std::string Name() const override;
    bool SameForEveryReceiver() const override;
};

/// Whether independent noise is drawn per link or once per sender and iteration.
enum class NoiseScope : uint8_t
{
    PerLink,   ///< a fresh draw for every outgoing copy
    PerSender, ///< one draw per iteration (BeginIteration), the same for every receiver
    /**
     * One draw per iteration, the same on every outgoing copy and also on the kept copy: the
     * sender keeps the very vector it broadcast (the i.i.d. baseline of the GHP paper, eqs.
     * (7)-(9), with the noisy broadcast also used as the self-term; one of the readings of the
     * random-perturbation baseline of the GFL paper, which does not say how it is drawn).
     */
    Broadcast,
};

/// Name of a noise scope ("per-link", "per-sender", "broadcast").
const char* NoiseScopeName(NoiseScope scope);

/**
 * Fills `noise` (already sized) with i.i.d. Lap(0, b) entries: for each entry in turn one engine
 * output gives the sign (its lowest bit) and an Exp(1) draw times b the magnitude. b > 0 is not
 * checked here (the perturbations validate it).
 */
void DrawLaplace(Eigen::VectorXd& noise, double b, Rng& rng);

/// Fills `noise` (already sized) with i.i.d. N(0, sigma^2) entries (std::normal_distribution).
void DrawGaussian(Eigen::VectorXd& noise, double sigma, Rng& rng);

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

    /**
     * Broadcast: adds this iteration's draw to the kept copy (throws ConfigError naming "dim" as
     * PerturbOutgoing); PerLink and PerSender leave the kept copy untouched.
     */
    void PerturbKept(ParamVector& own, Rng& rng) override;

    std::string Name() const override;
    bool SameForEveryReceiver() const override;

  protected:
    /// A perturbation of the given scope whose distribution is called `distribution` in Name().
    IidNoisePerturbation(NoiseScope scope, std::string distribution);

    /// Fills `noise` (already sized) with i.i.d. draws of the distribution.
    virtual void Draw(Eigen::VectorXd& noise, Rng& rng) const = 0;

  private:
    /// Throws ConfigError naming "dim" unless this iteration's draw exists and has `size` entries.
    void CheckSenderNoise(std::size_t size) const;

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

/// Distribution of i.i.d. noise entries.
enum class NoiseDistribution : uint8_t
{
    Laplace,  ///< Lap(0, b), variance 2 b^2 (the papers' choice)
    Gaussian, ///< N(0, sigma^2)
};

/// Name of a noise distribution ("laplace", "gaussian").
const char* NoiseDistributionName(NoiseDistribution distribution);

/**
 * Graph-homomorphic perturbations (Vlaski & Sayed, ICASSP 2021, eq. (20); the GFL preprint of
 * Rizk, Vlaski & Sayed, eq. (47)). Each iteration the sender l draws ONE vector v_l
 * (BeginIteration) and
 *  - adds v_l to the copy for every receiver k != l (q_lk = v_l: one broadcast suffices),
 *  - adds -((1 - a_ll) / a_ll) v_l to the copy it keeps (q_ll, never transmitted),
 * so that sum_k a_lk q_lk = (1 - a_ll) v_l - (1 - a_ll) v_l = 0 whenever row l of the combination
 * matrix sums to one: the noise vanishes from the (Perron-weighted) network centroid. The
 * combination needs a_ll > 0; a_ll = 1 (a node without neighbours) gives no compensation.
 */
class GraphHomomorphicPerturbation : public Perturbation
{
  public:
    /**
     * @param distribution distribution of the entries of v_l
     * @param scale b (Laplace) or sigma (Gaussian), finite and > 0
     * @param selfWeight a_ll, in (0, 1]
     * @param weightName how errors name the self-weight, e.g. "a_{3,3}"
     * Throws ConfigError naming `weightName` if a_ll is not in (0, 1] (the compensating self term
     * divides by a_ll), and naming "b" or "sigma" for a bad scale.
     */
    GraphHomomorphicPerturbation(NoiseDistribution distribution,
                                 double scale,
                                 double selfWeight,
                                 const std::string& weightName = "self-weight a_ll");

    /// Draws this iteration's v_l (dim entries).
    void BeginIteration(std::size_t dim, Rng& rng) override;

    /// copy += v_l (throws ConfigError naming "dim" before BeginIteration or on a size mismatch).
    void PerturbOutgoing(ParamVector& copy, uint32_t receiver, Rng& rng) override;

    /// own += -((1 - a_ll) / a_ll) v_l (errors as PerturbOutgoing).
    void PerturbKept(ParamVector& own, Rng& rng) override;

    /// The transmitted noise: Laplace or Gaussian with this scale (the kept term is not released).
    MechanismSpec Mechanism(double sensitivity) const override;

    /// "graph-homomorphic-laplace" or "graph-homomorphic-gaussian".
    std::string Name() const override;

    bool SameForEveryReceiver() const override;

    /// This iteration's draw v_l (empty before the first BeginIteration).
    const Eigen::VectorXd& Noise() const
    {
        return m_noise;
    }

    /// The self-weight a_ll.
    double SelfWeight() const
    {
        return m_selfWeight;
    }

    /// The factor (1 - a_ll) / a_ll of the compensating self term.
    double CompensationFactor() const
    {
        return (1.0 - m_selfWeight) / m_selfWeight;
    }

  private:
    void CheckDrawn(std::size_t size) const;
    NoiseDistribution m_distribution;
    double m_scale;
    double m_selfWeight;
    bool m_drawn{false};
    Eigen::VectorXd m_noise;
};

/// What noise a node adds to the vectors it sends to its graph neighbours.
enum class NodeNoiseKind : uint8_t
{
    None,             ///< no noise
    IidPerLink,       ///< independent draw per outgoing copy; the kept copy is clean
    IidPerSender,     ///< one draw per iteration on every outgoing copy; the kept copy is clean
    IidBroadcast,     ///< one draw per iteration on every outgoing copy and on the kept copy
    GraphHomomorphic, ///< GraphHomomorphicPerturbation
};

/// Name of a node-noise kind ("none", "iid-per-link", "iid-per-sender", "iid-broadcast",
/// "graph-homomorphic").
const char* NodeNoiseKindName(NodeNoiseKind kind);

/**
 * Parses a node-noise kind from its name (also "iid" = "iid-broadcast", "gh" and
 * "homomorphic" = "graph-homomorphic"). Throws ConfigError naming `parameter` otherwise.
 */
NodeNoiseKind ParseNodeNoiseKind(const std::string& name, const std::string& parameter);

/// A node's noise: kind, distribution and scale (b for Laplace, sigma for Gaussian).
struct NodeNoiseConfig
{
    NodeNoiseKind kind{NodeNoiseKind::None};                    ///< what is added where
    NoiseDistribution distribution{NoiseDistribution::Laplace}; ///< entry distribution
    double scale{0.0}; ///< b (Laplace, variance 2 b^2) or sigma (Gaussian); unused for None
    /// where the noise engines' seeds come from (derived from the run seed, or libsodium)
    NoiseSource source{NoiseSource::RunSeed};
};

/**
 * The Perturbation of one node: NoPerturbation, Laplace/GaussianPerturbation with the kind's
 * NoiseScope, or GraphHomomorphicPerturbation with self-weight `selfWeight` (named `weightName`
 * in errors). Throws ConfigError as the constructors do.
 */
std::unique_ptr<Perturbation> MakeNodePerturbation(const NodeNoiseConfig& config,
                                                   double selfWeight,
                                                   const std::string& weightName);

} // namespace fl
} // namespace ns3

#endif // FL_PERTURBATION_H

/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * A GHP diffusion agent (S. Vlaski, A. H. Sayed, "Graph-Homomorphic Perturbations for Private
 * Decentralized Learning", ICASSP 2021): perturbed adapt-then-combine over any NetDevice, through
 * the transport seam.
 */
#ifndef DIFFUSION_AGENT_APPLICATION_H
#define DIFFUSION_AGENT_APPLICATION_H

#include "ns3/event-id.h"
#include "ns3/fl-application-base.h"
#include "ns3/fl-graph-exchange.h"
#include "ns3/learning-task.h"
#include "ns3/nstime.h"
#include "ns3/random-variable-stream.h"

#include <functional>
#include <memory>

namespace ns3
{

/**
 * \ingroup fl-apps
 * An agent k of perturbed ATC diffusion (GHP paper, eqs. (14)-(16) and (20)). Iteration i:
 *  1. adapt: phi_k = w_k - mu clip(grad Q_k(w_k)) on a mini-batch of BatchSize samples
 *     (fl::TrainClientWith with fl::DiffusionAdaptConfig, engine DeriveSeed(Seed, i), as
 *     fl::RunDiffusionInProcess);
 *  2. after ComputeTime (+ a uniform draw in [0, ReleaseJitter], its own stream), release
 *     phi_k with the agent's perturbation (none, i.i.d., graph-homomorphic) and send it: one
 *     message for all neighbours when the noise is the same for every receiver (one link-layer
 *     broadcast if UdpBroadcastAddress is set, else one encoding sent to each neighbour's
 *     address), else one per neighbour;
 *  3. combine when every neighbour's message of iteration i arrived, or ExchangeTimeout after
 *     the release with the missing-message policy (FlGraphExchangeNode);
 *  4. report w_k through ModelReport (round i, role Peer; round 0 = the initial model).
 * Iteration i+1 begins at once (IterationPeriod 0, the default), or on a synchronous schedule
 * at start + i IterationPeriod (every agent begins its iterations at the same instants, so a
 * message that is missing at the combination was lost on the air, not late; needs ComputeTime +
 * ReleaseJitter + the exchange timeout <= IterationPeriod).
 */
class DiffusionAgentApplication : public FlApplicationBase
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    DiffusionAgentApplication();
    ~DiffusionAgentApplication() override;

    /// The learning task (agent k's data = task client AgentIndex). Must be set before start.
    void SetTask(std::shared_ptr<const fl::LearningTask> task);
    /// The exchange (neighbours' addresses, weights, noise, seed, policy, timeout).
    void SetExchange(const FlGraphExchangeConfig& exchange);
    /// The initial model w_{k,0} (default: the task's, from InitialModelSeed(Seed)).
    void SetInitialModel(const fl::ParamVector& w0);
    /// Called after every iteration: (agent, iteration, phi_k, w_k, outcome).
    using IterationCallback = std::function<void(uint32_t,
                                                 uint32_t,
                                                 const fl::ParamVector&,
                                                 const fl::ParamVector&,
                                                 const fl::CombineOutcome&)>;
    /// Sets the iteration callback.
    void SetIterationCallback(IterationCallback cb);

    /// Iterations completed.
    uint32_t GetIterationsCompleted() const
    {
        return m_completed;
    }

    /// The current model w_k.
    const fl::ParamVector& GetModel() const
    {
        return m_model;
    }

    /**
     * Fixes the random stream of the release jitter.
     * @param stream the stream index
     * @return the number of streams used (1)
     */
    int64_t AssignStreams(int64_t stream);

    /// Exchange counters (null before start).
    const FlGraphExchangeStats* GetExchangeStats() const;

    /// Graph indices of the neighbours whose message was missing at the last combination
    /// (valid in the iteration callback; empty before start).
    const std::vector<uint32_t>& GetLastMissing() const;

  protected:
    void DoDispose() override;

  private:
    void StartApplication() override;
    void StopApplication() override;
    void BeginIteration();
    void Release();
    void HandleInbound(FlInboundMessage& in);

    uint32_t m_iterations;
    uint32_t m_agentIndex;
    uint16_t m_port;
    double m_mu;
    uint32_t m_batchSize;
    double m_clipNorm;
    Time m_computeTime;
    Time m_period;
    Time m_jitter;
    Ptr<UniformRandomVariable> m_jitterRv;
    Time m_startedAt;

    std::shared_ptr<const fl::LearningTask> m_task;
    FlGraphExchangeConfig m_exchangeConfig;
    Ptr<FlGraphExchangeNode> m_exchange;
    fl::LocalTrainerConfig m_adapt;
    fl::ParamVector m_model;
    fl::ParamVector m_phi;
    uint32_t m_completed{0};
    bool m_stopped{false};
    EventId m_releaseEvent;
    IterationCallback m_callback;
};

} // namespace ns3

#endif // DIFFUSION_AGENT_APPLICATION_H

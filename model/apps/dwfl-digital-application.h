/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The digital reference of DWFL (S. Chen, D. Yu, Y. Zou, J. Yu, X. Cheng, "Decentralized Wireless
 * Federated Learning with Differential Privacy", arXiv:2109.09142, 2021): the same decentralized
 * averaging, without noise, over a digital network through the transport seam. Every worker
 * sends its model to every other worker (FlTransport::SendModel), then applies the update of
 * eq. (7) with the exact sum of the others' models.
 */
#ifndef DWFL_DIGITAL_APPLICATION_H
#define DWFL_DIGITAL_APPLICATION_H

#include "ns3/address.h"
#include "ns3/event-id.h"
#include "ns3/fl-application-base.h"
#include "ns3/fl-graph-exchange.h"
#include "ns3/learning-task.h"
#include "ns3/nstime.h"
#include "ns3/random-variable-stream.h"
#include "ns3/traced-callback.h"

#include <functional>
#include <memory>
#include <vector>

namespace ns3
{

/**
 * \ingroup fl-apps
 * A worker of the digital DWFL reference.
 *
 * Round t of worker i (rounds follow each other as soon as a worker has what it needs; there
 * is no global clock):
 *  1. local step from x_i^(t-1/2): the task's local trainer on data set WorkerIndex (configure
 *     it as DWFL's step: one mini-batch step of size gamma with the gradient clipped to g_max);
 *     this gives x_i^(t);
 *  2. after ComputeTime, x_i^(t) goes to every peer as one PeerModel message of round t
 *     through an FlGraphExchangeNode (the neighbour exchange of GFL and GHP: the complete graph,
 *     no perturbation, weight 1 on every peer's model and 0 on the own, so that what it
 *     combines is v_i = sum_{k != i} x_k^(t), summed in ascending worker order);
 *  3. when the N-1 models of round t have arrived (messages of later rounds wait in the
 *     exchange's buffer), x_i^(t+1/2) = x_i^(t) + eta (v_i / (N-1) - x_i^(t)): eq. (7) without
 *     noise (fl::DwflPracticalUpdate with c = 1, a_i = 0);
 *  4. x_i^(t+1/2) is reported through ModelReport (round t + 1, role Peer; round 0 is the
 *     initial model, reported at start).
 * N is the number of peers plus one. A peer's model that never arrives (UDP that gave up)
 * stalls the worker: use TCP (default) or UDP with HolePolicy retransmit.
 */
class DwflDigitalApplication : public FlApplicationBase
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    DwflDigitalApplication();
    ~DwflDigitalApplication() override;

    /// The learning task (float64). Must be set before start.
    void SetTask(std::shared_ptr<const fl::LearningTask> task);
    /**
     * The transport addresses (InetSocketAddress with the peers' Port) of the other N-1
     * workers and their worker indices (empty: the indices 0, 1, ... other than WorkerIndex, in
     * the order of `peers`). Must be set before start; at least one.
     */
    void SetPeers(const std::vector<Address>& peers, const std::vector<uint32_t>& indices = {});
    /// The initial model x_i^(-1/2), the same at every worker (default: the task's, seed 1).
    void SetInitialModel(const fl::ParamVector& x0);
    /**
     * A variant for workers that move and do not all hear each other ("DWFL digital on the
     * heard graph", not the paper's algorithm): before each round's send the worker takes its
     * neighbours and its column of Metropolis weights from `source` (e.g.
     * FlHelloApplication::GetNeighbourhood with this application's Port), sends x_i^(t) to
     * those neighbours, and its update is the combination
     *   x_i^(t+1/2) = a_ii x_i^(t) + sum_{l ~ i} a_li x_l^(t)
     * instead of eq. (7), with the neighbours' messages that arrived within ExchangeTimeout (a
     * missing one replaced by its last, ReuseLast). On a still complete graph the Metropolis
     * weights are 1/N and the combination is eq. (7) with Eta = (N-1)/N (the default). The
     * peers (SetPeers) still give N and the indices. Needs ExchangeTimeout > 0.
     */
    void SetNeighbourSource(std::function<FlGraphNeighbourhood(uint32_t)> source);

    /// Rounds completed (updates applied).
    uint32_t GetRoundsCompleted() const;
    /// Simulated time at which the last round completed.
    Time GetLastRoundTime() const;
    /// The current model x_i^(t+1/2) of the last completed round (the initial one before).
    const fl::ParamVector& GetModel() const;
    /// Messages ignored: not a PeerModel, a round already completed, a duplicate, a bad size,
    /// not from a peer.
    uint64_t GetIgnoredMessages() const;

    /// The neighbour exchange's counters (null before start).
    const FlGraphExchangeStats* GetExchangeStats() const
    {
        return m_exchange ? &m_exchange->Stats() : nullptr;
    }

    /// Assigns a fixed stream number to the training-seed variable. \return 1
    int64_t AssignStreams(int64_t stream);

    /// Signature of the RoundCompleted trace: round (1, 2, ...; round 0 is the initial model, as
    /// in ModelReport), simulated time of its completion.
    using RoundCompletedCallback = void (*)(uint32_t round, Time at);

  protected:
    void DoDispose() override;

  private:
    void StartApplication() override;
    void StopApplication() override;
    void BeginRound();
    void SendLocalModel();
    void HandleInbound(FlInboundMessage& in);
    void CompleteRound();

    // Attributes
    uint32_t m_rounds;
    uint32_t m_workerIndex;
    uint16_t m_port;
    double m_eta;
    Time m_computeTime;
    uint64_t m_trainingSeedAttr;
    Time m_exchangeTimeout;
    std::function<FlGraphNeighbourhood(uint32_t)> m_neighbourSource;

    std::shared_ptr<const fl::LearningTask> m_task;
    std::vector<Address> m_peers;
    std::vector<uint32_t> m_peerIndices;
    fl::ParamVector m_model;    ///< x_i^(t-1/2) before the local step, x_i^(t+1/2) after the update
    fl::ParamVector m_local;    ///< x_i^(t), sent to the peers
    fl::ParamVector m_received; ///< v_i = sum_{k != i} x_k^(t) of the round
    Ptr<FlGraphExchangeNode> m_exchange; ///< the neighbour exchange
    uint32_t m_round{0};
    bool m_stopped{false};
    uint64_t m_trainingSeed{0};
    uint64_t m_ignored{0};
    Time m_lastRoundTime;
    Ptr<UniformRandomVariable> m_seedRng;
    EventId m_sendEvent;
    TracedCallback<uint32_t, Time> m_roundCompletedTrace;
};

} // namespace ns3

#endif // DWFL_DIGITAL_APPLICATION_H

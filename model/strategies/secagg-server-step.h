/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The server half of secure aggregation as an uplink step (fl-uplink-step.h): the protocol of
 * Bonawitz et al., "Practical Secure Aggregation for Privacy-Preserving Machine Learning", ACM
 * CCS 2017 (Fig. 4 with the consistency check), or SecAgg+ of Bell, Bonawitz, Gascón, Lepoint
 * and Raykova, "Secure Single-Server Aggregation with (Poly)Logarithmic Overhead", ACM CCS 2020,
 * over real links. The maths and the message formats are fl::SecAggServer (secagg-protocol.h,
 * secagg-wire.h); this object decides when and to whom.
 *
 * Phases of one round (every message a Control message with aux = kSecAggControlTag, the round
 * number in its header and the instance in the SecAgg header; the protocol's U1..U5):
 *   setup     server -> selected   RoundSetup (the configuration: clients, t, graph, dim)
 *   keys      client -> server     AdvertiseKeys, as the round's upload (raw LocalModel): the
 *                                  round's deadline decides who is in U1
 *             server -> U1         KeyList (the keys of each client's holders)
 *   shares    client -> server     EncryptedShares        server -> U2  ForwardedShares
 *   input     client -> server     MaskedInput            server -> U3  SurvivorList
 *   check     client -> server     ConsistencySignature   server -> U4  SignatureList
 *   unmask    client -> server     UnmaskShares           server: reconstruct, unmask, decode
 * A phase closes when every client that got the server's last message answered, or Timeout
 * after it began (with whoever answered). Several instances may run at once (an asynchronous
 * strategy's cohorts, FlAsyncHooks::UplinkCohortSize): each has its own phases and timers,
 * keyed by its instance number (the round number of its messages). Fewer than t anywhere: the round
 * aborts with the status fl::SecAggServer reports (counted, traced); the server application keeps
 * its model. A message that does not parse, comes from another client than it names, or is of the
 * wrong type is dropped and counted; one of another instance or a closed phase is counted as late.
 */
#ifndef FL_SECAGG_SERVER_STEP_H
#define FL_SECAGG_SERVER_STEP_H

#include "ns3/event-id.h"
#include "ns3/fl-uplink-step.h"
#include "ns3/nstime.h"
#include "ns3/secagg-step-settings.h"
#include "ns3/traced-callback.h"

#include <map>
#include <memory>
#include <set>

namespace ns3
{

/**
 * \ingroup fl-strategies
 * How one secure-aggregation round ended (SecAggServerStep's "RoundEnd" trace).
 */
struct SecAggRoundReport
{
    uint32_t round{0};                             ///< the instance (the server's round number)
    bool ok{false};                                ///< the sum was decoded
    fl::SecAggStatus status{fl::SecAggStatus::Ok}; ///< Ok, or why the round aborted
    std::string statusText;          ///< fl::SecAggStatusText(status), or the setup's reason
    uint32_t sampled{0};             ///< n, the clients the round was configured for
    uint32_t threshold{0};           ///< t
    uint32_t neighbours{0};          ///< k (SecAgg+), n - 1 for the complete graph
    uint32_t sets[5]{0, 0, 0, 0, 0}; ///< |U1| .. |U5| (0 after an abort for the later ones)
    Time start;                      ///< when the round's uploads closed
    Time end;                        ///< when the sum was decoded or the round aborted
    uint32_t timeouts{0};            ///< phases closed at the Timeout with answers missing
};

/**
 * \ingroup fl-strategies
 * Secure aggregation, server half (see the file comment). Create it with FlSecAggHelper, which
 * installs the PKI (every client's Ed25519 verification key) and sets the attributes alike on
 * both halves.
 */
class SecAggServerStep : public FlUplinkServerStep, public SecAggStepSettingsHolder
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    SecAggServerStep();
    ~SecAggServerStep() override;

    /// Every client's verification key (the simulated PKI, installed out of band).
    void SetPki(const fl::SecAggPki& pki);

    /// Counters of the step.
    struct Counters
    {
        uint64_t rounds{0};           ///< rounds aggregated (Aggregate calls)
        uint64_t completed{0};        ///< sums decoded
        uint64_t aborted{0};          ///< rounds aborted
        uint64_t malformed{0};        ///< messages dropped: unparsable, wrong type or sender
        uint64_t rejected{0};         ///< well-formed messages the protocol refused
        uint64_t late{0};             ///< messages of another instance or a closed phase
        uint64_t timeouts{0};         ///< phases closed at the Timeout with answers missing
        uint64_t messagesSent{0};     ///< protocol messages sent
        uint64_t bytesSent{0};        ///< their bytes (SecAgg messages, without transport)
        uint64_t messagesReceived{0}; ///< protocol messages received (uploads included)
        uint64_t bytesReceived{0};    ///< their bytes
    };

    /// The counters.
    const Counters& GetCounters() const
    {
        return m_counters;
    }

    /**
     * The public randomness beacon the SecAgg+ graphs are drawn from (secagg-beacon.h), shared
     * with the clients (FlSecAggHelper makes it). The server announces for each instance a
     * beacon round published at least BeaconLead after the setup goes out, and computes the
     * graph once that round is public.
     */
    void SetBeacon(std::shared_ptr<const fl::SecAggBeacon> beacon);

    /// TracedCallback signature of RoundEnd.
    using RoundEndCallback = void (*)(const SecAggRoundReport& report);
    /// TracedCallback signature of PhaseEnd: round, phase (1 keys .. 5 unmask), answers,
    /// clients asked.
    using PhaseEndCallback = void (*)(uint32_t round,
                                      uint32_t phase,
                                      uint32_t answered,
                                      uint32_t asked);

    void SetPort(Port port) override;
    void RoundStarting(uint32_t round,
                       const std::vector<uint32_t>& selected,
                       std::size_t dim) override;
    void Aggregate(uint32_t round,
                   const std::vector<uint32_t>& clients,
                   const std::vector<const std::vector<uint8_t>*>& uploads,
                   Done done) override;
    bool Receive(uint32_t client,
                 uint32_t round,
                 uint32_t tag,
                 const std::vector<uint8_t>& bytes) override;
    void Forget(uint32_t round) override;
    void Stop() override;

    /// Instances set up or running now (for tests: finished ones are forgotten).
    std::size_t GetRunningInstances() const
    {
        return m_instances.size();
    }

  protected:
    void DoDispose() override;

  private:
    /// One instance of the protocol (a round, or a cohort of an asynchronous strategy).
    struct Instance
    {
        bool configured{false}; ///< a setup went out
        std::string setupText;  ///< why not
        fl::SecAggConfig config;
        std::unique_ptr<fl::SecAggServer> server;
        uint64_t beaconRound{0};     ///< SecAgg+: the announced beacon round
        int phase{-1};               ///< 0 keys .. 4 unmask; -1 idle
        std::set<uint32_t> asked;    ///< clients sent the last server message
        std::set<uint32_t> answered; ///< of those, clients whose answer was accepted
        EventId timer;
        Done done;
        SecAggRoundReport report;
    };

    void Send(uint32_t instance, uint32_t client, const fl::SecAggBytes& bytes);
    void EndPhase(uint32_t instance, bool timeout);
    void Abort(uint32_t instance, fl::SecAggStatus status, const std::string& text);
    void Complete(uint32_t instance, const fl::SecAggResult& result);
    void Count(fl::SecAggStatus status);

    Time m_timeout;
    Time m_beaconLead;
    fl::SecAggPki m_pki;
    Port m_port;
    std::shared_ptr<const fl::SecAggBeacon> m_beacon;
    Counters m_counters;
    std::map<uint32_t, Instance> m_instances; ///< set up or running, by instance number

    TracedCallback<const SecAggRoundReport&> m_roundEndTrace;
    TracedCallback<uint32_t, uint32_t, uint32_t, uint32_t> m_phaseEndTrace;
};

} // namespace ns3

#endif // FL_SECAGG_SERVER_STEP_H

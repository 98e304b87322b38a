/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The client half of secure aggregation as an uplink step (fl-uplink-step.h; the server half
 * and the phases are in secagg-server-step.h). The maths is fl::SecAggClient (secagg-protocol.h); this
 * object turns the trained upload into the round's AdvertiseKeys message and answers the
 * server's messages in turn. The upload itself never leaves the client: only y_u, its fixed-point
 * encoding under two masks (Bonawitz et al. 2017, Fig. 4), goes out, and only to a round whose
 * announced configuration the client checked before anything else (it names the client; the
 * roster has at least MinClients clients; t, the colluders tolerated, the graph and the fraction
 * bits are what the client's own rule gives; the instance is newer than any before, so a second
 * roster or graph for one instance is refused; a SecAgg+ graph is the one the public beacon gives
 * for a round that was not yet public when the setup arrived). The plaintext upload is wiped as
 * soon as it is masked or given up.
 */
#ifndef FL_SECAGG_CLIENT_STEP_H
#define FL_SECAGG_CLIENT_STEP_H

#include "ns3/event-id.h"
#include "ns3/fl-uplink-step.h"
#include "ns3/secagg-step-settings.h"

#include <memory>
#include <set>

namespace ns3
{

/**
 * \ingroup fl-strategies
 * Secure aggregation, client half (see the file comment). FlSecAggHelper gives it its identity,
 * the PKI and, in the Reproducible key mode, the run seed.
 *
 * Failure injection (attributes DropBeforePhase, DropRounds): the client goes silent before a
 * phase of the protocol in the listed rounds, as a client that drops out at that point would.
 */
class SecAggClientStep : public FlUplinkClientStep, public SecAggStepSettingsHolder
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    SecAggClientStep();
    ~SecAggClientStep() override;

    /**
     * The client's Ed25519 identity, every client's verification key (the simulated PKI) and
     * the run seed of the Reproducible key mode (ignored in Random mode).
     */
    void SetKeys(const fl::SecAggIdentity& identity,
                 const fl::SecAggPki& pki,
                 const fl::SecAggRunSeed& runSeed);

    /// The public randomness beacon the SecAgg+ graph is drawn from (FlSecAggHelper makes it).
    void SetBeacon(std::shared_ptr<const fl::SecAggBeacon> beacon);

    /// Counters of the step.
    struct Counters
    {
        uint64_t setups{0};       ///< round configurations accepted
        uint64_t refused{0};      ///< setups or protocol messages refused (the client stops)
        uint64_t malformed{0};    ///< messages dropped: unparsable or of a mismatched round
        uint64_t late{0};         ///< messages of another instance than the current one
        uint64_t advertised{0};   ///< AdvertiseKeys sent (the round's uploads)
        uint64_t maskedInputs{0}; ///< MaskedInput sent
        uint64_t unmasked{0};     ///< UnmaskShares sent
        uint64_t silent{0};       ///< phases skipped by failure injection
        uint64_t discarded{0};    ///< uploads never sent (no accepted setup for their round)
        uint64_t messagesSent{0}; ///< protocol messages sent
        uint64_t bytesSent{0};    ///< their bytes
    };

    /// The counters.
    const Counters& GetCounters() const
    {
        return m_counters;
    }

    /// Why the client last refused (Ok if it never did).
    fl::SecAggStatus LastRefusal() const
    {
        return m_lastRefusal;
    }

    void SetPort(uint32_t client, std::size_t dim, Port port) override;
    void Upload(uint32_t round, const fl::ParamVector& update, uint64_t weight) override;
    bool Receive(uint32_t round, uint32_t tag, const std::vector<uint8_t>& bytes) override;

  protected:
    void DoDispose() override;

  private:
    /// Phases the failure injection can skip (DropBeforePhase).
    enum class Drop : uint8_t
    {
        None,
        Keys,
        Shares,
        Input,
        Consistency,
        Unmask
    };

    bool Dropping(Drop phase, uint32_t round);
    void HandleSetup(uint64_t instance, const std::vector<uint8_t>& bytes);
    /// Accepts a setup whose checks that need no beacon passed (at the beacon round, if any).
    void AcceptSetup(uint64_t instance, const fl::SecAggRoundSetup& setup);
    /// Forgets the plaintext upload (wiped).
    void DropInput();
    void Advertise();
    void Refuse(fl::SecAggStatus status, const char* what);
    void Send(uint32_t round, const fl::SecAggBytes& bytes);
    fl::KeySource Keys(uint64_t instance) const;

    // attributes
    std::string m_dropBeforeName;
    std::string m_dropRoundsSpec;

    Drop m_dropBefore{Drop::None};
    std::set<uint32_t> m_dropRounds;
    bool m_parsed{false};
    fl::SecAggRule m_rule;
    fl::KeyMode m_mode{fl::KeyMode::Random};
    fl::SecAggIdentity m_identity;
    fl::SecAggPki m_pki;
    fl::SecAggRunSeed m_runSeed{};
    bool m_hasKeys{false};
    uint32_t m_clientIndex{0};
    std::size_t m_dim{0};
    Port m_port;

    uint64_t m_instance{0};     ///< the round of the current protocol instance
    uint64_t m_lastInstance{0}; ///< the newest instance accepted (replays are refused)
    std::unique_ptr<fl::SecAggClient> m_client;
    std::shared_ptr<const fl::SecAggBeacon> m_beacon;
    EventId m_pendingSetup; ///< a SecAgg+ setup waiting for its beacon round
    bool m_hasInput{false};   ///< an upload waiting for (or in) the protocol
    uint32_t m_inputRound{0}; ///< its round
    Eigen::VectorXd m_input;  ///< the upload in float64
    uint64_t m_weight{1};     ///< its weight
    fl::SecAggStatus m_lastRefusal{fl::SecAggStatus::Ok};
    Counters m_counters;
};

} // namespace ns3

#endif // FL_SECAGG_CLIENT_STEP_H

/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Builds the secure-aggregation uplink step for one server and its clients: both halves with the
 * same attributes, and the simulated PKI (each client's Ed25519 identity made here and every
 * verification key given to every party out of band, never through the server).
 */
#ifndef FL_SECAGG_HELPER_H
#define FL_SECAGG_HELPER_H

#include "ns3/object-factory.h"
#include "ns3/random-variable-stream.h"
#include "ns3/secagg-client-step.h"
#include "ns3/secagg-server-step.h"

#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup fl-helper
 * The two halves of one server's secure aggregation, as FlSecAggHelper::Create made them.
 */
struct FlSecAggParties
{
    Ptr<SecAggServerStep> server;                      ///< for FlServerApplication
    std::map<uint32_t, Ptr<SecAggClientStep>> clients; ///< by client index
};

/**
 * \ingroup fl-helper
 * Secure aggregation for any server-clients algorithm (FlFedAvgHelper::SetSecureAggregation,
 * FlGflHelper; or by hand: SetUplinkStep on the server and on each client).
 *
 * \code
 *   FlSecAggHelper secagg;
 *   secagg.SetAttribute("Variant", StringValue("secaggplus"));
 *   secagg.SetServerAttribute("Timeout", TimeValue(Seconds(2)));
 *   FlSecAggParties parties = secagg.Create({0, 1, 2, 3, 4});
 *   server->SetUplinkStep(parties.server);
 *   client0->SetUplinkStep(parties.clients.at(0)); // ...
 * \endcode
 *
 * Identities: in the Random key mode from libsodium; in the Reproducible mode (INSECURE,
 * simulation studies only) every identity and key derives from a 256-bit run seed drawn from
 * an ns-3 stream (AssignStreams; otherwise the stream the simulator assigns), so that the same
 * RngSeed and RngRun give the same run bit for bit.
 */
class FlSecAggHelper
{
  public:
    FlSecAggHelper();

    /**
     * An attribute of both halves alike (Variant, Threshold, KeyMode, FractionBits,
     * Colluders, MinClients, MinHonest, CorruptFraction, DropoutFraction, SecurityBits,
     * CorrectnessBits, BeaconPeriod; see SecAggServerStep).
     */
    void SetAttribute(const std::string& name, const AttributeValue& value);
    /// An attribute of the server half only (Timeout).
    void SetServerAttribute(const std::string& name, const AttributeValue& value);
    /// An attribute of every client half (failure injection: DropBeforePhase, DropRounds).
    void SetClientAttribute(const std::string& name, const AttributeValue& value);

    /**
     * Checks the attributes; throws fl::ConfigError naming the first bad one
     * ("ns3::SecAggServerStep::Variant", ...). Create calls it.
     */
    void Check() const;

    /**
     * The server half and one client half per id of `clients` (the clients' indices in the
     * applications, each < 0xFFFFFFFF), with their identities and the PKI of these clients.
     * Throws fl::ConfigError as Check, or naming "clients" if fewer than 2 or repeated.
     */
    FlSecAggParties Create(const std::vector<uint32_t>& clients);

    /// Fixes the stream of the run seed of the Reproducible key mode. \return 1
    int64_t AssignStreams(int64_t stream);

    /// The variant ("secagg" or "secaggplus").
    std::string GetVariant() const;
    /// The key mode.
    fl::KeyMode GetKeyMode() const;

    /**
     * The roster size the server will sample (ClientsPerRound, or BufferSize for FedBuff's
     * cohorts): sets MinClients on both halves to it unless MinClients was set. FlFedAvgHelper
     * calls it.
     */
    void SetCohortSize(uint32_t cohort);

    /**
     * The guarantee for rosters of `cohort` clients (SecAggGuaranteeText): adversary,
     * condition, n, t, n_C, the dropouts tolerated and what the server can learn. Throws
     * fl::ConfigError naming the attribute if the rule cannot serve such rosters (e.g. a
     * Threshold above the cohort).
     */
    std::string Guarantee(uint32_t cohort) const;

    /**
     * Lines for a program's output: the guarantee for rosters of `cohort` clients (when
     * cohort >= 2) and the settings (variant, threshold rule, colluders, fraction bits, timeout,
     * key mode; the Reproducible mode said to be INSECURE).
     */
    std::string Describe(uint32_t cohort = 0) const;

  private:
    ObjectFactory m_server;
    ObjectFactory m_client;
    Ptr<UniformRandomVariable> m_seedStream; ///< the run seed of the Reproducible mode
    bool m_haveRunSeed{false};
    fl::SecAggRunSeed m_runSeed{};
    uint64_t m_beacons{0}; ///< beacons made (Reproducible mode: each its own key)
};

} // namespace ns3

#endif // FL_SECAGG_HELPER_H

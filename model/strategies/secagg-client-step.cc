/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/secagg-client-step.h"

#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/text-parse.h"

#include <sodium.h>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SecAggClientStep");
NS_OBJECT_ENSURE_REGISTERED(SecAggClientStep);

TypeId
SecAggClientStep::GetTypeId()
{
    static TypeId tid =
        AddSecAggSettingsAttributes(TypeId("ns3::SecAggClientStep")
                                        .SetParent<FlUplinkClientStep>()
                                        .SetGroupName("Fl")
                                        .AddConstructor<SecAggClientStep>())
            .AddAttribute("DropBeforePhase",
                          "Failure injection: in the rounds of DropRounds the client goes silent "
                          "before this phase: none (default), keys (advertises nothing: not in "
                          "U1), shares (not in U2), input (uploads no masked input: not in U3), "
                          "consistency (does not sign U3), unmask (reveals no shares).",
                          StringValue("none"),
                          MakeStringAccessor(&SecAggClientStep::m_dropBeforeName),
                          MakeStringChecker())
            .AddAttribute("DropRounds",
                          "Failure injection: the rounds DropBeforePhase applies to, e.g. "
                          "\"2,4-6\" (empty = every round).",
                          StringValue(""),
                          MakeStringAccessor(&SecAggClientStep::m_dropRoundsSpec),
                          MakeStringChecker());
    return tid;
}

SecAggClientStep::SecAggClientStep()
    : m_dropBeforeName("none")
{
}

SecAggClientStep::~SecAggClientStep() = default;

void
SecAggClientStep::DoDispose()
{
    Simulator::Cancel(m_pendingSetup);
    m_client.reset();
    DropInput();
    m_port = Port();
    FlUplinkClientStep::DoDispose();
}

void
SecAggClientStep::SetKeys(const fl::SecAggIdentity& identity,
                          const fl::SecAggPki& pki,
                          const fl::SecAggRunSeed& runSeed)
{
    m_identity = identity;
    m_pki = pki;
    m_runSeed = runSeed;
    m_hasKeys = true;
}

void
SecAggClientStep::SetBeacon(std::shared_ptr<const fl::SecAggBeacon> beacon)
{
    m_beacon = std::move(beacon);
}

void
SecAggClientStep::DropInput()
{
    if (m_input.size() > 0)
    {
        sodium_memzero(m_input.data(), static_cast<std::size_t>(m_input.size()) * sizeof(double));
    }
    m_input = Eigen::VectorXd();
    m_hasInput = false;
}

void
SecAggClientStep::SetPort(uint32_t client, std::size_t dim, Port port)
{
    m_clientIndex = client;
    m_dim = dim;
    m_port = std::move(port);
    if (!m_hasKeys || m_identity.id != client || m_pki.count(client) == 0)
    {
        throw fl::ConfigError("SecAggClientStep",
                              "client " + std::to_string(client) +
                                  " has no identity of its own in the PKI",
                              "create the steps with FlSecAggHelper for the clients' indices");
    }
    m_rule = m_settings.Rule("SecAggClientStep");
    m_mode = m_settings.Mode("SecAggClientStep");
    static const std::pair<const char*, Drop> kDrops[] = {{"none", Drop::None},
                                                          {"keys", Drop::Keys},
                                                          {"shares", Drop::Shares},
                                                          {"input", Drop::Input},
                                                          {"consistency", Drop::Consistency},
                                                          {"unmask", Drop::Unmask}};
    bool known = false;
    for (const auto& [name, d] : kDrops)
    {
        if (m_dropBeforeName == name)
        {
            m_dropBefore = d;
            known = true;
        }
    }
    if (!known)
    {
        throw fl::ConfigError("ns3::SecAggClientStep::DropBeforePhase",
                              "\"" + m_dropBeforeName + "\" is not a phase",
                              "use none, keys, shares, input, consistency or unmask");
    }
    m_dropRounds = fl::ParseRoundList(m_dropRoundsSpec, "ns3::SecAggClientStep::DropRounds");
    m_parsed = true;
}

bool
SecAggClientStep::Dropping(Drop phase, uint32_t round)
{
    if (m_dropBefore != phase || phase == Drop::None ||
        (!m_dropRounds.empty() && m_dropRounds.count(round) == 0))
    {
        return false;
    }
    NS_LOG_INFO("client " << m_clientIndex << " silent in round " << round);
    ++m_counters.silent;
    return true;
}

fl::KeySource
SecAggClientStep::Keys(uint64_t instance) const
{
    return m_mode == fl::KeyMode::Random
               ? fl::KeySource::Random()
               : fl::KeySource::Reproducible(m_runSeed, m_clientIndex, instance);
}

void
SecAggClientStep::Send(uint32_t round, const fl::SecAggBytes& bytes)
{
    ++m_counters.messagesSent;
    m_counters.bytesSent += bytes.size();
    m_port.send(round, kSecAggControlTag, bytes);
}

void
SecAggClientStep::Refuse(fl::SecAggStatus status, const char* what)
{
    NS_LOG_WARN("client " << m_clientIndex << " refuses " << what << ": "
                          << fl::SecAggStatusText(status));
    ++(status == fl::SecAggStatus::Malformed ? m_counters.malformed : m_counters.refused);
    m_lastRefusal = status;
}

void
SecAggClientStep::Upload(uint32_t round, const fl::ParamVector& update, uint64_t weight)
{
    NS_ASSERT_MSG(m_parsed, "SecAggClientStep::Upload before SetPort");
    if (m_hasInput && m_inputRound != round)
    {
        ++m_counters.discarded; // an older upload never got into a protocol run
    }
    DropInput();
    if (Dropping(Drop::Keys, round))
    {
        return;
    }
    m_input = update.ConvertedTo(fl::Precision::Float64).Get<double>();
    m_weight = weight;
    m_inputRound = round;
    m_hasInput = true;
    if (m_client && m_instance == round)
    {
        Advertise();
    }
    // else: wait for this round's setup (a datagram transport may deliver it after the model)
}

void
SecAggClientStep::Advertise()
{
    fl::SecAggBytes out;
    const fl::SecAggStatus st = m_client->AdvertiseKeys(out);
    if (st != fl::SecAggStatus::Ok)
    {
        Refuse(st, "to advertise keys");
        return;
    }
    ++m_counters.advertised;
    ++m_counters.messagesSent;
    m_counters.bytesSent += out.size();
    m_port.upload(static_cast<uint32_t>(m_instance), out);
}

void
SecAggClientStep::HandleSetup(uint64_t instance, const std::vector<uint8_t>& bytes)
{
    uint64_t parsedInstance = 0;
    fl::SecAggRoundSetup setup;
    if (!fl::ParseSecAggRoundSetup(bytes, parsedInstance, setup) || parsedInstance != instance)
    {
        ++m_counters.malformed;
        return;
    }
    if (instance <= m_lastInstance)
    {
        // a second setup (roster, graph) for an instance, or one of an old instance
        Refuse(fl::SecAggStatus::InconsistentRequest, "a setup of an old or current round");
        return;
    }
    m_lastInstance = instance;
    Simulator::Cancel(m_pendingSetup);
    m_client.reset();
    if (setup.graph == static_cast<uint8_t>(fl::SecAggGraphKind::Harary))
    {
        if (!m_beacon)
        {
            Refuse(fl::SecAggStatus::BadGraph, "a SecAgg+ setup without a beacon");
            return;
        }
        const double published = m_beacon->PublishedAt(setup.beaconRound);
        if (published <= Simulator::Now().GetSeconds())
        {
            // the server could have chosen the roster knowing the graph
            Refuse(fl::SecAggStatus::StaleBeacon, "the round's setup");
            return;
        }
        m_pendingSetup = Simulator::Schedule(Seconds(published) - Simulator::Now(),
                                             &SecAggClientStep::AcceptSetup,
                                             this,
                                             instance,
                                             setup);
        return;
    }
    AcceptSetup(instance, setup);
}

void
SecAggClientStep::AcceptSetup(uint64_t instance, const fl::SecAggRoundSetup& setup)
{
    fl::SecAggConfig config;
    const fl::SecAggStatus st = fl::SecAggAcceptSetup(instance,
                                                      setup,
                                                      m_clientIndex,
                                                      m_dim,
                                                      m_rule,
                                                      m_beacon.get(),
                                                      config);
    if (st != fl::SecAggStatus::Ok)
    {
        Refuse(st, "the round's setup");
        return;
    }
    m_instance = instance;
    m_client = std::make_unique<fl::SecAggClient>(config, m_identity, m_pki, Keys(instance));
    ++m_counters.setups;
    if (m_hasInput && m_inputRound == instance)
    {
        Advertise();
    }
}

bool
SecAggClientStep::Receive(uint32_t round, uint32_t tag, const std::vector<uint8_t>& bytes)
{
    if (tag != kSecAggControlTag)
    {
        return false;
    }
    fl::SecAggMessageType type;
    uint64_t instance = 0;
    if (!m_parsed || !fl::PeekSecAggHeader(bytes, type, instance) || instance != round)
    {
        ++m_counters.malformed;
        return true;
    }
    if (type == fl::SecAggMessageType::RoundSetup)
    {
        HandleSetup(instance, bytes);
        return true;
    }
    if (!m_client || instance != m_instance)
    {
        ++m_counters.late;
        return true;
    }
    fl::SecAggBytes out;
    fl::SecAggStatus st = fl::SecAggStatus::Ok;
    switch (type)
    {
    case fl::SecAggMessageType::KeyList:
        if (Dropping(Drop::Shares, round))
        {
            return true;
        }
        st = m_client->ShareKeys(bytes, out);
        break;
    case fl::SecAggMessageType::ForwardedShares:
        if (Dropping(Drop::Input, round))
        {
            return true;
        }
        if (!m_hasInput || m_inputRound != instance)
        {
            ++m_counters.late; // shares of a round this client has no upload for
            return true;
        }
        try
        {
            st = m_client->MaskInput(bytes, m_input, m_weight, out);
        }
        catch (const fl::ConfigError& e)
        {
            if (e.Parameter() == "maskFractionBits")
            {
                throw fl::ConfigError("ns3::SecAggClientStep::FractionBits",
                                      std::string("client ") + std::to_string(m_clientIndex) +
                                          "'s upload does not fit the fixed-point encoding (" +
                                          e.what() + ")",
                                      "use fewer fraction bits");
            }
            throw;
        }
        DropInput(); // the plaintext is no longer needed
        if (st == fl::SecAggStatus::Ok)
        {
            ++m_counters.maskedInputs;
        }
        break;
    case fl::SecAggMessageType::SurvivorList:
        if (Dropping(Drop::Consistency, round))
        {
            return true;
        }
        st = m_client->ConsistencyCheck(bytes, out);
        break;
    case fl::SecAggMessageType::SignatureList:
        if (Dropping(Drop::Unmask, round))
        {
            return true;
        }
        st = m_client->Unmask(bytes, out);
        if (st == fl::SecAggStatus::Ok)
        {
            ++m_counters.unmasked;
        }
        break;
    default:
        ++m_counters.malformed; // a client message sent to a client
        return true;
    }
    if (st == fl::SecAggStatus::WrongPhase)
    {
        ++m_counters.late;
        return true;
    }
    if (st != fl::SecAggStatus::Ok)
    {
        Refuse(st, "a server message");
        return true;
    }
    Send(round, out);
    return true;
}

} // namespace ns3

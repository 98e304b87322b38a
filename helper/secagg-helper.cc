/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/secagg-helper.h"

#include "ns3/uinteger.h"

#include <sodium.h>

#include "ns3/nstime.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <sstream>

namespace ns3
{

FlSecAggHelper::FlSecAggHelper()
{
    m_server.SetTypeId(SecAggServerStep::GetTypeId());
    m_client.SetTypeId(SecAggClientStep::GetTypeId());
    m_seedStream = CreateObject<UniformRandomVariable>();
}

void
FlSecAggHelper::SetAttribute(const std::string& name, const AttributeValue& value)
{
    m_server.Set(name, value);
    m_client.Set(name, value);
}

void
FlSecAggHelper::SetServerAttribute(const std::string& name, const AttributeValue& value)
{
    m_server.Set(name, value);
}

void
FlSecAggHelper::SetClientAttribute(const std::string& name, const AttributeValue& value)
{
    m_client.Set(name, value);
}

void
FlSecAggHelper::Check() const
{
    Ptr<SecAggServerStep> s = m_server.Create<SecAggServerStep>();
    s->Settings().Rule("SecAggServerStep");
    s->Settings().Mode("SecAggServerStep");
    Ptr<SecAggClientStep> c = m_client.Create<SecAggClientStep>();
    c->Settings().Rule("SecAggClientStep");
    c->Settings().Mode("SecAggClientStep");
}

std::string
FlSecAggHelper::GetVariant() const
{
    return m_server.Create<SecAggServerStep>()->Settings().variant;
}

fl::KeyMode
FlSecAggHelper::GetKeyMode() const
{
    return m_server.Create<SecAggServerStep>()->Settings().Mode("SecAggServerStep");
}

int64_t
FlSecAggHelper::AssignStreams(int64_t stream)
{
    m_seedStream->SetStream(stream);
    return 1;
}

FlSecAggParties
FlSecAggHelper::Create(const std::vector<uint32_t>& clients)
{
    Check();
    std::vector<uint32_t> ids = clients;
    std::sort(ids.begin(), ids.end());
    if (ids.size() < 2 || std::adjacent_find(ids.begin(), ids.end()) != ids.end() ||
        ids.back() == UINT32_MAX)
    {
        throw fl::ConfigError("clients",
                              std::to_string(ids.size()) +
                                  " client(s), or a repeated id, for secure aggregation",
                              "give at least 2 distinct client indices (< 0xFFFFFFFF): the sum "
                              "of one upload is the upload");
    }
    const fl::KeyMode mode = GetKeyMode();
    if (mode == fl::KeyMode::Reproducible && !m_haveRunSeed)
    {
        // 256 bits from the ns-3 run: RngSeed, RngRun and the stream decide them
        for (std::size_t i = 0; i < m_runSeed.size(); i += 4)
        {
            const uint32_t w = m_seedStream->GetInteger(0, 0xFFFFFFFFu);
            for (int b = 0; b < 4; ++b)
            {
                m_runSeed[i + b] = static_cast<uint8_t>(w >> (8 * b));
            }
        }
        m_haveRunSeed = true;
    }
    FlSecAggParties parties;
    fl::SecAggPki pki;
    std::map<uint32_t, fl::SecAggIdentity> identities;
    for (uint32_t id : ids)
    {
        fl::KeySource keys = mode == fl::KeyMode::Random
                                 ? fl::KeySource::Random()
                                 : fl::KeySource::Reproducible(m_runSeed, id, UINT64_MAX);
        identities[id] = fl::MakeSecAggIdentity(id, keys);
        pki[id] = identities[id].verifyKey;
    }
    parties.server = m_server.Create<SecAggServerStep>();
    parties.server->SetPki(pki);
    // The simulated public beacon of the SecAgg+ graphs: its key from libsodium, or (INSECURE,
    // like every key of that mode) from the run seed; one beacon per server and its clients.
    fl::MaskSecret beaconKey;
    if (mode == fl::KeyMode::Random)
    {
        fl::KeySource::Random().Fill(beaconKey.data(), beaconKey.size());
    }
    else
    {
        fl::KeySource ks = fl::KeySource::Reproducible(m_runSeed, UINT32_MAX, m_beacons++);
        ks.Fill(beaconKey.data(), beaconKey.size());
    }
    auto beacon = std::make_shared<const fl::SecAggBeacon>(
        beaconKey,
        parties.server->Settings().beaconPeriod);
    sodium_memzero(beaconKey.data(), beaconKey.size());
    parties.server->SetBeacon(beacon);
    for (uint32_t id : ids)
    {
        Ptr<SecAggClientStep> c = m_client.Create<SecAggClientStep>();
        c->SetKeys(identities[id], pki, m_runSeed);
        c->SetBeacon(beacon);
        parties.clients[id] = c;
    }
    return parties;
}

void
FlSecAggHelper::SetCohortSize(uint32_t cohort)
{
    Ptr<SecAggServerStep> s = m_server.Create<SecAggServerStep>();
    if (s->Settings().minClients == 0 && cohort >= 2)
    {
        SetAttribute("MinClients", UintegerValue(cohort));
    }
}

std::string
FlSecAggHelper::Guarantee(uint32_t cohort) const
{
    Ptr<SecAggServerStep> s = m_server.Create<SecAggServerStep>();
    return SecAggGuaranteeText(s->Settings(), cohort, "SecAggServerStep");
}

std::string
FlSecAggHelper::Describe(uint32_t cohort) const
{
    Ptr<SecAggServerStep> s = m_server.Create<SecAggServerStep>();
    const SecAggStepSettings& st = s->Settings();
    TimeValue timeout;
    s->GetAttribute("Timeout", timeout);
    std::ostringstream out;
    if (cohort >= 2)
    {
        out << "  guarantee: " << Guarantee(cohort) << "\n";
    }
    out << "  secure aggregation: " << st.variant << ", threshold "
        << (st.threshold == 0 ? (st.variant == "secaggplus" ? std::string("SecAggPlusParameters")
                                                            : std::string("floor(2n/3)+1"))
                              : std::to_string(st.threshold))
        << ", colluders "
        << (st.colluders < 0 ? std::string("the most t tolerates") : std::to_string(st.colluders))
        << ", rosters of at least " << std::max<uint32_t>(st.minClients, 2) << " clients, "
        << st.fractionBits << " fraction bits, phase timeout " << timeout.Get().GetSeconds()
        << " s, keys " << SecAggKeyModeText(st.Mode("SecAggServerStep"));
    if (st.variant == "secaggplus")
    {
        out << "; SecAgg+ dimensioned for " << st.corruptFraction << " corrupt and "
            << st.dropoutFraction << " dropped clients, 2^-" << st.securityBits << " privacy / 2^-"
            << st.correctnessBits << " correctness, graph from a public beacon of period "
            << st.beaconPeriod << " s";
    }
    return out.str();
}

} // namespace ns3

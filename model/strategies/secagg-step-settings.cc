/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/secagg-step-settings.h"

#include "ns3/double.h"
#include "ns3/integer.h"
#include "ns3/object.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>

#include <cmath>
#include <sstream>

namespace ns3
{

fl::SecAggRule
SecAggStepSettings::Rule(const std::string& who) const
{
    const std::string prefix = "ns3::" + who + "::";
    fl::SecAggRule rule;
    if (variant == "secagg")
    {
        rule.graph = fl::SecAggGraphKind::Complete;
    }
    else if (variant == "secaggplus")
    {
        rule.graph = fl::SecAggGraphKind::Harary;
    }
    else
    {
        throw fl::ConfigError(prefix + "Variant",
                              "\"" + variant + "\" is not a variant",
                              "use secagg or secaggplus");
    }
    if (threshold == 1)
    {
        throw fl::ConfigError(prefix + "Threshold",
                              "t = 1 (one client's shares would reveal every secret)",
                              "use 0 (the rule: floor(2n/3) + 1) or t > (n + Colluders) / 2");
    }
    rule.threshold = threshold;
    if (colluders < -1)
    {
        throw fl::ConfigError(prefix + "Colluders",
                              "is " + std::to_string(colluders),
                              "use -1 (the largest number the threshold tolerates) or a count "
                              ">= 0");
    }
    rule.colluders = colluders < 0 ? fl::kSecAggAutoColluders : static_cast<uint32_t>(colluders);
    if (minClients == 1)
    {
        throw fl::ConfigError(prefix + "MinClients",
                              "is 1",
                              "use 0 (2, or the cohort size the helper knows) or at least 2");
    }
    rule.minClients = std::max<uint32_t>(minClients, 2);
    if (minHonest < 2)
    {
        throw fl::ConfigError(prefix + "MinHonest",
                              "is " + std::to_string(minHonest),
                              "use at least 2 (a sum of one honest input is that input)");
    }
    rule.minHonest = minHonest;
    if (!(beaconPeriod > 0.0) || !std::isfinite(beaconPeriod))
    {
        throw fl::ConfigError(prefix + "BeaconPeriod",
                              "is " + std::to_string(beaconPeriod) + " s",
                              "use a positive period between beacon rounds");
    }
    if (fractionBits < 1 || fractionBits > 52)
    {
        throw fl::ConfigError(prefix + "FractionBits",
                              "is " + std::to_string(fractionBits),
                              "use 1..52 fraction bits");
    }
    rule.fractionBits = fractionBits;
    auto fraction = [&](double v, const char* name) {
        if (!(v >= 0.0 && v < 1.0))
        {
            throw fl::ConfigError(prefix + name,
                                  "is " + std::to_string(v),
                                  "use a fraction in [0, 1)");
        }
        return v;
    };
    auto bits = [&](double v, const char* name) {
        if (!(v > 0.0) || !std::isfinite(v))
        {
            throw fl::ConfigError(prefix + name,
                                  "is " + std::to_string(v),
                                  "use a positive number of bits");
        }
        return v;
    };
    rule.threat.corruptFraction = fraction(corruptFraction, "CorruptFraction");
    rule.threat.dropoutFraction = fraction(dropoutFraction, "DropoutFraction");
    rule.threat.securityBits = bits(securityBits, "SecurityBits");
    rule.threat.correctnessBits = bits(correctnessBits, "CorrectnessBits");
    rule.threat.activeServer = true;
    return rule;
}

fl::KeyMode
SecAggStepSettings::Mode(const std::string& who) const
{
    if (keyMode == "random")
    {
        return fl::KeyMode::Random;
    }
    if (keyMode == "reproducible")
    {
        return fl::KeyMode::Reproducible;
    }
    throw fl::ConfigError("ns3::" + who + "::KeyMode",
                          "\"" + keyMode + "\" is not a key mode",
                          "use random (secure) or reproducible (INSECURE, simulation studies "
                          "only)");
}

void
SecAggStepSettingsHolder::SetVariant(std::string v)
{
    m_settings.variant = std::move(v);
}

std::string
SecAggStepSettingsHolder::GetVariant() const
{
    return m_settings.variant;
}

void
SecAggStepSettingsHolder::SetThreshold(uint32_t v)
{
    m_settings.threshold = v;
}

uint32_t
SecAggStepSettingsHolder::GetThreshold() const
{
    return m_settings.threshold;
}

void
SecAggStepSettingsHolder::SetKeyMode(std::string v)
{
    m_settings.keyMode = std::move(v);
}

std::string
SecAggStepSettingsHolder::GetKeyMode() const
{
    return m_settings.keyMode;
}

void
SecAggStepSettingsHolder::SetFractionBits(uint32_t v)
{
    m_settings.fractionBits = v;
}

uint32_t
SecAggStepSettingsHolder::GetFractionBits() const
{
    return m_settings.fractionBits;
}

void
SecAggStepSettingsHolder::SetColluders(int32_t v)
{
    m_settings.colluders = v;
}

int32_t
SecAggStepSettingsHolder::GetColluders() const
{
    return m_settings.colluders;
}

void
SecAggStepSettingsHolder::SetMinClients(uint32_t v)
{
    m_settings.minClients = v;
}

uint32_t
SecAggStepSettingsHolder::GetMinClients() const
{
    return m_settings.minClients;
}

void
SecAggStepSettingsHolder::SetMinHonest(uint32_t v)
{
    m_settings.minHonest = v;
}

uint32_t
SecAggStepSettingsHolder::GetMinHonest() const
{
    return m_settings.minHonest;
}

void
SecAggStepSettingsHolder::SetBeaconPeriod(Time v)
{
    m_settings.beaconPeriod = v.GetSeconds();
}

Time
SecAggStepSettingsHolder::GetBeaconPeriod() const
{
    return Seconds(m_settings.beaconPeriod);
}

void
SecAggStepSettingsHolder::SetCorruptFraction(double v)
{
    m_settings.corruptFraction = v;
}

double
SecAggStepSettingsHolder::GetCorruptFraction() const
{
    return m_settings.corruptFraction;
}

void
SecAggStepSettingsHolder::SetDropoutFraction(double v)
{
    m_settings.dropoutFraction = v;
}

double
SecAggStepSettingsHolder::GetDropoutFraction() const
{
    return m_settings.dropoutFraction;
}

void
SecAggStepSettingsHolder::SetSecurityBits(double v)
{
    m_settings.securityBits = v;
}

double
SecAggStepSettingsHolder::GetSecurityBits() const
{
    return m_settings.securityBits;
}

void
SecAggStepSettingsHolder::SetCorrectnessBits(double v)
{
    m_settings.correctnessBits = v;
}

double
SecAggStepSettingsHolder::GetCorrectnessBits() const
{
    return m_settings.correctnessBits;
}

TypeId
AddSecAggSettingsAttributes(TypeId tid)
{
    using H = SecAggStepSettingsHolder;
    return tid
        .AddAttribute("Variant",
                      "secagg: Bonawitz et al. (ACM CCS 2017), every client masks with and shares "
                      "to every other sampled client; secaggplus: Bell et al. (ACM CCS 2020), each "
                      "client with its k neighbours of a random Harary graph (k and t from "
                      "SecAggPlusParameters and the four SecAgg+ attributes).",
                      StringValue("secagg"),
                      MakeStringAccessor(&H::SetVariant, &H::GetVariant),
                      MakeStringChecker())
        .AddAttribute("Threshold",
                      "t, the fewest share holders whose shares reconstruct a secret; the "
                      "protocol aborts below it. 0 = the rule: secagg floor(2n/3)+1 of the n "
                      "sampled clients (Bonawitz et al.'s active setting, with Colluders "
                      "ceil(n/3)-1), or the smallest t with 2t > n + Colluders when Colluders is "
                      "given; secaggplus SecAggPlusParameters' t. Any t must satisfy 2t > h + n_C "
                      "(h share holders per client, n_C colluders) and t - n_C >= MinHonest; the "
                      "clients check it before they share anything.",
                      UintegerValue(0),
                      MakeUintegerAccessor(&H::SetThreshold, &H::GetThreshold),
                      MakeUintegerChecker<uint32_t>())
        .AddAttribute("Colluders",
                      "secagg: n_C, the clients that may collude with an active server; -1 = the "
                      "largest number the threshold tolerates (ceil(n/3)-1 with the default t). "
                      "secaggplus takes it from CorruptFraction.",
                      IntegerValue(-1),
                      MakeIntegerAccessor(&H::SetColluders, &H::GetColluders),
                      MakeIntegerChecker<int32_t>())
        .AddAttribute("MinClients",
                      "The smallest roster a client takes part in (a server that samples fewer "
                      "is refused); 0 = 2, or the cohort size when FlFedAvgHelper installs the "
                      "step (ClientsPerRound, or BufferSize for FedBuff's cohorts). The "
                      "guarantee is stated for rosters of at least this size.",
                      UintegerValue(0),
                      MakeUintegerAccessor(&H::SetMinClients, &H::GetMinClients),
                      MakeUintegerChecker<uint32_t>())
        .AddAttribute("MinHonest",
                      "The floor on t - n_C: the fewest honest inputs in any sum the server can "
                      "learn (>= 2); a rule that gives less is a configuration error.",
                      UintegerValue(2),
                      MakeUintegerAccessor(&H::SetMinHonest, &H::GetMinHonest),
                      MakeUintegerChecker<uint32_t>())
        .AddAttribute("BeaconPeriod",
                      "secaggplus: the period of the simulated public randomness beacon the "
                      "graph is drawn from (a server announces a round of it that is not yet "
                      "public; every client waits for it).",
                      TimeValue(MilliSeconds(250)),
                      MakeTimeAccessor(&H::SetBeaconPeriod, &H::GetBeaconPeriod),
                      MakeTimeChecker())
        .AddAttribute("KeyMode",
                      "random (default, the secure mode): every key, mask seed and Shamir "
                      "coefficient from libsodium's CSPRNG. reproducible: INSECURE, for "
                      "simulation studies only: every key derives from a 256-bit run seed drawn "
                      "from the ns-3 run (RngRun), so --RngRun reproduces a run bit for bit, and "
                      "anyone who knows the run seed recomputes every mask.",
                      StringValue("random"),
                      MakeStringAccessor(&H::SetKeyMode, &H::GetKeyMode),
                      MakeStringChecker())
        .AddAttribute("FractionBits",
                      "Fixed-point fraction bits of the masked words (1..52): resolution 2^-f. "
                      "Every |weight x value| 2^f must stay below 2^62 / n: lower it for large "
                      "weights (sample counts) or values.",
                      UintegerValue(fl::kDefaultMaskFractionBits),
                      MakeUintegerAccessor(&H::SetFractionBits, &H::GetFractionBits),
                      MakeUintegerChecker<uint32_t>())
        .AddAttribute("CorruptFraction",
                      "secaggplus: fraction of corrupt clients the graph is dimensioned for, "
                      "[0, 1).",
                      DoubleValue(0.05),
                      MakeDoubleAccessor(&H::SetCorruptFraction, &H::GetCorruptFraction),
                      MakeDoubleChecker<double>())
        .AddAttribute("DropoutFraction",
                      "secaggplus: fraction of clients that may drop out, [0, 1).",
                      DoubleValue(0.05),
                      MakeDoubleAccessor(&H::SetDropoutFraction, &H::GetDropoutFraction),
                      MakeDoubleChecker<double>())
        .AddAttribute("SecurityBits",
                      "secaggplus: privacy fails with probability below 2^-sigma.",
                      DoubleValue(40.0),
                      MakeDoubleAccessor(&H::SetSecurityBits, &H::GetSecurityBits),
                      MakeDoubleChecker<double>())
        .AddAttribute("CorrectnessBits",
                      "secaggplus: the sum is lost with probability below 2^-eta.",
                      DoubleValue(20.0),
                      MakeDoubleAccessor(&H::SetCorrectnessBits, &H::GetCorrectnessBits),
                      MakeDoubleChecker<double>());
}

std::string
SecAggGuaranteeText(const SecAggStepSettings& settings, uint32_t cohort, const std::string& who)
{
    const fl::SecAggRule rule = settings.Rule(who);
    std::vector<uint32_t> ids(std::max<uint32_t>(cohort, 2));
    for (uint32_t i = 0; i < ids.size(); ++i)
    {
        ids[i] = i;
    }
    fl::SecAggConfig config;
    try
    {
        config = fl::MakeSecAggRoundConfig(0, ids, 1, rule, 0);
    }
    catch (const fl::ConfigError& e)
    {
        const std::string p = e.Parameter();
        const std::string attribute = p == "colluders"        ? "Colluders"
                                      : p == "clients"        ? "MinClients"
                                      : p == "dropoutFraction" ? "DropoutFraction"
                                      : p == "corruptFraction" ? "CorruptFraction"
                                                               : "Threshold";
        std::string inner = e.what();
        const std::string prefix = "fl: invalid ";
        if (inner.compare(0, prefix.size(), prefix) == 0)
        {
            inner = inner.substr(prefix.size());
        }
        throw fl::ConfigError("ns3::" + who + "::" + attribute,
                              "with rosters of " + std::to_string(cohort) + " clients, " + inner,
                              "choose a Threshold, Colluders and MinClients that serve the "
                              "cohort size");
    }
    return fl::SecAggGuaranteeOf(config, rule.threat).Text();
}

std::string
SecAggKeyModeText(fl::KeyMode mode)
{
    if (mode == fl::KeyMode::Reproducible)
    {
        return "reproducible from the run seed (RngRun): INSECURE, for simulation studies only "
               "(whoever knows the run seed recomputes every key and mask)";
    }
    return "random (libsodium CSPRNG)";
}

} // namespace ns3

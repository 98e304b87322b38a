/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/secagg-step-settings.h"

#include "ns3/double.h"
#include "ns3/object.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

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
                              "use 0 (the rule) or a majority t >= 2");
    }
    rule.threshold = threshold;
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
    rule.threat.semiMalicious = true;
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
                      "t, the fewest clients whose shares reconstruct a secret; the protocol "
                      "aborts below it. 0 = the rule: secagg the smallest majority floor(n/2)+1 of "
                      "the n sampled clients, secaggplus SecAggPlusParameters' t. A nonzero t "
                      "must be a majority of each client's share holders.",
                      UintegerValue(0),
                      MakeUintegerAccessor(&H::SetThreshold, &H::GetThreshold),
                      MakeUintegerChecker<uint32_t>())
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
                      DoubleValue(0.0),
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
SecAggThreatModel(const std::string& variant)
{
    std::ostringstream s;
    if (variant == "secaggplus")
    {
        s << "SecAgg+ (Bell, Bonawitz, Gascon, Lepoint, Raykova, ACM CCS 2020): each client masks "
             "with and Shamir-shares to its k neighbours in a random Harary graph; an "
             "honest-but-curious server learns only the sum of the surviving inputs, and an "
             "active server (dropping, delaying, swapping keys, lying about survivors) learns "
             "nothing more while fewer than the corrupt fraction the graph is dimensioned for "
             "are corrupt, except with probability 2^-SecurityBits; signed keys under a PKI the "
             "server never relays; below t the round aborts";
    }
    else
    {
        s << "SecAgg (Bonawitz, Ivanov, Kreuter, Marcedone, McMahan, Patel, Ramage, Segal, "
             "Seth, ACM CCS 2017, Fig. 4 with the consistency check): an honest-but-curious "
             "server learns only the sum of at least t inputs; an active server that drops, "
             "delays, swaps keys or lies about survivors learns no single input while fewer "
             "than t clients collude with it (t a majority); signed keys under a PKI the server "
             "never relays; below t the round aborts";
    }
    return s.str();
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

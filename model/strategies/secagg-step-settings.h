/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * What the two halves of the secure-aggregation uplink step share (SecAggServerStep,
 * SecAggClientStep): the control tag of its messages, the attributes both halves carry (set
 * alike by FlSecAggHelper), and the threat-model statement the programs print.
 */
#ifndef FL_SECAGG_STEP_SETTINGS_H
#define FL_SECAGG_STEP_SETTINGS_H

#include "ns3/secagg-protocol.h"
#include "ns3/nstime.h"
#include "ns3/type-id.h"

#include <cstdint>
#include <string>

namespace ns3
{

/// Control tag (MessageAddress::aux) of every secure-aggregation message: "FLSA".
constexpr uint32_t kSecAggControlTag = 0x464C5341u;

/**
 * \ingroup fl-strategies
 * The settings both halves of the secure-aggregation step carry, as parsed values.
 */
struct SecAggStepSettings
{
    std::string variant{"secagg"};                       ///< Variant attribute
    uint32_t threshold{0};                               ///< Threshold attribute
    std::string keyMode{"random"};                       ///< KeyMode attribute
    uint32_t fractionBits{fl::kDefaultMaskFractionBits}; ///< FractionBits attribute
    int32_t colluders{-1};                               ///< Colluders attribute (-1: derived)
    uint32_t minClients{0};                              ///< MinClients attribute (0: 2)
    uint32_t minHonest{2};                               ///< MinHonest attribute
    double beaconPeriod{0.25};                           ///< BeaconPeriod attribute [s]
    double corruptFraction{0.05};                        ///< CorruptFraction attribute (SecAgg+)
    double dropoutFraction{0.05};                        ///< DropoutFraction attribute (SecAgg+)
    double securityBits{40.0};                           ///< SecurityBits attribute (SecAgg+)
    double correctnessBits{20.0};                        ///< CorrectnessBits attribute (SecAgg+)

    /**
     * The configuration rule (fl::SecAggRule); throws fl::ConfigError naming the attribute
     * ("ns3::<who>::Variant", ...) if a value is not accepted.
     */
    fl::SecAggRule Rule(const std::string& who) const;
    /// The key mode; throws fl::ConfigError naming "ns3::<who>::KeyMode" otherwise.
    fl::KeyMode Mode(const std::string& who) const;
};

/**
 * \ingroup fl-strategies
 * The attributes both halves carry (Variant, Threshold, KeyMode, FractionBits and the four
 * SecAgg+ targets): a base of SecAggServerStep and SecAggClientStep, whose TypeIds add them with
 * AddSecAggSettingsAttributes.
 */
class SecAggStepSettingsHolder
{
  public:
    virtual ~SecAggStepSettingsHolder() = default;

    /// The parsed settings.
    const SecAggStepSettings& Settings() const
    {
        return m_settings;
    }

    /// \name Attribute accessors
    /// @{
    void SetVariant(std::string v);
    std::string GetVariant() const;
    void SetThreshold(uint32_t v);
    uint32_t GetThreshold() const;
    void SetKeyMode(std::string v);
    std::string GetKeyMode() const;
    void SetFractionBits(uint32_t v);
    uint32_t GetFractionBits() const;
    void SetColluders(int32_t v);
    int32_t GetColluders() const;
    void SetMinClients(uint32_t v);
    uint32_t GetMinClients() const;
    void SetMinHonest(uint32_t v);
    uint32_t GetMinHonest() const;
    void SetBeaconPeriod(Time v);
    Time GetBeaconPeriod() const;
    void SetCorruptFraction(double v);
    double GetCorruptFraction() const;
    void SetDropoutFraction(double v);
    double GetDropoutFraction() const;
    void SetSecurityBits(double v);
    double GetSecurityBits() const;
    void SetCorrectnessBits(double v);
    double GetCorrectnessBits() const;
    /// @}

  protected:
    SecAggStepSettings m_settings; ///< the attribute values
};

/// Adds the attributes of SecAggStepSettingsHolder to `tid` (a class derived from it).
TypeId AddSecAggSettingsAttributes(TypeId tid);

/**
 * What secure aggregation under `settings` guarantees for rosters of `cohort` clients
 * (fl::SecAggGuarantee::Text of the configuration the rule gives), as the programs print it.
 * Throws fl::ConfigError naming the attribute ("ns3::<who>::Threshold", ...) when the rule
 * cannot serve such a roster.
 */
std::string SecAggGuaranteeText(const SecAggStepSettings& settings,
                                uint32_t cohort,
                                const std::string& who);

/// "random (libsodium CSPRNG)" or "reproducible from the run seed: INSECURE, ...".
std::string SecAggKeyModeText(fl::KeyMode mode);

} // namespace ns3

#endif // FL_SECAGG_STEP_SETTINGS_H

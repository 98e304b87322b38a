/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * One-call installation of the analog over-the-air channel on a set of nodes with mobility.
 */
#ifndef OTA_HELPER_H
#define OTA_HELPER_H

#include "ns3/node-container.h"
#include "ns3/object-factory.h"
#include "ns3/ota-channel.h"
#include "ns3/ota-phy.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup fl-helper
 * The OtaPhy instances installed by OtaHelper, in node order.
 */
class OtaPhyContainer
{
  public:
    /// Iterator over the phys.
    using Iterator = std::vector<Ptr<OtaPhy>>::const_iterator;

    /// Appends a phy.
    void Add(Ptr<OtaPhy> phy);
    /// The i-th phy.
    Ptr<OtaPhy> Get(std::size_t i) const;
    /// Number of phys.
    std::size_t GetN() const;
    /// The channel of the first phy (null if empty).
    Ptr<OtaChannel> GetChannel() const;
    /// Begin iterator.
    Iterator begin() const;
    /// End iterator.
    Iterator end() const;

  private:
    std::vector<Ptr<OtaPhy>> m_phys;
};

/**
 * \ingroup fl-helper
 * Installs an OtaPhy on every node of a NodeContainer and attaches them to one OtaChannel.
 *
 * Every node needs a MobilityModel. The phy is aggregated to its node (one OtaPhy per node), so
 * an application finds it with GetNode()->GetObject<OtaPhy>(). Defaults: ns-3's
 * LogDistancePropagationLossModel and ConstantSpeedPropagationDelayModel; OtaChannel and OtaPhy
 * attribute defaults otherwise.
 *
 * \code
 *   OtaHelper ota;
 *   ota.SetChannelAttribute("Structure", StringValue("SenderOnly"));
 *   ota.SetChannelAttribute("SlotDuration", TimeValue(OtaHelper::SlotDurationFor(d, 1e6)));
 *   OtaPhyContainer phys = ota.Install(nodes);
 *   OtaHelper::AssignStreams(phys, 1000);
 * \endcode
 */
class OtaHelper
{
  public:
    OtaHelper();

    /// Sets an attribute of the channel created by Install.
    void SetChannelAttribute(const std::string& name, const AttributeValue& value);
    /// Sets an attribute of every installed phy.
    void SetPhyAttribute(const std::string& name, const AttributeValue& value);

    /// Uses a PropagationLossModel of this type (with attributes name, value, ...).
    template <typename... Ts>
    void SetPropagationLoss(std::string type, Ts&&... args);
    /// Uses a PropagationDelayModel of this type (with attributes name, value, ...).
    template <typename... Ts>
    void SetPropagationDelay(std::string type, Ts&&... args);
    /// No path loss (0 dB between every pair).
    void DisablePropagationLoss();
    /// No propagation delay.
    void DisablePropagationDelay();

    /**
     * TDMA mode: Install gives each phy TdmaSlots = number of phys on the channel and TdmaIndex =
     * its index, so round r has one orthogonal slot per phy. Install all phys in one call.
     */
    void SetTdma(bool enable);

    /// A new channel with the configured attributes and propagation models.
    Ptr<OtaChannel> CreateChannel() const;

    /// Creates a channel and installs a phy on each node (in node order). One call.
    OtaPhyContainer Install(const NodeContainer& nodes) const;
    /// Installs a phy on each node and attaches it to an existing channel.
    OtaPhyContainer Install(const NodeContainer& nodes, Ptr<OtaChannel> channel) const;

    /**
     * Assigns fixed stream numbers to the channel of `phys` (fading, loss and delay models) and
     * to every phy (noise, CSI error, jitter).
     * \return the number of streams used
     */
    static int64_t AssignStreams(const OtaPhyContainer& phys, int64_t stream);

    /**
     * A slot long enough for a vector of d real values: preamble + ceil(d/2) / bandwidth + guard.
     */
    static Time SlotDurationFor(std::size_t d,
                                double bandwidthHz,
                                Time preamble = MicroSeconds(10),
                                Time guard = MicroSeconds(10));

  private:
    ObjectFactory m_channel;
    ObjectFactory m_phy;
    ObjectFactory m_loss;
    ObjectFactory m_delay;
    bool m_hasLoss{true};
    bool m_hasDelay{true};
    bool m_tdma{false};
};

template <typename... Ts>
void
OtaHelper::SetPropagationLoss(std::string type, Ts&&... args)
{
    m_loss = ObjectFactory(type, std::forward<Ts>(args)...);
    m_hasLoss = true;
}

template <typename... Ts>
void
OtaHelper::SetPropagationDelay(std::string type, Ts&&... args)
{
    m_delay = ObjectFactory(type, std::forward<Ts>(args)...);
    m_hasDelay = true;
}

} // namespace ns3

#endif // OTA_HELPER_H

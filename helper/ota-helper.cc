/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/ota-helper.h"

#include "ns3/log.h"
#include "ns3/mobility-model.h"
#include "ns3/ota-signal.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("OtaHelper");

void
OtaPhyContainer::Add(Ptr<OtaPhy> phy)
{
    m_phys.push_back(phy);
}

Ptr<OtaPhy>
OtaPhyContainer::Get(std::size_t i) const
{
    NS_ABORT_MSG_IF(i >= m_phys.size(), "OtaPhyContainer::Get: index " << i << " out of range");
    return m_phys[i];
}

std::size_t
OtaPhyContainer::GetN() const
{
    return m_phys.size();
}

Ptr<OtaChannel>
OtaPhyContainer::GetChannel() const
{
    return m_phys.empty() ? nullptr : m_phys.front()->GetChannel();
}

OtaPhyContainer::Iterator
OtaPhyContainer::begin() const
{
    return m_phys.begin();
}

OtaPhyContainer::Iterator
OtaPhyContainer::end() const
{
    return m_phys.end();
}

OtaHelper::OtaHelper()
{
    m_channel.SetTypeId("ns3::OtaChannel");
    m_phy.SetTypeId("ns3::OtaPhy");
    m_loss.SetTypeId("ns3::LogDistancePropagationLossModel");
    m_delay.SetTypeId("ns3::ConstantSpeedPropagationDelayModel");
}

void
OtaHelper::SetChannelAttribute(const std::string& name, const AttributeValue& value)
{
    m_channel.Set(name, value);
}

void
OtaHelper::SetPhyAttribute(const std::string& name, const AttributeValue& value)
{
    m_phy.Set(name, value);
}

void
OtaHelper::DisablePropagationLoss()
{
    m_hasLoss = false;
}

void
OtaHelper::DisablePropagationDelay()
{
    m_hasDelay = false;
}

void
OtaHelper::SetTdma(bool enable)
{
    m_tdma = enable;
}

Ptr<OtaChannel>
OtaHelper::CreateChannel() const
{
    Ptr<OtaChannel> channel = m_channel.Create<OtaChannel>();
    if (m_hasLoss)
    {
        channel->SetPropagationLossModel(m_loss.Create<PropagationLossModel>());
    }
    if (m_hasDelay)
    {
        channel->SetPropagationDelayModel(m_delay.Create<PropagationDelayModel>());
    }
    return channel;
}

OtaPhyContainer
OtaHelper::Install(const NodeContainer& nodes) const
{
    return Install(nodes, CreateChannel());
}

OtaPhyContainer
OtaHelper::Install(const NodeContainer& nodes, Ptr<OtaChannel> channel) const
{
    NS_LOG_FUNCTION(this << nodes.GetN() << channel);
    OtaPhyContainer phys;
    const std::size_t first = channel->GetNPhys();
    const std::size_t total = first + nodes.GetN();
    for (uint32_t i = 0; i < nodes.GetN(); ++i)
    {
        Ptr<Node> node = nodes.Get(i);
        Ptr<MobilityModel> mobility = node->GetObject<MobilityModel>();
        NS_ABORT_MSG_IF(!mobility,
                        "OtaHelper::Install: node " << node->GetId()
                                                    << " has no MobilityModel (fix: install one "
                                                       "with MobilityHelper first)");
        NS_ABORT_MSG_IF(node->GetObject<OtaPhy>(),
                        "OtaHelper::Install: node " << node->GetId()
                                                    << " already has an OtaPhy (one per node)");
        Ptr<OtaPhy> phy = m_phy.Create<OtaPhy>();
        if (m_tdma)
        {
            phy->SetAttribute("TdmaSlots", UintegerValue(total));
            phy->SetAttribute("TdmaIndex", UintegerValue(first + i));
        }
        phy->SetMobility(mobility);
        phy->SetNode(node);
        phy->SetChannel(channel);
        node->AggregateObject(phy);
        phys.Add(phy);
    }
    return phys;
}

int64_t
OtaHelper::AssignStreams(const OtaPhyContainer& phys, int64_t stream)
{
    int64_t used = 0;
    Ptr<OtaChannel> channel = phys.GetChannel();
    if (channel)
    {
        used += channel->AssignStreams(stream);
    }
    for (const Ptr<OtaPhy>& phy : phys)
    {
        used += phy->AssignStreams(stream + used);
    }
    return used;
}

Time
OtaHelper::SlotDurationFor(std::size_t d, double bandwidthHz, Time preamble, Time guard)
{
    return Seconds(fl::AnalogAirtime(fl::SymbolCount(d), bandwidthHz, preamble.GetSeconds())) +
           guard;
}

} // namespace ns3

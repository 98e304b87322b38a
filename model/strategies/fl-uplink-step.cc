/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/fl-uplink-step.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(FlUplinkServerStep);
NS_OBJECT_ENSURE_REGISTERED(FlUplinkClientStep);

TypeId
FlUplinkServerStep::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FlUplinkServerStep").SetParent<Object>().SetGroupName("Fl");
    return tid;
}

FlUplinkServerStep::~FlUplinkServerStep() = default;

TypeId
FlUplinkClientStep::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FlUplinkClientStep").SetParent<Object>().SetGroupName("Fl");
    return tid;
}

FlUplinkClientStep::~FlUplinkClientStep() = default;

} // namespace ns3

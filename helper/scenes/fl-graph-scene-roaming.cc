/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The graph scene's roaming cells (FlGraphSceneHelper::SetCellRoaming): their settings, and the
 * watch on every station's associations that keeps FlGraphScene::membership, the stations'
 * beacon watchdog and the APs' record of stations gone.
 */
#include "ns3/fl-graph-scene.h"
#include "ns3/fl-scene-internal.h"
#include "ns3/mac48-address.h"
#include "ns3/wifi-mac.h"
#include "ns3/wifi-net-device.h"

#include <cmath>
#include <map>
#include <string>

namespace ns3
{

void
FlGraphSceneHelper::SetCellRoaming(bool enable)
{
    m_roaming = enable;
}

void
FlGraphSceneHelper::SetCellSpacing(double metres)
{
    if (!(metres > 0.0) || !std::isfinite(metres))
    {
        throw fl::ConfigError("SetCellSpacing",
                              std::to_string(metres) + " m",
                              "give a finite distance > 0 m");
    }
    m_cellSpacing = metres;
}

void
FlGraphSceneHelper::SetClientMobility(const FlClientMobilityHelper& preset)
{
    m_clientMobility = preset;
}

namespace
{

/// What a roaming graph scene watches: each station's associations.
struct RoamingWatch : public SimpleRefCount<RoamingWatch>
{
    Ptr<FlCellMembership> membership;
    std::map<Mac48Address, uint32_t> serverOf; ///< an AP's BSSID -> its server
    flscene::RoamingSet set;                   ///< AP p is server p's, station c client c's
};

void
OnRoamingAssoc(Ptr<RoamingWatch> w, uint32_t client, Mac48Address bssid)
{
    auto it = w->serverOf.find(bssid);
    if (it == w->serverOf.end())
    {
        return;
    }
    const uint32_t server = it->second;
    FlCellMembership& m = *w->membership;
    m.cell[client] = static_cast<int32_t>(server);
    m.lastCell[client] = static_cast<int32_t>(server);
    ++m.associations[client];
    // the roaming set's watchdog, block-ack and DS notice, as the Wi-Fi ESS's
    flscene::RoamingAssociated(w->set,
                               client,
                               m.associations[client],
                               static_cast<int32_t>(server));
    if (m.onAssociation)
    {
        m.onAssociation(client, server);
    }
}

void
OnRoamingDeAssoc(Ptr<RoamingWatch> w, uint32_t client, Mac48Address /* bssid */)
{
    w->membership->cell[client] = kFlNoCell;
}

} // namespace

void
FlGraphSceneHelper::WatchRoaming(FlGraphScene& s, uint32_t K) const
{
    const auto P = static_cast<uint32_t>(s.servers.GetN());
    Ptr<RoamingWatch> w = Create<RoamingWatch>();
    w->membership = Create<FlCellMembership>();
    w->membership->cell.assign(P * K, kFlNoCell);
    w->membership->lastCell.assign(P * K, kFlNoCell);
    w->membership->associations.assign(P * K, 0);
    for (uint32_t p = 0; p < P; ++p)
    {
        // cellDevices: per cell the server's AP, then its K stations
        for (uint32_t d = 0; d <= K; ++d)
        {
            Ptr<WifiNetDevice> dev = DynamicCast<WifiNetDevice>(s.cellDevices.Get(p * (K + 1) + d));
            const Mac48Address address = Mac48Address::ConvertFrom(dev->GetAddress());
            (d == 0 ? w->set.aps : w->set.stations).push_back(PeekPointer(dev->GetMac()));
            (d == 0 ? w->set.apAddress : w->set.stationAddress).push_back(address);
            if (d == 0)
            {
                w->serverOf[address] = p;
            }
        }
    }
    for (uint32_t c = 0; c < P * K; ++c)
    {
        w->set.stations[c]->TraceConnectWithoutContext("Assoc",
                                                       MakeBoundCallback(&OnRoamingAssoc, w, c));
        w->set.stations[c]->TraceConnectWithoutContext("DeAssoc",
                                                       MakeBoundCallback(&OnRoamingDeAssoc, w, c));
    }
    s.membership = w->membership;
}

} // namespace ns3

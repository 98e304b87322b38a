/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The graph scene's roaming cells (FlGraphSceneHelper::SetCellRoaming): their settings, and the
 * watch on every station's associations that keeps FlGraphScene::membership, the stations'
 * beacon watchdog and the APs' record of stations gone.
 */
#include "ns3/fl-graph-scene.h"
#include "ns3/fl-wifi-ess-scene.h"
#include "ns3/mac48-address.h"
#include "ns3/uinteger.h"
#include "ns3/wifi-mac.h"
#include "ns3/wifi-net-device.h"
#include "ns3/wifi-remote-station-manager.h"

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
    std::vector<Ptr<WifiMac>> aps;             ///< server p's AP
    std::vector<Ptr<WifiMac>> stations;        ///< client c's station
    std::vector<Mac48Address> stationAddress;  ///< client c's MAC address
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
    if (++m.associations[client] == 1)
    {
        // associated: a lost AP is noticed after kFlRoamingMaxMissedBeacons from now on
        w->stations[client]->SetAttribute("MaxMissedBeacons",
                                          UintegerValue(kFlRoamingMaxMissedBeacons));
    }
    // the other APs learn through the distribution system that the station has gone (as an
    // 802.11 reassociation's current-AP address tells the previous AP), so that they send it
    // nothing more
    for (uint32_t p = 0; p < w->aps.size(); ++p)
    {
        if (p != server)
        {
            w->aps[p]->GetWifiRemoteStationManager()->RecordDisassociated(
                w->stationAddress[client]);
        }
    }
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
        Ptr<WifiNetDevice> ap = DynamicCast<WifiNetDevice>(s.cellDevices.Get(p * (K + 1)));
        w->serverOf[Mac48Address::ConvertFrom(ap->GetAddress())] = p;
        w->aps.push_back(ap->GetMac());
        for (uint32_t k = 0; k < K; ++k)
        {
            Ptr<WifiNetDevice> sta =
                DynamicCast<WifiNetDevice>(s.cellDevices.Get(p * (K + 1) + 1 + k));
            w->stations.push_back(sta->GetMac());
            w->stationAddress.push_back(Mac48Address::ConvertFrom(sta->GetAddress()));
        }
    }
    for (uint32_t c = 0; c < P * K; ++c)
    {
        w->stations[c]->TraceConnectWithoutContext("Assoc",
                                                   MakeBoundCallback(&OnRoamingAssoc, w, c));
        w->stations[c]->TraceConnectWithoutContext("DeAssoc",
                                                   MakeBoundCallback(&OnRoamingDeAssoc, w, c));
    }
    s.membership = w->membership;
}

} // namespace ns3

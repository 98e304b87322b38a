/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The Wi-Fi scenes' link state: what the APs' PHYs receive from each client (rate, SNR), which AP
 * each station is associated with and how often it changed (FlSceneLinkState).
 */
#include "ns3/abort.h"
#include "ns3/ampdu-subframe-header.h"
#include "ns3/arp-cache.h"
#include "ns3/boolean.h"
#include "ns3/bridge-helper.h"
#include "ns3/component-carrier-ue.h"
#include "ns3/config.h"
#include "ns3/constant-position-mobility-model.h"
#include "ns3/csma-helper.h"
#include "ns3/csma-net-device.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/fl-ns3-compat.h"
#include "ns3/fl-scene-internal.h"
#include "ns3/fl-types.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-address-helper.h"
#include "ns3/ipv4-interface.h"
#include "ns3/ipv4-l3-protocol.h"
#include "ns3/ipv4-static-routing-helper.h"
#include "ns3/ipv4-static-routing.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/lte-enb-net-device.h"
#include "ns3/lte-enb-phy.h"
#include "ns3/lte-enb-rrc.h"
#include "ns3/lte-helper.h"
#include "ns3/lte-ue-net-device.h"
#include "ns3/lte-ue-phy.h"
#include "ns3/lte-ue-rrc.h"
#include "ns3/mac48-address.h"
#include "ns3/metrics.h"
#include "ns3/mobility-helper.h"
#include "ns3/mobility-model.h"
#include "ns3/point-to-point-epc-helper.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/pointer.h"
#include "ns3/position-allocator.h"
#include "ns3/qos-txop.h"
#include "ns3/queue.h"
#include "ns3/random-variable-stream.h"
#include "ns3/ssid.h"
#include "ns3/sta-wifi-mac.h"
#include "ns3/string.h"
#include "ns3/txop.h"
#include "ns3/uinteger.h"
#include "ns3/wifi-helper.h"
#include "ns3/wifi-mac-header.h"
#include "ns3/wifi-mac-helper.h"
#include "ns3/wifi-mac-queue.h"
#include "ns3/wifi-mac.h"
#include "ns3/wifi-net-device.h"
#include "ns3/wifi-phy-state-helper.h"
#include "ns3/wifi-phy.h"
#include "ns3/yans-wifi-helper.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <tuple>

namespace ns3
{

using namespace flscene;

namespace
{

/**
 * What the server's Wi-Fi PHY observes of each client: the rate and SNR of the last data frame
 * it received from the client's MAC address (a passive trace sink).
 */
struct WifiLinkObserver : public SimpleRefCount<WifiLinkObserver>
{
    std::map<Mac48Address, uint32_t> clientOf; ///< a client's MAC address -> its client index
    std::vector<double> rateBps;               ///< per client, NaN until its first data frame
    std::vector<double> snrDb;                 ///< per client, NaN until its first data frame
    /// if set, only frames addressed to it count (an AP's PHY on a channel it shares with
    /// other APs hears their stations too)
    std::optional<Mac48Address> receiver;

    /**
     * A frame received with this TXVECTOR, signal and noise: an MPDU (MAC header first), or,
     * when the TXVECTOR aggregates (A-MPDU, and the single MPDUs sent under a block-ack
     * agreement), one subframe of it (its A-MPDU subframe header first).
     */
    void Observe(Ptr<const Packet> packet,
                 const WifiTxVector& tx,
                 double signalDbm,
                 double noiseDbm)
    {
        WifiMacHeader hdr;
        if (!packet)
        {
            return;
        }
        if (tx.IsAggregation())
        {
            AmpduSubframeHeader subframe;
            if (packet->GetSize() < subframe.GetSerializedSize())
            {
                return;
            }
            Ptr<Packet> mpdu = packet->Copy();
            mpdu->RemoveHeader(subframe);
            packet = mpdu;
        }
        if (packet->GetSize() < hdr.GetSerializedSize() || packet->PeekHeader(hdr) == 0 ||
            !hdr.IsData() || (receiver && hdr.GetAddr1() != *receiver))
        {
            return;
        }
        auto it = clientOf.find(hdr.GetAddr2());
        if (it == clientOf.end())
        {
            return;
        }
        rateBps[it->second] = static_cast<double>(tx.GetMode().GetDataRate(tx));
        snrDb[it->second] = FlSnrDb(signalDbm, noiseDbm);
    }

    /**
     * The sink of WifiPhy "MonitorSnifferRx" (packet, channel frequency, TXVECTOR, MPDU info,
     * signal and noise, STA-ID), whatever the types the ns-3 release gives them.
     */
    template <typename... A>
    void OnSnifferRx(A... args)
    {
        const auto t = std::forward_as_tuple(args...);
        Observe(std::get<0>(t), std::get<2>(t), std::get<4>(t).signal, std::get<4>(t).noise);
    }
};

/// Connects a WifiLinkObserver to a PHY's MonitorSnifferRx with the release's signature.
template <typename F>
struct SnifferRxConnector;

template <typename... A>
struct SnifferRxConnector<void (*)(A...)>
{
    static bool Connect(Ptr<WifiPhy> phy, Ptr<WifiLinkObserver> observer)
    {
        return phy->TraceConnectWithoutContext(
            "MonitorSnifferRx",
            MakeCallback(&WifiLinkObserver::template OnSnifferRx<A...>, observer));
    }
};

/**
 * Which AP each station of an infrastructure scene is associated with, from its StaWifiMac's
 * "Assoc" and "DeAssoc" traces (a passive sink).
 */
struct WifiAssociationObserver : public SimpleRefCount<WifiAssociationObserver>
{
    std::map<Mac48Address, int32_t> apOf; ///< an AP's BSSID -> its index
    std::vector<int32_t> cell;            ///< per client: the AP now (kFlNoCell: none)
    std::vector<int32_t> lastCell;        ///< per client: the last AP (kFlNoCell: none yet)
    std::vector<uint32_t> associations;   ///< per client: associations so far
    /// called at each association (client, associations so far, AP index)
    std::function<void(uint32_t, uint32_t, int32_t)> onAssociation;

    void Associated(uint32_t client, Mac48Address bssid)
    {
        auto it = apOf.find(bssid);
        cell[client] = it == apOf.end() ? kFlNoCell : it->second;
        lastCell[client] = cell[client];
        ++associations[client];
        if (onAssociation)
        {
            onAssociation(client, associations[client], cell[client]);
        }
    }

    void Disassociated(uint32_t client, Mac48Address /* bssid */)
    {
        cell[client] = kFlNoCell;
    }
};

void
OnStationAssoc(Ptr<WifiAssociationObserver> o, uint32_t client, Mac48Address bssid)
{
    o->Associated(client, bssid);
}

void
OnStationDeAssoc(Ptr<WifiAssociationObserver> o, uint32_t client, Mac48Address bssid)
{
    o->Disassociated(client, bssid);
}

/// The association observer of an infrastructure scene's stations (null for ad hoc devices).
Ptr<WifiAssociationObserver>
WatchAssociations(const FlScene& s,
                  uint32_t aps,
                  std::function<void(uint32_t, uint32_t, int32_t)> onAssociation)
{
    Ptr<WifiAssociationObserver> o = Create<WifiAssociationObserver>();
    const uint32_t n = s.clients.GetN();
    o->cell.assign(n, kFlNoCell);
    o->lastCell.assign(n, kFlNoCell);
    o->associations.assign(n, 0);
    o->onAssociation = std::move(onAssociation);
    for (uint32_t a = 0; a < aps; ++a)
    {
        o->apOf[Mac48Address::ConvertFrom(s.devices.Get(a)->GetAddress())] =
            static_cast<int32_t>(a);
    }
    for (uint32_t i = 0; i < n; ++i)
    {
        Ptr<WifiNetDevice> dev = DynamicCast<WifiNetDevice>(s.devices.Get(aps + i));
        Ptr<StaWifiMac> mac = dev ? DynamicCast<StaWifiMac>(dev->GetMac()) : nullptr;
        if (!mac)
        {
            return nullptr; // not an infrastructure scene (ad hoc): no associations
        }
        mac->TraceConnectWithoutContext("Assoc", MakeBoundCallback(&OnStationAssoc, o, i));
        mac->TraceConnectWithoutContext("DeAssoc", MakeBoundCallback(&OnStationDeAssoc, o, i));
    }
    return o;
}

} // namespace

namespace flscene
{

/**
 * The Wi-Fi scenes' link state: the server's PHY (the APs' PHYs: s.devices.Get(0 .. aps - 1))
 * listens to the clients' data frames (client i is s.devices.Get(aps + i)); each frame of a
 * station reaches its own AP's PHY only.
 */
void
AttachWifiLinkState(const FlScene& s,
                    uint32_t aps,
                    bool sharedChannel,
                    std::function<void(uint32_t, uint32_t, int32_t)> onAssociation)
{
    const uint32_t n = s.clients.GetN();
    // one observer for all APs, or, on a shared channel, one per AP that keeps only the frames
    // addressed to its AP
    std::vector<Ptr<WifiLinkObserver>> observers(sharedChannel ? aps : 1);
    for (uint32_t a = 0; a < observers.size(); ++a)
    {
        Ptr<WifiLinkObserver> observer = Create<WifiLinkObserver>();
        observer->rateBps.assign(n, std::numeric_limits<double>::quiet_NaN());
        observer->snrDb.assign(n, std::numeric_limits<double>::quiet_NaN());
        for (uint32_t i = 0; i < n; ++i)
        {
            observer->clientOf[Mac48Address::ConvertFrom(s.devices.Get(aps + i)->GetAddress())] = i;
        }
        if (sharedChannel)
        {
            observer->receiver = Mac48Address::ConvertFrom(s.devices.Get(a)->GetAddress());
        }
        observers[a] = observer;
    }
    for (uint32_t a = 0; a < aps; ++a)
    {
        Ptr<WifiNetDevice> ap = DynamicCast<WifiNetDevice>(s.devices.Get(a));
        NS_ABORT_MSG_IF(!ap, "FlWifiSceneHelperBase: the server's (the AP's) device is not Wi-Fi");
        const bool connected = SnifferRxConnector<WifiPhy::MonitorSnifferRxCallback>::Connect(
            ap->GetPhy(),
            observers[sharedChannel ? a : 0]);
        NS_ABORT_MSG_IF(!connected, "FlWifiSceneHelperBase: cannot connect MonitorSnifferRx");
    }
    // each client's access point: the AP of its cell (the server's node for one BSS or ad hoc),
    // on a shared channel the AP it is (or was last) associated with
    std::vector<Ptr<Node>> station(n);
    std::vector<Ptr<Node>> access(n);
    std::vector<Ptr<Node>> apNodes(aps);
    for (uint32_t a = 0; a < aps; ++a)
    {
        apNodes[a] = aps == 1 ? s.serverNode : s.devices.Get(a)->GetNode();
    }
    for (uint32_t i = 0; i < n; ++i)
    {
        station[i] = s.clients.Get(i);
        access[i] = apNodes[i % aps];
    }
    const Ptr<WifiAssociationObserver> assoc = WatchAssociations(s, aps, std::move(onAssociation));
    AttachLinkState(s.serverNode,
                    [observers, station, access, apNodes, assoc, sharedChannel](uint32_t client) {
                        FlLinkState st;
                        if (client >= station.size())
                        {
                            return st;
                        }
                        int32_t ap = -1; // the AP whose view counts
                        if (assoc)
                        {
                            st.cell = assoc->cell[client];
                            st.handovers = assoc->associations[client] > 0
                                               ? assoc->associations[client] - 1
                                               : 0;
                            ap = assoc->lastCell[client];
                        }
                        if (!sharedChannel)
                        {
                            st.rateBps = observers[0]->rateBps[client];
                            st.snrDb = observers[0]->snrDb[client];
                            st.distanceM = FlNodeDistance(station[client], access[client]);
                        }
                        else if (ap >= 0)
                        {
                            st.rateBps = observers[ap]->rateBps[client];
                            st.snrDb = observers[ap]->snrDb[client];
                            st.distanceM = FlNodeDistance(station[client], apNodes[ap]);
                        }
                        return st;
                    });
}

} // namespace flscene

} // namespace ns3

/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The Wi-Fi ad hoc scene: the server and the clients in one IBSS.
 */
#ifndef FL_WIFI_ADHOC_SCENE_H
#define FL_WIFI_ADHOC_SCENE_H

#include "ns3/fl-wifi-scene.h"

namespace ns3
{

/**
 * \ingroup fl-helper
 * Builds an 802.11 ad hoc network (independent BSS): the server at the origin and N clients
 * placed uniformly at random on a disc around it, all within range of each other for the
 * default radius (FlWifiSceneHelperBase).
 */
class FlWifiAdhocSceneHelper : public FlWifiSceneHelperBase
{
  public:
    FlWifiAdhocSceneHelper();
    /**
     * Fills every node's ARP cache with the other nodes' addresses (FlPopulateArpCaches; on by
     * default). Ad hoc stations send ARP requests as broadcast frames, which are neither
     * acknowledged nor retried by the MAC: clients that start at the same time send them at the
     * same instant, they collide again at every ARP retry, the entry goes dead for
     * ArpCache::DeadTimeout (100 s) and the TCP connection attempt gives up. Disable it to study
     * the stock behaviour (then stagger the clients' start times).
     */
    void SetStaticArp(bool enable);
    /// Creates the nodes, devices, mobility, Internet stack and addresses.
    FlScene Build(uint32_t numClients) const;

  private:
    bool m_staticArp; ///< see SetStaticArp
};

} // namespace ns3

#endif // FL_WIFI_ADHOC_SCENE_H

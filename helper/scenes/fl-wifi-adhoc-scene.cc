/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The Wi-Fi ad hoc scene.
 */
#include "ns3/fl-wifi-adhoc-scene.h"
#include "ns3/fl-scene-internal.h"

#include "ns3/abort.h"
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
#include <set>
#include <tuple>

namespace ns3
{

using namespace flscene;

FlWifiAdhocSceneHelper::FlWifiAdhocSceneHelper()
    : FlWifiSceneHelperBase("FlWifiAdhocSceneHelper"),
      m_staticArp(true)
{
}

void
FlWifiAdhocSceneHelper::SetStaticArp(bool enable)
{
    m_staticArp = enable;
}

FlScene
FlWifiAdhocSceneHelper::Build(uint32_t numClients) const
{
    FlScene s = BuildWifi(numClients,
                          [](const FlScene& scene,
                             const WifiHelper& wifi,
                             const YansWifiPhyHelper& phy,
                             WifiMacHelper& mac) {
                              mac.SetType("ns3::AdhocWifiMac");
                              return wifi.Install(phy, mac, ServerAndClients(scene));
                          });
    if (m_staticArp && !s.flowNetwork)
    {
        // See SetStaticArp(): no broadcast ARP requests to collide.
        FlPopulateArpCaches(s.devices);
    }
    return s;
}

} // namespace ns3

/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The CSMA scene: a shared or switched Ethernet LAN.
 */
#ifndef FL_CSMA_SCENE_H
#define FL_CSMA_SCENE_H

#include "ns3/fl-scene.h"

namespace ns3
{

/**
 * \ingroup fl-helper
 * Builds one CSMA (Ethernet-like) LAN holding the server and N clients, Internet stack and IPv4
 * addresses in 10.1.0.0/16 (server 10.1.0.1). No mobility: CSMA has no propagation model.
 * Defaults: 100 Mb/s, 6560 ns (about 2 km of cable).
 */
class FlCsmaSceneHelper : public FlWiredSceneHelperBase
{
  public:
    FlCsmaSceneHelper();
    /**
     * A switched LAN instead of one shared segment (off by default): every host (the server and
     * each client) on its own two-device CSMA segment, at the helper's rate and delay, to one
     * Ethernet switch (a node of its own in FlScene::infrastructure, ns-3's BridgeNetDevice over
     * its N + 1 ports, learning which port leads to each address and flooding only broadcasts
     * and unknown destinations). A frame then reaches its destination's segment alone, instead
     * of every host of the segment, which is what a LAN of many hosts is and what keeps a
     * simulation of a thousand hosts affordable (the shared segment delivers every frame to
     * every device: the cost of a round grows with the square of the clients). It changes the
     * network: hosts no longer contend for one medium but each for its segment, and the
     * server's segment carries all of the round's traffic. Packet fidelity only (Build throws
     * fl::ConfigError naming this setting in flow fidelity). FlScene::devices keeps its order
     * (the server's device, then the clients'): the hosts' devices; the switch's ports are
     * found on the infrastructure node.
     */
    void SetSwitched(bool switched);
    /**
     * The output queue of each of the switch's ports (SetSwitched), ns-3's CSMA device queue
     * (DropTailQueue; default 100 packets, ns-3's). Many clients sending to the server at once
     * fill the server's port: with TCP, the losses there cost retransmission timeouts (incast).
     * Throws fl::ConfigError for a size of 0.
     */
    void SetSwitchPortQueueSize(QueueSize size);
    /// Creates the nodes, devices, Internet stack and addresses.
    FlScene Build(uint32_t numClients) const;
    /**
     * Fixes the random streams of the scene's CSMA devices (backoff; a switched LAN's ports
     * too).
     * @return the number of streams used
     */
    static int64_t AssignStreams(const FlScene& scene, int64_t stream);

  private:
    bool m_switched{false};                               ///< see SetSwitched
    QueueSize m_switchQueue{QueueSizeUnit::PACKETS, 100}; ///< see SetSwitchPortQueueSize
};

} // namespace ns3

#endif // FL_CSMA_SCENE_H

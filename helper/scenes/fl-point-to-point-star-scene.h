/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The point-to-point star scene: one link from the server to each client.
 */
#ifndef FL_POINT_TO_POINT_STAR_SCENE_H
#define FL_POINT_TO_POINT_STAR_SCENE_H

#include "ns3/fl-scene.h"

namespace ns3
{

/**
 * \ingroup fl-helper
 * Builds a star: the server at the hub, one point-to-point link to each client, one /30 subnet
 * per link from 10.2.0.0 on. Clients connect to the server's address on the first link
 * (FlScene::serverAddress) through a static default route to their own link; the server answers
 * over the link of each client. Defaults: 10 Mb/s, 2 ms. Links may have heterogeneous rates
 * drawn from a random variable; SetDataRate is then ignored.
 */
class FlPointToPointStarHelper : public FlWiredSceneHelperBase
{
  public:
    FlPointToPointStarHelper();
    /**
     * Draws each link's rate in Mb/s from the variable (the same rate both ways). Values are
     * clamped to at least 1 kb/s. Pass nullptr to return to the fixed rate of SetDataRate.
     * Fix the variable's stream (RandomVariableStream::SetStream) before Build() for
     * reproducible rates.
     */
    void SetDataRateVariable(Ptr<RandomVariableStream> mbps);
    /// Creates the nodes, links, Internet stack, addresses and routes.
    FlScene Build(uint32_t numClients) const;
    /**
     * Fixes the streams of the Internet stacks (point-to-point devices draw no random numbers).
     * @return the number of streams used
     */
    static int64_t AssignStreams(const FlScene& scene, int64_t stream);

  private:
    /// Flow fidelity: an up and a down medium per link, the addresses of the packet scene.
    void BuildFlowStar(FlScene& s) const;

    Ptr<RandomVariableStream> m_rateVariable; ///< see SetDataRateVariable
};

} // namespace ns3

#endif // FL_POINT_TO_POINT_STAR_SCENE_H

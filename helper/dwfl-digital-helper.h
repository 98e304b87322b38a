/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Installs the digital DWFL reference (DwflDigitalApplication) on N nodes in one call.
 */
#ifndef DWFL_DIGITAL_HELPER_H
#define DWFL_DIGITAL_HELPER_H

#include "ns3/application-container.h"
#include "ns3/dwfl-digital-application.h"
#include "ns3/fl-hello-application.h"
#include "ns3/ipv4-interface-container.h"
#include "ns3/node-container.h"
#include "ns3/object-factory.h"

#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup fl-helper
 * Installs one DwflDigitalApplication per node: the i-th node is worker i (data set i of the
 * task), every worker knows the others' addresses (the i-th interface of `interfaces`, the
 * application's Port) and all start from the same initial model.
 *
 * \code
 *   FlWifiAdhocSceneHelper adhoc;
 *   FlScene scene = adhoc.Build(n);
 *   DwflDigitalHelper digital(task);
 *   digital.SetAttribute("Rounds", UintegerValue(50));
 *   ApplicationContainer apps = digital.Install(scene.clients, scene.clientInterfaces, x0);
 *   DwflDigitalHelper::AssignStreams(apps, 100);
 * \endcode
 */
class DwflDigitalHelper
{
  public:
    /// @param task the learning task (float64; one data set per worker)
    explicit DwflDigitalHelper(std::shared_ptr<const fl::LearningTask> task);
    /// Sets an attribute of every worker (DwflDigitalApplication or FlApplicationBase).
    void SetAttribute(const std::string& name, const AttributeValue& value);
    /**
     * Installs the workers; stops with a message if the counts of nodes, interfaces and the
     * task's data sets do not fit or there are fewer than two nodes.
     * @param nodes the workers, in worker-index order
     * @param interfaces their IPv4 interfaces, in the same order
     * @param x0 the common initial model x^(-1/2)
     */
    ApplicationContainer Install(const NodeContainer& nodes,
                                 const Ipv4InterfaceContainer& interfaces,
                                 const fl::ParamVector& x0) const;
    /// Fixes the random streams of the workers in `apps`; returns how many it used.
    static int64_t AssignStreams(const ApplicationContainer& apps, int64_t stream);
    /**
     * Workers that move: Install puts an FlHelloApplication on every node (Id = the worker
     * index, hellos every `interval` plus a jitter of up to a tenth of it, from 0 s,
     * neighbours forgotten after `timeout`) and runs the heard-graph variant on it
     * (DwflDigitalApplication::SetNeighbourSource: Metropolis combination of the neighbours
     * the hellos tell). Set the workers' ExchangeTimeout (> 0) and start them 3 intervals
     * after the hellos, when a still graph is known. Throws ConfigError naming "interval" or
     * "timeout" (timeout > interval + its jitter).
     */
    void SetNeighbourDiscovery(Time interval, Time timeout);
    /// The hello applications of the last Install (worker i's at i; empty without discovery).
    const std::vector<Ptr<FlHelloApplication>>& Hellos() const
    {
        return m_hellos;
    }

  private:
    std::shared_ptr<const fl::LearningTask> m_task;
    ObjectFactory m_factory;
    Time m_helloInterval{Seconds(0)};
    Time m_helloTimeout{Seconds(0)};
    mutable std::vector<Ptr<FlHelloApplication>> m_hellos;
};

} // namespace ns3

#endif // DWFL_DIGITAL_HELPER_H

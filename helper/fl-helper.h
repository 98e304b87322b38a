/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Helpers that install the FedAvg server and clients.
 */
#ifndef FL_HELPER_H
#define FL_HELPER_H

#include "ns3/application-container.h"
#include "ns3/fl-client-application.h"
#include "ns3/fl-server-application.h"
#include "ns3/ipv4-address.h"
#include "ns3/node-container.h"
#include "ns3/object-factory.h"
#include "ns3/random-variable-stream.h"

#include <memory>

namespace ns3
{

/**
 * \ingroup fl
 * Installs an FlServerApplication sharing one learning task.
 */
class FlServerHelper
{
  public:
    /// @param task the learning task (shared with the clients and the monitor)
    explicit FlServerHelper(std::shared_ptr<const fl::LearningTask> task);
    /// Sets an attribute of the server application (see FlServerApplication::GetTypeId).
    void SetAttribute(const std::string& name, const AttributeValue& value);
    /// Installs one server on the node.
    ApplicationContainer Install(Ptr<Node> node) const;

  private:
    std::shared_ptr<const fl::LearningTask> m_task;
    ObjectFactory m_factory;
};

/**
 * \ingroup fl
 * Installs FlClientApplications: the i-th node of a container gets client index
 * firstIndex + i (the i-th data set of the task).
 */
class FlClientHelper
{
  public:
    /**
     * @param task the learning task
     * @param serverAddress IPv4 address of the server's node
     * @param port the server's TCP port
     */
    FlClientHelper(std::shared_ptr<const fl::LearningTask> task,
                   Ipv4Address serverAddress,
                   uint16_t port = 9000);
    /// Sets an attribute of every client application (see FlClientApplication::GetTypeId).
    void SetAttribute(const std::string& name, const AttributeValue& value);
    /**
     * Heterogeneous devices: each client installed afterwards gets its FlopRate attribute
     * (FLOP/s) drawn from this variable, once, at Install (e.g. a LogNormalRandomVariable).
     * Draws below 1 FLOP/s are an error. Fix the variable's stream (SetStream) first for
     * reproducible speeds. nullptr returns to the FlopRate attribute.
     */
    void SetComputeSpeedVariable(Ptr<RandomVariableStream> flopsPerSecond);
    /// Installs one client per node; client indices firstIndex, firstIndex + 1, ...
    ApplicationContainer Install(const NodeContainer& nodes, uint32_t firstIndex = 0) const;

  private:
    std::shared_ptr<const fl::LearningTask> m_task;
    ObjectFactory m_factory;
    Ptr<RandomVariableStream> m_speed;
};

/**
 * Assigns fixed random stream numbers to every fl application in the container.
 * @return the number of streams used
 */
int64_t FlAssignStreams(const ApplicationContainer& apps, int64_t stream);

} // namespace ns3

#endif // FL_HELPER_H

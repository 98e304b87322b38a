/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * One-call installation of a DWFL network: the analog channel (OtaHelper) and one
 * DwflWorkerApplication per node.
 */
#ifndef DWFL_HELPER_H
#define DWFL_HELPER_H

#include "ns3/application-container.h"
#include "ns3/dwfl-worker-application.h"
#include "ns3/ota-parameter-server-application.h"
#include "ns3/learning-task.h"
#include "ns3/node-container.h"
#include "ns3/object-factory.h"
#include "ns3/ota-helper.h"

#include <memory>
#include <string>

namespace ns3
{

/**
 * \ingroup fl-helper
 * What DwflHelper::Install built.
 */
struct DwflNetwork
{
    ApplicationContainer workers; ///< one DwflWorkerApplication per node, in node order
    OtaPhyContainer phys;         ///< their phys, same order (then the server's, if any)
    Ptr<OtaChannel> channel;      ///< the shared analog channel
    /// InstallCentralized: the parameter server (null for DWFL)
    Ptr<OtaParameterServerApplication> server;
};

/**
 * \ingroup fl-helper
 * Installs N DWFL workers and their analog channel in one call.
 *
 * Defaults: the paper's sender-only channel (OtaChannel::Structure SenderOnly; fading and its
 * coherence as OtaChannel's defaults), full duplex, bandwidth 1 MHz, and a slot of
 * preamble + ceil(d/2) / B + guard for the task's d parameters. Configure the channel and the
 * phys through Ota() and the workers through SetWorkerAttribute.
 *
 * Path loss on the sender-only channel: sender k has one coefficient, seen by every receiver,
 * whose large-scale gain is the path loss (OtaHelper's LogDistancePropagationLossModel by
 * default) from k to OtaChannel::ReferencePosition, by default the origin (0, 0, 0), not to
 * each receiver. Place the workers around that point, move it
 * (Ota().SetChannelAttribute("ReferencePosition", VectorValue(...))), or drop path loss
 * (Ota().DisablePropagationLoss()). The workers' defaults are the paper's settings where it
 * has one (TargetEpsilon 0.5 per round; Eta (N-1)/N, ComputeTime 10 ms, Kappa the largest
 * feasible otherwise); the module documentation lists every attribute.
 *
 * \code
 *   DwflHelper dwfl;
 *   dwfl.SetWorkerAttribute("DecodeMode", StringValue("Oracle"));
 *   dwfl.Ota().SetPhyAttribute("TxPower", DoubleValue(60.0));
 *   DwflNetwork net = dwfl.Install(nodes, task);
 *   DwflHelper::AssignStreams(net, 100);
 * \endcode
 */
class DwflHelper
{
  public:
    DwflHelper();
    /// Sets an attribute of every installed worker.
    void SetWorkerAttribute(const std::string& name, const AttributeValue& value);
    /// The channel/phy helper used by Install.
    OtaHelper& Ota();
    /// Symbol rate = bandwidth B [Hz] (default 1e6).
    void SetBandwidth(double hz);
    /// Preamble of every data transmission (default 10 us).
    void SetPreamble(Time preamble);
    /// Guard time in every slot (default 10 us).
    void SetGuard(Time guard);
    /**
     * Installs the channel, a phy and a worker on each node (every node needs a mobility
     * model); worker i trains on client data set firstClient + i of the task. Throws
     * fl::ConfigError (from DwflWorkerApplication::SetTask) for an unusable task.
     */
    DwflNetwork Install(const NodeContainer& nodes,
                        std::shared_ptr<const fl::LearningTask> task,
                        uint32_t firstClient = 0) const;
    /**
     * The centralized baseline (Seif et al.): the same workers with Transmission CentralizedPs
     * on `nodes` and an OtaParameterServerApplication on `server` (one more phy on the same
     * channel, installed last); the workers align to the server's phy. Start the server and the
     * workers at the same time (e.g. net.workers.Add(net.server) then Start). Errors as Install.
     */
    DwflNetwork InstallCentralized(const NodeContainer& nodes,
                                   Ptr<Node> server,
                                   std::shared_ptr<const fl::LearningTask> task,
                                   uint32_t firstClient = 0) const;
    /**
     * Assigns fixed streams to the channel, the phys and the workers.
     * \return the number of streams used
     */
    static int64_t AssignStreams(const DwflNetwork& network, int64_t stream);

  private:
    /// Install and InstallCentralized (server null: DWFL).
    DwflNetwork DoInstall(const NodeContainer& nodes,
                          Ptr<Node> server,
                          std::shared_ptr<const fl::LearningTask> task,
                          uint32_t firstClient) const;

    ObjectFactory m_worker;
    OtaHelper m_ota;
    double m_bandwidth{1e6};
    Time m_preamble;
    Time m_guard;
};

} // namespace ns3

#endif // DWFL_HELPER_H

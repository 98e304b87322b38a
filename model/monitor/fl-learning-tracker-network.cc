/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * FlLearningTracker's network view (InstallNetwork): the nodes of a decentralised or
 * graph algorithm per iteration, their aggregates, the finish and the stall watchdog.
 */
#include "ns3/fl-learning-tracker.h"

#include "ns3/boolean.h"
#include "ns3/fl-ns3-compat.h"
#include "ns3/log.h"
#include "ns3/network-metrics.h"
#include "ns3/neighbour-discovery.h"
#include "ns3/node-list.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/trace-source-accessor.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>

namespace ns3
{

/// The log component of FlLearningTracker (NS_LOG=FlLearningTracker), defined in fl-learning-tracker.cc.
LogComponent& FlLearningTrackerLog();

namespace
{
LogComponent& g_log = FlLearningTrackerLog();
} // namespace

// ------------------------------------------------------------------------- the network view

void
FlLearningTracker::SetNetwork(std::size_t nodes,
                              const Eigen::VectorXd& reference,
                              std::shared_ptr<fl::GraphPrivacyAccountant> accountant)
{
    NS_ABORT_MSG_IF(nodes == 0, "FlLearningTracker::SetNetwork: a network of 0 nodes; give N >= 1");
    m_networkNodes = nodes;
    m_networkReference = reference;
    m_graphAccountant = std::move(accountant);
}

void
FlLearningTracker::SetLiveGraphAccountant(std::shared_ptr<fl::LiveGraphPrivacyAccountant> accountant)
{
    m_liveAccountant = std::move(accountant);
}

void
FlLearningTracker::InstallNetwork(const std::vector<Ptr<FlApplicationBase>>& apps)
{
    if (apps.size() != m_networkNodes)
    {
        NS_FATAL_ERROR("FlLearningTracker::InstallNetwork: "
                       << apps.size() << " applications for a network of " << m_networkNodes
                       << " nodes (SetNetwork); give one application per node");
    }
    Ptr<FlLearningTracker> self(this);
    for (uint32_t k = 0; k < apps.size(); ++k)
    {
        apps[k]->TraceConnectWithoutContext(
            "ModelReport",
            MakeBoundCallback(
                +[](Ptr<FlLearningTracker> tracker, uint32_t index, const FlModelReport& report) {
                    tracker->RecordNetwork(index, report);
                },
                self,
                k));
    }
}

void
FlLearningTracker::SetIterationCallback(fl::NetworkIterationCallback cb)
{
    m_iterationCallback = std::move(cb);
}

void
FlLearningTracker::SetFinish(uint32_t last, std::function<void()> finish)
{
    m_last = last;
    m_finish = std::move(finish);
}

void
FlLearningTracker::SetStallTimeout(Time timeout, std::function<void()> onStall)
{
    m_stallTimeout = timeout;
    m_onStall = std::move(onStall);
    m_lastProgress = Simulator::Now();
    if (timeout.IsStrictlyPositive())
    {
        Ptr<FlLearningTracker> self(this);
        FlSchedule(timeout, [self]() { self->CheckStall(); });
    }
}

uint32_t
FlLearningTracker::CompletedIterations() const
{
    return m_nextIteration == 0 ? 0 : m_nextIteration - 1;
}

const fl::NetworkRunResult&
FlLearningTracker::NetworkResult() const
{
    return m_networkResult;
}

bool
FlLearningTracker::Stalled() const
{
    return m_stalled;
}

void
FlLearningTracker::CheckStall()
{
    if (m_stalled || m_networkNodes == 0 || (m_last > 0 && CompletedIterations() >= m_last))
    {
        return;
    }
    const Time idle = Simulator::Now() - m_lastProgress;
    if (idle >= m_stallTimeout)
    {
        NS_LOG_WARN("no node finished an iteration for " << idle.GetSeconds()
                                                         << " s: the run is stalled");
        m_stalled = true;
        if (m_onStall)
        {
            m_onStall();
        }
        return;
    }
    Ptr<FlLearningTracker> self(this);
    FlSchedule(m_stallTimeout - idle, [self]() { self->CheckStall(); });
}

void
FlLearningTracker::RecordNetwork(uint32_t index, const FlModelReport& report)
{
    if (m_networkNodes == 0 || index >= m_networkNodes)
    {
        NS_FATAL_ERROR("FlLearningTracker::RecordNetwork: node "
                       << index << " of a network of " << m_networkNodes
                       << " nodes; call SetNetwork with N first and give 0 <= node < N");
    }
    if (report.model == nullptr)
    {
        return;
    }
    if (report.round < m_nextIteration)
    {
        ++m_lateReports; // its iteration is complete (a node reported it twice)
        return;
    }
    if (report.round > 0)
    {
        m_lastProgress = Simulator::Now();
    }
    PendingIteration& p = m_pending[report.round];
    if (p.models.empty())
    {
        p.models.resize(m_networkNodes);
        p.aggregates.resize(m_networkNodes);
        p.reported.assign(m_networkNodes, false);
    }
    if (p.reported.at(index))
    {
        ++m_lateReports; // a second report of the same iteration: the first one counts
        return;
    }
    p.reported[index] = true;
    p.models[index] = *report.model;
    p.aggregates[index] = report.aggregate ? *report.aggregate : *report.model;
    ++p.count;
    p.missing += report.missingNeighbours;
    if (report.combination != nullptr)
    {
        p.terms.resize(m_networkNodes);
        p.terms[index] = *report.combination;
    }
    p.dropped += report.droppedClients;
    m_networkResult.droppedClients += report.droppedClients;
    // iterations complete in order (a node cannot finish i + 1 before i)
    while (!m_pending.empty() && m_pending.begin()->first == m_nextIteration &&
           m_pending.begin()->second.count == m_networkNodes)
    {
        PendingIteration& done = m_pending.begin()->second;
        const uint32_t i = m_pending.begin()->first;
        fl::NetworkIterationReport r;
        r.iteration = i;
        r.models = &done.models;
        r.aggregates = &done.aggregates;
        if (i == 0)
        {
            // the initial models: no release yet, no centroid kept (as the runners' start)
            fl::ParamVector centroid;
            fl::FillNetworkMetrics(done.models, done.aggregates, m_networkReference, centroid, r);
        }
        else
        {
            if (!done.terms.empty())
            {
                // the weights given to this iteration's messages, receiver by receiver
                std::map<uint32_t, std::map<uint32_t, double>> columns;
                Eigen::MatrixXd A = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(m_networkNodes),
                                                          static_cast<Eigen::Index>(m_networkNodes));
                for (uint32_t k = 0; k < m_networkNodes; ++k)
                {
                    auto& column = columns[k];
                    if (done.terms[k].empty())
                    {
                        column[k] = 1.0; // reported no combination: keeps its own value
                        A(k, k) = 1.0;
                    }
                    for (const FlCombinedTerm& t : done.terms[k])
                    {
                        if (t.sender < m_networkNodes)
                        {
                            A(t.sender, k) += t.weight;
                            if (t.current)
                            {
                                column[t.sender] += t.weight;
                            }
                        }
                    }
                }
                r.stochasticityError = fl::StochasticityError(columns);
                if (m_liveAccountant)
                {
                    try
                    {
                        m_liveAccountant->RecordIteration(A);
                    }
                    catch (const fl::ConfigError& e)
                    {
                        fl::ExitOnConfigError("FlLearningTracker", e);
                    }
                }
            }
            if (m_graphAccountant && !m_liveAccountant)
            {
                m_graphAccountant->RecordIteration();
            }
            m_networkResult.lostMessages += done.missing;
            r.lostMessages = done.missing;
            r.droppedClients = done.dropped;
            if (m_liveAccountant)
            {
                r.epsilonOneLink = m_liveAccountant->Epsilon(fl::GraphAdversary::OneLink);
                r.epsilonAllLinks = m_liveAccountant->Epsilon(fl::GraphAdversary::AllLinks);
                r.epsilonNeighbour = m_liveAccountant->Epsilon(fl::GraphAdversary::Neighbour);
            }
            else
            {
                r.epsilonOneLink = m_graphAccountant ? m_graphAccountant->EpsilonOneLink() : 0.0;
                r.epsilonAllLinks = m_graphAccountant ? m_graphAccountant->EpsilonAllLinks() : 0.0;
                r.epsilonNeighbour =
                    m_graphAccountant ? m_graphAccountant->EpsilonNeighbour() : 0.0;
            }
            fl::FillNetworkMetrics(done.models,
                                   done.aggregates,
                                   m_networkReference,
                                   m_networkResult.centroid,
                                   r);
            m_networkResult.epsilonOneLink = r.epsilonOneLink;
            m_networkResult.epsilonAllLinks = r.epsilonAllLinks;
            m_networkResult.epsilonNeighbour = r.epsilonNeighbour;
        }
        if (m_iterationCallback)
        {
            m_iterationCallback(r);
        }
        m_networkTrace(r);
        m_networkResult.models = std::move(done.models);
        m_pending.erase(m_pending.begin());
        m_nextIteration = i + 1;
        if (m_finish && i > 0 && i == m_last)
        {
            m_finish();
        }
    }
}

} // namespace ns3

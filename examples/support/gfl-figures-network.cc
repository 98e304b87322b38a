/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The GFL and GHP figures (gfl-figures.h), their runs over ns-3 links and their series: GFL over
 * the graph scene (FlGraphSceneHelper, FlGflHelper) and GHP diffusion over 802.11 ad hoc
 * (DiffusionHelper), each in process or simulated, with what a network run cost; the series of
 * one run (each iteration's report, progress lines) and the statements of what each epsilon
 * metric means. The set-up is in gfl-figures-setup.cc, the figures in gfl-figures-paper.cc.
 */
#include "gfl-figures-internal.h"
#include "gfl-figures.h"

#include "ns3/core-module.h"
#include "ns3/error-model.h"
#include "ns3/fl-network-scenarios.h"
#include "ns3/gfl-privacy.h"
#include "ns3/secagg-helper.h"
#include "ns3/wifi-net-device.h"
#include "ns3/wifi-phy-state-helper.h"
#include "ns3/wifi-phy.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <map>

namespace ns3
{

using gflfig::Db;
using gflfig::Fmt;
using gflfig::WithNoiseSource;

namespace
{

/**
 * Runs the simulation a graph helper installed until every node finished `iterations` or the
 * run stalled (--stallSeconds), says on stderr why a run ended early, lets `collect` read the
 * apps' counters into the run's cost before ns-3 is destroyed, and returns the cost.
 */
GflNetworkCost
RunGraphSimulation(FlGraphRunHelperBase& helper,
                   const GflFigureOptions& o,
                   uint32_t iterations,
                   const char* node,
                   std::chrono::steady_clock::time_point t0,
                   const std::function<void(GflNetworkCost&)>& collect)
{
    helper.SetStallTimeout(Seconds(o.stallSeconds));
    Simulator::Stop(Seconds(1e6));
    Simulator::Run();
    GflNetworkCost cost;
    collect(cost);
    Ptr<FlLearningTracker> tracker = helper.Tracker();
    cost.iterations = tracker->CompletedIterations();
    cost.simSeconds = Simulator::Now().GetSeconds();
    if (cost.iterations != iterations)
    {
        std::cerr << "network run stopped after " << cost.iterations << " of " << iterations
                  << " iterations";
        if (tracker->Stalled())
        {
            std::cerr << ": stalled, no " << node << " finished an iteration for " << o.stallSeconds
                      << " s of simulated time (a neighbour message that never arrived; give "
                         "--exchangeTimeout so that --policy acts on it)";
        }
        std::cerr << std::endl;
    }
    Simulator::Destroy();
    cost.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return cost;
}

} // namespace

namespace gflfig
{

/// The node-noise configuration with the options' noise source.
fl::NodeNoiseConfig
WithNoiseSource(const GflFigureOptions& o, fl::NodeNoiseConfig noise)
{
    noise.source = fl::ParseNoiseSource(o.noiseSource, "--noiseSource");
    return noise;
}

} // namespace gflfig

// ------------------------------------------------------------------------------- network

GflNetworkCost
GflFigureRunGfl(const GflFigureOptions& o,
                std::shared_ptr<const fl::LearningTask> task,
                const fl::GflConfig& config,
                const fl::NetworkIterationCallback& cb)
{
    fl::GflConfig c = config;
    c.serverNoise = WithNoiseSource(o, c.serverNoise);
    c.clientNoise = WithNoiseSource(o, c.clientNoise);
    if (o.mode == "inprocess")
    {
        fl::RunGflInProcess(*task, c, cb);
        return GflNetworkCost{};
    }
    const auto t0 = std::chrono::steady_clock::now();
    FlGraphSceneHelper sceneHelper;
    sceneHelper.SetFidelity(ParseFlFidelity(o.network, "--network"));
    sceneHelper.SetCell(o.cell);
    sceneHelper.SetServerLinks(o.serverLinks);
    sceneHelper.SetMeshSpacing(o.meshSpacing);
    sceneHelper.SetServerLinkRate(DataRate(static_cast<uint64_t>(o.linkMbps * 1e6)));
    sceneHelper.SetServerLinkDelay(MilliSeconds(o.linkDelayMs));
    sceneHelper.SetCellDoze(o.cellDoze);
    sceneHelper.SetCellStaticArp(o.cellStaticArp);
    sceneHelper.SetCellBeaconInterval(MicroSeconds(1024 * static_cast<int64_t>(o.cellBeaconTu)));
    sceneHelper.SetCellAssociationStagger(
        MicroSeconds(static_cast<int64_t>(std::llround(o.cellAssocStaggerMs * 1e3))));
    FlGraphScene scene = sceneHelper.Build(c.combination, c.clientsPerServer);
    // the scene's draws follow the run's ns-3 run number (GflMonteCarlo), not the runs before
    FlAssignGraphSceneStreams(scene, 5000);
    if (o.linkLoss > 0.0)
    {
        FlSetServerLinkLoss(scene, o.linkLoss, 1000);
    }
    FlGflHelper gfl(task, c);
    gfl.SetTransport(o.transport);
    gfl.SetTcpMinRto(MicroSeconds(static_cast<int64_t>(std::llround(o.tcpMinRtoMs * 1e3))));
    const double clientStaggerMs =
        o.clientStaggerMs >= 0.0 ? o.clientStaggerMs : (o.cell == "wifi" ? 2.0 : 0.0);
    gfl.SetClientStartStagger(
        MicroSeconds(static_cast<int64_t>(std::llround(clientStaggerMs * 1e3))));
    gfl.SecureAggregation().SetAttribute("KeyMode", StringValue(o.secureKeys));
    if (o.exchangeTimeout > 0.0)
    {
        gfl.SetExchangeTimeout(Seconds(o.exchangeTimeout));
    }
    if (o.transport == "udp")
    {
        gfl.SetExchangeTimeout(Seconds(o.exchangeTimeout > 0.0 ? o.exchangeTimeout : 1.0));
        gfl.SetRoundDeadline(Seconds(5));
    }
    else if (o.serverLinks == "mesh" && o.exchangeTimeout == 0.0)
    {
        // ns-3's 802.11s loses HWMP paths now and then; a TCP connection whose retries run out
        // takes its messages with it. Combine after 2 s with the policy instead of waiting.
        gfl.SetExchangeTimeout(Seconds(2.0));
    }
    gfl.SetIterationCallback(cb);
    std::vector<Ptr<FlServerApplication>> servers = gfl.Install(scene);
    return RunGraphSimulation(gfl, o, c.iterations, "server", t0, [&](GflNetworkCost& cost) {
        uint64_t connectFailures = 0;
        uint64_t unsent = 0;
        for (auto& s : servers)
        {
            if (s->GetTransport())
            {
                const FlTransportStats ts = s->GetTransport()->Stats();
                cost.bytes += ts.bytesSent;
                connectFailures += ts.connectFailures;
                unsent += ts.messagesUnsent;
            }
        }
        if (connectFailures > 0)
        {
            std::cerr << "warning: " << connectFailures
                      << " TCP connection(s) between servers failed to open; " << unsent
                      << " message(s) queued on them were dropped" << std::endl;
        }
        for (auto& cl : gfl.Clients())
        {
            cost.bytes += cl->GetBytesSent();
        }
    });
}

GflNetworkCost
GflFigureRunDiffusion(const GflFigureOptions& o,
                      std::shared_ptr<const fl::LearningTask> task,
                      const fl::DiffusionConfig& config,
                      const fl::NetworkIterationCallback& cb)
{
    fl::DiffusionConfig c = config;
    c.noise = WithNoiseSource(o, c.noise);
    if (o.mode == "inprocess")
    {
        fl::RunDiffusionInProcess(*task, c, cb);
        return GflNetworkCost{};
    }
    const auto t0 = std::chrono::steady_clock::now();
    const auto K = static_cast<uint32_t>(c.combination.rows());
    FlWifiAdhocSceneHelper adhoc;
    FlScene scene = adhoc.Build(K - 1);
    // common random numbers: every variant sees the same backoffs (and so the same collisions
    // while the timing is the same)
    FlWifiSceneHelperBase::AssignStreams(scene, 4000);
    // airtime: TX time of every PHY (data frames, ACKs); --ghpLoss: i.i.d. frame errors at
    // every receiver (after the PHY's own reception), on its own random stream
    auto airtime = std::make_shared<std::pair<double, uint64_t>>(0.0, 0);
    for (uint32_t d = 0; d < scene.devices.GetN(); ++d)
    {
        Ptr<WifiNetDevice> dev = DynamicCast<WifiNetDevice>(scene.devices.Get(d));
        if (!dev)
        {
            continue;
        }
        dev->GetPhy()->GetState()->TraceConnectWithoutContext(
            "State",
            MakeBoundCallback(
                +[](std::pair<double, uint64_t>* a, Time, Time duration, WifiPhyState state) {
                    if (state == WifiPhyState::TX)
                    {
                        a->first += duration.GetSeconds();
                        ++a->second;
                    }
                },
                airtime.get()));
        if (o.ghpLoss > 0.0)
        {
            Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
            em->SetAttribute("ErrorUnit", StringValue("ERROR_UNIT_PACKET"));
            em->SetAttribute("ErrorRate", DoubleValue(o.ghpLoss));
            em->AssignStreams(2000 + d);
            dev->GetPhy()->SetPostReceptionErrorModel(em);
        }
    }
    NodeContainer nodes(scene.serverNode);
    nodes.Add(scene.clients);
    std::vector<Ipv4Address> addresses{scene.serverAddress};
    for (uint32_t k = 0; k + 1 < K; ++k)
    {
        addresses.push_back(scene.clientInterfaces.GetAddress(k));
    }
    DiffusionHelper diffusion(task, c);
    const bool broadcast = o.ghpTransport == "broadcast";
    diffusion.SetTransport(broadcast ? "broadcast" : o.transport);
    diffusion.SetTcpMinRto(MicroSeconds(static_cast<int64_t>(std::llround(o.tcpMinRtoMs * 1e3))));
    const double periodMs = o.ghpPeriodMs > 0.0 ? o.ghpPeriodMs : (broadcast ? 50.0 : 0.0);
    diffusion.SetReleaseJitter(MicroSeconds(static_cast<int64_t>(o.ghpJitterMs * 1e3)));
    diffusion.AssignStreams(3000);
    if (periodMs > 0.0)
    {
        diffusion.SetIterationPeriod(MicroSeconds(static_cast<int64_t>(periodMs * 1e3)));
        if (o.exchangeTimeout > 0.0)
        {
            diffusion.SetExchangeTimeout(Seconds(o.exchangeTimeout));
        }
    }
    else if (o.transport == "udp" || o.exchangeTimeout > 0.0)
    {
        diffusion.SetExchangeTimeout(Seconds(o.exchangeTimeout > 0.0 ? o.exchangeTimeout : 1.0));
    }
    diffusion.SetIterationCallback(cb);
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> linkLosses; // (l, k) -> iterations lost
    diffusion.SetLinkLossCallback([&linkLosses](uint32_t, uint32_t l, uint32_t k) {
        ++linkLosses[{l, k}];
    });
    auto agents = diffusion.Install(nodes, addresses);
    return RunGraphSimulation(diffusion, o, c.iterations, "agent", t0, [&](GflNetworkCost& cost) {
        for (auto& a : agents)
        {
            if (a->GetTransport())
            {
                const FlTransportStats ts = a->GetTransport()->Stats();
                cost.bytes += ts.bytesSent;
                cost.malformed += ts.malformed;
                cost.transmissions += ts.messagesSent;
            }
            if (const FlGraphExchangeStats* es = a->GetExchangeStats())
            {
                cost.notNeighbor += es->notNeighbor;
                cost.links += es->missingFrom.size();
                for (uint64_t m : es->missingFrom)
                {
                    cost.lost += m;
                }
            }
        }
        for (const auto& kv : linkLosses)
        {
            cost.worstLinkLost = std::max(cost.worstLinkLost, kv.second);
        }
        cost.airtimeSeconds = airtime->first;
        cost.frames = airtime->second;
    });
}

void
PrintGflNetworkCost(const GflNetworkCost& c, const std::string& name, std::ostream& os)
{
    os << "  " << name << ": " << c.bytes << " bytes sent, " << c.simSeconds << " s simulated, "
       << c.wallSeconds << " s wall" << std::endl;
    if (c.iterations > 0 && c.links > 0)
    {
        const double it = c.iterations;
        os << "  " << name << " per iteration: " << Fmt(c.bytes / it, 0) << " bytes, "
           << Fmt(1e3 * c.airtimeSeconds / it, 3) << " ms airtime, " << Fmt(c.frames / it, 1)
           << " PHY frames, " << Fmt(c.transmissions / it, 1)
           << " messages sent (broadcasts or copies); loss rate "
           << Fmt(100.0 * c.lost / (it * c.links), 2) << " % of " << c.links
           << " directed links (worst link " << Fmt(100.0 * c.worstLinkLost / it, 1) << " %), "
           << c.notNeighbor << " non-neighbour messages ignored, " << c.malformed << " malformed"
           << std::endl;
    }
}

// ------------------------------------------------------------------------------- series

void
AddGflIterationReport(fl::MonteCarloSeries& s,
                      const fl::NetworkIterationReport& r,
                      bool withEpsilon)
{
    s.Add("msd_centroid", r.iteration, r.centroidMsd);
    s.Add("msd_average", r.iteration, r.averageMsd);
    s.Add("disagreement", r.iteration, r.disagreement);
    s.Add("centroid_drift", r.iteration, r.centroidDrift);
    s.Add("lost_messages", r.iteration, static_cast<double>(r.lostMessages));
    if (withEpsilon)
    {
        s.Add("epsilon_one_link", r.iteration, r.epsilonOneLink);
        s.Add("epsilon_all_links", r.iteration, r.epsilonAllLinks);
        s.Add("epsilon_neighbour", r.iteration, r.epsilonNeighbour);
    }
}

std::string
GflEpsilonColumn(fl::GraphAdversary adversary)
{
    switch (adversary)
    {
    case fl::GraphAdversary::AllLinks:
        return "epsilon_all_links";
    case fl::GraphAdversary::Neighbour:
        return "epsilon_neighbour";
    case fl::GraphAdversary::OneLink:
        break;
    }
    return "epsilon_one_link";
}

void
NoteGflEpsilon(fl::MonteCarloSeries& s,
               const fl::NodeNoiseConfig& noise,
               const std::string& unit,
               double delta)
{
    const fl::MechanismKind mechanism = noise.distribution == fl::NoiseDistribution::Laplace
                                            ? fl::MechanismKind::Laplace
                                            : fl::MechanismKind::Gaussian;
    for (auto adversary :
         {fl::GraphAdversary::OneLink, fl::GraphAdversary::AllLinks, fl::GraphAdversary::Neighbour})
    {
        fl::PrivacyStatement statement =
            fl::GraphReleaseStatement(noise.kind, mechanism, adversary, unit, delta);
        statement.noise = fl::NoiseAssumption(noise.source);
        s.statements[GflEpsilonColumn(adversary)] = statement.Describe();
    }
}

fl::NetworkIterationCallback
GflProgressCallback(const GflFigureOptions& o,
                    const std::string& name,
                    uint32_t run,
                    uint32_t iterations,
                    fl::MonteCarloSeries& series,
                    bool withEpsilon,
                    std::ostream& os)
{
    return [&o, name, run, iterations, &series, withEpsilon, &os](
               const fl::NetworkIterationReport& r) {
        AddGflIterationReport(series, r, withEpsilon);
        const uint32_t every = std::max<uint32_t>(1, iterations / 10);
        if (!o.quiet && r.iteration > 0 && (r.iteration % every == 0 || r.iteration == iterations))
        {
            os << "  [" << name << " run " << run + 1 << "/" << o.runs << "] iteration "
               << r.iteration << "/" << iterations << ": centroid MSD " << Fmt(Db(r.centroidMsd))
               << " dB, average MSD " << Fmt(Db(r.averageMsd)) << " dB" << std::endl;
        }
    };
}

} // namespace ns3

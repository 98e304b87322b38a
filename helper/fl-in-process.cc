/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/fl-in-process.h"

#include "ns3/fl-types.h"
#include "ns3/secagg-protocol.h"
#include "ns3/uplink-privacy.h"

#include <algorithm>
#include <deque>
#include <map>
#include <tuple>

namespace ns3
{

namespace
{

/// One client's upload as the network would carry it.
struct Upload
{
    fl::ParamVector values;   ///< model or upload values (or the step's values)
    std::vector<uint8_t> raw; ///< a raw payload, if the strategy sent one
    uint64_t weight{0};       ///< the upload weight
};

/// The in-process stand-in of the network between one server strategy and its clients.
class Loopback
{
  public:
    Loopback(Ptr<FlServerStrategy> server, const FlInProcessConfig& config)
        : m_server(server),
          m_config(config),
          m_task(*config.task)
    {
        const uint32_t n = m_task.NumClients();
        if (config.clientSeeds.size() != n)
        {
            throw fl::ConfigError("clientSeeds",
                                  std::to_string(config.clientSeeds.size()) + " seeds for " +
                                      std::to_string(n) + " clients",
                                  "give one training seed per client");
        }
        if (FlPeerHooksOf(PeekPointer(server)) != nullptr)
        {
            throw fl::ConfigError("strategy",
                                  server->GetInstanceTypeId().GetName() +
                                      " talks to peers, which an in-process run does not have",
                                  "run it over a network scene");
        }
        m_global = config.initial;
        for (uint32_t k = 0; k < n; ++k)
        {
            Ptr<FlClientStrategy> s =
                config.clientStrategy ? config.clientStrategy(k) : CreateObject<FlClientStrategy>();
            FlClientPort port;
            port.sendControl =
                [this, k](uint32_t round, uint32_t tag, const std::vector<uint8_t>& bytes) {
                    m_toServer.push_back({k, round, tag, bytes});
                };
            port.uploadRaw = [this, k](uint32_t /* round */, const std::vector<uint8_t>& bytes) {
                Upload u;
                u.raw = bytes;
                u.weight = m_clients[k]->UploadWeight(m_task, k);
                m_uploads[k] = std::move(u);
            };
            port.hasUplinkStep = [this]() { return m_config.sumFractionBits != 0; };
            port.uplinkStepUpload =
                [this, k](uint32_t /* round */, const fl::ParamVector& values, uint64_t weight) {
                    Upload u;
                    u.values = values;
                    u.weight = weight;
                    m_uploads[k] = std::move(u);
                };
            port.unexpected = []() {};
            const uint64_t seed = config.clientSeeds[k];
            port.trainingSeed = [seed]() { return seed; };
            s->SetPort(port);
            s->Start(m_task, k, config.sumFractionBits != 0);
            m_fits.push_back(s->MakeFit());
            m_noise.push_back(config.perturbation ? config.perturbation(k) : nullptr);
            m_clients.push_back(s);
        }
        FlServerPort port;
        port.roster = [n]() {
            std::vector<uint32_t> all(n);
            for (uint32_t k = 0; k < n; ++k)
            {
                all[k] = k;
            }
            return all;
        };
        port.sampleCount = [this](uint32_t k) {
            return static_cast<uint32_t>(m_task.ClientSamples(k));
        };
        port.round = [this]() { return m_round; };
        port.sendModel = [](const std::vector<uint32_t>&) {};
        port.sendControl =
            [this](uint32_t k, uint32_t round, uint32_t tag, const std::vector<uint8_t>& bytes) {
                if (k >= m_clients.size())
                {
                    return false;
                }
                m_toClients.push_back({k, round, tag, bytes});
                return true;
            };
        port.linkState = [](uint32_t) { return FlLinkState(); };
        port.transport = []() { return Ptr<FlTransport>(); };
        port.commit = [this](const std::vector<FlUpdateInfo>&) {
            ++m_round;
            m_result.models.push_back(m_global);
            m_result.participants.emplace_back();
            m_committed = true;
        };
        port.finished = [this]() { return (m_async ? m_round - 1 : m_round) >= m_config.rounds; };
        port.seed = [this]() { return m_config.serverSeed; };
        server->SetPort(port);
        FlStrategySetup setup;
        setup.numParameters = m_task.NumParameters();
        setup.hasUplinkStep = config.sumFractionBits != 0;
        server->Start(setup);
        m_result.models.push_back(m_global);
        m_result.participants.emplace_back();
    }

    FlInProcessResult Run()
    {
        if (FlAsyncHooks* async = FlAsyncHooksOf(PeekPointer(m_server)))
        {
            RunAsync(*async);
        }
        else
        {
            for (m_round = 1; m_round <= m_config.rounds; ++m_round)
            {
                RunRound();
            }
        }
        return std::move(m_result);
    }

  private:
    /// A Control message in flight.
    struct Control
    {
        uint32_t client;
        uint32_t round;
        uint32_t tag;
        std::vector<uint8_t> bytes;
    };

    std::vector<uint32_t> Selected(uint32_t round)
    {
        std::vector<uint32_t> all(m_clients.size());
        for (uint32_t k = 0; k < all.size(); ++k)
        {
            all[k] = k;
        }
        std::vector<uint32_t> selected;
        if (m_server->SelectClients(round, all, selected))
        {
            std::sort(selected.begin(), selected.end());
            return selected;
        }
        return m_config.selected ? m_config.selected(round) : all;
    }

    /// Client k's fit on `start` (of model version `round`) and its uplink noise: the upload.
    fl::ParamVector Train(uint32_t k,
                          uint32_t round,
                          const fl::ParamVector& start,
                          const fl::ParamVector& attachment,
                          FlClientFit& fit)
    {
        FlClientStrategy& s = *m_clients[k];
        FlFitInput in;
        in.task = &m_task;
        in.client = k;
        in.start = &start;
        in.attachment = &attachment;
        in.seed = m_config.clientSeeds[k];
        in.round = round;
        in.perturbation = s.PerturbsUpload() ? m_noise[k].get() : nullptr;
        m_fits[k](in, fit);
        s.Superseded();
        fl::ParamVector upload = fit.ownUpload ? fit.upload : fit.training.params;
        if (m_noise[k] && !s.PerturbsUpload())
        {
            fl::PerturbUpload(*m_noise[k],
                              m_config.noiseSource,
                              m_config.clientSeeds[k],
                              round,
                              m_config.serverNode,
                              upload);
        }
        return upload;
    }

    /// Hands client k's upload to its strategy's phases, the summing step or the server.
    void Send(uint32_t k,
              uint32_t round,
              const fl::ParamVector& start,
              FlClientFit& fit,
              fl::ParamVector upload)
    {
        FlClientStrategy& s = *m_clients[k];
        if (s.PhasesBeforeUpload())
        {
            s.UploadReady(m_task, k, round, start, upload, fit.training.meanLoss);
        }
        else
        {
            Upload u;
            u.weight = s.UploadWeight(m_task, k);
            if (!fit.raw.empty() && m_config.sumFractionBits == 0)
            {
                u.raw = std::move(fit.raw);
            }
            else
            {
                u.values = std::move(upload);
            }
            m_uploads[k] = std::move(u);
        }
        if (fit.onUploadSent)
        {
            fit.onUploadSent(); // the upload has left
        }
    }

    /// Delivers the server's Control messages to the clients, in the order sent.
    void DeliverToClients()
    {
        while (!m_toClients.empty())
        {
            Control c = std::move(m_toClients.front());
            m_toClients.pop_front();
            m_clients[c.client]->Receive(c.round, c.tag, c.bytes);
        }
    }

    /// The step's sum of the uploads of `clients` (ascending), as secure aggregation reveals it.
    fl::SecAggResult Sum(const std::vector<uint32_t>& clients, std::size_t summands)
    {
        std::vector<Eigen::VectorXd> values;
        std::vector<uint64_t> weights;
        for (uint32_t k : clients)
        {
            values.push_back(m_uploads[k].values.ConvertedTo(fl::Precision::Float64).Get<double>());
            weights.push_back(m_uploads[k].weight);
        }
        std::vector<const Eigen::VectorXd*> inputs;
        for (const auto& v : values)
        {
            inputs.push_back(&v);
        }
        return fl::SecAggPlainSum(inputs, weights, m_config.sumFractionBits, summands);
    }

    void RunRound()
    {
        const FlServerStrategy::Context ctx{m_round, FlRoundStatus::Aggregated};
        const std::vector<uint32_t> selected = Selected(m_round);
        FlRoundConfig roundConfig;
        m_server->ConfigureRound(ctx, selected, roundConfig);
        FlPhaseHooks* phases = FlPhaseHooksOf(PeekPointer(m_server));
        m_uploads.clear();
        std::vector<uint32_t> waiting;
        for (uint32_t k : selected)
        {
            if (m_clients[k]->Silent(m_config.clientSeeds[k], m_round))
            {
                continue;
            }
            FlClientFit fit;
            fl::ParamVector upload = Train(k, m_round, m_global, roundConfig.attachment, fit);
            waiting.push_back(k);
            Send(k, m_round, m_global, fit, std::move(upload));
        }
        if (phases != nullptr)
        {
            // the clients' phase messages, in client order; PhasesDone after each
            std::stable_sort(
                m_toServer.begin(),
                m_toServer.end(),
                [](const Control& a, const Control& b) { return a.client < b.client; });
            bool done = false;
            std::vector<uint32_t> uploaders;
            while (!m_toServer.empty())
            {
                Control c = std::move(m_toServer.front());
                m_toServer.pop_front();
                if (phases->PhaseMessage(ctx, c.client, c.tag, c.bytes) ==
                        FlPhaseHooks::Verdict::Accepted &&
                    !done)
                {
                    done = phases->PhasesDone(ctx, waiting, false, uploaders);
                }
            }
            if (!done)
            {
                phases->PhasesDone(ctx, waiting, true, uploaders);
            }
            DeliverToClients();
        }
        m_toServer.clear();
        FlAggregationInput in;
        for (const auto& kv : m_uploads) // ascending client index
        {
            in.clients.push_back(kv.first);
        }
        std::vector<double> weights;
        if (in.clients.empty())
        {
            m_result.models.push_back(m_global);
            m_result.participants.emplace_back();
            return;
        }
        fl::SecAggResult sum;
        if (m_config.sumFractionBits != 0)
        {
            sum = Sum(in.clients, selected.size());
            in.sum = &sum.sum;
            in.totalWeight = static_cast<double>(sum.totalWeight);
        }
        else
        {
            for (uint32_t k : in.clients)
            {
                const Upload& u = m_uploads[k];
                if (!u.raw.empty())
                {
                    in.payloads.push_back(&u.raw);
                    continue;
                }
                fl::RoundUpdate ru;
                ru.model = &u.values;
                ru.sampleCount = static_cast<double>(u.weight);
                in.updates.push_back(ru);
            }
        }
        FlServerStrategy::Context aggCtx = ctx;
        if (!m_server->Aggregate(aggCtx, in, m_global, weights))
        {
            aggCtx.status = FlRoundStatus::Empty;
        }
        bool after = false;
        m_server->AfterAggregation(aggCtx, m_global, [&after]() { after = true; });
        if (!after)
        {
            throw fl::ConfigError("strategy",
                                  m_server->GetInstanceTypeId().GetName() +
                                      " finishes AfterAggregation later in simulated time",
                                  "run it over a network scene");
        }
        m_result.models.push_back(m_global);
        m_result.participants.push_back(in.clients);
    }

    void RunAsync(FlAsyncHooks& async)
    {
        // Every client sent a model trains on it; the uploads arrive in client order (or as
        // cohorts of cohortSize, summed); models the strategy sends are trained on next.
        // The wire numbers versions from 1 (the initial model); each commit numbers the next.
        std::map<uint32_t, fl::ParamVector> versions; // version -> model
        m_round = 1;
        m_async = true;
        versions[1] = m_global;
        std::deque<std::pair<uint32_t, uint32_t>> work; // (client, version)
        FlServerPort port = m_server->Port();
        port.sendModel = [this, &work](const std::vector<uint32_t>& clients) {
            for (uint32_t k : clients)
            {
                work.emplace_back(k, m_round);
            }
        };
        m_server->SetPort(port);
        const std::vector<uint32_t> first = Selected(1);
        FlRoundConfig roundConfig;
        m_server->ConfigureRound(FlServerStrategy::Context{1, FlRoundStatus::Aggregated},
                                 first,
                                 roundConfig);
        for (uint32_t k : first)
        {
            work.emplace_back(k, 1);
        }
        const uint32_t cohort = m_config.sumFractionBits != 0 ? m_config.cohortSize : 1;
        if (m_config.sumFractionBits != 0 && (cohort < 2 || async.UplinkCohortSize() != cohort))
        {
            throw fl::ConfigError("cohortSize",
                                  std::to_string(cohort) + ", not the strategy's uplink cohort "
                                                           "size",
                                  "give the strategy's UplinkCohortSize with a summing step");
        }
        const fl::ParamVector none;
        std::size_t next = 0;    // into config.arrivals
        uint32_t lastCohort = 0; // cohorts are numbered in the order they are sent
        while (m_round - 1 < m_config.rounds)
        {
            // the next update, or cohort: in the order of config.arrivals, else in the order the
            // models were sent; (client, version, round of the model message trained on)
            std::vector<std::tuple<uint32_t, uint32_t, uint32_t>> batch;
            if (!m_config.arrivals.empty())
            {
                for (; next < m_config.arrivals.size(); ++next)
                {
                    const FlUpdateInfo& a = m_config.arrivals[next];
                    if (!batch.empty() && (cohort == 1 || a.cohort != std::get<2>(batch.front())))
                    {
                        break; // the next update or cohort
                    }
                    if (versions.count(a.trainedRound) == 0)
                    {
                        throw fl::ConfigError(
                            "arrivals",
                            "client " + std::to_string(a.client) + " uploads for version " +
                                std::to_string(a.trainedRound) + ", which does not exist yet",
                            "give the network run's arrival order");
                    }
                    batch.emplace_back(a.client,
                                       a.trainedRound,
                                       cohort == 1 ? a.trainedRound : a.cohort);
                }
            }
            else if (work.size() >= cohort)
            {
                const uint32_t id = ++lastCohort;
                for (uint32_t i = 0; i < cohort; ++i)
                {
                    const auto [k, version] = work.front();
                    work.pop_front();
                    batch.emplace_back(k, version, cohort == 1 ? version : id);
                }
            }
            if (batch.empty())
            {
                break;
            }
            std::sort(batch.begin(), batch.end());
            m_uploads.clear();
            for (const auto& [k, version, messageRound] : batch)
            {
                FlClientFit fit;
                const fl::ParamVector& start = versions.at(version);
                fl::ParamVector upload = Train(k, messageRound, start, none, fit);
                Send(k, messageRound, start, fit, std::move(upload));
            }
            m_committed = false;
            const uint32_t version = std::get<1>(batch.front());
            if (m_config.sumFractionBits == 0)
            {
                const uint32_t k = std::get<0>(batch.front());
                FlUpdateInfo info;
                info.client = k;
                info.trainedRound = version;
                info.staleness = m_round - version;
                info.sampleCount = static_cast<uint32_t>(m_uploads[k].weight);
                async.UpdateArrived(info, m_uploads[k].values, m_global);
            }
            else
            {
                std::vector<uint32_t> clients;
                for (const auto& b : batch)
                {
                    clients.push_back(std::get<0>(b));
                }
                const fl::SecAggResult sum = Sum(clients, clients.size());
                FlAsyncHooks::CohortSum c;
                c.cohort = std::get<2>(batch.front());
                c.trainedRound = version;
                c.staleness = m_round - version;
                c.base = &versions.at(version);
                c.sum = &sum.sum;
                c.totalWeight = static_cast<double>(sum.totalWeight);
                for (uint32_t k : clients)
                {
                    FlUpdateInfo info;
                    info.client = k;
                    info.trainedRound = version;
                    info.staleness = c.staleness;
                    info.cohort = c.cohort;
                    info.sampleCount = static_cast<uint32_t>(m_uploads[k].weight);
                    c.updates.push_back(info);
                }
                async.CohortAggregated(c, m_global);
                for (uint32_t k : clients)
                {
                    work.emplace_back(k, m_round); // the server dispatches idle clients again
                }
            }
            if (m_committed)
            {
                versions[m_round] = m_global;
            }
        }
    }

    Ptr<FlServerStrategy> m_server;
    const FlInProcessConfig& m_config;
    const fl::LearningTask& m_task;
    fl::ParamVector m_global;
    uint32_t m_round{0};
    bool m_committed{false};
    bool m_async{false}; ///< versions, numbered from 1 on the wire
    std::vector<Ptr<FlClientStrategy>> m_clients;
    std::vector<FlClientStrategy::FitFunction> m_fits;
    std::vector<std::shared_ptr<fl::Perturbation>> m_noise;
    std::map<uint32_t, Upload> m_uploads;
    std::deque<Control> m_toServer;
    std::deque<Control> m_toClients;
    FlInProcessResult m_result;
};

} // namespace

FlInProcessResult
FlRunInProcess(Ptr<FlServerStrategy> server, const FlInProcessConfig& config)
{
    if (!server || !config.task)
    {
        throw fl::ConfigError("FlRunInProcess", "no server strategy or no task", "give both");
    }
    Loopback loop(server, config);
    return loop.Run();
}

} // namespace ns3

/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fedavg-cost-probes.h"

#include "ns3/message-reassembler.h"
#include "ns3/model-message.h"

#include <Eigen/Core>
#include <algorithm>
#include <chrono>
#include <iomanip>
#include <numeric>
#include <ostream>
#include <stdexcept>
#include <string>

namespace ns3
{
namespace fl
{

namespace
{

using Clock = std::chrono::steady_clock;

double
ElapsedS(Clock::time_point a, Clock::time_point b)
{
    return std::chrono::duration<double>(b - a).count();
}

/// Hands `bytes` to `rx` in `segment`-sized pieces.
void
Deliver(const std::vector<uint8_t>& bytes, std::size_t segment, MessageReassembler& rx)
{
    for (std::size_t off = 0; off < bytes.size(); off += segment)
    {
        rx.Push(bytes.data() + off, std::min(segment, bytes.size() - off));
    }
}

/// The one message `rx` holds, which must be of `kind` and `round`.
ReceivedMessage
PopOne(MessageReassembler& rx, MessageKind kind, uint32_t round)
{
    ReceivedMessage msg;
    if (!rx.Pop(msg) || msg.header.kind != kind || msg.header.round != round)
    {
        throw std::runtime_error("ideal link: a message was lost in round " +
                                 std::to_string(round));
    }
    return msg;
}

} // namespace

double
RoundWallSeries::Mean() const
{
    if (roundWall.empty())
    {
        return 0.0;
    }
    return std::accumulate(roundWall.begin(), roundWall.end(), 0.0) /
           static_cast<double>(roundWall.size());
}

double
RoundWallSeries::Median() const
{
    if (roundWall.empty())
    {
        return 0.0;
    }
    std::vector<double> v = roundWall;
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double
GemmRate(int m, int k, int n, int reps)
{
    using M = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic>;
    M a = M::Random(m, k);
    M b = M::Random(k, n);
    M c(m, n);
    const double flops = 2.0 * m * k * n;
    int inner = std::max(1, static_cast<int>(2e7 / std::max(1.0, flops / 4.0)));
    inner = std::min(inner, 100000);
    c.noalias() = a * b; // warm-up
    double best = 0.0;
    for (int r = 0; r < reps; ++r)
    {
        const auto t0 = Clock::now();
        for (int i = 0; i < inner; ++i)
        {
            c.noalias() = a * b;
            a(0, 0) += c(0, 0) * 1e-30f; // keep the products alive
        }
        const double s = ElapsedS(t0, Clock::now());
        best = std::max(best, flops * inner / s / 1e9);
    }
    return best;
}

RoundWallSeries
TimeFedAvgRounds(const LearningTask& task, const TimedRunConfig& cfg, const ReferenceLink& link)
{
    RoundWallSeries res;
    FedAvgReferenceConfig ref;
    ref.rounds = cfg.rounds;
    ref.initSeed = cfg.initSeed;
    ref.clientSeeds = cfg.clientSeeds;
    ref.link = link;
    auto t0 = Clock::now();
    ref.onRound = [&](uint32_t r, const ParamVector&) {
        const auto now = Clock::now();
        if (r > 0)
        {
            res.roundWall.push_back(ElapsedS(t0, now));
            if (cfg.progress)
            {
                *cfg.progress << "  " << cfg.label << " round " << r << "/" << cfg.rounds << ": "
                              << std::fixed << std::setprecision(4) << res.roundWall.back()
                              << " s" << std::endl;
            }
        }
        t0 = now;
    };
    FedAvgReferenceResult out = RunFedAvgReference(task, ref);
    res.samples = out.samplesProcessed;
    res.finalModel = std::move(out.finalModel);
    return res;
}

RoundWallSeries
TimeFedAvgRoundsOverIdealLink(const LearningTask& task,
                              const TimedRunConfig& cfg,
                              Precision wire,
                              std::size_t segmentBytes)
{
    if (segmentBytes == 0)
    {
        throw std::invalid_argument("TimeFedAvgRoundsOverIdealLink: segmentBytes must be > 0");
    }
    const Precision decodeTo = task.GetPrecision();
    const auto n = static_cast<uint32_t>(task.NumClients());
    constexpr uint32_t kServerNode = 0; // node-level ids: the server 0, client k is k + 1
    // One reassembler per direction and client, as each TCP connection has one on each side.
    std::vector<MessageReassembler> serverRx(n, MessageReassembler(decodeTo));
    std::vector<MessageReassembler> clientRx(n, MessageReassembler(decodeTo));
    uint64_t bytes = 0;
    ReferenceLink link;
    std::vector<uint8_t> down;
    link.down = [&](uint32_t r, const ParamVector& global) {
        EncodeMessage({MessageKind::GlobalModel, r, kServerNode, kBroadcastId, 0},
                      global,
                      wire,
                      down);
        ParamVector received;
        for (uint32_t k = 0; k < n; ++k)
        {
            Deliver(down, segmentBytes, clientRx[k]);
            bytes += down.size();
            received = PopOne(clientRx[k], MessageKind::GlobalModel, r).params;
        }
        return received;
    };
    std::vector<uint8_t> up;
    link.up = [&](uint32_t r, uint32_t k, const ParamVector& local) {
        EncodeMessage(
            {MessageKind::LocalModel, r, k + 1, kServerNode, static_cast<uint32_t>(task.ClientSamples(k))},
            local,
            wire,
            up);
        Deliver(up, segmentBytes, serverRx[k]);
        bytes += up.size();
        return PopOne(serverRx[k], MessageKind::LocalModel, r).params;
    };
    RoundWallSeries res = TimeFedAvgRounds(task, cfg, link);
    res.bytes = bytes;
    return res;
}

} // namespace fl
} // namespace ns3

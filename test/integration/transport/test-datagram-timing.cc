/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * FlDatagramEndpoint's determinism, configuration errors, retry waits and budgets, delay
 * estimates (RFC 6298), the pace and feedback delay it learns of its peers, hole-policy names,
 * and the rate control behind a bottleneck. Transfers under loss are test-datagram-endpoint.cc.
 */
#include "fl-test-datagram.h"

using namespace ns3;
using namespace ns3::fltest;

namespace
{

struct RunResult
{
    std::vector<uint64_t> a;
    std::vector<uint64_t> b;
    std::vector<int64_t> times;
};

RunResult
LossyRun()
{
    RunResult r;
    {
        const FlDatagramConfig cfg = EndpointConfig(FlHolePolicy::Retransmit);
        TwoNodes net(cfg, cfg, 0.2, 0.2, 61);
        const auto msgs = LossWorkload();
        for (uint32_t i = 0; i < msgs.size(); ++i)
        {
            net.a->Send(net.addrB, i, msgs[i]);
        }
        Simulator::Run();
        r.a = AllCounters(net.a->Stats());
        r.b = AllCounters(net.b->Stats());
        for (const auto& d : net.atB)
        {
            r.times.push_back(d.at.GetTimeStep());
        }
    }
    Simulator::Destroy();
    return r;
}

} // namespace

TEST(FlDatagramEndpoint, SameSetupGivesIdenticalStats)
{
    const RunResult x = LossyRun();
    const RunResult y = LossyRun();
    EXPECT_EQ(x.a, y.a);
    EXPECT_EQ(x.b, y.b);
    EXPECT_EQ(x.times, y.times);
    EXPECT_EQ(x.times.size(), LossWorkload().size());
}

TEST(FlDatagramEndpoint, InvalidConfigurationNamesTheField)
{
    {
        NodeContainer nodes;
        nodes.Create(1);
        InternetStackHelper internet;
        internet.Install(nodes);
        Ptr<Socket> s = TwoNodes::BoundSocket(nodes.Get(0));
        auto expectError = [&s](const FlDatagramConfig& c, const std::string& field) {
            try
            {
                FlDatagramEndpoint ep(s, 1, c);
                ADD_FAILURE() << "no error for " << field;
            }
            catch (const fl::ConfigError& e)
            {
                EXPECT_EQ(e.Parameter(), field);
            }
        };
        FlDatagramConfig c;
        c.mtu = 68;
        expectError(c, "mtu");
        c = FlDatagramConfig();
        c.pacingRate = DataRate(0);
        expectError(c, "pacingRate");
        c = FlDatagramConfig();
        c.reassemblyTimeout = Seconds(0);
        expectError(c, "reassemblyTimeout");
        c = FlDatagramConfig();
        c.congestionTarget = MilliSeconds(-1);
        expectError(c, "congestionTarget");
        c = FlDatagramConfig();
        c.retryLimit = kFlMaxRetryLimit + 1;
        expectError(c, "retryLimit");
        c = FlDatagramConfig();
        c.ackTimeout = MilliSeconds(-1);
        expectError(c, "ackTimeout");
        c = FlDatagramConfig();
        c.maxOpenMessages = 0;
        expectError(c, "maxOpenMessages");
        c = FlDatagramConfig();
        c.holePolicy = static_cast<FlHolePolicy>(9);
        expectError(c, "holePolicy");
        try
        {
            FlDatagramEndpoint ep(nullptr, 1, FlDatagramConfig());
            ADD_FAILURE() << "no error for a null socket";
        }
        catch (const fl::ConfigError& e)
        {
            EXPECT_EQ(e.Parameter(), "socket");
        }
        // A valid one, for contrast.
        FlDatagramEndpoint ok(s, 1, FlDatagramConfig());
        EXPECT_EQ(ok.GetConfig().mtu, 1500u);
        EXPECT_EQ(ok.GetSocket(), s);
    }
    Simulator::Destroy();
}

// FlRetryWait and FlRetryBudget by hand: waits base, base, 2 base, 4 base, ..., at most 64 base.
TEST(FlDatagramEndpoint, RetryWaitsDoubleAfterTheFirstAndStopAt64Timeouts)
{
    const Time base = MilliSeconds(100);
    const int64_t expected[] = {100, 100, 200, 400, 800, 1600, 3200, 6400, 6400, 6400};
    for (uint32_t k = 0; k < 10; ++k)
    {
        EXPECT_EQ(FlRetryWait(base, k), MilliSeconds(expected[k])) << "attempt " << k;
    }
    EXPECT_EQ(FlRetryWait(base, 1000000), MilliSeconds(6400));
    EXPECT_EQ(FlRetryWait(MicroSeconds(3), 4), MicroSeconds(24)); // 2^3 x 3 us
    // the defaults: a receiver NACKs for 3.2 s after its last chunk, a sender probes for 6.4 s
    EXPECT_EQ(FlRetryBudget(base, 5), MilliSeconds(100 + 100 + 200 + 400 + 800 + 1600));
    EXPECT_EQ(FlRetryBudget(MilliSeconds(200), 5), MilliSeconds(6400));
    EXPECT_EQ(FlRetryBudget(base, 0), base);
    // attempts 0 ... 6 wait 1 + 1 + 2 + ... + 32 = 64 timeouts, the 58 attempts 7 ... 64 wait 64
    EXPECT_EQ(FlRetryBudget(base, kFlMaxRetryLimit), MilliSeconds(100 * (64 + 64 * 58)));
}

// A receiver whose NACKs take longer to be answered than its retry budget had without back-off
// (0.4 s each way): it NACKs 0.1 s after the last chunk, the retransmission comes 0.8 s later.
// With NACK rounds 100 ms apart the message was given up 0.6 s after its last chunk; backed off
// (FlRetryWait: NACKs at 0.1, 0.2, 0.4, 0.8 s, the next at 1.6 s) it is still open and
// completes, and the sender's probes, reset by the NACK, never run out.
TEST(FlDatagramEndpoint, RetransmitWaitsForASlowFeedbackPath)
{
    {
        const FlDatagramConfig cfg; // the defaults: retransmit, 100 ms, 200 ms, 5 attempts
        TwoNodes net(cfg, cfg);
        net.devA->GetChannel()->SetAttribute("Delay", TimeValue(MilliSeconds(400)));
        Ptr<ReceiveListErrorModel> em = CreateObject<ReceiveListErrorModel>();
        em->SetList({1}); // the second datagram B receives: chunk 1 of the message
        net.devB->SetReceiveErrorModel(em);
        const Bytes msg = ModelMessage(2500, 9); // 10 KB, 7 chunks
        net.a->Send(net.addrB, 1, msg);
        Simulator::Stop(Seconds(30));
        Simulator::Run();
        ASSERT_EQ(net.atB.size(), 1u);
        EXPECT_EQ(net.atB[0].msg.bytes, *msg);
        EXPECT_GT(net.atB[0].at, Seconds(1.2)); // a round trip after the first NACK
        EXPECT_EQ(net.droppedAtB[0], std::set<uint32_t>{1});
        const FlDatagramStats& sa = net.a->Stats();
        const FlDatagramStats& sb = net.b->Stats();
        EXPECT_EQ(sb.messagesDropped, 0u);
        EXPECT_EQ(sb.chunksLost, 0u);
        EXPECT_EQ(sb.nacksSent, 4u);
        EXPECT_EQ(sa.messagesAcked, 1u);
        EXPECT_EQ(sa.messagesUnacked, 0u);
        EXPECT_GE(sa.chunksRetransmitted, 1u);
    }
    Simulator::Destroy();
}

// RFC 6298's smoothing by hand: samples 0.1 s, then 0.3 s.
TEST(FlDatagramEndpoint, DelayEstimateFollowsRfc6298)
{
    FlDelayEstimate e;
    EXPECT_FALSE(e.valid);
    EXPECT_EQ(e.Timeout(), 0.0);
    e.Add(0.1);
    EXPECT_NEAR(e.smoothed, 0.1, 1e-12);
    EXPECT_NEAR(e.variation, 0.05, 1e-12);
    EXPECT_NEAR(e.Timeout(), 0.3, 1e-12);
    e.Add(0.3);
    // variation = 3/4 0.05 + 1/4 |0.1 - 0.3| = 0.0875; smoothed = 7/8 0.1 + 1/8 0.3 = 0.125
    EXPECT_NEAR(e.variation, 0.0875, 1e-12);
    EXPECT_NEAR(e.smoothed, 0.125, 1e-12);
    EXPECT_NEAR(e.Timeout(), 0.475, 1e-12);
}

// A slow link (64 kb/s: a chunk every 0.18 s, longer than the 100 ms reassembly timeout). With a
// fixed timeout the receiver NACKed chunks still on their way between every two chunks of every
// message and the sender sent them twice; it now learns the peer's pace from the gaps between
// first transmissions (FlDelayEstimate) after the first two chunks, and only the first message
// sees a NACK round. The sender's ACK timeout is set above a message's time on the link.
TEST(FlDatagramEndpoint, RetransmitReceiverLearnsASlowPeersPace)
{
    {
        FlDatagramConfig cfg; // retransmit, 100 ms reassembly timeout
        cfg.ackTimeout = Seconds(5);
        TwoNodes net(cfg, cfg);
        net.devA->SetAttribute("DataRate", StringValue("64kb/s"));
        net.devB->SetAttribute("DataRate", StringValue("64kb/s"));
        std::vector<Bytes> msgs;
        for (uint32_t i = 0; i < 3; ++i)
        {
            msgs.push_back(ModelMessage(1500, 30 + i)); // 6 KB, 5 chunks
        }
        // one message after the other: each is sent when the previous one was delivered
        for (uint32_t i = 0; i < msgs.size(); ++i)
        {
            FlSchedule(Seconds(10.0 * i),
                       [&net, &msgs, i]() { net.a->Send(net.addrB, i, msgs[i]); });
        }
        Simulator::Stop(Seconds(60));
        Simulator::Run();
        ASSERT_EQ(net.atB.size(), msgs.size());
        for (const auto& d : net.atB)
        {
            EXPECT_EQ(d.msg.bytes, *msgs[d.msg.round]);
        }
        const FlDatagramStats& sb = net.b->Stats();
        const FlDatagramStats& sa = net.a->Stats();
        EXPECT_EQ(sb.messagesDropped, 0u);
        EXPECT_EQ(sb.nacksSent, 1u); // the first message, before its second chunk came
        EXPECT_EQ(net.nacksAtA.size(), 1u);
        EXPECT_EQ(sa.probes, 0u);
        EXPECT_LE(sa.chunksRetransmitted, 4u); // what that one NACK asked for
    }
    Simulator::Destroy();
}

// A sender whose messages are acknowledged 0.6 s after they left (0.3 s each way; the ACK
// timeout is 200 ms): the first message is probed twice before its ACK (ambiguous, no sample:
// Karn's rule), so the next one waits 4 x 200 ms, is acknowledged unprobed and gives the first
// sample (0.6 s: the timeout becomes 0.6 + 4 x 0.3 = 1.8 s); no later message is probed. With
// a fixed timeout every message was probed twice.
TEST(FlDatagramEndpoint, RetransmitSenderLearnsItsPeersFeedbackDelay)
{
    {
        const FlDatagramConfig cfg; // the defaults
        TwoNodes net(cfg, cfg);
        net.devA->GetChannel()->SetAttribute("Delay", TimeValue(MilliSeconds(300)));
        std::vector<Bytes> msgs;
        for (uint32_t i = 0; i < 4; ++i)
        {
            msgs.push_back(RawMessage(1000, 40 + i)); // one chunk each
            FlSchedule(Seconds(10.0 * i),
                       [&net, &msgs, i]() { net.a->Send(net.addrB, i, msgs[i]); });
        }
        Simulator::Stop(Seconds(60));
        Simulator::Run();
        ASSERT_EQ(net.atB.size(), msgs.size());
        const FlDatagramStats& sa = net.a->Stats();
        EXPECT_EQ(sa.messagesAcked, msgs.size());
        EXPECT_EQ(sa.probes, 2u);
        EXPECT_EQ(sa.messagesUnacked, 0u);
    }
    Simulator::Destroy();
}

TEST(FlDatagramEndpoint, HolePolicyNames)
{
    for (FlHolePolicy p :
         {FlHolePolicy::Drop, FlHolePolicy::KeepPrevious, FlHolePolicy::Retransmit})
    {
        EXPECT_EQ(ParseFlHolePolicy(FlHolePolicyName(p), "HolePolicy"), p);
    }
    EXPECT_STREQ(FlHolePolicyName(FlHolePolicy::KeepPrevious), "keep-previous");
    try
    {
        ParseFlHolePolicy("resend", "HolePolicy");
        ADD_FAILURE() << "no error";
    }
    catch (const fl::ConfigError& e)
    {
        EXPECT_EQ(e.Parameter(), "HolePolicy");
        EXPECT_NE(std::string(e.what()).find("keep-previous"), std::string::npos);
    }
}

// keep-previous, 20 % loss: a message the receiver has nothing to fill holes from (a client's
// first global model) is completed by NACKs and retransmissions, never delivered with holes;
// with a base it is delivered with holes and nothing is retransmitted. The chunk tallies count
// exactly the first transmissions lost.
TEST(FlDatagramEndpoint, KeepPreviousCompletesAMessageWithoutBaseByRetransmission)
{
    for (bool canFill : {false, true})
    {
        SCOPED_TRACE(canFill ? "with base" : "without base");
        const FlDatagramConfig cfg = EndpointConfig(FlHolePolicy::KeepPrevious);
        TwoNodes net(cfg, cfg, 0.2);
        net.b->SetCanFillHolesCallback([canFill](uint32_t sender, uint32_t round) {
            EXPECT_EQ(sender, kIdA);
            EXPECT_EQ(round, 3u);
            return canFill;
        });
        const Bytes msg = ModelMessage(12000, 5);
        const uint32_t count = fl::ChunkCount(msg->size(), fl::MaxChunkPayloadForMtu(cfg.mtu));
        net.a->Send(net.addrB, 3, msg);
        Simulator::Stop(Seconds(30));
        Simulator::Run();
        ASSERT_EQ(net.droppedAtB.size(), 1u);
        const std::size_t dropped = net.droppedAtB.begin()->second.size();
        ASSERT_GT(dropped, 0u);
        ASSERT_EQ(net.atB.size(), 1u);
        const FlDatagramStats& sa = net.a->Stats();
        const FlDatagramStats& sb = net.b->Stats();
        const auto sent = net.a->ChunkTallies(3);
        ASSERT_EQ(sent.count(FlDatagramEndpoint::kUnknownPeer), 1u); // B sent no chunk
        EXPECT_EQ(sent.at(FlDatagramEndpoint::kUnknownPeer).sent, count);
        const uint64_t received = net.b->ChunkTallies(3).at(kIdA).received;
        if (!canFill)
        {
            EXPECT_TRUE(net.atB[0].msg.complete);
            EXPECT_EQ(net.atB[0].msg.bytes, *msg);
            EXPECT_GT(sb.nacksSent, 0u);
            EXPECT_GE(sa.chunksRetransmitted, dropped);
            EXPECT_EQ(sb.messagesPartial + sb.chunksLost, 0u);
            EXPECT_EQ(received, count);
        }
        else
        {
            EXPECT_FALSE(net.atB[0].msg.complete);
            EXPECT_EQ(net.atB[0].msg.chunksMissing, dropped);
            EXPECT_EQ(sb.nacksSent + sa.chunksRetransmitted, 0u);
            EXPECT_EQ(received, count - dropped);
        }
        Simulator::Destroy();
    }
}

// FlCongestionRate by hand: target 0.1 s, rates 0.1 ... 20 (any unit), gain 1/8.
TEST(FlDatagramEndpoint, CongestionRateIncreasesAdditivelyAndDecreasesMultiplicatively)
{
    EXPECT_EQ(kFlRateGain, 0.125);
    // below the target: + 1/8 x (0.1 - q) / 0.1 x 20
    EXPECT_NEAR(FlCongestionRate(10.0, 0.0, 0.1, 0.1, 20.0), 12.5, 1e-12);
    EXPECT_NEAR(FlCongestionRate(10.0, 0.05, 0.1, 0.1, 20.0), 11.25, 1e-12);
    EXPECT_NEAR(FlCongestionRate(10.0, 0.1, 0.1, 0.1, 20.0), 10.0, 1e-12);   // at the target
    EXPECT_NEAR(FlCongestionRate(10.0, -0.02, 0.1, 0.1, 20.0), 12.5, 1e-12); // as 0
    EXPECT_NEAR(FlCongestionRate(19.0, 0.0, 0.1, 0.1, 20.0), 20.0, 1e-12);   // at most max
    // above it: x max(1/2, 0.1 / q)
    EXPECT_NEAR(FlCongestionRate(10.0, 0.125, 0.1, 0.1, 20.0), 8.0, 1e-12);
    EXPECT_NEAR(FlCongestionRate(10.0, 0.16, 0.1, 0.1, 20.0), 6.25, 1e-12);
    EXPECT_NEAR(FlCongestionRate(10.0, 0.2, 0.1, 0.1, 20.0), 5.0, 1e-12);
    EXPECT_NEAR(FlCongestionRate(10.0, 0.4, 0.1, 0.1, 20.0), 5.0, 1e-12);  // at most halved
    EXPECT_NEAR(FlCongestionRate(0.15, 20.0, 0.1, 0.1, 20.0), 0.1, 1e-12); // at least min
    EXPECT_NEAR(FlCongestionRate(1.0, 2.0, 0.1, 0.75, 20.0), 0.75, 1e-12);
}

namespace
{

/// Rounds of the bottleneck test.
constexpr uint32_t kBottleneckRounds = 6;

/// What one run of the bottleneck test measured.
struct BottleneckRun
{
    FlDatagramStats a;
    FlDatagramStats b;
    std::size_t delivered{0};
    Time last;      ///< the last delivery
    double rate{0}; ///< A's sending rate at the end [bit/s]
    bool intact{true};
};

/**
 * A sender paced at 20 Mb/s behind a 2 Mb/s link (ns-3's 100-packet device queue): three rounds
 * 5 s apart of ten 40 KB messages at once, as a server sends its model to every client of a
 * round.
 */
BottleneckRun
RunBottleneck(Time congestionTarget)
{
    BottleneckRun r;
    {
        FlDatagramConfig cfg; // the defaults: retransmit, 20 Mb/s, 100 ms, 200 ms, 5 attempts
        cfg.congestionTarget = congestionTarget;
        TwoNodes net(cfg, cfg);
        net.devA->SetAttribute("DataRate", StringValue("2Mb/s"));
        std::vector<Bytes> msgs;
        for (uint32_t i = 0; i < 10 * kBottleneckRounds; ++i)
        {
            msgs.push_back(ModelMessage(10000, 60 + i)); // 40 KB, 28 chunks
        }
        // a first small exchange gives the base delay, as a client's join does
        net.a->Send(net.addrB, 0, RawMessage(100, 59));
        for (uint32_t round = 0; round < kBottleneckRounds; ++round)
        {
            FlSchedule(Seconds(1 + 5.0 * round), [&net, &msgs, round]() {
                for (uint32_t i = 10 * round; i < 10 * round + 10; ++i)
                {
                    net.a->Send(net.addrB, 1 + i, msgs[i]);
                }
            });
        }
        Simulator::Stop(Seconds(60));
        Simulator::Run();
        r.a = net.a->Stats();
        r.b = net.b->Stats();
        r.delivered = net.atB.size();
        r.last = net.atB.empty() ? Time() : net.atB.back().at;
        r.rate = net.a->SendingRate();
        for (const auto& d : net.atB)
        {
            if (d.msg.round > 0 && d.msg.bytes != *msgs[d.msg.round - 1])
            {
                r.intact = false;
            }
        }
    }
    Simulator::Destroy();
    return r;
}

} // namespace

// The fixed-rate sender overruns the bottleneck in every round: the device queue drops most of
// each burst, the receiver NACKs, the retransmissions overrun it again (about 50 chunks sent
// again per round). With the delay-based rate control the first rounds are alike (nothing
// is known before the first feedback), then the sender keeps its rate about the bottleneck's
// and later rounds need next to no retransmission: 333 chunks sent again in all at a fixed
// rate, 152 with the control; the last message arrives at the same time (27.8 s).
TEST(FlDatagramEndpoint, RateControlBacksOffBehindABottleneck)
{
    EXPECT_TRUE(FlDatagramConfig().congestionTarget.IsZero()); // off unless asked for
    const BottleneckRun off = RunBottleneck(Time());
    const BottleneckRun on = RunBottleneck(MilliSeconds(100));
    std::cout << "fixed rate: " << off.a.chunksRetransmitted << " chunks retransmitted ("
              << off.a.probes << " probes), last delivery " << off.last.GetSeconds()
              << " s; rate control: " << on.a.chunksRetransmitted << " (" << on.a.probes
              << " probes), " << on.last.GetSeconds() << " s, " << on.a.rateDecreases
              << " decreases, rate at the end " << on.rate << " b/s" << std::endl;
    EXPECT_EQ(off.delivered, 1u + 10 * kBottleneckRounds);
    EXPECT_EQ(on.delivered, 1u + 10 * kBottleneckRounds);
    EXPECT_TRUE(off.intact);
    EXPECT_TRUE(on.intact);
    EXPECT_EQ(off.a.rateDecreases, 0u);
    EXPECT_EQ(off.rate, 20e6);
    EXPECT_GE(on.a.rateDecreases, 1u);
    EXPECT_LT(on.rate, 20e6);
    EXPECT_LT(2 * on.a.chunksRetransmitted, off.a.chunksRetransmitted);
    EXPECT_LT(on.last, off.last + MilliSeconds(100));
}

// A message whose last chunks are lost: the receiver's NACK leaves the reassembly timeout
// (100 ms) after the last chunk it got, chunk 39 of 112, which left about 41 ms before the last
// one (20 Mb/s pacing, 1.5 KB chunks). Timed from the message's last datagram, the NACK would
// come back sooner than the timeout allows (a negative delay); timed from chunk 39, its delay is
// the path's round trip: 2 x 2 ms propagation, 0.12 ms for the chunk and 0.01 ms for the NACK at
// 100 Mb/s, and that is the base delay before any ACK came (at 150 ms the retransmissions are
// still under way: the ACK comes at about 175 ms).
TEST(FlDatagramEndpoint, RateControlTimesANackFromTheLastChunkThatArrived)
{
    {
        FlDatagramConfig cfg;
        cfg.congestionTarget = MilliSeconds(100);
        TwoNodes net(cfg, cfg);
        Ptr<ReceiveListErrorModel> em = CreateObject<ReceiveListErrorModel>();
        std::list<uint32_t> tail(72);
        std::iota(tail.begin(), tail.end(), 40u); // the 41st ... 112th datagram B receives
        em->SetList(tail);
        net.devB->SetReceiveErrorModel(em);
        const Bytes msg = ModelMessage(40000, 5); // 160 KB, 112 chunks
        net.a->Send(net.addrB, 1, msg);
        Simulator::Stop(MilliSeconds(150));
        Simulator::Run();
        ASSERT_EQ(net.nacksAtA.size(), 1u);
        EXPECT_EQ(net.nacksAtA[0].missing.front(), 40u);
        EXPECT_EQ(net.nacksAtA[0].missing.size(), 72u);
        EXPECT_EQ(net.droppedAtB[0].size(), 72u);
        EXPECT_TRUE(net.atB.empty());
        EXPECT_GE(net.a->BaseDelay(), 4.13e-3);
        EXPECT_LE(net.a->BaseDelay(), 4.3e-3);
        EXPECT_EQ(net.a->Stats().rateDecreases, 0u); // no queue: nothing to slow down for
    }
    Simulator::Destroy();
}

/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * FlDatagramEndpoint over simulated links: lossless transfers (byte-identical, in order, exact
 * counters, paced timing), 20 % packet loss under each hole policy (selective retransmission,
 * drop, keep previous values), loss of feedback, 50 % loss (NACKs split over datagrams), queue
 * priorities, one shared buffer to several peers over a LAN, eviction of open messages, garbage
 * datagrams, flushing, discarding, closing. Determinism, configuration, timers and rate control
 * are test-datagram-timing.cc.
 */
#include "fl-test-datagram.h"

using namespace ns3;
using namespace ns3::fltest;


// ----------------------------------------------------------------------------------- lossless

TEST(FlDatagramEndpoint, LosslessTransfersArriveWholeInOrderPacedWithExactCounters)
{
    {
        const FlDatagramConfig cfg = EndpointConfig(FlHolePolicy::Retransmit);
        TwoNodes net(cfg, cfg);
        const std::vector<Bytes> msgs = {ModelMessage(0, 1),
                                         RawMessage(0, 2),
                                         ModelMessage(1, 3),
                                         ModelMessage(300000, 4), // 1.2 MB
                                         ModelMessage(10000, 5),
                                         RawMessage(1432, 6),
                                         RawMessage(1433, 7)};
        const std::size_t maxPayload = fl::MaxChunkPayloadForMtu(cfg.mtu);
        uint64_t chunks = 0;
        uint64_t wireBytes = 0;
        std::vector<uint32_t> ids;
        for (uint32_t i = 0; i < msgs.size(); ++i)
        {
            ids.push_back(net.a->Send(net.addrB, 100 + i, msgs[i]));
            chunks += fl::ChunkCount(msgs[i]->size(), maxPayload);
            wireBytes += ChunkBytes(msgs[i]->size(), maxPayload);
        }
        EXPECT_EQ(net.a->BytesQueued(), wireBytes);
        EXPECT_EQ(std::set<uint32_t>(ids.begin(), ids.end()).size(), msgs.size());
        Simulator::Stop(Seconds(30));
        Simulator::Run();

        ASSERT_EQ(net.atB.size(), msgs.size());
        // Paced sending: datagram k leaves at the sum of the pacing intervals of datagrams
        // 0..k-1, (bytes + 28) x 8 / rate each; message i completes when its last chunk
        // arrives, one link transmission (+2 PPP bytes) and 2 ms of propagation later.
        Time paced;
        const DataRate link("100Mb/s");
        for (uint32_t i = 0; i < msgs.size(); ++i)
        {
            const std::size_t len = msgs[i]->size();
            const uint32_t count = fl::ChunkCount(len, maxPayload);
            for (uint32_t k = 0; k + 1 < count; ++k)
            {
                std::vector<uint8_t> c;
                fl::MakeChunk(msgs[i]->data(), len, 0, kIdA, 0, maxPayload, k, 0, c);
                paced += cfg.pacingRate.CalculateBytesTxTime(static_cast<uint32_t>(c.size() + 28));
            }
            std::vector<uint8_t> last;
            fl::MakeChunk(msgs[i]->data(), len, 0, kIdA, 0, maxPayload, count - 1, 0, last);
            const Time arrival =
                paced + link.CalculateBytesTxTime(static_cast<uint32_t>(last.size() + 28 + 2)) +
                MilliSeconds(2);
            paced += cfg.pacingRate.CalculateBytesTxTime(static_cast<uint32_t>(last.size() + 28));

            const Delivery& d = net.atB[i];
            EXPECT_GE(d.at, arrival) << "message " << i;
            EXPECT_LE(d.at, arrival + MicroSeconds(1)) << "message " << i;
            EXPECT_EQ(d.msg.bytes, *msgs[i]) << "message " << i;
            EXPECT_TRUE(d.msg.complete);
            EXPECT_EQ(d.msg.sender, kIdA);
            EXPECT_EQ(d.msg.round, 100 + i);
            EXPECT_EQ(d.msg.chunkCount, count);
            EXPECT_EQ(d.msg.chunksMissing, 0u);
            EXPECT_EQ(d.msg.from, net.addrA);
            if (len > 0)
            {
                ASSERT_EQ(d.msg.receivedBytes.size(), 1u);
                EXPECT_EQ(d.msg.receivedBytes[0], (fl::IndexRange{0, len}));
            }
            else
            {
                EXPECT_TRUE(d.msg.receivedBytes.empty());
            }
        }
        // The 1.2 MB message takes about 0.5 s at 20 Mb/s.
        EXPECT_GT(net.atB.back().at, Seconds(0.49));
        EXPECT_TRUE(net.atA.empty());

        const FlDatagramStats& sa = net.a->Stats();
        const FlDatagramStats& sb = net.b->Stats();
        const uint64_t m = msgs.size();
        EXPECT_EQ(sa.messagesSent, m);
        EXPECT_EQ(sa.chunksSent, chunks);
        EXPECT_EQ(sa.chunksRetransmitted, 0u);
        EXPECT_EQ(sa.probes, 0u);
        EXPECT_EQ(sa.datagramsSent, chunks);
        EXPECT_EQ(sa.bytesSent, wireBytes);
        EXPECT_EQ(sa.messagesAcked, m);
        EXPECT_EQ(sa.messagesUnacked, 0u);
        EXPECT_EQ(sa.sendErrors, 0u);
        EXPECT_EQ(sa.datagramsReceived, m);
        EXPECT_EQ(sa.feedbackReceived, m);
        EXPECT_EQ(sa.acksSent + sa.nacksSent, 0u);
        EXPECT_EQ(net.a->BytesQueued(), 0u);

        EXPECT_EQ(sb.datagramsReceived, chunks);
        EXPECT_EQ(sb.bytesReceived, wireBytes);
        EXPECT_EQ(sb.chunksAccepted, chunks);
        EXPECT_EQ(sb.chunksDuplicate + sb.chunksLate + sb.chunksMalformed, 0u);
        EXPECT_EQ(sb.messagesDelivered, m);
        EXPECT_EQ(sb.messagesPartial + sb.messagesDropped + sb.chunksLost, 0u);
        EXPECT_EQ(sb.acksSent, m);
        EXPECT_EQ(sb.nacksSent, 0u);
        EXPECT_EQ(sb.datagramsSent, m);
        EXPECT_EQ(sb.bytesSent, m * fl::ChunkFeedback::kMinSize);
        ExpectReceiveCountersAddUp(sa);
        ExpectReceiveCountersAddUp(sb);
    }
    Simulator::Destroy();
}

TEST(FlDatagramEndpoint, BothDirectionsAndSeveralPoliciesWithoutLoss)
{
    for (FlHolePolicy policy :
         {FlHolePolicy::Drop, FlHolePolicy::KeepPrevious, FlHolePolicy::Retransmit})
    {
        {
            const FlDatagramConfig cfg = EndpointConfig(policy);
            TwoNodes net(cfg, cfg);
            const Bytes ab = ModelMessage(20000, 1);
            const Bytes ba = ModelMessage(30000, 2);
            net.a->Send(net.addrB, 1, ab);
            net.b->Send(net.addrA, 1, ba);
            net.a->Send(net.addrB, 2, ba);
            Simulator::Run();
            ASSERT_EQ(net.atB.size(), 2u) << FlHolePolicyName(policy);
            ASSERT_EQ(net.atA.size(), 1u);
            EXPECT_EQ(net.atB[0].msg.bytes, *ab);
            EXPECT_EQ(net.atB[1].msg.bytes, *ba);
            EXPECT_EQ(net.atA[0].msg.bytes, *ba);
            EXPECT_EQ(net.atA[0].msg.sender, kIdB);
            const bool acks = policy == FlHolePolicy::Retransmit;
            EXPECT_EQ(net.a->Stats().messagesAcked, acks ? 2u : 0u);
            EXPECT_EQ(net.b->Stats().messagesAcked, acks ? 1u : 0u);
            EXPECT_EQ(net.b->Stats().acksSent, acks ? 2u : 0u);
        }
        Simulator::Destroy();
    }
}

// ------------------------------------------------------------------------------------- loss

TEST(FlDatagramEndpoint, RetransmitDeliversEverythingUnderLoss)
{
    {
        const FlDatagramConfig cfg = EndpointConfig(FlHolePolicy::Retransmit);
        TwoNodes net(cfg, cfg, 0.2, 0.0, 11);
        const auto msgs = LossWorkload();
        const std::size_t maxPayload = fl::MaxChunkPayloadForMtu(cfg.mtu);
        uint64_t chunks = 0;
        for (uint32_t i = 0; i < msgs.size(); ++i)
        {
            net.a->Send(net.addrB, i, msgs[i]);
            chunks += fl::ChunkCount(msgs[i]->size(), maxPayload);
        }
        Simulator::Stop(Seconds(60));
        Simulator::Run();
        ASSERT_EQ(net.atB.size(), msgs.size());
        std::set<uint32_t> rounds;
        for (const auto& d : net.atB)
        {
            ASSERT_LT(d.msg.round, msgs.size());
            EXPECT_TRUE(d.msg.complete);
            EXPECT_EQ(d.msg.bytes, *msgs[d.msg.round]) << "message " << d.msg.round;
            rounds.insert(d.msg.round);
        }
        EXPECT_EQ(rounds.size(), msgs.size());
        const FlDatagramStats& sa = net.a->Stats();
        const FlDatagramStats& sb = net.b->Stats();
        EXPECT_GT(sa.chunksRetransmitted, 0u);
        EXPECT_EQ(sa.messagesAcked, msgs.size());
        EXPECT_EQ(sa.messagesUnacked, 0u);
        EXPECT_EQ(sa.chunksSent, chunks);
        EXPECT_GT(sb.nacksSent, 0u);
        EXPECT_EQ(sb.chunksAccepted, chunks); // every chunk exactly once
        EXPECT_EQ(sb.messagesDelivered, msgs.size());
        EXPECT_EQ(sb.messagesDropped + sb.chunksLost + sb.chunksMalformed, 0u);
        EXPECT_EQ(net.a->BytesQueued(), 0u);
        ExpectReceiveCountersAddUp(sa);
        ExpectReceiveCountersAddUp(sb);
        std::cout << "[ info ] 20% loss: " << sa.chunksSent << " chunks, " << sa.chunksRetransmitted
                  << " retransmitted (" << sa.probes << " probes), " << sb.nacksSent
                  << " NACKs; last delivery at " << net.atB.back().at.GetSeconds() << " s"
                  << std::endl;
    }
    Simulator::Destroy();
}

TEST(FlDatagramEndpoint, RetransmitSurvivesLossOfFeedbackToo)
{
    // Several loss patterns (streams); 20 % loss in both directions.
    uint64_t probes = 0;
    uint64_t late = 0;
    for (int64_t stream : {21, 23, 25, 27, 29})
    {
        {
            const FlDatagramConfig cfg = EndpointConfig(FlHolePolicy::Retransmit);
            TwoNodes net(cfg, cfg, 0.2, 0.2, stream);
            const auto msgs = LossWorkload();
            for (uint32_t i = 0; i < msgs.size(); ++i)
            {
                net.a->Send(net.addrB, i, msgs[i]);
            }
            Simulator::Stop(Seconds(60));
            Simulator::Run();
            ASSERT_EQ(net.atB.size(), msgs.size()) << "stream " << stream;
            for (const auto& d : net.atB)
            {
                EXPECT_EQ(d.msg.bytes, *msgs[d.msg.round]) << "message " << d.msg.round;
            }
            const FlDatagramStats& sa = net.a->Stats();
            const FlDatagramStats& sb = net.b->Stats();
            EXPECT_EQ(sa.messagesAcked, msgs.size()) << "stream " << stream;
            EXPECT_EQ(sa.messagesUnacked, 0u);
            EXPECT_GT(sa.chunksRetransmitted, 0u);
            EXPECT_GE(sb.acksSent, msgs.size());
            EXPECT_EQ(net.a->BytesQueued(), 0u);
            ExpectReceiveCountersAddUp(sa);
            ExpectReceiveCountersAddUp(sb);
            probes += sa.probes;
            late += sb.chunksLate;
        }
        Simulator::Destroy();
    }
    // Lost ACKs were repaired: probes answered by a new ACK of a message already delivered.
    EXPECT_GT(probes, 0u);
    EXPECT_GT(late, 0u);
}

TEST(FlDatagramEndpoint, FeedbackAndRetransmissionsGoAheadOfFirstTransmissions)
{
    {
        const FlDatagramConfig cfg = EndpointConfig(FlHolePolicy::Retransmit);
        TwoNodes net(cfg, cfg, 0.2, 0.0, 81);
        const Bytes small = RawMessage(200000, 1);
        const Bytes big = RawMessage(1200000, 2); // about 0.5 s of first transmissions
        net.a->Send(net.addrB, 0, small);
        net.a->Send(net.addrB, 1, big);
        // B is busy sending its own big message when A's chunks arrive: its ACKs and NACKs
        // jump the queue.
        const Bytes fromB = RawMessage(1200000, 3);
        net.b->Send(net.addrA, 0, fromB);
        uint64_t ackedAtHalfSecond = 0;
        uint64_t queuedAtBAtHalfSecond = 0;
        FlSchedule(Seconds(0.5), [&]() {
            ackedAtHalfSecond = net.a->Stats().messagesAcked;
            queuedAtBAtHalfSecond = net.b->BytesQueued();
        });
        Simulator::Run();
        ASSERT_EQ(net.atB.size(), 2u);
        ASSERT_EQ(net.atA.size(), 1u);
        const Delivery& first = net.atB[0];
        EXPECT_EQ(first.msg.round, 0u);
        EXPECT_EQ(first.msg.bytes, *small);
        EXPECT_EQ(net.atB[1].msg.bytes, *big);
        // First transmissions alone keep A busy until about 0.58 s.
        const std::size_t maxPayload = fl::MaxChunkPayloadForMtu(cfg.mtu);
        const uint64_t chunks =
            fl::ChunkCount(small->size(), maxPayload) + fl::ChunkCount(big->size(), maxPayload);
        const uint64_t ipBytes = ChunkBytes(small->size(), maxPayload) +
                                 ChunkBytes(big->size(), maxPayload) + 28 * chunks;
        const Time firstTransmissionsEnd =
            Seconds(static_cast<double>(ipBytes) * 8 / cfg.pacingRate.GetBitRate());
        // The small message's holes were NACKed reassemblyTimeout after its last chunk
        // (~0.18 s) and repaired in a few rounds before that: retransmissions went first.
        EXPECT_LT(first.at, firstTransmissionsEnd - MilliSeconds(100));
        // B acknowledged it while its own big message was still queued: feedback went first.
        EXPECT_GT(queuedAtBAtHalfSecond, 0u);
        EXPECT_GE(ackedAtHalfSecond, 1u);
        EXPECT_GT(net.atA[0].at, Seconds(0.5));
        EXPECT_GT(net.a->Stats().chunksRetransmitted, 0u);
        EXPECT_EQ(net.a->Stats().messagesAcked, 2u);
    }
    Simulator::Destroy();
}

TEST(FlDatagramEndpoint, HeavyLossNeedsSeveralNackDatagramsPerRound)
{
    {
        const FlDatagramConfig cfg = EndpointConfig(FlHolePolicy::Retransmit, 30);
        TwoNodes net(cfg, cfg, 0.5, 0.0, 71);
        const Bytes big = ModelMessage(300000, 9); // 1.2 MB, 839 chunks
        net.a->Send(net.addrB, 1, big);
        Simulator::Run();
        ASSERT_EQ(net.atB.size(), 1u);
        EXPECT_EQ(net.atB[0].msg.bytes, *big);
        EXPECT_EQ(net.a->Stats().messagesAcked, 1u);
        // The first NACK round lists ~420 chunks: more than one datagram holds (361 for a
        // 1500-byte MTU), so it is split; every NACK fits one datagram.
        const std::size_t maxIdx = fl::MaxNackIndices(1500 - 28);
        ASSERT_FALSE(net.nacksAtA.empty());
        EXPECT_EQ(net.nacksAtA[0].missing.size(), maxIdx);
        EXPECT_EQ(net.nacksAtA[1].messageId, net.nacksAtA[0].messageId);
        EXPECT_GT(net.nacksAtA[1].missing.front(), net.nacksAtA[0].missing.back());
        uint64_t requested = 0;
        for (const auto& n : net.nacksAtA)
        {
            EXPECT_LE(n.missing.size(), maxIdx);
            EXPECT_EQ(n.sender, kIdA);
            requested += n.missing.size();
        }
        EXPECT_EQ(net.nacksAtA.size(), net.b->Stats().nacksSent); // no loss towards A
        EXPECT_EQ(net.a->Stats().chunksRetransmitted - net.a->Stats().probes, requested);
        std::cout << "[ info ] 50% loss, 1.2 MB: " << net.b->Stats().nacksSent << " NACKs, "
                  << net.a->Stats().chunksRetransmitted << " chunks re-sent, delivered at "
                  << net.atB[0].at.GetSeconds() << " s" << std::endl;
    }
    Simulator::Destroy();
}

TEST(FlDatagramEndpoint, DropDeliversOnlyCompleteMessagesAndCountsTheRest)
{
    {
        const FlDatagramConfig cfg = EndpointConfig(FlHolePolicy::Drop);
        TwoNodes net(cfg, cfg, 0.2, 0.0, 31);
        const auto msgs = LossWorkload();
        const std::size_t maxPayload = fl::MaxChunkPayloadForMtu(cfg.mtu);
        std::vector<uint32_t> ids;
        for (uint32_t i = 0; i < msgs.size(); ++i)
        {
            ids.push_back(net.a->Send(net.addrB, i, msgs[i]));
        }
        Simulator::Run();
        // Expected outcome per message, from the chunks B's error model dropped.
        std::set<uint32_t> expectComplete;
        uint64_t expectDropped = 0;
        uint64_t expectLost = 0;
        for (uint32_t i = 0; i < msgs.size(); ++i)
        {
            const uint32_t count = fl::ChunkCount(msgs[i]->size(), maxPayload);
            const auto it = net.droppedAtB.find(ids[i]);
            const auto lost =
                static_cast<uint32_t>(it == net.droppedAtB.end() ? 0 : it->second.size());
            if (lost == 0)
            {
                expectComplete.insert(i);
            }
            else if (lost < count)
            {
                ++expectDropped;
                expectLost += lost;
            }
        }
        ASSERT_GT(expectDropped, 0u);
        ASSERT_GT(expectComplete.size(), 0u);
        std::set<uint32_t> got;
        for (const auto& d : net.atB)
        {
            EXPECT_TRUE(d.msg.complete);
            EXPECT_EQ(d.msg.bytes, *msgs[d.msg.round]);
            got.insert(d.msg.round);
        }
        EXPECT_EQ(got, expectComplete);
        const FlDatagramStats& sb = net.b->Stats();
        EXPECT_EQ(sb.messagesDelivered, expectComplete.size());
        EXPECT_EQ(sb.messagesDropped, expectDropped);
        EXPECT_EQ(sb.chunksLost, expectLost);
        EXPECT_EQ(sb.messagesPartial, 0u);
        EXPECT_EQ(sb.datagramsSent, 0u); // no feedback without Retransmit
        EXPECT_EQ(net.a->Stats().chunksRetransmitted, 0u);
        EXPECT_EQ(net.a->Stats().datagramsReceived, 0u);
        ExpectReceiveCountersAddUp(sb);
    }
    Simulator::Destroy();
}

// The give-up callback reports exactly the messages the endpoint gave up by itself: a sender's
// unacknowledged ones (retransmit, every datagram to B lost), with their round and their shared
// bytes; a receiver's incomplete ones (drop, 20 % loss), with the sender's address and id; and
// nothing for what the application discarded itself.
TEST(FlDatagramEndpoint, GiveUpCallbackReportsWhatTheEndpointGaveUpByItself)
{
    {
        const FlDatagramConfig cfg = EndpointConfig(FlHolePolicy::Retransmit, 3);
        TwoNodes net(cfg, cfg, 1.0);
        std::vector<FlGivenUpMessage> atA;
        std::vector<FlGivenUpMessage> atB;
        net.a->SetGiveUpCallback([&atA](const FlGivenUpMessage& g) { atA.push_back(g); });
        net.b->SetGiveUpCallback([&atB](const FlGivenUpMessage& g) { atB.push_back(g); });
        const Bytes first = RawMessage(20000, 1);
        const Bytes second = RawMessage(100, 2);
        net.a->Send(net.addrB, 3, first);
        net.a->Send(net.addrB, 4, second);
        Simulator::Run();
        ASSERT_EQ(atA.size(), 2u);
        EXPECT_EQ(net.a->Stats().messagesUnacked, 2u);
        for (const auto& g : atA)
        {
            EXPECT_TRUE(g.outgoing);
            EXPECT_EQ(g.peer, net.addrB);
            EXPECT_EQ(g.peerId, 0u);
            EXPECT_EQ(g.bytes.get(), g.round == 3 ? first.get() : second.get()); // not copied
        }
        EXPECT_EQ(atA[0].round + atA[1].round, 7u);
        EXPECT_TRUE(atB.empty()); // B heard nothing
    }
    Simulator::Destroy();
    {
        const FlDatagramConfig cfg = EndpointConfig(FlHolePolicy::Drop);
        TwoNodes net(cfg, cfg, 0.2, 0.0, 31);
        std::vector<FlGivenUpMessage> atB;
        net.b->SetGiveUpCallback([&atB](const FlGivenUpMessage& g) { atB.push_back(g); });
        const auto msgs = LossWorkload();
        for (uint32_t i = 0; i < msgs.size(); ++i)
        {
            net.a->Send(net.addrB, i, msgs[i]);
        }
        Simulator::Run();
        ASSERT_GT(net.b->Stats().messagesDropped, 0u);
        EXPECT_EQ(atB.size(), net.b->Stats().messagesDropped);
        std::set<uint32_t> delivered;
        for (const auto& d : net.atB)
        {
            delivered.insert(d.msg.round);
        }
        for (const auto& g : atB)
        {
            EXPECT_FALSE(g.outgoing);
            EXPECT_EQ(g.peer, net.addrA);
            EXPECT_EQ(g.peerId, kIdA);
            EXPECT_EQ(g.bytes, nullptr);
            EXPECT_LT(g.round, msgs.size());
            EXPECT_EQ(delivered.count(g.round), 0u);
        }
    }
    Simulator::Destroy();
    {
        FlDatagramConfig cfg = EndpointConfig(FlHolePolicy::Retransmit);
        cfg.reassemblyTimeout = Seconds(10);
        TwoNodes net(cfg, cfg);
        uint32_t reports = 0;
        net.a->SetGiveUpCallback([&reports](const FlGivenUpMessage&) { ++reports; });
        net.b->SetGiveUpCallback([&reports](const FlGivenUpMessage&) { ++reports; });
        net.a->Send(net.addrB, 1, RawMessage(200000, 1));
        // 10 ms in, part of the message has gone out: both sides discard it
        FlSchedule(MilliSeconds(10), [&net]() {
            net.a->DiscardBefore(2);
            net.b->DiscardBefore(2);
        });
        Simulator::Run();
        EXPECT_EQ(net.b->Stats().messagesDropped, 1u);
        EXPECT_EQ(reports, 0u);
    }
    Simulator::Destroy();
}

TEST(FlDatagramEndpoint, KeepPreviousDeliversWhatArrived)
{
    {
        const FlDatagramConfig cfg = EndpointConfig(FlHolePolicy::KeepPrevious);
        TwoNodes net(cfg, cfg, 0.2, 0.0, 41);
        const auto msgs = LossWorkload();
        const std::size_t maxPayload = fl::MaxChunkPayloadForMtu(cfg.mtu);
        std::vector<uint32_t> ids;
        for (uint32_t i = 0; i < msgs.size(); ++i)
        {
            ids.push_back(net.a->Send(net.addrB, i, msgs[i]));
        }
        Simulator::Run();
        std::map<uint32_t, const FlDatagramMessage*> got;
        for (const auto& d : net.atB)
        {
            EXPECT_TRUE(got.emplace(d.msg.round, &d.msg).second);
        }
        uint64_t expectPartial = 0;
        uint64_t expectLost = 0;
        uint64_t decoded = 0;
        for (uint32_t i = 0; i < msgs.size(); ++i)
        {
            const std::vector<uint8_t>& orig = *msgs[i];
            const uint32_t count = fl::ChunkCount(orig.size(), maxPayload);
            const std::size_t p = orig.empty() ? 0 : (orig.size() + count - 1) / count;
            const auto dit = net.droppedAtB.find(ids[i]);
            const std::set<uint32_t> lost =
                dit == net.droppedAtB.end() ? std::set<uint32_t>() : dit->second;
            if (lost.size() == count)
            {
                EXPECT_EQ(got.count(i), 0u) << "message " << i << " never arrived";
                continue;
            }
            ASSERT_EQ(got.count(i), 1u) << "message " << i;
            const FlDatagramMessage& m = *got[i];
            EXPECT_EQ(m.chunkCount, count);
            EXPECT_EQ(m.chunksMissing, lost.size());
            EXPECT_EQ(m.complete, lost.empty());
            EXPECT_EQ(m.length, orig.size());
            std::vector<fl::IndexRange> arrived;
            for (uint32_t k = 0; k < count; ++k)
            {
                if (lost.count(k) == 0)
                {
                    arrived.push_back({k * p, std::min(orig.size(), (k + 1) * p)});
                }
            }
            EXPECT_EQ(m.receivedBytes, Merged(arrived)) << "message " << i;
            // Packed: exactly the bytes that arrived, range after range.
            std::vector<uint8_t> expectBytes;
            for (const fl::IndexRange& r : m.receivedBytes)
            {
                expectBytes.insert(expectBytes.end(),
                                   orig.begin() + static_cast<std::ptrdiff_t>(r.begin),
                                   orig.begin() + static_cast<std::ptrdiff_t>(r.end));
            }
            ASSERT_EQ(m.bytes, expectBytes) << "message " << i;
            if (!lost.empty())
            {
                ++expectPartial;
                expectLost += lost.size();
                // A model message with its header decodes with the previous values in the holes.
                fl::MessageHeader h;
                if (orig.size() >= fl::MessageHeader::kSize &&
                    fl::ParseHeader(orig.data(), 1u << 30, h) == fl::HeaderStatus::Ok &&
                    lost.count(0) == 0)
                {
                    fl::ReceivedMessage out;
                    const fl::ParamVector previous =
                        fl::ParamVector::Zeros(fl::Precision::Float32, h.count);
                    uint64_t missing = 0;
                    EXPECT_EQ(DecodeDatagramMessage(m,
                                                    &previous,
                                                    fl::Precision::Float32,
                                                    out,
                                                    &missing),
                              fl::MessageDecodeStatus::Ok);
                    EXPECT_GT(missing, 0u);
                    ++decoded;
                }
            }
        }
        ASSERT_GT(expectPartial, 0u);
        EXPECT_GT(decoded, 0u);
        const FlDatagramStats& sb = net.b->Stats();
        EXPECT_EQ(sb.messagesPartial, expectPartial);
        EXPECT_EQ(sb.chunksLost, expectLost);
        EXPECT_EQ(sb.messagesDelivered + sb.messagesPartial, got.size());
        EXPECT_EQ(sb.messagesDropped, 0u);
        EXPECT_EQ(sb.datagramsSent, 0u);
        ExpectReceiveCountersAddUp(sb);
    }
    Simulator::Destroy();
}

// ------------------------------------------------------------------------ flush, discard, close

TEST(FlDatagramEndpoint, FlushIncompleteResolvesAtOnce)
{
    for (FlHolePolicy policy :
         {FlHolePolicy::Drop, FlHolePolicy::KeepPrevious, FlHolePolicy::Retransmit})
    {
        {
            FlDatagramConfig cfg = EndpointConfig(policy);
            cfg.reassemblyTimeout = Seconds(100); // only the flush resolves anything
            cfg.ackTimeout = Seconds(100);
            TwoNodes net(cfg, cfg, 0.2, 0.0, 51);
            const auto msgs = LossWorkload();
            for (uint32_t i = 0; i < msgs.size(); ++i)
            {
                net.a->Send(net.addrB, i, msgs[i]);
            }
            Simulator::Schedule(Seconds(1), &FlDatagramEndpoint::FlushIncomplete, net.b);
            Simulator::Stop(Seconds(2));
            Simulator::Run();
            const FlDatagramStats& sb = net.b->Stats();
            ASSERT_GT(sb.messagesPartial + sb.messagesDropped, 0u) << FlHolePolicyName(policy);
            EXPECT_EQ(sb.nacksSent, 0u);
            uint64_t partial = 0;
            for (const auto& d : net.atB)
            {
                if (!d.msg.complete)
                {
                    EXPECT_EQ(d.at, Seconds(1));
                    ++partial;
                }
            }
            if (policy == FlHolePolicy::KeepPrevious)
            {
                EXPECT_EQ(sb.messagesDropped, 0u);
                EXPECT_EQ(partial, sb.messagesPartial);
                EXPECT_GT(partial, 0u);
            }
            else
            {
                EXPECT_EQ(sb.messagesPartial, 0u);
                EXPECT_EQ(partial, 0u);
            }
        }
        Simulator::Destroy();
    }
}

TEST(FlDatagramEndpoint, DiscardBeforeForgetsOldRoundsOnBothSides)
{
    {
        FlDatagramConfig cfg = EndpointConfig(FlHolePolicy::KeepPrevious);
        cfg.reassemblyTimeout = Seconds(10);
        TwoNodes net(cfg, cfg);
        const Bytes old = RawMessage(200000, 1);
        const Bytes cur = RawMessage(5000, 2);
        net.a->Send(net.addrB, 1, old);
        net.a->Send(net.addrB, 2, cur);
        const std::size_t maxPayload = fl::MaxChunkPayloadForMtu(cfg.mtu);
        uint64_t queuedAfterDiscard = 0;
        // 10 ms in, part of the old message has gone out.
        FlSchedule(MilliSeconds(10), [&]() {
            net.a->DiscardBefore(2);
            queuedAfterDiscard = net.a->BytesQueued();
        });
        // B still holds the incomplete old message; discarding it delivers nothing.
        FlSchedule(Seconds(1), [&]() { net.b->DiscardBefore(2); });
        Simulator::Run();
        EXPECT_EQ(queuedAfterDiscard, ChunkBytes(cur->size(), maxPayload));
        ASSERT_EQ(net.atB.size(), 1u);
        EXPECT_EQ(net.atB[0].msg.round, 2u);
        EXPECT_EQ(net.atB[0].msg.bytes, *cur);
        const FlDatagramStats& sa = net.a->Stats();
        const FlDatagramStats& sb = net.b->Stats();
        EXPECT_LT(sa.chunksSent,
                  fl::ChunkCount(old->size(), maxPayload) +
                      fl::ChunkCount(cur->size(), maxPayload));
        EXPECT_EQ(sb.messagesDropped, 1u);
        EXPECT_EQ(sb.messagesPartial, 0u);
        EXPECT_EQ(sb.chunksLost,
                  fl::ChunkCount(old->size(), maxPayload) +
                      fl::ChunkCount(cur->size(), maxPayload) - sa.chunksSent);
        EXPECT_EQ(net.a->BytesQueued(), 0u);
    }
    Simulator::Destroy();
}

// ------------------------------------------------------------------- several peers at once

TEST(FlDatagramEndpoint, OneSharedBufferToSeveralPeersOverALan)
{
    {
        const uint32_t clients = 3;
        NodeContainer nodes;
        nodes.Create(clients + 1);
        CsmaHelper csma;
        csma.SetChannelAttribute("DataRate", StringValue("100Mbps"));
        csma.SetChannelAttribute("Delay", TimeValue(MicroSeconds(5)));
        NetDeviceContainer devs = csma.Install(nodes);
        InternetStackHelper internet;
        internet.Install(nodes);
        Ipv4AddressHelper ip;
        ip.SetBase("10.2.0.0", "255.255.255.0");
        Ipv4InterfaceContainer ifs = ip.Assign(devs);
        const FlDatagramConfig cfg = EndpointConfig(FlHolePolicy::Retransmit);
        std::vector<Ptr<FlDatagramEndpoint>> eps;
        std::vector<std::vector<FlDatagramMessage>> got(clients + 1);

        struct Sink
        {
            std::vector<FlDatagramMessage>* v;

            void Deliver(Ptr<FlDatagramEndpoint>, FlDatagramMessage& m)
            {
                v->push_back(std::move(m));
            }
        };

        std::vector<Sink> sinks(clients + 1);
        for (uint32_t i = 0; i <= clients; ++i)
        {
            sinks[i].v = &got[i];
            eps.push_back(Create<FlDatagramEndpoint>(TwoNodes::BoundSocket(nodes.Get(i)),
                                                     i == 0 ? 0xFFFFFFFFu : i,
                                                     cfg));
            eps[i]->SetDeliverCallback(MakeCallback(&Sink::Deliver, &sinks[i]));
        }
        auto addr = [&ifs](uint32_t i) {
            return Address(InetSocketAddress(ifs.GetAddress(i), kPort));
        };
        const auto global = std::make_shared<const std::vector<uint8_t>>(*RawMessage(200000, 1));
        const std::size_t maxPayload = fl::MaxChunkPayloadForMtu(cfg.mtu);
        std::vector<Bytes> locals;
        for (uint32_t i = 1; i <= clients; ++i)
        {
            eps[0]->Send(addr(i), 1, global);
            locals.push_back(RawMessage(50000 + i, 10 + i));
            eps[i]->Send(addr(0), 1, locals.back());
        }
        // One buffer, referenced by each queued message; no chunk is built in advance.
        EXPECT_EQ(global.use_count(), 1 + clients);
        EXPECT_EQ(eps[0]->BytesQueued(), clients * ChunkBytes(global->size(), maxPayload));
        Simulator::Stop(Seconds(30));
        Simulator::Run();
        EXPECT_EQ(global.use_count(), 1); // all acknowledged and released
        ASSERT_EQ(got[0].size(), clients);
        std::set<uint32_t> senders;
        for (const auto& m : got[0])
        {
            ASSERT_GE(m.sender, 1u);
            ASSERT_LE(m.sender, clients);
            EXPECT_EQ(m.bytes, *locals[m.sender - 1]);
            EXPECT_EQ(m.from, addr(m.sender));
            senders.insert(m.sender);
        }
        EXPECT_EQ(senders.size(), clients);
        for (uint32_t i = 1; i <= clients; ++i)
        {
            ASSERT_EQ(got[i].size(), 1u);
            EXPECT_EQ(got[i][0].bytes, *global);
            EXPECT_EQ(got[i][0].sender, 0xFFFFFFFFu);
            EXPECT_EQ(eps[i]->Stats().messagesAcked, 1u);
            ExpectReceiveCountersAddUp(eps[i]->Stats());
        }
        EXPECT_EQ(eps[0]->Stats().messagesAcked, clients);
        EXPECT_EQ(eps[0]->Stats().messagesDelivered, clients);
        ExpectReceiveCountersAddUp(eps[0]->Stats());
        eps.clear();
    }
    Simulator::Destroy();
}

TEST(FlDatagramEndpoint, TooManyOpenMessagesEvictTheOldest)
{
    {
        FlDatagramConfig cfgB = EndpointConfig(FlHolePolicy::Drop);
        cfgB.maxOpenMessages = 1;
        const FlDatagramConfig cfgA = EndpointConfig(FlHolePolicy::Drop);
        TwoNodes net(cfgA, cfgB);
        // A second sender on node A (another port, another id): its chunks interleave.
        Ptr<FlDatagramEndpoint> a2 =
            Create<FlDatagramEndpoint>(TwoNodes::BoundSocket(net.GetNode(0), kPort + 1), 99, cfgA);
        const Bytes m1 = RawMessage(30000, 1);
        const Bytes m2 = RawMessage(20000, 2);
        net.a->Send(net.addrB, 1, m1);
        a2->Send(net.addrB, 1, m2);
        Simulator::Run();
        const std::size_t maxPayload = fl::MaxChunkPayloadForMtu(cfgA.mtu);
        const uint32_t c1 = fl::ChunkCount(m1->size(), maxPayload);
        // m1 opened first, m2 evicted it; the rest of m1 is late.
        ASSERT_EQ(net.atB.size(), 1u);
        EXPECT_EQ(net.atB[0].msg.bytes, *m2);
        EXPECT_EQ(net.atB[0].msg.sender, 99u);
        const FlDatagramStats& sb = net.b->Stats();
        EXPECT_EQ(sb.messagesDropped, 1u);
        EXPECT_EQ(sb.chunksLost, c1 - 1);
        EXPECT_EQ(sb.chunksLate, c1 - 1);
        ExpectReceiveCountersAddUp(sb);
    }
    Simulator::Destroy();
}

TEST(FlDatagramEndpoint, CloseStopsEverything)
{
    {
        const FlDatagramConfig cfg = EndpointConfig(FlHolePolicy::Drop);
        TwoNodes net(cfg, cfg);
        net.a->Send(net.addrB, 1, RawMessage(100000, 1));
        FlSchedule(MilliSeconds(5), [&]() {
            net.a->Close();
            EXPECT_EQ(net.a->BytesQueued(), 0u);
            net.a->Send(net.addrB, 2, RawMessage(100, 2)); // ignored
        });
        Simulator::Run(); // terminates: no timer is left running
        EXPECT_TRUE(net.atB.empty());
        EXPECT_EQ(net.b->Stats().messagesDropped, 1u);
        EXPECT_GT(net.b->Stats().chunksLost, 0u);
        EXPECT_EQ(net.a->Stats().messagesSent, 1u);
        EXPECT_LT(Simulator::Now(), Seconds(1));
    }
    Simulator::Destroy();
}

// ---------------------------------------------------------------------------------- garbage

TEST(FlDatagramEndpoint, GarbageDatagramsAreCountedAndNeverDelivered)
{
    {
        const FlDatagramConfig cfg = EndpointConfig(FlHolePolicy::Retransmit);
        TwoNodes net(cfg, cfg);
        Ptr<Socket> raw = TwoNodes::BoundSocket(net.GetNode(0), 5555);
        fl::Rng rng(99);
        std::vector<std::vector<uint8_t>> garbage;
        for (int i = 0; i < 200; ++i)
        {
            std::vector<uint8_t> g(rng() % 1500);
            for (auto& x : g)
            {
                x = static_cast<uint8_t>(rng());
            }
            garbage.push_back(g);
        }
        const Bytes msg = RawMessage(5000, 3);
        const auto chunks = fl::Fragment(msg->data(), msg->size(), 1, 42, 0, 1432);
        for (const auto& c : chunks)
        {
            for (std::size_t len :
                 {std::size_t(0), std::size_t(4), std::size_t(39), c.size() / 2, c.size() - 1})
            {
                garbage.emplace_back(c.begin(), c.begin() + static_cast<long>(len)); // truncated
            }
            auto bad = c;
            bad[36] ^= 1; // CRC
            garbage.push_back(bad);
            bad = c;
            bad.back() ^= 0x80; // payload
            garbage.push_back(bad);
            bad = c;
            bad.push_back(0); // too long
            garbage.push_back(bad);
        }
        fl::ChunkFeedback fb;
        fb.type = fl::FeedbackType::Nack;
        fb.sender = kIdB;
        fb.missing = {0, 1};
        std::vector<uint8_t> f;
        fl::EncodeFeedback(fb, f);
        for (std::size_t pos = 0; pos < f.size(); pos += 3)
        {
            auto bad = f;
            bad[pos] ^= 0x21;
            if (fl::IsFeedbackDatagram(bad.data(), bad.size()))
            {
                garbage.push_back(bad); // bogus feedback
            }
        }
        for (int i = 0; i < 50; ++i)
        {
            std::vector<uint8_t> g(4 + rng() % 80);
            for (auto& x : g)
            {
                x = static_cast<uint8_t>(rng());
            }
            fl::PutU32(g.data(), fl::ChunkFeedback::kMagic);
            garbage.push_back(g);
        }
        // Valid feedback about messages B never sent: parsed, then ignored.
        garbage.push_back(f);
        fb.type = fl::FeedbackType::Ack;
        fb.missing.clear();
        fl::EncodeFeedback(fb, f);
        garbage.push_back(f);

        uint64_t expectChunkMalformed = 0;
        uint64_t expectFeedbackMalformed = 0;
        uint64_t expectFeedback = 0;
        uint64_t bytes = 0;
        fl::ChunkFeedback parsed;
        fl::ChunkHeader h;
        for (const auto& g : garbage)
        {
            const uint8_t* d = g.empty() ? nullptr : g.data();
            bytes += g.size();
            if (fl::IsFeedbackDatagram(d, g.size()))
            {
                if (fl::ParseFeedback(d, g.size(), parsed) == fl::FeedbackStatus::Ok)
                {
                    ++expectFeedback;
                }
                else
                {
                    ++expectFeedbackMalformed;
                }
            }
            else
            {
                ASSERT_NE(fl::ParseChunk(d, g.size(), 1u << 30, h), fl::ChunkStatus::Ok);
                ++expectChunkMalformed;
            }
        }
        ASSERT_EQ(expectFeedback, 2u);
        // One datagram every 0.2 ms (the link carries them all).
        for (std::size_t i = 0; i < garbage.size(); ++i)
        {
            FlSchedule(MicroSeconds(200 * i), [&, i]() {
                const auto& g = garbage[i];
                raw->SendTo(Create<Packet>(g.data(), g.size()), 0, net.addrB);
            });
        }
        Simulator::Run();
        const FlDatagramStats& sb = net.b->Stats();
        EXPECT_TRUE(net.atB.empty());
        EXPECT_EQ(sb.datagramsReceived, garbage.size());
        EXPECT_EQ(sb.bytesReceived, bytes);
        EXPECT_EQ(sb.chunksMalformed, expectChunkMalformed);
        EXPECT_EQ(sb.feedbackMalformed, expectFeedbackMalformed);
        EXPECT_EQ(sb.feedbackReceived, expectFeedback);
        EXPECT_EQ(sb.chunksAccepted + sb.chunksLate + sb.chunksDuplicate, 0u);
        EXPECT_EQ(sb.messagesDelivered + sb.messagesPartial + sb.messagesDropped, 0u);
        EXPECT_EQ(sb.datagramsSent, 0u); // nothing to acknowledge or re-send
        ExpectReceiveCountersAddUp(sb);
    }
    Simulator::Destroy();
}

// Forged chunks declaring a large message, sent to a keep-previous receiver bounded for a
// 1M-parameter float64 model (8,004,132 bytes): one whose chunk count breaks the minimum chunk
// payload is malformed; the last 1-byte chunk of a valid-looking 8 MB message is held as one
// byte, delivered packed with holes when flushed (the application's decode then finds no
// header), and never costs a buffer of the declared length or a list of its missing chunks.
TEST(FlDatagramEndpoint, ForgedChunkDeclaringLargeMessageCostsWhatArrived)
{
    {
        FlDatagramConfig cfg = EndpointConfig(FlHolePolicy::KeepPrevious);
        cfg.maxMessageBytes = fl::MessageHeader::kSize + 8u * 1000000u + 4096u;
        TwoNodes net(cfg, cfg);
        Ptr<Socket> raw = TwoNodes::BoundSocket(net.GetNode(0), 5555);
        const auto forge = [](uint32_t id, uint32_t index, uint32_t count, uint32_t length) {
            fl::ChunkHeader h;
            h.messageId = id;
            h.sender = 42;
            h.index = index;
            h.count = count;
            h.messageLength = length;
            h.payloadLength = 1;
            std::vector<uint8_t> g(fl::ChunkHeader::kSize + 1, 0x5A);
            h.Write(g.data());
            std::vector<uint8_t> covered(g.begin(), g.begin() + 36);
            covered.push_back(0x5A);
            h.crc = fl::Crc32(covered.data(), covered.size());
            h.Write(g.data());
            return g;
        };
        const uint32_t count = 31267;
        const uint32_t length = 256u * (count - 1) + 1; // 8,004,097 bytes
        const auto tooMany = forge(1, length - 1, length, length); // 1-byte chunks
        const auto last = forge(2, count - 1, count, length);
        ASSERT_EQ(last.size(), 41u);
        FlSchedule(MilliSeconds(1), [&]() {
            raw->SendTo(Create<Packet>(tooMany.data(), tooMany.size()), 0, net.addrB);
            raw->SendTo(Create<Packet>(last.data(), last.size()), 0, net.addrB);
        });
        Simulator::Schedule(MilliSeconds(50), &FlDatagramEndpoint::FlushIncomplete, net.b);
        Simulator::Run();
        const FlDatagramStats& sb = net.b->Stats();
        EXPECT_EQ(sb.datagramsReceived, 2u);
        EXPECT_EQ(sb.chunksMalformed, 1u);
        EXPECT_EQ(sb.chunksAccepted, 1u);
        EXPECT_EQ(sb.messagesPartial, 1u);
        EXPECT_EQ(sb.chunksLost, count - 1u);
        ASSERT_EQ(net.atB.size(), 1u);
        const FlDatagramMessage& m = net.atB[0].msg;
        EXPECT_FALSE(m.complete);
        EXPECT_EQ(m.length, length);
        EXPECT_EQ(m.chunkCount, count);
        EXPECT_EQ(m.chunksMissing, count - 1);
        EXPECT_EQ(m.bytes, (std::vector<uint8_t>{0x5A})); // not a buffer of `length` bytes
        EXPECT_LE(m.bytes.capacity(), 16u);
        EXPECT_EQ(m.receivedBytes, (std::vector<fl::IndexRange>{{length - 1, length}}));
        const fl::ParamVector previous = fl::ParamVector::Zeros(fl::Precision::Float64, 1000000);
        fl::ReceivedMessage out;
        EXPECT_EQ(DecodeDatagramMessage(m, &previous, fl::Precision::Float64, out),
                  fl::MessageDecodeStatus::HeaderMissing);
        EXPECT_EQ(out.params.Size(), 0u);
        ExpectReceiveCountersAddUp(sb);
    }
    Simulator::Destroy();
}

// ------------------------------------------------------------------------ determinism, config

/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The analog over-the-air channel in ns-3: OtaChannel + OtaPhy installed with OtaHelper.
 *
 * Exact checks (noiseless) are to 1e-12 relative. Statistical checks use fixed streams and
 * bounds derived from the distribution under test: a sample mean of n i.i.d. values with
 * standard deviation s is checked to within 5 s/sqrt(n) (central limit theorem), an empirical
 * CDF with the Kolmogorov-Smirnov critical value 1.95/sqrt(n) (significance 0.001).
 */
#include "fl-test-stats.h"

#include "ns3/core-module.h"
#include "ns3/fl-ns3-compat.h"
#include "ns3/mobility-module.h"
#include "ns3/ota-channel.h"
#include "ns3/ota-helper.h"
#include "ns3/ota-phy.h"
#include "ns3/ota-power-control.h"
#include "ns3/ota-signal.h"

#include <algorithm>
#include <boost/math/distributions/gamma.hpp>
#include <boost/math/distributions/non_central_chi_squared.hpp>
#include <cmath>
#include <functional>
#include <gtest/gtest.h>
#include <map>
#include <memory>
#include <set>
#include <vector>

using namespace ns3;
using fl::Complex;
using namespace fltest;

namespace
{

constexpr double kSpeedOfLight = 299792458.0; // ConstantSpeedPropagationDelayModel's default

/// Nodes, phys and everything they delivered.
struct Scene
{
    NodeContainer nodes;
    OtaPhyContainer phys;
    Ptr<OtaChannel> channel;
    std::vector<std::vector<OtaReception>> rx;
    std::vector<std::vector<std::pair<Ptr<const OtaSignal>, Time>>> misaligned;
    std::vector<Ptr<const OtaSignal>> txStarts;
    std::vector<std::pair<Time, Time>> airtime; // (start, end) of every transmission
};

std::unique_ptr<Scene>
Build(const std::vector<Vector>& positions, const OtaHelper& helper, int64_t stream = 7)
{
    auto s = std::make_unique<Scene>();
    s->nodes.Create(positions.size());
    MobilityHelper mobility;
    Ptr<ListPositionAllocator> alloc = CreateObject<ListPositionAllocator>();
    for (const auto& p : positions)
    {
        alloc->Add(p);
    }
    mobility.SetPositionAllocator(alloc);
    mobility.SetMobilityModel("ns3::ConstantPositionMobilityModel");
    mobility.Install(s->nodes);
    s->phys = helper.Install(s->nodes); // one call
    s->channel = s->phys.GetChannel();
    OtaHelper::AssignStreams(s->phys, stream);
    s->rx.resize(positions.size());
    s->misaligned.resize(positions.size());
    Scene* sp = s.get();
    for (std::size_t i = 0; i < positions.size(); ++i)
    {
        Ptr<OtaPhy> phy = s->phys.Get(i);
        phy->SetReceiveCallback(FlCallback<void, const OtaReception&>(
            [sp, i](const OtaReception& r) { sp->rx[i].push_back(r); }));
        phy->TraceConnectWithoutContext("Misaligned",
                                        FlCallback<void, Ptr<const OtaSignal>, Time>(
                                            [sp, i](Ptr<const OtaSignal> sig, Time off) {
                                                sp->misaligned[i].emplace_back(sig, off);
                                            }));
        phy->TraceConnectWithoutContext(
            "TxStart",
            FlCallback<void, Ptr<const OtaSignal>>([sp](Ptr<const OtaSignal> sig) {
                sp->txStarts.push_back(sig);
                sp->airtime.emplace_back(Simulator::Now(), Time());
            }));
        phy->TraceConnectWithoutContext(
            "TxEnd",
            FlCallback<void, Ptr<const OtaSignal>>([sp](Ptr<const OtaSignal> sig) {
                for (auto& a : sp->airtime)
                {
                    if (a.first == sig->start && a.second.IsZero())
                    {
                        a.second = Simulator::Now();
                        break;
                    }
                }
            }));
    }
    return s;
}

/// A helper with noiseless receivers.
OtaHelper
NoiselessHelper()
{
    OtaHelper h;
    h.SetPhyAttribute("NoiseModel", EnumValue(OtaPhy::NOISE_FIXED));
    h.SetPhyAttribute("NoiseVariance", DoubleValue(0.0));
    return h;
}

std::shared_ptr<const fl::SymbolVector>
RandomSymbols(Eigen::Index n, uint64_t seed)
{
    fl::Rng rng(seed);
    std::normal_distribution<double> g(0.0, std::sqrt(0.5));
    auto s = std::make_shared<fl::SymbolVector>(n);
    for (Eigen::Index m = 0; m < n; ++m)
    {
        (*s)[m] = Complex(g(rng), g(rng));
    }
    return s;
}

const std::vector<Vector> kSixNodes = {Vector(0, 0, 0),
                                       Vector(40, 5, 0),
                                       Vector(-17, 60, 1.5),
                                       Vector(80, -30, 0),
                                       Vector(5, -90, 3),
                                       Vector(-60, -20, 0)};

class OtaChannelTest : public ::testing::Test
{
  protected:
    void TearDown() override
    {
        Simulator::Destroy();
    }
};

} // namespace

/// One helper call installs a phy on every node with mobility, on one channel.
TEST_F(OtaChannelTest, HelperInstallsOnAnyNodes)
{
    OtaHelper helper;
    auto s = Build(kSixNodes, helper);
    ASSERT_EQ(s->phys.GetN(), 6u);
    EXPECT_EQ(s->channel->GetNPhys(), 6u);
    EXPECT_EQ(s->channel->GetNDevices(), 6u);
    for (uint32_t i = 0; i < 6; ++i)
    {
        EXPECT_EQ(s->nodes.Get(i)->GetObject<OtaPhy>(), s->phys.Get(i));
        EXPECT_EQ(s->phys.Get(i)->GetIndex(), i);
        EXPECT_EQ(s->phys.Get(i)->GetChannel(), s->channel);
        EXPECT_TRUE(s->phys.Get(i)->GetMobility());
    }
    EXPECT_TRUE(s->channel->GetPropagationLossModel());
    EXPECT_TRUE(s->channel->GetPropagationDelayModel());
    EXPECT_EQ(OtaHelper::SlotDurationFor(1000, 1e6), MicroSeconds(520));
}

/// Propagation delay moves arrivals by distance / c.
TEST_F(OtaChannelTest, PropagationDelayIsDistanceOverC)
{
    OtaHelper helper = NoiselessHelper();
    helper.SetPhyAttribute("SyncTolerance", TimeValue(MicroSeconds(20)));
    const std::vector<double> dist = {30.0, 300.0, 3000.0};
    auto s =
        Build({Vector(0, 0, 0), Vector(30, 0, 0), Vector(0, 300, 0), Vector(-3000, 0, 0)}, helper);
    for (uint32_t k = 1; k <= 3; ++k)
    {
        ASSERT_TRUE(s->phys.Get(k)->Transmit(1, RandomSymbols(100, k), Complex(1.0, 0.0)));
    }
    Simulator::Run();
    ASSERT_EQ(s->rx[0].size(), 1u);
    const OtaReception& r = s->rx[0][0];
    EXPECT_EQ(r.slot, 1u);
    EXPECT_EQ(r.windowStart, s->channel->GetSlotStart(1));
    ASSERT_EQ(r.contributions.size(), 3u);
    EXPECT_EQ(r.contributors, 3u);
    for (const auto& c : r.contributions)
    {
        const double expected = dist[c.sender - 1] / kSpeedOfLight;
        EXPECT_EQ(c.txStart, s->channel->GetSlotStart(1));
        EXPECT_NEAR((c.arrival - c.txStart).GetSeconds(), expected, 1e-9) << c.sender;
        EXPECT_NEAR(c.offset.GetSeconds(), expected, 1e-9);
        EXPECT_NEAR(s->channel->GetDelay(c.sender, 0).GetSeconds(), expected, 1e-9);
    }
}

/// Without noise the received vector is the exact superposition sum_{k != i} h_{k->i} b_k s_k.
TEST_F(OtaChannelTest, NoiselessSuperpositionIsExact)
{
    for (auto structure : {OtaChannel::STRUCTURE_PER_LINK, OtaChannel::STRUCTURE_SENDER_ONLY})
    {
        OtaHelper helper = NoiselessHelper();
        helper.SetChannelAttribute("Structure", EnumValue(structure));
        helper.SetPhyAttribute("SyncTolerance", TimeValue(MicroSeconds(1)));
        auto s = Build(kSixNodes, helper);
        const std::size_t n = kSixNodes.size();
        std::vector<std::shared_ptr<const fl::SymbolVector>> sym(n);
        std::vector<Complex> b(n);
        std::vector<std::vector<Complex>> h(n, std::vector<Complex>(n));
        for (uint32_t k = 0; k < n; ++k)
        {
            sym[k] = RandomSymbols(300, 50 + k);
            b[k] = std::polar(0.1 + 0.05 * k, 0.3 * k);
            for (uint32_t i = 0; i < n; ++i)
            {
                h[k][i] = s->channel->GetCoefficient(k, i, 0);
            }
            ASSERT_TRUE(s->phys.Get(k)->Transmit(0, sym[k], b[k]));
        }
        Simulator::Run();
        for (uint32_t i = 0; i < n; ++i)
        {
            ASSERT_EQ(s->rx[i].size(), 1u) << i;
            const OtaReception& r = s->rx[i][0];
            EXPECT_EQ(r.contributors, n - 1);
            fl::SymbolVector expected = fl::SymbolVector::Zero(300);
            for (uint32_t k = 0; k < n; ++k)
            {
                if (k != i)
                {
                    expected += h[k][i] * b[k] * *sym[k];
                }
            }
            EXPECT_LT(RelErr(r.symbols, expected), 1e-12)
                << "structure " << structure << " rx " << i;
            for (const auto& c : r.contributions)
            {
                EXPECT_EQ(c.coefficient, h[c.sender][i]);
                EXPECT_TRUE(c.aligned);
                EXPECT_NEAR(c.rxPowerW / (std::norm(h[c.sender][i] * b[c.sender]) *
                                          fl::MeanSymbolEnergy(*sym[c.sender])),
                            1.0,
                            1e-12);
            }
        }
        if (structure == OtaChannel::STRUCTURE_SENDER_ONLY)
        {
            // Every receiver sees the same coefficient of a sender.
            EXPECT_EQ(h[1][0], h[1][3]);
        }
        else
        {
            EXPECT_NE(h[1][0], h[1][3]);
        }
        Simulator::Destroy();
    }
}

/// After alignment with perfect CSI every contribution arrives with amplitude c and zero phase.
TEST_F(OtaChannelTest, AlignmentArrivesWithAmplitudeCAndZeroPhase)
{
    for (auto structure : {OtaChannel::STRUCTURE_SENDER_ONLY, OtaChannel::STRUCTURE_PER_LINK})
    {
        OtaHelper helper = NoiselessHelper();
        helper.SetChannelAttribute("Structure", EnumValue(structure));
        helper.SetChannelAttribute("Coherence", EnumValue(OtaChannel::COHERENCE_PER_SLOT));
        helper.SetPhyAttribute("SyncTolerance", TimeValue(MicroSeconds(1)));
        auto s = Build(kSixNodes, helper);
        const std::size_t n = kSixNodes.size();
        const uint64_t slot = 3;
        // Sender-only: everybody sends to everybody. Per-link: nodes 1..5 align at node 0.
        const uint32_t first = structure == OtaChannel::STRUCTURE_SENDER_ONLY ? 0 : 1;
        Ptr<OtaPhy> target =
            structure == OtaChannel::STRUCTURE_SENDER_ONLY ? nullptr : s->phys.Get(0);
        std::vector<Complex> hEst;
        std::vector<double> power;
        for (uint32_t k = first; k < n; ++k)
        {
            s->phys.Get(k)->SetAttribute("TxPower", DoubleValue(5.0 + 3.0 * k));
            hEst.push_back(s->phys.Get(k)->GetChannelEstimate(target, slot));
            power.push_back(s->phys.Get(k)->GetTxPowerW());
        }
        fl::AlignmentConfig cfg;
        cfg.kappa = 0.9;
        const fl::AlignmentPlan plan = fl::PlanAlignment(hEst, power, cfg);
        ASSERT_GT(plan.c, 0.0);
        std::vector<std::shared_ptr<const fl::SymbolVector>> sym(n);
        for (uint32_t k = first; k < n; ++k)
        {
            sym[k] = RandomSymbols(200, 70 + k);
            ASSERT_TRUE(s->phys.Get(k)->Transmit(slot, sym[k], plan.precoder[k - first]));
        }
        Simulator::Run();
        for (uint32_t i = 0; i < (target ? 1u : n); ++i)
        {
            ASSERT_EQ(s->rx[i].size(), 1u);
            const OtaReception& r = s->rx[i][0];
            fl::SymbolVector expected = fl::SymbolVector::Zero(200);
            for (const auto& c : r.contributions)
            {
                EXPECT_NEAR(std::abs(c.effective) / plan.c, 1.0, 1e-12);
                EXPECT_NEAR(std::arg(c.effective), 0.0, 1e-12);
                expected += plan.c * *sym[c.sender];
            }
            EXPECT_EQ(r.contributors, n - 1);
            EXPECT_LT(RelErr(r.symbols, expected), 1e-12);
        }
        Simulator::Destroy();
    }
}

/// Thermal receiver noise has variance k T F B per complex symbol, split evenly over I and Q.
TEST_F(OtaChannelTest, NoisePowerIsKTFB)
{
    OtaHelper helper;
    helper.SetChannelAttribute("Bandwidth", DoubleValue(2e6));
    helper.SetChannelAttribute("SlotDuration", TimeValue(MilliSeconds(30)));
    helper.SetPhyAttribute("NoiseFigure", DoubleValue(5.0));
    helper.SetPhyAttribute("NoiseTemperature", DoubleValue(290.0));
    auto s = Build({Vector(0, 0, 0), Vector(10, 0, 0)}, helper);
    const Eigen::Index n = 50000;
    // A silent transmission (zero symbols) opens the window: what arrives is noise only.
    ASSERT_TRUE(
        s->phys.Get(1)->Transmit(0,
                                 std::make_shared<fl::SymbolVector>(fl::SymbolVector::Zero(n)),
                                 Complex(1.0, 0.0)));
    Simulator::Run();
    ASSERT_EQ(s->rx[0].size(), 1u);
    const OtaReception& r = s->rx[0][0];
    const double kTFB = 1.380649e-23 * 290.0 * std::pow(10.0, 0.5) * 2e6;
    EXPECT_NEAR(r.noiseVarianceW / kTFB, 1.0, 1e-12);
    EXPECT_NEAR(s->phys.Get(0)->GetNoiseVariance() / kTFB, 1.0, 1e-12);
    std::vector<double> p(n);
    std::vector<double> i2(n);
    std::vector<double> q2(n);
    for (Eigen::Index m = 0; m < n; ++m)
    {
        p[m] = std::norm(r.symbols[m]);
        i2[m] = r.symbols[m].real() * r.symbols[m].real();
        q2[m] = r.symbols[m].imag() * r.symbols[m].imag();
    }
    const double sn = std::sqrt(double(n));
    // |n|^2 ~ Exp(kTFB): sd kTFB. I^2 ~ (kTFB/2) chi2_1: sd sqrt(2) kTFB/2.
    EXPECT_NEAR(Mean(p), kTFB, 5.0 * kTFB / sn);
    EXPECT_NEAR(Mean(i2), kTFB / 2.0, 5.0 * std::sqrt(2.0) * kTFB / 2.0 / sn);
    EXPECT_NEAR(Mean(q2), kTFB / 2.0, 5.0 * std::sqrt(2.0) * kTFB / 2.0 / sn);
    EXPECT_EQ(r.signalPowerW, 0.0);
}

/// Documented rule, Drop: an arrival outside SyncTolerance is counted, traced and not superposed.
TEST_F(OtaChannelTest, MisalignedArrivalsAreDropped)
{
    for (auto structure : {OtaChannel::STRUCTURE_PER_LINK, OtaChannel::STRUCTURE_SENDER_ONLY})
    {
        OtaHelper helper = NoiselessHelper();
        helper.SetChannelAttribute("Structure", EnumValue(structure));
        auto s =
            Build({Vector(0, 0, 0), Vector(10, 0, 0), Vector(0, 10, 0), Vector(10, 10, 0)}, helper);
        s->phys.Get(3)->SetAttribute("ClockOffset", TimeValue(MicroSeconds(2))); // tol 500 ns
        std::vector<std::shared_ptr<const fl::SymbolVector>> sym(4);
        for (uint32_t k = 1; k <= 3; ++k)
        {
            sym[k] = RandomSymbols(100, 90 + k);
            ASSERT_TRUE(s->phys.Get(k)->Transmit(0, sym[k], Complex(0.5, 0.1 * k)));
        }
        Simulator::Run();
        ASSERT_EQ(s->rx[0].size(), 1u);
        const OtaReception& r = s->rx[0][0];
        EXPECT_EQ(r.contributors, 2u);
        EXPECT_EQ(r.misaligned, 1u);
        EXPECT_EQ(r.interferencePowerW, 0.0);
        fl::SymbolVector expected = fl::SymbolVector::Zero(100);
        for (const auto& c : r.contributions)
        {
            EXPECT_EQ(c.aligned, c.sender != 3);
            if (c.aligned)
            {
                expected += c.effective * *sym[c.sender];
            }
        }
        EXPECT_LT(RelErr(r.symbols, expected), 1e-12);
        ASSERT_EQ(s->misaligned[0].size(), 1u);
        EXPECT_EQ(s->misaligned[0][0].first->sender, 3u);
        EXPECT_NEAR(s->misaligned[0][0].second.GetSeconds(),
                    2e-6 + std::sqrt(200.0) / kSpeedOfLight,
                    1e-9);
        EXPECT_EQ(s->phys.Get(0)->GetCounters().misaligned, 1u);
        // Node 1 hears node 2 aligned and node 3 misaligned; its own signal is excluded.
        ASSERT_EQ(s->rx[1].size(), 1u);
        const OtaReception& r1 = s->rx[1][0];
        EXPECT_EQ(r1.contributors, 1u);
        const Complex a2 = r1.contributions[0].sender == 2 ? r1.contributions[0].effective
                                                           : r1.contributions[1].effective;
        EXPECT_LT(RelErr(r1.symbols, a2 * *sym[2]), 1e-12);
        Simulator::Destroy();
    }
}

/**
 * Documented rule, Interference: a misaligned arrival adds CN(0, P_rx) independent of its
 * payload. Noiseless receiver: the residual y - aligned sum has mean power P_rx; |r|^2 is
 * exponential with sd P_rx, so the sample mean is within 5 P_rx / sqrt(n).
 */
TEST_F(OtaChannelTest, MisalignedArrivalsAsInterference)
{
    OtaHelper helper = NoiselessHelper();
    helper.SetChannelAttribute("SlotDuration", TimeValue(MilliSeconds(25)));
    helper.SetPhyAttribute("MisalignedPolicy", EnumValue(OtaPhy::MISALIGNED_INTERFERENCE));
    auto s =
        Build({Vector(0, 0, 0), Vector(10, 0, 0), Vector(0, 10, 0), Vector(10, 10, 0)}, helper);
    s->phys.Get(3)->SetAttribute("ClockOffset", TimeValue(MicroSeconds(3)));
    const Eigen::Index n = 20000;
    std::vector<std::shared_ptr<const fl::SymbolVector>> sym(4);
    for (uint32_t k = 1; k <= 3; ++k)
    {
        sym[k] = RandomSymbols(n, 190 + k);
        ASSERT_TRUE(s->phys.Get(k)->Transmit(0, sym[k], Complex(0.2, 0.0)));
    }
    Simulator::Run();
    ASSERT_EQ(s->rx[0].size(), 1u);
    const OtaReception& r = s->rx[0][0];
    EXPECT_EQ(r.contributors, 2u);
    EXPECT_EQ(r.misaligned, 1u);
    fl::SymbolVector aligned = fl::SymbolVector::Zero(n);
    double interference = 0.0;
    for (const auto& c : r.contributions)
    {
        if (c.aligned)
        {
            aligned += c.effective * *sym[c.sender];
        }
        else
        {
            interference = std::norm(c.coefficient) * 0.04 * fl::MeanSymbolEnergy(*sym[3]);
        }
    }
    EXPECT_NEAR(r.interferencePowerW / interference, 1.0, 1e-12);
    const fl::SymbolVector residual = r.symbols - aligned;
    std::vector<double> p(n);
    for (Eigen::Index m = 0; m < n; ++m)
    {
        p[m] = std::norm(residual[m]);
    }
    EXPECT_NEAR(Mean(p), interference, 5.0 * interference / std::sqrt(double(n)));
    EXPECT_NEAR(r.sinr, r.signalPowerW / interference, 1e-9 * r.sinr);
}

/// Documented rule, late: an arrival after its slot's window closed is dropped and counted.
TEST_F(OtaChannelTest, LateArrivalsAreDropped)
{
    OtaHelper helper = NoiselessHelper();
    auto s = Build({Vector(0, 0, 0), Vector(10, 0, 0), Vector(0, 10, 0)}, helper);
    s->phys.Get(2)->SetAttribute("ClockOffset", TimeValue(MicroSeconds(1200))); // slot = 1 ms
    for (uint32_t k = 1; k <= 2; ++k)
    {
        ASSERT_TRUE(s->phys.Get(k)->Transmit(1, RandomSymbols(100, k), Complex(1.0, 0.0)));
    }
    Simulator::Run();
    ASSERT_EQ(s->rx[0].size(), 1u);
    EXPECT_EQ(s->rx[0][0].contributions.size(), 1u);
    EXPECT_EQ(s->rx[0][0].contributions[0].sender, 1u);
    EXPECT_EQ(s->phys.Get(0)->GetCounters().late, 1u);
    EXPECT_EQ(s->phys.Get(0)->GetCounters().misaligned, 1u);
    ASSERT_EQ(s->misaligned[0].size(), 1u);
    EXPECT_EQ(s->misaligned[0][0].first->sender, 2u);
}

/// TDMA: N orthogonal slots per round; no reception ever superposes two senders.
TEST_F(OtaChannelTest, TdmaSlotsNeverSuperpose)
{
    OtaHelper helper = NoiselessHelper();
    helper.SetTdma(true);
    helper.SetChannelAttribute("Structure", EnumValue(OtaChannel::STRUCTURE_SENDER_ONLY));
    std::vector<Vector> pos;
    for (int i = 0; i < 5; ++i)
    {
        pos.emplace_back(20.0 * i, 3.0 * i * i, 0.0);
    }
    auto s = Build(pos, helper);
    const uint32_t n = 5;
    for (uint64_t round = 0; round < 2; ++round)
    {
        for (uint32_t k = 0; k < n; ++k)
        {
            EXPECT_EQ(s->phys.Get(k)->GetSlotForRound(round), round * n + k);
            auto sym = RandomSymbols(150, 300 + round * n + k);
            ASSERT_TRUE(s->phys.Get(k)->TransmitInRound(round, sym, Complex(1.0, -0.5)));
        }
    }
    Simulator::Run();
    ASSERT_EQ(s->txStarts.size(), 10u);
    for (uint32_t i = 0; i < n; ++i)
    {
        ASSERT_EQ(s->rx[i].size(), 2u * (n - 1)) << i;
        std::set<uint64_t> slots;
        for (const auto& r : s->rx[i])
        {
            EXPECT_EQ(r.contributors, 1u);
            ASSERT_EQ(r.contributions.size(), 1u);
            const auto& c = r.contributions[0];
            EXPECT_EQ(r.slot % n, c.sender);
            EXPECT_EQ(r.round, r.slot / n);
            EXPECT_NE(c.sender, i);
            slots.insert(r.slot);
            Ptr<const OtaSignal> sig;
            for (const auto& t : s->txStarts)
            {
                if (t->txId == c.txId)
                {
                    sig = t;
                }
            }
            ASSERT_TRUE(sig);
            EXPECT_LT(RelErr(r.symbols, c.effective * *sig->symbols), 1e-12);
            EXPECT_LE(r.deliveredAt, s->channel->GetSlotStart(r.slot + 1));
        }
        EXPECT_EQ(slots.size(), 2u * (n - 1));
    }
    // Airtime: transmissions never overlap; a round lasts N slots.
    auto air = s->airtime;
    std::sort(air.begin(), air.end());
    for (std::size_t j = 0; j + 1 < air.size(); ++j)
    {
        EXPECT_LE(air[j].second, air[j + 1].first);
    }
    EXPECT_EQ(air.front().first, Seconds(0));
    EXPECT_EQ(air.back().first, s->channel->GetSlotStart(2 * n - 1));
}

/// Fading drawn by the channel: E|g|^2 = 1 and the |g| CDF, for each model (block fading).
TEST_F(OtaChannelTest, ChannelFadingDistribution)
{
    struct Case
    {
        OtaChannel::FadingModel model;
        double k;
        double m;
    };

    for (const Case& cs : {Case{OtaChannel::FADING_RAYLEIGH, 0, 1},
                           Case{OtaChannel::FADING_RICIAN, 3.0, 1},
                           Case{OtaChannel::FADING_NAKAGAMI, 0, 2.0}})
    {
        OtaHelper helper;
        helper.DisablePropagationLoss();
        helper.SetChannelAttribute("FadingModel", EnumValue(cs.model));
        helper.SetChannelAttribute("RicianK", DoubleValue(cs.k));
        helper.SetChannelAttribute("NakagamiM", DoubleValue(cs.m));
        helper.SetChannelAttribute("Coherence", EnumValue(OtaChannel::COHERENCE_PER_SLOT));
        auto s = Build({Vector(0, 0, 0), Vector(10, 0, 0)}, helper);
        const std::size_t n = 20000;
        std::vector<double> power(n);
        std::vector<double> amp(n);
        for (std::size_t t = 0; t < n; ++t)
        {
            const Complex h = s->channel->GetCoefficient(1, 0, t);
            power[t] = std::norm(h);
            amp[t] = std::abs(h);
        }
        const fl::FadingSpec spec = s->channel->GetFadingSpec();
        const double sd = std::sqrt(fl::FadingPowerVariance(spec));
        EXPECT_NEAR(Mean(power), 1.0, 5.0 * sd / std::sqrt(double(n))) << cs.model;
        auto cdf = [&](double r) {
            if (cs.model == OtaChannel::FADING_RAYLEIGH)
            {
                return 1.0 - std::exp(-r * r);
            }
            if (cs.model == OtaChannel::FADING_RICIAN)
            {
                boost::math::non_central_chi_squared_distribution<double> d(2.0, 2.0 * cs.k);
                return boost::math::cdf(d, 2.0 * (cs.k + 1.0) * r * r);
            }
            boost::math::gamma_distribution<double> d(cs.m, 1.0 / cs.m);
            return boost::math::cdf(d, r * r);
        };
        EXPECT_LT(KsStatistic(amp, cdf), 1.95 / std::sqrt(double(n))) << cs.model;
        Simulator::Destroy();
    }
}

/// Coherence (fixed / per slot / per transmission) and reciprocity of per-link coefficients.
TEST_F(OtaChannelTest, CoherenceAndReciprocity)
{
    {
        OtaHelper helper;
        helper.SetChannelAttribute("Coherence", EnumValue(OtaChannel::COHERENCE_FIXED));
        auto s = Build(kSixNodes, helper);
        const Complex h0 = s->channel->GetCoefficient(1, 2, 0);
        for (uint64_t t = 1; t < 50; ++t)
        {
            EXPECT_EQ(s->channel->GetCoefficient(1, 2, t), h0);
        }
        EXPECT_EQ(s->channel->GetCoefficient(2, 1, 0), h0); // reciprocal by default
        Simulator::Destroy();
    }
    {
        OtaHelper helper;
        helper.SetChannelAttribute("Coherence", EnumValue(OtaChannel::COHERENCE_PER_SLOT));
        helper.SetChannelAttribute("Reciprocal", BooleanValue(false));
        auto s = Build(kSixNodes, helper);
        EXPECT_NE(s->channel->GetCoefficient(1, 2, 0), s->channel->GetCoefficient(1, 2, 1));
        EXPECT_NE(s->channel->GetCoefficient(1, 2, 0), s->channel->GetCoefficient(2, 1, 0));
        // Queries in any order return the same value (deterministic per block).
        const Complex a = s->channel->GetCoefficient(1, 2, 5);
        s->channel->GetCoefficient(1, 2, 9);
        EXPECT_EQ(s->channel->GetCoefficient(1, 2, 5), a);
        Simulator::Destroy();
    }
    {
        OtaHelper helper = NoiselessHelper();
        helper.SetChannelAttribute("Coherence", EnumValue(OtaChannel::COHERENCE_PER_TRANSMISSION));
        auto s = Build({Vector(0, 0, 0), Vector(10, 0, 0)}, helper);
        const Complex before = s->channel->GetCoefficient(1, 0, 0);
        ASSERT_TRUE(s->phys.Get(1)->Transmit(0, RandomSymbols(10, 1), Complex(1.0, 0.0)));
        const Complex after = s->channel->GetCoefficient(1, 0, 0);
        EXPECT_NE(before, after);
        Simulator::Run();
        ASSERT_EQ(s->rx[0].size(), 1u);
        EXPECT_EQ(s->rx[0][0].contributions[0].coefficient, before);
    }
}

/// Half duplex: a phy that transmits in a slot does not receive it. Full duplex: own signal
/// excluded; with SelfInterference, residual CN(0, E_own 10^{SI/10}) (5-sigma CLT bound).
TEST_F(OtaChannelTest, DuplexModes)
{
    {
        OtaHelper helper = NoiselessHelper();
        helper.SetPhyAttribute("Duplex", EnumValue(OtaPhy::HALF_DUPLEX));
        auto s = Build({Vector(0, 0, 0), Vector(10, 0, 0), Vector(0, 10, 0)}, helper);
        for (uint32_t k = 0; k < 3; ++k)
        {
            ASSERT_TRUE(s->phys.Get(k)->Transmit(0, RandomSymbols(50, k), Complex(1.0, 0.0)));
        }
        ASSERT_TRUE(s->phys.Get(0)->Transmit(1, RandomSymbols(50, 9), Complex(1.0, 0.0)));
        Simulator::Run();
        for (uint32_t k = 0; k < 3; ++k)
        {
            // Counted per slot in which something arrived while transmitting (slot 0 only:
            // nobody else sends in slot 1).
            EXPECT_EQ(s->phys.Get(k)->GetCounters().halfDuplexBlocked, 1u);
        }
        EXPECT_TRUE(s->rx[0].empty());
        ASSERT_EQ(s->rx[1].size(), 1u); // slot 1 only
        EXPECT_EQ(s->rx[1][0].slot, 1u);
        EXPECT_EQ(s->rx[1][0].contributors, 1u);
        Simulator::Destroy();
    }
    {
        OtaHelper helper = NoiselessHelper();
        helper.SetChannelAttribute("SlotDuration", TimeValue(MilliSeconds(25)));
        helper.SetPhyAttribute("SelfInterference", BooleanValue(true));
        helper.SetPhyAttribute("SelfInterferenceDb", DoubleValue(-20.0));
        auto s = Build({Vector(0, 0, 0), Vector(10, 0, 0)}, helper);
        const Eigen::Index n = 20000;
        auto own = RandomSymbols(n, 1);
        auto other = RandomSymbols(n, 2);
        ASSERT_TRUE(s->phys.Get(0)->Transmit(0, own, Complex(0.3, 0.0)));
        ASSERT_TRUE(s->phys.Get(1)->Transmit(0, other, Complex(0.3, 0.0)));
        Simulator::Run();
        ASSERT_EQ(s->rx[0].size(), 1u);
        const OtaReception& r = s->rx[0][0];
        const double si = 0.09 * fl::MeanSymbolEnergy(*own) * 0.01;
        EXPECT_NEAR(r.selfInterferencePowerW / si, 1.0, 1e-12);
        const fl::SymbolVector residual = r.symbols - r.contributions[0].effective * *other;
        std::vector<double> p(n);
        for (Eigen::Index m = 0; m < n; ++m)
        {
            p[m] = std::norm(residual[m]);
        }
        EXPECT_NEAR(Mean(p), si, 5.0 * si / std::sqrt(double(n)));
    }
}

/// Transmit() refuses a slot whose boundary has passed and an overlapping transmission.
TEST_F(OtaChannelTest, RefusesLateAndOverlappingTransmissions)
{
    OtaHelper helper = NoiselessHelper();
    auto s = Build({Vector(0, 0, 0), Vector(10, 0, 0)}, helper);
    Ptr<OtaPhy> phy = s->phys.Get(1);
    FlSchedule(MicroSeconds(500), [phy]() {
        EXPECT_FALSE(phy->Transmit(0, RandomSymbols(10, 1), Complex(1.0, 0.0)));
        EXPECT_TRUE(phy->Transmit(1, RandomSymbols(10, 1), Complex(1.0, 0.0)));
        EXPECT_FALSE(phy->Transmit(1, RandomSymbols(10, 2), Complex(1.0, 0.0)));
    });
    Simulator::Run();
    EXPECT_EQ(phy->GetCounters().txLate, 1u);
    EXPECT_EQ(phy->GetCounters().txBusy, 1u);
    EXPECT_EQ(phy->GetCounters().txStarted, 1u);
}

/// Clock jitter moves transmission starts within its distribution; EnforcePowerLimit caps the
/// mean symbol energy at TxPower.
TEST_F(OtaChannelTest, JitterAndPowerLimit)
{
    OtaHelper helper = NoiselessHelper();
    helper.DisablePropagationDelay();
    helper.SetPhyAttribute("ClockJitter",
                           StringValue("ns3::UniformRandomVariable[Min=0.0|Max=1e-6]"));
    helper.SetPhyAttribute("EnforcePowerLimit", BooleanValue(true));
    helper.SetPhyAttribute("TxPower", DoubleValue(0.0)); // 1 mW
    auto s = Build({Vector(0, 0, 0), Vector(10, 0, 0)}, helper);
    const uint32_t slots = 200;
    for (uint32_t t = 0; t < slots; ++t)
    {
        // |b|^2 mean|s|^2 = 4 x ~1 > 1 mW: scaled down to exactly 1 mW.
        ASSERT_TRUE(s->phys.Get(1)->Transmit(t, RandomSymbols(20, t), Complex(2.0, 0.0)));
    }
    Simulator::Run();
    ASSERT_EQ(s->txStarts.size(), slots);
    uint32_t misaligned = 0;
    for (const auto& sig : s->txStarts)
    {
        const Time offset = sig->start - s->channel->GetSlotStart(sig->slot);
        EXPECT_GE(offset, Seconds(0));
        EXPECT_LE(offset, MicroSeconds(1));
        EXPECT_NEAR(sig->txEnergy / 1e-3, 1.0, 1e-12);
        EXPECT_NEAR(std::norm(sig->precoder) * fl::MeanSymbolEnergy(*sig->symbols) / 1e-3,
                    1.0,
                    1e-12);
        misaligned += offset > NanoSeconds(500) ? 1 : 0;
    }
    EXPECT_EQ(s->phys.Get(1)->GetCounters().txPowerScaled, slots);
    // Offsets beyond the 500 ns tolerance are misaligned at the receiver: Binomial(200, 1/2),
    // 100 +- 7; the bounds are more than 5 standard deviations wide.
    EXPECT_EQ(s->phys.Get(0)->GetCounters().misaligned, misaligned);
    EXPECT_GT(misaligned, 60u);
    EXPECT_LT(misaligned, 140u);
}

/// Configuration errors stop with a message that names the parameter.
TEST_F(OtaChannelTest, ConfigurationErrorsAreFatal)
{
    ::testing::FLAGS_gtest_death_test_style = "threadsafe";
    EXPECT_DEATH(
        {
            OtaHelper helper;
            auto s = Build({Vector(0, 0, 0), Vector(10, 0, 0)}, helper);
            s->phys.Get(1)->Transmit(0, RandomSymbols(5000, 1), Complex(1.0, 0.0));
        },
        "SlotDuration");
    EXPECT_DEATH(
        {
            NodeContainer nodes;
            nodes.Create(2);
            OtaHelper().Install(nodes);
        },
        "MobilityModel");
}

/// CSI estimates: h_hat - h ~ CN(0, CsiErrorVariance x large-scale gain) (5-sigma CLT bound).
TEST_F(OtaChannelTest, EstimatedCsiErrorVariance)
{
    OtaHelper helper;
    helper.SetPhyAttribute("CsiErrorVariance", DoubleValue(0.05));
    auto s = Build({Vector(0, 0, 0), Vector(30, 0, 0)}, helper);
    const double gain = std::pow(10.0, s->channel->GetLargeScaleGainDb(1, 0) / 10.0);
    const std::size_t n = 20000;
    std::vector<double> e(n);
    for (std::size_t t = 0; t < n; ++t)
    {
        const Complex h = s->phys.Get(1)->GetTrueChannel(s->phys.Get(0), t);
        e[t] = std::norm(s->phys.Get(1)->GetChannelEstimate(s->phys.Get(0), t) - h) / gain;
    }
    EXPECT_NEAR(Mean(e), 0.05, 5.0 * 0.05 / std::sqrt(double(n)));
}

/// The same streams reproduce a noisy run bit for bit; other streams change the noise.
TEST_F(OtaChannelTest, DeterministicWithAssignedStreams)
{
    auto run = [](int64_t stream) {
        OtaHelper helper;
        auto s = Build(kSixNodes, helper, stream);
        for (uint32_t k = 1; k < 6; ++k)
        {
            s->phys.Get(k)->Transmit(0, RandomSymbols(64, k), Complex(1e3, 0.0));
        }
        Simulator::Run();
        fl::SymbolVector y = s->rx[0].at(0).symbols;
        Simulator::Destroy();
        return y;
    };
    const fl::SymbolVector a = run(11);
    const fl::SymbolVector b = run(11);
    const fl::SymbolVector c = run(12);
    EXPECT_EQ(a, b);
    EXPECT_NE(a, c);
}

/**
 * AirComp through the whole stack: N senders on a circle around a receiver, Rayleigh block
 * fading, truncated channel inversion with perfect CSI, thermal noise. Per slot, the MSE of the
 * estimated mean is compared with
 *  - fl::AirCompMseGivenChannel for the slot's realised channel (checks noise, superposition
 *    and alignment; the per-slot difference has only data and noise randomness), and
 *  - on average over slots, fl::AirCompMseRayleighTruncated (adds the fading statistics),
 * each within 5 standard errors of the slot average.
 */
TEST_F(OtaChannelTest, AirCompMseMatchesAnalytic)
{
    const uint32_t n = 8;
    const std::size_t d = 64;
    const double snrDb = 10.0;
    const double gth = 0.3;
    const uint32_t slots = 2000;
    OtaHelper helper;
    helper.SetChannelAttribute("Coherence", EnumValue(OtaChannel::COHERENCE_PER_SLOT));
    helper.SetChannelAttribute("SlotDuration", TimeValue(OtaHelper::SlotDurationFor(d, 1e6)));
    std::vector<Vector> pos = {Vector(0, 0, 0)};
    for (uint32_t k = 0; k < n; ++k)
    {
        const double phi = 2.0 * M_PI * k / n;
        pos.emplace_back(20.0 * std::cos(phi), 20.0 * std::sin(phi), 0.0);
    }
    auto s = Build(pos, helper);
    Ptr<OtaChannel> ch = s->channel;
    const double gainDb = ch->GetLargeScaleGainDb(1, 0);
    const double gain = std::pow(10.0, gainDb / 10.0);
    const double noise = s->phys.Get(0)->GetNoiseVariance();
    const double txDbm = snrDb + fl::WToDbm(noise) - gainDb;
    for (uint32_t k = 1; k <= n; ++k)
    {
        s->phys.Get(k)->SetAttribute("TxPower", DoubleValue(txDbm));
        s->phys.Get(k)->SetAttribute("ReceiveEnabled", BooleanValue(false));
    }
    fl::Rng data(99);
    std::normal_distribution<double> g(0.0, std::sqrt(0.5));

    struct SlotTruth
    {
        Eigen::VectorXd mean;
        double c;
        std::size_t active;
    };

    std::map<uint64_t, SlotTruth> truth;
    std::map<uint64_t, double> mse;
    s->phys.Get(0)->SetReceiveCallback(
        FlCallback<void, const OtaReception&>([&](const OtaReception& r) {
            const SlotTruth& t = truth.at(r.slot);
            const Eigen::VectorXd est = fl::AirCompDecodeAverage(r.symbols, d, t.c, t.active);
            mse[r.slot] = (est - t.mean).squaredNorm() / double(d);
        }));
    std::function<void(uint64_t)> plan = [&](uint64_t slot) {
        std::vector<Complex> h(n);
        std::vector<double> p(n);
        for (uint32_t k = 0; k < n; ++k)
        {
            h[k] = s->phys.Get(k + 1)->GetChannelEstimate(s->phys.Get(0), slot);
            p[k] = s->phys.Get(k + 1)->GetTxPowerW();
        }
        fl::AlignmentConfig cfg;
        cfg.gainThreshold = gth * gain;
        const fl::AlignmentPlan pl = fl::PlanAlignment(h, p, cfg);
        Eigen::VectorXd mean = Eigen::VectorXd::Zero(d);
        for (uint32_t k = 0; k < n; ++k)
        {
            Eigen::VectorXd x(d);
            for (std::size_t j = 0; j < d; ++j)
            {
                x[j] = g(data);
            }
            mean += x / double(n);
            if (pl.active[k])
            {
                ASSERT_TRUE(s->phys.Get(k + 1)->TransmitReal(slot, x, pl.precoder[k]));
            }
        }
        if (pl.NumActive() == 0)
        {
            mse[slot] = mean.squaredNorm() / double(d); // nothing sent: the estimate is 0
        }
        truth[slot] = {mean, pl.c, pl.NumActive()};
        if (slot + 1 < slots)
        {
            const uint64_t next = slot + 1;
            FlSchedule(ch->GetSlotStart(next) - Simulator::Now(), [&plan, next]() { plan(next); });
        }
    };
    FlSchedule(Seconds(0), [&plan]() { plan(0); });
    Simulator::Run();
    ASSERT_EQ(mse.size(), slots);
    std::vector<double> sim;
    std::vector<double> diff;
    for (const auto& [slot, m] : mse)
    {
        const SlotTruth& t = truth.at(slot);
        sim.push_back(m);
        diff.push_back(m - fl::AirCompMseGivenChannel(n, t.active, t.c, 0.5, noise));
    }
    const double sn = std::sqrt(double(slots));
    EXPECT_NEAR(Mean(diff), 0.0, 5.0 * SampleSd(diff) / sn);
    const double analytic =
        fl::AirCompMseRayleighTruncated(n, 0.5, std::pow(10.0, snrDb / 10.0), 1.0, gth);
    const double se = SampleSd(sim) / sn;
    EXPECT_NEAR(Mean(sim), analytic, 5.0 * se);
    std::cout << "AirComp N=" << n << " SNR=" << snrDb << " dB, " << slots
              << " slots: simulated MSE " << Mean(sim) << " +- " << se << " (analytic " << analytic
              << "); simulated - given-channel " << Mean(diff) << " +- " << SampleSd(diff) / sn
              << std::endl;
}

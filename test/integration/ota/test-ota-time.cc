/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The analog channel over time: the time-correlated fading (Coherence Correlated) and aged
 * channel estimates (CsiAge), on the channel alone and under DWFL. Without motion the correlated
 * channel is the fixed one, bit for bit; with motion the estimate and the slot's coefficient
 * decorrelate as J0(2 pi f_D tau), a sender aligned on an aged estimate arrives with c h / h^
 * (h^ the estimate), and DWFL's per-round epsilon follows the slot's true channels.
 */
#include "fl-test-task.h"

#include "ns3/core-module.h"
#include "ns3/dwfl-helper.h"
#include "ns3/dwfl-privacy.h"
#include "ns3/dwfl-worker-application.h"
#include "ns3/fl-ns3-compat.h"
#include "ns3/mobility-module.h"
#include "ns3/ota-channel.h"
#include "ns3/ota-helper.h"
#include "ns3/ota-signal.h"

#include <cmath>
#include <gtest/gtest.h>
#include <map>
#include <memory>
#include <vector>

using namespace ns3;
using fl::Complex;

namespace
{

constexpr double kCarrier = 2.4e9;

/// `n` nodes on a line 3 m apart, each moving along y at `speed` m/s (0: constant position).
NodeContainer
MovingNodes(uint32_t n, double speed)
{
    NodeContainer nodes;
    nodes.Create(n);
    MobilityHelper mobility;
    Ptr<ListPositionAllocator> alloc = CreateObject<ListPositionAllocator>();
    for (uint32_t i = 0; i < n; ++i)
    {
        alloc->Add(Vector(3.0 * i, 0.0, 0.0));
    }
    mobility.SetPositionAllocator(alloc);
    mobility.SetMobilityModel("ns3::ConstantVelocityMobilityModel");
    mobility.Install(nodes);
    for (uint32_t i = 0; i < n; ++i)
    {
        nodes.Get(i)->GetObject<ConstantVelocityMobilityModel>()->SetVelocity(
            Vector(0.0, speed, 0.0));
    }
    return nodes;
}

/// A noiseless channel helper with the given coherence, structure, fading and CSI age.
OtaHelper
Helper(OtaChannel::Coherence coherence,
       OtaChannel::Structure structure,
       OtaChannel::FadingModel fading,
       Time csiAge)
{
    OtaHelper h;
    h.DisablePropagationLoss();
    h.SetPhyAttribute("NoiseModel", EnumValue(OtaPhy::NOISE_FIXED));
    h.SetPhyAttribute("NoiseVariance", DoubleValue(0.0));
    h.SetChannelAttribute("Coherence", EnumValue(coherence));
    h.SetChannelAttribute("Structure", EnumValue(structure));
    h.SetChannelAttribute("FadingModel", EnumValue(fading));
    h.SetChannelAttribute("CarrierFrequency", DoubleValue(kCarrier));
    h.SetChannelAttribute("CsiAge", TimeValue(csiAge));
    return h;
}

class OtaTimeTest : public ::testing::Test
{
  protected:
    void TearDown() override
    {
        Simulator::Destroy();
    }
};

} // namespace

/// Without motion the correlated process stays at its first value, the fixed coefficient, for
/// every slot and every CSI age: bit for bit, Rayleigh and Rician, per link and sender only.
TEST_F(OtaTimeTest, StillCorrelatedChannelIsTheFixedChannel)
{
    for (auto fading : {OtaChannel::FADING_RAYLEIGH, OtaChannel::FADING_RICIAN})
    {
        for (auto structure : {OtaChannel::STRUCTURE_PER_LINK, OtaChannel::STRUCTURE_SENDER_ONLY})
        {
            NodeContainer a = MovingNodes(4, 0.0);
            OtaPhyContainer fixed =
                Helper(OtaChannel::COHERENCE_FIXED, structure, fading, Seconds(0)).Install(a);
            OtaHelper::AssignStreams(fixed, 5);
            NodeContainer b = MovingNodes(4, 0.0);
            OtaPhyContainer correlated =
                Helper(OtaChannel::COHERENCE_CORRELATED, structure, fading, MicroSeconds(2300))
                    .Install(b);
            OtaHelper::AssignStreams(correlated, 5);
            for (uint64_t slot = 0; slot < 30; ++slot)
            {
                for (uint32_t tx = 0; tx < 4; ++tx)
                {
                    const uint32_t rx = (tx + 1) % 4;
                    const Complex h = fixed.GetChannel()->GetCoefficient(tx, rx, slot);
                    EXPECT_EQ(correlated.GetChannel()->GetCoefficient(tx, rx, slot), h);
                    EXPECT_EQ(correlated.GetChannel()->GetCsiCoefficient(tx, rx, slot), h);
                }
            }
            EXPECT_EQ(correlated.GetChannel()->GetDopplerFrequency(0, 1), 0.0);
            EXPECT_TRUE(correlated.GetChannel()->IsStill());
            Simulator::Destroy();
        }
    }
}

/// Moving senders: the estimate measured CsiAge = a before the slot and the slot's coefficient
/// have correlation E[h conj(h^)] = J0(2 pi f_D a) (one Gauss-Markov step of lag a), f_D =
/// v f_c / c. 3,000 independent sender-only links at v = 30 m/s, f_c = 2.4 GHz (f_D = 240.2 Hz),
/// a = 0.994 ms (2 pi f_D a = 1.50, J0 = 0.512). Re(h conj(h^)) has mean rho and variance
/// (1 + rho^2) / 2 for CN(0, 1) parts: the mean of 3,000 is within 5 standard errors (0.073);
/// E|h|^2 = 1 within 5 sqrt(1 / 3000) (|h|^2 ~ Exp(1) has variance 1).
TEST_F(OtaTimeTest, AgedEstimateDecorrelatesAsJakes)
{
    const uint32_t n = 3000;
    const double v = 30.0;
    const Time age = MicroSeconds(994);
    NodeContainer nodes = MovingNodes(n, v);
    OtaPhyContainer phys = Helper(OtaChannel::COHERENCE_CORRELATED,
                                  OtaChannel::STRUCTURE_SENDER_ONLY,
                                  OtaChannel::FADING_RAYLEIGH,
                                  age)
                               .Install(nodes);
    OtaHelper::AssignStreams(phys, 9);
    Ptr<OtaChannel> channel = phys.GetChannel();
    const double fD = v * kCarrier / fl::kSpeedOfLight;
    EXPECT_NEAR(channel->GetDopplerFrequency(0, 0), fD, 1e-12 * fD);
    EXPECT_FALSE(channel->IsStill());
    const double rho = std::cyl_bessel_j(0.0, 2.0 * M_PI * fD * age.GetSeconds());
    double corr = 0.0;
    double power = 0.0;
    for (uint32_t k = 0; k < n; ++k)
    {
        const Complex h = channel->GetCoefficient(k, k, 0);
        const Complex est = channel->GetCsiCoefficient(k, k, 0);
        corr += std::real(h * std::conj(est));
        power += std::norm(h);
    }
    corr /= n;
    power /= n;
    EXPECT_NEAR(corr, rho, 5.0 * std::sqrt((1.0 + rho * rho) / (2.0 * n)));
    EXPECT_NEAR(power, 1.0, 5.0 * std::sqrt(1.0 / n));
    EXPECT_LT(rho, 0.6); // the check could fail: the estimate is far from the slot's coefficient
}

/// A sender aligned on an aged estimate: it precodes b = c / h^, the receiver gets h b x =
/// c (h / h^) x, with h and h^ the channel's own coefficient and estimate (the hand
/// calculation), to 1e-12; moving, h / h^ is off 1 by more than 1 %; still, it is exactly 1.
TEST_F(OtaTimeTest, StaleCsiMisalignsByTheRatioOfTheTrueChannelToTheEstimate)
{
    for (double v : {0.0, 20.0})
    {
        NodeContainer nodes = MovingNodes(2, v);
        OtaHelper helper = Helper(OtaChannel::COHERENCE_CORRELATED,
                                  OtaChannel::STRUCTURE_SENDER_ONLY,
                                  OtaChannel::FADING_RAYLEIGH,
                                  MicroSeconds(1500));
        helper.SetPhyAttribute("SyncTolerance", TimeValue(MicroSeconds(1)));
        OtaPhyContainer phys = helper.Install(nodes);
        OtaHelper::AssignStreams(phys, 3);
        std::vector<OtaReception> received;
        phys.Get(0)->SetReceiveCallback(FlCallback<void, const OtaReception&>(
            [&received](const OtaReception& r) { received.push_back(r); }));
        const uint64_t slot = 4;
        const double c = 0.7;
        const Complex est = phys.Get(1)->GetChannelEstimate(nullptr, slot);
        const Complex h = phys.GetChannel()->GetCoefficient(1, 1, slot);
        auto x = std::make_shared<fl::SymbolVector>(3);
        *x << Complex(1.0, 0.5), Complex(-0.25, 2.0), Complex(0.0, -1.0);
        ASSERT_TRUE(phys.Get(1)->Transmit(slot, x, c / est));
        Simulator::Run();
        ASSERT_EQ(received.size(), 1u);
        const Complex ratio = h / est;
        for (Eigen::Index m = 0; m < 3; ++m)
        {
            EXPECT_LT(std::abs(received[0].symbols[m] - c * ratio * (*x)[m]), 1e-12);
        }
        if (v == 0.0)
        {
            EXPECT_EQ(ratio, Complex(1.0, 0.0));
        }
        else
        {
            EXPECT_GT(std::abs(ratio - Complex(1.0, 0.0)), 1e-2);
        }
        Simulator::Destroy();
    }
}

namespace
{

/// Every worker's model after every round and its reported epsilon, of a DWFL run.
struct DwflTimeRun
{
    std::map<uint32_t, std::map<uint32_t, Eigen::VectorXd>> model; ///< round -> worker -> x
    std::map<uint32_t, std::map<uint32_t, double>> epsilon;        ///< round -> worker -> eps
    std::map<uint32_t, std::map<uint32_t, double>> c;              ///< round -> worker -> c
    std::map<uint32_t, std::map<uint32_t, double>> beta;           ///< round -> worker -> beta
    /// round -> (|h_k| of the data slot, |h^_k| of its estimate), queried from the channel
    std::map<uint32_t, std::pair<std::vector<double>, std::vector<double>>> gains;
    fl::DwflPrivacyParams params; ///< worker 0's privacy parameters
    std::vector<double> power;    ///< each worker's transmit power P_k [W]
    uint32_t setups{0};           ///< control bursts seen
};

/// N = 3 DWFL workers with artificial noise calibrated to eps = 1, 4 rounds (centralized: the
/// workers of the over-the-air parameter server, standing at the origin).
DwflTimeRun
RunDwfl(OtaChannel::Coherence coherence,
        double speed,
        Time csiAge,
        bool centralized = false,
        Time computeTime = Seconds(0))
{
    const uint32_t n = 3;
    fl::LocalTrainerConfig tc = fltest::TestTrainer();
    tc.localSteps = 1;
    tc.learningRate = 0.1;
    tc.clipNorm = 1.0;
    auto task = fltest::MakeTask<double>(n, "softmax", 8, tc);
    NodeContainer nodes = MovingNodes(n, speed);
    NodeContainer serverNode;
    serverNode.Create(1);
    MobilityHelper still;
    still.Install(serverNode);
    DwflHelper dwfl;
    dwfl.Ota().DisablePropagationLoss();
    dwfl.Ota().SetPhyAttribute("TxPower", DoubleValue(30.0));
    dwfl.Ota().SetPhyAttribute("NoiseModel", StringValue("Fixed"));
    dwfl.Ota().SetPhyAttribute("NoiseVariance", DoubleValue(0.01));
    dwfl.Ota().SetChannelAttribute("Coherence", EnumValue(coherence));
    dwfl.Ota().SetChannelAttribute("CarrierFrequency", DoubleValue(kCarrier));
    dwfl.Ota().SetChannelAttribute("CsiAge", TimeValue(csiAge));
    dwfl.SetWorkerAttribute("Rounds", UintegerValue(4));
    dwfl.SetWorkerAttribute("TargetEpsilon", DoubleValue(1.0));
    dwfl.SetWorkerAttribute("ComputeTime", TimeValue(computeTime));
    DwflNetwork net = centralized ? dwfl.InstallCentralized(nodes, serverNode.Get(0), task)
                                  : dwfl.Install(nodes, task);
    DwflHelper::AssignStreams(net, 11);
    DwflTimeRun run;
    Ptr<OtaChannel> channel = net.phys.GetChannel();
    Ptr<DwflWorkerApplication> first = DynamicCast<DwflWorkerApplication>(net.workers.Get(0));
    for (uint32_t i = 0; i < n; ++i)
    {
        net.workers.Get(i)->TraceConnectWithoutContext(
            "Round",
            FlCallback<void, const DwflRoundReport&>(
                [&run, i, n, channel, first](const DwflRoundReport& r) {
                    run.epsilon[r.round][i] = r.epsilon;
                    run.c[r.round][i] = r.c;
                    run.beta[r.round][i] = r.beta;
                    if (i == 0)
                    {
                        // what the workers aligned on and what the data slot had (sender only)
                        const uint64_t slot = first->GetDataSlot();
                        std::vector<double> trueGain;
                        std::vector<double> estimate;
                        for (uint32_t k = 0; k < n; ++k)
                        {
                            trueGain.push_back(std::abs(channel->GetCoefficient(k, k, slot)));
                            estimate.push_back(std::abs(channel->GetCsiCoefficient(k, k, slot)));
                        }
                        run.gains[r.round] = {trueGain, estimate};
                    }
                }));
        net.workers.Get(i)->TraceConnectWithoutContext(
            "ModelReport",
            FlCallback<void, const FlModelReport&>([&run, i](const FlModelReport& r) {
                run.model[r.round][i] = r.model->Get<double>();
            }));
    }
    net.phys.Get(0)->TraceConnectWithoutContext(
        "TxStart",
        FlCallback<void, Ptr<const OtaSignal>>([&run](Ptr<const OtaSignal> s) {
            run.setups += s->symbols->size() == 1 ? 1 : 0; // the one-symbol control burst
        }));
    DoubleValue sigma2;
    DoubleValue delta;
    first->GetAttribute("Sigma2", sigma2);
    first->GetAttribute("Delta", delta);
    run.params.gamma = tc.learningRate;
    run.params.gMax = tc.clipNorm;
    run.params.sigma2 = sigma2.Get();
    run.params.sigmaM2 = 0.01 / 2.0; // per real entry: half the complex noise variance
    run.params.delta = delta.Get();
    for (uint32_t k = 0; k < n; ++k)
    {
        run.power.push_back(net.phys.Get(k)->GetTxPowerW());
    }
    if (net.server)
    {
        net.server->SetStartTime(Seconds(0));
    }
    net.workers.Start(Seconds(0));
    Simulator::Run();
    Simulator::Destroy();
    return run;
}

} // namespace

/// DWFL on a correlated channel whose nodes stand still (zero speed, zero CSI age) is DWFL on
/// the fixed channel: one alignment, the same models and epsilons, bit for bit.
TEST_F(OtaTimeTest, DwflWithoutMotionEqualsTheStaticChannel)
{
    const DwflTimeRun fixed = RunDwfl(OtaChannel::COHERENCE_FIXED, 0.0, Seconds(0));
    const DwflTimeRun still = RunDwfl(OtaChannel::COHERENCE_CORRELATED, 0.0, Seconds(0));
    ASSERT_EQ(fixed.model.size(), 5u);
    EXPECT_EQ(fixed.setups, 1u);
    EXPECT_EQ(still.setups, 1u);
    EXPECT_EQ(still.model, fixed.model);
    EXPECT_EQ(still.epsilon, fixed.epsilon);
    // with an aged estimate and no motion the coefficients have not changed either
    const DwflTimeRun aged = RunDwfl(OtaChannel::COHERENCE_CORRELATED, 0.0, MicroSeconds(800));
    EXPECT_EQ(aged.model, fixed.model);
}

/// Moving workers re-align every round; the estimates have aged, so the round's epsilon is
/// computed from the slot's true channels: by hand, eq. (11) with the true |h_k| in the noise
/// and the amplitude c max_{k != i} |h_k| / |h^_k| (fl::DwflMisalignedAmplitude), each |h|
/// queried from the channel, to 1e-12. Without motion it is the calibrated target; at 30 m/s with
/// 2 ms old estimates some round's epsilon is off the target.
TEST_F(OtaTimeTest, MovingDwflRealignsAndReportsTheTrueChannelsEpsilon)
{
    const DwflTimeRun moving = RunDwfl(OtaChannel::COHERENCE_CORRELATED, 30.0, MilliSeconds(2));
    EXPECT_EQ(moving.setups, 4u); // one alignment per round
    const std::vector<double>& power = moving.power;
    for (const auto& [round, byWorker] : moving.epsilon)
    {
        const auto& [trueGain, estimate] = moving.gains.at(round);
        std::vector<double> beta;
        for (uint32_t k = 0; k < 3; ++k)
        {
            beta.push_back(moving.beta.at(round).at(k));
        }
        for (const auto& [worker, eps] : byWorker)
        {
            const double c = fl::DwflMisalignedAmplitude(worker,
                                                         trueGain,
                                                         estimate,
                                                         moving.c.at(round).at(worker));
            const double hand = fl::DwflEpsilon(worker, trueGain, power, beta, c, moving.params);
            EXPECT_NEAR(eps, hand, 1e-12 * hand) << "round " << round << " worker " << worker;
        }
    }
    const DwflTimeRun still = RunDwfl(OtaChannel::COHERENCE_CORRELATED, 0.0, MilliSeconds(2));
    for (const auto& [round, byWorker] : still.epsilon)
    {
        for (const auto& [worker, eps] : byWorker)
        {
            EXPECT_NEAR(eps, 1.0, 1e-9) << "round " << round << " worker " << worker;
        }
    }
    bool differs = false;
    for (const auto& [round, byWorker] : moving.epsilon)
    {
        for (const auto& [worker, eps] : byWorker)
        {
            differs = differs || std::abs(eps - 1.0) > 1e-3;
        }
    }
    EXPECT_TRUE(differs) << "aged estimates on moving workers changed no epsilon";
}

/// The over-the-air parameter server's workers on the move: the server's reception is eq. (11)
/// of the server (fl::OtaPsEpsilon) from the true gains and the amplitude c max_k |h_k| / |h^_k|
/// over every worker, by hand to 1e-12; standing still, the calibrated target.
TEST_F(OtaTimeTest, MovingParameterServerWorkersReportTheTrueChannelsEpsilon)
{
    const DwflTimeRun moving =
        RunDwfl(OtaChannel::COHERENCE_CORRELATED, 30.0, MilliSeconds(2), true);
    ASSERT_FALSE(moving.epsilon.empty());
    bool differs = false;
    for (const auto& [round, byWorker] : moving.epsilon)
    {
        const auto& [trueGain, estimate] = moving.gains.at(round);
        std::vector<double> beta;
        for (uint32_t k = 0; k < 3; ++k)
        {
            beta.push_back(moving.beta.at(round).at(k));
        }
        for (const auto& [worker, eps] : byWorker)
        {
            const double c =
                fl::DwflMisalignedAmplitude(3, trueGain, estimate, moving.c.at(round).at(worker));
            const double hand = fl::OtaPsEpsilon(trueGain, moving.power, beta, c, moving.params);
            EXPECT_NEAR(eps, hand, 1e-12 * hand) << "round " << round << " worker " << worker;
            differs = differs || std::abs(eps - 1.0) > 1e-3;
        }
    }
    EXPECT_TRUE(differs);
    const DwflTimeRun still = RunDwfl(OtaChannel::COHERENCE_CORRELATED, 0.0, MilliSeconds(2), true);
    for (const auto& [round, byWorker] : still.epsilon)
    {
        for (const auto& [worker, eps] : byWorker)
        {
            EXPECT_NEAR(eps, 1.0, 1e-9) << "round " << round << " worker " << worker;
        }
    }
}

/// The channel keeps the points of the process that may still be asked for: estimates made a
/// second (thousands of slots) before the data slot, a compute time of 1 s, work as any other.
TEST_F(OtaTimeTest, EstimatesFarAheadOfTheirSlot)
{
    const DwflTimeRun run =
        RunDwfl(OtaChannel::COHERENCE_CORRELATED, 10.0, MilliSeconds(1), false, Seconds(1));
    EXPECT_EQ(run.model.size(), 5u); // the initial model and 4 rounds
    EXPECT_EQ(run.setups, 4u);
}

/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Radio energy of FL clients (FlRadioEnergyMeter) against what the frames a station sends and
 * hears imply, and the energy of a training step (ComputeEnergyJoules).
 *
 * The meter (and ns-3's WifiRadioEnergyModel, which it is checked against) charges V x I(state)
 * over the time the PHY spends in each state. With
 * ns-3's default currents CCA_BUSY and SWITCHING draw the idle current, so a station's energy
 * over T seconds is
 *   E = V * [I_idle * T + (I_tx - I_idle) * T_tx + (I_rx - I_idle) * T_rx],
 * where T_tx is its transmission airtime and T_rx the time it spends in RX. The PHY enters RX
 * after the PHY header, so for an 802.11a/OFDM frame of airtime d, RX lasts d - 20 us
 * (16 us preamble + 4 us SIGNAL). The tests bound T_tx and T_rx from the frames.
 */
#include "ns3/basic-energy-source-helper.h"
#include "ns3/core-module.h"
#include "ns3/fl-energy-helper.h"
#include "ns3/fl-network-scenarios.h"
#include "ns3/fl-ns3-compat.h"
#include "ns3/fl-types.h"
#include "ns3/udp-client-server-helper.h"
#include "ns3/udp-server.h"
#include "ns3/wifi-net-device.h"
#include "ns3/wifi-phy.h"
#include "ns3/wifi-radio-energy-model-helper.h"
#include "ns3/wifi-tx-current-model.h"

#include <cmath>
#include <gtest/gtest.h>
#include <vector>

using namespace ns3;

namespace
{

// ns-3.37 defaults of WifiRadioEnergyModel [A].
constexpr double kIdleA = 0.273;
constexpr double kRxA = 0.313;
constexpr double kTxA = 0.380;
constexpr double kVolts = FlRadioEnergyMeter::kDefaultSupplyVoltageV;
// Preamble + SIGNAL of an OFDM (802.11a) PPDU [s]: not part of the RX state.
constexpr double kOfdmHeaderS = 20e-6;

/**
 * Airtime of an 802.11a (OFDM, 20 MHz, 5 GHz) PPDU at 6 Mb/s [s]: 16 us preamble + 4 us SIGNAL,
 * then 4 us symbols of 24 data bits carrying SERVICE (16 bits) + PSDU + tail (6 bits).
 */
double
OfdmAirtime6Mbps(uint32_t psduBytes)
{
    return kOfdmHeaderS + 4e-6 * std::ceil((16.0 + 8.0 * psduBytes + 6.0) / 24.0);
}

/// Airtimes of the frames one PHY sends and receives, from its monitor traces.
struct AirtimeLog
{
    double txS{0};       ///< total airtime of the frames sent [s]
    double rxS{0};       ///< total airtime of the frames received [s]
    uint32_t nTx{0};     ///< frames sent
    uint32_t nRx{0};     ///< frames received
    bool onlyOfdm{true}; ///< every frame used a non-HT OFDM mode (20 us PHY header)
};

void
LogRx(AirtimeLog* log,
      Ptr<const Packet> p,
      uint16_t /* freq */,
      WifiTxVector v,
      MpduInfo /* mpdu */,
      SignalNoiseDbm /* sn */,
      uint16_t /* staId */)
{
    log->rxS += WifiPhy::CalculateTxDuration(p->GetSize(), v, WIFI_PHY_BAND_5GHZ).GetSeconds();
    log->nRx++;
    log->onlyOfdm = log->onlyOfdm && v.GetMode().GetModulationClass() == WIFI_MOD_CLASS_OFDM;
}

void
LogTx(AirtimeLog* log,
      Ptr<const Packet> p,
      uint16_t /* freq */,
      WifiTxVector v,
      MpduInfo /* mpdu */,
      uint16_t /* staId */)
{
    log->txS += WifiPhy::CalculateTxDuration(p->GetSize(), v, WIFI_PHY_BAND_5GHZ).GetSeconds();
    log->nTx++;
    log->onlyOfdm = log->onlyOfdm && v.GetMode().GetModulationClass() == WIFI_MOD_CLASS_OFDM;
}

/// Result of one ad hoc UDP run.
struct UdpRun
{
    double clientJ{0};    ///< the client's radio energy [J]
    double totalJ{0};     ///< GetTotalRadioEnergy [J]
    uint64_t received{0}; ///< datagrams the server received
};

/**
 * 802.11a ad hoc scene: the server and one client, 6 Mb/s for data and ACKs
 * (ConstantRateWifiManager's defaults), static ARP (no ARP frames), no IPv6 addresses. The
 * client sends `packets` UDP datagrams of `payload` bytes to the server every 10 ms from 0.5 s;
 * the meter reads the client's radio energy at `simS` seconds.
 */
UdpRun
RunAdhocUdp(uint32_t packets,
            uint32_t payload,
            double simS,
            double volts,
            double txA = kTxA,
            double rxA = kRxA)
{
    UdpRun out;
    {
        FlWifiAdhocSceneHelper h;
        h.SetStandard("80211a");
        h.SetRateManager("ns3::ConstantRateWifiManager");
        FlScene scene = h.Build(1);
        FlWifiAdhocSceneHelper::AssignStreams(scene, 100);

        Ptr<FlRadioEnergyMeter> meter = Create<FlRadioEnergyMeter>();
        meter->SetSourceAttribute("BasicEnergySupplyVoltageV", DoubleValue(volts));
        meter->SetRadioAttribute("TxCurrentA", DoubleValue(txA));
        meter->SetRadioAttribute("RxCurrentA", DoubleValue(rxA));
        meter->InstallWifi(scene);

        const uint16_t port = 4000;
        UdpServerHelper serverHelper(port);
        ApplicationContainer sapp = serverHelper.Install(scene.serverNode);
        sapp.Start(Seconds(0.0));
        if (packets > 0)
        {
            UdpClientHelper clientHelper(scene.serverAddress, port);
            clientHelper.SetAttribute("MaxPackets", UintegerValue(packets));
            clientHelper.SetAttribute("Interval", TimeValue(MilliSeconds(10)));
            clientHelper.SetAttribute("PacketSize", UintegerValue(payload));
            clientHelper.Install(scene.clients.Get(0)).Start(Seconds(0.5));
        }

        Simulator::Stop(Seconds(simS));
        Simulator::Run();
        out.clientJ = meter->GetRadioEnergy(0);
        out.totalJ = meter->GetTotalRadioEnergy();
        out.received = DynamicCast<UdpServer>(sapp.Get(0))->GetReceived();
    }
    Simulator::Destroy();
    return out;
}

} // namespace

// An ad hoc network without traffic sends nothing (no beacons, static ARP, no IPv6 addresses):
// every radio stays in IDLE (or CCA_BUSY / SWITCHING, which draw the idle current), so the
// energy is I_idle * V * T up to rounding.
TEST(RadioEnergy, AdhocIdleStationDrawsExactlyIdleCurrent)
{
    const uint32_t n = 3;
    const double simS = 50.0;
    {
        FlWifiAdhocSceneHelper h;
        FlScene scene = h.Build(n);
        FlWifiAdhocSceneHelper::AssignStreams(scene, 100);
        Ptr<FlRadioEnergyMeter> meter = Create<FlRadioEnergyMeter>();
        EXPECT_EQ(meter->GetN(), 0u);
        meter->InstallWifi(scene);
        ASSERT_EQ(meter->GetN(), n);
        Simulator::Stop(Seconds(simS));
        Simulator::Run();
        const double expected = kIdleA * kVolts * simS;
        for (uint32_t i = 0; i < n; ++i)
        {
            EXPECT_NEAR(meter->GetRadioEnergy(i), expected, 1e-9 * expected) << "client " << i;
        }
        EXPECT_NEAR(meter->GetTotalRadioEnergy(), n * expected, 1e-9 * n * expected);
    }
    Simulator::Destroy();
}

// The reading is up to date at any simulated time, not only at the last state change: an idle
// radio read at 0.75 s, 1.75 s, ... has consumed I_idle * V * t.
TEST(RadioEnergy, ReadingIsUpToDateBetweenStateChanges)
{
    std::vector<double> readings;
    {
        FlWifiAdhocSceneHelper h;
        FlScene scene = h.Build(1);
        Ptr<FlRadioEnergyMeter> meter = Create<FlRadioEnergyMeter>();
        meter->InstallWifi(scene);
        for (int t = 1; t <= 4; ++t)
        {
            FlSchedule(Seconds(t - 0.25),
                       [meter, &readings]() { readings.push_back(meter->GetRadioEnergy(0)); });
        }
        Simulator::Stop(Seconds(5));
        Simulator::Run();
    }
    Simulator::Destroy();
    ASSERT_EQ(readings.size(), 4u);
    for (int t = 1; t <= 4; ++t)
    {
        const double expected = kIdleA * kVolts * (t - 0.25);
        EXPECT_NEAR(readings[t - 1], expected, 1e-12 * expected) << "at " << t - 0.25 << " s";
    }
}

// Installed during the run, the meter counts from the installation (ns-3's model itself counts
// from time 0).
TEST(RadioEnergy, InstalledDuringTheRunCountsFromInstallation)
{
    double energyJ = -1.0;
    {
        FlWifiAdhocSceneHelper h;
        FlScene scene = h.Build(2);
        Ptr<FlRadioEnergyMeter> meter = Create<FlRadioEnergyMeter>();
        FlSchedule(Seconds(1.5), [meter, scene]() {
            meter->InstallWifi(scene);
            EXPECT_EQ(meter->GetRadioEnergy(0), 0.0);
        });
        Simulator::Stop(Seconds(4));
        Simulator::Run();
        ASSERT_EQ(meter->GetN(), 2u);
        energyJ = meter->GetRadioEnergy(1);
    }
    Simulator::Destroy();
    const double expected = kIdleA * kVolts * 2.5;
    EXPECT_NEAR(energyJ, expected, 1e-9 * expected);
}

// A station of an infrastructure BSS without traffic hears the AP's beacons and associates:
// slightly more than idle. Bounds derived a priori, then from the frames it sent and heard.
TEST(RadioEnergy, InfrastructureIdleStationAboveIdleByBeaconsOnly)
{
    const double simS = 10.0;
    const double idleJ = kIdleA * kVolts * simS;
    double energyJ = 0.0;
    AirtimeLog log;
    {
        FlWifiScenarioHelper h; // 802.11n, 5 GHz, 20 MHz: beacons at 6 Mb/s OFDM
        FlScene w = h.Build(1);
        FlWifiScenarioHelper::AssignStreams(w, 100);
        Ptr<FlRadioEnergyMeter> meter = Create<FlRadioEnergyMeter>();
        meter->InstallWifi(w);
        Ptr<WifiPhy> phy = DynamicCast<WifiNetDevice>(w.devices.Get(1))->GetPhy();
        phy->TraceConnectWithoutContext("MonitorSnifferRx", MakeBoundCallback(&LogRx, &log));
        phy->TraceConnectWithoutContext("MonitorSnifferTx", MakeBoundCallback(&LogTx, &log));
        Simulator::Stop(Seconds(simS));
        Simulator::Run();
        energyJ = meter->GetRadioEnergy(0);
    }
    Simulator::Destroy();
    const double extraJ = energyJ - idleJ;

    // A priori. Beacons every 102.4 ms (ApWifiMac's BeaconInterval): at most ceil(T / 0.1024)
    // = 98, at least floor(T / 0.1024) - 1 = 96 in T = 10 s. A beacon of at most 300 bytes at
    // 6 Mb/s lasts at most 424 us (ns-3.37 sends 136 bytes, 208 us); the association takes a
    // handful of frames, at most 8 of at most 300 bytes, charged at the larger TX excess.
    // Every received beacon carries at least one 4 us OFDM symbol of RX.
    const double maxFrameS = OfdmAirtime6Mbps(300);
    const double upperJ =
        kVolts * ((kRxA - kIdleA) * 98 * maxFrameS + (kTxA - kIdleA) * 8 * maxFrameS);
    const double lowerJ = kVolts * (kRxA - kIdleA) * 96 * 4e-6;
    EXPECT_GT(extraJ, lowerJ);
    EXPECT_LT(extraJ, upperJ);
    EXPECT_LT(extraJ / idleJ, 1e-3); // beacons cost well under 0.1 % here

    // From the frames: all at non-HT OFDM rates, RX lasts each frame's airtime minus 20 us.
    ASSERT_TRUE(log.onlyOfdm);
    EXPECT_GE(log.nRx, 96u);
    EXPECT_GE(log.nTx, 1u); // at least the association request
    const double fromFramesJ =
        kVolts * ((kRxA - kIdleA) * (log.rxS - log.nRx * kOfdmHeaderS) + (kTxA - kIdleA) * log.txS);
    EXPECT_NEAR(extraJ, fromFramesJ, 1e-9 * idleJ);
}

// A known UDP load: each datagram is one 6 Mb/s data frame and one ACK heard back.
// MPDU = 1000 payload + 8 UDP + 20 IPv4 + 8 LLC/SNAP + 24 MAC header (802.11a: no QoS) + 4 FCS
// = 1064 bytes: 1444 us. ACK = 14 bytes: 44 us, of which 24 us in RX.
//   lower bound: every datagram the server received was sent at least once:
//                V * (I_tx - I_idle) * N * d_data   (> 0);
//   upper bound: one transmission and one full ACK airtime in RX per datagram (a clean link,
//                no retries; the only frames the client hears are the ACKs):
//                V * [(I_tx - I_idle) * N * d_data + (I_rx - I_idle) * N * d_ack].
// Non-default TX and RX currents check that SetRadioAttribute reaches the models.
TEST(RadioEnergy, UdpLoadCostsTransmitAndAckAirtime)
{
    const uint32_t packets = 200;
    const uint32_t payload = 1000;
    const double simS = 3.0;
    const double txA = 0.45;
    const double rxA = 0.35;
    const UdpRun idle = RunAdhocUdp(0, payload, simS, kVolts, txA, rxA);
    const UdpRun load = RunAdhocUdp(packets, payload, simS, kVolts, txA, rxA);
    ASSERT_EQ(load.received, packets);
    EXPECT_EQ(idle.received, 0u);

    const double idleJ = kIdleA * kVolts * simS;
    EXPECT_NEAR(idle.clientJ, idleJ, 1e-9 * idleJ);
    EXPECT_GT(load.clientJ, idle.clientJ);
    EXPECT_DOUBLE_EQ(load.totalJ, load.clientJ);

    const double dataS = OfdmAirtime6Mbps(payload + 8 + 20 + 8 + 24 + 4);
    const double ackS = OfdmAirtime6Mbps(14);
    ASSERT_NEAR(dataS, 1444e-6, 1e-12);
    ASSERT_NEAR(ackS, 44e-6, 1e-12);
    const double deltaJ = load.clientJ - idle.clientJ;
    const double lowerJ = kVolts * (txA - kIdleA) * packets * dataS;
    const double upperJ = lowerJ + kVolts * (rxA - kIdleA) * packets * ackS;
    EXPECT_GT(lowerJ, 0.0);
    EXPECT_GE(deltaJ, lowerJ * (1 - 1e-9));
    EXPECT_LE(deltaJ, upperJ * (1 + 1e-9));
    // Exactly: RX covers each ACK's airtime after its 20 us PHY header.
    const double exactJ = lowerJ + kVolts * (rxA - kIdleA) * packets * (ackS - kOfdmHeaderS);
    EXPECT_NEAR(deltaJ, exactJ, 1e-9 * idleJ);
}

// The model charges I * V * t in every state: the same run at another supply voltage scales
// every client's energy by the voltage ratio.
TEST(RadioEnergy, SupplyVoltageScalesEnergyLinearly)
{
    const UdpRun at3 = RunAdhocUdp(100, 600, 2.0, 3.0);
    const UdpRun at45 = RunAdhocUdp(100, 600, 2.0, 4.5);
    const UdpRun at12 = RunAdhocUdp(100, 600, 2.0, 1.2);
    ASSERT_EQ(at3.received, 100u);
    ASSERT_EQ(at45.received, 100u);
    ASSERT_EQ(at12.received, 100u);
    EXPECT_NEAR(at45.clientJ / at3.clientJ, 1.5, 1e-12 * 1.5);
    EXPECT_NEAR(at12.clientJ / at3.clientJ, 0.4, 1e-12 * 0.4);
    EXPECT_GT(at3.clientJ, kIdleA * 3.0 * 2.0); // the load shows
}

TEST(TrainingEnergy, PowerTimesTime)
{
    EXPECT_EQ(ComputeEnergyJoules(2.0, 3.0), 6.0);
    EXPECT_EQ(ComputeEnergyJoules(0.0, 5.0), 0.0);
    EXPECT_EQ(ComputeEnergyJoules(15.0, 0.0), 0.0);
    EXPECT_DOUBLE_EQ(ComputeEnergyJoules(4.5, 0.2), 0.9);
}

TEST(TrainingEnergy, NegativeOrNonFiniteInputsNameTheParameter)
{
    auto expectThrowNaming = [](double p, double s, const std::string& parameter) {
        try
        {
            ComputeEnergyJoules(p, s);
            ADD_FAILURE() << "no ConfigError for power " << p << " W, time " << s << " s";
        }
        catch (const fl::ConfigError& e)
        {
            EXPECT_EQ(e.Parameter(), parameter);
            EXPECT_NE(std::string(e.what()).find(parameter), std::string::npos) << e.what();
        }
    };
    expectThrowNaming(-1.0, 1.0, "powerW");
    expectThrowNaming(1.0, -1.0, "seconds");
    expectThrowNaming(std::nan(""), 1.0, "powerW");
    expectThrowNaming(1.0, INFINITY, "seconds");
    EXPECT_THROW(ComputeEnergyJoules(-1.0, 1.0), fl::ConfigError);
}

// The meter equals ns-3's WifiRadioEnergyModel (with a BasicEnergySource) on the same PHYs, to
// 1e-9: an 802.11n BSS of 4 stations that each send UDP to the AP's node and hear each other,
// with a TX current model (linear in the TX power) and non-default currents, read at several
// times. Both listen to the same notifications; the meter schedules no depletion event, so
// after the run ns-3's model has left far more events behind.
TEST(RadioEnergy, EqualsNs3WifiRadioEnergyModel)
{
    const uint32_t n = 4;
    std::vector<std::vector<std::pair<double, double>>> readings(n);
    {
        FlWifiScenarioHelper h;
        FlScene scene = h.Build(n);
        FlWifiScenarioHelper::AssignStreams(scene, 100);
        Ptr<FlRadioEnergyMeter> meter = Create<FlRadioEnergyMeter>();
        meter->SetSourceAttribute("BasicEnergySupplyVoltageV", DoubleValue(3.3));
        meter->SetRadioAttribute("RxCurrentA", DoubleValue(0.29));
        meter->SetRadioAttribute("CcaBusyCurrentA", DoubleValue(0.28));
        Ptr<LinearWifiTxCurrentModel> txModel = CreateObject<LinearWifiTxCurrentModel>();
        meter->SetRadioAttribute("TxCurrentModel", PointerValue(txModel));
        meter->InstallWifi(scene);

        BasicEnergySourceHelper sources;
        sources.Set("BasicEnergySupplyVoltageV", DoubleValue(3.3));
        sources.Set("BasicEnergySourceInitialEnergyJ", DoubleValue(1e8));
        WifiRadioEnergyModelHelper radios;
        radios.Set("RxCurrentA", DoubleValue(0.29));
        radios.Set("CcaBusyCurrentA", DoubleValue(0.28));
        radios.SetTxCurrentModel("ns3::LinearWifiTxCurrentModel");
        flenergy::DeviceEnergyModelContainer models;
        for (uint32_t i = 0; i < n; ++i)
        {
            Ptr<NetDevice> dev = scene.devices.Get(i + 1);
            models.Add(radios.Install(dev, sources.Install(dev->GetNode()).Get(0)));
        }
        std::vector<double> baseline(n);
        for (uint32_t i = 0; i < n; ++i)
        {
            baseline[i] = models.Get(i)->GetTotalEnergyConsumption();
        }

        const uint16_t port = 4000;
        UdpServerHelper serverHelper(port);
        serverHelper.Install(scene.serverNode).Start(Seconds(0.0));
        for (uint32_t i = 0; i < n; ++i)
        {
            UdpClientHelper client(scene.serverAddress, port);
            client.SetAttribute("MaxPackets", UintegerValue(200));
            client.SetAttribute("Interval", TimeValue(MilliSeconds(3 + i)));
            client.SetAttribute("PacketSize", UintegerValue(1200));
            client.Install(scene.clients.Get(i)).Start(Seconds(0.5 + 0.01 * i));
        }
        for (double t : {0.3, 0.6, 0.9, 1.2, 1.5})
        {
            FlSchedule(Seconds(t), [&readings, &models, &baseline, meter, n]() {
                for (uint32_t i = 0; i < n; ++i)
                {
                    readings[i].emplace_back(meter->GetRadioEnergy(i),
                                             models.Get(i)->GetTotalEnergyConsumption() -
                                                 baseline[i]);
                }
            });
        }
        Simulator::Stop(Seconds(1.6));
        Simulator::Run();
    }
    Simulator::Destroy();
    for (uint32_t i = 0; i < n; ++i)
    {
        ASSERT_EQ(readings[i].size(), 5U);
        for (const auto& [ours, ns3] : readings[i])
        {
            EXPECT_NEAR(ours, ns3, 1e-9 * ns3) << "station " << i;
        }
        // traffic: above the idle draw at the last reading (1.5 s)
        EXPECT_GT(readings[i].back().first, 1.01 * 0.273 * 3.3 * 1.5) << "station " << i;
    }
}

// Misuse stops with a message naming the problem and the fix.
TEST(RadioEnergyDeathTest, ClearErrorsOnMisuse)
{
    {
        FlCsmaSceneHelper csma;
        FlScene scene = csma.Build(2);
        Ptr<FlRadioEnergyMeter> meter = Create<FlRadioEnergyMeter>();
        EXPECT_DEATH(meter->InstallWifi(scene), "CsmaNetDevice, not a WifiNetDevice");
    }
    Simulator::Destroy();
    {
        FlPointToPointStarHelper star;
        FlScene scene = star.Build(2);
        Ptr<FlRadioEnergyMeter> meter = Create<FlRadioEnergyMeter>();
        EXPECT_DEATH(meter->InstallWifi(scene),
                     "not the server.s .or the access points.. followed by one per client");
    }
    Simulator::Destroy();
    {
        FlWifiAdhocSceneHelper h;
        FlScene scene = h.Build(2);
        Ptr<FlRadioEnergyMeter> meter = Create<FlRadioEnergyMeter>();
        // Client 0's device twice: the same node twice.
        NetDeviceContainer twice(scene.devices.Get(1), scene.devices.Get(1));
        EXPECT_DEATH(meter->InstallWifi(twice), "one Wi-Fi device per client node");
        meter->InstallWifi(scene);
        EXPECT_DEATH(meter->InstallWifi(scene), "second time");
        EXPECT_DEATH(meter->SetSourceAttribute("BasicEnergySupplyVoltageV", DoubleValue(5.0)),
                     "before InstallWifi");
        EXPECT_DEATH(meter->GetRadioEnergy(2), "client 2 does not exist");
        Simulator::Stop(Seconds(0.1));
        Simulator::Run();
        EXPECT_GT(meter->GetRadioEnergy(0), 0.0);
        Simulator::Destroy();
    }
    {
        FlWifiAdhocSceneHelper h;
        FlScene scene = h.Build(1);
        Ptr<FlRadioEnergyMeter> zeroVolts = Create<FlRadioEnergyMeter>();
        EXPECT_DEATH(zeroVolts->SetSourceAttribute("BasicEnergySupplyVoltageV", DoubleValue(0.0)),
                     "BasicEnergySupplyVoltageV is 0 V");
        Ptr<FlRadioEnergyMeter> battery = Create<FlRadioEnergyMeter>();
        EXPECT_DEATH(
            battery->SetSourceAttribute("BasicEnergySourceInitialEnergyJ", DoubleValue(1e12)),
            "has no battery");
        Ptr<FlRadioEnergyMeter> noCurrent = Create<FlRadioEnergyMeter>();
        noCurrent->SetRadioAttribute("RxCurrentA", DoubleValue(0.0));
        EXPECT_DEATH(noCurrent->InstallWifi(scene), "RxCurrentA is 0 A");
    }
    Simulator::Destroy();
}

/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The LTE scene: one eNB with its EPC, the server behind the PGW.
 */
#ifndef FL_LTE_SCENE_H
#define FL_LTE_SCENE_H

#include "ns3/fl-scene.h"

namespace ns3
{

/**
 * \ingroup fl-helper
 * The time between two UEs' attachments in an FlLteSceneHelper cell of more than 159 UEs
 * (2 ms): there the largest SRS periodicity (320) leaves fewer spare UE contexts than UEs, and
 * an attach storm's collided random-access attempts would exhaust them. Smaller cells attach
 * every UE at once.
 */
inline Time
FlLteAttachSpacing()
{
    return MilliSeconds(2);
}

/**
 * \ingroup fl-helper
 * The most UEs an FlLteSceneHelper cell takes: 288 (ns-3's largest SRS periodicity, 320
 * subframes, gives 319 UE contexts; the cell keeps 10 % of them spare for collided
 * random-access attempts, without which ns-3's MAC scheduler aborts).
 */
inline uint32_t
FlLteMaxClients()
{
    return 288;
}

/**
 * \ingroup fl-helper
 * The period of the UEs' downlink CQI reports in a static FlLteSceneHelper cell unless
 * FlLteSceneHelper::SetCqiPeriodicity says otherwise: 40 ms, one of the periodic CQI reporting
 * periods of 3GPP TS 36.213 (Table 7.2.2-1A). ns-3's own, 1 ms (a report every 2 ms), cost
 * half of the processor time of a FedAvg run of 100 UEs and gave the same run byte for byte.
 */
inline Time
FlLteDefaultCqiPeriodicity()
{
    return MilliSeconds(40);
}

/**
 * \ingroup fl-helper
 * The hysteresis of the A3-RSRP handover of an FlLteSceneHelper scene of several eNBs: 3 dB
 * (ns3::A3RsrpHandoverAlgorithm's default): a UE hands over when a neighbour cell's RSRP exceeds
 * its serving cell's by this margin for FlLteHandoverTimeToTrigger() (3GPP TS 36.331, event A3).
 */
inline double
FlLteHandoverHysteresisDb()
{
    return 3.0;
}

/**
 * \ingroup fl-helper
 * The time to trigger of the A3-RSRP handover: 256 ms (ns-3's default, the median of the
 * values of 3GPP TS 36.331, Section 6.3.5).
 */
inline Time
FlLteHandoverTimeToTrigger()
{
    return MilliSeconds(256);
}

/**
 * \ingroup fl-helper
 * Builds an LTE cell with an EPC core, as ns-3's lena-simple-epc example: the clients are UEs
 * attached to one eNB at the origin, placed uniformly at random on a disc around it (constant
 * positions, radius 50 m by default); the server is a remote host behind the PGW over a
 * point-to-point link (1.0.0.0/8; UEs get 7.0.0.0/8 from the EPC), with static routes both ways.
 * Uses LteHelper's defaults (Friis path loss, proportional-fair scheduler, ideal RRC) except the
 * settings below and the UEs' CQI reporting period (SetCqiPeriodicity). The UEs attach at time 0
 * and need a few tens of milliseconds; start the clients after that (e.g. at 0.5 s). The scene's
 * helpers are kept in FlScene::lteHelper and FlScene::epcHelper. The eNB's SRS periodicity is the
 * smallest of 40, 80, 160, 320 subframes that leaves as many spare UE contexts as UEs (p >= 2 N),
 * so that the contexts held by the attach storm's collided random-access attempts never run out
 * (ns-3's MAC scheduler aborts when they do); above 159 UEs the UEs attach FlLteAttachSpacing()
 * apart instead.
 *
 * Several eNBs (SetEnbs): eNB k stands at (k x SetEnbSpacing, 0, 0) on one carrier (the
 * neighbours interfere), every pair joined by an X2 interface (LteHelper::AddX2Interface); each
 * UE attaches to the cell it receives best (ns-3's initial cell selection) and hands over by
 * ns3::A3RsrpHandoverAlgorithm (hysteresis FlLteHandoverHysteresisDb(), time to trigger
 * FlLteHandoverTimeToTrigger()); the EPC keeps its address and bearers across handovers. The
 * link state (FlSceneLinkState) of a UE is that of its serving cell: SINR at that eNB,
 * distance to it, FlLinkState::cell its cell id (1 .. E, eNB order), handovers its LteUeRrc
 * "HandoverEndOk" count. FlScene::devices holds the E eNBs' devices first, then the UEs';
 * FlScene::infrastructure the eNBs, then the PGW. Packet fidelity only.
 */
class FlLteSceneHelper : public FlRadioSceneHelperBase
{
  public:
    FlLteSceneHelper();
    /// Downlink and uplink bandwidth in resource blocks: 6, 15, 25 (default), 50, 75 or 100.
    void SetBandwidth(uint16_t resourceBlocks);
    /**
     * RLC mode of the UEs' default bearers: "am" (acknowledged, default: reliable, suits TCP) or
     * "um" (unacknowledged, LteHelper's default with an EPC).
     */
    void SetRlcMode(const std::string& mode);
    /**
     * Transmit buffer of every RLC entity (ns3::LteRlcAm and ns3::LteRlcUm MaxTxBufferSize,
     * set as process-wide defaults by Build(); default 1 MiB). ns-3's own 10 KiB drops the
     * rest of any burst larger than that which arrives before the scheduler has granted
     * resources, e.g. the first UDP message of a flow (a real eNB or UE buffers far more).
     */
    void SetRlcTxBufferSize(uint32_t bytes);
    /// Data rate of the PGW - remote host link (default 1 Gb/s).
    void SetBackhaulDataRate(DataRate rate);
    /// Delay of the PGW - remote host link (default 10 ms).
    void SetBackhaulDelay(Time delay);
    /// Number of eNBs, 1 (default) to 16; more than one: X2 handover (see the class).
    void SetEnbs(uint32_t count);
    /// Distance between neighbouring eNBs on the x axis [m] (> 0; default 500 m).
    void SetEnbSpacing(double meters);
    /**
     * Period of the UEs' downlink CQI reports, periodic wideband and subband alike
     * (ns3::LteUePhy DownlinkCqiPeriodicity; ns-3's own is 1 ms), from 1 to 160 ms (3GPP TS
     * 36.213 Table 7.2.2-1A has 2 to 160 ms; the schedulers drop a CQI after 1000 subframes).
     * Unset, Build() takes FlLteDefaultCqiPeriodicity() (40 ms) when the channel cannot change
     * (every UE with a ConstantPositionMobilityModel, or a ConstantVelocityMobilityModel at speed
     * 0, e.g. a road preset of speed 0; no LteHelper FadingModel default), else
     * ns-3's 1 ms. In the static cell a UE's channel quality never changes, so every report
     * repeats the last one: the period changes nothing but the processor time (each report is
     * a sweep of ns-3's MI error model over 29 MCSs per resource block group), provided the
     * UEs' traffic starts after their first report (one period after they attach; the clients
     * of the examples start at 0.5 s).
     */
    void SetCqiPeriodicity(Time period);
    /// Creates the eNB, UEs, EPC, remote host, addresses, routes, and attaches the UEs.
    FlScene Build(uint32_t numClients) const;
    /**
     * Fixes the random streams of the eNB's and UEs' LTE devices (LteHelper::AssignStreams).
     * @return the number of streams used
     */
    static int64_t AssignStreams(const FlScene& scene, int64_t stream);

  private:
    /// Flow fidelity: a downlink and an uplink medium, the addresses of the packet scene.
    FlScene BuildFlow(uint32_t numClients) const;

    uint16_t m_bandwidth;    ///< see SetBandwidth
    std::string m_rlcMode;   ///< see SetRlcMode
    uint32_t m_rlcTxBuffer;  ///< see SetRlcTxBufferSize
    DataRate m_backhaulRate; ///< see SetBackhaulDataRate
    Time m_backhaulDelay;    ///< see SetBackhaulDelay
    Time m_cqiPeriodicity;   ///< see SetCqiPeriodicity (zero: automatic)
    uint32_t m_enbs{1};      ///< see SetEnbs
    double m_enbSpacing{500.0}; ///< see SetEnbSpacing
};

} // namespace ns3

#endif // FL_LTE_SCENE_H

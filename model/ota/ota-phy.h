/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The analog over-the-air phy: transmits analog vectors at slot boundaries and turns what
 * arrives during a receive window into a received complex vector for the layer above.
 */
#ifndef OTA_PHY_H
#define OTA_PHY_H

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/mobility-model.h"
#include "ns3/net-device.h"
#include "ns3/node.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/ota-signal-parameters.h"
#include "ns3/random-variable-stream.h"
#include "ns3/traced-callback.h"

#include <map>
#include <memory>

namespace ns3
{

class OtaChannel;

/**
 * \ingroup fl-ota
 * Counters of an OtaPhy.
 */
struct OtaPhyCounters
{
    uint64_t txStarted{0};         ///< transmissions put on the channel
    uint64_t txLate{0};            ///< Transmit() called after the slot boundary: refused
    uint64_t txBusy{0};            ///< Transmit() overlapping an own transmission: refused
    uint64_t txPowerScaled{0};     ///< transmissions scaled down to TxPower (EnforcePowerLimit)
    uint64_t rxDelivered{0};       ///< receptions delivered to the layer above
    uint64_t rxContributions{0};   ///< aligned contributions superposed
    uint64_t misaligned{0};        ///< arrivals outside the tolerance (including late ones)
    uint64_t late{0};              ///< arrivals after their slot's window closed (dropped)
    uint64_t halfDuplexBlocked{0}; ///< receptions lost because the phy was transmitting
};

/**
 * \ingroup fl-ota
 * Analog over-the-air phy.
 *
 * Transmission: Transmit(slot, s, b) sends the symbols b s, starting at the slot's boundary
 * plus ClockOffset plus a ClockJitter draw. Airtime = PreambleDuration + symbols / Bandwidth;
 * it must fit in a slot. TxPower (dBm) is the budget P of the power control: the phy sends b s
 * as given and reports the mean symbol energy |b|^2 mean|s|^2 in the signal; with
 * EnforcePowerLimit it scales a transmission above P down to P.
 *
 * Reception (documented rule): the receive window of slot s opens at the slot's start plus
 * ClockOffset (the receiver's clock) and closes at the next slot's start plus ClockOffset, when
 * the reception is delivered. An arrival is aligned if |arrival - window start| <=
 * SyncTolerance; aligned arrivals add coherently: y = sum_k h_k b_k s_k. Other arrivals are
 * misaligned: counted, reported by the Misaligned trace and, per MisalignedPolicy, dropped or
 * added as interference: a CN(0, P_k) Gaussian vector with P_k the signal's received power,
 * independent of its payload. Arrivals after the window closed are dropped as late.
 * Receiver noise CN(0, sigma^2) per symbol, sigma^2 = k T F B (Thermal) or NoiseVariance
 * (Fixed). Full duplex: the own signal is never received; with SelfInterference a residual
 * CN(0, P_own 10^{SelfInterferenceDb/10}) is added. Half duplex: a slot in which the phy
 * transmits is not received.
 *
 * With RecordNoise the Gaussian part of each reception is also handed up (OtaReception::noise),
 * for analysis and genie decoders; the received vector is the same with or without it.
 *
 * TDMA: with TdmaSlots = N > 0, round r uses slots r N ... r N + N - 1 and this phy transmits
 * in slot r N + TdmaIndex: N orthogonal slots per round, one sender each.
 */
class OtaPhy : public Object
{
  public:
    /// Duplex mode.
    enum DuplexMode
    {
        FULL_DUPLEX, ///< transmit and receive in the same slot (own signal excluded)
        HALF_DUPLEX, ///< a slot in which the phy transmits is not received
    };

    /// What happens to a misaligned arrival.
    enum MisalignedPolicy
    {
        MISALIGNED_DROP,         ///< not superposed; counted
        MISALIGNED_INTERFERENCE, ///< added as Gaussian interference of its received power
    };

    /// How the receiver noise variance is set.
    enum NoiseModel
    {
        NOISE_THERMAL, ///< k T F B
        NOISE_FIXED,   ///< NoiseVariance
    };

    /// Callback to the layer above with each reception.
    using ReceiveCallback = Callback<void, const OtaReception&>;

    /// \return the TypeId
    static TypeId GetTypeId();
    OtaPhy();
    ~OtaPhy() override;

    /// Attaches the phy to a channel (registers it there).
    void SetChannel(Ptr<OtaChannel> channel);
    /// The channel.
    Ptr<OtaChannel> GetChannel() const;
    /// Index of this phy on its channel.
    uint32_t GetIndex() const;
    /// Sets the mobility model (positions for delay and path loss). Required.
    void SetMobility(Ptr<MobilityModel> mobility);
    /// The mobility model.
    Ptr<MobilityModel> GetMobility() const;
    /// Sets the node (for event contexts and metadata).
    void SetNode(Ptr<Node> node);
    /// The node (may be null).
    Ptr<Node> GetNode() const;
    /// Sets an optional NetDevice (returned by OtaChannel::GetDevice).
    void SetDevice(Ptr<NetDevice> device);
    /// The NetDevice (may be null).
    Ptr<NetDevice> GetDevice() const;

    /// Sets the callback that receives every reception.
    void SetReceiveCallback(ReceiveCallback cb);

    /// The power budget P [W] (TxPower).
    double GetTxPowerW() const;
    /// Receiver noise variance sigma^2 per complex symbol [W].
    double GetNoiseVariance() const;
    /// Airtime of a transmission of `symbols` symbols.
    Time GetTxDuration(std::size_t symbols) const;
    /// Whether the phy receives (ReceiveEnabled).
    bool IsReceiveEnabled() const;
    /// Number of transmissions started or scheduled so far (the next one's sequence number).
    uint64_t GetTxCount() const;

    /**
     * Transmits b s in slot `slot`. Must be called no later than the slot boundary (plus
     * ClockOffset). The symbol buffer is shared, never copied.
     * \return false (and counts it) if the slot boundary has passed or the phy is busy
     */
    bool Transmit(uint64_t slot, std::shared_ptr<const fl::SymbolVector> symbols, fl::Complex b);
    /// Packs d real values into ceil(d/2) symbols (I and Q) and transmits them.
    bool TransmitReal(uint64_t slot, const Eigen::VectorXd& x, fl::Complex b);
    /// Slot used by this phy in `round`: round, or round TdmaSlots + TdmaIndex in TDMA mode.
    uint64_t GetSlotForRound(uint64_t round) const;
    /// Round of a slot: slot, or slot / TdmaSlots in TDMA mode.
    uint64_t GetRoundOfSlot(uint64_t slot) const;
    /// Slots per round: 1, or TdmaSlots in TDMA mode.
    uint32_t GetSlotsPerRound() const;
    /// Transmit(GetSlotForRound(round), symbols, b).
    bool TransmitInRound(uint64_t round,
                         std::shared_ptr<const fl::SymbolVector> symbols,
                         fl::Complex b);

    /**
     * True channel from this phy to `rx` for this phy's next transmission in `slot` (genie CSI;
     * rx may be null on a sender-only channel).
     */
    fl::Complex GetTrueChannel(Ptr<const OtaPhy> rx, uint64_t slot) const;
    /**
     * Channel estimate h + e with e ~ CN(0, CsiErrorVariance x large-scale gain), h the channel
     * as measured the channel's CsiAge before the slot (OtaChannel::GetCsiCoefficient): perfect
     * CSI when CsiErrorVariance and CsiAge are 0.
     */
    fl::Complex GetChannelEstimate(Ptr<const OtaPhy> rx, uint64_t slot);

    /// Counters.
    const OtaPhyCounters& GetCounters() const;

    /**
     * Assigns fixed stream numbers to the noise/CSI seed and the clock jitter.
     * \return the number of streams used (2)
     */
    int64_t AssignStreams(int64_t stream);

    /// Called by the channel when a transmission reaches this phy.
    void StartRx(OtaArrival arrival);

    /// Signature of the TxStart and TxEnd traces.
    using SignalTracedCallback = void (*)(Ptr<const OtaSignal> signal);
    /// Signature of the Rx trace.
    using RxTracedCallback = void (*)(const OtaReception& reception);
    /// Signature of the Misaligned trace: the signal and its offset from the window start.
    using MisalignedTracedCallback = void (*)(Ptr<const OtaSignal> signal, Time offset);

  protected:
    void DoDispose() override;

  private:
    struct RxSlot
    {
        Time windowStart;
        Time windowEnd;
        EventId endEvent;
        std::vector<OtaArrival> arrivals;
    };

    void StartTransmission(Ptr<OtaSignal> signal);
    void EndTransmission(Ptr<OtaSignal> signal);
    void EndRx(uint64_t slot);
    uint64_t BaseSeed() const;
    void PruneTxSlots(uint64_t slot);

    Ptr<OtaChannel> m_channel;
    uint32_t m_index{0};
    Ptr<MobilityModel> m_mobility;
    Ptr<Node> m_node;
    Ptr<NetDevice> m_device;
    ReceiveCallback m_receiveCallback;

    // Attributes
    double m_txPowerDbm;
    bool m_enforcePower;
    Time m_preamble;
    Time m_syncTolerance;
    MisalignedPolicy m_misalignedPolicy;
    NoiseModel m_noiseModel;
    double m_noiseFigureDb;
    double m_noiseTemperature;
    double m_noiseVariance;
    DuplexMode m_duplex;
    bool m_selfInterference;
    double m_selfInterferenceDb;
    Time m_clockOffset;
    Ptr<RandomVariableStream> m_jitter;
    double m_csiErrorVariance;
    uint32_t m_tdmaSlots;
    uint32_t m_tdmaIndex;
    bool m_rxEnabled;
    bool m_recordNoise{false};

    Ptr<UniformRandomVariable> m_seedRv;
    mutable bool m_seedDrawn{false};
    mutable uint64_t m_baseSeed{0};
    uint64_t m_txCount{0};
    uint64_t m_rxCount{0};
    uint64_t m_csiCount{0};
    Time m_busyUntil;
    std::map<uint64_t, double> m_txSlots; ///< slot -> mean transmitted symbol energy
    std::map<uint64_t, RxSlot> m_rxSlots;
    fl::SymbolVector m_rxBuffer; ///< storage of the received vector, reused every reception
    OtaPhyCounters m_counters;

    TracedCallback<Ptr<const OtaSignal>> m_txStartTrace;
    TracedCallback<Ptr<const OtaSignal>> m_txEndTrace;
    TracedCallback<const OtaReception&> m_rxTrace;
    TracedCallback<Ptr<const OtaSignal>, Time> m_misalignedTrace;
};

} // namespace ns3

#endif // OTA_PHY_H

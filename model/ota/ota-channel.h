/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The analog over-the-air channel: moves analog transmissions between OtaPhy instances and
 * applies propagation (delay, path loss, small-scale fading). A sibling of ns-3's
 * SpectrumChannel: the channel moves signals, the phy decides what a receiver makes of them.
 */
#ifndef OTA_CHANNEL_H
#define OTA_CHANNEL_H

#include "ns3/channel.h"
#include "ns3/mobility-model.h"
#include "ns3/nstime.h"
#include "ns3/ota-fading.h"
#include "ns3/ota-signal-parameters.h"
#include "ns3/propagation-delay-model.h"
#include "ns3/propagation-loss-model.h"
#include "ns3/random-variable-stream.h"
#include "ns3/traced-callback.h"
#include "ns3/vector.h"

#include <deque>
#include <map>
#include <unordered_map>
#include <vector>

namespace ns3
{

class OtaPhy;

/**
 * \ingroup fl-ota
 * Analog multiple-access channel for over-the-air computation.
 *
 * Slot schedule: slot s spans [FirstSlotStart + s SlotDuration, FirstSlotStart + (s+1)
 * SlotDuration) on the simulation clock; phys start transmitting at slot boundaries (plus their
 * own clock offset and jitter). All phys share the symbol rate, equal to `Bandwidth`.
 *
 * A transmission of phy k reaches every other phy i (with reception enabled) after the
 * PropagationDelayModel's delay, with the complex coefficient
 *   h_{k->i} = 10^{G_dB/20} g,
 * where G_dB is the PropagationLossModel's gain between the two MobilityModels and g the
 * small-scale fading (none, Rayleigh, Rician(K) or Nakagami-m; E|g|^2 = 1).
 *
 * Structure:
 *  - PerLink: one coefficient per link k->i; reciprocal (h_{k->i} = h_{i->k}) or independent.
 *  - SenderOnly (DWFL's model): one coefficient h_k per sender, seen by every receiver; its
 *    large-scale gain is the gain from the sender to `ReferencePosition`. Delays stay per link.
 *    The channel keeps one shared sum per slot (OtaSlotSum) so that a slot costs O(N d).
 *
 * Coherence: the small-scale fading is fixed for the run, redrawn every slot (block fading),
 * redrawn for every transmission, or correlated in time (Correlated): the scattered part follows
 * a first-order Gauss-Markov process, s(t') = rho s(t) + sqrt(1 - rho^2) w with rho =
 * J0(2 pi f_D (t' - t)) (fl::JakesCorrelation, Clarke's model at each step's lag), f_D =
 * v f_c / c from the carrier frequency f_c (CarrierFrequency) and the speed v of the sender
 * (SenderOnly) or the sum of both ends' speeds (PerLink), read from their mobility models when
 * the step is computed. The process is sampled at every slot start and at every CSI time; at
 * zero speed it stays at its first value, which is the Fixed coefficient, so a Correlated
 * channel whose nodes do not move equals a Fixed one. Rayleigh and Rician only (a fixed line of
 * sight plus the correlated scattered part). The coefficient of (link, coherence block or
 * process point) is a deterministic function of the channel's seed (drawn from an ns-3 stream)
 * and of the speeds, so queries (genie CSI) and transmissions see the same value whatever the
 * order of events.
 *
 * CSI age (CsiAge): the channel estimate a phy gets for slot s (GetCsiCoefficient,
 * OtaPhy::GetChannelEstimate) is the small-scale coefficient at t_s - CsiAge (t_s the slot's
 * start) times the large-scale gain at the time of the query, so a transmitter aligns its power
 * to a coefficient that has aged by CsiAge when it transmits.
 */
class OtaChannel : public Channel
{
  public:
    /// Small-scale fading model.
    enum FadingModel
    {
        FADING_NONE,     ///< g = 1
        FADING_RAYLEIGH, ///< g ~ CN(0, 1)
        FADING_RICIAN,   ///< Rician with factor RicianK
        FADING_NAKAGAMI, ///< Nakagami with shape NakagamiM
    };

    /// How long a small-scale coefficient stays the same.
    enum Coherence
    {
        COHERENCE_FIXED,            ///< one draw for the whole run
        COHERENCE_PER_SLOT,         ///< redrawn every slot (block fading)
        COHERENCE_PER_TRANSMISSION, ///< redrawn for every transmission of the sender
        COHERENCE_CORRELATED,       ///< Gauss-Markov in time with the Jakes correlation
    };

    /// Whether coefficients depend on the (sender, receiver) pair or on the sender only.
    enum Structure
    {
        STRUCTURE_PER_LINK,    ///< h_{k->i}
        STRUCTURE_SENDER_ONLY, ///< h_k (every receiver sees the same coefficient)
    };

    /// \return the TypeId
    static TypeId GetTypeId();
    OtaChannel();
    ~OtaChannel() override;

    /**
     * Attaches a phy (done by OtaPhy::SetChannel).
     * \return the phy's index on this channel (0, 1, ...)
     */
    uint32_t AddPhy(Ptr<OtaPhy> phy);
    /// Number of attached phys.
    std::size_t GetNPhys() const;
    /// The i-th attached phy.
    Ptr<OtaPhy> GetPhy(std::size_t i) const;

    std::size_t GetNDevices() const override;
    /// The NetDevice of the i-th phy, if it has one (may be null).
    Ptr<NetDevice> GetDevice(std::size_t i) const override;

    /// Sets the path-loss model (null: 0 dB).
    void SetPropagationLossModel(Ptr<PropagationLossModel> loss);
    /// The path-loss model (may be null).
    Ptr<PropagationLossModel> GetPropagationLossModel() const;
    /// Sets the delay model (null: no delay).
    void SetPropagationDelayModel(Ptr<PropagationDelayModel> delay);
    /// The delay model (may be null).
    Ptr<PropagationDelayModel> GetPropagationDelayModel() const;

    /// Duration of a slot.
    Time GetSlotDuration() const;
    /// Start of slot `slot` on the simulation clock.
    Time GetSlotStart(uint64_t slot) const;
    /// The first slot whose start is at or after t.
    uint64_t GetNextSlot(Time t) const;
    /// Symbol rate = bandwidth [Hz].
    double GetBandwidth() const;
    /// Channel structure.
    Structure GetStructure() const;
    /// Coherence of the small-scale fading.
    Coherence GetCoherence() const;
    /// The fading model as a pure spec.
    fl::FadingSpec GetFadingSpec() const;

    /**
     * Small-scale fading g of the link tx->rx in a coherence block (rx ignored for sender-only
     * channels). Deterministic given the channel's seed.
     */
    fl::Complex GetFading(uint32_t tx, uint32_t rx, uint64_t block) const;
    /// Large-scale gain [dB] from phy tx to phy rx (sender-only: to ReferencePosition).
    double GetLargeScaleGainDb(uint32_t tx, uint32_t rx) const;
    /// Propagation delay from phy tx to phy rx.
    Time GetDelay(uint32_t tx, uint32_t rx) const;
    /**
     * True coefficient h = 10^{G/20} g that the next transmission of phy `tx`, sent in `slot`,
     * will have at phy `rx` (genie CSI; rx ignored for sender-only channels). Assumes a
     * deterministic PropagationLossModel.
     */
    fl::Complex GetCoefficient(uint32_t tx, uint32_t rx, uint64_t slot) const;
    /**
     * The coefficient a channel estimate for `slot` measures (CsiAge before the slot's start):
     * the small-scale coefficient at t_slot - CsiAge times the large-scale gain now. Equals
     * GetCoefficient when CsiAge is 0.
     */
    fl::Complex GetCsiCoefficient(uint32_t tx, uint32_t rx, uint64_t slot) const;
    /// The age of channel estimates (CsiAge attribute).
    Time GetCsiAge() const;
    /// The carrier frequency [Hz] (CarrierFrequency attribute).
    double GetCarrierFrequency() const;
    /// The Doppler frequency f_D [Hz] of the link tx->rx now (Correlated coherence's model).
    double GetDopplerFrequency(uint32_t tx, uint32_t rx) const;
    /// Whether every attached phy's mobility model reports zero velocity now.
    bool IsStill() const;
    /// The positions of the attached phys now (a caller compares them to notice motion).
    std::vector<Vector> GetPositions() const;

    /// Starts a transmission (called by OtaPhy at the transmission's start time).
    void StartTx(Ptr<OtaSignal> signal);

    /// A fresh channel-wide transmission id.
    uint64_t NextTxId();

    /**
     * Assigns fixed stream numbers: the fading seed, then the loss and delay models' streams.
     * \return the number of streams used
     */
    int64_t AssignStreams(int64_t stream);

    /// Signature of the SignalTx trace.
    using SignalTracedCallback = void (*)(Ptr<const OtaSignal> signal);

  protected:
    void DoDispose() override;

  private:
    uint64_t CoherenceBlock(uint32_t tx, uint64_t slot, uint64_t txSeq) const;
    /// The small-scale coefficient of tx->rx in `slot` (txSeq: the sender's transmission count).
    fl::Complex SmallScale(uint32_t tx, uint32_t rx, uint64_t slot, uint64_t txSeq) const;
    /// Correlated coherence: the process of link tx->rx at its point `index`.
    fl::Complex CorrelatedFading(uint32_t tx, uint32_t rx, uint64_t index) const;
    /// Correlated coherence: the simulation time of process point `index`.
    Time PointTime(uint64_t index) const;
    /// Correlated coherence: the process point of slot `slot`'s start (csi: its CSI time).
    uint64_t PointOf(uint64_t slot, bool csi) const;
    uint64_t LinkKey(uint32_t tx, uint32_t rx) const;
    /// The line-of-sight phase of link `key` (Rician), drawn once from its seed.
    double LosPhase(uint64_t key, uint64_t linkSeed) const;
    uint64_t Seed() const;
    Ptr<MobilityModel> MobilityOf(uint32_t i) const;
    Ptr<OtaSlotSum> GetSlotSum(uint64_t slot);
    void SetReferencePosition(const Vector& position);
    Vector GetReferencePosition() const;

    std::vector<Ptr<OtaPhy>> m_phys;
    Ptr<PropagationLossModel> m_loss;
    Ptr<PropagationDelayModel> m_delay;
    Ptr<MobilityModel> m_reference;
    Time m_slotDuration;
    Time m_firstSlotStart;
    double m_bandwidth;
    FadingModel m_fading;
    double m_ricianK;
    double m_nakagamiM;
    Coherence m_coherence;
    Structure m_structure;
    bool m_reciprocal;
    Ptr<UniformRandomVariable> m_seedRv;
    mutable bool m_seedDrawn{false};
    mutable uint64_t m_seed{0};
    uint64_t m_nextTxId{0};

    struct CacheEntry
    {
        uint64_t block;
        fl::Complex value;
    };

    mutable std::unordered_map<uint64_t, CacheEntry> m_fadingCache;

    /// Correlated coherence: the points of one link's scattered process that may still be asked
    /// for (older ones are dropped as the simulation clock passes them).
    struct Process
    {
        uint64_t base{0};               ///< index of values.front()
        std::deque<fl::Complex> values; ///< scattered part at points base, base + 1, ...
        double dopplerHz{-1.0};         ///< f_D of the memo below
        double lag[2]{-1.0, -1.0};      ///< the two step lags seen last (r and T - r)
        double rho[2]{1.0, 1.0};        ///< their correlations at dopplerHz
    };

    mutable std::unordered_map<uint64_t, Process> m_processes;
    double m_carrierHz;
    Time m_csiAge;
    mutable std::unordered_map<uint64_t, double> m_losPhase;
    std::map<uint64_t, Ptr<OtaSlotSum>> m_slotSums;

    TracedCallback<Ptr<const OtaSignal>> m_signalTxTrace;
};

} // namespace ns3

#endif // OTA_CHANNEL_H

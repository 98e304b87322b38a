/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * What moves over the analog over-the-air channel: a transmission (OtaSignal), its arrival at a
 * receiver (OtaArrival), the per-slot shared sum of a sender-only channel (OtaSlotSum), and what
 * a receiving phy hands to the layer above (OtaReception).
 */
#ifndef OTA_SIGNAL_PARAMETERS_H
#define OTA_SIGNAL_PARAMETERS_H

#include "ns3/nstime.h"
#include "ns3/ota-signal.h"
#include "ns3/ptr.h"
#include "ns3/simple-ref-count.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

namespace ns3
{

/**
 * \ingroup fl-ota
 * One analog transmission as it leaves a phy. Every receiver shares the same object and the same
 * symbol buffer: the payload is never copied per receiver.
 */
struct OtaSignal : public SimpleRefCount<OtaSignal>
{
    uint32_t sender{0};                                        ///< index of the phy on its channel
    uint32_t senderNode{std::numeric_limits<uint32_t>::max()}; ///< node id (max if none)
    uint64_t txId{0};  ///< channel-wide unique transmission id
    uint64_t txSeq{0}; ///< sequence number of this transmission at its phy (0, 1, ...)
    uint64_t slot{0};  ///< slot on the channel's schedule
    Time start;        ///< time the first symbol leaves the antenna
    Time duration;     ///< preamble + symbols / bandwidth
    std::shared_ptr<const fl::SymbolVector> symbols; ///< unit-free payload symbols s
    fl::Complex precoder{1.0, 0.0};                  ///< b: the phy sends b s
    double txEnergy{0.0}; ///< mean transmitted symbol energy |b|^2 mean|s|^2 [W]
};

/**
 * \ingroup fl-ota
 * The superposition of every transmission of one slot on a sender-only channel, where each
 * sender k reaches every receiver with the same coefficient: sum = sum_k a_k s_k with
 * a_k = h_k b_k. Receivers copy it once and remove the terms they did not receive aligned
 * (their own, misaligned ones): O(N d) per slot instead of O(N^2 d).
 */
class OtaSlotSum : public SimpleRefCount<OtaSlotSum>
{
  public:
    /// Adds a_k s_k of one transmission (O(d)).
    void Add(Ptr<const OtaSignal> signal, fl::Complex effective);

    uint64_t slot{0};                          ///< slot of every signal in the sum
    fl::SymbolVector sum;                      ///< sum_k a_k s_k, zero-padded to the longest
    std::vector<Ptr<const OtaSignal>> signals; ///< the signals in the sum
    std::vector<fl::Complex> effective;        ///< a_k of each signal, same order
};

/**
 * \ingroup fl-ota
 * A transmission as it reaches one receiver: the channel's true coefficient and the arrival time.
 */
struct OtaArrival
{
    Ptr<const OtaSignal> signal; ///< the shared transmission
    /// True channel coefficient h = sqrt(large-scale gain) x small-scale fading (amplitude units).
    fl::Complex coefficient{0.0, 0.0};
    double largeScaleGainDb{0.0}; ///< gain from the PropagationLossModel [dB] (negative = loss)
    Time arrival;                 ///< when the first symbol reaches the receiver
    Ptr<OtaSlotSum> slotSum;      ///< sender-only channels: the slot's shared sum; else null
};

/**
 * \ingroup fl-ota
 * One sender's part in a reception. `coefficient` is the true channel, given for analysis only:
 * a real receiver does not know it.
 */
struct OtaContribution
{
    uint32_t sender{0};     ///< sending phy's index on the channel
    uint32_t senderNode{0}; ///< sending node id
    uint64_t txId{0};       ///< transmission id
    Time txStart;           ///< when the sender started
    Time arrival;           ///< when its first symbol arrived here
    Time offset;            ///< arrival - receive window start (clock offsets, jitter, delay)
    fl::Complex coefficient{0.0, 0.0}; ///< true channel h (analysis only)
    fl::Complex precoder{0.0, 0.0};    ///< the sender's b
    fl::Complex effective{0.0, 0.0};   ///< h b: amplitude and phase the payload arrives with
    double largeScaleGainDb{0.0};      ///< path gain [dB]
    double rxPowerW{0.0};              ///< received power |h b|^2 mean|s|^2 [W]
    bool aligned{false};               ///< within the synchronisation tolerance
};

/**
 * \ingroup fl-ota
 * What a receiving phy delivers at the end of a slot: the received complex vector
 * y = sum_{aligned k} h_k b_k s_k + interference + noise, and metadata.
 */
struct OtaReception
{
    uint32_t receiver{0};     ///< receiving phy's index on the channel
    uint32_t receiverNode{0}; ///< receiving node id
    uint64_t slot{0};         ///< slot of the reception
    uint64_t round{0};        ///< round (= slot, or slot / TdmaSlots in TDMA mode)
    Time windowStart;         ///< start of the receive window (slot start + clock offset)
    Time deliveredAt;         ///< end of the window, when the vector is delivered
    fl::SymbolVector symbols; ///< received vector y (length: longest arrival)
    /// The Gaussian vector added to y (receiver noise + interference + self-interference), kept
    /// only with OtaPhy::RecordNoise (genie: for analysis and DWFL's Oracle decode); else empty.
    fl::SymbolVector noise;
    std::vector<OtaContribution> contributions; ///< every arrival, aligned or not
    uint32_t contributors{0};                   ///< aligned arrivals (superposed)
    uint32_t misaligned{0};                     ///< arrivals outside the tolerance
    double signalPowerW{0.0};           ///< sum of the aligned contributions' received powers
    double noiseVarianceW{0.0};         ///< receiver noise variance per complex symbol
    double interferencePowerW{0.0};     ///< misaligned signals added as interference
    double selfInterferencePowerW{0.0}; ///< residual self-interference (full duplex)
    double snr{0.0};                    ///< signalPowerW / noiseVarianceW (inf if noiseless)
    double sinr{0.0};                   ///< signal / (noise + interference + self-interference)
};

} // namespace ns3

#endif // OTA_SIGNAL_PARAMETERS_H

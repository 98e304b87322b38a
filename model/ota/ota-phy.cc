/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/ota-phy.h"

#include "ns3/fl-ns3-compat.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/ota-channel.h"
#include "ns3/ota-power-control.h"
#include "ns3/phase-timer.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("OtaPhy");

NS_OBJECT_ENSURE_REGISTERED(OtaPhy);

TypeId
OtaPhy::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::OtaPhy")
            .SetParent<Object>()
            .SetGroupName("Fl")
            .AddConstructor<OtaPhy>()
            .AddAttribute("TxPower",
                          "Power budget P [dBm]: the bound on the mean transmitted symbol "
                          "energy that power control works with.",
                          DoubleValue(20.0),
                          MakeDoubleAccessor(&OtaPhy::m_txPowerDbm),
                          MakeDoubleChecker<double>())
            .AddAttribute("EnforcePowerLimit",
                          "Scale a transmission whose mean symbol energy |b|^2 mean|s|^2 "
                          "exceeds TxPower down to TxPower (otherwise send as given).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&OtaPhy::m_enforcePower),
                          MakeBooleanChecker())
            .AddAttribute("PreambleDuration",
                          "Preamble/guard before the payload symbols of every transmission.",
                          TimeValue(MicroSeconds(10)),
                          MakeTimeAccessor(&OtaPhy::m_preamble),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("SyncTolerance",
                          "An arrival is superposed if it starts within this much of the "
                          "receive window's start; otherwise it is misaligned.",
                          TimeValue(NanoSeconds(500)),
                          MakeTimeAccessor(&OtaPhy::m_syncTolerance),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("MisalignedPolicy",
                          "Drop: a misaligned arrival is not superposed. Interference: it adds "
                          "CN(0, its received power) to every symbol.",
                          EnumValue(OtaPhy::MISALIGNED_DROP),
                          FlMakeEnumAccessor(&OtaPhy::m_misalignedPolicy),
                          MakeEnumChecker(OtaPhy::MISALIGNED_DROP,
                                          "Drop",
                                          OtaPhy::MISALIGNED_INTERFERENCE,
                                          "Interference"))
            .AddAttribute(
                "NoiseModel",
                "Thermal: noise variance k T F B. Fixed: NoiseVariance.",
                EnumValue(OtaPhy::NOISE_THERMAL),
                FlMakeEnumAccessor(&OtaPhy::m_noiseModel),
                MakeEnumChecker(OtaPhy::NOISE_THERMAL, "Thermal", OtaPhy::NOISE_FIXED, "Fixed"))
            .AddAttribute("NoiseFigure",
                          "Receiver noise figure NF [dB] (Thermal noise model).",
                          DoubleValue(7.0),
                          MakeDoubleAccessor(&OtaPhy::m_noiseFigureDb),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("NoiseTemperature",
                          "Noise temperature T [K] (Thermal noise model).",
                          DoubleValue(290.0),
                          MakeDoubleAccessor(&OtaPhy::m_noiseTemperature),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("NoiseVariance",
                          "Noise variance per complex symbol [W] (Fixed noise model; DWFL: 1).",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&OtaPhy::m_noiseVariance),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("Duplex",
                          "FullDuplex: receive while transmitting (own signal excluded). "
                          "HalfDuplex: a slot in which the phy transmits is not received.",
                          EnumValue(OtaPhy::FULL_DUPLEX),
                          FlMakeEnumAccessor(&OtaPhy::m_duplex),
                          MakeEnumChecker(OtaPhy::FULL_DUPLEX,
                                          "FullDuplex",
                                          OtaPhy::HALF_DUPLEX,
                                          "HalfDuplex"))
            .AddAttribute("SelfInterference",
                          "Full duplex: add residual self-interference after cancellation.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&OtaPhy::m_selfInterference),
                          MakeBooleanChecker())
            .AddAttribute("SelfInterferenceDb",
                          "Residual self-interference power relative to the own transmitted "
                          "symbol energy [dB].",
                          DoubleValue(-110.0),
                          MakeDoubleAccessor(&OtaPhy::m_selfInterferenceDb),
                          MakeDoubleChecker<double>())
            .AddAttribute("ClockOffset",
                          "Offset of this node's clock: its transmissions and receive windows "
                          "start this much after the common slot boundary.",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&OtaPhy::m_clockOffset),
                          MakeTimeChecker())
            .AddAttribute("ClockJitter",
                          "Random jitter [s] added to each transmission's start.",
                          StringValue("ns3::ConstantRandomVariable[Constant=0.0]"),
                          MakePointerAccessor(&OtaPhy::m_jitter),
                          MakePointerChecker<RandomVariableStream>())
            .AddAttribute("CsiErrorVariance",
                          "Variance of the channel-estimate error relative to the link's "
                          "large-scale gain (0: perfect CSI; 0.01: 20 dB estimation SNR).",
                          DoubleValue(0.0),
                          MakeDoubleAccessor(&OtaPhy::m_csiErrorVariance),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("TdmaSlots",
                          "TDMA mode: N > 0 orthogonal slots per round (0: all senders share "
                          "the round's slot).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&OtaPhy::m_tdmaSlots),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("TdmaIndex",
                          "TDMA mode: this phy's slot within the round (< TdmaSlots).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&OtaPhy::m_tdmaIndex),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("RecordNoise",
                          "Keep the Gaussian vector added to each reception in "
                          "OtaReception::noise (genie knowledge, for analysis and DWFL's "
                          "Oracle decode; costs one copy per reception).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&OtaPhy::m_recordNoise),
                          MakeBooleanChecker())
            .AddAttribute("ReceiveEnabled",
                          "Whether the phy listens (a transmit-only phy costs nothing).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&OtaPhy::m_rxEnabled),
                          MakeBooleanChecker())
            .AddTraceSource("TxStart",
                            "A transmission started.",
                            MakeTraceSourceAccessor(&OtaPhy::m_txStartTrace),
                            "ns3::OtaPhy::SignalTracedCallback")
            .AddTraceSource("TxEnd",
                            "A transmission ended.",
                            MakeTraceSourceAccessor(&OtaPhy::m_txEndTrace),
                            "ns3::OtaPhy::SignalTracedCallback")
            .AddTraceSource("Rx",
                            "A reception was delivered (received vector and metadata).",
                            MakeTraceSourceAccessor(&OtaPhy::m_rxTrace),
                            "ns3::OtaPhy::RxTracedCallback")
            .AddTraceSource("Misaligned",
                            "An arrival fell outside the synchronisation tolerance (or after "
                            "its window closed): the signal and its offset.",
                            MakeTraceSourceAccessor(&OtaPhy::m_misalignedTrace),
                            "ns3::OtaPhy::MisalignedTracedCallback");
    return tid;
}

OtaPhy::OtaPhy()
{
    NS_LOG_FUNCTION(this);
    m_seedRv = CreateObject<UniformRandomVariable>();
}

OtaPhy::~OtaPhy()
{
    NS_LOG_FUNCTION(this);
}

void
OtaPhy::DoDispose()
{
    NS_LOG_FUNCTION(this);
    for (auto& [slot, rec] : m_rxSlots)
    {
        Simulator::Cancel(rec.endEvent);
    }
    m_rxSlots.clear();
    m_channel = nullptr;
    m_mobility = nullptr;
    m_node = nullptr;
    m_device = nullptr;
    m_jitter = nullptr;
    m_seedRv = nullptr;
    m_receiveCallback = MakeNullCallback<void, const OtaReception&>();
    Object::DoDispose();
}

void
OtaPhy::SetChannel(Ptr<OtaChannel> channel)
{
    NS_LOG_FUNCTION(this << channel);
    NS_ABORT_MSG_IF(m_channel, "OtaPhy::SetChannel: the phy is already attached to a channel");
    m_channel = channel;
    m_index = channel->AddPhy(this);
}

Ptr<OtaChannel>
OtaPhy::GetChannel() const
{
    return m_channel;
}

uint32_t
OtaPhy::GetIndex() const
{
    return m_index;
}

void
OtaPhy::SetMobility(Ptr<MobilityModel> mobility)
{
    m_mobility = mobility;
}

Ptr<MobilityModel>
OtaPhy::GetMobility() const
{
    return m_mobility;
}

void
OtaPhy::SetNode(Ptr<Node> node)
{
    m_node = node;
}

Ptr<Node>
OtaPhy::GetNode() const
{
    return m_node;
}

void
OtaPhy::SetDevice(Ptr<NetDevice> device)
{
    m_device = device;
}

Ptr<NetDevice>
OtaPhy::GetDevice() const
{
    return m_device;
}

void
OtaPhy::SetReceiveCallback(ReceiveCallback cb)
{
    m_receiveCallback = cb;
}

double
OtaPhy::GetTxPowerW() const
{
    return fl::DbmToW(m_txPowerDbm);
}

double
OtaPhy::GetNoiseVariance() const
{
    if (m_noiseModel == NOISE_FIXED)
    {
        return m_noiseVariance;
    }
    NS_ABORT_MSG_IF(!m_channel, "OtaPhy: thermal noise needs the channel's Bandwidth");
    return fl::ThermalNoisePower(m_noiseTemperature, m_noiseFigureDb, m_channel->GetBandwidth());
}

Time
OtaPhy::GetTxDuration(std::size_t symbols) const
{
    NS_ABORT_MSG_IF(!m_channel, "OtaPhy: the airtime needs the channel's Bandwidth");
    return Seconds(fl::AnalogAirtime(symbols, m_channel->GetBandwidth(), m_preamble.GetSeconds()));
}

bool
OtaPhy::IsReceiveEnabled() const
{
    return m_rxEnabled;
}

uint64_t
OtaPhy::GetTxCount() const
{
    return m_txCount;
}

uint64_t
OtaPhy::BaseSeed() const
{
    if (!m_seedDrawn)
    {
        const uint64_t hi = m_seedRv->GetInteger(0, 0xFFFFFFFFU);
        const uint64_t lo = m_seedRv->GetInteger(0, 0xFFFFFFFFU);
        m_baseSeed = (hi << 32) | lo;
        m_seedDrawn = true;
    }
    return m_baseSeed;
}

uint64_t
OtaPhy::GetSlotForRound(uint64_t round) const
{
    if (m_tdmaSlots == 0)
    {
        return round;
    }
    NS_ABORT_MSG_IF(m_tdmaIndex >= m_tdmaSlots,
                    "OtaPhy: TdmaIndex " << m_tdmaIndex << " >= TdmaSlots " << m_tdmaSlots
                                         << " (fix: give each phy an index below TdmaSlots; "
                                            "OtaHelper::SetTdma does it)");
    return round * m_tdmaSlots + m_tdmaIndex;
}

uint64_t
OtaPhy::GetRoundOfSlot(uint64_t slot) const
{
    return m_tdmaSlots == 0 ? slot : slot / m_tdmaSlots;
}

uint32_t
OtaPhy::GetSlotsPerRound() const
{
    return m_tdmaSlots == 0 ? 1 : m_tdmaSlots;
}

bool
OtaPhy::TransmitInRound(uint64_t round,
                        std::shared_ptr<const fl::SymbolVector> symbols,
                        fl::Complex b)
{
    return Transmit(GetSlotForRound(round), std::move(symbols), b);
}

bool
OtaPhy::TransmitReal(uint64_t slot, const Eigen::VectorXd& x, fl::Complex b)
{
    return Transmit(slot, std::make_shared<const fl::SymbolVector>(fl::PackReal(x)), b);
}

bool
OtaPhy::Transmit(uint64_t slot, std::shared_ptr<const fl::SymbolVector> symbols, fl::Complex b)
{
    NS_LOG_FUNCTION(this << slot << b);
    NS_ABORT_MSG_IF(!m_channel,
                    "OtaPhy::Transmit: no channel (fix: OtaPhy::SetChannel or OtaHelper::Install)");
    NS_ABORT_MSG_IF(!symbols || symbols->size() == 0, "OtaPhy::Transmit: empty payload");
    const Time now = Simulator::Now();
    const Time boundary = m_channel->GetSlotStart(slot) + m_clockOffset;
    if (boundary < now)
    {
        ++m_counters.txLate;
        NS_LOG_WARN("phy " << m_index << ": slot " << slot << " started at "
                           << boundary.As(Time::US) << ", too late to transmit; refused");
        return false;
    }
    Time start = boundary + Seconds(m_jitter->GetValue());
    if (start < now)
    {
        start = now;
    }
    const Time duration = GetTxDuration(static_cast<std::size_t>(symbols->size()));
    NS_ABORT_MSG_IF(duration > m_channel->GetSlotDuration(),
                    "OtaPhy: a transmission of "
                        << symbols->size() << " symbols lasts " << duration.As(Time::US)
                        << ", longer than OtaChannel::SlotDuration "
                        << m_channel->GetSlotDuration().As(Time::US)
                        << " (fix: raise SlotDuration to at least PreambleDuration + symbols / "
                           "Bandwidth plus a guard, or raise Bandwidth)");
    if (start < m_busyUntil)
    {
        ++m_counters.txBusy;
        NS_LOG_WARN("phy " << m_index << ": still transmitting at " << start.As(Time::US)
                           << "; slot " << slot << " refused");
        return false;
    }
    double energy = std::norm(b) * fl::MeanSymbolEnergy(*symbols);
    const double budget = GetTxPowerW();
    if (m_enforcePower && energy > budget)
    {
        b *= std::sqrt(budget / energy);
        energy = budget;
        ++m_counters.txPowerScaled;
    }
    Ptr<OtaSignal> signal = Create<OtaSignal>();
    signal->sender = m_index;
    signal->senderNode = m_node ? m_node->GetId() : std::numeric_limits<uint32_t>::max();
    signal->txId = m_channel->NextTxId();
    signal->txSeq = m_txCount++;
    signal->slot = slot;
    signal->start = start;
    signal->duration = duration;
    signal->symbols = std::move(symbols);
    signal->precoder = b;
    signal->txEnergy = energy;
    m_busyUntil = start + duration;
    m_txSlots[slot] = energy;
    Simulator::Schedule(start - now, &OtaPhy::StartTransmission, this, signal);
    return true;
}

void
OtaPhy::StartTransmission(Ptr<OtaSignal> signal)
{
    NS_LOG_FUNCTION(this << signal->txId);
    ++m_counters.txStarted;
    m_txStartTrace(signal);
    m_channel->StartTx(signal);
    Simulator::Schedule(signal->duration, &OtaPhy::EndTransmission, this, signal);
}

void
OtaPhy::EndTransmission(Ptr<OtaSignal> signal)
{
    NS_LOG_FUNCTION(this << signal->txId);
    m_txEndTrace(signal);
}

fl::Complex
OtaPhy::GetTrueChannel(Ptr<const OtaPhy> rx, uint64_t slot) const
{
    NS_ABORT_MSG_IF(!m_channel, "OtaPhy::GetTrueChannel: no channel");
    NS_ABORT_MSG_IF(!rx && m_channel->GetStructure() == OtaChannel::STRUCTURE_PER_LINK,
                    "OtaPhy::GetTrueChannel: a per-link channel needs the receiving phy");
    return m_channel->GetCoefficient(m_index, rx ? rx->GetIndex() : m_index, slot);
}

fl::Complex
OtaPhy::GetChannelEstimate(Ptr<const OtaPhy> rx, uint64_t slot)
{
    // the channel as measured CsiAge before the slot (the true one when CsiAge is 0)
    NS_ABORT_MSG_IF(!m_channel, "OtaPhy::GetChannelEstimate: no channel");
    NS_ABORT_MSG_IF(!rx && m_channel->GetStructure() == OtaChannel::STRUCTURE_PER_LINK,
                    "OtaPhy::GetChannelEstimate: a per-link channel needs the receiving phy");
    const fl::Complex h = m_channel->GetCsiCoefficient(m_index, rx ? rx->GetIndex() : m_index, slot);
    if (m_csiErrorVariance <= 0.0)
    {
        return h;
    }
    const double gainDb = m_channel->GetLargeScaleGainDb(m_index, rx ? rx->GetIndex() : m_index);
    const double variance = m_csiErrorVariance * std::pow(10.0, gainDb / 10.0);
    fl::Rng rng(fl::DeriveSeed(fl::DeriveSeed(BaseSeed(), 2), slot, m_csiCount++));
    return fl::EstimateCsi(h, variance, rng);
}

const OtaPhyCounters&
OtaPhy::GetCounters() const
{
    return m_counters;
}

int64_t
OtaPhy::AssignStreams(int64_t stream)
{
    NS_LOG_FUNCTION(this << stream);
    m_seedRv->SetStream(stream);
    m_jitter->SetStream(stream + 1);
    m_seedDrawn = false;
    return 2;
}

void
OtaPhy::StartRx(OtaArrival arrival)
{
    NS_LOG_FUNCTION(this << arrival.signal->sender << arrival.signal->slot);
    if (!m_rxEnabled)
    {
        return;
    }
    const uint64_t slot = arrival.signal->slot;
    const Time now = Simulator::Now();
    const Time windowStart = m_channel->GetSlotStart(slot) + m_clockOffset;
    const Time windowEnd = m_channel->GetSlotStart(slot + 1) + m_clockOffset;
    if (now >= windowEnd)
    {
        // Documented rule: an arrival after its slot's window closed is dropped as late.
        ++m_counters.misaligned;
        ++m_counters.late;
        NS_LOG_INFO("phy " << m_index << ": late arrival from " << arrival.signal->sender
                           << " for slot " << slot);
        m_misalignedTrace(arrival.signal, now - windowStart);
        return;
    }
    auto it = m_rxSlots.find(slot);
    if (it == m_rxSlots.end())
    {
        RxSlot rec;
        rec.windowStart = windowStart;
        rec.windowEnd = windowEnd;
        rec.endEvent = Simulator::Schedule(windowEnd - now, &OtaPhy::EndRx, this, slot);
        it = m_rxSlots.emplace(slot, std::move(rec)).first;
    }
    it->second.arrivals.push_back(std::move(arrival));
}

namespace
{
/// acc += a s over the head they share (s may be longer than the reception).
void
SuperposeHead(fl::SymbolVector& acc, fl::Complex a, const fl::SymbolVector& s)
{
    if (s.size() <= acc.size())
    {
        fl::Superpose(acc, a, s);
    }
    else
    {
        const fl::SymbolVector head = s.head(acc.size());
        fl::Superpose(acc, a, head);
    }
}
} // namespace

void
OtaPhy::PruneTxSlots(uint64_t slot)
{
    while (!m_txSlots.empty() && m_txSlots.begin()->first < slot)
    {
        m_txSlots.erase(m_txSlots.begin());
    }
}

void
OtaPhy::EndRx(uint64_t slot)
{
    NS_LOG_FUNCTION(this << slot);
    auto it = m_rxSlots.find(slot);
    NS_ASSERT(it != m_rxSlots.end());
    RxSlot rec = std::move(it->second);
    m_rxSlots.erase(it);
    auto txIt = m_txSlots.find(slot);
    const bool transmitted = txIt != m_txSlots.end();
    const double ownEnergy = transmitted ? txIt->second : 0.0;
    PruneTxSlots(slot);
    if (m_duplex == HALF_DUPLEX && transmitted)
    {
        ++m_counters.halfDuplexBlocked;
        NS_LOG_INFO("phy " << m_index << ": half duplex, transmitting in slot " << slot
                           << "; reception lost");
        return;
    }

    fl::PhaseScope channel(fl::Phase::Channel);
    OtaReception rx;
    rx.receiver = m_index;
    rx.receiverNode = m_node ? m_node->GetId() : std::numeric_limits<uint32_t>::max();
    rx.slot = slot;
    rx.round = GetRoundOfSlot(slot);
    rx.windowStart = rec.windowStart;
    rx.deliveredAt = Simulator::Now();
    rx.contributions.reserve(rec.arrivals.size());

    Eigen::Index len = 0;
    std::vector<uint64_t> alignedIds; // sorted below
    alignedIds.reserve(rec.arrivals.size());
    for (const OtaArrival& a : rec.arrivals)
    {
        const OtaSignal& sig = *a.signal;
        OtaContribution c;
        c.sender = sig.sender;
        c.senderNode = sig.senderNode;
        c.txId = sig.txId;
        c.txStart = sig.start;
        c.arrival = a.arrival;
        c.offset = a.arrival - rec.windowStart;
        c.coefficient = a.coefficient;
        c.precoder = sig.precoder;
        c.effective = fl::EffectiveCoefficient(a.coefficient, sig.precoder);
        c.largeScaleGainDb = a.largeScaleGainDb;
        c.rxPowerW = std::norm(a.coefficient) * sig.txEnergy;
        c.aligned = Abs(c.offset) <= m_syncTolerance;
        len = std::max(len, sig.symbols->size());
        if (c.aligned)
        {
            alignedIds.push_back(sig.txId);
            ++rx.contributors;
            rx.signalPowerW += c.rxPowerW;
        }
        else
        {
            ++rx.misaligned;
            ++m_counters.misaligned;
            if (m_misalignedPolicy == MISALIGNED_INTERFERENCE)
            {
                rx.interferencePowerW += c.rxPowerW;
            }
            NS_LOG_INFO("phy " << m_index << ": arrival from " << sig.sender << " misaligned by "
                               << c.offset.As(Time::NS));
            m_misalignedTrace(a.signal, c.offset);
        }
        rx.contributions.push_back(c);
    }

    // Superposition. Per-link arrivals add their own term; sender-only arrivals share their
    // slot's sum, which is added once and then stripped of the signals not received aligned
    // here (the own signal, misaligned ones, ones that have not arrived).
    std::vector<const OtaSlotSum*> sums;
    bool perLink = false;
    for (const OtaArrival& a : rec.arrivals)
    {
        if (!a.slotSum)
        {
            perLink = true;
        }
        else if (std::find(sums.begin(), sums.end(), PeekPointer(a.slotSum)) == sums.end())
        {
            sums.push_back(PeekPointer(a.slotSum));
        }
    }
    std::sort(alignedIds.begin(), alignedIds.end());
    auto alignedHere = [&alignedIds](uint64_t txId) {
        return std::binary_search(alignedIds.begin(), alignedIds.end(), txId);
    };
    // The received vector reuses the phy's buffer (swapped back after the delivery): no
    // allocation per reception.
    rx.symbols.swap(m_rxBuffer);
    std::size_t firstSum = 0;
    if (!perLink && sums.size() == 1 && sums[0]->sum.size() >= len)
    {
        // One shared sum: S minus the signals not received aligned here (usually just the own
        // one: then y = S - a_i s_i in one pass).
        const OtaSlotSum* sum = sums[0];
        std::vector<std::size_t> strip;
        for (std::size_t j = 0; j < sum->signals.size(); ++j)
        {
            if (!alignedHere(sum->signals[j]->txId))
            {
                strip.push_back(j);
            }
        }
        rx.symbols.resize(len);
        if (strip.size() == 1 && sum->signals[strip[0]]->symbols->size() == len)
        {
            rx.symbols.noalias() =
                sum->sum.head(len) - sum->effective[strip[0]] * *sum->signals[strip[0]]->symbols;
        }
        else
        {
            rx.symbols = sum->sum.head(len);
            for (std::size_t j : strip)
            {
                SuperposeHead(rx.symbols, -sum->effective[j], *sum->signals[j]->symbols);
            }
        }
        firstSum = 1;
    }
    else
    {
        rx.symbols.setZero(len);
    }
    for (std::size_t j = 0; j < rec.arrivals.size(); ++j)
    {
        if (!rec.arrivals[j].slotSum && rx.contributions[j].aligned)
        {
            fl::Superpose(rx.symbols,
                          rx.contributions[j].effective,
                          *rec.arrivals[j].signal->symbols);
        }
    }
    for (std::size_t u = firstSum; u < sums.size(); ++u)
    {
        const OtaSlotSum* sum = sums[u];
        SuperposeHead(rx.symbols, fl::Complex(1.0, 0.0), sum->sum);
        for (std::size_t j = 0; j < sum->signals.size(); ++j)
        {
            if (!alignedHere(sum->signals[j]->txId))
            {
                SuperposeHead(rx.symbols, -sum->effective[j], *sum->signals[j]->symbols);
            }
        }
    }

    // Noise, misaligned interference and residual self-interference: independent Gaussians.
    rx.noiseVarianceW = GetNoiseVariance();
    if (m_duplex == FULL_DUPLEX && transmitted && m_selfInterference)
    {
        rx.selfInterferencePowerW = ownEnergy * std::pow(10.0, m_selfInterferenceDb / 10.0);
    }
    const double gaussian = rx.noiseVarianceW + rx.interferencePowerW + rx.selfInterferencePowerW;
    if (gaussian > 0.0)
    {
        fl::PhaseScope noise(fl::Phase::Noise);
        fl::Rng rng(fl::DeriveSeed(fl::DeriveSeed(BaseSeed(), 1), slot, m_rxCount));
        if (m_recordNoise)
        {
            // The same draws as without recording: y + n with n drawn into a zero vector.
            rx.noise = fl::SymbolVector::Zero(rx.symbols.size());
            fl::AddComplexNoise(rx.noise, gaussian, rng);
            rx.symbols += rx.noise;
        }
        else
        {
            fl::AddComplexNoise(rx.symbols, gaussian, rng);
        }
    }
    ++m_rxCount;
    fl::PhaseScope other(fl::Phase::Other); // the layers above mark their own phases
    const double inf = std::numeric_limits<double>::infinity();
    rx.snr = rx.noiseVarianceW > 0.0 ? rx.signalPowerW / rx.noiseVarianceW : inf;
    rx.sinr = gaussian > 0.0 ? rx.signalPowerW / gaussian : inf;

    ++m_counters.rxDelivered;
    m_counters.rxContributions += rx.contributors;
    NS_LOG_INFO("phy " << m_index << ": slot " << slot << " delivered, " << rx.contributors
                       << " aligned, " << rx.misaligned << " misaligned, SNR "
                       << 10.0 * std::log10(rx.snr) << " dB");
    m_rxTrace(rx);
    if (!m_receiveCallback.IsNull())
    {
        m_receiveCallback(rx);
    }
    m_rxBuffer.swap(rx.symbols);
}

} // namespace ns3

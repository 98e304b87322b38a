/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/ota-channel.h"

#include "ns3/fl-ns3-compat.h"
#include "ns3/boolean.h"
#include "ns3/constant-position-mobility-model.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/ota-phy.h"
#include "ns3/ota-power-control.h"
#include "ns3/phase-timer.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"

#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("OtaChannel");

NS_OBJECT_ENSURE_REGISTERED(OtaChannel);

void
OtaSlotSum::Add(Ptr<const OtaSignal> signal, fl::Complex a)
{
    const Eigen::Index len = signal->symbols->size();
    if (len > sum.size())
    {
        const Eigen::Index old = sum.size();
        sum.conservativeResize(len);
        sum.tail(len - old).setZero();
    }
    fl::Superpose(sum, a, *signal->symbols);
    signals.push_back(signal);
    effective.push_back(a);
}

TypeId
OtaChannel::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::OtaChannel")
            .SetParent<Channel>()
            .SetGroupName("Fl")
            .AddConstructor<OtaChannel>()
            .AddAttribute("SlotDuration",
                          "Duration of a slot of the common schedule; a transmission "
                          "(preamble + symbols / Bandwidth) must fit in it.",
                          TimeValue(MilliSeconds(1)),
                          MakeTimeAccessor(&OtaChannel::m_slotDuration),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("FirstSlotStart",
                          "Start of slot 0 on the simulation clock.",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&OtaChannel::m_firstSlotStart),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("Bandwidth",
                          "Bandwidth B [Hz] = symbol rate of every phy on the channel.",
                          DoubleValue(1e6),
                          MakeDoubleAccessor(&OtaChannel::m_bandwidth),
                          MakeDoubleChecker<double>(1.0))
            .AddAttribute("FadingModel",
                          "Small-scale fading: None, Rayleigh, Rician or Nakagami (E|g|^2 = 1).",
                          EnumValue(OtaChannel::FADING_RAYLEIGH),
                          FlMakeEnumAccessor(&OtaChannel::m_fading),
                          MakeEnumChecker(OtaChannel::FADING_NONE,
                                          "None",
                                          OtaChannel::FADING_RAYLEIGH,
                                          "Rayleigh",
                                          OtaChannel::FADING_RICIAN,
                                          "Rician",
                                          OtaChannel::FADING_NAKAGAMI,
                                          "Nakagami"))
            .AddAttribute("RicianK",
                          "Rician K factor (linear): power of the line-of-sight part over the "
                          "scattered part.",
                          DoubleValue(3.0),
                          MakeDoubleAccessor(&OtaChannel::m_ricianK),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("NakagamiM",
                          "Nakagami shape m (>= 0.5; 1 is Rayleigh).",
                          DoubleValue(2.0),
                          MakeDoubleAccessor(&OtaChannel::m_nakagamiM),
                          MakeDoubleChecker<double>(0.5))
            .AddAttribute("Coherence",
                          "How long a small-scale coefficient lasts: Fixed (whole run, DWFL), "
                          "PerSlot (block fading), PerTransmission, or Correlated (a "
                          "Gauss-Markov process with the Jakes correlation J0(2 pi f_D tau), "
                          "f_D from the nodes' speeds and CarrierFrequency).",
                          EnumValue(OtaChannel::COHERENCE_FIXED),
                          FlMakeEnumAccessor(&OtaChannel::m_coherence),
                          MakeEnumChecker(OtaChannel::COHERENCE_FIXED,
                                          "Fixed",
                                          OtaChannel::COHERENCE_PER_SLOT,
                                          "PerSlot",
                                          OtaChannel::COHERENCE_PER_TRANSMISSION,
                                          "PerTransmission",
                                          OtaChannel::COHERENCE_CORRELATED,
                                          "Correlated"))
            .AddAttribute("CarrierFrequency",
                          "Carrier frequency f_c [Hz]: the Doppler frequency f_D = v f_c / c of "
                          "Coherence Correlated.",
                          DoubleValue(2.4e9),
                          MakeDoubleAccessor(&OtaChannel::m_carrierHz),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("CsiAge",
                          "Age of the channel estimates: the estimate for a slot measures the "
                          "small-scale coefficient this long before the slot starts (0: at the "
                          "slot). Not with Coherence PerTransmission.",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&OtaChannel::m_csiAge),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("Structure",
                          "PerLink: one coefficient per link k->i. SenderOnly: one coefficient "
                          "per sender seen by every receiver (DWFL), path loss to "
                          "ReferencePosition.",
                          EnumValue(OtaChannel::STRUCTURE_PER_LINK),
                          FlMakeEnumAccessor(&OtaChannel::m_structure),
                          MakeEnumChecker(OtaChannel::STRUCTURE_PER_LINK,
                                          "PerLink",
                                          OtaChannel::STRUCTURE_SENDER_ONLY,
                                          "SenderOnly"))
            .AddAttribute("Reciprocal",
                          "PerLink only: h_{k->i} = h_{i->k} within a coherence block "
                          "(PerTransmission blocks are never shared).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&OtaChannel::m_reciprocal),
                          MakeBooleanChecker())
            .AddAttribute("ReferencePosition",
                          "SenderOnly only: the large-scale gain of sender k is the path loss "
                          "from k to this point.",
                          VectorValue(Vector(0.0, 0.0, 0.0)),
                          MakeVectorAccessor(&OtaChannel::SetReferencePosition,
                                             &OtaChannel::GetReferencePosition),
                          MakeVectorChecker())
            .AddAttribute("PropagationLossModel",
                          "Large-scale path loss between mobility models (null: 0 dB).",
                          PointerValue(),
                          MakePointerAccessor(&OtaChannel::m_loss),
                          MakePointerChecker<PropagationLossModel>())
            .AddAttribute("PropagationDelayModel",
                          "Propagation delay between mobility models (null: no delay).",
                          PointerValue(),
                          MakePointerAccessor(&OtaChannel::m_delay),
                          MakePointerChecker<PropagationDelayModel>())
            .AddTraceSource("SignalTx",
                            "A transmission entered the channel.",
                            MakeTraceSourceAccessor(&OtaChannel::m_signalTxTrace),
                            "ns3::OtaChannel::SignalTracedCallback");
    return tid;
}

OtaChannel::OtaChannel()
{
    NS_LOG_FUNCTION(this);
    m_reference = CreateObject<ConstantPositionMobilityModel>();
    m_seedRv = CreateObject<UniformRandomVariable>();
}

OtaChannel::~OtaChannel()
{
    NS_LOG_FUNCTION(this);
}

void
OtaChannel::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_phys.clear();
    m_slotSums.clear();
    m_fadingCache.clear();
    m_processes.clear();
    m_loss = nullptr;
    m_delay = nullptr;
    m_reference = nullptr;
    m_seedRv = nullptr;
    Channel::DoDispose();
}

uint32_t
OtaChannel::AddPhy(Ptr<OtaPhy> phy)
{
    NS_LOG_FUNCTION(this << phy);
    m_phys.push_back(phy);
    return static_cast<uint32_t>(m_phys.size() - 1);
}

std::size_t
OtaChannel::GetNPhys() const
{
    return m_phys.size();
}

Ptr<OtaPhy>
OtaChannel::GetPhy(std::size_t i) const
{
    NS_ABORT_MSG_IF(i >= m_phys.size(), "OtaChannel::GetPhy: index " << i << " out of range");
    return m_phys[i];
}

std::size_t
OtaChannel::GetNDevices() const
{
    return m_phys.size();
}

Ptr<NetDevice>
OtaChannel::GetDevice(std::size_t i) const
{
    return GetPhy(i)->GetDevice();
}

void
OtaChannel::SetPropagationLossModel(Ptr<PropagationLossModel> loss)
{
    m_loss = loss;
}

Ptr<PropagationLossModel>
OtaChannel::GetPropagationLossModel() const
{
    return m_loss;
}

void
OtaChannel::SetPropagationDelayModel(Ptr<PropagationDelayModel> delay)
{
    m_delay = delay;
}

Ptr<PropagationDelayModel>
OtaChannel::GetPropagationDelayModel() const
{
    return m_delay;
}

void
OtaChannel::SetReferencePosition(const Vector& position)
{
    m_reference->SetPosition(position);
}

Vector
OtaChannel::GetReferencePosition() const
{
    return m_reference->GetPosition();
}

Time
OtaChannel::GetSlotDuration() const
{
    return m_slotDuration;
}

Time
OtaChannel::GetSlotStart(uint64_t slot) const
{
    return TimeStep(static_cast<uint64_t>(m_firstSlotStart.GetTimeStep()) +
                    static_cast<uint64_t>(m_slotDuration.GetTimeStep()) * slot);
}

uint64_t
OtaChannel::GetNextSlot(Time t) const
{
    if (t <= m_firstSlotStart)
    {
        return 0;
    }
    const int64_t rel = (t - m_firstSlotStart).GetTimeStep();
    const int64_t dur = m_slotDuration.GetTimeStep();
    return static_cast<uint64_t>((rel + dur - 1) / dur);
}

double
OtaChannel::GetBandwidth() const
{
    return m_bandwidth;
}

OtaChannel::Structure
OtaChannel::GetStructure() const
{
    return m_structure;
}

OtaChannel::Coherence
OtaChannel::GetCoherence() const
{
    return m_coherence;
}

fl::FadingSpec
OtaChannel::GetFadingSpec() const
{
    fl::FadingSpec spec;
    switch (m_fading)
    {
    case FADING_NONE:
        spec.kind = fl::FadingKind::None;
        break;
    case FADING_RAYLEIGH:
        spec.kind = fl::FadingKind::Rayleigh;
        break;
    case FADING_RICIAN:
        spec.kind = fl::FadingKind::Rician;
        break;
    case FADING_NAKAGAMI:
        spec.kind = fl::FadingKind::Nakagami;
        break;
    }
    spec.ricianK = m_ricianK;
    spec.nakagamiM = m_nakagamiM;
    return spec;
}

uint64_t
OtaChannel::Seed() const
{
    if (!m_seedDrawn)
    {
        const uint64_t hi = m_seedRv->GetInteger(0, 0xFFFFFFFFU);
        const uint64_t lo = m_seedRv->GetInteger(0, 0xFFFFFFFFU);
        m_seed = (hi << 32) | lo;
        m_seedDrawn = true;
    }
    return m_seed;
}

uint64_t
OtaChannel::LinkKey(uint32_t tx, uint32_t rx) const
{
    if (m_structure == STRUCTURE_SENDER_ONLY)
    {
        return tx;
    }
    if (m_reciprocal && m_coherence != COHERENCE_PER_TRANSMISSION && rx < tx)
    {
        std::swap(tx, rx);
    }
    return (static_cast<uint64_t>(tx) << 32) | rx;
}

uint64_t
OtaChannel::CoherenceBlock(uint32_t /*tx*/, uint64_t slot, uint64_t txSeq) const
{
    switch (m_coherence)
    {
    case COHERENCE_FIXED:
        return 0;
    case COHERENCE_PER_SLOT:
        return slot;
    case COHERENCE_PER_TRANSMISSION:
        return txSeq;
    case COHERENCE_CORRELATED:
        return slot; // (SmallScale samples the process instead)
    }
    return 0;
}

double
OtaChannel::LosPhase(uint64_t key, uint64_t linkSeed) const
{
    auto los = m_losPhase.find(key);
    if (los == m_losPhase.end())
    {
        fl::Rng losRng(fl::DeriveSeed(linkSeed, ~0ULL, 1));
        std::uniform_real_distribution<double> u(0.0, 6.283185307179586);
        los = m_losPhase.emplace(key, u(losRng)).first;
    }
    return los->second;
}

fl::Complex
OtaChannel::GetFading(uint32_t tx, uint32_t rx, uint64_t block) const
{
    const uint64_t key = LinkKey(tx, rx);
    auto it = m_fadingCache.find(key);
    if (it != m_fadingCache.end() && it->second.block == block)
    {
        return it->second.value;
    }
    const fl::FadingSpec spec = GetFadingSpec();
    fl::ValidateFading(spec);
    const uint64_t linkSeed = fl::DeriveSeed(Seed(), key);
    const double losPhase = spec.kind == fl::FadingKind::Rician ? LosPhase(key, linkSeed) : 0.0;
    fl::Rng rng(fl::DeriveSeed(linkSeed, block));
    const fl::Complex g = fl::DrawFading(spec, rng, losPhase);
    m_fadingCache[key] = CacheEntry{block, g};
    return g;
}

Ptr<MobilityModel>
OtaChannel::MobilityOf(uint32_t i) const
{
    Ptr<MobilityModel> m = GetPhy(i)->GetMobility();
    NS_ABORT_MSG_IF(!m,
                    "OtaChannel: phy " << i
                                       << " has no MobilityModel (fix: install mobility on its "
                                          "node before OtaHelper::Install, or call "
                                          "OtaPhy::SetMobility)");
    return m;
}

double
OtaChannel::GetLargeScaleGainDb(uint32_t tx, uint32_t rx) const
{
    if (!m_loss)
    {
        return 0.0;
    }
    Ptr<MobilityModel> to = m_structure == STRUCTURE_SENDER_ONLY ? m_reference : MobilityOf(rx);
    return m_loss->CalcRxPower(0.0, MobilityOf(tx), to);
}

Time
OtaChannel::GetDelay(uint32_t tx, uint32_t rx) const
{
    if (!m_delay)
    {
        return Seconds(0);
    }
    return m_delay->GetDelay(MobilityOf(tx), MobilityOf(rx));
}

fl::Complex
OtaChannel::GetCoefficient(uint32_t tx, uint32_t rx, uint64_t slot) const
{
    const double amplitude = std::pow(10.0, GetLargeScaleGainDb(tx, rx) / 20.0);
    return amplitude * SmallScale(tx, rx, slot, GetPhy(tx)->GetTxCount());
}

fl::Complex
OtaChannel::GetCsiCoefficient(uint32_t tx, uint32_t rx, uint64_t slot) const
{
    if (m_csiAge.IsZero())
    {
        return GetCoefficient(tx, rx, slot);
    }
    const double amplitude = std::pow(10.0, GetLargeScaleGainDb(tx, rx) / 20.0);
    if (m_coherence == COHERENCE_CORRELATED)
    {
        return amplitude * CorrelatedFading(tx, rx, PointOf(slot, true));
    }
    if (m_coherence == COHERENCE_PER_TRANSMISSION)
    {
        fl::ExitOnConfigError(
            "OtaChannel",
            fl::ConfigError("CsiAge",
                            "> 0 with Coherence PerTransmission (a coefficient per transmission "
                            "has no time to age from)",
                            "use Coherence Fixed, PerSlot or Correlated, or CsiAge 0"));
    }
    // the block in force at t_slot - CsiAge (slot 0 at the earliest)
    const Time at = GetSlotStart(slot) - m_csiAge;
    uint64_t csiSlot = 0;
    if (at > m_firstSlotStart)
    {
        csiSlot = static_cast<uint64_t>((at - m_firstSlotStart).GetTimeStep() /
                                        m_slotDuration.GetTimeStep());
    }
    return amplitude * SmallScale(tx, rx, csiSlot, GetPhy(tx)->GetTxCount());
}

Time
OtaChannel::GetCsiAge() const
{
    return m_csiAge;
}

double
OtaChannel::GetCarrierFrequency() const
{
    return m_carrierHz;
}

double
OtaChannel::GetDopplerFrequency(uint32_t tx, uint32_t rx) const
{
    const auto speed = [this](uint32_t i) {
        const Vector v = MobilityOf(i)->GetVelocity();
        return std::sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
    };
    double v = speed(tx);
    if (m_structure == STRUCTURE_PER_LINK && rx != tx)
    {
        v += speed(rx); // the largest Doppler shift of a link whose both ends move
    }
    return fl::DopplerFrequency(v, m_carrierHz);
}

bool
OtaChannel::IsStill() const
{
    for (uint32_t i = 0; i < m_phys.size(); ++i)
    {
        const Vector v = MobilityOf(i)->GetVelocity();
        if (v.x != 0.0 || v.y != 0.0 || v.z != 0.0)
        {
            return false;
        }
    }
    return true;
}

std::vector<Vector>
OtaChannel::GetPositions() const
{
    std::vector<Vector> out;
    for (uint32_t i = 0; i < m_phys.size(); ++i)
    {
        out.push_back(MobilityOf(i)->GetPosition());
    }
    return out;
}

fl::Complex
OtaChannel::SmallScale(uint32_t tx, uint32_t rx, uint64_t slot, uint64_t txSeq) const
{
    if (m_coherence == COHERENCE_CORRELATED)
    {
        return CorrelatedFading(tx, rx, PointOf(slot, false));
    }
    return GetFading(tx, rx, CoherenceBlock(tx, slot, txSeq));
}

uint64_t
OtaChannel::PointOf(uint64_t slot, bool csi) const
{
    // The process starts at the first CSI time, t_0 - CsiAge. CsiAge = q T + r (0 <= r < T):
    // r = 0: point j is t_{j-q}; r > 0: point 2m is t_{m-q} - r (slot m's CSI), 2m + 1 is
    // t_{m-q} (the start of slot m - q).
    const int64_t period = m_slotDuration.GetTimeStep();
    const auto q = static_cast<uint64_t>(m_csiAge.GetTimeStep() / period);
    const int64_t r = m_csiAge.GetTimeStep() % period;
    if (r == 0)
    {
        return csi ? slot : slot + q;
    }
    return csi ? 2 * slot : 2 * (slot + q) + 1;
}

Time
OtaChannel::PointTime(uint64_t index) const
{
    const int64_t period = m_slotDuration.GetTimeStep();
    const auto q = static_cast<int64_t>(m_csiAge.GetTimeStep() / period);
    const int64_t r = m_csiAge.GetTimeStep() % period;
    const int64_t first = m_firstSlotStart.GetTimeStep();
    if (r == 0)
    {
        return TimeStep(first + (static_cast<int64_t>(index) - q) * period);
    }
    const int64_t m = static_cast<int64_t>(index / 2);
    return TimeStep(first + (m - q) * period - (index % 2 == 0 ? r : 0));
}

fl::Complex
OtaChannel::CorrelatedFading(uint32_t tx, uint32_t rx, uint64_t index) const
{
    const fl::FadingSpec spec = GetFadingSpec();
    const uint64_t key = LinkKey(tx, rx);
    const uint64_t linkSeed = fl::DeriveSeed(Seed(), key);
    const double losPhase = spec.kind == fl::FadingKind::Rician ? LosPhase(key, linkSeed) : 0.0;
    Process& p = m_processes[key];
    try
    {
        fl::ValidateFading(spec);
        if (p.values.empty())
        {
            // point 0: the draws of the Fixed coefficient (block 0)
            fl::Rng rng(fl::DeriveSeed(linkSeed, 0));
            std::normal_distribution<double> normal(0.0, 1.0);
            const double g1 = normal(rng);
            const double g2 = normal(rng);
            p.base = 0;
            p.values.push_back(fl::RayleighCoefficient(g1, g2));
            fl::CorrelatedCoefficient(spec, losPhase, p.values.back()); // refuses Nakagami
        }
        if (index < p.base)
        {
            NS_FATAL_ERROR("OtaChannel: the correlated fading of a slot that ended more than 16 "
                           "slots (plus CsiAge) ago was asked for (point "
                           << index << "; the channel keeps the points from " << p.base << ")");
        }
        if (p.base + p.values.size() <= index)
        {
            // f_D from the speeds now, for every step this call computes; the steps' two lags
            // (r and T - r) and their correlations are remembered while f_D stays
            const double fD = GetDopplerFrequency(tx, rx);
            if (fD != p.dopplerHz)
            {
                p.dopplerHz = fD;
                p.lag[0] = p.lag[1] = -1.0;
            }
            while (p.base + p.values.size() <= index)
            {
                const uint64_t j = p.base + p.values.size();
                const double lag = (PointTime(j) - PointTime(j - 1)).GetSeconds();
                const int slot = lag == p.lag[0] ? 0 : (lag == p.lag[1] ? 1 : -1);
                double rho = 0.0;
                if (slot >= 0)
                {
                    rho = p.rho[slot];
                }
                else
                {
                    rho = fl::JakesCorrelation(fD, lag);
                    const int free = p.lag[0] < 0.0 ? 0 : 1;
                    p.lag[free] = lag;
                    p.rho[free] = rho;
                }
                double g1 = 0.0;
                double g2 = 0.0;
                fl::NormalPair(fl::DeriveSeed(linkSeed, j), g1, g2);
                p.values.push_back(fl::GaussMarkovStep(p.values.back(), rho, g1, g2));
            }
        }
        // Points before now - CsiAge - 16 slots are never asked for again (transmissions start
        // at slot boundaries from now on, estimates look CsiAge back): drop them.
        const Time keepFrom = Simulator::Now() - m_csiAge - m_slotDuration * 16;
        while (p.values.size() > 16 && p.base < index && PointTime(p.base + 1) < keepFrom)
        {
            p.values.pop_front();
            ++p.base;
        }
        return fl::CorrelatedCoefficient(spec, losPhase, p.values[index - p.base]);
    }
    catch (const fl::ConfigError& e)
    {
        fl::ExitOnConfigError("OtaChannel", e);
    }
    return fl::Complex(1.0, 0.0);
}

uint64_t
OtaChannel::NextTxId()
{
    return m_nextTxId++;
}

Ptr<OtaSlotSum>
OtaChannel::GetSlotSum(uint64_t slot)
{
    auto it = m_slotSums.find(slot);
    if (it != m_slotSums.end())
    {
        return it->second;
    }
    // Receivers hold their own reference until their window closes; the channel forgets sums
    // of slots well in the past (a straggler would start a fresh sum, which phys handle).
    while (!m_slotSums.empty() && m_slotSums.begin()->first + 2 < slot)
    {
        m_slotSums.erase(m_slotSums.begin());
    }
    Ptr<OtaSlotSum> sum = Create<OtaSlotSum>();
    sum->slot = slot;
    m_slotSums[slot] = sum;
    return sum;
}

void
OtaChannel::StartTx(Ptr<OtaSignal> signal)
{
    NS_LOG_FUNCTION(this << signal->sender << signal->slot << signal->txId);
    NS_ASSERT(signal->sender < m_phys.size());
    m_signalTxTrace(signal);
    const uint32_t k = signal->sender;
    Ptr<OtaSlotSum> sum;
    fl::Complex shared(0.0, 0.0);
    double sharedGainDb = 0.0;
    if (m_structure == STRUCTURE_SENDER_ONLY)
    {
        sharedGainDb = GetLargeScaleGainDb(k, k);
        shared = std::pow(10.0, sharedGainDb / 20.0) * SmallScale(k, k, signal->slot, signal->txSeq);
        sum = GetSlotSum(signal->slot);
        fl::PhaseScope channel(fl::Phase::Channel);
        sum->Add(signal, fl::EffectiveCoefficient(shared, signal->precoder));
    }
    for (uint32_t i = 0; i < m_phys.size(); ++i)
    {
        Ptr<OtaPhy> rx = m_phys[i];
        if (i == k || !rx->IsReceiveEnabled())
        {
            continue;
        }
        OtaArrival arrival;
        arrival.signal = signal;
        arrival.slotSum = sum;
        if (m_structure == STRUCTURE_SENDER_ONLY)
        {
            arrival.coefficient = shared;
            arrival.largeScaleGainDb = sharedGainDb;
        }
        else
        {
            arrival.largeScaleGainDb = GetLargeScaleGainDb(k, i);
            arrival.coefficient =
                std::pow(10.0, arrival.largeScaleGainDb / 20.0) * SmallScale(k, i, signal->slot, signal->txSeq);
        }
        const Time delay = GetDelay(k, i);
        arrival.arrival = Simulator::Now() + delay;
        NS_LOG_LOGIC("tx " << k << " -> rx " << i << " delay " << delay.As(Time::NS) << " gain "
                           << arrival.largeScaleGainDb << " dB");
        Ptr<Node> node = rx->GetNode();
        if (node)
        {
            Simulator::ScheduleWithContext(node->GetId(), delay, &OtaPhy::StartRx, rx, arrival);
        }
        else
        {
            Simulator::Schedule(delay, &OtaPhy::StartRx, rx, arrival);
        }
    }
}

int64_t
OtaChannel::AssignStreams(int64_t stream)
{
    NS_LOG_FUNCTION(this << stream);
    int64_t used = 1;
    m_seedRv->SetStream(stream);
    m_seedDrawn = false;
    m_fadingCache.clear();
    m_losPhase.clear();
    if (m_loss)
    {
        used += m_loss->AssignStreams(stream + used);
    }
    if (m_delay)
    {
        used += m_delay->AssignStreams(stream + used);
    }
    return used;
}

} // namespace ns3

/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/dwfl-worker-application.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/dwfl-privacy.h"
#include "ns3/dwfl.h"
#include "ns3/enum.h"
#include "ns3/fast-normal.h"
#include "ns3/fl-ns3-compat.h"
#include "ns3/log.h"
#include "ns3/ota-channel.h"
#include "ns3/ota-parameter-server-application.h"
#include "ns3/ota-parameter-server.h"
#include "ns3/ota-signal.h"
#include "ns3/phase-timer.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DwflWorkerApplication");

NS_OBJECT_ENSURE_REGISTERED(DwflWorkerApplication);

TypeId
DwflWorkerApplication::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::DwflWorkerApplication")
            .SetParent<FlApplicationBase>()
            .SetGroupName("Fl")
            .AddConstructor<DwflWorkerApplication>()
            .AddAttribute("Rounds",
                          "Number of rounds T.",
                          UintegerValue(10),
                          MakeUintegerAccessor(&DwflWorkerApplication::m_rounds),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("Eta",
                          "Averaging rate eta of eq. (7); 0 (default): (N-1)/N, which averages "
                          "exactly in one round (the paper gives no value).",
                          DoubleValue(0.0),
                          MakeDoubleAccessor(&DwflWorkerApplication::m_eta),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("Kappa",
                          "c = Kappa min_j sqrt(|h_j|^2 P_j), in (0, 1] (1: the paper's eq. 4); "
                          "0 (default): the largest kappa for which the calibrated noise fits "
                          "the power budget (DwflMaxKappa, or DwflMaxKappaForBudget if "
                          "orthogonal), 1 without artificial noise. A fixed kappa that leaves "
                          "the noise no power (kappa = 1 with TargetEpsilon > 0 and unequal "
                          "channels) stops the run with exit status 2.",
                          DoubleValue(0.0),
                          MakeDoubleAccessor(&DwflWorkerApplication::m_kappa),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("TargetEpsilon",
                          "Per-round eps the artificial noise is calibrated for (DWFL Theorem "
                          "IV.1; per link when orthogonal). Default 0.5, the paper's default "
                          "setting (Section V); 0: no artificial noise (beta = 0).",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&DwflWorkerApplication::m_targetEpsilon),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("Delta",
                          "DP delta of the per-round guarantee.",
                          DoubleValue(1e-5),
                          MakeDoubleAccessor(&DwflWorkerApplication::m_delta),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("Sigma2",
                          "Variance sigma^2 of each entry of the artificial noise G.",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&DwflWorkerApplication::m_sigma2),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("ComputeTime",
                          "Simulated time of the local step (rounded up to whole slots). The "
                          "paper gives none; default 10 ms, as fl-dwfl.",
                          TimeValue(MilliSeconds(10)),
                          MakeTimeAccessor(&DwflWorkerApplication::m_computeTime),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("DecodeMode",
                          "Practical (what a worker knows) or Oracle (paper-literal eq. 7: the "
                          "simulation hands the worker its receiver noise).",
                          EnumValue(DwflWorkerApplication::DECODE_PRACTICAL),
                          FlMakeEnumAccessor(&DwflWorkerApplication::m_decode),
                          MakeEnumChecker(DwflWorkerApplication::DECODE_PRACTICAL,
                                          "Practical",
                                          DwflWorkerApplication::DECODE_ORACLE,
                                          "Oracle"))
            .AddAttribute("Transmission",
                          "NonOrthogonal (DWFL: one shared slot), Orthogonal (TDMA baseline: "
                          "one slot per worker, per-link noise for the same eps) or "
                          "CentralizedPs (Seif et al.: gradients to a parameter server over the "
                          "analog channel, the model back; DwflHelper::InstallCentralized).",
                          EnumValue(DwflWorkerApplication::NON_ORTHOGONAL),
                          FlMakeEnumAccessor(&DwflWorkerApplication::m_transmission),
                          MakeEnumChecker(DwflWorkerApplication::NON_ORTHOGONAL,
                                          "NonOrthogonal",
                                          DwflWorkerApplication::ORTHOGONAL,
                                          "Orthogonal",
                                          DwflWorkerApplication::CENTRALIZED_PS,
                                          "CentralizedPs"))
            .AddAttribute("InitSeed",
                          "Seed of the initial model, the same on every worker.",
                          UintegerValue(1),
                          MakeUintegerAccessor(&DwflWorkerApplication::m_initSeed),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("Seed",
                          "Seed of the mini-batches and the artificial noise (0 = drawn from "
                          "the ns-3 stream).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&DwflWorkerApplication::m_seedAttr),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("NoiseSource",
                          "Where the seeds of the artificial noise come from: run-seed (derived "
                          "from Seed, i.e. from the run seed: reproducible, and every eps assumes "
                          "an adversary who does not know the run seed) or sodium (libsodium's "
                          "generator: unpredictable, results change from run to run).",
                          StringValue("run-seed"),
                          MakeStringAccessor(&DwflWorkerApplication::m_noiseSourceName),
                          MakeStringChecker())
            .AddTraceSource("Round",
                            "End of a round, before the update of eq. (7): the transmitted "
                            "model, the noises, c, alpha, beta, eps and the round's duration. "
                            "Rounds are numbered as ModelReport's and the tracker's: round r "
                            "(1, 2, ...) makes the model of round r, round 0 is the initial "
                            "model (the paper's t = r - 1).",
                            MakeTraceSourceAccessor(&DwflWorkerApplication::m_roundTrace),
                            "ns3::DwflWorkerApplication::RoundTracedCallback");
    return tid;
}

DwflWorkerApplication::DwflWorkerApplication()
    : m_rounds(10),
      m_eta(0.0),
      m_kappa(0.0),
      m_targetEpsilon(0.5),
      m_delta(1e-5),
      m_sigma2(1.0),
      m_decode(DECODE_PRACTICAL),
      m_transmission(NON_ORTHOGONAL),
      m_initSeed(1),
      m_seedAttr(0)
{
    m_seedRv = CreateObject<UniformRandomVariable>();
}

DwflWorkerApplication::~DwflWorkerApplication() = default;

void
DwflWorkerApplication::DoDispose()
{
    m_workers.clear();
    m_server = nullptr;
    m_txBuffers.clear();
    m_phy = nullptr;
    m_task.reset();
    m_accountant.reset();
    m_composed.reset();
    FlApplicationBase::DoDispose();
}

void
DwflWorkerApplication::SetTask(std::shared_ptr<const fl::LearningTask> task, uint32_t client)
{
    if (!task)
    {
        throw fl::ConfigError("task", "is null", "pass the shared learning task");
    }
    if (task->GetPrecision() != fl::Precision::Float64)
    {
        throw fl::ConfigError("task",
                              "is float32; DWFL's signal and update are float64",
                              "build the task with SupervisedTask<double>");
    }
    const fl::LocalTrainerConfig& cfg = task->GetTrainerConfig();
    if (cfg.localSteps != 1 || cfg.localEpochs != 0.0 || cfg.stepRule != fl::StepRule::Fixed ||
        cfg.proxMu != 0.0)
    {
        throw fl::ConfigError("trainer",
                              "must make exactly one plain SGD step per round (Algorithm 1)",
                              "set localSteps=1, localEpochs=0, stepRule Fixed, proxMu=0");
    }
    if (!(cfg.clipNorm > 0.0))
    {
        throw fl::ConfigError("clipNorm",
                              "is 0; DWFL's privacy needs a gradient bound g_max",
                              "set the trainer's clipNorm to g_max, e.g. 1");
    }
    if (client >= task->NumClients())
    {
        throw fl::ConfigError("client",
                              "is " + std::to_string(client) + " but the task has " +
                                  std::to_string(task->NumClients()) + " clients",
                              "give each worker one of the task's client data sets");
    }
    m_task = std::move(task);
    m_client = client;
}

void
DwflWorkerApplication::SetWorkers(const std::vector<Ptr<DwflWorkerApplication>>& workers)
{
    m_workers = workers;
}

void
DwflWorkerApplication::SetParameterServer(Ptr<OtaParameterServerApplication> server)
{
    m_server = server;
}

void
DwflWorkerApplication::SetPrivacyAccountant(std::shared_ptr<fl::PrivacyAccountant> accountant)
{
    m_accountant = std::move(accountant);
}

const fl::ParamVector&
DwflWorkerApplication::GetModel() const
{
    return m_model;
}

uint32_t
DwflWorkerApplication::GetRoundsDone() const
{
    return m_round;
}

uint32_t
DwflWorkerApplication::GetDataSlotsPerRound() const
{
    switch (m_transmission)
    {
    case ORTHOGONAL:
        return static_cast<uint32_t>(m_workers.size());
    case CENTRALIZED_PS:
        return 2; // uplink, downlink
    default:
        return 1;
    }
}

uint64_t
DwflWorkerApplication::GetDataSlot() const
{
    return m_dataSlot;
}

double
DwflWorkerApplication::GetAlignment() const
{
    return m_c;
}

DwflWorkerApplication::Transmission
DwflWorkerApplication::GetTransmission() const
{
    return m_transmission;
}

std::pair<double, double>
DwflWorkerApplication::GetAnnouncedChannel() const
{
    return {m_announcedGain, m_announcedPower};
}

int64_t
DwflWorkerApplication::AssignStreams(int64_t stream)
{
    m_seedRv->SetStream(stream);
    return 1;
}

void
DwflWorkerApplication::StartApplication()
{
    NS_LOG_FUNCTION(this);
    NS_ABORT_MSG_IF(!m_task, "DwflWorkerApplication: no task (fix: SetTask or DwflHelper)");
    m_phy = GetNode()->GetObject<OtaPhy>();
    NS_ABORT_MSG_IF(!m_phy,
                    "DwflWorkerApplication: no OtaPhy on node " << GetNode()->GetId()
                                                                << " (fix: OtaHelper or "
                                                                   "DwflHelper)");
    auto self = std::find(m_workers.begin(), m_workers.end(), Ptr<DwflWorkerApplication>(this));
    NS_ABORT_MSG_IF(m_workers.size() < 2 || self == m_workers.end(),
                    "DwflWorkerApplication: SetWorkers must list all N >= 2 workers, this one "
                    "included (fix: DwflHelper::Install)");
    m_index = static_cast<uint32_t>(self - m_workers.begin());
    FlEnumValue<OtaPhy::DuplexMode> duplex;
    m_phy->GetAttribute("Duplex", duplex);
    NS_ABORT_MSG_IF(m_transmission == NON_ORTHOGONAL && duplex.Get() != OtaPhy::FULL_DUPLEX,
                    "DwflWorkerApplication: non-orthogonal DWFL transmits and receives in the "
                    "same slot (fix: OtaPhy::Duplex FullDuplex, or Transmission Orthogonal)");
    NS_ABORT_MSG_IF((m_transmission == CENTRALIZED_PS) != bool(m_server),
                    "DwflWorkerApplication: Transmission CentralizedPs goes with a parameter "
                    "server, and only it (fix: DwflHelper::InstallCentralized)");
    if (m_decode == DECODE_ORACLE)
    {
        m_phy->SetAttribute("RecordNoise", BooleanValue(true));
    }
    m_phy->SetReceiveCallback(MakeCallback(&DwflWorkerApplication::Receive, this));
    try
    {
        m_noiseSource = fl::ParseNoiseSource(m_noiseSourceName, "NoiseSource");
    }
    catch (const fl::ConfigError& e)
    {
        fl::ExitOnConfigError("DwflWorkerApplication", e);
    }
    m_composed.reset();
    if (m_accountant && m_transmission != CENTRALIZED_PS)
    {
        if (m_transmission == ORTHOGONAL ||
            m_phy->GetChannel()->GetStructure() != OtaChannel::STRUCTURE_SENDER_ONLY)
        {
            fl::ExitOnConfigError(
                "DwflWorkerApplication",
                fl::ConfigError("SetPrivacyAccountant",
                                std::string("with ") +
                                    (m_transmission == ORTHOGONAL ? "orthogonal transmission"
                                                                  : "a per-link channel") +
                                    ": " + fl::kDwflNotComposed,
                                "report the per-round eps of the Round trace (eq. 11), or use "
                                "NonOrthogonal transmission on a sender-only channel"));
        }
        if (!m_phy->GetChannel()->GetCsiAge().IsZero())
        {
            fl::ExitOnConfigError(
                "DwflWorkerApplication",
                fl::ConfigError("CsiAge",
                                "> 0 with the composed accountant (SetPrivacyAccountant): its "
                                "bound assumes receptions aligned on the true channels",
                                "report the per-round eps of the Round trace, which follows the "
                                "true channels, or set the channel's CsiAge to 0"));
        }
        m_composed = std::make_unique<fl::DwflComposedBound>(
            m_index,
            m_decode == DECODE_ORACLE ? fl::DwflDecode::Oracle : fl::DwflDecode::Practical);
    }
    m_seed = m_seedAttr != 0 ? m_seedAttr
                             : m_seedRv->GetInteger(1, std::numeric_limits<uint32_t>::max());
    if (m_server)
    {
        m_model = m_server->GetModel(); // the workers hold the server's model
    }
    else
    {
        fl::Rng init(m_initSeed);
        m_model = m_task->InitialParameters(init);
    }
    m_running = true;
    m_round = 0;
    if (!m_server)
    {
        ReportModel(0, FlNodeRole::Peer, m_model);
    }
    BeginRound(m_phy->GetChannel()->GetNextSlot(Simulator::Now()));
}

void
DwflWorkerApplication::StopApplication()
{
    NS_LOG_FUNCTION(this);
    m_running = false;
}

void
DwflWorkerApplication::BeginRound(uint64_t firstSlot)
{
    Ptr<OtaChannel> channel = m_phy->GetChannel();
    const uint64_t n = m_workers.size();
    m_roundFirstSlot = firstSlot;
    m_roundStart = channel->GetSlotStart(firstSlot);
    // A new alignment when the coefficients may have changed since the last one: every round
    // under block or per-transmission fading; under a fixed or time-correlated channel when a
    // node moved (its path loss, and the correlated process, change only with motion).
    const OtaChannel::Coherence coherence = channel->GetCoherence();
    const bool redrawn = coherence == OtaChannel::COHERENCE_PER_SLOT ||
                         coherence == OtaChannel::COHERENCE_PER_TRANSMISSION;
    const std::vector<Vector> positions = channel->GetPositions();
    bool moved = !channel->IsStill() || positions.size() != m_setupPositions.size();
    for (std::size_t i = 0; !moved && i < positions.size(); ++i)
    {
        moved = positions[i].x != m_setupPositions[i].x || positions[i].y != m_setupPositions[i].y ||
                positions[i].z != m_setupPositions[i].z;
    }
    m_setupThisRound = !m_aligned || redrawn || moved;
    if (m_setupThisRound)
    {
        m_setupPositions = positions;
    }
    const uint64_t control = m_setupThisRound ? n : 0;
    const int64_t slotSteps = channel->GetSlotDuration().GetTimeStep();
    const auto compute =
        static_cast<uint64_t>((m_computeTime.GetTimeStep() + slotSteps - 1) / slotSteps);
    m_dataSlot = firstSlot + control + compute;
    if (m_setupThisRound)
    {
        // Control burst: one full-power symbol in this worker's control slot.
        static const auto kPilot =
            std::make_shared<const fl::SymbolVector>(fl::SymbolVector::Ones(1));
        NS_ABORT_MSG_IF(
            !m_phy->Transmit(firstSlot + m_index, kPilot, std::sqrt(m_phy->GetTxPowerW())),
            "DwflWorkerApplication: control slot refused by the phy");
        // The announcement: own CSI towards the reference receiver for the data slot.
        Ptr<const OtaPhy> reference = ReferenceReceiver();
        const uint64_t mySlot = m_dataSlot + (m_transmission == ORTHOGONAL ? m_index : 0);
        const fl::Complex h = m_phy->GetChannelEstimate(reference, mySlot);
        m_announcedGain = std::abs(h);
        m_announcedPhase = std::arg(h);
        m_announcedPower = m_phy->GetTxPowerW();
        m_announcedRound = m_round;
    }
    Simulator::Schedule(channel->GetSlotStart(firstSlot + control) - Simulator::Now(),
                        &DwflWorkerApplication::TransmitData,
                        this);
}

Ptr<const OtaPhy>
DwflWorkerApplication::ReferenceReceiver() const
{
    if (m_server)
    {
        return m_server->GetNode()->GetObject<OtaPhy>();
    }
    if (m_phy->GetChannel()->GetStructure() == OtaChannel::STRUCTURE_SENDER_ONLY)
    {
        return nullptr; // every receiver sees the same h_k
    }
    return m_workers[(m_index + 1) % m_workers.size()]->GetNode()->GetObject<OtaPhy>();
}

fl::DwflPrivacyParams
DwflWorkerApplication::PrivacyParams() const
{
    const fl::LocalTrainerConfig& cfg = m_task->GetTrainerConfig();
    fl::DwflPrivacyParams params;
    params.gamma = cfg.learningRate; // gamma
    params.gMax = cfg.clipNorm;      // g_max
    params.sigma2 = m_sigma2;
    // per real entry: half a complex symbol's, at the receiver of the query
    const Ptr<const OtaPhy> receiver = m_server ? ReferenceReceiver() : Ptr<const OtaPhy>(m_phy);
    params.sigmaM2 = receiver->GetNoiseVariance() / 2.0;
    params.delta = m_delta;
    return params;
}

void
DwflWorkerApplication::Align()
{
    const std::size_t n = m_workers.size();
    m_gain.assign(n, 0.0);
    m_power.assign(n, 0.0);
    for (std::size_t k = 0; k < n; ++k)
    {
        NS_ABORT_MSG_IF(m_workers[k]->m_announcedRound != m_round,
                        "DwflWorkerApplication: worker " << k << " did not announce its channel "
                                                         << "in round " << m_round
                                                         << " (fix: start all workers together)");
        m_gain[k] = m_workers[k]->m_announcedGain;
        m_power[k] = m_workers[k]->m_announcedPower;
    }
    try
    {
        AlignAndCalibrate(n);
    }
    catch (const fl::ConfigError& e)
    {
        fl::ExitOnConfigError("DwflWorkerApplication", e);
    }
    m_aligned = true;
}

void
DwflWorkerApplication::AlignAndCalibrate(std::size_t n)
{
    const fl::DwflPrivacyParams params = PrivacyParams();
    const bool calibrate = m_targetEpsilon > 0.0;
    if (m_transmission == ORTHOGONAL)
    {
        // Per-link noise does not depend on c: calibrate first, then align.
        m_beta = calibrate
                     ? fl::CalibrateDwflOrthogonalBeta(m_gain, m_power, params, m_targetEpsilon)
                     : std::vector<double>(n, 0.0);
        const double kappa =
            m_kappa > 0.0 ? m_kappa : fl::DwflMaxKappaForBudget(m_gain, m_power, m_beta);
        m_c = fl::DwflAlignmentAmplitude(m_gain, m_power, kappa);
    }
    else
    {
        // DWFL: N-1 senders per receiver, the step's sensitivity; the server: N senders, the
        // gradient's sensitivity. Both: the largest kappa, then the symmetric split.
        const bool server = m_transmission == CENTRALIZED_PS;
        const auto maxKappa = server ? &fl::OtaPsMaxKappa : &fl::DwflMaxKappa;
        const auto calibrateBeta = server ? &fl::CalibrateOtaPsBeta : &fl::CalibrateDwflBeta;
        const double kappa =
            m_kappa > 0.0 ? m_kappa
                          : (calibrate ? maxKappa(m_gain, m_power, params, m_targetEpsilon) : 1.0);
        m_c = fl::DwflAlignmentAmplitude(m_gain, m_power, kappa);
        m_beta = calibrate ? calibrateBeta(m_gain, m_power, m_c, params, m_targetEpsilon)
                           : std::vector<double>(n, 0.0);
    }
    m_alpha = fl::DwflPowerFractions(m_gain, m_power, m_c);
    fl::CheckDwflPowerBudget(m_alpha, m_beta);
}

std::shared_ptr<fl::SymbolVector>
DwflWorkerApplication::TxBuffer(std::size_t symbols)
{
    // A buffer is free again once the channel and every receiver have let go of the signal
    // that carried it (a few slots later): a handful of them serve the whole run.
    for (auto& buffer : m_txBuffers)
    {
        if (buffer.use_count() == 1)
        {
            buffer->resize(static_cast<Eigen::Index>(symbols));
            return buffer;
        }
    }
    m_txBuffers.push_back(
        std::make_shared<fl::SymbolVector>(static_cast<Eigen::Index>(symbols)));
    return m_txBuffers.back();
}

void
DwflWorkerApplication::TransmitData()
{
    if (!m_running)
    {
        return;
    }
    if (m_setupThisRound)
    {
        Align();
    }
    // The true channels of this round's data slots (the estimates may have aged, or carry an
    // error): the round's epsilon follows them.
    {
        const std::size_t n = m_workers.size();
        m_trueGain.assign(n, 0.0);
        for (std::size_t k = 0; k < n; ++k)
        {
            const Ptr<const DwflWorkerApplication> w = m_workers[k];
            const uint64_t slot = m_dataSlot + (m_transmission == ORTHOGONAL ? k : 0);
            m_trueGain[k] = std::abs(w->m_phy->GetTrueChannel(w->ReferenceReceiver(), slot));
        }
    }
    // Algorithm 1, steps 1-2: one clipped SGD step through the task's trainer.
    const fl::LocalTrainerConfig& cfg = m_task->GetTrainerConfig();
    {
        fl::PhaseScope learning(fl::Phase::Learning);
        fl::Rng trainRng(fl::DeriveSeed(m_seed, m_round, 1));
        // into x^(t)'s storage: no allocation per round
        fl::TrainOutcome out;
        out.params = fl::ParamVector(std::move(m_local));
        m_task->TrainClientInto(m_client, m_model, trainRng, out);
        m_local = std::move(out.params.Get<double>());
    }
    const Eigen::VectorXd& start = m_model.Get<double>();
    const auto d = m_local.size();
    m_gradientNorm = (start - m_local).norm() / cfg.learningRate;

    // Step 3: artificial noise G_i ~ N(0, sigma^2 I) (the ziggurat generator of the Gaussian
    // perturbation, seeded per round from the worker's seed).
    const double beta = m_beta[m_index];
    m_ownNoise.resize(d);
    if (beta > 0.0 && m_sigma2 > 0.0)
    {
        fl::PhaseScope noise(fl::Phase::Noise);
        fl::FillNormal(m_ownNoise,
                       std::sqrt(m_sigma2),
                       fl::NoiseSeed(m_noiseSource, fl::DeriveSeed(m_seed, m_round, 2)));
    }
    else
    {
        m_ownNoise.setZero();
    }

    // The signal, written straight into the symbols to send (I and Q carry two values each):
    // the model x^(t) (DWFL) or the clipped gradient (parameter server).
    fl::PhaseScope channel(fl::Phase::Channel);
    std::shared_ptr<fl::SymbolVector> symbols = TxBuffer(fl::SymbolCount(d));
    auto real = fl::RealView(*symbols);
    if (m_transmission == CENTRALIZED_PS)
    {
        m_gradient.resize(d);
        fl::GradientFromStep(start, m_local, cfg.learningRate, m_gradient);
    }
    const Eigen::VectorXd& payload = m_transmission == CENTRALIZED_PS ? m_gradient : m_local;
    fl::DwflTransmitSignal(payload,
                           m_ownNoise,
                           m_alpha[m_index],
                           beta,
                           m_power[m_index],
                           real.head(d));
    real.tail(real.size() - d).setZero();
    // Phase pre-compensation e^{-j theta_i}: the payload arrives with the real gain |h_i|.
    const fl::Complex precoder = std::polar(1.0, -m_announcedPhase);
    const uint64_t slot = m_dataSlot + (m_transmission == ORTHOGONAL ? m_index : 0);
    NS_ABORT_MSG_IF(!m_phy->Transmit(slot, std::move(symbols), precoder),
                    "DwflWorkerApplication: data slot " << slot << " refused by the phy");
    if (m_transmission == ORTHOGONAL)
    {
        m_received.setZero(d);
    }
    m_noiseRecorded = false;
    m_receptions = 0;
}

void
DwflWorkerApplication::Receive(const OtaReception& rx)
{
    if (!m_running || rx.slot < m_dataSlot || rx.slot >= m_dataSlot + GetDataSlotsPerRound())
    {
        return; // control slots
    }
    fl::PhaseScope channel(fl::Phase::Channel);
    const auto d = m_local.size();
    if (m_transmission == CENTRALIZED_PS)
    {
        if (rx.slot == m_dataSlot + 1)
        {
            ++m_receptions;
            FinishCentralizedRound(); // the downlink: the server's new model
        }
        return; // the uplink slot: the other workers' gradients, not for this worker
    }
    // v_i in place: the real values the received symbols carry (no copy).
    const auto received = fl::RealView(rx.symbols).head(d);
    if (rx.noise.size() > 0)
    {
        // genie record (RecordNoise), summed over the receptions of the round
        if (m_noiseRecorded)
        {
            m_receiverNoise += fl::RealView(rx.noise).head(d);
        }
        else
        {
            m_receiverNoise = fl::RealView(rx.noise).head(d);
        }
        m_noiseRecorded = true;
    }
    ++m_receptions;
    if (m_transmission == NON_ORTHOGONAL)
    {
        FinishRound(received);
        return;
    }
    m_received += received; // orthogonal: the N-1 links summed
    if (m_receptions == GetDataSlotsPerRound() - 1)
    {
        FinishRound(m_received);
    }
}

std::pair<fl::MechanismSpec, double>
DwflWorkerApplication::RoundMechanism() const
{
    const std::size_t n = m_workers.size();
    const fl::DwflPrivacyParams params = PrivacyParams();
    fl::MechanismSpec mechanism;
    double epsilon = 0.0;
    // From the slots' true channels: the artificial noise reaches the receiver through them, and
    // a sender aligned on an aged or noisy estimate arrives with c |h_k| / |h^_k|, not c.
    const std::vector<double>& gain = m_trueGain.size() == n ? m_trueGain : m_gain;
    switch (m_transmission)
    {
    case ORTHOGONAL:
        // the least private link j -> i
        for (std::size_t j = 0; j < n; ++j)
        {
            if (j == m_index)
            {
                continue;
            }
            const double e = fl::DwflOrthogonalEpsilon(gain[j], m_power[j], m_beta[j], params);
            if (e >= epsilon)
            {
                epsilon = e;
                mechanism = fl::DwflOrthogonalMechanism(gain[j], m_power[j], m_beta[j], params);
            }
        }
        break;
    case CENTRALIZED_PS: {
        const double c = fl::DwflMisalignedAmplitude(n, gain, m_gain, m_c);
        mechanism = fl::OtaPsServerMechanism(gain, m_power, m_beta, c, params);
        epsilon = fl::OtaPsEpsilon(gain, m_power, m_beta, c, params);
        break;
    }
    default: {
        const double c = fl::DwflMisalignedAmplitude(m_index, gain, m_gain, m_c);
        mechanism = fl::DwflReceiverMechanism(m_index, gain, m_power, m_beta, c, params);
        epsilon = fl::DwflEpsilon(m_index, gain, m_power, m_beta, c, params);
        break;
    }
    }
    return {mechanism, epsilon};
}

void
DwflWorkerApplication::ReportRound(uint32_t receptions)
{
    const auto [mechanism, epsilon] = RoundMechanism();
    if (m_accountant && m_transmission == CENTRALIZED_PS)
    {
        // Each round's query is taken at the server's model, a function of what the server
        // received before: the rounds compose adaptively at the one-round sensitivity.
        m_accountant->Add(mechanism);
    }
    else if (m_accountant && m_composed)
    {
        // Round t given the history: the fresh noise at the drift sensitivity Delta_t
        // (doc/fl-privacy.rst, "DWFL over rounds: the composed bound").
        fl::DwflRoundSetup setup;
        setup.gainAbs = m_gain;
        setup.powerW = m_power;
        setup.beta = m_beta;
        setup.c = m_c;
        setup.eta = fl::DwflAveragingRate(m_eta, m_workers.size());
        setup.params = PrivacyParams();
        try
        {
            m_accountant->Add(m_composed->AddRound(setup));
        }
        catch (const fl::ConfigError& e)
        {
            fl::ExitOnConfigError("DwflWorkerApplication", e);
        }
    }
    const uint64_t nextSlot = m_dataSlot + GetDataSlotsPerRound();
    DwflRoundReport report;
    report.round = m_round + 1; // the round whose model this update makes (0 = initial model)
    report.node = GetNodeLevelId();
    report.localModel = &m_local;
    report.ownNoise = &m_ownNoise;
    report.receiverNoise = m_noiseRecorded ? &m_receiverNoise : nullptr;
    report.received = receptions;
    report.c = m_c;
    report.alpha = m_alpha[m_index];
    report.beta = m_beta[m_index];
    report.epsilon = epsilon;
    report.gradientNorm = m_gradientNorm;
    report.roundDuration = m_phy->GetChannel()->GetSlotStart(nextSlot) - m_roundStart;
    m_roundTrace(report);
}

void
DwflWorkerApplication::FinishRound(const Eigen::Ref<const Eigen::VectorXd>& received)
{
    const std::size_t n = m_workers.size();
    ReportRound(m_receptions);
    // Eq. (7) on x_i^(t), in place, with the own virtual noise a_i G_i (+ m_i / (c (N-1)) if
    // Oracle); x_i^(t) then becomes the model and the old model's storage the next x^(t).
    const double a = fl::DwflNoiseGain(m_gain[m_index], m_power[m_index], m_beta[m_index], m_c);
    if (m_decode == DECODE_ORACLE)
    {
        NS_ABORT_MSG_IF(!m_noiseRecorded && m_phy->GetNoiseVariance() > 0.0,
                        "DwflWorkerApplication: Oracle decode without the receiver noise "
                        "(fix: OtaPhy::RecordNoise true; the application sets it at start)");
        if (!m_noiseRecorded)
        {
            m_receiverNoise.setZero(m_local.size()); // a noiseless receiver
        }
        fl::DwflOracleUpdate(m_local,
                             received,
                             m_ownNoise,
                             m_receiverNoise,
                             a,
                             m_c,
                             n,
                             fl::DwflAveragingRate(m_eta, n));
    }
    else
    {
        fl::DwflPracticalUpdate(m_local,
                                received,
                                m_ownNoise,
                                a,
                                m_c,
                                n,
                                fl::DwflAveragingRate(m_eta, n));
    }
    m_model.Get<double>().swap(m_local);
    NextRound();
}

void
DwflWorkerApplication::FinishCentralizedRound()
{
    ReportRound(m_receptions);
    m_model = m_server->GetModel(); // the downlink, decoded without error as in [11]
    NextRound();
}

void
DwflWorkerApplication::NextRound()
{
    ++m_round;
    if (!m_server)
    {
        ReportModel(m_round, FlNodeRole::Peer, m_model);
    }
    if (m_round < m_rounds && m_running)
    {
        BeginRound(m_dataSlot + GetDataSlotsPerRound());
    }
}

} // namespace ns3

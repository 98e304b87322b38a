/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/fl-client-application.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/inet-socket-address.h"
#include "ns3/ipv4-address.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <limits>
#include <random>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlClientApplication");
NS_OBJECT_ENSURE_REGISTERED(FlClientApplication);

LogComponent&
FlClientApplicationLog()
{
    return g_log;
}

TypeId
FlClientApplication::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FlClientApplication")
            .SetParent<FlApplicationBase>()
            .SetGroupName("Fl")
            .AddConstructor<FlClientApplication>()
            .AddAttribute("ServerAddress",
                          "IPv4 address of the server.",
                          AddressValue(),
                          MakeAddressAccessor(&FlClientApplication::m_serverAddress),
                          MakeAddressChecker())
            .AddAttribute("ServerPort",
                          "TCP or UDP port of the server.",
                          UintegerValue(9000),
                          MakeUintegerAccessor(&FlClientApplication::m_serverPort),
                          MakeUintegerChecker<uint16_t>(1))
            .AddAttribute("ClientIndex",
                          "Index of this client's data set in the learning task.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FlClientApplication::m_clientIndex),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("SecondsPerSample",
                          "Simulated compute time per training sample processed (used when "
                          "FlopRate is 0).",
                          DoubleValue(1e-4),
                          MakeDoubleAccessor(&FlClientApplication::m_secondsPerSample),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("FlopRate",
                          "Device speed in FLOP/s; if > 0 the compute time is the training "
                          "FLOPs (samples x model FLOPs per sample) divided by this rate.",
                          DoubleValue(0.0),
                          MakeDoubleAccessor(&FlClientApplication::m_flopRate),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("ComputePower",
                          "Power drawn while training [W]; compute energy = ComputePower x "
                          "compute time.",
                          DoubleValue(0.0),
                          MakeDoubleAccessor(&FlClientApplication::m_computePower),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("TrainingSeed",
                          "Base seed of local training (0 = drawn from the ns-3 stream).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FlClientApplication::m_trainingSeedAttr),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("NoiseSource",
                          "Where the seed of the uplink noise comes from: run-seed (derived from "
                          "the training seed, i.e. from the run seed: reproducible, and every "
                          "eps assumes an adversary who does not know the run seed) or sodium "
                          "(libsodium's generator: unpredictable, results change from run to "
                          "run).",
                          StringValue("run-seed"),
                          MakeStringAccessor(&FlClientApplication::m_noiseSourceName),
                          MakeStringChecker())
            .AddAttribute("SilentRounds",
                          "Failure injection: rounds (e.g. \"3,5-7\") in which the client gets "
                          "the global model but does not answer.",
                          StringValue(""),
                          MakeStringAccessor(&FlClientApplication::m_silentRoundsSpec),
                          MakeStringChecker())
            .AddAttribute("DropoutProbability",
                          "Failure injection: probability that the client stays silent in a "
                          "round it was selected for (independent draws per round).",
                          DoubleValue(0.0),
                          MakeDoubleAccessor(&FlClientApplication::m_dropoutProbability),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("LeaveTime",
                          "Failure injection: the client leaves for good at this time after the "
                          "application started (its connection closes; 0 = never).",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&FlClientApplication::m_leaveTime),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("JoinInterval",
                          "UDP: the Join message is repeated at this interval until the first "
                          "global model arrives. TCP: checked at this interval until then, and "
                          "sent again if the connection that carried it could not be opened "
                          "(a client out of range, e.g. one that moves, joins when it can).",
                          TimeValue(Seconds(1)),
                          MakeTimeAccessor(&FlClientApplication::m_joinInterval),
                          MakeTimeChecker(MilliSeconds(1)))
            .AddAttribute("UploadResends",
                          "UDP only: how many times an upload the transport gave up (no "
                          "acknowledgement after its probes) is sent again, as a new message, "
                          "while its round's model is the latest the client has and the server "
                          "has not stopped; without a round deadline a server waits for an "
                          "upload it never saw a chunk of (0 = never).",
                          UintegerValue(3),
                          MakeUintegerAccessor(&FlClientApplication::m_uploadResends),
                          MakeUintegerChecker<uint32_t>(0, 1000))
            .AddTraceSource("TrainingDone",
                            "Local training finished (round, steps, mean loss, compute time).",
                            MakeTraceSourceAccessor(&FlClientApplication::m_trainingDoneTrace),
                            "ns3::FlClientApplication::TrainingDoneCallback")
            .AddTraceSource("RoundTrained",
                            "Local training finished (full report incl. compute energy).",
                            MakeTraceSourceAccessor(&FlClientApplication::m_roundTrainedTrace),
                            "ns3::FlClientApplication::RoundTrainedCallback")
            .AddTraceSource("TrainingPlanned",
                            "Local training starts on the global model just received: the "
                            "report of RoundTrained (same moment, same values) before the "
                            "training ran, with meanLoss NaN. Unlike RoundTrained, connecting it "
                            "lets the client train in parallel with the simulation.",
                            MakeTraceSourceAccessor(&FlClientApplication::m_trainingPlannedTrace),
                            "ns3::FlClientApplication::RoundTrainedCallback");
    return tid;
}

FlClientApplication::FlClientApplication()
    : m_serverPort(9000),
      m_clientIndex(0),
      m_secondsPerSample(1e-4),
      m_flopRate(0.0),
      m_computePower(0.0),
      m_trainingSeedAttr(0),
      m_dropoutProbability(0.0),
      m_leaveTime(Seconds(0)),
      m_joinInterval(Seconds(1)),
      m_uploadResends(3)
{
    NS_LOG_FUNCTION(this);
    m_rng = CreateObject<UniformRandomVariable>();
    m_dropoutRng = CreateObject<UniformRandomVariable>();
}

FlClientApplication::~FlClientApplication()
{
    NS_LOG_FUNCTION(this);
}

void
FlClientApplication::SetTask(std::shared_ptr<const fl::LearningTask> task)
{
    m_task = std::move(task);
}

void
FlClientApplication::SetUplinkPerturbation(std::shared_ptr<fl::Perturbation> perturbation)
{
    m_uplinkPerturbation = std::move(perturbation);
}

bool
FlClientApplication::HasUplinkPerturbation() const
{
    return m_uplinkPerturbation != nullptr;
}

fl::MechanismKind
FlClientApplication::GetUplinkMechanism() const
{
    return m_uplinkPerturbation ? m_uplinkPerturbation->Mechanism(0.0).kind
                                : fl::MechanismKind::None;
}

fl::NoiseSource
FlClientApplication::GetUplinkNoiseSource() const
{
    return m_noiseSource;
}

double
FlClientApplication::GetUplinkEpsilon(double delta) const
{
    return m_uplinkPrivacy.Epsilon(delta);
}

void
FlClientApplication::SetStrategy(Ptr<FlClientStrategy> strategy)
{
    m_strategy = strategy;
}

Ptr<FlClientStrategy>
FlClientApplication::GetStrategy() const
{
    return m_strategy;
}

void
FlClientApplication::SetUplinkStep(Ptr<FlUplinkClientStep> step)
{
    m_uplink = step;
}

Ptr<FlUplinkClientStep>
FlClientApplication::GetUplinkStep() const
{
    return m_uplink;
}

uint64_t
FlClientApplication::GetTrainingSeed() const
{
    return m_trainingSeed;
}

uint32_t
FlClientApplication::GetRoundsTrained() const
{
    return m_roundsTrained;
}

uint32_t
FlClientApplication::GetRoundsSilent() const
{
    return m_roundsSilent;
}

uint32_t
FlClientApplication::GetUploadsResent() const
{
    return m_uploadsResent;
}

void
FlClientApplication::HandleMessageLost(const FlLostMessage& lost)
{
    if (!lost.outgoing || lost.header.kind != fl::MessageKind::LocalModel || m_left || m_stopped ||
        m_serverStopped || !m_hasModel || lost.round != m_latestModelRound ||
        m_resentThisRound >= m_uploadResends)
    {
        return; // superseded by a newer model, or the resends are spent
    }
    ++m_resentThisRound;
    ++m_uploadsResent;
    NS_LOG_INFO("client " << m_clientIndex << " sends its upload of round " << lost.round
                          << " again");
    m_transport->SendAgain(lost);
}

bool
FlClientApplication::HasLeft() const
{
    return m_left;
}

uint64_t
FlClientApplication::GetBytesSent() const
{
    return m_transport ? m_transport->Stats().bytesSent : 0;
}

uint64_t
FlClientApplication::GetBytesReceived() const
{
    return m_transport ? m_transport->Stats().bytesReceived : 0;
}

uint64_t
FlClientApplication::GetDroppedMessages() const
{
    return m_unexpected + (m_transport ? m_transport->Stats().malformed : 0);
}

FlDatagramStats
FlClientApplication::GetDatagramStats() const
{
    return m_transport ? m_transport->DatagramStats() : FlDatagramStats();
}

double
FlClientApplication::GetComputeEnergy() const
{
    return m_computeEnergy;
}

const fl::ParamVector&
FlClientApplication::GetLastUpdate() const
{
    return m_update;
}

int64_t
FlClientApplication::AssignStreams(int64_t stream)
{
    m_rng->SetStream(stream);
    m_dropoutRng->SetStream(stream + 1);
    return 2;
}

void
FlClientApplication::DoDispose()
{
    NS_LOG_FUNCTION(this);
    DiscardTraining();
    m_uplink = nullptr;
    FlApplicationBase::DoDispose();
}

void
FlClientApplication::StartApplication()
{
    NS_LOG_FUNCTION(this);
    if (!m_task)
    {
        NS_FATAL_ERROR(
            "FlClientApplication: no learning task; call SetTask() or use FlClientHelper");
    }
    if (!m_strategy)
    {
        m_strategy = CreateObject<FlClientStrategy>();
    }
    m_fit = m_strategy->MakeFit();
    m_strategyPhases = m_strategy->PhasesBeforeUpload();
    if (m_clientIndex >= m_task->NumClients())
    {
        NS_FATAL_ERROR("FlClientApplication: ClientIndex "
                       << m_clientIndex << " but the task has " << m_task->NumClients()
                       << " clients; install at most that many "
                          "clients or give the task more data sets");
    }
    if (!Ipv4Address::IsMatchingType(m_serverAddress))
    {
        NS_FATAL_ERROR("FlClientApplication: ServerAddress must be an IPv4 address (set it, or use "
                       "FlClientHelper)");
    }
    try
    {
        m_silentRounds =
            fl::ParseRoundList(m_silentRoundsSpec, "FlClientApplication::SilentRounds");
        m_noiseSource = fl::ParseNoiseSource(m_noiseSourceName, "FlClientApplication::NoiseSource");
    }
    catch (const fl::ConfigError& e)
    {
        fl::ExitOnConfigError("FlClientApplication", e);
    }
    m_trainingSeed = m_trainingSeedAttr != 0
                         ? m_trainingSeedAttr
                         : m_rng->GetInteger(1, std::numeric_limits<uint32_t>::max());
    if (m_leaveTime.IsStrictlyPositive())
    {
        m_leaveEvent = Simulator::Schedule(m_leaveTime, &FlClientApplication::Leave, this);
    }
    FlClientPort strategyPort;
    strategyPort.sendControl =
        [this](uint32_t round, uint32_t tag, const std::vector<uint8_t>& bytes) {
            m_transport->SendRaw(m_server,
                                 {fl::MessageKind::Control, round, 0, m_serverNode, tag},
                                 bytes);
        };
    strategyPort.uploadRaw = [this](uint32_t round, const std::vector<uint8_t>& bytes) {
        const auto samples = static_cast<uint32_t>(m_task->ClientSamples(m_clientIndex));
        m_transport->SendRaw(m_server,
                             {fl::MessageKind::LocalModel, round, 0, m_serverNode, samples},
                             bytes);
    };
    strategyPort.hasUplinkStep = [this]() { return m_uplink != nullptr; };
    strategyPort.uplinkStepUpload =
        [this](uint32_t round, const fl::ParamVector& values, uint64_t weight) {
            m_uplink->Upload(round, values, weight);
        };
    strategyPort.unexpected = [this]() { ++m_unexpected; };
    strategyPort.trainingSeed = [this]() { return m_trainingSeed; };
    m_strategy->SetPort(strategyPort);
    try
    {
        m_strategy->Start(*m_task, m_clientIndex, m_uplink != nullptr);
    }
    catch (const fl::ConfigError& e)
    {
        fl::ExitOnConfigError("FlClientApplication", e);
    }
    m_server = InetSocketAddress(Ipv4Address::ConvertFrom(m_serverAddress), m_serverPort);
    m_attachmentValues = m_strategy->AttachmentValues(m_task->NumParameters());
    m_uploadValues = m_strategy->UploadValues(m_task->NumParameters());
    // the largest message the server sends: the model and its attachment
    StartTransport("FlClientApplication",
                   m_task->GetPrecision(),
                   0,
                   m_task->NumParameters() + m_attachmentValues);
    m_transport->SetReceiveCallback(MakeCallback(&FlClientApplication::HandleInbound, this));
    m_transport->SetMessageLostCallback(
        MakeCallback(&FlClientApplication::HandleMessageLost, this));
    // Holes of a partial global model are filled from the last one received (none yet: the
    // transport completes the first one by retransmission).
    m_transport->SetBaseModelProvider([this](uint32_t, uint32_t) {
        return m_lastGlobal.Size() == m_task->NumParameters() + m_attachmentValues ? &m_lastGlobal
                                                                                   : nullptr;
    });
    if (m_uplink)
    {
        FlUplinkClientStep::Port port;
        port.upload = [this](uint32_t round, const std::vector<uint8_t>& bytes) {
            if (!m_left && !m_stopped)
            {
                m_transport->SendRaw(m_server,
                                     {fl::MessageKind::LocalModel, round, 0, m_serverNode, 0},
                                     bytes);
            }
        };
        port.send = [this](uint32_t round, uint32_t tag, const std::vector<uint8_t>& bytes) {
            if (!m_left && !m_stopped)
            {
                m_transport->SendRaw(m_server,
                                     {fl::MessageKind::Control, round, 0, m_serverNode, tag},
                                     bytes);
            }
        };
        // the step carries the model, or what the strategy makes of it (summed by the step)
        m_uplink->SetPort(m_clientIndex, m_uploadValues, port);
    }
    m_started = true;
    SendJoin(); // a stream transport connects first and sends it once connected
}

void
FlClientApplication::StopApplication()
{
    NS_LOG_FUNCTION(this);
    m_stopped = true;
    Simulator::Cancel(m_sendEvent);
    DiscardTraining();
    Simulator::Cancel(m_joinEvent);
    Simulator::Cancel(m_leaveEvent);
    if (m_uplink)
    {
        m_uplink->Stop();
    }
    if (m_transport)
    {
        m_transport->Close();
    }
}

bool
FlClientApplication::IsSilent(uint32_t round)
{
    bool silent = m_silentRounds.count(round) != 0;
    // the strategy's own dropout rule first (e.g. GFL's, drawn as its in-process runner draws)
    silent = m_strategy->Silent(m_trainingSeed, round) || silent;
    if (m_dropoutProbability > 0.0)
    {
        // One draw per round received, silent or not, so that draws stay aligned.
        silent = (m_dropoutRng->GetValue(0.0, 1.0) < m_dropoutProbability) || silent;
    }
    return silent;
}

void
FlClientApplication::HandleInbound(FlInboundMessage& in)
{
    fl::ReceivedMessage& msg = in.msg;
    const uint64_t missingCoordinates = in.filledCoordinates;
    const auto& h = msg.header;
    NS_LOG_FUNCTION(this << fl::MessageKindName(h.kind) << h.round);
    if (m_left)
    {
        return;
    }
    if (m_serverChanges > 0 && InetSocketAddress::IsMatchingType(in.from) &&
        InetSocketAddress::ConvertFrom(in.from).GetIpv4() != GetServerAddress())
    {
        ++m_unexpected; // from a server the client was handed over from
        return;
    }
    if (h.kind == fl::MessageKind::Stop)
    {
        m_heardFromServer = true;
        m_serverStopped = true;
        Simulator::Cancel(m_sendEvent);
        DiscardTraining();
        Simulator::Cancel(m_joinEvent);
        return;
    }
    if (h.kind == fl::MessageKind::Control && m_strategy->Receive(h.round, h.aux, msg.raw))
    {
        return; // the strategy's own traffic (its phases before the upload)
    }
    if (m_uplink && h.kind == fl::MessageKind::Control &&
        m_uplink->Receive(h.round, h.aux, msg.raw))
    {
        return; // the uplink step's own traffic
    }
    if (h.kind != fl::MessageKind::GlobalModel || h.aux != m_attachmentValues ||
        msg.params.Size() != m_task->NumParameters() + m_attachmentValues)
    {
        ++m_unexpected; // another model size, or an attachment the strategy does not expect
        return;
    }
    m_heardFromServer = true;
    m_serverNode = h.sender;
    Simulator::Cancel(m_joinEvent);
    if (!m_hasModel || h.round != m_latestModelRound)
    {
        m_resentThisRound = 0;
    }
    m_hasModel = true;
    m_latestModelRound = h.round;
    // UDP keep-previous: this model is the base for the holes of the next one (moved in once
    // training no longer needs it, not copied).
    const bool keepAsPrevious = m_transport->DeliversPartial();
    // What the server strategy attached follows the model in the same message.
    fl::ParamVector attachment;
    fl::ParamVector whole; // the message's values, the base of the next one's holes
    if (m_attachmentValues > 0)
    {
        attachment = fl::Slice(msg.params, m_task->NumParameters(), m_attachmentValues);
        if (keepAsPrevious)
        {
            whole = msg.params;
        }
        msg.params = fl::Slice(msg.params, 0, m_task->NumParameters());
    }
    const auto keepPrevious = [&]() {
        m_lastGlobal = m_attachmentValues > 0 ? std::move(whole) : std::move(msg.params);
    };
    // A newer global model supersedes an update still "in computation".
    Simulator::Cancel(m_sendEvent);
    DiscardTraining();
    if (IsSilent(h.round))
    {
        ++m_roundsSilent;
        NS_LOG_INFO("client " << m_clientIndex << " silent in round " << h.round);
        if (keepAsPrevious)
        {
            keepPrevious();
        }
        return;
    }

    // What the training will report is known in advance; it runs on the training pool unless
    // its results are wanted now (traces carrying them, or the uplink noise, whose perturbation
    // is drawn in the order the clients train).
    fl::TrainingPlan plan;
    const bool planned = m_strategy->Plan(*m_task, m_clientIndex, plan);
    const bool inBackground = planned && !m_uplinkPerturbation && m_trainingDoneTrace.IsEmpty() &&
                              m_roundTrainedTrace.IsEmpty() && !ModelReportHasSinks();

    FlClientFit fit;
    fl::TrainOutcome& out = fit.training;
    if (inBackground)
    {
        auto pending = std::make_shared<PendingTraining>();
        pending->task = m_task;
        pending->start = keepAsPrevious || m_strategyPhases ? msg.params : std::move(msg.params);
        pending->attachment = attachment;
        // The job touches only what it owns: the pending record, the (immutable) task and a
        // copy of the strategy's fit (which owns its configuration).
        const FlClientStrategy::FitFunction fitFn = m_fit;
        const uint32_t client = m_clientIndex;
        const uint64_t seed = m_trainingSeed;
        const uint32_t round = h.round;
        m_pendingJob = fl::TrainingPool().Submit([pending, fitFn, client, seed, round]() {
            FlFitInput in;
            in.task = pending->task.get();
            in.client = client;
            in.start = &pending->start;
            in.attachment = &pending->attachment;
            in.seed = seed;
            in.round = round;
            fitFn(in, pending->fit);
        });
        m_pending = std::move(pending);
        m_pendingPlan = plan;
        out.steps = plan.steps;
        out.samplesProcessed = plan.samplesProcessed;
        out.flops = plan.flops;
        out.meanLoss = std::numeric_limits<double>::quiet_NaN();
    }
    else
    {
        try
        {
            FlFitInput in;
            in.task = m_task.get();
            in.client = m_clientIndex;
            in.start = &msg.params;
            in.attachment = &attachment;
            in.seed = m_trainingSeed;
            in.round = h.round;
            in.perturbation = m_strategy->PerturbsUpload() ? m_uplinkPerturbation.get() : nullptr;
            m_fit(in, fit);
        }
        catch (const fl::ConfigError& e)
        {
            fl::ExitOnConfigError("FlClientApplication", e);
        }
    }
    ++m_roundsTrained;
    m_strategy->Superseded(); // a newer model supersedes what the strategy still waits for
    if (m_strategyPhases)
    {
        m_received = msg.params;
    }
    if (keepAsPrevious)
    {
        keepPrevious();
    }

    const double seconds = m_flopRate > 0.0
                               ? out.flops / m_flopRate
                               : static_cast<double>(out.samplesProcessed) * m_secondsPerSample;
    const Time compute = Seconds(seconds);
    FlTrainingReport report;
    report.client = m_clientIndex;
    report.round = h.round;
    report.received = Simulator::Now();
    report.computeTime = compute;
    report.computeEnergyJ = m_computePower * compute.GetSeconds();
    report.steps = out.steps;
    report.samples = out.samplesProcessed;
    report.flops = out.flops;
    report.meanLoss = std::numeric_limits<double>::quiet_NaN();
    report.missingCoordinates = missingCoordinates;
    m_computeEnergy += report.computeEnergyJ;
    m_trainingPlannedTrace(report);
    if (inBackground)
    {
        // the rest happens when the compute time has elapsed (FinishTraining)
        m_sendEvent = Simulator::Schedule(compute, &FlClientApplication::SendUpdate, this, h.round);
        return;
    }
    report.meanLoss = out.meanLoss;
    m_trainingDoneTrace(h.round, static_cast<uint32_t>(out.steps), out.meanLoss, compute);
    m_roundTrainedTrace(report);

    ReportModel(h.round, FlNodeRole::Client, out.params);
    // the strategy's own upload (perturbed already if PerturbsUpload), or the trained model
    m_update = fit.ownUpload ? std::move(fit.upload) : std::move(out.params);
    m_updateRaw = std::move(fit.raw);
    m_uploadSent = std::move(fit.onUploadSent);
    if (m_uplinkPerturbation && !m_strategy->PerturbsUpload())
    {
        fl::PerturbUpload(*m_uplinkPerturbation,
                          m_noiseSource,
                          m_trainingSeed,
                          h.round,
                          m_serverNode,
                          m_update);
        if (fit.ownUpload)
        {
            // the strategy formed the upload itself: the local-training bound does not cover it
            m_uplinkPrivacy.RecordUnboundedUpload();
        }
        else
        {
            m_uplinkPrivacy.RecordUpload(m_uplinkPerturbation->Mechanism(0.0),
                                         m_task->GetTrainerConfig(),
                                         out.steps,
                                         m_update.Size());
        }
    }
    m_updateLoss = out.meanLoss;
    m_sendEvent = Simulator::Schedule(compute, &FlClientApplication::SendUpdate, this, h.round);
}

void
FlClientApplication::FinishTraining()
{
    std::shared_ptr<fl::PoolJob> job = std::move(m_pendingJob);
    std::shared_ptr<PendingTraining> pending = std::move(m_pending);
    m_pendingJob = nullptr;
    m_pending = nullptr;
    try
    {
        fl::TrainingPool().Join(job); // runs queued trainings while a worker finishes this one
    }
    catch (const fl::ConfigError& e)
    {
        fl::ExitOnConfigError("FlClientApplication", e);
    }
    fl::TrainOutcome& out = pending->fit.training;
    NS_ABORT_MSG_UNLESS(out.steps == m_pendingPlan.steps &&
                            out.samplesProcessed == m_pendingPlan.samplesProcessed &&
                            out.flops == m_pendingPlan.flops,
                        "FlClientApplication: the local training did not do what its "
                        "task planned (LearningTask::PlanClient)");
    m_update = pending->fit.ownUpload ? std::move(pending->fit.upload) : std::move(out.params);
    m_updateRaw = std::move(pending->fit.raw);
    m_uploadSent = std::move(pending->fit.onUploadSent);
    m_updateLoss = out.meanLoss;
}

void
FlClientApplication::CheckUploadSize(std::size_t payloadBytes, const char* what) const
{
    // The server bounds incoming messages by its MaxMessageBytes, whose default follows the
    // upload size its strategy declares: an upload above the bound would be dropped there.
    const uint64_t bytes = fl::MessageHeader::kSize + payloadBytes;
    const uint64_t limit = MaxMessageBytesFor(std::max(m_uploadValues, m_task->NumParameters()));
    if (bytes > limit)
    {
        fl::ExitOnConfigError(
            "FlClientApplication",
            fl::ConfigError("MaxMessageBytes",
                            "client " + std::to_string(m_clientIndex) + " has an upload (" + what +
                                ") of " + std::to_string(bytes) +
                                " bytes, above the server's bound of " + std::to_string(limit),
                            "declare the upload's size in the strategies (FlStrategyTraits "
                            "uploadValues or maxUploadBytes, FlClientStrategy::UploadValues), "
                            "or raise MaxMessageBytes on the server and the clients"));
    }
}

void
FlClientApplication::DiscardTraining()
{
    m_uploadSent = nullptr; // a discarded training commits nothing
    if (m_pendingJob)
    {
        m_pendingJob->Discard(); // a job already running finishes on its own record
    }
    m_pendingJob = nullptr;
    m_pending = nullptr;
}

void
FlClientApplication::SendUpdate(uint32_t round)
{
    NS_LOG_FUNCTION(this << round);
    if (m_left)
    {
        return;
    }
    if (m_pendingJob)
    {
        FinishTraining(); // the compute time has elapsed: the trained model is due now
    }

    // the fit's commit (e.g. a control variate's new value) runs once the upload has left
    struct CommitOnReturn
    {
        std::function<void()> f;

        ~CommitOnReturn()
        {
            if (f)
            {
                f();
            }
        }
    } commit{std::move(m_uploadSent)};

    m_uploadSent = nullptr;
    if (m_strategyPhases)
    {
        // the strategy's phases before the upload: it sends what it makes of the update
        m_strategy->UploadReady(*m_task, m_clientIndex, round, m_received, m_update, m_updateLoss);
        m_received = fl::ParamVector();
        return;
    }
    if (m_uplink)
    {
        // the step sends what it makes of the update, with the strategy's weight
        const uint64_t weight = m_strategy->UploadWeight(*m_task, m_clientIndex);
        m_uplink->Upload(round, m_update, weight);
        return;
    }
    // the upload's aggregation weight (the strategy's; by default the sample count), as an
    // uplink step would get it: the server weighs individual uploads and sums alike
    const auto samples =
        static_cast<uint32_t>(std::min<uint64_t>(m_strategy->UploadWeight(*m_task, m_clientIndex),
                                                 std::numeric_limits<uint32_t>::max()));
    if (!m_updateRaw.empty())
    {
        // the strategy's raw upload (its own format)
        CheckUploadSize(m_updateRaw.size(), "raw bytes");
        m_transport->SendRaw(m_server,
                             {fl::MessageKind::LocalModel, round, 0, m_serverNode, samples},
                             m_updateRaw);
        return;
    }
    if (m_update.Size() != m_uploadValues)
    {
        fl::ExitOnConfigError(
            "FlClientApplication",
            fl::ConfigError("strategy",
                            "the client strategy's fit made an upload of " +
                                std::to_string(m_update.Size()) + " values but declares " +
                                std::to_string(m_uploadValues),
                            "declare the upload's size in UploadValues (and in the server "
                            "strategy's traits, uploadValues)"));
    }
    CheckUploadSize(fl::EncodedSize(Wire(), m_update.Size()), "a model upload");
    fl::Rng quantRng(fl::DeriveSeed(m_trainingSeed, round, 0x9A4D)); // int8 only
    m_transport->SendModel({m_server},
                           {fl::MessageKind::LocalModel, round, 0, m_serverNode, samples},
                           m_update,
                           &quantRng);
}

} // namespace ns3

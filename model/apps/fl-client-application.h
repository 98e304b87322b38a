/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The FedAvg client: receives the global model, trains locally, sends its model back.
 */
#ifndef FL_CLIENT_APPLICATION_H
#define FL_CLIENT_APPLICATION_H

#include "ns3/address.h"
#include "ns3/event-id.h"
#include "ns3/fl-application-base.h"
#include "ns3/fl-client-strategy.h"
#include "ns3/fl-datagram-endpoint.h"
#include "ns3/fl-message-socket.h"
#include "ns3/fl-uplink-step.h"
#include "ns3/ipv4-address.h"
#include "ns3/uplink-privacy.h"
#include "ns3/learning-task.h"
#include "ns3/nstime.h"
#include "ns3/perturbation.h"
#include "ns3/random-variable-stream.h"
#include "ns3/text-parse.h"
#include "ns3/thread-pool.h"
#include "ns3/traced-callback.h"

#include <map>
#include <memory>
#include <set>

namespace ns3
{

/**
 * \ingroup fl-apps
 * Federated-learning client.
 *
 * Announces itself to the server with a Join message (its index and sample count) over TCP or
 * UDP (FlApplicationBase::Transport; over UDP the Join is repeated every JoinInterval until the
 * first global model arrives, and an upload the transport gave up is sent again, at most
 * UploadResends times, while its round's model is the latest the client has). For each GlobalModel
 * message it runs the task's local trainer on its own data (real computation, in-process), waits
 * the simulated compute time, and sends its new model back as a LocalModel message. Compute time =
 * FLOPs / FlopRate if FlopRate > 0, else samples processed x SecondsPerSample. Training randomness
 * comes from an engine seeded with DeriveSeed(TrainingSeed, round), so results do not depend on the
 * order of events.
 *
 * Local training runs on a thread of fl::TrainingPool() (size: the global value
 * FlTrainingThreads) from the moment the model arrived, while the simulator goes on with other
 * events, and is joined when the simulated compute time has elapsed (the compute time is known
 * in advance: LearningTask::PlanClient). Results, traces and their times do not depend on the
 * number of threads. The client trains at once instead, in the simulator's thread, when what the
 * training produces is wanted at the moment the model arrived: something is connected to
 * TrainingDone, RoundTrained or ModelReport, or an uplink perturbation is set.
 *
 * Failure injection: SilentRounds and DropoutProbability make the client receive the model but
 * not answer; LeaveTime makes it leave for good (its connection closes, mid-round if it falls
 * in one).
 */
class FlClientApplication : public FlApplicationBase
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    FlClientApplication();
    ~FlClientApplication() override;

    /// Sets the learning task. Must be called before start.
    void SetTask(std::shared_ptr<const fl::LearningTask> task);

    /**
     * The privacy seam at the client's uplink: noise added to every update where it leaves the
     * client (e.g. fl::GaussianPerturbation), drawn from an engine seeded by the training seed
     * and the round. None (default) sends the trained model untouched. The model the client
     * reports (ModelReport) is the clean one it holds.
     */
    void SetUplinkPerturbation(std::shared_ptr<fl::Perturbation> perturbation);
    /// True if an uplink perturbation is set (SetUplinkPerturbation).
    bool HasUplinkPerturbation() const override;
    /**
     * The privacy the uplink perturbation has given this client's data set against the server
     * so far, at `delta` (fl::UplinkPrivacyAccountant: one release per upload at the
     * sensitivity of its local training, fl::UplinkStatement says what it means): 0 before
     * the first upload, +inf without gradient clipping (the task trainer's clipNorm).
     */
    double GetUplinkEpsilon(double delta) const override;
    /// The kind of the uplink perturbation's noise (None without one).
    fl::MechanismKind GetUplinkMechanism() const override;
    /// The NoiseSource attribute (parsed when the client starts).
    fl::NoiseSource GetUplinkNoiseSource() const override;

    /**
     * The client half of the strategy seam (FlClientStrategy: what is trained on the model
     * that arrived and what is sent; default: the task's own local training, the trained model
     * sent). Set it before the client starts.
     */
    void SetStrategy(Ptr<FlClientStrategy> strategy);
    /// The strategy (null before start if none was set).
    Ptr<FlClientStrategy> GetStrategy() const;

    /**
     * The uplink-step seam (FlUplinkClientStep, fl-uplink-step.h; the server half goes to
     * FlServerApplication::SetUplinkStep): when the update is ready (after the compute time) it
     * is handed to the step with its aggregation weight (FlClientStrategy::UploadWeight: the
     * sample count by default) instead of being sent, and the server's Control messages the
     * step claims go to it. The client then announces no sample count (Join and uploads carry
     * 0): what the server learns of the upload is the step's business. A strategy with phases
     * before the upload (FlClientStrategy::PhasesBeforeUpload) hands the step what it makes of
     * the update itself (FlClientPort::uplinkStepUpload). Null (default): the model is sent.
     */
    void SetUplinkStep(Ptr<FlUplinkClientStep> step);
    /// The uplink step (null if none).
    Ptr<FlUplinkClientStep> GetUplinkStep() const;

    /// The client index.
    uint32_t GetClientIndex() const
    {
        return m_clientIndex;
    }

    /// The client index (for observers).
    uint32_t GetLearnerIndex() const override
    {
        return m_clientIndex;
    }

    /// The seed in use (valid after start: the attribute, or the value drawn from the stream).
    uint64_t GetTrainingSeed() const;
    /// Rounds in which this client trained.
    uint32_t GetRoundsTrained() const;
    /// Rounds in which this client got the model but stayed silent (failure injection).
    uint32_t GetRoundsSilent() const;
    /// UDP: uploads sent again after the transport gave them up (UploadResends).
    uint32_t GetUploadsResent() const;
    /// Whether the client has left (LeaveTime).
    bool HasLeft() const;

    /**
     * Hands the client over to another server (the one whose cell it now reaches, e.g. when
     * its station associated with that server's access point): the work for the current
     * server is dropped (a training in flight, an upload waiting for its compute time), the
     * server's address becomes `server` (same ServerPort) and the client joins it (Join, with
     * JoinInterval's repeats and checks until a model comes). Messages from another address
     * than the current server's are counted as unexpected and ignored from then on. The old
     * server is not told (it may be out of reach); it learns of the departure by its own
     * means (its transport, its deadline, its cell's associations). Before the client starts
     * this only sets ServerAddress; the same address, or a client that left or stopped,
     * changes nothing. Exits with a configuration error naming SwitchServer for a client with
     * an uplink step (its protocol state belongs to one server).
     */
    void SwitchServer(Ipv4Address server);
    /// Servers the client was handed over to (SwitchServer calls that changed its server).
    uint32_t GetServerChanges() const;
    /**
     * Joins the current server again, on a new connection, dropping what it owed it (as
     * SwitchServer does for another server): for a client whose link came back after it was
     * out of reach (e.g. its station associated again with the same AP), whom the server may
     * have forgotten meanwhile (a stream transport gives up a connection that stopped
     * answering, and ns-3's TCP then silently ignores the old connection's segments). The
     * server takes a known client's new address (FlServerApplication's rejoins) or counts it
     * as a new one. Nothing before the client started, after it left or stopped, or after the
     * server's Stop.
     */
    void Rejoin();
    /// Rejoin calls that sent a Join.
    uint32_t GetRejoins() const;
    /// The server's address now (ServerAddress, or the last SwitchServer's).
    Ipv4Address GetServerAddress() const;
    /// Bytes sent and received (TCP connection, or UDP datagrams incl. feedback).
    uint64_t GetBytesSent() const;
    uint64_t GetBytesReceived() const;
    /// Messages dropped: reassembler drops (TCP), undecodable messages (UDP), unexpected ones.
    uint64_t GetDroppedMessages() const;
    /// Counters of the UDP endpoint (all zero with TCP).
    FlDatagramStats GetDatagramStats() const;
    /// Total compute energy so far [J].
    double GetComputeEnergy() const;
    /**
     * What the client last made ready to send once its compute time had elapsed: its trained
     * model (after the uplink perturbation, if any), or the strategy's own upload. Empty
     * before.
     */
    const fl::ParamVector& GetLastUpdate() const;

    /// Assigns fixed stream numbers to this application's random variables. \return 2
    int64_t AssignStreams(int64_t stream);

    /// Signature of the TrainingDone trace: round, local steps, mean loss, compute time.
    using TrainingDoneCallback = void (*)(uint32_t round,
                                          uint32_t steps,
                                          double loss,
                                          Time compute);
    /// Signature of the RoundTrained trace.
    using RoundTrainedCallback = void (*)(const FlTrainingReport& report);

  protected:
    void DoDispose() override;

  private:
    void StartApplication() override;
    void StopApplication() override;
    void HandleInbound(FlInboundMessage& in);
    void SendJoin();
    /// A stream transport: sends the Join again if its connection could not be opened.
    void CheckJoin();
    /// Drops what is owed to the server and joins it (its address now) on a new connection.
    void JoinAgain();
    void HandleMessageLost(const FlLostMessage& lost);
    void SendUpdate(uint32_t round);
    void FinishTraining();
    void DiscardTraining();
    /// Exits with a configuration error naming MaxMessageBytes if an upload of `payloadBytes`
    /// exceeds the bound the server applies.
    void CheckUploadSize(std::size_t payloadBytes, const char* what) const;
    void Leave();
    bool IsSilent(uint32_t round);
    // Attributes
    Address m_serverAddress;
    uint16_t m_serverPort;
    uint32_t m_clientIndex;
    double m_secondsPerSample;
    double m_flopRate;
    double m_computePower;
    uint64_t m_trainingSeedAttr;
    std::string m_silentRoundsSpec;
    std::string m_noiseSourceName{"run-seed"};               ///< NoiseSource attribute
    fl::NoiseSource m_noiseSource{fl::NoiseSource::RunSeed}; ///< parsed at start
    double m_dropoutProbability;
    Time m_leaveTime;
    Time m_joinInterval;
    uint32_t m_uploadResends;

    std::shared_ptr<const fl::LearningTask> m_task;
    uint64_t m_trainingSeed{0};
    std::set<uint32_t> m_silentRounds;
    Ptr<UniformRandomVariable> m_rng;
    Ptr<UniformRandomVariable> m_dropoutRng;
    Address m_server;                        ///< the server's transport address
    uint32_t m_serverNode{fl::kBroadcastId}; ///< the server's node-level id, once heard
    fl::ParamVector m_lastGlobal;            ///< UDP keep-previous: the last global model received
    fl::ParamVector m_update;                ///< the trained model waiting for its compute time
    std::vector<uint8_t> m_updateRaw;        ///< the strategy's raw upload (FlClientFit::raw)
    std::function<void()> m_uploadSent;      ///< the fit's commit (FlClientFit::onUploadSent)
    std::size_t m_attachmentValues{0};       ///< values attached to each global model
    std::size_t m_uploadValues{0};           ///< values of each upload (the strategy's)
    std::shared_ptr<fl::Perturbation> m_uplinkPerturbation; ///< privacy seam (null: none)
    fl::UplinkPrivacyAccountant m_uplinkPrivacy;            ///< eps of the perturbed uploads

    /// A training running on the pool.
    struct PendingTraining
    {
        std::shared_ptr<const fl::LearningTask> task;
        fl::ParamVector start;      ///< the global model received
        fl::ParamVector attachment; ///< what the server strategy sent with it
        FlClientFit fit;            ///< the training's outcome and upload
    };

    std::shared_ptr<PendingTraining> m_pending; ///< the training in flight (null: none)
    std::shared_ptr<fl::PoolJob> m_pendingJob;  ///< its job on the training pool
    fl::TrainingPlan m_pendingPlan;             ///< what it will report
    Ptr<FlClientStrategy> m_strategy;           ///< the strategy seam
    FlClientStrategy::FitFunction m_fit;        ///< its fit (set at start)

    Ptr<FlUplinkClientStep> m_uplink; ///< uplink-step seam (null: none)
    bool m_strategyPhases{false};     ///< the strategy runs phases before the upload
    fl::ParamVector m_received;       ///< strategy phases: the model the pending update came from
    double m_updateLoss{0.0};         ///< the pending update's mean training loss
    EventId m_sendEvent;
    uint64_t m_joinFailures{0}; ///< connection failures when the Join was last sent
    uint32_t m_rejoins{0};      ///< Rejoin calls that sent a Join
    EventId m_joinEvent;
    EventId m_leaveEvent;
    bool m_heardFromServer{false};
    bool m_started{false};        ///< StartApplication ran
    uint32_t m_serverChanges{0};  ///< SwitchServer calls that changed the server
    bool m_left{false};
    bool m_stopped{false};
    uint32_t m_roundsTrained{0};
    uint32_t m_roundsSilent{0};
    uint64_t m_unexpected{0};
    bool m_hasModel{false};         ///< a global model came
    uint32_t m_latestModelRound{0}; ///< the round of the latest global model
    bool m_serverStopped{false};    ///< the server's Stop came
    uint32_t m_resentThisRound{0};  ///< uploads of m_latestModelRound sent again
    uint32_t m_uploadsResent{0};    ///< uploads sent again in all
    double m_computeEnergy{0.0};

    TracedCallback<uint32_t, uint32_t, double, Time> m_trainingDoneTrace;
    TracedCallback<const FlTrainingReport&> m_roundTrainedTrace;
    TracedCallback<const FlTrainingReport&> m_trainingPlannedTrace;
};

} // namespace ns3

#endif // FL_CLIENT_APPLICATION_H

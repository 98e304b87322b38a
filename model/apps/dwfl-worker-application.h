/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The DWFL worker (S. Chen, D. Yu, Y. Zou, J. Yu, X. Cheng, "Decentralized Wireless Federated
 * Learning with Differential Privacy", arXiv:2109.09142, 2021, Algorithm 1): a decentralised
 * learner that exchanges its model with every other worker as one analog over-the-air
 * superposition on an OtaPhy.
 */
#ifndef DWFL_WORKER_APPLICATION_H
#define DWFL_WORKER_APPLICATION_H

#include "ns3/dwfl-composition.h"
#include "ns3/dwfl-privacy.h"
#include "ns3/fl-application-base.h"
#include "ns3/learning-task.h"
#include "ns3/noise-source.h"
#include "ns3/nstime.h"
#include "ns3/ota-phy.h"
#include "ns3/privacy-accountant.h"
#include "ns3/random-variable-stream.h"
#include "ns3/traced-callback.h"
#include "ns3/vector.h"

#include <memory>
#include <string>
#include <vector>

namespace ns3
{

class OtaParameterServerApplication;

/**
 * \ingroup fl-apps
 * What a DWFL worker reports through its "Round" trace at the end of each round, before the
 * update of eq. (7). Pointers are valid during the call.
 */
struct DwflRoundReport
{
    /// round r = 1, 2, ...: the update that makes the model of round r (the paper's t = r - 1;
    /// round 0 is the initial model, as in ModelReport and FlLearningTracker)
    uint32_t round{0};
    uint32_t node{0};                              ///< node id of the worker
    const Eigen::VectorXd* localModel{nullptr};    ///< x_i^(t): after the local step
    const Eigen::VectorXd* ownNoise{nullptr};      ///< artificial noise G_i^(t)
    const Eigen::VectorXd* receiverNoise{nullptr}; ///< realised m_i^(t) (null unless recorded)
    uint32_t received{0}; ///< receptions that made up v_i (1, or N-1 if orthogonal; centralized:
                          ///< the downlink)
    double c{0.0};            ///< aligned amplitude c
    double alpha{0.0};        ///< alpha_i
    double beta{0.0};         ///< beta_i
    double epsilon{0.0};      ///< per-round eps of this receiver (eq. 11, or worst orthogonal
                              ///< link; centralized: the server's, OtaPsEpsilon)
    double gradientNorm{0.0}; ///< ||g_i^(t)|| after clipping (<= g_max)
    Time roundDuration;       ///< simulated time of the round (control + compute + data slots)
};

/**
 * \ingroup fl-apps
 * DWFL worker (Chen et al., "Decentralized Wireless Federated Learning with Differential
 * Privacy", Algorithm 1), on the OtaPhy aggregated to its node.
 *
 * Setup (the paper's "communicate once at the beginning"): in N orthogonal control slots every
 * worker transmits a one-symbol full-power control burst and announces |h_k|^2 P_k (its own CSI
 * estimate towards its reference receiver, OtaPhy::GetChannelEstimate, and its TxPower). The
 * burst's airtime and interference are simulated; its content is taken as decoded without error
 * (a coded control message), i.e. every worker reads the announced values. Each worker then
 * computes c = kappa min_j sqrt(|h_j|^2 P_j), alpha_k and beta_k (pure functions of dwfl.h and
 * dwfl-privacy.h; beta calibrated for TargetEpsilon per round, or 0). On a channel whose fading
 * is not fixed for the run the setup is repeated every round.
 *
 * Round t: one local step x^(t) = x^(t-1/2) - gamma clip(g) through LearningTask::TrainClient
 * (the task's trainer must make exactly one step with clipping: gamma and g_max are its
 * learningRate and clipNorm); the signal e^{-j theta_i}(sqrt(alpha P) x + sqrt(beta P) G) in the
 * round's data slot; the reception v_i (the real values unpacked from the I and Q parts); the
 * update of eq. (7) with averaging rate Eta, in the Practical (default) or Oracle decode.
 *
 * Orthogonal transmission (baseline): N data slots per round, worker j alone in slot j, per-link
 * noise calibrated to the same eps per link (CalibrateDwflOrthogonalBeta); the N-1 receptions are
 * summed into v_i and the same update is applied (the receiver noise is then the sum of the
 * links' noises).
 *
 * Timing, on the channel's slot grid: [N control slots, if a setup is due] + ceil(ComputeTime /
 * SlotDuration) compute slots + 1 (or N) data slots; the next round starts at the slot after the
 * last data slot. Use DwflHelper, which sizes SlotDuration as preamble + ceil(d/2) / B + guard.
 *
 * Centralized parameter server (baseline of Fig. 6, Seif et al.; Transmission CentralizedPs, set
 * up by DwflHelper::InstallCentralized): the worker holds the server's model w, sends its clipped
 * gradient g = (w - x^(t)) / gamma (not its model) aligned to c with artificial noise calibrated
 * for TargetEpsilon at the server (CalibrateOtaPsBeta), in the uplink slot; the server
 * (OtaParameterServerApplication) applies w <- w - gamma y / (c N) and sends w in the next slot
 * (the downlink, taken as decoded without error as in [11]); at the end of that slot the worker
 * takes w and starts the next round. The worker's setup, local step, noise and signal are the
 * same code as DWFL's; only the payload, the receiver and the update differ. The server reports
 * the model (role server); the workers do not.
 *
 * Channel: with a sender-only channel (the paper's) the alignment holds at every receiver; with
 * a per-link channel each worker aligns to its reference receiver (the next worker, i+1 mod N;
 * the server if centralized) and the others see a misaligned sum. sigma_m^2 per real entry is
 * OtaPhy noise variance / 2 (a complex symbol carries two real values).
 */
class DwflWorkerApplication : public FlApplicationBase
{
  public:
    /// How a worker decodes its reception: eq. (7) as printed needs its own receiver noise m_i.
    enum DecodeMode
    {
        DECODE_PRACTICAL, ///< uses only what a worker knows: own noise G_i, not m_i
        DECODE_ORACLE,    ///< paper-literal eq. (7): the simulation hands the worker m_i
    };

    /// How the workers share the channel.
    enum Transmission
    {
        NON_ORTHOGONAL, ///< DWFL: everyone in one slot (over-the-air superposition)
        ORTHOGONAL,     ///< TDMA baseline: one slot per worker
        CENTRALIZED_PS, ///< Seif et al.'s baseline: gradients to a parameter server, model back
    };

    /// \return the TypeId
    static TypeId GetTypeId();
    DwflWorkerApplication();
    ~DwflWorkerApplication() override;

    /**
     * Sets the learning task and this worker's client data set. Throws fl::ConfigError unless
     * the task is float64 and its trainer makes one step with clipping (localSteps = 1,
     * localEpochs = 0, clipNorm > 0, Fixed step rule, no FedProx term).
     */
    void SetTask(std::shared_ptr<const fl::LearningTask> task, uint32_t client);
    /// Sets all N workers of the network, in order (this one included). Done by DwflHelper.
    void SetWorkers(const std::vector<Ptr<DwflWorkerApplication>>& workers);
    /// The parameter server (Transmission CentralizedPs). Done by DwflHelper::InstallCentralized.
    void SetParameterServer(Ptr<OtaParameterServerApplication> server);
    /**
     * Optional accountant fed each round with the mechanism of this worker's reception, so that
     * its epsilon is the composed privacy loss of one worker's data set (replace-one) against
     * this receiver over the rounds so far (doc/fl-privacy.rst, "DWFL over rounds: the composed
     * bound"): NonOrthogonal, round t's fresh noise at the drift sensitivity Delta_t of
     * fl::DwflComposedBound (every worker's clipped gradient of every earlier round may differ
     * once the target influenced its model); CentralizedPs, the server's reception at the
     * one-round sensitivity (the rounds compose adaptively, doc/fl-privacy.rst, "The over-the-air
     * parameter server over rounds"). Orthogonal transmission and per-link channels have no
     * valid composed bound: with an accountant the run stops at start with exit status 2.
     * Eq. (11) itself (the Round trace's epsilon) bounds the first round alone.
     */
    void SetPrivacyAccountant(std::shared_ptr<fl::PrivacyAccountant> accountant);

    /// The current model x_i.
    const fl::ParamVector& GetModel() const;
    /// Rounds completed.
    uint32_t GetRoundsDone() const;
    /// Data slots per round: 1, N (orthogonal) or 2 (centralized: uplink and downlink).
    uint32_t GetDataSlotsPerRound() const;
    /// The first data slot of the current round (centralized: the uplink slot).
    uint64_t GetDataSlot() const;
    /// The aligned amplitude c of the last setup (0 before the first).
    double GetAlignment() const;
    /// The transmission scheme.
    Transmission GetTransmission() const;
    /// |h_i| and P_i announced in the last setup (valid once a setup ran).
    std::pair<double, double> GetAnnouncedChannel() const;
    /// Assigns the stream of the seed draw. \return 1
    int64_t AssignStreams(int64_t stream);

    /// TracedCallback signature of Round.
    using RoundTracedCallback = void (*)(const DwflRoundReport& report);

  protected:
    void DoDispose() override;

  private:
    void StartApplication() override;
    void StopApplication() override;

    /// Round start at slot `firstSlot`: control burst if a setup is due, then the data event.
    void BeginRound(uint64_t firstSlot);
    /// Setup (if due), local step, signal and transmission in the data slot.
    void TransmitData();
    /// gamma, g_max (the task's trainer), sigma^2, sigma_m^2 (of the receiving phy: this one,
    /// or the server's if centralized) and delta.
    fl::DwflPrivacyParams PrivacyParams() const;
    /// The phy the alignment is computed for: null (sender-only channel: every receiver), the
    /// next worker's (per-link), or the server's (centralized).
    Ptr<const OtaPhy> ReferenceReceiver() const;
    /// Computes c, alpha, beta from the announced channels.
    void Align();
    /// Align's power fractions, alignment amplitude and noise calibration (throws ConfigError).
    void AlignAndCalibrate(std::size_t n);
    /// A symbol buffer of `symbols` entries that no transmission still holds (reused).
    std::shared_ptr<fl::SymbolVector> TxBuffer(std::size_t symbols);
    /// Phy callback.
    void Receive(const OtaReception& rx);
    /// This round's reception mechanism and eps (eq. 11, worst orthogonal link, or the server's).
    std::pair<fl::MechanismSpec, double> RoundMechanism() const;
    /// Reports the round (Round trace, accountant); `received` = v_i (null if centralized).
    void ReportRound(uint32_t receptions);
    /// Update of eq. (7) on x^(t) with v_i, reports, next round.
    void FinishRound(const Eigen::Ref<const Eigen::VectorXd>& received);
    /// Centralized: takes the server's model after the downlink, next round.
    void FinishCentralizedRound();
    /// Counts the round and starts the next one (or stops).
    void NextRound();

    // Attributes
    uint32_t m_rounds;
    double m_eta;
    double m_kappa;
    double m_targetEpsilon;
    double m_delta;
    double m_sigma2;
    Time m_computeTime;
    DecodeMode m_decode;
    Transmission m_transmission;
    uint64_t m_initSeed;
    uint64_t m_seedAttr;
    std::string m_noiseSourceName{"run-seed"};               ///< NoiseSource attribute
    fl::NoiseSource m_noiseSource{fl::NoiseSource::RunSeed}; ///< parsed at start

    std::shared_ptr<const fl::LearningTask> m_task;
    uint32_t m_client{0};
    std::vector<Ptr<DwflWorkerApplication>> m_workers;
    std::shared_ptr<fl::PrivacyAccountant> m_accountant;
    std::unique_ptr<fl::DwflComposedBound> m_composed; ///< NonOrthogonal with an accountant
    Ptr<OtaParameterServerApplication> m_server;
    Ptr<OtaPhy> m_phy;
    Ptr<UniformRandomVariable> m_seedRv;
    uint64_t m_seed{0};
    uint32_t m_index{0}; ///< position among the workers
    bool m_running{false};

    // Round state
    uint32_t m_round{0};
    uint64_t m_roundFirstSlot{0};
    uint64_t m_dataSlot{0}; ///< first data slot of the round
    bool m_setupThisRound{false};
    bool m_aligned{false};
    std::vector<Vector> m_setupPositions; ///< the phys' positions at the last alignment
    std::vector<double> m_trueGain;       ///< |h_k| of this round's data slots (true channels)
    Time m_roundStart;
    double m_announcedGain{0.0};  ///< |h_i| towards the reference receiver
    double m_announcedPhase{0.0}; ///< theta_i
    double m_announcedPower{0.0}; ///< P_i [W]
    uint32_t m_announcedRound{0};
    double m_c{0.0};
    std::vector<double> m_gain;
    std::vector<double> m_power;
    std::vector<double> m_alpha;
    std::vector<double> m_beta;
    double m_gradientNorm{0.0};
    fl::ParamVector m_model;
    Eigen::VectorXd m_local; ///< x_i^(t)
    Eigen::VectorXd m_ownNoise;
    Eigen::VectorXd m_gradient;      ///< centralized: the clipped gradient sent
    Eigen::VectorXd m_received;      ///< orthogonal: the sum of the receptions
    Eigen::VectorXd m_receiverNoise; ///< recorded receiver noise (RecordNoise only)
    std::vector<std::shared_ptr<fl::SymbolVector>> m_txBuffers; ///< reused symbol buffers
    bool m_noiseRecorded{false};
    uint32_t m_receptions{0};

    TracedCallback<const DwflRoundReport&> m_roundTrace;
};

} // namespace ns3

#endif // DWFL_WORKER_APPLICATION_H

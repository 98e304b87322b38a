/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The client half of the strategy seam: what an algorithm does on a client with the model that
 * arrived (Flower's client "fit": train on it and produce what is sent), as an ns-3 Object.
 */
#ifndef FL_CLIENT_STRATEGY_H
#define FL_CLIENT_STRATEGY_H

#include "ns3/learning-task.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/perturbation.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace ns3
{

/**
 * \ingroup fl-strategies
 * One local training of a client, as reported by its "RoundTrained" trace (at the moment the
 * global model arrived; the update is sent computeTime later). The "TrainingPlanned" trace
 * reports the same at the same moment before the training ran, with meanLoss NaN. Here, with
 * the client half of the strategy seam, so that observers read it without a client class.
 */
struct FlTrainingReport
{
    uint32_t client{0};             ///< client index
    uint32_t round{0};              ///< round of the global model trained on
    Time received;                  ///< when the whole global model had arrived
    Time computeTime;               ///< simulated compute time
    double computeEnergyJ{0.0};     ///< ComputePower x computeTime [J]
    uint64_t steps{0};              ///< local optimisation steps
    uint64_t samples{0};            ///< samples processed
    double flops{0.0};              ///< training FLOPs
    double meanLoss{0.0};           ///< mean training loss over the local steps
    uint64_t missingCoordinates{0}; ///< coordinates of the global model filled from the previous
                                    ///< one (UDP keep-previous)
};

/**
 * \ingroup fl-strategies
 * What a client strategy's fit produced.
 */
struct FlClientFit
{
    fl::TrainOutcome training; ///< the local training (params = the trained model)
    fl::ParamVector upload;    ///< what is sent, if ownUpload (else the trained model)
    bool ownUpload{false};     ///< the strategy formed the upload itself
    /// A raw upload of the strategy's own format (the server strategy's traits say
    /// rawUploads): sent as is when non-empty and no uplink step is installed (with one, the
    /// step gets `upload`, the values the payload stands for).
    std::vector<uint8_t> raw;
    /**
     * Run on the simulator's thread when this upload leaves the client (handed to the transport,
     * the uplink step or the strategy's phases), and never if the training is discarded (a newer
     * model arrived first, the client left): where a fit commits state it keeps across rounds,
     * e.g. SCAFFOLD's c_i <- c_i+, so that a lost training leaves no trace.
     */
    std::function<void()> onUploadSent;
};

/**
 * \ingroup fl-strategies
 * What a client strategy's fit is given (valid during the call; the fit may run on a thread of
 * the training pool).
 */
struct FlFitInput
{
    const fl::LearningTask* task{nullptr}; ///< the learning task
    uint32_t client{0};                   ///< the task client
    const fl::ParamVector* start{nullptr}; ///< the global model received (of `round`)
    /// What the server strategy sent with the model (FlRoundConfig::attachment; empty if none)
    const fl::ParamVector* attachment{nullptr};
    uint64_t seed{0};   ///< the client's training seed
    uint32_t round{0};  ///< the round of the model
    /// given only if PerturbsUpload(): the strategy then adds the client's uplink noise itself
    fl::Perturbation* perturbation{nullptr};
};

/**
 * \ingroup fl-strategies
 * What the client application lends its strategy for phases before the upload (set when the
 * client starts).
 */
struct FlClientPort
{
    /// Sends a Control message (round, tag, bytes) to the server.
    std::function<void(uint32_t round, uint32_t tag, const std::vector<uint8_t>& bytes)>
        sendControl;
    /// Sends `bytes` as the round's upload (a raw LocalModel message with the sample count).
    std::function<void(uint32_t round, const std::vector<uint8_t>& bytes)> uploadRaw;
    /// Whether an uplink step is installed.
    std::function<bool()> hasUplinkStep;
    /// Hands `values` with weight `weight` to the uplink step as the round's upload.
    std::function<void(uint32_t round, const fl::ParamVector& values, uint64_t weight)>
        uplinkStepUpload;
    /// Counts a message the strategy dropped (late, malformed) as unexpected.
    std::function<void()> unexpected;
    /// The client's training seed (valid once the client started).
    std::function<uint64_t()> trainingSeed;
};

/**
 * \ingroup fl-strategies
 * The client half of the strategy seam (FlClientApplication::SetStrategy; default: this class,
 * the task's own local training, the trained model sent). The client application keeps the
 * schedule (join, receive, compute time, send, failures); a strategy decides what is trained and
 * what is sent.
 */
class FlClientStrategy : public Object
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    FlClientStrategy();
    ~FlClientStrategy() override;

    /**
     * Whether the client receives the model of `round` but trains and sends nothing (an
     * algorithm's own dropout rule, decided from the client's training seed). Default false.
     */
    virtual bool Silent(uint64_t trainingSeed, uint32_t round) const;

    /**
     * What Fit will report as steps, samples processed and FLOPs, known before it runs
     * (LearningTask::PlanClient by default); false if unknown (then Fit runs at once).
     */
    virtual bool Plan(const fl::LearningTask& task, uint32_t client, fl::TrainingPlan& plan) const;

    /**
     * Trains on the model that arrived and forms the upload (FlFitInput says what it is given);
     * throws fl::ConfigError on a bad configuration.
     */
    using FitFunction = std::function<void(const FlFitInput& in, FlClientFit& out)>;

    /**
     * The strategy's fit, as a closure that owns copies of everything it reads (it runs on a
     * thread of the training pool and may outlive the strategy). Default:
     * LearningTask::TrainClientInto with Rng(DeriveSeed(seed, round)); the trained model is sent.
     */
    virtual FitFunction MakeFit() const;

    /// Whether Fit draws the uplink perturbation itself. Default false.
    virtual bool PerturbsUpload() const;

    /// The weight of the upload handed to an uplink step (default: the sample count).
    virtual uint64_t UploadWeight(const fl::LearningTask& task, uint32_t client) const;

    /// Called when the client starts (after SetPort); throw fl::ConfigError on a bad setup.
    virtual void Start(const fl::LearningTask& task, uint32_t client, bool hasUplinkStep);
    /// Called by the client before Start: the port stays valid while the client runs.
    void SetPort(const FlClientPort& port);
    /// The port.
    const FlClientPort& Port() const;

    /**
     * Whether the upload is preceded by the strategy's control-message phases (default
     * false). The client then keeps the model it received and, when the compute time has
     * elapsed, hands the upload to UploadReady instead of sending it; the strategy sends
     * through the port, and Control messages from the server go to Receive first.
     */
    virtual bool PhasesBeforeUpload() const;

    /**
     * PhasesBeforeUpload: the upload of `round` is due. `received` is the global model it was
     * trained from, `upload` what the client made ready (after the uplink perturbation, if
     * any), `meanLoss` the local training's mean loss.
     */
    virtual void UploadReady(const fl::LearningTask& task,
                             uint32_t client,
                             uint32_t round,
                             const fl::ParamVector& received,
                             const fl::ParamVector& upload,
                             double meanLoss);

    /// A Control message from the server; true if it is the strategy's (default: false).
    virtual bool Receive(uint32_t round, uint32_t tag, const std::vector<uint8_t>& bytes);

    /// A newer global model arrived and is trained on: anything pending for an earlier round
    /// is void (default: nothing to do).
    virtual void Superseded();

    /**
     * How many values the client uploads (FlClientFit::upload; an uplink step carries them),
     * default the model size; must equal the server strategy's FlStrategyTraits::uploadValues.
     */
    virtual std::size_t UploadValues(std::size_t numParameters) const;

    /**
     * How many values the server strategy attaches to the model (FlRoundConfig::attachment;
     * default 0); must equal its FlStrategyTraits::attachmentValues. A model message whose
     * attachment has another size is dropped and counted as unexpected.
     */
    virtual std::size_t AttachmentValues(std::size_t numParameters) const;

  protected:
    void DoDispose() override;

  private:
    FlClientPort m_port;
};

} // namespace ns3

#endif // FL_CLIENT_STRATEGY_H

/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The client half of the strategy seam: what an algorithm does on a client with the model that
 * arrived (Flower's client "fit": train on it and produce what is sent), as an ns-3 Object.
 */
#ifndef FL_CLIENT_STRATEGY_H
#define FL_CLIENT_STRATEGY_H

#include "ns3/learning-task.h"
#include "ns3/object.h"
#include "ns3/perturbation.h"

#include <cstdint>
#include <functional>

namespace ns3
{

/**
 * \ingroup fl
 * What a client strategy's fit produced.
 */
struct FlClientFit
{
    fl::TrainOutcome training; ///< the local training (params = the trained model)
    fl::ParamVector upload;    ///< what is sent, if ownUpload (else the trained model)
    bool ownUpload{false};     ///< the strategy formed the upload itself
};

/**
 * \ingroup fl
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
     * Trains task client `client` on `start` (the model of `round`) with the seed `seed`, and
     * forms the upload; throws fl::ConfigError on a bad configuration. `perturbation` is given
     * only if PerturbsUpload() (the strategy then adds the client's uplink noise itself;
     * otherwise the client adds it to the trained model).
     */
    using FitFunction = std::function<void(const fl::LearningTask& task,
                                           uint32_t client,
                                           const fl::ParamVector& start,
                                           uint64_t seed,
                                           uint32_t round,
                                           fl::Perturbation* perturbation,
                                           FlClientFit& out)>;

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
};

} // namespace ns3

#endif // FL_CLIENT_STRATEGY_H

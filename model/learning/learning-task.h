/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * LearningTask: everything the network applications need to know about the learning problem,
 * behind a scalar-agnostic interface (the apps move ParamVectors; the task does the maths).
 */
#ifndef FL_LEARNING_TASK_H
#define FL_LEARNING_TASK_H

#include "ns3/local-trainer.h"
#include "ns3/metrics.h"
#include "ns3/param-vector.h"

#include <memory>
#include <vector>

namespace ns3
{
namespace fl
{

/// What a client's local training produced.
struct TrainOutcome
{
    ParamVector params;              ///< the client's new model
    std::size_t steps{0};            ///< local SGD steps E
    std::size_t samplesProcessed{0}; ///< sum of mini-batch sizes
    double meanLoss{0.0};            ///< mean mini-batch loss during training
    double flops{0.0};               ///< floating-point operations spent (samples x flops/sample)
};

/**
 * A federated learning problem: a model, a local trainer, one data set per client and a
 * held-out test set. Immutable after construction, shared by the server, the clients and the
 * monitor of a simulation.
 */
class LearningTask
{
  public:
    virtual ~LearningTask() = default;
    /// Scalar type of the models (float64 for exactness, float32 for speed).
    virtual Precision GetPrecision() const = 0;
    /// Length of the parameter vector.
    virtual std::size_t NumParameters() const = 0;
    /// Number of client data sets.
    virtual std::size_t NumClients() const = 0;
    /// Samples held by a client (the FedAvg weight).
    virtual std::size_t ClientSamples(std::size_t client) const = 0;
    /// Initial global model.
    virtual ParamVector InitialParameters(Rng& rng) const = 0;
    /// The local trainer's configuration (step size, clipping, steps: what privacy accounting and
    /// one-step algorithms such as DWFL need to know about TrainClient).
    virtual const LocalTrainerConfig& GetTrainerConfig() const = 0;
    /// Runs the local trainer of `client` from `start`.
    virtual TrainOutcome TrainClient(std::size_t client,
                                     const ParamVector& start,
                                     Rng& rng) const = 0;
    /**
     * TrainClient into `out`, whose parameter storage is reused when it already holds a vector
     * of the task's precision and size (a client that trains every round allocates nothing).
     * The default calls TrainClient.
     */
    virtual void TrainClientInto(std::size_t client,
                                 const ParamVector& start,
                                 Rng& rng,
                                 TrainOutcome& out) const
    {
        out = TrainClient(client, start, rng);
    }
    /**
     * What TrainClient(client, ...) will report as steps, samplesProcessed and flops, known
     * before training (fl::PlanTraining). False if the task cannot tell in advance (the default):
     * its clients then train where the result is needed.
     */
    virtual bool PlanClient(std::size_t client, TrainingPlan& plan) const
    {
        (void)client;
        (void)plan;
        return false;
    }
    /// Loss and accuracy of w on the held-out test set.
    virtual Evaluation Evaluate(const ParamVector& w) const = 0;
    /// Loss and accuracy of w on the union of the clients' training data (sampled, see impl).
    virtual Evaluation EvaluateTraining(const ParamVector& w) const = 0;
    /**
     * F_k(w): the loss of w on client `client`'s whole training set (the model's mean loss
     * plus its regulariser, the objective local training minimises), e.g. q-FFL's loss at the
     * received model. The default throws ConfigError: the task cannot evaluate it.
     */
    virtual double ClientLoss(std::size_t client, const ParamVector& w) const;
    /// One-line description (model, clients, samples, trainer).
    virtual std::string Describe() const = 0;
};

/**
 * The supervised-learning task for scalar S: model + trainer + client data + test data.
 */
template <typename S>
class SupervisedTask : public LearningTask
{
  public:
    /**
     * @param model the model (shared, stateless in w)
     * @param trainer local training configuration (validated)
     * @param clients one data set per client (validated against the model)
     * @param test held-out data for the monitor
     */
    SupervisedTask(std::shared_ptr<const Model<S>> model,
                   LocalTrainerConfig trainer,
                   std::vector<Dataset<S>> clients,
                   Dataset<S> test);

    Precision GetPrecision() const override;
    std::size_t NumParameters() const override;
    std::size_t NumClients() const override;
    std::size_t ClientSamples(std::size_t client) const override;
    ParamVector InitialParameters(Rng& rng) const override;
    const LocalTrainerConfig& GetTrainerConfig() const override;
    TrainOutcome TrainClient(std::size_t client, const ParamVector& start, Rng& rng) const override;
    void TrainClientInto(std::size_t client,
                         const ParamVector& start,
                         Rng& rng,
                         TrainOutcome& out) const override;
    bool PlanClient(std::size_t client, TrainingPlan& plan) const override;
    Evaluation Evaluate(const ParamVector& w) const override;
    Evaluation EvaluateTraining(const ParamVector& w) const override;
    double ClientLoss(std::size_t client, const ParamVector& w) const override;
    std::string Describe() const override;

    /// The model.
    const Model<S>& GetModel() const
    {
        return *m_model;
    }

    /// A client's data.
    const Dataset<S>& ClientData(std::size_t client) const;

    /// The test data.
    const Dataset<S>& TestData() const
    {
        return m_test;
    }

    /// The trainer.
    const LocalTrainer<S>& Trainer() const
    {
        return m_trainer;
    }

  private:
    void CheckClient(std::size_t client) const;
    std::shared_ptr<const Model<S>> m_model;
    LocalTrainer<S> m_trainer;
    std::vector<Dataset<S>> m_clients;
    Dataset<S> m_test;
    Dataset<S> m_trainSample; ///< about 10,000 training samples at most, drawn evenly from the clients
};

/**
 * Trains `client` of a SupervisedTask (float64 or float32) from `start` with the given trainer
 * configuration instead of the task's own: algorithms whose clients differ in local steps E,
 * batch size B or step rule (GFL's E_{p,k} steps of mu / E_{p,k} on mini-batches of B_{p,k},
 * a diffusion agent's single adapt step) call it with the task's data and model. The outcome is
 * what TrainClient would return with that configuration. Throws ConfigError naming "task" if the
 * task is not a SupervisedTask, and as LocalTrainerConfig::Validate and TrainClient otherwise.
 */
TrainOutcome TrainClientWith(const LearningTask& task,
                             std::size_t client,
                             const ParamVector& start,
                             const LocalTrainerConfig& config,
                             Rng& rng);

/**
 * What TrainClientWith(task, client, ..., config, ...) will report as steps, samplesProcessed
 * and flops (fl::PlanTraining with the client's data size and the model's FLOPs per sample).
 * False if the task is not a SupervisedTask.
 */
bool PlanClientWith(const LearningTask& task,
                    std::size_t client,
                    const LocalTrainerConfig& config,
                    TrainingPlan& plan);

} // namespace fl
} // namespace ns3

#endif // FL_LEARNING_TASK_H

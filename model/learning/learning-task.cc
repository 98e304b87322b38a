/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/learning-task.h"

#include <sstream>

namespace ns3
{
namespace fl
{

double
LearningTask::ClientLoss(std::size_t /* client */, const ParamVector& /* w */) const
{
    throw ConfigError("task",
                      "cannot evaluate a client's loss (" + Describe() + ")",
                      "use a SupervisedTask, or a task that implements ClientLoss");
}

template <typename S>
SupervisedTask<S>::SupervisedTask(std::shared_ptr<const Model<S>> model,
                                  LocalTrainerConfig trainer,
                                  std::vector<Dataset<S>> clients,
                                  Dataset<S> test)
    : m_model(std::move(model)),
      m_trainer(trainer),
      m_clients(std::move(clients)),
      m_test(std::move(test))
{
    if (!m_model)
    {
        throw ConfigError("model", "no model given", "pass a model, e.g. MakeModel(\"softmax\")");
    }
    trainer.Validate();
    if (m_clients.empty())
    {
        throw ConfigError("clients", "no client data sets", "give at least one client data set");
    }
    auto check = [this](const Dataset<S>& d, const std::string& name) {
        d.Validate(name);
        if (d.Dim() != m_model->InputDim())
        {
            throw ConfigError(name,
                              "has " + std::to_string(d.Dim()) + " features but model " +
                                  m_model->Name() + " expects " +
                                  std::to_string(m_model->InputDim()),
                              "build the model for the data's feature dimension");
        }
        if (d.kind != m_model->Kind())
        {
            throw ConfigError(name,
                              "target kind does not match model " + m_model->Name(),
                              "use regression targets for ridge, +-1 labels for logistic and "
                              "class indices for softmax/mlp");
        }
    };
    for (std::size_t k = 0; k < m_clients.size(); ++k)
    {
        check(m_clients[k], "client data " + std::to_string(k));
        if (m_clients[k].Size() == 0)
        {
            throw ConfigError("client data " + std::to_string(k),
                              "is empty",
                              "give every client at least one sample (check the partitioner)");
        }
    }
    if (m_test.Size() > 0)
    {
        check(m_test, "test data");
    }
    // Evenly strided sample of the training data for training-loss reports.
    const std::size_t cap = 10000;
    std::size_t total = 0;
    for (const auto& c : m_clients)
    {
        total += c.Size();
    }
    // the smallest stride that keeps at most `cap` samples (rounded down, 10,001 to 19,999
    // samples would all be copied)
    const std::size_t stride = std::max<std::size_t>(1, (total + cap - 1) / cap);
    std::vector<Dataset<S>> parts;
    for (const auto& c : m_clients)
    {
        std::vector<std::size_t> idx;
        for (std::size_t i = 0; i < c.Size(); i += stride)
        {
            idx.push_back(i);
        }
        parts.push_back(c.Subset(idx));
    }
    m_trainSample = Concatenate(parts);
}

template <typename S>
Precision
SupervisedTask<S>::GetPrecision() const
{
    return PrecisionOf<S>();
}

template <typename S>
std::size_t
SupervisedTask<S>::NumParameters() const
{
    return m_model->NumParameters();
}

template <typename S>
std::size_t
SupervisedTask<S>::NumClients() const
{
    return m_clients.size();
}

template <typename S>
void
SupervisedTask<S>::CheckClient(std::size_t client) const
{
    if (client >= m_clients.size())
    {
        throw ConfigError("ClientIndex",
                          "client " + std::to_string(client) + " does not exist; the task has " +
                              std::to_string(m_clients.size()) + " clients",
                          "use client indices 0.." + std::to_string(m_clients.size() - 1));
    }
}

template <typename S>
std::size_t
SupervisedTask<S>::ClientSamples(std::size_t client) const
{
    CheckClient(client);
    return m_clients[client].Size();
}

template <typename S>
const Dataset<S>&
SupervisedTask<S>::ClientData(std::size_t client) const
{
    CheckClient(client);
    return m_clients[client];
}

template <typename S>
ParamVector
SupervisedTask<S>::InitialParameters(Rng& rng) const
{
    return ParamVector(m_model->InitialParameters(rng));
}

template <typename S>
const LocalTrainerConfig&
SupervisedTask<S>::GetTrainerConfig() const
{
    return m_trainer.Config();
}

template <typename S>
TrainOutcome
SupervisedTask<S>::TrainClient(std::size_t client, const ParamVector& start, Rng& rng) const
{
    TrainOutcome out;
    out.params = ParamVector(Vec<S>());
    TrainClientInto(client, start, rng, out);
    return out;
}

template <typename S>
void
SupervisedTask<S>::TrainClientInto(std::size_t client,
                                   const ParamVector& start,
                                   Rng& rng,
                                   TrainOutcome& out) const
{
    CheckClient(client);
    const Vec<S>& w0 = start.Get<S>();
    if (static_cast<std::size_t>(w0.size()) != m_model->NumParameters())
    {
        throw ConfigError("start",
                          "has " + std::to_string(w0.size()) + " parameters, model " +
                              m_model->Name() + " has " + std::to_string(m_model->NumParameters()),
                          "send the client a model of the task's size");
    }
    if (out.params.GetPrecision() != PrecisionOf<S>())
    {
        out.params = ParamVector(Vec<S>());
    }
    const LocalResult<S> r =
        m_trainer.TrainInto(*m_model, w0, m_clients[client], rng, out.params.Get<S>());
    out.steps = r.steps;
    out.samplesProcessed = r.samplesProcessed;
    out.meanLoss = r.meanLoss;
    out.flops = static_cast<double>(r.samplesProcessed) * m_model->FlopsPerSample();
}

template <typename S>
bool
SupervisedTask<S>::PlanClient(std::size_t client, TrainingPlan& plan) const
{
    CheckClient(client);
    plan = PlanTraining(m_trainer.Config(), m_clients[client].Size(), m_model->FlopsPerSample());
    return true;
}

template <typename S>
Evaluation
SupervisedTask<S>::Evaluate(const ParamVector& w) const
{
    return fl::Evaluate(*m_model, w.Get<S>(), m_test);
}

template <typename S>
Evaluation
SupervisedTask<S>::EvaluateTraining(const ParamVector& w) const
{
    return fl::Evaluate(*m_model, w.Get<S>(), m_trainSample);
}

template <typename S>
double
SupervisedTask<S>::ClientLoss(std::size_t client, const ParamVector& w) const
{
    CheckClient(client);
    return fl::Evaluate(*m_model, w.Get<S>(), m_clients[client]).loss;
}

template <typename S>
std::string
SupervisedTask<S>::Describe() const
{
    std::size_t total = 0;
    for (const auto& c : m_clients)
    {
        total += c.Size();
    }
    const auto& cfg = m_trainer.Config();
    std::ostringstream os;
    os << m_model->Name() << " (" << m_model->NumParameters() << " parameters, "
       << PrecisionName(PrecisionOf<S>()) << "), " << m_clients.size() << " clients, " << total
       << " training samples, " << m_test.Size() << " test samples; local SGD: batch "
       << cfg.batchSize << ", ";
    if (cfg.localEpochs > 0)
    {
        os << cfg.localEpochs << " epoch(s)";
    }
    else
    {
        os << cfg.localSteps << " step(s)";
    }
    os << ", " << (cfg.stepRule == StepRule::DividedBySteps ? "mu/E with mu=" : "lr ")
       << cfg.learningRate;
    return os.str();
}

template class SupervisedTask<double>;
template class SupervisedTask<float>;

namespace
{

template <typename S>
TrainOutcome
TrainWith(const SupervisedTask<S>& task,
          std::size_t client,
          const ParamVector& start,
          const LocalTrainerConfig& config,
          Rng& rng)
{
    const Dataset<S>& data = task.ClientData(client);
    const Vec<S>& w0 = start.Get<S>();
    const LocalTrainer<S> trainer(config); // validates the configuration
    LocalResult<S> r = trainer.Train(task.GetModel(), w0, data, rng);
    TrainOutcome out;
    out.params = ParamVector(std::move(r.params));
    out.steps = r.steps;
    out.samplesProcessed = r.samplesProcessed;
    out.meanLoss = r.meanLoss;
    out.flops = static_cast<double>(r.samplesProcessed) * task.GetModel().FlopsPerSample();
    return out;
}

} // namespace

TrainOutcome
TrainClientWith(const LearningTask& task,
                std::size_t client,
                const ParamVector& start,
                const LocalTrainerConfig& config,
                Rng& rng)
{
    if (const auto* d = dynamic_cast<const SupervisedTask<double>*>(&task))
    {
        return TrainWith(*d, client, start, config, rng);
    }
    if (const auto* f = dynamic_cast<const SupervisedTask<float>*>(&task))
    {
        return TrainWith(*f, client, start, config, rng);
    }
    throw ConfigError("task",
                      "is not a SupervisedTask, so its clients cannot be trained with another "
                      "trainer configuration",
                      "build the task as SupervisedTask<double> or SupervisedTask<float>");
}

bool
PlanClientWith(const LearningTask& task,
               std::size_t client,
               const LocalTrainerConfig& config,
               TrainingPlan& plan)
{
    if (const auto* d = dynamic_cast<const SupervisedTask<double>*>(&task))
    {
        plan = PlanTraining(config, d->ClientData(client).Size(), d->GetModel().FlopsPerSample());
        return true;
    }
    if (const auto* f = dynamic_cast<const SupervisedTask<float>*>(&task))
    {
        plan = PlanTraining(config, f->ClientData(client).Size(), f->GetModel().FlopsPerSample());
        return true;
    }
    return false;
}

} // namespace fl
} // namespace ns3

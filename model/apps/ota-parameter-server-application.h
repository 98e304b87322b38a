/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The centralized over-the-air parameter server of Seif, Tandon, Li (ISIT 2020), the baseline
 * of DWFL's Fig. 6: receives the analog sum of the workers' noisy clipped gradients on its
 * OtaPhy, updates the model and sends it back.
 */
#ifndef OTA_PARAMETER_SERVER_APPLICATION_H
#define OTA_PARAMETER_SERVER_APPLICATION_H

#include "ns3/dwfl-worker-application.h"
#include "ns3/fl-application-base.h"
#include "ns3/learning-task.h"
#include "ns3/ota-phy.h"

#include <memory>
#include <vector>

namespace ns3
{

/**
 * \ingroup fl-apps
 * Parameter server over the analog channel (Seif, Tandon, Li, ISIT 2020), a thin shell
 * around fl::OtaPsUpdate: the workers are DwflWorkerApplications with Transmission CentralizedPs
 * (they run the setup, the clipped step, the artificial noise and the aligned signal); in their
 * uplink slot this server's phy receives y = sum_k |h_k| s_k + m, the server applies
 * w <- w - gamma y / (c N) with the workers' c and the task's gamma, reports w (ModelReport, role
 * server) and sends w at full power in the next slot, the downlink. The workers take w at the end
 * of that slot, as decoded without error (the noiseless downlink of [11]); the slot's airtime is
 * simulated. Install with DwflHelper::InstallCentralized.
 */
class OtaParameterServerApplication : public FlApplicationBase
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    OtaParameterServerApplication();
    ~OtaParameterServerApplication() override;

    /// Sets the task and builds the initial model w^(0) (InitSeed). Throws fl::ConfigError
    /// unless the task is float64.
    void SetTask(std::shared_ptr<const fl::LearningTask> task);
    /// The N workers (CentralizedPs), in order. Done by DwflHelper::InstallCentralized.
    void SetWorkers(const std::vector<Ptr<DwflWorkerApplication>>& workers);
    /// The current model w.
    const fl::ParamVector& GetModel() const;
    /// Updates applied so far.
    uint32_t GetRoundsDone() const;

  protected:
    void DoDispose() override;

  private:
    void StartApplication() override;
    void StopApplication() override;
    /// Phy callback: the uplink sum of the current round.
    void Receive(const OtaReception& rx);

    uint64_t m_initSeed;
    std::shared_ptr<const fl::LearningTask> m_task;
    std::vector<Ptr<DwflWorkerApplication>> m_workers;
    Ptr<OtaPhy> m_phy;
    fl::ParamVector m_model;
    std::shared_ptr<fl::SymbolVector> m_downlink; ///< the model's symbols (reused when free)
    uint32_t m_round{0};
    bool m_running{false};
};

} // namespace ns3

#endif // OTA_PARAMETER_SERVER_APPLICATION_H

/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Radio energy of federated-learning clients with ns-3's energy framework, and the energy of a
 * local training step.
 */
#ifndef FL_ENERGY_HELPER_H
#define FL_ENERGY_HELPER_H

#include "ns3/basic-energy-source-helper.h"
#include "ns3/device-energy-model-container.h"
#include "ns3/energy-source-container.h"
#include "ns3/fl-ns3-compat.h"
#include "ns3/net-device-container.h"
#include "ns3/object-factory.h"
#include "ns3/simple-ref-count.h"
#include "ns3/wifi-radio-energy-model-helper.h"

#include <string>
#include <vector>

namespace ns3
{

struct FlScene;

/**
 * \ingroup fl
 * Measures the radio energy of FL clients with ns-3's energy framework: one BasicEnergySource
 * per client node and a WifiRadioEnergyModel on its Wi-Fi device. The model integrates
 * current x supply voltage over the time the PHY spends in each state (IDLE, CCA_BUSY, TX, RX,
 * SWITCHING, SLEEP), so the energy of a client is
 * V * sum over states of (state current x time in state).
 *
 * Which devices to pass:
 *  - Wi-Fi infrastructure BSS (FlWifiScenarioHelper) and Wi-Fi ad hoc (FlWifiAdhocSceneHelper):
 *    FlScene::devices holds the server's device first (for the BSS, the AP's: it hosts the
 *    server and is no client), so client i is devices.Get(i + 1); InstallWifi(scene) passes
 *    devices.Get(1..N);
 *  - CSMA, point-to-point and LTE scenes have no Wi-Fi radio: the meter does not apply.
 *
 * Install before Simulator::Run() (or at any time: energies count from the installation), read
 * the energies during or after the run, and before Simulator::Destroy(), which disposes the
 * energy sources.
 *
 * The sources are sized never to run out in a run (default 1e8 J: at 3 V and the ns-3 TX
 * current of 380 mA the low-battery threshold of 10 % is reached after about 7.9e7 s, some
 * 2.5 simulated years), so the radio never switches off because of the meter. The initial
 * energy is bounded above because ns-3's WifiRadioEnergyModel schedules a switch-off event
 * after remaining energy / (state current x voltage), which must fit in a Time (about 9.2e9 s at
 * the default nanosecond resolution; 1e9 J would put the SLEEP state's event, at 33 mA and 3 V,
 * 1e10 s ahead); InstallWifi checks that bound.
 *
 * Usage:
 * \code
 *   Ptr<FlRadioEnergyMeter> meter = Create<FlRadioEnergyMeter>();
 *   meter->SetRadioAttribute("TxCurrentA", DoubleValue(0.45));
 *   meter->InstallWifi(scene);
 *   Simulator::Run();
 *   double joules = meter->GetRadioEnergy(0);
 * \endcode
 */
class FlRadioEnergyMeter : public SimpleRefCount<FlRadioEnergyMeter>
{
  public:
    /// Default BasicEnergySourceInitialEnergyJ of the meter's sources [J].
    static constexpr double kDefaultInitialEnergyJ = 1e8;
    /// Default BasicEnergySupplyVoltageV of the meter's sources [V].
    static constexpr double kDefaultSupplyVoltageV = 3.0;

    FlRadioEnergyMeter();

    /**
     * Sets an attribute of every BasicEnergySource (e.g. "BasicEnergySupplyVoltageV",
     * "BasicEnergySourceInitialEnergyJ", "PeriodicEnergyUpdateInterval"). Defaults: 3.0 V and
     * kDefaultInitialEnergyJ; ns-3's defaults otherwise. Call before InstallWifi.
     */
    void SetSourceAttribute(const std::string& name, const AttributeValue& value);

    /**
     * Sets an attribute of every WifiRadioEnergyModel ("TxCurrentA", "RxCurrentA",
     * "IdleCurrentA", "CcaBusyCurrentA", "SwitchingCurrentA", "SleepCurrentA",
     * "TxCurrentModel"); ns-3's defaults otherwise (TX 380 mA, RX 313 mA, idle, CCA busy and
     * switching 273 mA, sleep 33 mA). Call before InstallWifi.
     */
    void SetRadioAttribute(const std::string& name, const AttributeValue& value);

    /**
     * Installs a source and a radio energy model per device: device i is client i. Every device
     * must be a WifiNetDevice with one PHY, each on a distinct node. Stops with a message naming
     * the problem and its fix on any other device, on a second call, on an empty container, or
     * when the sources' settings are out of range (supply voltage or initial energy <= 0, a state
     * current <= 0, a switch-off time beyond the range of Time).
     * @return the radio energy models, in device order
     */
    flenergy::DeviceEnergyModelContainer InstallWifi(const NetDeviceContainer& devices);

    /**
     * Installs on the clients of a Wi-Fi scene of FlWifiScenarioHelper or FlWifiAdhocSceneHelper:
     * scene.devices.Get(1), ..., scene.devices.Get(N) (device 0 is the server's). Stops on a
     * scene whose devices are not the server's then one per client, in order.
     */
    flenergy::DeviceEnergyModelContainer InstallWifi(const FlScene& scene);

    /// Number of clients measured (0 before InstallWifi).
    uint32_t GetN() const;

    /**
     * Energy consumed by client i's radio since the installation [J], up to the current
     * simulated time (WifiRadioEnergyModel::GetTotalEnergyConsumption adds the share of the
     * current state since its last change).
     */
    double GetRadioEnergy(uint32_t i) const;

    /// Sum of GetRadioEnergy over the clients [J].
    double GetTotalRadioEnergy() const;

    /// The energy sources, one per client, in client order.
    flenergy::EnergySourceContainer GetSources() const;

    /// The radio energy models, one per client, in client order.
    flenergy::DeviceEnergyModelContainer GetRadioModels() const;

  private:
    /// Stops with a message naming the method and attribute if the meter is installed.
    void StopIfInstalled(const char* method, const std::string& attribute) const;
    /// Stops unless sources and models of the current settings run without overflowing Time.
    void CheckSettings() const;

    BasicEnergySourceHelper m_sourceHelper;   ///< creates the sources
    WifiRadioEnergyModelHelper m_radioHelper; ///< creates the radio energy models
    ObjectFactory m_sourceProbe;              ///< the sources' settings, for CheckSettings
    ObjectFactory m_radioProbe;               ///< the models' settings, for CheckSettings
    flenergy::EnergySourceContainer m_sources;          ///< one per client
    flenergy::DeviceEnergyModelContainer m_models;      ///< one per client
    std::vector<double> m_baselineJ;          ///< model's total energy at installation [J]
    bool m_installed;                         ///< InstallWifi was called
};

/**
 * \ingroup fl
 * Energy of a step at constant power, e.g. local training on a client's processor:
 * power [W] x time [s] = energy [J]. Pure.
 * @param powerW the power drawn [W], finite and >= 0
 * @param seconds the duration [s], finite and >= 0
 * @return the energy [J]
 * @throws fl::ConfigError naming the parameter ("powerW" or "seconds") if it is negative or not
 *         finite
 */
double ComputeEnergyJoules(double powerW, double seconds);

} // namespace ns3

#endif // FL_ENERGY_HELPER_H

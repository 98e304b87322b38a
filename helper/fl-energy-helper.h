/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Radio energy of federated-learning clients (the PHY's states integrated, as ns-3's Wi-Fi radio
 * energy model does), and the energy of a local training step.
 */
#ifndef FL_ENERGY_HELPER_H
#define FL_ENERGY_HELPER_H

#include "ns3/fl-ns3-compat.h"
#include "ns3/net-device-container.h"
#include "ns3/object-factory.h"
#include "ns3/simple-ref-count.h"
#include "ns3/wifi-phy.h"

#include <memory>
#include <string>
#include <vector>

namespace ns3
{

struct FlScene;

class FlRadioEnergyListener;

/**
 * \ingroup fl-helper
 * Measures the radio energy of FL clients: per client Wi-Fi device, the integral of supply
 * voltage x state current over the time its PHY spends in each state (IDLE, CCA_BUSY, TX, RX,
 * SWITCHING, SLEEP; OFF draws nothing), so the energy of a client is
 * V * sum over states of (state current x time in state).
 *
 * It follows the PHY exactly as ns-3's WifiRadioEnergyModel does (a WifiPhyListener with the
 * same state changes at the same times, the same currents, defaults and TxCurrentModel; tested
 * against it to 1e-9), but without an energy source: ns-3's model re-schedules an energy-depletion
 * event far in the future at every state change, and since ns-3 cancels events lazily, the
 * cancelled events of every frame a station hears pile up in the scheduler for the rest of the
 * run (about N^2 per round in a cell of N stations). The meter schedules nothing but the
 * listener's short return to IDLE after a transmission or a busy channel, so its memory does not
 * grow with the run.
 *
 * Which devices to pass:
 *  - Wi-Fi infrastructure BSS (FlWifiScenarioHelper) and Wi-Fi ad hoc (FlWifiAdhocSceneHelper):
 *    FlScene::devices holds the server's device first (for the BSS, the AP's: it hosts the
 *    server and is no client), so client i is devices.Get(i + 1); InstallWifi(scene) passes
 *    devices.Get(1..N);
 *  - Wi-Fi ESS (FlWifiEssSceneHelper): devices holds the A APs' devices first (on the AP
 *    nodes, no clients), then the clients' stations': InstallWifi(scene) passes the last N,
 *    the stations' radios (the APs and the wired server are not measured);
 *  - CSMA, point-to-point and LTE scenes have no Wi-Fi radio: the meter does not apply.
 *
 * Install before Simulator::Run() (or at any time: energies count from the installation), read
 * the energies during or after the run, and before Simulator::Destroy(). Keep the meter until
 * Simulator::Destroy() (the PHYs notify its listeners).
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
    /// Default supply voltage [V].
    static constexpr double kDefaultSupplyVoltageV = 3.0;

    FlRadioEnergyMeter();
    ~FlRadioEnergyMeter();

    /**
     * Sets the supply voltage: "BasicEnergySupplyVoltageV" (the name of ns-3's
     * BasicEnergySource attribute; default kDefaultSupplyVoltageV). The meter has no battery:
     * any other name stops with a message that says so. Call before InstallWifi.
     */
    void SetSourceAttribute(const std::string& name, const AttributeValue& value);

    /**
     * Sets a current of ns-3's WifiRadioEnergyModel ("TxCurrentA", "RxCurrentA",
     * "IdleCurrentA", "CcaBusyCurrentA", "SwitchingCurrentA", "SleepCurrentA",
     * "TxCurrentModel"); ns-3's defaults otherwise (TX 380 mA, RX 313 mA, idle, CCA busy and
     * switching 273 mA, sleep 33 mA). Call before InstallWifi.
     */
    void SetRadioAttribute(const std::string& name, const AttributeValue& value);

    /**
     * Starts measuring every device: device i is client i. Every device must be a
     * WifiNetDevice with one PHY, each on a distinct node. Stops with a message naming the
     * problem and its fix on any other device, on a second call, on an empty container, or when
     * the settings are out of range (supply voltage or a state current not finite and > 0).
     */
    void InstallWifi(const NetDeviceContainer& devices);

    /**
     * Installs on the clients of a Wi-Fi scene of FlWifiScenarioHelper, FlWifiAdhocSceneHelper
     * or FlWifiEssSceneHelper: the last N of scene.devices, the clients' own (before them the
     * server's device, or the ESS's APs'). Stops on a scene whose devices do not end with one
     * per client, in order, after at least one other.
     */
    void InstallWifi(const FlScene& scene);

    /// Number of clients measured (0 before InstallWifi).
    uint32_t GetN() const;

    /// Energy consumed by client i's radio since the installation [J], up to the current
    /// simulated time (the current state's share since its last change included).
    double GetRadioEnergy(uint32_t i) const;

    /// Sum of GetRadioEnergy over the clients [J].
    double GetTotalRadioEnergy() const;

  private:
    /// Stops with a message naming the method and attribute if the meter is installed.
    void StopIfInstalled(const char* method, const std::string& attribute) const;

    double m_volts{kDefaultSupplyVoltageV};   ///< supply voltage [V]
    ObjectFactory m_radioProbe;               ///< the currents' settings (WifiRadioEnergyModel)
    std::vector<std::shared_ptr<FlRadioEnergyListener>> m_listeners; ///< one per client
    std::vector<Ptr<WifiPhy>> m_phys;         ///< the PHYs listened to
    bool m_installed{false};                  ///< InstallWifi was called
};

/**
 * \ingroup fl-helper
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

/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/fl-energy-helper.h"

#include "ns3/basic-energy-source.h"
#include "ns3/double.h"
#include "ns3/fl-network-scenarios.h"
#include "ns3/fl-types.h"
#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/simulator.h"
#include "ns3/wifi-net-device.h"
#include "ns3/wifi-radio-energy-model.h"

#include <cmath>
#include <set>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlEnergyHelper");

FlRadioEnergyMeter::FlRadioEnergyMeter()
    : m_installed(false)
{
    m_sourceProbe.SetTypeId(flenergy::BasicEnergySource::GetTypeId());
    m_radioProbe.SetTypeId(WifiRadioEnergyModel::GetTypeId());
    SetSourceAttribute("BasicEnergySupplyVoltageV", DoubleValue(kDefaultSupplyVoltageV));
    SetSourceAttribute("BasicEnergySourceInitialEnergyJ", DoubleValue(kDefaultInitialEnergyJ));
}

void
FlRadioEnergyMeter::SetSourceAttribute(const std::string& name, const AttributeValue& value)
{
    StopIfInstalled("SetSourceAttribute", name);
    m_sourceHelper.Set(name, value);
    m_sourceProbe.Set(name, value);
}

void
FlRadioEnergyMeter::SetRadioAttribute(const std::string& name, const AttributeValue& value)
{
    StopIfInstalled("SetRadioAttribute", name);
    m_radioHelper.Set(name, value);
    m_radioProbe.Set(name, value);
}

void
FlRadioEnergyMeter::StopIfInstalled(const char* method, const std::string& attribute) const
{
    if (m_installed)
    {
        NS_FATAL_ERROR("FlRadioEnergyMeter::" << method << "(" << attribute
                                              << "): the meter is already installed, the "
                                                 "attribute would not apply; set the "
                                                 "attributes before InstallWifi");
    }
}

flenergy::DeviceEnergyModelContainer
FlRadioEnergyMeter::InstallWifi(const NetDeviceContainer& devices)
{
    if (m_installed)
    {
        NS_FATAL_ERROR("FlRadioEnergyMeter::InstallWifi: called a second time; a meter installs "
                       "once: pass every client's device in one call, or use another "
                       "FlRadioEnergyMeter");
    }
    if (devices.GetN() == 0)
    {
        NS_FATAL_ERROR("FlRadioEnergyMeter::InstallWifi: no devices; pass the clients' Wi-Fi "
                       "devices (FlScene::devices.Get(1..N) of a Wi-Fi scene)");
    }
    // Check every device before installing anything.
    std::set<uint32_t> nodes;
    for (uint32_t i = 0; i < devices.GetN(); ++i)
    {
        Ptr<NetDevice> dev = devices.Get(i);
        if (!dev)
        {
            NS_FATAL_ERROR("FlRadioEnergyMeter::InstallWifi: device " << i
                                                                      << " is null; pass the "
                                                                         "clients' Wi-Fi devices");
        }
        const std::string type = dev->GetInstanceTypeId().GetName();
        if (type != "ns3::WifiNetDevice")
        {
            NS_FATAL_ERROR("FlRadioEnergyMeter::InstallWifi: device "
                           << i << " is a " << type
                           << ", not a WifiNetDevice; the meter measures Wi-Fi radios only: pass "
                              "FlScene::devices.Get(1..N) of a Wi-Fi scene (FlWifiScenarioHelper, "
                              "FlWifiAdhocSceneHelper)");
        }
        Ptr<WifiNetDevice> wifi = DynamicCast<WifiNetDevice>(dev);
        if (FlWifiPhyCount(wifi) != 1)
        {
            NS_FATAL_ERROR("FlRadioEnergyMeter::InstallWifi: device "
                           << i << " has " << FlWifiPhyCount(wifi)
                           << " PHYs (multi-link); the meter models one radio per device: use "
                              "single-link devices");
        }
        Ptr<Node> node = dev->GetNode();
        if (!node)
        {
            NS_FATAL_ERROR("FlRadioEnergyMeter::InstallWifi: device "
                           << i << " is on no node; install the devices on nodes first");
        }
        if (!nodes.insert(node->GetId()).second)
        {
            NS_FATAL_ERROR("FlRadioEnergyMeter::InstallWifi: device "
                           << i << " is on node " << node->GetId()
                           << ", which another device already uses; pass one Wi-Fi device per "
                              "client node");
        }
    }

    CheckSettings();

    m_installed = true;
    for (uint32_t i = 0; i < devices.GetN(); ++i)
    {
        Ptr<NetDevice> dev = devices.Get(i);
        flenergy::EnergySourceContainer source = m_sourceHelper.Install(dev->GetNode());
        flenergy::DeviceEnergyModelContainer model = m_radioHelper.Install(dev, source.Get(0));
        m_sources.Add(source);
        m_models.Add(model);
    }
    // The model counts from time 0 (in IDLE); energies count from now.
    m_baselineJ.clear();
    for (uint32_t i = 0; i < m_models.GetN(); ++i)
    {
        m_baselineJ.push_back(m_models.Get(i)->GetTotalEnergyConsumption());
    }
    NS_LOG_INFO("radio energy meter on " << devices.GetN() << " Wi-Fi devices at "
                                         << Simulator::Now().As(Time::S));
    return m_models;
}

flenergy::DeviceEnergyModelContainer
FlRadioEnergyMeter::InstallWifi(const FlScene& scene)
{
    const uint32_t n = scene.clients.GetN();
    bool serverThenClients = scene.devices.GetN() == n + 1 && n > 0;
    for (uint32_t i = 0; serverThenClients && i < n; ++i)
    {
        Ptr<NetDevice> dev = scene.devices.Get(i + 1);
        serverThenClients = dev && dev->GetNode() == scene.clients.Get(i);
    }
    if (!serverThenClients)
    {
        NS_FATAL_ERROR("FlRadioEnergyMeter::InstallWifi(FlScene): the scene's "
                       << scene.devices.GetN() << " devices are not the server's followed by one "
                       << "per client (" << n
                       << " clients); pass a scene of FlWifiScenarioHelper or "
                          "FlWifiAdhocSceneHelper, or the clients' Wi-Fi devices as a "
                          "NetDeviceContainer");
    }
    NetDeviceContainer clients;
    for (uint32_t i = 1; i <= n; ++i)
    {
        clients.Add(scene.devices.Get(i));
    }
    return InstallWifi(clients);
}

void
FlRadioEnergyMeter::CheckSettings() const
{
    // Objects of the current settings, never installed.
    Ptr<flenergy::BasicEnergySource> source = m_sourceProbe.Create<flenergy::BasicEnergySource>();
    Ptr<WifiRadioEnergyModel> model = m_radioProbe.Create<WifiRadioEnergyModel>();
    const double v = source->GetSupplyVoltage();
    const double e0 = source->GetInitialEnergy();
    if (!(std::isfinite(v) && v > 0.0))
    {
        NS_FATAL_ERROR("FlRadioEnergyMeter: BasicEnergySupplyVoltageV is "
                       << v << " V; use a finite voltage > 0 (default " << kDefaultSupplyVoltageV
                       << " V)");
    }
    if (!(std::isfinite(e0) && e0 > 0.0))
    {
        NS_FATAL_ERROR("FlRadioEnergyMeter: BasicEnergySourceInitialEnergyJ is "
                       << e0 << " J; use a finite energy > 0 (default " << kDefaultInitialEnergyJ
                       << " J)");
    }
    // ns-3's WifiRadioEnergyModel schedules its switch-off event after
    // remaining energy / (state current x voltage): that delay must be a valid Time.
    const double maxDelayS = 0.5 * Time::Max().GetSeconds();
    const std::pair<const char*, double> currents[] = {
        {"IdleCurrentA", model->GetIdleCurrentA()},
        {"CcaBusyCurrentA", model->GetCcaBusyCurrentA()},
        {"TxCurrentA", model->GetTxCurrentA()},
        {"RxCurrentA", model->GetRxCurrentA()},
        {"SwitchingCurrentA", model->GetSwitchingCurrentA()},
        {"SleepCurrentA", model->GetSleepCurrentA()},
    };
    for (const auto& [name, current] : currents)
    {
        if (!(std::isfinite(current) && current > 0.0))
        {
            NS_FATAL_ERROR("FlRadioEnergyMeter: radio "
                           << name << " is " << current
                           << " A; ns-3's WifiRadioEnergyModel divides the remaining energy by "
                              "every state current: use a finite current > 0");
        }
        const double delayS = e0 / (current * v);
        if (!(delayS < maxDelayS))
        {
            NS_FATAL_ERROR("FlRadioEnergyMeter: initial energy "
                           << e0 << " J at " << v << " V and " << name << " " << current
                           << " A gives a switch-off time of " << delayS
                           << " s, beyond the range of ns-3's Time (" << maxDelayS
                           << " s); lower BasicEnergySourceInitialEnergyJ to at most "
                           << maxDelayS * current * v << " J or raise " << name);
        }
    }
}

uint32_t
FlRadioEnergyMeter::GetN() const
{
    return m_models.GetN();
}

double
FlRadioEnergyMeter::GetRadioEnergy(uint32_t i) const
{
    if (i >= m_models.GetN())
    {
        NS_FATAL_ERROR("FlRadioEnergyMeter::GetRadioEnergy: client "
                       << i << " does not exist; the meter has " << m_models.GetN()
                       << " clients (install it first)");
    }
    // Simulator::Destroy disposes the sources (their node is reset) and the models.
    if (!m_sources.Get(i)->GetNode())
    {
        NS_FATAL_ERROR("FlRadioEnergyMeter::GetRadioEnergy: the energy sources are disposed; "
                       "read the energies before Simulator::Destroy()");
    }
    return m_models.Get(i)->GetTotalEnergyConsumption() - m_baselineJ[i];
}

double
FlRadioEnergyMeter::GetTotalRadioEnergy() const
{
    double sum = 0.0;
    for (uint32_t i = 0; i < m_models.GetN(); ++i)
    {
        sum += GetRadioEnergy(i);
    }
    return sum;
}

flenergy::EnergySourceContainer
FlRadioEnergyMeter::GetSources() const
{
    return m_sources;
}

flenergy::DeviceEnergyModelContainer
FlRadioEnergyMeter::GetRadioModels() const
{
    return m_models;
}

double
ComputeEnergyJoules(double powerW, double seconds)
{
    if (!(std::isfinite(powerW) && powerW >= 0.0))
    {
        std::ostringstream os;
        os << powerW << " W is negative or not finite";
        throw fl::ConfigError("powerW", os.str(), "use a finite power >= 0 W");
    }
    if (!(std::isfinite(seconds) && seconds >= 0.0))
    {
        std::ostringstream os;
        os << seconds << " s is negative or not finite";
        throw fl::ConfigError("seconds", os.str(), "use a finite duration >= 0 s");
    }
    return powerW * seconds;
}

} // namespace ns3

/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/fl-energy-helper.h"

#include "ns3/double.h"
#include "ns3/pointer.h"
#include "ns3/fl-network-scenarios.h"
#include "ns3/fl-types.h"
#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/simulator.h"
#include "ns3/wifi-net-device.h"
#include "ns3/wifi-phy-listener.h"
#include "ns3/wifi-radio-energy-model.h"
#include "ns3/wifi-tx-current-model.h"

#include <cmath>
#include <set>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlEnergyHelper");

namespace
{
/// The index of a PHY state (an enum class in recent ns-3 releases, a plain enum before).
std::size_t
PhyStateIndex(WifiPhyState state)
{
    return static_cast<std::size_t>(state);
}
} // namespace

/**
 * One client's radio: the PHY state changes of ns-3's WifiRadioEnergyModelPhyListener (the same
 * notifications, the same scheduled return to IDLE after TX, CCA_BUSY and SWITCHING), each
 * closing the time spent in the previous state at its current. Nothing else is scheduled.
 */
class FlRadioEnergyListener : public WifiPhyListener,
                              public std::enable_shared_from_this<FlRadioEnergyListener>
{
  public:
    /// The state currents [A] (index: WifiPhyState), the TX current model (may be null), [V].
    FlRadioEnergyListener(const std::vector<double>& currents,
                          Ptr<WifiTxCurrentModel> txModel,
                          double volts)
        : m_currents(currents),
          m_txModel(txModel),
          m_volts(volts),
          m_last(Simulator::Now())
    {
    }

    ~FlRadioEnergyListener() override
    {
        m_toIdle.Cancel();
    }

    void NotifyRxStart(Time /* duration */) override
    {
        Change(WifiPhyState::RX);
        m_toIdle.Cancel();
    }

    void NotifyRxEndOk() override
    {
        Change(WifiPhyState::IDLE);
    }

#if FL_NS3_VERSION >= 345
    void NotifyRxEndError(const WifiTxVector& /* txVector */) override
#else
    void NotifyRxEndError() override
#endif
    {
        Change(WifiPhyState::IDLE);
    }

    void NotifyTxStart(Time duration, double txPowerDbm) override
    {
        if (m_txModel)
        {
            m_currents[PhyStateIndex(WifiPhyState::TX)] = m_txModel->CalcTxCurrent(txPowerDbm);
        }
        Change(WifiPhyState::TX);
        IdleAfter(duration);
    }

#if FL_NS3_VERSION >= 336
    void NotifyCcaBusyStart(Time duration,
                            WifiChannelListType /* channelType */,
                            const std::vector<Time>& /* per20MhzDurations */) override
#else
    void NotifyMaybeCcaBusyStart(Time duration) override
#endif
    {
        Change(WifiPhyState::CCA_BUSY);
        IdleAfter(duration);
    }

    void NotifySwitchingStart(Time duration) override
    {
        Change(WifiPhyState::SWITCHING);
        IdleAfter(duration);
    }

    void NotifySleep() override
    {
        Change(WifiPhyState::SLEEP);
        m_toIdle.Cancel();
    }

    void NotifyOff() override
    {
        Change(WifiPhyState::OFF);
        m_toIdle.Cancel();
    }

    void NotifyWakeup() override
    {
        Change(WifiPhyState::IDLE);
    }

    void NotifyOn() override
    {
        Change(WifiPhyState::IDLE);
    }

    /// Energy since the listener was created [J], the current state's share included.
    double EnergyJ() const
    {
        return m_totalJ + (Simulator::Now() - m_last).GetSeconds() * m_currents[PhyStateIndex(m_state)] * m_volts;
    }

  private:
    /// Closes the time in the current state (as WifiRadioEnergyModel::ChangeState) and enters
    /// `state`.
    void Change(WifiPhyState state)
    {
        const Time now = Simulator::Now();
        m_totalJ += (now - m_last).GetSeconds() * m_currents[PhyStateIndex(m_state)] * m_volts;
        m_last = now;
        m_state = state;
    }

    /// Back to IDLE after `duration`, unless another notification comes first.
    void IdleAfter(Time duration)
    {
        m_toIdle.Cancel();
        std::weak_ptr<FlRadioEnergyListener> self = weak_from_this();
        m_toIdle = FlSchedule(duration, [self]() {
            if (auto listener = self.lock())
            {
                listener->Change(WifiPhyState::IDLE);
            }
        });
    }

    std::vector<double> m_currents;    ///< current per state [A] (TX from the model if set)
    Ptr<WifiTxCurrentModel> m_txModel; ///< TX current from the TX power (null: TxCurrentA)
    double m_volts;                    ///< supply voltage [V]
    WifiPhyState m_state{WifiPhyState::IDLE}; ///< current state
    Time m_last;                              ///< when the current state began
    double m_totalJ{0.0};                     ///< energy of the closed states [J]
    EventId m_toIdle;                         ///< the scheduled return to IDLE
};

namespace
{
/// Listeners registered with ns-3 releases whose PHYs hold raw pointers (before 3.41): kept
/// alive for the process, since a PHY may outlive the meter.
std::vector<std::shared_ptr<FlRadioEnergyListener>>&
RawListenerKeeper()
{
    static std::vector<std::shared_ptr<FlRadioEnergyListener>> keep;
    return keep;
}
} // namespace

FlRadioEnergyMeter::FlRadioEnergyMeter()
{
    m_radioProbe.SetTypeId(WifiRadioEnergyModel::GetTypeId());
}

FlRadioEnergyMeter::~FlRadioEnergyMeter() = default;

void
FlRadioEnergyMeter::SetSourceAttribute(const std::string& name, const AttributeValue& value)
{
    StopIfInstalled("SetSourceAttribute", name);
    if (name != "BasicEnergySupplyVoltageV")
    {
        NS_FATAL_ERROR("FlRadioEnergyMeter::SetSourceAttribute(" << name
                                                                 << "): the meter integrates the "
                                                                    "radio's current and has no "
                                                                    "battery; only "
                                                                    "BasicEnergySupplyVoltageV "
                                                                    "applies");
    }
    const auto* volts = dynamic_cast<const DoubleValue*>(&value);
    if (!volts || !(std::isfinite(volts->Get()) && volts->Get() > 0.0))
    {
        NS_FATAL_ERROR("FlRadioEnergyMeter: BasicEnergySupplyVoltageV is "
                       << (volts ? volts->Get() : std::nan(""))
                       << " V; use a finite voltage > 0 (a DoubleValue, default "
                       << kDefaultSupplyVoltageV << " V)");
    }
    m_volts = volts->Get();
}

void
FlRadioEnergyMeter::SetRadioAttribute(const std::string& name, const AttributeValue& value)
{
    StopIfInstalled("SetRadioAttribute", name);
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

void
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

    // The currents as ns-3's model reads them (its defaults and checkers), indexed by state.
    Ptr<WifiRadioEnergyModel> probe = m_radioProbe.Create<WifiRadioEnergyModel>();
    std::vector<double> currents(PhyStateIndex(WifiPhyState::OFF) + 1, 0.0);
    const std::pair<const char*, WifiPhyState> states[] = {
        {"IdleCurrentA", WifiPhyState::IDLE},
        {"CcaBusyCurrentA", WifiPhyState::CCA_BUSY},
        {"TxCurrentA", WifiPhyState::TX},
        {"RxCurrentA", WifiPhyState::RX},
        {"SwitchingCurrentA", WifiPhyState::SWITCHING},
        {"SleepCurrentA", WifiPhyState::SLEEP},
    };
    for (const auto& [name, state] : states)
    {
        DoubleValue current;
        probe->GetAttribute(name, current);
        if (!(std::isfinite(current.Get()) && current.Get() > 0.0))
        {
            NS_FATAL_ERROR("FlRadioEnergyMeter: radio " << name << " is " << current.Get()
                                                        << " A; use a finite current > 0");
        }
        currents[PhyStateIndex(state)] = current.Get();
    }
    PointerValue txModel;
    probe->GetAttribute("TxCurrentModel", txModel);
    probe->Dispose();

    m_installed = true;
    for (uint32_t i = 0; i < devices.GetN(); ++i)
    {
        Ptr<WifiNetDevice> wifi = DynamicCast<WifiNetDevice>(devices.Get(i));
        Ptr<WifiPhy> phy = wifi->GetPhy();
        auto listener = std::make_shared<FlRadioEnergyListener>(currents,
                                                                txModel.Get<WifiTxCurrentModel>(),
                                                                m_volts);
#if FL_NS3_VERSION >= 341
        phy->RegisterListener(listener);
#else
        RawListenerKeeper().push_back(listener);
        phy->RegisterListener(listener.get());
#endif
        m_listeners.push_back(listener);
        m_phys.push_back(phy);
    }
    NS_LOG_INFO("radio energy meter on " << devices.GetN() << " Wi-Fi devices at "
                                         << Simulator::Now().As(Time::S));
}

void
FlRadioEnergyMeter::InstallWifi(const FlScene& scene)
{
    const uint32_t n = scene.clients.GetN();
    // the server's device (ESS: the APs' devices), then one per client: the last n
    const uint32_t first = scene.devices.GetN() > n ? scene.devices.GetN() - n : 0;
    bool serverThenClients = first > 0 && n > 0;
    for (uint32_t i = 0; serverThenClients && i < n; ++i)
    {
        Ptr<NetDevice> dev = scene.devices.Get(first + i);
        serverThenClients = dev && dev->GetNode() == scene.clients.Get(i);
    }
    if (!serverThenClients)
    {
        NS_FATAL_ERROR("FlRadioEnergyMeter::InstallWifi(FlScene): the scene's "
                       << scene.devices.GetN() << " devices are not the server's (or the access "
                       << "points') followed by one per client (" << n
                       << " clients); pass a scene of FlWifiScenarioHelper, FlWifiEssSceneHelper "
                          "or FlWifiAdhocSceneHelper, or the clients' Wi-Fi devices as a "
                          "NetDeviceContainer");
    }
    NetDeviceContainer clients;
    for (uint32_t i = 0; i < n; ++i)
    {
        clients.Add(scene.devices.Get(first + i));
    }
    InstallWifi(clients);
}

uint32_t
FlRadioEnergyMeter::GetN() const
{
    return static_cast<uint32_t>(m_listeners.size());
}

double
FlRadioEnergyMeter::GetRadioEnergy(uint32_t i) const
{
    if (i >= m_listeners.size())
    {
        NS_FATAL_ERROR("FlRadioEnergyMeter::GetRadioEnergy: client "
                       << i << " does not exist; the meter has " << m_listeners.size()
                       << " clients (install it first)");
    }
    return m_listeners[i]->EnergyJ();
}

double
FlRadioEnergyMeter::GetTotalRadioEnergy() const
{
    double sum = 0.0;
    for (uint32_t i = 0; i < m_listeners.size(); ++i)
    {
        sum += GetRadioEnergy(i);
    }
    return sum;
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

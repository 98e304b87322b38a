/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The one place where the fl module adapts to the ns-3 release it is built against.
 *
 * FL_NS3_VERSION is the ns-3 release as major * 100 + minor (3.35 -> 335, 3.37 -> 337,
 * 3.48 -> 348; a development tree "3-dev" -> 399). Every build route defines it for every
 * translation unit that includes an fl header: CMakeLists.txt (standalone: from the installed
 * ns3 package; in a source tree: from ns-3's VERSION file) as a PUBLIC compile definition of
 * libns3-fl, the installed CMake package (fl::fl) and fl.pc, and the wscript (waf trees).
 *
 * Nothing else in the module tests the ns-3 version: code calls the names below. When a new
 * ns-3 release breaks an API, add the shim here (with the release that changed it) and use it.
 *
 *   ns-3 change (release)                            | shim
 *   -------------------------------------------------+-------------------------------------------
 *   energy classes moved to ns3::energy (3.42)       | flenergy::BasicEnergySource, ...
 *   EventId::IsRunning -> IsPending (3.42)           | FlIsPending(event)
 *   EnumValue<T>, MakeEnumAccessor<T> (3.41)         | FlEnumValue<T>, FlMakeEnumAccessor(&C::m)
 *   Callback from a lambda, Simulator::Schedule of   | FlCallback<R, Args...>(lambda),
 *     a lambda (3.36)                                | FlSchedule(delay, lambda)
 *   CommandLine callbacks take const std::string&    | FlStringCallback,
 *     (3.38)                                         | FlMakeStringCallback(lambda)
 *   WIFI_STANDARD_80211n_5GHZ -> WIFI_STANDARD_80211n | FL_WIFI_STANDARD_80211N, ..._80211AX,
 *     + ChannelSettings (3.36)                       | FlSetWifiChannel(phy, "{36, 20, ...}")
 *   WifiNetDevice::GetNPhys (3.37)                   | FlWifiPhyCount(device)
 *   simultaneous association requests (before 3.37)  | FlAssociationStagger(station)
 *   TestSuite::Type, TestCase::Duration (3.42)       | FL_TEST_SUITE_UNIT, FL_TEST_CASE_QUICK
 *
 * A pure layer (model/learning, algorithms, privacy, net) never includes this header.
 */
#ifndef FL_NS3_COMPAT_H
#define FL_NS3_COMPAT_H

#ifndef FL_NS3_VERSION
#error "FL_NS3_VERSION is not defined: build against libns3-fl through CMake (fl::fl, ns3::libfl), pkg-config (fl.pc) or ns-3's build system, or add -DFL_NS3_VERSION=<major*100+minor> (e.g. 337 for ns-3.37)"
#endif

#include "ns3/callback.h"
#include "ns3/enum.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"
#include "ns3/simple-ref-count.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

#include <string>
#include <utility>

namespace ns3
{

// ------------------------------------------------------------------------------ energy framework
#if FL_NS3_VERSION >= 342
namespace energy
{
}

/// The namespace of ns-3's energy framework classes (ns3::energy since ns-3.42, ns3 before).
namespace flenergy = ::ns3::energy;
#else
/// The namespace of ns-3's energy framework classes (ns3::energy since ns-3.42, ns3 before).
namespace flenergy = ::ns3;
#endif

// ------------------------------------------------------------------------------ events
/**
 * True if the event is scheduled and has neither run nor been cancelled
 * (EventId::IsPending since ns-3.42, EventId::IsRunning before).
 * @param event the event
 * @return whether it is pending
 */
inline bool
FlIsPending(const EventId& event)
{
#if FL_NS3_VERSION >= 342
    return event.IsPending();
#else
    return event.IsRunning();
#endif
}

// ------------------------------------------------------------------------------ enum attributes
#if FL_NS3_VERSION >= 341
/// The attribute value of an enum attribute of type T (EnumValue<T> since ns-3.41).
template <typename T>
using FlEnumValue = EnumValue<T>;
#else
/// The attribute value of an enum attribute of type T (EnumValue<T> since ns-3.41).
template <typename T>
using FlEnumValue = EnumValue;
#endif

/**
 * The accessor of an enum attribute held in a data member
 * (MakeEnumAccessor<T>(&C::m) since ns-3.41, MakeEnumAccessor(&C::m) before).
 * @param member the data member
 * @return the accessor
 */
template <typename C, typename T>
Ptr<const AttributeAccessor>
FlMakeEnumAccessor(T C::*member)
{
#if FL_NS3_VERSION >= 341
    return MakeEnumAccessor<T>(member);
#else
    return MakeEnumAccessor(member);
#endif
}

// ------------------------------------------------------------------------------ callbacks, events
#if FL_NS3_VERSION < 336
/// ns-3.35: a function object held by a ref-counted object, so a Callback can call a lambda.
template <typename F, typename R, typename... Args>
struct FlFunctorHolder : public SimpleRefCount<FlFunctorHolder<F, R, Args...>>
{
    /// @param fn the function object
    explicit FlFunctorHolder(F fn)
        : f(std::move(fn))
    {
    }

    /// Calls the function object.
    R Call(Args... args)
    {
        return f(args...);
    }

    F f; //!< the function object
};
#endif

/**
 * A Callback<R, Args...> that calls a function object, e.g. a lambda (a Callback is built from
 * a lambda directly since ns-3.36; ns-3.35 calls it through a member function).
 * @param f the function object
 * @return the callback
 */
template <typename R, typename... Args, typename F>
Callback<R, Args...>
FlCallback(F f)
{
#if FL_NS3_VERSION >= 336
    return Callback<R, Args...>(std::move(f));
#else
    return MakeCallback(&FlFunctorHolder<F, R, Args...>::Call,
                        Create<FlFunctorHolder<F, R, Args...>>(std::move(f)));
#endif
}

/**
 * Schedules a function object, e.g. a lambda, after a delay (Simulator::Schedule takes one
 * since ns-3.36; ns-3.35 calls it through a member function).
 * @param delay the delay
 * @param f the function object, callable without arguments
 * @return the event
 */
template <typename F>
EventId
FlSchedule(const Time& delay, F f)
{
#if FL_NS3_VERSION >= 336
    return Simulator::Schedule(delay, std::move(f));
#else
    return Simulator::Schedule(delay,
                               &FlFunctorHolder<F, void>::Call,
                               Create<FlFunctorHolder<F, void>>(std::move(f)));
#endif
}

// ------------------------------------------------------------------------------ command line
#if FL_NS3_VERSION >= 338
/// The callback type of CommandLine::AddValue(name, help, callback, default).
using FlStringCallback = Callback<bool, const std::string&>;
#else
/// The callback type of CommandLine::AddValue(name, help, callback, default).
using FlStringCallback = Callback<bool, std::string>;
#endif

/**
 * A FlStringCallback that calls a function object.
 * @param f the function object, callable with a const std::string& and returning bool
 * @return the callback
 */
template <typename F>
FlStringCallback
FlMakeStringCallback(F f)
{
#if FL_NS3_VERSION >= 338
    return FlCallback<bool, const std::string&>(std::move(f));
#else
    return FlCallback<bool, std::string>(std::move(f));
#endif
}

// ------------------------------------------------------------------------------ Wi-Fi
// Standards with a band in their name (ns-3.35: WIFI_STANDARD_80211n_5GHZ) became a standard
// plus the PHY attribute ChannelSettings "{number, width, band, primary20}" (ns-3.36).
#if FL_NS3_VERSION >= 336
#define FL_WIFI_STANDARD_80211N ::ns3::WIFI_STANDARD_80211n
#define FL_WIFI_STANDARD_80211AX ::ns3::WIFI_STANDARD_80211ax
#else
#define FL_WIFI_STANDARD_80211N ::ns3::WIFI_STANDARD_80211n_5GHZ
#define FL_WIFI_STANDARD_80211AX ::ns3::WIFI_STANDARD_80211ax_5GHZ
#endif

/**
 * Sets a Wi-Fi PHY helper's operating channel, "{number, width MHz, band, primary20}"
 * (attribute ChannelSettings since ns-3.36). ns-3.35 has no such attribute: there the standard's
 * default channel applies, which for every standard fl offers is the one fl asks for
 * (802.11a/n: 36 at 20 MHz; 802.11g: 1; 802.11ac/ax: 42 at 80 MHz).
 * @param phy the PHY helper (YansWifiPhyHelper, SpectrumWifiPhyHelper)
 * @param settings the channel settings
 */
template <typename PhyHelper>
void
FlSetWifiChannel(PhyHelper& phy, const std::string& settings)
{
#if FL_NS3_VERSION >= 336
    phy.Set("ChannelSettings", StringValue(settings));
#else
    (void)phy;
    (void)settings;
#endif
}

/**
 * Extra passive-scan time of the station'th station of a BSS (StaWifiMac attribute
 * WaitBeaconTimeout, ns-3's default 120 ms + this). Before ns-3.37 every station ends its scan at
 * the same instant and all association requests contend at once; with 9 or more stations ns-3.35's
 * AP could be left ignoring a station that believed it was associated (its frames dropped, the FL
 * server waiting for its Join forever). 5 ms per station spreads the requests (one exchange takes
 * about 2 ms at 802.11g's 1 Mb/s management rate). ns-3.37 and 3.48 associate 20 stations without
 * it, and there it is zero: ns-3's own timing is kept.
 * @param station the station's index in the BSS (0, 1, ...)
 * @return the extra scan time
 */
inline Time
FlAssociationStagger(uint32_t station)
{
#if FL_NS3_VERSION >= 337
    (void)station;
    return Time(0);
#else
    return MilliSeconds(5 * static_cast<uint64_t>(station));
#endif
}

/**
 * Number of PHYs of a Wi-Fi device (WifiNetDevice::GetNPhys since ns-3.37, multi-link devices;
 * one before).
 * @param device the Wi-Fi device (a Ptr<WifiNetDevice>)
 * @return its number of PHYs
 */
template <typename WifiDevicePtr>
uint32_t
FlWifiPhyCount(const WifiDevicePtr& device)
{
#if FL_NS3_VERSION >= 337
    return device->GetNPhys();
#else
    (void)device;
    return 1;
#endif
}

} // namespace ns3

// ------------------------------------------------------------------------------ test framework
// Names only (no include of ns3/test.h): expand where ns3/test.h is included.
#if FL_NS3_VERSION >= 342
/// TestSuite type "unit" (TestSuite::Type::UNIT since ns-3.42).
#define FL_TEST_SUITE_UNIT ::ns3::TestSuite::Type::UNIT
/// TestCase duration "quick" (TestCase::Duration::QUICK since ns-3.42).
#define FL_TEST_CASE_QUICK ::ns3::TestCase::Duration::QUICK
#else
/// TestSuite type "unit" (TestSuite::Type::UNIT since ns-3.42).
#define FL_TEST_SUITE_UNIT ::ns3::TestSuite::UNIT
/// TestCase duration "quick" (TestCase::Duration::QUICK since ns-3.42).
#define FL_TEST_CASE_QUICK ::ns3::TestCase::QUICK
#endif

#endif // FL_NS3_COMPAT_H

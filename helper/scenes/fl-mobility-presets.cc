/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fl-mobility-presets.h"

#include "ns3/constant-velocity-mobility-model.h"
#include "ns3/double.h"
#include "ns3/fl-types.h"
#include "ns3/gauss-markov-mobility-model.h"
#include "ns3/mobility-helper.h"
#include "ns3/mobility-model.h"
#include "ns3/node.h"
#include "ns3/ns2-mobility-helper.h"
#include "ns3/pointer.h"
#include "ns3/position-allocator.h"
#include "ns3/random-variable-stream.h"
#include "ns3/random-waypoint-mobility-model.h"
#include "ns3/steady-state-random-waypoint-mobility-model.h"
#include "ns3/string.h"
#include "ns3/waypoint-mobility-model.h"

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

namespace ns3
{

namespace
{

bool
Finite(const Vector& v)
{
    return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z);
}

std::string
Str(double v)
{
    std::ostringstream os;
    os << v;
    return os.str();
}

[[noreturn]] void
Refuse(const char* setter,
       const std::string& what,
       const std::string& problem,
       const std::string& fix)
{
    throw fl::ConfigError(std::string(setter) + " " + what, problem, fix);
}

void
CheckSpeeds(const char* setter, double minSpeed, double maxSpeed)
{
    if (!(minSpeed > 0.0) || !std::isfinite(minSpeed))
    {
        Refuse(setter,
               "minSpeed",
               Str(minSpeed) + " m/s is not a positive speed",
               "use a finite minSpeed > 0 (a node at speed 0 never reaches its waypoint)");
    }
    if (!(maxSpeed >= minSpeed) || !std::isfinite(maxSpeed))
    {
        Refuse(setter,
               "maxSpeed",
               Str(maxSpeed) + " m/s is below minSpeed " + Str(minSpeed) + " m/s",
               "use a finite maxSpeed >= minSpeed");
    }
}

void
CheckPause(const char* setter, const char* what, Time pause)
{
    if (pause.IsStrictlyNegative())
    {
        Refuse(setter,
               what,
               "pause " + Str(pause.GetSeconds()) + " s is negative",
               "use a pause >= 0");
    }
}

/// A uniform position allocator in `box`, its three streams from `stream` on.
Ptr<RandomBoxPositionAllocator>
BoxAllocator(const Box& box, int64_t stream)
{
    Ptr<RandomBoxPositionAllocator> a = CreateObject<RandomBoxPositionAllocator>();
    auto uniform = [](double lo, double hi) {
        Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable>();
        u->SetAttribute("Min", DoubleValue(lo));
        u->SetAttribute("Max", DoubleValue(hi));
        return u;
    };
    a->SetX(uniform(box.xMin, box.xMax));
    a->SetY(uniform(box.yMin, box.yMax));
    a->SetZ(uniform(box.zMin, box.zMax));
    a->AssignStreams(stream);
    return a;
}

Ptr<RandomVariableStream>
Constant(double value)
{
    Ptr<ConstantRandomVariable> c = CreateObject<ConstantRandomVariable>();
    c->SetAttribute("Constant", DoubleValue(value));
    return c;
}

Ptr<RandomVariableStream>
Uniform(double lo, double hi)
{
    Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable>();
    u->SetAttribute("Min", DoubleValue(lo));
    u->SetAttribute("Max", DoubleValue(hi));
    return u;
}

} // namespace

void
FlClientMobilityHelper::SetBox(const char* setter, const Box& box)
{
    const bool finite = std::isfinite(box.xMin) && std::isfinite(box.xMax) &&
                        std::isfinite(box.yMin) && std::isfinite(box.yMax) &&
                        std::isfinite(box.zMin) && std::isfinite(box.zMax);
    if (!finite || !(box.xMin < box.xMax) || !(box.yMin < box.yMax) || !(box.zMin <= box.zMax))
    {
        Refuse(setter,
               "box",
               "x [" + Str(box.xMin) + ", " + Str(box.xMax) + "], y [" + Str(box.yMin) + ", " +
                   Str(box.yMax) + "], z [" + Str(box.zMin) + ", " + Str(box.zMax) +
                   "] is not a box",
               "use finite bounds with xMin < xMax, yMin < yMax and zMin <= zMax");
    }
    m_box = box;
}

void
FlClientMobilityHelper::SetRandomWaypoint(const Box& box,
                                          double minSpeed,
                                          double maxSpeed,
                                          Time pause)
{
    const char* setter = "SetRandomWaypoint";
    SetBox(setter, box);
    CheckSpeeds(setter, minSpeed, maxSpeed);
    CheckPause(setter, "pause", pause);
    m_minSpeed = minSpeed;
    m_maxSpeed = maxSpeed;
    m_minPause = m_maxPause = pause;
    m_kind = Kind::RandomWaypoint;
}

void
FlClientMobilityHelper::SetSteadyStateRandomWaypoint(const Box& box,
                                                     double minSpeed,
                                                     double maxSpeed,
                                                     Time minPause,
                                                     Time maxPause)
{
    const char* setter = "SetSteadyStateRandomWaypoint";
    SetBox(setter, box);
    if (box.zMin != box.zMax)
    {
        Refuse(setter,
               "box",
               "z [" + Str(box.zMin) + ", " + Str(box.zMax) + "] is not one height",
               "use zMin = zMax (the model moves in the plane at that height)");
    }
    CheckSpeeds(setter, minSpeed, maxSpeed);
    CheckPause(setter, "minPause", minPause);
    if (maxPause < minPause)
    {
        Refuse(setter,
               "maxPause",
               Str(maxPause.GetSeconds()) + " s is below minPause " + Str(minPause.GetSeconds()) +
                   " s",
               "use maxPause >= minPause");
    }
    m_minSpeed = minSpeed;
    m_maxSpeed = maxSpeed;
    m_minPause = minPause;
    m_maxPause = maxPause;
    m_kind = Kind::SteadyStateRandomWaypoint;
}

void
FlClientMobilityHelper::SetGaussMarkov(const Box& box,
                                       double meanSpeed,
                                       double speedStdDev,
                                       double alpha,
                                       Time timeStep)
{
    const char* setter = "SetGaussMarkov";
    SetBox(setter, box);
    if (!(meanSpeed >= 0.0) || !std::isfinite(meanSpeed))
    {
        Refuse(setter, "meanSpeed", Str(meanSpeed) + " m/s is invalid", "use a finite speed >= 0");
    }
    if (!(speedStdDev >= 0.0) || !std::isfinite(speedStdDev))
    {
        Refuse(setter,
               "speedStdDev",
               Str(speedStdDev) + " m/s is invalid",
               "use a finite standard deviation >= 0");
    }
    if (!(alpha >= 0.0 && alpha <= 1.0))
    {
        Refuse(setter,
               "alpha",
               Str(alpha) + " is outside [0, 1]",
               "use 0 (memoryless) to 1 (constant velocity)");
    }
    if (!timeStep.IsStrictlyPositive())
    {
        Refuse(setter,
               "timeStep",
               Str(timeStep.GetSeconds()) + " s is not positive",
               "use a time step > 0");
    }
    m_minSpeed = m_maxSpeed = meanSpeed;
    m_speedStdDev = speedStdDev;
    m_alpha = alpha;
    m_timeStep = timeStep;
    m_kind = Kind::GaussMarkov;
}

void
FlClientMobilityHelper::SetRoad(const Vector& start,
                                const Vector& direction,
                                double spacing,
                                double speed)
{
    const char* setter = "SetRoad";
    if (!Finite(start))
    {
        Refuse(setter, "start", "the start is not finite", "give a finite position");
    }
    const double norm = direction.GetLength();
    if (!Finite(direction) || !(norm > 0.0))
    {
        Refuse(setter,
               "direction",
               "the direction is zero or not finite",
               "give a finite non-zero vector");
    }
    if (!(spacing >= 0.0) || !std::isfinite(spacing))
    {
        Refuse(setter, "spacing", Str(spacing) + " m is invalid", "use a finite spacing >= 0");
    }
    if (!(speed >= 0.0) || !std::isfinite(speed))
    {
        Refuse(setter, "speed", Str(speed) + " m/s is invalid", "use a finite speed >= 0");
    }
    m_start = start;
    m_direction = Vector(direction.x / norm, direction.y / norm, direction.z / norm);
    m_spacing = spacing;
    m_minSpeed = m_maxSpeed = speed;
    m_kind = Kind::Road;
}

void
FlClientMobilityHelper::SetWaypoints(const std::vector<std::vector<Waypoint>>& paths)
{
    const char* setter = "SetWaypoints";
    if (paths.empty())
    {
        Refuse(setter, "paths", "no path", "give one path per client");
    }
    for (std::size_t i = 0; i < paths.size(); ++i)
    {
        const std::string which = "path " + std::to_string(i);
        if (paths[i].empty())
        {
            Refuse(setter, "paths", which + " is empty", "give each client at least one waypoint");
        }
        for (std::size_t k = 0; k < paths[i].size(); ++k)
        {
            const Waypoint& w = paths[i][k];
            if (!Finite(w.position))
            {
                Refuse(setter,
                       "paths",
                       which + ", waypoint " + std::to_string(k) + ": position not finite",
                       "give finite positions");
            }
            if (w.time.IsStrictlyNegative() || (k > 0 && !(w.time > paths[i][k - 1].time)))
            {
                Refuse(setter,
                       "paths",
                       which + ", waypoint " + std::to_string(k) + " at " +
                           Str(w.time.GetSeconds()) + " s is negative or not after the one before",
                       "give times >= 0, strictly increasing along each path");
            }
        }
    }
    m_paths = paths;
    m_kind = Kind::Waypoints;
}

void
FlClientMobilityHelper::SetNs2Trace(const std::string& path)
{
    std::ifstream f(path);
    if (path.empty() || !f)
    {
        Refuse("SetNs2Trace",
               "path",
               "cannot read the trace '" + path + "'",
               "give a readable ns-2 movement file (SUMO: traceExporter.py "
               "--ns2mobility-output)");
    }
    m_trace = path;
    m_kind = Kind::Ns2Trace;
}

void
FlClientMobilityHelper::SetFixed()
{
    m_kind = Kind::Fixed;
}

void
FlClientMobilityHelper::SetStream(int64_t stream)
{
    if (stream < 0)
    {
        Refuse("SetStream", "stream", std::to_string(stream) + " is negative", "use a stream >= 0");
    }
    m_stream = stream;
}

std::string
FlClientMobilityHelper::GetName() const
{
    switch (m_kind)
    {
    case Kind::Fixed:
        return "fixed";
    case Kind::RandomWaypoint:
        return "random-waypoint";
    case Kind::SteadyStateRandomWaypoint:
        return "steady-state-random-waypoint";
    case Kind::GaussMarkov:
        return "gauss-markov";
    case Kind::Road:
        return "road";
    case Kind::Waypoints:
        return "waypoints";
    case Kind::Ns2Trace:
        return "ns2-trace";
    }
    return "fixed";
}

int64_t
FlClientMobilityHelper::Install(const NodeContainer& clients) const
{
    if (m_kind == Kind::Fixed || clients.GetN() == 0)
    {
        return 0;
    }
    for (uint32_t i = 0; i < clients.GetN(); ++i)
    {
        if (clients.Get(i)->GetObject<MobilityModel>())
        {
            throw fl::ConfigError("Install",
                                  "client node " + std::to_string(i) +
                                      " has a MobilityModel already",
                                  "install the preset on nodes without one (a scene keeps the "
                                  "models the nodes have)");
        }
    }
    int64_t stream = m_stream;
    MobilityHelper mobility;
    switch (m_kind)
    {
    case Kind::RandomWaypoint: {
        mobility.SetPositionAllocator(BoxAllocator(m_box, stream));
        stream += 3;
        Ptr<RandomBoxPositionAllocator> destinations = BoxAllocator(m_box, stream);
        stream += 3;
        mobility.SetMobilityModel("ns3::RandomWaypointMobilityModel",
                                  "Speed",
                                  PointerValue(Uniform(m_minSpeed, m_maxSpeed)),
                                  "Pause",
                                  PointerValue(Constant(m_minPause.GetSeconds())),
                                  "PositionAllocator",
                                  PointerValue(destinations));
        mobility.Install(clients);
        break;
    }
    case Kind::SteadyStateRandomWaypoint: {
        // the model draws its own initial position, speed and pause (the stationary law)
        mobility.SetMobilityModel("ns3::SteadyStateRandomWaypointMobilityModel",
                                  "MinSpeed",
                                  DoubleValue(m_minSpeed),
                                  "MaxSpeed",
                                  DoubleValue(m_maxSpeed),
                                  "MinPause",
                                  DoubleValue(m_minPause.GetSeconds()),
                                  "MaxPause",
                                  DoubleValue(m_maxPause.GetSeconds()),
                                  "MinX",
                                  DoubleValue(m_box.xMin),
                                  "MaxX",
                                  DoubleValue(m_box.xMax),
                                  "MinY",
                                  DoubleValue(m_box.yMin),
                                  "MaxY",
                                  DoubleValue(m_box.yMax),
                                  "Z",
                                  DoubleValue(m_box.zMin));
        mobility.Install(clients);
        break;
    }
    case Kind::GaussMarkov: {
        mobility.SetPositionAllocator(BoxAllocator(m_box, stream));
        stream += 3;
        // the model takes normal variables only (variance 0: no noise)
        auto normal = [](double sd) {
            Ptr<NormalRandomVariable> v = CreateObject<NormalRandomVariable>();
            v->SetAttribute("Mean", DoubleValue(0.0));
            v->SetAttribute("Variance", DoubleValue(sd * sd));
            v->SetAttribute("Bound", DoubleValue(3.0 * sd));
            return v;
        };
        mobility.SetMobilityModel("ns3::GaussMarkovMobilityModel",
                                  "Bounds",
                                  BoxValue(m_box),
                                  "TimeStep",
                                  TimeValue(m_timeStep),
                                  "Alpha",
                                  DoubleValue(m_alpha),
                                  "MeanVelocity",
                                  PointerValue(Constant(m_minSpeed)),
                                  "MeanDirection",
                                  PointerValue(Uniform(0.0, 2.0 * M_PI)),
                                  "MeanPitch",
                                  PointerValue(Constant(0.0)),
                                  "NormalVelocity",
                                  PointerValue(normal(m_speedStdDev)),
                                  "NormalPitch",
                                  PointerValue(normal(0.0)));
        mobility.Install(clients);
        break;
    }
    case Kind::Road: {
        for (uint32_t i = 0; i < clients.GetN(); ++i)
        {
            Ptr<ConstantVelocityMobilityModel> m = CreateObject<ConstantVelocityMobilityModel>();
            const double along = m_spacing * i;
            m->SetPosition(Vector(m_start.x + along * m_direction.x,
                                  m_start.y + along * m_direction.y,
                                  m_start.z + along * m_direction.z));
            m->SetVelocity(Vector(m_maxSpeed * m_direction.x,
                                  m_maxSpeed * m_direction.y,
                                  m_maxSpeed * m_direction.z));
            clients.Get(i)->AggregateObject(m);
        }
        return 0;
    }
    case Kind::Waypoints: {
        if (m_paths.size() != clients.GetN())
        {
            throw fl::ConfigError("Install",
                                  std::to_string(m_paths.size()) + " waypoint paths for " +
                                      std::to_string(clients.GetN()) + " clients",
                                  "give one path per client (SetWaypoints)");
        }
        for (uint32_t i = 0; i < clients.GetN(); ++i)
        {
            Ptr<WaypointMobilityModel> m = CreateObject<WaypointMobilityModel>();
            for (const Waypoint& w : m_paths[i])
            {
                m->AddWaypoint(w);
            }
            clients.Get(i)->AggregateObject(m);
        }
        return 0;
    }
    case Kind::Ns2Trace: {
        Ns2MobilityHelper(m_trace).Install(clients.Begin(), clients.End());
        for (uint32_t i = 0; i < clients.GetN(); ++i)
        {
            if (!clients.Get(i)->GetObject<MobilityModel>())
            {
                throw fl::ConfigError("Install",
                                      "the trace '" + m_trace + "' does not move client " +
                                          std::to_string(i) + " ($node_(" + std::to_string(i) +
                                          "))",
                                      "use a trace with at least as many nodes as clients");
            }
        }
        return 0; // the trace draws nothing
    }
    case Kind::Fixed:
        break;
    }
    return (stream - m_stream) + mobility.AssignStreams(clients, stream);
}

FlClientMobilityHelper
ParseFlClientMobility(const std::string& spec, const std::string& flag)
{
    const std::string usage = "use fixed, random-waypoint:side=100,min=1,max=2,pause=0, "
                              "steady-state-random-waypoint:side=..,min=..,max=..,minPause=..,"
                              "maxPause=.., gauss-markov:side=..,speed=..,sd=..,alpha=..,step=.., "
                              "road:speed=..,spacing=..,x0=..,y=.. or ns2-trace:path=FILE";
    FlClientMobilityHelper p;
    const std::size_t colon = spec.find(':');
    const std::string kind = spec.substr(0, colon);
    std::map<std::string, std::string> given;
    if (colon != std::string::npos)
    {
        std::istringstream in(spec.substr(colon + 1));
        std::string item;
        while (std::getline(in, item, ','))
        {
            const std::size_t eq = item.find('=');
            if (eq == std::string::npos || eq == 0)
            {
                throw fl::ConfigError(flag, "'" + item + "' is not key=value", usage);
            }
            given[item.substr(0, eq)] = item.substr(eq + 1);
        }
    }
    std::map<std::string, std::string> keys; // the kind's keys and their defaults
    if (kind == "fixed")
    {
    }
    else if (kind == "random-waypoint")
    {
        keys = {{"side", "100"}, {"min", "1"}, {"max", "2"}, {"pause", "0"}};
    }
    else if (kind == "steady-state-random-waypoint")
    {
        keys = {{"side", "100"}, {"min", "1"}, {"max", "2"}, {"minPause", "0"}, {"maxPause", "0"}};
    }
    else if (kind == "gauss-markov")
    {
        keys = {{"side", "100"}, {"speed", "1"}, {"sd", "0"}, {"alpha", "0.85"}, {"step", "1"}};
    }
    else if (kind == "road")
    {
        keys = {{"speed", "1"}, {"spacing", "10"}, {"x0", "0"}, {"y", "0"}};
    }
    else if (kind == "ns2-trace")
    {
        keys = {{"path", ""}};
    }
    else
    {
        throw fl::ConfigError(flag, "'" + kind + "' is not a mobility preset", usage);
    }
    for (const auto& kv : given)
    {
        if (keys.find(kv.first) == keys.end())
        {
            throw fl::ConfigError(flag, "'" + kv.first + "' is not a key of " + kind, usage);
        }
        keys[kv.first] = kv.second;
    }
    auto number = [&](const std::string& key) {
        const std::string& text = keys.at(key);
        std::size_t used = 0;
        double v = std::nan("");
        try
        {
            v = std::stod(text, &used);
        }
        catch (const std::exception&)
        {
            used = 0;
        }
        if (text.empty() || used != text.size())
        {
            throw fl::ConfigError(flag, key + "='" + text + "' is not a number", usage);
        }
        return v;
    };
    try
    {
        if (kind == "random-waypoint" || kind == "steady-state-random-waypoint" ||
            kind == "gauss-markov")
        {
            const double h = number("side") / 2.0;
            const Box box(-h, h, -h, h, 0.0, 0.0);
            if (kind == "random-waypoint")
            {
                p.SetRandomWaypoint(box, number("min"), number("max"), Seconds(number("pause")));
            }
            else if (kind == "steady-state-random-waypoint")
            {
                p.SetSteadyStateRandomWaypoint(box,
                                               number("min"),
                                               number("max"),
                                               Seconds(number("minPause")),
                                               Seconds(number("maxPause")));
            }
            else
            {
                p.SetGaussMarkov(box,
                                 number("speed"),
                                 number("sd"),
                                 number("alpha"),
                                 Seconds(number("step")));
            }
        }
        else if (kind == "road")
        {
            p.SetRoad(Vector(number("x0"), number("y"), 0.0),
                      Vector(1.0, 0.0, 0.0),
                      number("spacing"),
                      number("speed"));
        }
        else if (kind == "ns2-trace")
        {
            p.SetNs2Trace(keys.at("path"));
        }
    }
    catch (const fl::ConfigError& e)
    {
        std::string why = e.what();
        const std::string prefix = "fl: invalid ";
        if (why.rfind(prefix, 0) == 0)
        {
            why = why.substr(prefix.size());
        }
        throw fl::ConfigError(flag, why, usage);
    }
    return p;
}

} // namespace ns3

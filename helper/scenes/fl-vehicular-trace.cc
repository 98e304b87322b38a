/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * When each node of an ns-2 movement trace is on the road (as ns-3's Ns2MobilityHelper moves
 * it), and where the vehicular scene parks it otherwise.
 */
#include "ns3/fl-vehicular-trace.h"

#include "ns3/fl-types.h"

#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace ns3
{

namespace
{

/// The node number of a token "$node_(i)" (-1 if it is not one).
long
NodeOf(const std::string& token)
{
    const std::string head = "$node_(";
    if (token.compare(0, head.size(), head) != 0 || token.back() != ')')
    {
        return -1;
    }
    try
    {
        return std::stol(token.substr(head.size(), token.size() - head.size() - 1));
    }
    catch (const std::exception&)
    {
        return -1;
    }
}

/// What FlReadNs2TraceSpans follows of one node, as Ns2MobilityHelper does.
struct TraceNode
{
    FlTraceSpan span;
    bool timed{false};
    Vector position;     ///< where the last line left it (its destination)
    Vector start;        ///< where its last movement started
    Vector velocity;     ///< of its last movement
    double startS{0.0};  ///< when its last movement started
    double arriveS{0.0}; ///< when its last movement ends
};

/// Sets one coordinate ("X_", "Y_", "Z_") of v; false if the name is none of them.
bool
SetCoordinate(Vector& v, const std::string& name, double value)
{
    if (name == "X_")
    {
        v.x = value;
    }
    else if (name == "Y_")
    {
        v.y = value;
    }
    else if (name == "Z_")
    {
        v.z = value;
    }
    else
    {
        return false;
    }
    return true;
}

} // namespace

std::vector<FlTraceSpan>
FlReadNs2TraceSpans(const std::string& path)
{
    std::ifstream f(path);
    if (path.empty() || !f)
    {
        throw fl::ConfigError("FlReadNs2TraceSpans",
                              "cannot read the trace '" + path + "'",
                              "give a readable ns-2 movement file (SUMO: traceExporter.py "
                              "--ns2mobility-output)");
    }
    std::map<long, TraceNode> nodes;
    std::string line;
    while (std::getline(f, line))
    {
        for (char& c : line)
        {
            if (c == '"')
            {
                c = ' ';
            }
        }
        std::istringstream in(line);
        std::vector<std::string> t;
        for (std::string w; in >> w && w[0] != '#';)
        {
            t.push_back(w);
        }
        try
        {
            // $node_(i) set X_ x
            if (t.size() >= 4 && t[1] == "set" && NodeOf(t[0]) >= 0)
            {
                TraceNode& n = nodes[NodeOf(t[0])];
                if (SetCoordinate(n.position, t[2], std::stod(t[3])) && !n.timed)
                {
                    n.span.entry = n.position;
                }
                n.span.present = true;
                continue;
            }
            // $ns_ at t $node_(i) setdest x y s   |   $ns_ at t $node_(i) set X_ x
            if (t.size() < 6 || t[1] != "at" || NodeOf(t[3]) < 0)
            {
                continue;
            }
            const double at = std::stod(t[2]);
            TraceNode& n = nodes[NodeOf(t[3])];
            if (!n.timed)
            {
                n.span.enterS = at;
                n.timed = true;
            }
            n.span.present = true;
            if (n.arriveS > at) // a movement cut short: where it got to
            {
                const double dt = at - n.startS;
                n.position = Vector(n.start.x + n.velocity.x * dt,
                                    n.start.y + n.velocity.y * dt,
                                    n.position.z);
                n.arriveS = at;
            }
            if (t[4] == "setdest" && t.size() >= 8)
            {
                const double x = std::stod(t[5]);
                const double y = std::stod(t[6]);
                const double speed = std::stod(t[7]);
                const double d = std::hypot(x - n.position.x, y - n.position.y);
                n.arriveS = at;
                if (speed > 0.0 && d > 0.0)
                {
                    const double time = d / speed;
                    n.start = n.position;
                    n.startS = at;
                    n.velocity = Vector((x - n.position.x) / time, (y - n.position.y) / time, 0);
                    n.position = Vector(x, y, n.position.z);
                    n.arriveS = at + time;
                }
            }
            else if (t[4] == "set")
            {
                SetCoordinate(n.position, t[5], std::stod(t[6]));
                n.arriveS = at;
            }
            n.span.leaveS = n.arriveS; // the last movement, as cut short by later lines
        }
        catch (const std::exception&)
        {
            throw fl::ConfigError("FlReadNs2TraceSpans",
                                  "'" + path + "': cannot read the line '" + line + "'",
                                  "give an ns-2 movement file (SUMO: traceExporter.py "
                                  "--ns2mobility-output)");
        }
    }
    if (nodes.empty())
    {
        throw fl::ConfigError("FlReadNs2TraceSpans",
                              "'" + path + "' moves no node",
                              "give an ns-2 movement file with $node_(i) lines");
    }
    std::vector<FlTraceSpan> spans(nodes.rbegin()->first + 1);
    for (const auto& [i, n] : nodes)
    {
        spans[i] = n.span;
        if (!n.timed) // never moves: on the road all along
        {
            spans[i].enterS = 0.0;
            spans[i].leaveS = std::numeric_limits<double>::infinity();
        }
    }
    return spans;
}

Vector
FlParkingPosition(uint32_t client)
{
    return Vector(0.0, -(1e6 + 1e5 * client), 0.0);
}

} // namespace ns3

// SPDX-License-Identifier: GPL-2.0-only
/*
 * Answers, for the documentation check (test/check-doc-names.py), whether the attributes and
 * trace sources the docs name exist: reads lines "ns3::Class Name" on standard input and prints
 * one line per query, "ok", "no-type" (no TypeId of that name) or "no-member" (neither an
 * attribute nor a trace source of the class or its parents); a line "ns3::Class" alone asks
 * whether the TypeId exists. Links the module (and through it the ns-3 modules it uses), so
 * every TypeId a program of the module can meet is registered.
 */

#include "ns3/core-module.h"
#include "ns3/fl-module.h"

#include <iostream>
#include <sstream>
#include <string>

using namespace ns3;

int
main(int argc, char* argv[])
{
    CommandLine cmd(__FILE__);
    cmd.Parse(argc, argv);
    std::string line;
    while (std::getline(std::cin, line))
    {
        std::istringstream in(line);
        std::string type;
        std::string member;
        in >> type >> member;
        if (type.empty())
        {
            continue;
        }
        TypeId tid;
        if (!TypeId::LookupByNameFailSafe(type, &tid))
        {
            std::cout << "no-type " << line << "\n";
            continue;
        }
        if (member.empty())
        {
            std::cout << "ok " << line << "\n";
            continue;
        }
        TypeId::AttributeInformation info;
        const bool found =
            tid.LookupAttributeByName(member, &info) || tid.LookupTraceSourceByName(member);
        std::cout << (found ? "ok " : "no-member ") << line << "\n";
    }
    return 0;
}

/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * libFuzzer entry of one harness, chosen at compile time: utils/fuzz.sh compiles this file once
 * per harness with -DFL_FUZZ_HARNESS='"<name>"' (a name of Harnesses(), also its corpus folder).
 */
#include "fl-fuzz-targets.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#ifndef FL_FUZZ_HARNESS
#error "compile with -DFL_FUZZ_HARNESS='\"<harness name>\"'"
#endif

namespace
{

ns3::fl::fuzz::FuzzEntry
Entry()
{
    for (const auto& h : ns3::fl::fuzz::Harnesses())
    {
        if (std::strcmp(h.name, FL_FUZZ_HARNESS) == 0)
        {
            return h.entry;
        }
    }
    std::fprintf(stderr, "no fuzz harness named '%s'\n", FL_FUZZ_HARNESS);
    std::abort();
}

} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size)
{
    static const ns3::fl::fuzz::FuzzEntry entry = Entry();
    return entry(data, size);
}

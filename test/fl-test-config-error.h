/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * One check for "bad input gets a clear error" shared by the pure layers' suites.
 */
#ifndef FL_TEST_CONFIG_ERROR_H
#define FL_TEST_CONFIG_ERROR_H

#include "ns3/fl-types.h"

#include <functional>
#include <gtest/gtest.h>
#include <initializer_list>
#include <string>

namespace fltest
{

/**
 * Expects `f` to throw ns3::fl::ConfigError naming `parameter` (Parameter() and the message's
 * "invalid <parameter>:"), whose message contains every string of `mentions`.
 */
inline void
ExpectConfigError(const std::function<void()>& f,
                  const std::string& parameter,
                  std::initializer_list<std::string> mentions = {})
{
    try
    {
        f();
        ADD_FAILURE() << "no ConfigError for " << parameter;
    }
    catch (const ns3::fl::ConfigError& e)
    {
        const std::string what = e.what();
        EXPECT_EQ(e.Parameter(), parameter) << what;
        EXPECT_NE(what.find("invalid " + parameter + ":"), std::string::npos) << what;
        for (const std::string& m : mentions)
        {
            EXPECT_NE(what.find(m), std::string::npos) << "'" << m << "' not in: " << what;
        }
    }
}

/// As above with one mention (none if empty).
inline void
ExpectConfigError(const std::function<void()>& f,
                  const std::string& parameter,
                  const std::string& mention)
{
    if (mention.empty())
    {
        ExpectConfigError(f, parameter);
    }
    else
    {
        ExpectConfigError(f, parameter, {mention});
    }
}

} // namespace fltest

#endif // FL_TEST_CONFIG_ERROR_H

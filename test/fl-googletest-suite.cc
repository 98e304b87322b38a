/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * In an ns-3 source tree, runs the module's GoogleTest suites from ns-3's test.py: the ns-3 test
 * suite "fl-googletest" has one test case per GoogleTest executable, which passes when that
 * executable exits with status 0. test/CMakeLists.txt generates the list of executables.
 */
#include "fl-googletest-executables.h"

#include "ns3/fl-ns3-compat.h"
#include "ns3/test.h"

#include <cstdlib>
#include <string>

using namespace ns3;

namespace
{

/**
 * Runs one GoogleTest executable; fails unless it exits with status 0.
 */
class GoogleTestExecutableTestCase : public TestCase
{
  public:
    /**
     * \param suite the suite's name (the test case's name)
     * \param path the absolute path of its GoogleTest executable
     */
    GoogleTestExecutableTestCase(const std::string& suite, const std::string& path)
        : TestCase(suite),
          m_path(path)
    {
    }

  private:
    void DoRun() override
    {
        const int status = std::system(("'" + m_path + "' --gtest_brief=1").c_str());
        NS_TEST_ASSERT_MSG_EQ(status, 0, m_path << " failed (wait status " << status << ")");
    }

    std::string m_path; //!< GoogleTest executable
};

/**
 * The fl module's GoogleTest suites as one ns-3 test suite.
 */
class FlGoogleTestSuite : public TestSuite
{
  public:
    FlGoogleTestSuite()
        : TestSuite("fl-googletest", FL_TEST_SUITE_UNIT)
    {
        for (const auto& [suite, path] : kFlGoogleTestExecutables)
        {
            AddTestCase(new GoogleTestExecutableTestCase(suite, path), FL_TEST_CASE_QUICK);
        }
    }
};

FlGoogleTestSuite g_flGoogleTestSuite; //!< Registers the suite with ns-3's test runner

} // namespace

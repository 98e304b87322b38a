/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The GFL / GHP figure program shared by fl-gfl and fl-ghp (examples/benchmarks/): its flags,
 * the figure chosen, the Monte Carlo in process or as jobs of utils/fl-sweep, the CSV and the
 * checked orderings. The figures themselves are gfl-figures.h.
 */
#ifndef FL_GFL_DRIVER_H
#define FL_GFL_DRIVER_H

namespace ns3
{
namespace flexample
{

/**
 * Runs the program fl-gfl (ghp false) or fl-ghp (ghp true: --figure=ghp and
 * --output=fl-ghp.csv by default; --help and the errors name fl-ghp).
 * @return the program's exit status
 */
int RunGflFigureProgram(int argc, char* argv[], bool ghp);

} // namespace flexample
} // namespace ns3

#endif // FL_GFL_DRIVER_H

/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * What the files of the GFL and GHP figures share beyond their public header gfl-figures.h: the
 * figures' dB and number format, and the options' noise source. Internal to the
 * fl-example-support library (namespace ns3::gflfig), not for the programs. The figures' parts
 * by purpose: gfl-figures-setup.cc (options, variants, regression runs), gfl-figures-network.cc
 * (network runs, series, epsilon statements), gfl-figures-paper.cc (one section per figure of the
 * papers) and gfl-figures.cc (benchmark, the figure chosen, output, claims).
 */
#ifndef FL_GFL_FIGURES_INTERNAL_H
#define FL_GFL_FIGURES_INTERNAL_H

#include "gfl-figures.h"

#include <cmath>
#include <iomanip>
#include <sstream>
#include <string>

namespace ns3
{

/// The helpers the files of the GFL and GHP figures share (gfl-figures-internal.h).
namespace gflfig
{

/// 10 log10(x): the figures' dB.
inline double
Db(double x)
{
    return 10.0 * std::log10(x);
}

/// `x` in fixed notation with `precision` decimals: the figures' printed numbers.
inline std::string
Fmt(double x, int precision = 2)
{
    std::ostringstream s;
    s << std::fixed << std::setprecision(precision) << x;
    return s.str();
}

/**
 * `noise` with the noise source of the options (o.noiseSource, --noiseSource: run-seed or
 * sodium); fl::ConfigError naming --noiseSource if it is neither.
 */
fl::NodeNoiseConfig WithNoiseSource(const GflFigureOptions& o, fl::NodeNoiseConfig noise);

} // namespace gflfig

} // namespace ns3

#endif // FL_GFL_FIGURES_INTERNAL_H

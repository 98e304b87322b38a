/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * What the examples that take --dataset say about a data set of the user's: what was read (the
 * header line, the classes, a renumbering) and whether its features look unscaled.
 */
#ifndef FL_EXAMPLE_DATA_H
#define FL_EXAMPLE_DATA_H

#include "ns3/task-builder.h"

#include <ostream>
#include <string>

namespace ns3
{
namespace flexample
{

/**
 * The hint that the features of a user's --dataset are unscaled (fl::FeatureScaleHint) when
 * --standardise leaves them so (none, centre); "" otherwise. The fix is --standardise=standardise.
 */
inline std::string
FeatureScaleAdvice(const std::string& dataset, const std::string& standardise)
{
    if (!fl::IsUserDataset(dataset) || (standardise != "none" && standardise != "centre"))
    {
        return "";
    }
    return fl::LoadUserDataset(dataset).scaleHint;
}

/// Prints what was read of a user's --dataset (header line, classes, renumbering) and whether
/// its features look unscaled (FeatureScaleAdvice).
inline void
PrintDatasetNotes(const std::string& dataset, const std::string& standardise, std::ostream& os)
{
    if (!fl::IsUserDataset(dataset))
    {
        return;
    }
    for (const std::string& note : fl::LoadUserDataset(dataset).notes)
    {
        os << "  dataset " << dataset << ": " << note << "\n";
    }
    const std::string advice = FeatureScaleAdvice(dataset, standardise);
    if (!advice.empty())
    {
        os << "  hint: " << advice << "; with --standardise=" << standardise
           << " SGD may diverge or stay at chance accuracy (fix: --standardise=standardise "
              "scales every feature of every holder's data to unit variance)\n";
    }
}

} // namespace flexample
} // namespace ns3

#endif // FL_EXAMPLE_DATA_H

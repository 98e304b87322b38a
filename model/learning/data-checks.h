/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Checks of a data set's contents that a reader does not make: class labels a classifier can
 * use (0..C-1, each with samples), and features on a common scale. Pure code (no ns-3 header).
 */
#ifndef FL_DATA_CHECKS_H
#define FL_DATA_CHECKS_H

#include "ns3/dataset.h"

#include <functional>
#include <string>
#include <vector>

namespace ns3
{
namespace fl
{

/**
 * Checks and, where needed, renumbers the class labels of categorical data sets that share
 * their classes (e.g. a training and a test set): a classifier needs the classes 0..C-1, each
 * with samples. Labels that run without a gap from 0 are kept; labels that run without a gap
 * from k > 0 (1..3, say) are renumbered 0..C-1 and the returned note says so; labels with a gap
 * (0, 1, 2 and a stray 999, whose model would have 1000 outputs) are refused: ConfigError
 * naming `parameter` (e.g. "--dataset"), listing the labels with their row counts and where the
 * rarest ones first occur (`where(set, row)`, e.g. "line 1502"), and saying how to renumber
 * them. Every set's numClasses becomes C.
 * @return "" if nothing was renumbered, else the note ("labels 1..3 taken as classes 0..2")
 */
template <typename S>
std::string NormaliseClassLabels(
    const std::vector<Dataset<S>*>& sets,
    const std::function<std::string(std::size_t set, std::size_t row)>& where,
    const std::string& parameter);

/**
 * A hint that features are far from a common scale, or "" if they are not: the root mean
 * square of each feature (sqrt(mean^2 + variance)) is above 10, or the largest is more than 100
 * times the smallest non-zero one. SGD with a step size meant for data of unit scale (pixels in
 * [0, 1], standardised columns) then diverges or stays at chance accuracy; standardising each
 * feature fixes that. The text names the largest and the smallest feature (from 1) and their
 * scale. A heuristic for a message, not a test of the data.
 */
template <typename S>
std::string FeatureScaleHint(const Mat<S>& features);

} // namespace fl
} // namespace ns3

#endif // FL_DATA_CHECKS_H

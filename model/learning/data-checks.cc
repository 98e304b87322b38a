/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/data-checks.h"

#include "ns3/fl-types.h"

#include <algorithm>
#include <iomanip>
#include <iterator>
#include <map>
#include <sstream>

namespace ns3
{
namespace fl
{

template <typename S>
std::string
NormaliseClassLabels(const std::vector<Dataset<S>*>& sets,
                     const std::function<std::string(std::size_t, std::size_t)>& where,
                     const std::string& parameter)
{
    struct Seen
    {
        std::size_t rows{0};
        std::size_t set{0};
        std::size_t row{0}; ///< first occurrence
    };

    std::map<long long, Seen> labels;
    std::size_t total = 0;
    for (std::size_t k = 0; k < sets.size(); ++k)
    {
        const Dataset<S>& d = *sets[k];
        if (d.kind != TargetKind::Categorical)
        {
            throw ConfigError("sets", "not categorical", "give categorical data sets");
        }
        for (std::size_t i = 0; i < d.Size(); ++i)
        {
            const auto label = static_cast<long long>(d.targets[static_cast<Eigen::Index>(i)]);
            auto [it, inserted] = labels.try_emplace(label, Seen{0, k, i});
            ++it->second.rows;
            ++total;
        }
    }
    if (labels.empty())
    {
        return "";
    }
    const long long lo = labels.begin()->first;
    const long long hi = labels.rbegin()->first;
    const auto classes = static_cast<long long>(labels.size());
    if (hi - lo + 1 != classes)
    {
        // a gap: list the labels (runs as a..b) with their rows, and where the rarest occur
        std::ostringstream list;
        std::vector<std::pair<std::size_t, long long>> rarest;
        for (auto it = labels.begin(); it != labels.end();)
        {
            auto end = it;
            std::size_t rows = 0;
            while (end != labels.end() && end->first - it->first == std::distance(it, end))
            {
                rows += end->second.rows;
                ++end;
            }
            const auto last = std::prev(end);
            list << (it == labels.begin() ? "" : ", ");
            if (last == it)
            {
                list << it->first << " (" << rows << (rows == 1 ? " row" : " rows") << ")";
            }
            else
            {
                list << it->first << ".." << last->first << " (" << rows << " rows)";
            }
            it = end;
        }
        for (const auto& [label, seen] : labels)
        {
            rarest.emplace_back(seen.rows, label);
        }
        std::sort(rarest.begin(), rarest.end());
        std::ostringstream first;
        for (std::size_t i = 0; i < rarest.size() && i < 3; ++i)
        {
            const Seen& seen = labels.at(rarest[i].second);
            first << (i ? "; " : "") << "label " << rarest[i].second << " first at "
                  << where(seen.set, seen.row);
        }
        throw ConfigError(parameter,
                          "class labels " + list.str() +
                              " have a gap: a classifier needs the "
                              "classes 0..C-1, each with samples, and would get " +
                              std::to_string(hi + 1) + " outputs here (" + first.str() + ")",
                          "renumber the " + std::to_string(classes) + " classes 0.." +
                              std::to_string(classes - 1) + " (a label on few rows may be a typo)");
    }
    for (Dataset<S>* d : sets)
    {
        if (lo != 0)
        {
            d->targets.array() -= static_cast<S>(lo);
        }
        d->numClasses = static_cast<int>(classes);
    }
    if (lo == 0)
    {
        return "";
    }
    return "class labels " + std::to_string(lo) + ".." + std::to_string(hi) +
           " taken as classes 0.." + std::to_string(classes - 1);
}

template <typename S>
std::string
FeatureScaleHint(const Mat<S>& features)
{
    if (features.rows() == 0 || features.cols() == 0)
    {
        return "";
    }
    // root mean square of each feature: sqrt(mean^2 + variance)
    const Eigen::ArrayXd rms = (features.template cast<double>().array().square().colwise().sum() /
                                static_cast<double>(features.rows()))
                                   .sqrt()
                                   .transpose();
    Eigen::Index big = 0;
    rms.maxCoeff(&big);
    Eigen::Index small = -1;
    for (Eigen::Index j = 0; j < rms.size(); ++j)
    {
        if (rms[j] > 0.0 && (small < 0 || rms[j] < rms[small]))
        {
            small = j;
        }
    }
    const bool large = rms[big] > 10.0;
    const bool spread = small >= 0 && rms[big] > 100.0 * rms[small];
    if (!large && !spread)
    {
        return "";
    }
    std::ostringstream text;
    text << std::setprecision(3) << "the features are not on a common scale: feature " << big + 1
         << " has a root mean square of " << rms[big];
    if (small >= 0 && small != big)
    {
        text << ", feature " << small + 1 << " " << rms[small];
    }
    return text.str();
}

#define FL_INSTANTIATE_DATA_CHECKS(S)                                                              \
    template std::string NormaliseClassLabels<S>(                                                  \
        const std::vector<Dataset<S>*>&,                                                           \
        const std::function<std::string(std::size_t, std::size_t)>&,                              \
        const std::string&);                                                                       \
    template std::string FeatureScaleHint<S>(const Mat<S>&);

FL_INSTANTIATE_DATA_CHECKS(double)
FL_INSTANTIATE_DATA_CHECKS(float)

} // namespace fl
} // namespace ns3

/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/text-parse.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace ns3
{
namespace fl
{

namespace
{

/// `text` without the spaces and tabs around it.
std::string
Trim(const std::string& text)
{
    const std::size_t begin = text.find_first_not_of(" \t");
    if (begin == std::string::npos)
    {
        return "";
    }
    return text.substr(begin, text.find_last_not_of(" \t") - begin + 1);
}

/// Shortest decimal form of x that reads back as x ("0.1", "1e+300", "inf").
std::string
FormatNumber(double x)
{
    char buf[32];
    for (int precision = 6; precision <= 17; ++precision)
    {
        std::snprintf(buf, sizeof(buf), "%.*g", precision, x);
        if (std::strtod(buf, nullptr) == x)
        {
            break;
        }
    }
    return buf;
}

/// "in [min, max]", ">= min", "<= max" or "" (no bound): the valid range of a real parameter.
std::string
RangeText(double min, double max)
{
    const bool hasMin = std::isfinite(min);
    const bool hasMax = std::isfinite(max);
    if (hasMin && hasMax)
    {
        return " in [" + FormatNumber(min) + ", " + FormatNumber(max) + "]";
    }
    if (hasMin)
    {
        return " >= " + FormatNumber(min);
    }
    if (hasMax)
    {
        return " <= " + FormatNumber(max);
    }
    return "";
}

/// "[min, max]" of an integer parameter.
std::string
RangeText(uint64_t min, uint64_t max)
{
    return "[" + std::to_string(min) + ", " + std::to_string(max) + "]";
}

/// Throws ConfigError naming `parameter` if the bounds a caller gave leave no valid value.
template <typename T>
void
CheckBounds(T min, T max, const std::string& parameter)
{
    if (!(min <= max))
    {
        throw ConfigError(parameter,
                          "the valid range has its minimum above its maximum",
                          "pass min <= max where " + parameter + " is parsed");
    }
}

/**
 * Reads the whole of `text` (already trimmed) with strtod. Returns false if it is empty or not
 * one number; sets `value` otherwise (possibly to an infinity or NaN).
 */
bool
ReadWholeDouble(const std::string& text, double& value)
{
    if (text.empty())
    {
        return false;
    }
    char* end = nullptr;
    value = std::strtod(text.c_str(), &end);
    return end == text.c_str() + text.size();
}

} // namespace

double
ParseDouble(const std::string& text, const std::string& parameter, double min, double max)
{
    CheckBounds(min, max, parameter);
    const std::string range = RangeText(min, max);
    const std::string fix =
        "give one finite number" + (range.empty() ? ", such as 0.5 or 1e-3" : range);
    const std::string trimmed = Trim(text);
    if (trimmed.empty())
    {
        throw ConfigError(parameter, "is empty, expected a finite number" + range, fix);
    }
    double value = 0.0;
    if (!ReadWholeDouble(trimmed, value) || !std::isfinite(value))
    {
        throw ConfigError(parameter,
                          "'" + text + "' is not a finite number" + range +
                              " (nothing may precede or follow the number)",
                          fix);
    }
    if (value < min || value > max)
    {
        throw ConfigError(parameter,
                          "'" + text + "' is out of range: expected a number" + range,
                          fix);
    }
    return value;
}

uint64_t
ParseUint64(const std::string& text, const std::string& parameter, uint64_t min, uint64_t max)
{
    CheckBounds(min, max, parameter);
    const std::string range = RangeText(min, max);
    const std::string wholeNumber = "a whole number in " + range;
    const std::string fix =
        "give " + wholeNumber + " in decimal digits, such as " + std::to_string(min);
    const std::string trimmed = Trim(text);
    if (trimmed.empty())
    {
        throw ConfigError(parameter, "is empty, expected " + wholeNumber, fix);
    }
    const std::string outOfRange = "'" + text + "' is out of range: expected " + wholeNumber;
    if (std::all_of(trimmed.begin(), trimmed.end(), [](char c) { return c >= '0' && c <= '9'; }))
    {
        uint64_t value = 0;
        for (char c : trimmed)
        {
            const auto digit = static_cast<uint64_t>(c - '0');
            if (value > (std::numeric_limits<uint64_t>::max() - digit) / 10)
            {
                throw ConfigError(parameter, outOfRange, fix);
            }
            value = 10 * value + digit;
        }
        if (value < min || value > max)
        {
            throw ConfigError(parameter, outOfRange, fix);
        }
        return value;
    }
    // Not plain digits: say what is wrong with a number written another way.
    double value = 0.0;
    if (!ReadWholeDouble(trimmed, value) || !std::isfinite(value))
    {
        throw ConfigError(parameter, "'" + text + "' is not " + wholeNumber, fix);
    }
    if (value < 0.0)
    {
        throw ConfigError(parameter, "'" + text + "' is negative, expected " + wholeNumber, fix);
    }
    if (std::floor(value) != value)
    {
        throw ConfigError(parameter,
                          "'" + text + "' is not a whole number, expected " + wholeNumber,
                          fix);
    }
    // 2^64 and above do not fit; below it the cast is exact for a whole number.
    if (value >= 18446744073709551616.0 || static_cast<uint64_t>(value) < min ||
        static_cast<uint64_t>(value) > max)
    {
        throw ConfigError(parameter, outOfRange, fix);
    }
    throw ConfigError(parameter,
                      "'" + text + "' is not written in decimal digits, expected " + wholeNumber,
                      "write the integer in full: " + std::to_string(static_cast<uint64_t>(value)));
}

std::vector<std::string>
SplitList(const std::string& text,
          const std::string& parameter,
          std::size_t maxItems,
          char separator)
{
    const std::string sep = std::string("'") + separator + "'";
    const std::size_t count = std::count(text.begin(), text.end(), separator) + 1;
    if (count > maxItems)
    {
        throw ConfigError(parameter,
                          "has " + std::to_string(count) + " items, more than the bound of " +
                              std::to_string(maxItems),
                          "give at most " + std::to_string(maxItems) +
                              " items, or raise the bound (the maxItems argument where " +
                              parameter + " is parsed)");
    }
    if (Trim(text).empty())
    {
        throw ConfigError(parameter,
                          "is empty",
                          "give at least one item; items are separated by " + sep);
    }
    std::vector<std::string> items;
    items.reserve(count);
    std::size_t begin = 0;
    for (std::size_t k = 0; k < count; ++k)
    {
        const std::size_t end = k + 1 < count ? text.find(separator, begin) : text.size();
        std::string item = Trim(text.substr(begin, end - begin));
        if (item.empty())
        {
            if (k + 1 == count)
            {
                throw ConfigError(parameter,
                                  "'" + text + "' ends with " + sep,
                                  "remove the trailing " + sep);
            }
            throw ConfigError(parameter,
                              "item " + std::to_string(k + 1) + " of '" + text + "' is empty",
                              "remove the extra " + sep + "; items are separated by one " + sep);
        }
        items.push_back(std::move(item));
        begin = end + 1;
    }
    return items;
}

std::vector<double>
ParseDoubleList(const std::string& text,
                const std::string& parameter,
                double min,
                double max,
                std::size_t maxItems)
{
    std::vector<double> values;
    for (const std::string& item : SplitList(text, parameter, maxItems))
    {
        values.push_back(ParseDouble(item, parameter, min, max));
    }
    return values;
}

std::set<uint32_t>
ParseRoundList(const std::string& spec, const std::string& parameter)
{
    std::set<uint32_t> out;
    std::string s;
    for (char c : spec)
    {
        if (!std::isspace(static_cast<unsigned char>(c)))
        {
            s.push_back(c);
        }
    }
    std::size_t pos = 0;
    auto fail = [&](const std::string& what) {
        throw ConfigError(parameter,
                          "\"" + spec + "\": " + what,
                          "give rounds and ranges such as 3,5-7,10");
    };
    auto number = [&](std::size_t& p) -> uint32_t {
        if (p >= s.size() || !std::isdigit(static_cast<unsigned char>(s[p])))
        {
            fail("a round number was expected at position " + std::to_string(p));
        }
        uint64_t v = 0;
        while (p < s.size() && std::isdigit(static_cast<unsigned char>(s[p])))
        {
            v = v * 10 + static_cast<uint64_t>(s[p] - '0');
            if (v > std::numeric_limits<uint32_t>::max())
            {
                fail("round number too large");
            }
            ++p;
        }
        return static_cast<uint32_t>(v);
    };
    while (pos < s.size())
    {
        const uint32_t a = number(pos);
        uint32_t b = a;
        if (pos < s.size() && s[pos] == '-')
        {
            ++pos;
            b = number(pos);
            if (b < a)
            {
                fail("range " + std::to_string(a) + "-" + std::to_string(b) + " is reversed");
            }
        }
        if (b - a > 10000000u)
        {
            fail("range too long");
        }
        for (uint64_t r = a; r <= b; ++r)
        {
            out.insert(static_cast<uint32_t>(r));
        }
        if (pos < s.size())
        {
            if (s[pos] != ',')
            {
                fail("unexpected character '" + std::string(1, s[pos]) + "'");
            }
            ++pos;
            if (pos == s.size())
            {
                fail("trailing comma");
            }
        }
    }
    return out;
}

} // namespace fl
} // namespace ns3

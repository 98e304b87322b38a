/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Strict parsing of numbers and lists given as text (command-line flags, model specifications).
 */
#ifndef FL_TEXT_PARSE_H
#define FL_TEXT_PARSE_H

#include "ns3/fl-types.h"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

namespace ns3
{
namespace fl
{

/// Most items SplitList and the list parsers accept unless the caller gives another bound.
constexpr std::size_t kDefaultMaxListItems = 1000;

/**
 * Parses a finite decimal number (as strtod reads it: "0.5", "-2", "1e-3"), optionally
 * surrounded by spaces or tabs; nothing else may precede or follow it.
 * @param text the text to parse
 * @param parameter name of the parameter, used in error messages
 * @param min smallest accepted value
 * @param max largest accepted value
 * @return the value, in [min, max]
 * Throws ConfigError naming `parameter`, the bad text and the valid range if the text is empty,
 * not a number, not finite or out of range.
 */
double ParseDouble(const std::string& text,
                   const std::string& parameter,
                   double min = -std::numeric_limits<double>::infinity(),
                   double max = std::numeric_limits<double>::infinity());

/**
 * Parses a whole number written in decimal digits, optionally surrounded by spaces or tabs.
 * No sign, no exponent, no fraction: "-1", "+1", "1e3" and "2.5" are rejected, and a value
 * beyond `max` (however many digits it has) is reported as out of range, never wrapped.
 * @param text the text to parse
 * @param parameter name of the parameter, used in error messages
 * @param min smallest accepted value
 * @param max largest accepted value
 * @return the value, in [min, max]
 * Throws ConfigError naming `parameter`, the bad text and the valid range.
 */
uint64_t ParseUint64(const std::string& text,
                     const std::string& parameter,
                     uint64_t min = 0,
                     uint64_t max = std::numeric_limits<uint64_t>::max());

/**
 * ParseUint64 for an unsigned type T: the range defaults to all of T, so a value T cannot hold
 * is rejected as out of range.
 */
template <typename T>
T
ParseUnsigned(const std::string& text,
              const std::string& parameter,
              T min = 0,
              T max = std::numeric_limits<T>::max())
{
    static_assert(std::is_unsigned<T>::value && !std::is_same<T, bool>::value &&
                      sizeof(T) <= sizeof(uint64_t),
                  "ParseUnsigned takes an unsigned integer type of at most 64 bits");
    return static_cast<T>(ParseUint64(text, parameter, min, max));
}

/// ParseUnsigned for uint32_t.
inline uint32_t
ParseUint32(const std::string& text,
            const std::string& parameter,
            uint32_t min = 0,
            uint32_t max = std::numeric_limits<uint32_t>::max())
{
    return ParseUnsigned<uint32_t>(text, parameter, min, max);
}

/// ParseUnsigned for std::size_t.
inline std::size_t
ParseSize(const std::string& text,
          const std::string& parameter,
          std::size_t min = 0,
          std::size_t max = std::numeric_limits<std::size_t>::max())
{
    return ParseUnsigned<std::size_t>(text, parameter, min, max);
}

/**
 * Splits a list such as "0, 0.1,0.3" at every separator and trims spaces and tabs around each
 * item. An empty text, an empty item ("a,,b", ",a") and a trailing separator ("a,b,") are
 * rejected, as is a list of more than `maxItems` items (counted before anything is copied).
 * @param text the list
 * @param parameter name of the parameter, used in error messages
 * @param maxItems most items accepted
 * @param separator the character between items
 * @return the trimmed items, at least one
 * Throws ConfigError naming `parameter`.
 */
std::vector<std::string> SplitList(const std::string& text,
                                   const std::string& parameter,
                                   std::size_t maxItems = kDefaultMaxListItems,
                                   char separator = ',');

/**
 * A comma-separated list of numbers: SplitList, then ParseDouble on every item.
 * Throws ConfigError naming `parameter`.
 */
std::vector<double> ParseDoubleList(const std::string& text,
                                    const std::string& parameter,
                                    double min = -std::numeric_limits<double>::infinity(),
                                    double max = std::numeric_limits<double>::infinity(),
                                    std::size_t maxItems = kDefaultMaxListItems);

/**
 * A comma-separated list of whole numbers: SplitList, then ParseUnsigned<T> on every item.
 * Throws ConfigError naming `parameter`.
 */
template <typename T>
std::vector<T>
ParseUnsignedList(const std::string& text,
                  const std::string& parameter,
                  T min = 0,
                  T max = std::numeric_limits<T>::max(),
                  std::size_t maxItems = kDefaultMaxListItems)
{
    std::vector<T> values;
    for (const std::string& item : SplitList(text, parameter, maxItems))
    {
        values.push_back(ParseUnsigned<T>(item, parameter, min, max));
    }
    return values;
}

/**
 * Parses a list of rounds such as "3,5-7,10" (whitespace allowed, empty = none) into a set.
 * Throws ConfigError naming `parameter` on malformed input or a reversed range.
 */
std::set<uint32_t> ParseRoundList(const std::string& spec, const std::string& parameter);

} // namespace fl
} // namespace ns3

#endif // FL_TEXT_PARSE_H

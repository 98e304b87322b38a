/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Tests of the text parser: numbers, whole numbers and lists, what each accepts and how it
 * reports what it rejects.
 */
#include "fl-test-config-error.h"

#include "ns3/text-parse.h"

#include <gtest/gtest.h>
#include <initializer_list>
#include <limits>

using namespace ns3::fl;
using fltest::ExpectConfigError;

namespace
{

constexpr double kInf = std::numeric_limits<double>::infinity();

} // namespace

// ---------------------------------------------------------------------------------------------
// ParseDouble
// ---------------------------------------------------------------------------------------------

TEST(TextParse, ParseDoubleAcceptsFiniteNumbers)
{
    EXPECT_EQ(ParseDouble("0.5", "--x"), 0.5);
    EXPECT_EQ(ParseDouble("-2", "--x"), -2.0);
    EXPECT_EQ(ParseDouble("1e-3", "--x"), 1e-3);
    EXPECT_EQ(ParseDouble("  0.25\t", "--x"), 0.25);
    EXPECT_EQ(ParseDouble("+3", "--x"), 3.0);
    // Bounds are inclusive.
    EXPECT_EQ(ParseDouble("0", "--x", 0.0, 1.0), 0.0);
    EXPECT_EQ(ParseDouble("1", "--x", 0.0, 1.0), 1.0);
    EXPECT_EQ(ParseDouble("1.7e308", "--x"), 1.7e308);
}

TEST(TextParse, ParseDoubleRejectsEmptyJunkAndNonFinite)
{
    ExpectConfigError([] { ParseDouble("", "--rate", 0.0, 1.0); }, "--rate", {"empty", "[0, 1]"});
    ExpectConfigError([] { ParseDouble("   ", "--rate"); }, "--rate", {"empty"});
    ExpectConfigError([] { ParseDouble("abc", "--rate", 0.0, 1.0); },
                      "--rate",
                      {"'abc'", "not a finite number", "[0, 1]"});
    ExpectConfigError([] { ParseDouble("0.1x", "--rate"); }, "--rate", {"'0.1x'"});
    ExpectConfigError([] { ParseDouble("1 2", "--rate"); }, "--rate", {"'1 2'"});
    ExpectConfigError([] { ParseDouble("0.1,", "--rate"); }, "--rate", {"'0.1,'"});
    ExpectConfigError([] { ParseDouble("nan", "--rate"); }, "--rate", {"'nan'", "finite"});
    ExpectConfigError([] { ParseDouble("inf", "--rate"); }, "--rate", {"'inf'", "finite"});
    ExpectConfigError([] { ParseDouble("-inf", "--rate"); }, "--rate", {"'-inf'"});
    ExpectConfigError([] { ParseDouble("1e999", "--rate"); }, "--rate", {"'1e999'", "finite"});
}

TEST(TextParse, ParseDoubleChecksTheRange)
{
    ExpectConfigError([] { ParseDouble("2", "--rate", 0.0, 1.0); },
                      "--rate",
                      {"'2'", "out of range", "in [0, 1]"});
    ExpectConfigError([] { ParseDouble("-0.5", "--time", 0.0); },
                      "--time",
                      {"'-0.5'", "out of range", ">= 0"});
    ExpectConfigError([] { ParseDouble("7", "--gain", -kInf, 5.0); }, "--gain", {"'7'", "<= 5"});
    // The range is printed so that it reads back exactly.
    ExpectConfigError([] { ParseDouble("0.2", "--p", 0.0, 0.1); }, "--p", {"[0, 0.1]"});
    // A caller's empty range is reported, not silently used.
    ExpectConfigError([] { ParseDouble("0.5", "--p", 1.0, 0.0); }, "--p", {"minimum above"});
}

// ---------------------------------------------------------------------------------------------
// ParseUnsigned / ParseUint32 / ParseUint64 / ParseSize
// ---------------------------------------------------------------------------------------------

TEST(TextParse, ParseUnsignedAcceptsDecimalDigits)
{
    EXPECT_EQ(ParseUint32("42", "--n"), 42u);
    EXPECT_EQ(ParseUint32(" 7 ", "--n"), 7u);
    EXPECT_EQ(ParseUint32("0", "--n"), 0u);
    EXPECT_EQ(ParseUint32("00012", "--n"), 12u);
    EXPECT_EQ(ParseUint32("4294967295", "--n"), 4294967295u);
    EXPECT_EQ(ParseUint64("18446744073709551615", "--n"), std::numeric_limits<uint64_t>::max());
    EXPECT_EQ(ParseUint64("1000000000000", "--n"), 1000000000000ull);
    EXPECT_EQ(ParseSize("10", "--n", 1, 10), 10u);
    EXPECT_EQ(ParseUnsigned<uint16_t>("65535", "--n"), 65535u);
    EXPECT_EQ(ParseUnsigned<uint8_t>("3", "--n", 1, 5), 3u);
}

TEST(TextParse, ParseUnsignedRejectsSignsFractionsAndExponents)
{
    ExpectConfigError([] { ParseUint32("-1", "--n"); },
                      "--n",
                      {"'-1'", "negative", "[0, 4294967295]"});
    ExpectConfigError([] { ParseUint64("-1", "--n"); }, "--n", {"'-1'", "negative"});
    ExpectConfigError([] { ParseUint32("2.5", "--n"); }, "--n", {"'2.5'", "not a whole number"});
    ExpectConfigError([] { ParseUint32("+5", "--n"); },
                      "--n",
                      {"'+5'", "write the integer in full: 5"});
    ExpectConfigError([] { ParseUint32("abc", "--n"); },
                      "--n",
                      {"'abc'", "not a whole number in [0, 4294967295]"});
    ExpectConfigError([] { ParseUint32("12abc", "--n"); }, "--n", {"'12abc'"});
    ExpectConfigError([] { ParseUint32("1 2", "--n"); }, "--n", {"'1 2'"});
    ExpectConfigError([] { ParseUint32("", "--n"); }, "--n", {"empty", "[0, 4294967295]"});
    ExpectConfigError([] { ParseUint32("0x10", "--n"); }, "--n", {"'0x10'", "in full: 16"});
    ExpectConfigError([] { ParseUint32("nan", "--n"); }, "--n", {"'nan'"});
    // An exponent: out of range for uint32, else written in full.
    ExpectConfigError([] { ParseUint32("1e12", "--n"); },
                      "--n",
                      {"'1e12'", "out of range", "[0, 4294967295]"});
    ExpectConfigError([] { ParseUint64("1e12", "--n"); },
                      "--n",
                      {"'1e12'", "decimal digits", "write the integer in full: 1000000000000"});
    ExpectConfigError([] { ParseUint64("1e20", "--n"); }, "--n", {"'1e20'", "out of range"});
}

TEST(TextParse, ParseUnsignedNeverWraps)
{
    ExpectConfigError([] { ParseUint32("99999999999", "--n"); },
                      "--n",
                      {"'99999999999'", "out of range", "[0, 4294967295]"});
    ExpectConfigError([] { ParseUint32("4294967296", "--n"); }, "--n", {"out of range"});
    ExpectConfigError([] { ParseUint64("18446744073709551616", "--n"); },
                      "--n",
                      {"out of range", "[0, 18446744073709551615]"});
    ExpectConfigError([] { ParseUint64("99999999999999999999999", "--n"); },
                      "--n",
                      {"out of range"});
    ExpectConfigError([] { ParseUnsigned<uint16_t>("65536", "--n"); },
                      "--n",
                      {"out of range", "[0, 65535]"});
}

TEST(TextParse, ParseUnsignedChecksTheRange)
{
    ExpectConfigError([] { ParseSize("0", "--k", 1, 10); },
                      "--k",
                      {"'0'", "out of range", "[1, 10]"});
    ExpectConfigError([] { ParseSize("11", "--k", 1, 10); }, "--k", {"'11'", "[1, 10]"});
    ExpectConfigError([] { ParseUint32("5", "--k", 6, 5); }, "--k", {"minimum above"});
}

// ---------------------------------------------------------------------------------------------
// SplitList and the list parsers
// ---------------------------------------------------------------------------------------------

TEST(TextParse, SplitListTrimsItems)
{
    EXPECT_EQ(SplitList("0,0.1,0.3", "--l"), (std::vector<std::string>{"0", "0.1", "0.3"}));
    EXPECT_EQ(SplitList(" a , b\t", "--l"), (std::vector<std::string>{"a", "b"}));
    EXPECT_EQ(SplitList("drop", "--l"), (std::vector<std::string>{"drop"}));
    EXPECT_EQ(SplitList("256-64", "--l", 10, '-'), (std::vector<std::string>{"256", "64"}));
    EXPECT_EQ(SplitList("1,2,3", "--l", 3).size(), 3u);
}

TEST(TextParse, SplitListRejectsEmptyItemsAndTrailingCommas)
{
    ExpectConfigError([] { SplitList("", "--l"); }, "--l", {"empty"});
    ExpectConfigError([] { SplitList("  ", "--l"); }, "--l", {"empty"});
    ExpectConfigError([] { SplitList("a,,b", "--l"); }, "--l", {"item 2", "'a,,b'", "empty"});
    ExpectConfigError([] { SplitList(",a", "--l"); }, "--l", {"item 1", "empty"});
    ExpectConfigError([] { SplitList("a, ,b", "--l"); }, "--l", {"item 2"});
    ExpectConfigError([] { SplitList("a,b,", "--l"); },
                      "--l",
                      {"'a,b,'", "ends with ','", "remove the trailing ','"});
    ExpectConfigError([] { SplitList("12-", "--l", 10, '-'); }, "--l", {"ends with '-'"});
}

TEST(TextParse, SplitListBoundsTheCount)
{
    ExpectConfigError([] { SplitList("1,2,3", "--l", 2); },
                      "--l",
                      {"3 items", "bound of 2", "at most 2", "raise the bound", "maxItems"});
    // The count is checked first, so a huge list is refused without splitting it.
    const std::string huge(10 * kDefaultMaxListItems, ',');
    ExpectConfigError([&] { SplitList(huge, "--l"); },
                      "--l",
                      {std::to_string(10 * kDefaultMaxListItems + 1) + " items",
                       "bound of " + std::to_string(kDefaultMaxListItems)});
}

TEST(TextParse, ParseDoubleListParsesEveryItem)
{
    EXPECT_EQ(ParseDoubleList("0,0.1,0.3", "--losses"), (std::vector<double>{0.0, 0.1, 0.3}));
    EXPECT_EQ(ParseDoubleList("0,0.5,1,2", "--deadlines", 0.0),
              (std::vector<double>{0.0, 0.5, 1.0, 2.0}));
    EXPECT_EQ(ParseDoubleList(" 0.05 , 0.2", "--losses", 0.0, 1.0),
              (std::vector<double>{0.05, 0.2}));
    ExpectConfigError([] { ParseDoubleList("0,abc", "--losses"); }, "--losses", {"'abc'"});
    ExpectConfigError([] { ParseDoubleList("0,1.5", "--losses", 0.0, 1.0); },
                      "--losses",
                      {"'1.5'", "[0, 1]"});
    ExpectConfigError([] { ParseDoubleList("0,0.1,", "--losses"); }, "--losses", {"ends with"});
    ExpectConfigError([] { ParseDoubleList("1,2,3", "--losses", 0.0, 9.0, 2); },
                      "--losses",
                      {"bound of 2"});
}

TEST(TextParse, ParseUnsignedListParsesEveryItem)
{
    EXPECT_EQ(ParseUnsignedList<uint32_t>("1, 2,30", "--sizes"), (std::vector<uint32_t>{1, 2, 30}));
    EXPECT_EQ(ParseUnsignedList<uint64_t>("1000000000000", "--sizes"),
              (std::vector<uint64_t>{1000000000000ull}));
    ExpectConfigError([] { ParseUnsignedList<uint32_t>("1,-1", "--sizes"); },
                      "--sizes",
                      {"'-1'", "negative"});
    ExpectConfigError([] { ParseUnsignedList<uint32_t>("1,0", "--sizes", 1, 9); },
                      "--sizes",
                      {"'0'", "[1, 9]"});
    ExpectConfigError([] { ParseUnsignedList<uint32_t>("1,,2", "--sizes"); },
                      "--sizes",
                      {"item 2"});
    ExpectConfigError([] { ParseUnsignedList<uint32_t>("1,2,3", "--sizes", 0, 9, 2); },
                      "--sizes",
                      {"bound of 2"});
}

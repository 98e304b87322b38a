/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Tests of the data readers (IDX, CSV) and of the Dataset utilities.
 */
#include "ns3/data-checks.h"
#include "ns3/data-io.h"
#include "ns3/dataset.h"

#include "fl-test-config-error.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>
#include <set>
#include <string>
#include <vector>
#include <zlib.h>

using namespace ns3::fl;

namespace
{

namespace fs = std::filesystem;

/// A fresh temporary directory per test, removed afterwards.
class DataIoTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        std::string tmpl = (fs::temp_directory_path() / "fl-data-io-XXXXXX").string();
        ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
        m_dir = tmpl;
    }

    void TearDown() override
    {
        std::error_code ec;
        fs::remove_all(m_dir, ec);
    }

    std::string Path(const std::string& name) const
    {
        return (fs::path(m_dir) / name).string();
    }

    fs::path m_dir;
};

using Bytes = std::vector<unsigned char>;

/// Writes bytes to a plain or gzip-compressed file.
void
WriteFile(const std::string& path, const Bytes& bytes, bool gzip)
{
    if (gzip)
    {
        gzFile f = gzopen(path.c_str(), "wb");
        ASSERT_NE(f, nullptr);
        if (!bytes.empty())
        {
            ASSERT_EQ(gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size())),
                      static_cast<int>(bytes.size()));
        }
        ASSERT_EQ(gzclose(f), Z_OK);
    }
    else
    {
        std::ofstream out(path, std::ios::binary);
        out.write(reinterpret_cast<const char*>(bytes.data()),
                  static_cast<std::streamsize>(bytes.size()));
        ASSERT_TRUE(out.good());
    }
}

void
WriteText(const std::string& path, const std::string& text, bool gzip = false)
{
    WriteFile(path, Bytes(text.begin(), text.end()), gzip);
}

void
PutBigEndian(Bytes& b, uint64_t v, int bytes)
{
    for (int i = bytes - 1; i >= 0; --i)
    {
        b.push_back(static_cast<unsigned char>((v >> (8 * i)) & 0xFF));
    }
}

/// IDX header: 0, 0, type, ndims, big-endian sizes.
Bytes
IdxHeaderBytes(uint8_t type, const std::vector<uint32_t>& dims)
{
    Bytes b{0, 0, type, static_cast<unsigned char>(dims.size())};
    for (uint32_t d : dims)
    {
        PutBigEndian(b, d, 4);
    }
    return b;
}

/// Complete IDX file holding `values` (which must be representable in `type`).
Bytes
IdxFileBytes(uint8_t type, const std::vector<uint32_t>& dims, const std::vector<double>& values)
{
    Bytes b = IdxHeaderBytes(type, dims);
    for (double v : values)
    {
        switch (type)
        {
        case 0x08:
        case 0x09:
            b.push_back(static_cast<unsigned char>(static_cast<int>(v) & 0xFF));
            break;
        case 0x0B:
            PutBigEndian(b, static_cast<uint16_t>(static_cast<int16_t>(v)), 2);
            break;
        case 0x0C:
            PutBigEndian(b, static_cast<uint32_t>(static_cast<int32_t>(v)), 4);
            break;
        case 0x0D: {
            const float f = static_cast<float>(v);
            uint32_t u;
            std::memcpy(&u, &f, 4);
            PutBigEndian(b, u, 4);
            break;
        }
        case 0x0E: {
            uint64_t u;
            std::memcpy(&u, &v, 8);
            PutBigEndian(b, u, 8);
            break;
        }
        default:
            ADD_FAILURE() << "bad type";
        }
    }
    return b;
}

/// Expects `fn` to throw E whose message contains every string of `parts`.
template <typename E>
void
ExpectThrowWith(const std::function<void()>& fn, const std::vector<std::string>& parts)
{
    try
    {
        fn();
        ADD_FAILURE() << "no exception thrown";
    }
    catch (const E& e)
    {
        const std::string msg = e.what();
        for (const auto& p : parts)
        {
            EXPECT_NE(msg.find(p), std::string::npos)
                << "message '" << msg << "' lacks '" << p << "'";
        }
    }
    catch (const std::exception& e)
    {
        ADD_FAILURE() << "wrong exception type: " << e.what();
    }
}

// ------------------------------------------------------------------------------------------
// IDX
// ------------------------------------------------------------------------------------------

TEST_F(DataIoTest, IdxRoundTripEveryTypePlainAndGzip)
{
    struct Case
    {
        uint8_t type;
        std::vector<double> values;
    };

    const std::vector<Case> cases = {
        {0x08, {0, 1, 127, 128, 254, 255}},
        {0x09, {-128, -1, 0, 1, 100, 127}},
        {0x0B, {-32768, -300, 0, 1, 258, 32767}},
        {0x0C, {-2147483648.0, -70000, 0, 1, 65536, 2147483647.0}},
        {0x0D, {-1.5, 0.0, 1e-3f, 3.25, 16777216.0, -1e30f}},
        {0x0E, {-M_PI, 0.0, 1e-300, 2.5, 1e300, -0.1}},
    };
    const std::vector<uint32_t> dims{2, 3};
    for (const auto& c : cases)
    {
        for (bool gzip : {false, true})
        {
            const std::string path = Path("t" + std::to_string(c.type) + (gzip ? ".gz" : ""));
            WriteFile(path, IdxFileBytes(c.type, dims, c.values), gzip);
            const IdxArray a = ReadIdx(path);
            EXPECT_EQ(a.typeCode, c.type);
            EXPECT_EQ(a.dims, dims);
            ASSERT_EQ(a.values.size(), c.values.size());
            for (std::size_t i = 0; i < c.values.size(); ++i)
            {
                const double expected = c.type == 0x0D
                                            ? static_cast<double>(static_cast<float>(c.values[i]))
                                            : c.values[i];
                EXPECT_EQ(a.values[i], expected) << "type " << int(c.type) << " index " << i;
            }
        }
    }
}

TEST_F(DataIoTest, IdxGzipDetectedByContentNotName)
{
    const std::vector<double> v{1, 2, 3};
    WriteFile(Path("compressed.idx"), IdxFileBytes(0x08, {3}, v), true);
    WriteFile(Path("plain.gz"), IdxFileBytes(0x08, {3}, v), false);
    EXPECT_EQ(ReadIdx(Path("compressed.idx")).values, v);
    EXPECT_EQ(ReadIdx(Path("plain.gz")).values, v);
}

TEST_F(DataIoTest, IdxDatasetImagesAndLabels)
{
    // 5 images of 2 x 3 pixels.
    std::vector<double> pixels(5 * 6);
    for (std::size_t i = 0; i < pixels.size(); ++i)
    {
        pixels[i] = static_cast<double>((i * 37) % 256);
    }
    const std::vector<double> labels{0, 3, 1, 2, 3};
    WriteFile(Path("img.gz"), IdxFileBytes(0x08, {5, 2, 3}, pixels), true);
    WriteFile(Path("lab"), IdxFileBytes(0x08, {5}, labels), false);

    const auto d = ReadIdxDataset<double>(Path("img.gz"), Path("lab"));
    EXPECT_EQ(d.Size(), 5u);
    EXPECT_EQ(d.Dim(), 6u);
    EXPECT_EQ(d.kind, TargetKind::Categorical);
    EXPECT_EQ(d.numClasses, 4);
    for (std::size_t i = 0; i < 5; ++i)
    {
        EXPECT_EQ(d.targets[i], labels[i]);
        for (std::size_t j = 0; j < 6; ++j)
        {
            EXPECT_EQ(d.features(i, j), pixels[i * 6 + j] * (1.0 / 255.0));
        }
    }
    EXPECT_NO_THROW(d.Validate("idx"));

    const auto f = ReadIdxDataset<float>(Path("img.gz"), Path("lab"), 0, 1.0);
    for (std::size_t i = 0; i < 5; ++i)
    {
        for (std::size_t j = 0; j < 6; ++j)
        {
            EXPECT_EQ(f.features(i, j), static_cast<float>(pixels[i * 6 + j]));
        }
    }

    // maxSamples: only the first samples; numClasses from the labels read (0, 3, 1 -> 4).
    const auto head = ReadIdxDataset<double>(Path("img.gz"), Path("lab"), 3);
    EXPECT_EQ(head.Size(), 3u);
    EXPECT_EQ(head.numClasses, 4);
    EXPECT_EQ(head.features.row(2), d.features.row(2));
    const auto two = ReadIdxDataset<double>(Path("img.gz"), Path("lab"), 2);
    EXPECT_EQ(two.numClasses, 4);
    EXPECT_EQ(ReadIdxDataset<double>(Path("img.gz"), Path("lab"), 100).Size(), 5u);
}

TEST_F(DataIoTest, IdxErrorsNameTheFile)
{
    const std::string missing = Path("no-such-file");
    ExpectThrowWith<DataError>([&] { ReadIdx(missing); }, {missing});

    // Truncated header: 3 dimensions announced, only one size present.
    Bytes shortHeader = IdxHeaderBytes(0x08, {4, 2, 2});
    shortHeader.resize(8);
    for (bool gzip : {false, true})
    {
        const std::string p = Path(std::string("short-header") + (gzip ? ".gz" : ""));
        WriteFile(p, shortHeader, gzip);
        ExpectThrowWith<DataError>([&] { ReadIdx(p); }, {p, "truncated header"});
    }
    const std::string tiny = Path("tiny");
    WriteFile(tiny, Bytes{0, 0}, false);
    ExpectThrowWith<DataError>([&] { ReadIdx(tiny); }, {tiny, "truncated header"});
    const std::string empty = Path("empty");
    WriteFile(empty, Bytes{}, false);
    ExpectThrowWith<DataError>([&] { ReadIdx(empty); }, {empty, "truncated header"});

    // Truncated data: 4 x 2 x 2 ubyte needs 16 bytes, give 10.
    Bytes shortData = IdxHeaderBytes(0x08, {4, 2, 2});
    shortData.insert(shortData.end(), 10, 7);
    for (bool gzip : {false, true})
    {
        const std::string p = Path(std::string("short-data") + (gzip ? ".gz" : ""));
        WriteFile(p, shortData, gzip);
        ExpectThrowWith<DataError>([&] { ReadIdx(p); }, {p, "truncated data", "16", "10"});
    }
    // The same for a wider type: 3 float64 need 24 bytes, give 20.
    Bytes shortDoubles = IdxHeaderBytes(0x0E, {3});
    shortDoubles.insert(shortDoubles.end(), 20, 0);
    const std::string sd = Path("short-doubles");
    WriteFile(sd, shortDoubles, false);
    ExpectThrowWith<DataError>([&] { ReadIdx(sd); }, {sd, "24", "20"});

    // Wrong magic: first two bytes must be zero.
    Bytes badMagic = IdxFileBytes(0x08, {2}, {1, 2});
    badMagic[1] = 1;
    const std::string bm = Path("bad-magic");
    WriteFile(bm, badMagic, false);
    ExpectThrowWith<DataError>([&] { ReadIdx(bm); }, {bm, "magic"});

    // Unknown type code 0x0A.
    Bytes badType = IdxFileBytes(0x08, {2}, {1, 2});
    badType[2] = 0x0A;
    const std::string bt = Path("bad-type");
    WriteFile(bt, badType, true);
    ExpectThrowWith<DataError>([&] { ReadIdx(bt); }, {bt, "type code", "0x0A"});
}

TEST_F(DataIoTest, IdxDatasetErrors)
{
    WriteFile(Path("img"), IdxFileBytes(0x08, {3, 2, 2}, std::vector<double>(12, 1)), false);
    WriteFile(Path("lab4"), IdxFileBytes(0x08, {4}, {0, 1, 2, 3}), false);
    WriteFile(Path("lab2d"), IdxFileBytes(0x08, {3, 1}, {0, 1, 2}), false);
    WriteFile(Path("labf"), IdxFileBytes(0x0D, {3}, {0, 1, 2}), false);
    WriteFile(Path("lab3"), IdxFileBytes(0x08, {3}, {0, 1, 2}), false);

    ExpectThrowWith<DataError>([&] { ReadIdxDataset<double>(Path("img"), Path("lab4")); },
                               {Path("img"), Path("lab4"), "3", "4"});
    ExpectThrowWith<DataError>([&] { ReadIdxDataset<double>(Path("img"), Path("lab2d")); },
                               {Path("lab2d")});
    ExpectThrowWith<DataError>([&] { ReadIdxDataset<double>(Path("img"), Path("labf")); },
                               {Path("labf")});
    ExpectThrowWith<DataError>([&] { ReadIdxDataset<double>(Path("lab3"), Path("lab3")); },
                               {Path("lab3")});
    ExpectThrowWith<DataError>([&] { ReadIdxDataset<double>(Path("img"), Path("nope")); },
                               {Path("nope")});
    ExpectThrowWith<DataError>([&] { ReadIdxDataset<double>(Path("nope"), Path("lab3")); },
                               {Path("nope")});
    EXPECT_EQ(ReadIdxDataset<float>(Path("img"), Path("lab3")).Size(), 3u);
}

// Found by fuzzing: a label of 2^31-1 overflowed the int class count (UBSan), a label of 1e8 built
// a 12.9e9-parameter model. Labels are checked against a bounded class count.
TEST_F(DataIoTest, IdxLabelsAreBoundedByMaxClasses)
{
    WriteFile(Path("img"), IdxFileBytes(0x08, {2, 2}, {1, 2, 3, 4}), false);
    WriteFile(Path("max"), IdxFileBytes(0x0C, {2}, {0, 2147483647.0}), false);
    WriteFile(Path("1e8"), IdxFileBytes(0x0C, {2}, {100000000.0, 0}), false);
    WriteFile(Path("999"), IdxFileBytes(0x0B, {2}, {999, 0}), false);
    WriteFile(Path("1000"), IdxFileBytes(0x0B, {2}, {0, 1000}), false);

    ExpectThrowWith<DataError>([&] { ReadIdxDataset<double>(Path("img"), Path("max")); },
                               {Path("max"), "sample 1", "2147483647", "maxClasses = 1000"});
    ExpectThrowWith<DataError>([&] { ReadIdxDataset<float>(Path("img"), Path("1e8")); },
                               {Path("1e8"), "sample 0", "100000000", "raise maxClasses"});
    ExpectThrowWith<DataError>([&] { ReadIdxDataset<double>(Path("img"), Path("1000")); },
                               {Path("1000"), "sample 1", "1000"});
    // The largest label under the default bound, and a raised bound.
    EXPECT_EQ(ReadIdxDataset<double>(Path("img"), Path("999")).numClasses, 1000);
    EXPECT_EQ(ReadIdxDataset<double>(Path("img"), Path("1000"), 0, 1.0, 1001).numClasses, 1001);
    ExpectThrowWith<DataError>(
        [&] { ReadIdxDataset<double>(Path("img"), Path("999"), 0, 1.0, 999); },
        {"999", "maxClasses = 999"});
    // Even the largest bound keeps 2^31-1 out: numClasses would not fit an int.
    ExpectThrowWith<DataError>(
        [&] { ReadIdxDataset<double>(Path("img"), Path("max"), 0, 1.0, 2147483647u); },
        {"2147483647"});
    ExpectThrowWith<ConfigError>(
        [&] { ReadIdxDataset<double>(Path("img"), Path("999"), 0, 1.0, 0); },
        {"maxClasses"});
    ExpectThrowWith<ConfigError>(
        [&] { ReadIdxDataset<double>(Path("img"), Path("999"), 0, 1.0, 2147483648u); },
        {"maxClasses", "2147483647"});
}

// ------------------------------------------------------------------------------------------
// CSV
// ------------------------------------------------------------------------------------------

TEST_F(DataIoTest, CsvWithHeaderCategorical)
{
    const std::string p = Path("a.csv");
    WriteText(p, "x1,x2,label\n1,2,0\n3.5, -4e-1 ,2\n+7,0.25,1\n");
    const auto d = ReadCsvDataset<double>(p);
    ASSERT_EQ(d.Size(), 3u);
    ASSERT_EQ(d.Dim(), 2u);
    EXPECT_EQ(d.kind, TargetKind::Categorical);
    EXPECT_EQ(d.numClasses, 3);
    EXPECT_EQ(d.features(0, 0), 1.0);
    EXPECT_EQ(d.features(0, 1), 2.0);
    EXPECT_EQ(d.features(1, 0), 3.5);
    EXPECT_EQ(d.features(1, 1), -0.4);
    EXPECT_EQ(d.features(2, 0), 7.0);
    EXPECT_EQ(d.targets[0], 0.0);
    EXPECT_EQ(d.targets[1], 2.0);
    EXPECT_EQ(d.targets[2], 1.0);
    EXPECT_NO_THROW(d.Validate("csv"));
}

TEST_F(DataIoTest, CsvWithoutHeaderDelimiterTargetFirstCrlf)
{
    const std::string p = Path("b.csv");
    WriteText(p, "0.5;1;2\r\n-1.5;3;4\r\n\r\n");
    CsvOptions o;
    o.header = CsvHeader::Absent;
    o.delimiter = ';';
    o.targetColumn = 0;
    o.kind = TargetKind::Regression;
    const auto d = ReadCsvDataset<float>(p, o);
    ASSERT_EQ(d.Size(), 2u);
    ASSERT_EQ(d.Dim(), 2u);
    EXPECT_EQ(d.kind, TargetKind::Regression);
    EXPECT_EQ(d.targets[0], 0.5f);
    EXPECT_EQ(d.targets[1], -1.5f);
    EXPECT_EQ(d.features(0, 0), 1.0f);
    EXPECT_EQ(d.features(1, 1), 4.0f);

    // Tab-separated, header declared present: the first line is skipped even if it is numeric.
    const std::string t = Path("c.tsv");
    WriteText(t, "9\t9\t9\n1\t2\t3\n");
    CsvOptions ot;
    ot.header = CsvHeader::Present;
    ot.delimiter = '\t';
    ot.kind = TargetKind::Regression;
    const auto dt = ReadCsvDataset<double>(t, ot);
    ASSERT_EQ(dt.Size(), 1u);
    EXPECT_EQ(dt.targets[0], 3.0);
}

TEST_F(DataIoTest, CsvNegativeTargetColumn)
{
    const std::string p = Path("neg.csv");
    WriteText(p, "a,b,c,d\n1,2,3,4\n5,6,7,8\n");
    CsvOptions o;
    o.kind = TargetKind::Regression;
    o.targetColumn = -2; // column "c"
    const auto d = ReadCsvDataset<double>(p, o);
    ASSERT_EQ(d.Dim(), 3u);
    EXPECT_EQ(d.targets[0], 3.0);
    EXPECT_EQ(d.targets[1], 7.0);
    EXPECT_EQ(d.features(0, 2), 4.0);
    EXPECT_EQ(d.features(1, 1), 6.0);

    o.targetColumn = -5;
    ExpectThrowWith<ConfigError>([&] { ReadCsvDataset<double>(p, o); }, {"targetColumn", p});
    o.targetColumn = 4;
    ExpectThrowWith<ConfigError>([&] { ReadCsvDataset<double>(p, o); }, {"targetColumn", p});
}

TEST_F(DataIoTest, CsvBinaryLabels)
{
    CsvOptions o;
    o.header = CsvHeader::Absent;
    o.kind = TargetKind::BinarySigned;
    const std::string p01 = Path("b01.csv");
    WriteText(p01, "1,0\n2,1\n3,0\n");
    const auto d = ReadCsvDataset<double>(p01, o);
    EXPECT_EQ(d.numClasses, 2);
    EXPECT_EQ(d.targets[0], -1.0);
    EXPECT_EQ(d.targets[1], 1.0);
    EXPECT_EQ(d.targets[2], -1.0);
    EXPECT_EQ(d.Label(0), 0);
    EXPECT_EQ(d.Label(1), 1);
    EXPECT_NO_THROW(d.Validate("binary"));

    const std::string pm = Path("bpm.csv");
    WriteText(pm, "1,-1\n2,+1\n");
    const auto dm = ReadCsvDataset<double>(pm, o);
    EXPECT_EQ(dm.targets[0], -1.0);
    EXPECT_EQ(dm.targets[1], 1.0);

    const std::string bad = Path("b2.csv");
    WriteText(bad, "1,0\n2,2\n");
    ExpectThrowWith<DataError>([&] { ReadCsvDataset<double>(bad, o); },
                               {bad, "line 2", "column 2"});
}

TEST_F(DataIoTest, CsvMalformedRows)
{
    const std::string count = Path("count.csv");
    WriteText(count, "a,b,y\n1,2,0\n1,2\n");
    ExpectThrowWith<DataError>([&] { ReadCsvDataset<double>(count); },
                               {count, "line 3", "2 fields", "expected 3"});

    const std::string nan = Path("nonnum.csv");
    WriteText(nan, "a,b,y\n1,2,0\n4,abc,1\n");
    ExpectThrowWith<DataError>([&] { ReadCsvDataset<double>(nan); },
                               {nan, "line 3", "column 2", "abc"});

    const std::string partial = Path("partial.csv");
    WriteText(partial, "1.5x,2,0\n");
    CsvOptions noHeader;
    noHeader.header = CsvHeader::Absent;
    ExpectThrowWith<DataError>([&] { ReadCsvDataset<double>(partial, noHeader); },
                               {partial, "line 1", "column 1"});

    const std::string emptyField = Path("emptyfield.csv");
    WriteText(emptyField, "a,b,y\n1,,0\n");
    ExpectThrowWith<DataError>([&] { ReadCsvDataset<double>(emptyField); },
                               {emptyField, "line 2", "column 2"});

    const std::string badClass = Path("badclass.csv");
    WriteText(badClass, "a,y\n1,0\n2,1.5\n");
    ExpectThrowWith<DataError>([&] { ReadCsvDataset<double>(badClass); },
                               {badClass, "line 3", "column 2"});
    WriteText(badClass, "a,y\n1,0\n2,-1\n");
    ExpectThrowWith<DataError>([&] { ReadCsvDataset<double>(badClass); },
                               {badClass, "line 3", "column 2"});

    // Class labels are bounded like IDX labels (options.maxClasses, default 1000).
    WriteText(badClass, "a,y\n1,0\n2,1000\n");
    ExpectThrowWith<DataError>([&] { ReadCsvDataset<double>(badClass); },
                               {badClass, "line 3", "column 2", "1000", "maxClasses"});
    WriteText(badClass, "a,y\n1,0\n2,1e300\n");
    ExpectThrowWith<DataError>([&] { ReadCsvDataset<double>(badClass); },
                               {badClass, "line 3", "maxClasses"});
    WriteText(badClass, "a,y\n1,0\n2,1000\n");
    CsvOptions many;
    many.maxClasses = 1001;
    EXPECT_EQ(ReadCsvDataset<double>(badClass, many).numClasses, 1001);
    many.maxClasses = 0;
    ExpectThrowWith<ConfigError>([&] { ReadCsvDataset<double>(badClass, many); }, {"maxClasses"});

    const std::string inf = Path("inf.csv");
    WriteText(inf, "a,y\ninf,0\n");
    ExpectThrowWith<DataError>([&] { ReadCsvDataset<double>(inf); }, {inf, "line 2", "column 1"});

    const std::string headerOnly = Path("header-only.csv");
    WriteText(headerOnly, "a,b,y\n");
    ExpectThrowWith<DataError>([&] { ReadCsvDataset<double>(headerOnly); }, {headerOnly});

    const std::string oneColumn = Path("one.csv");
    WriteText(oneColumn, "1\n2\n");
    ExpectThrowWith<DataError>([&] { ReadCsvDataset<double>(oneColumn, noHeader); },
                               {oneColumn, "line 1"});

    const std::string missing = Path("missing.csv");
    ExpectThrowWith<DataError>([&] { ReadCsvDataset<double>(missing); }, {missing});
}

// CsvHeader::Auto (the default): a first line with a field that is not a number is a header; a
// first line of numbers is the first row (a file without a header keeps all its rows).
TEST_F(DataIoTest, CsvHeaderDetectedFromTheFirstLine)
{
    const std::string named = Path("named.csv");
    WriteText(named, "\n x1 ,x2,label\n1,2,0\n3,4,1\n");
    CsvLayout layout;
    auto d = ReadCsvDataset<double>(named, CsvOptions(), &layout);
    EXPECT_EQ(d.Size(), 2u);
    EXPECT_TRUE(layout.headerLine);
    EXPECT_EQ(layout.header, "x1 ,x2,label");
    EXPECT_EQ(layout.lines, (std::vector<std::size_t>{3, 4}));

    const std::string numbers = Path("numbers.csv");
    WriteText(numbers, "1,2,0\n3,4,1\n\n5,6,1\n");
    d = ReadCsvDataset<double>(numbers, CsvOptions(), &layout);
    ASSERT_EQ(d.Size(), 3u);
    EXPECT_EQ(d.features(0, 0), 1.0);
    EXPECT_FALSE(layout.headerLine);
    EXPECT_TRUE(layout.header.empty());
    EXPECT_EQ(layout.lines, (std::vector<std::size_t>{1, 2, 4}));

    // one name among numbers ("+3" and " -1e-2 " are numbers) makes a header
    const std::string mixed = Path("mixed.csv");
    WriteText(mixed, "+3, -1e-2 ,y\n1,2,0\n");
    d = ReadCsvDataset<double>(mixed, CsvOptions(), &layout);
    EXPECT_EQ(d.Size(), 1u);
    EXPECT_TRUE(layout.headerLine);
    // declared: Present skips a line of numbers, Absent reads a line of names as data (an error)
    CsvOptions present;
    present.header = CsvHeader::Present;
    EXPECT_EQ(ReadCsvDataset<double>(numbers, present).Size(), 2u);
    CsvOptions absent;
    absent.header = CsvHeader::Absent;
    ExpectThrowWith<DataError>([&] { ReadCsvDataset<double>(named, absent); },
                               {named, "line 2", "column 1", "x1"});
}

// Class labels: 0..C-1 kept; k..k+C-1 renumbered with a note; a gap refused with the labels, their
// rows and where the rarest first occur; every set's numClasses is C; train and test renumbered
// alike.
TEST_F(DataIoTest, ClassLabelsAreRenumberedOrRefusedWithTheirRows)
{
    const auto where = [](std::size_t set, std::size_t row) {
        return "set " + std::to_string(set) + " row " + std::to_string(row);
    };
    auto labelled = [](std::vector<double> labels) {
        Dataset<double> d;
        d.kind = TargetKind::Categorical;
        d.features = Mat<double>::Zero(static_cast<Eigen::Index>(labels.size()), 1);
        d.targets =
            Eigen::Map<const Vec<double>>(labels.data(), static_cast<Eigen::Index>(labels.size()));
        d.numClasses = static_cast<int>(*std::max_element(labels.begin(), labels.end())) + 1;
        return d;
    };
    Dataset<double> a = labelled({0, 2, 1, 2});
    EXPECT_EQ(NormaliseClassLabels<double>({&a}, where, "labels"), "");
    EXPECT_EQ(a.numClasses, 3);
    EXPECT_EQ(a.targets[1], 2.0);

    Dataset<double> b = labelled({1, 3, 2, 3});
    Dataset<double> bt = labelled({3, 1});
    EXPECT_EQ(NormaliseClassLabels<double>({&b, &bt}, where, "labels"),
              "class labels 1..3 taken as classes 0..2");
    EXPECT_EQ(b.numClasses, 3);
    EXPECT_EQ(bt.numClasses, 3);
    EXPECT_EQ(b.targets[0], 0.0);
    EXPECT_EQ(b.targets[1], 2.0);
    EXPECT_EQ(bt.targets[0], 2.0);
    EXPECT_EQ(bt.targets[1], 0.0);

    // a stray 999 among 0..2 (a model of 1000 outputs), and a gap in the test set's labels
    Dataset<double> c = labelled({0, 1, 2, 0, 1, 2, 999, 1});
    ExpectThrowWith<ConfigError>([&] { NormaliseClassLabels<double>({&c}, where, "labels"); },
                                 {"invalid labels",
                                  "0..2 (7 rows), 999 (1 row)",
                                  "1000 outputs",
                                  "label 999 first at set 0 row 6",
                                  "renumber the 4 classes 0..3"});
    EXPECT_EQ(c.targets[6], 999.0); // untouched
    Dataset<double> d = labelled({0, 1});
    Dataset<double> dt = labelled({0, 3});
    ExpectThrowWith<ConfigError>(
        [&] {
            NormaliseClassLabels<double>({&d, &dt}, where, "labels");
        },
        {"0..1 (3 rows), 3 (1 row)", "label 3 first at set 1 row 1"});
}

// The scale hint: none for unit-scale data; a feature of root mean square > 10, or one 100 times
// another's, is named with both scales.
TEST_F(DataIoTest, FeatureScaleHintNamesTheLargestAndSmallestFeature)
{
    Mat<double> unit(4, 2);
    unit << 1, 0.5, -1, 0, 0.5, 1, 0, -1; // RMS 0.75^0.5 and 0.5625^0.5
    EXPECT_EQ(FeatureScaleHint(unit), "");
    Mat<double> large(2, 3);
    large << 3000, 0.5, 0, 4000, -0.5, 0; // RMS 3535.5, 0.5, 0 (ignored)
    EXPECT_EQ(FeatureScaleHint(large),
              "the features are not on a common scale: feature 1 has a root mean square of "
              "3.54e+03, feature 2 0.5");
    Mat<double> spread(2, 2);
    spread << 5, 0.01, -5, 0.01; // 5 / 0.01 = 500 > 100, both below 10
    EXPECT_NE(
        FeatureScaleHint(spread).find("feature 1 has a root mean square of 5, feature 2 0.01"),
        std::string::npos);
    EXPECT_EQ(FeatureScaleHint(Mat<float>(0, 3)), "");
}

TEST_F(DataIoTest, CsvGzip)
{
    const std::string p = Path("data.csv.gz");
    std::string text = "f1,f2,y\n";
    for (int i = 0; i < 1000; ++i)
    {
        text += std::to_string(i) + "," + std::to_string(-i) + "," + std::to_string(i % 4) + "\n";
    }
    WriteText(p, text, true);
    const auto d = ReadCsvDataset<double>(p);
    ASSERT_EQ(d.Size(), 1000u);
    EXPECT_EQ(d.numClasses, 4);
    EXPECT_EQ(d.features(999, 0), 999.0);
    EXPECT_EQ(d.features(999, 1), -999.0);
    EXPECT_EQ(d.targets[999], 3.0);
}

// ------------------------------------------------------------------------------------------
// Dataset utilities
// ------------------------------------------------------------------------------------------

/// n x d data set whose feature 0 is the sample id and whose targets are id mod classes.
Dataset<double>
IdDataset(std::size_t n, std::size_t d, int classes, Rng& rng)
{
    Dataset<double> data;
    data.kind = TargetKind::Categorical;
    data.numClasses = classes;
    data.features.resize(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(d));
    data.targets.resize(static_cast<Eigen::Index>(n));
    std::normal_distribution<double> normal(0.0, 1.0);
    for (std::size_t i = 0; i < n; ++i)
    {
        data.features(i, 0) = static_cast<double>(i);
        for (std::size_t j = 1; j < d; ++j)
        {
            data.features(i, j) = 3.0 * j + (j + 1.0) * normal(rng);
        }
        data.targets[i] = static_cast<double>(i % classes);
    }
    return data;
}

TEST(DatasetTest, SubsetSliceAndCast)
{
    Rng rng(1);
    const auto data = IdDataset(10, 3, 3, rng);
    const auto sub = data.Subset({7, 2, 7});
    ASSERT_EQ(sub.Size(), 3u);
    EXPECT_EQ(sub.features.row(0), data.features.row(7));
    EXPECT_EQ(sub.features.row(1), data.features.row(2));
    EXPECT_EQ(sub.features.row(2), data.features.row(7));
    EXPECT_EQ(sub.targets[1], data.targets[2]);
    EXPECT_EQ(sub.numClasses, 3);
    EXPECT_EQ(sub.kind, TargetKind::Categorical);
    EXPECT_EQ(data.Subset({}).Size(), 0u);
    EXPECT_THROW(data.Subset({10}), ConfigError);

    const auto slice = data.Slice(4, 3);
    ASSERT_EQ(slice.Size(), 3u);
    EXPECT_EQ(slice.features(0, 0), 4.0);
    EXPECT_EQ(slice.features(2, 0), 6.0);
    EXPECT_EQ(slice.targets[2], data.targets[6]);
    EXPECT_EQ(data.Slice(10, 0).Size(), 0u);
    EXPECT_THROW(data.Slice(8, 3), ConfigError);

    const auto f = data.Cast<float>();
    EXPECT_EQ(f.Size(), 10u);
    EXPECT_EQ(f.numClasses, 3);
    EXPECT_EQ(f.features(3, 1), static_cast<float>(data.features(3, 1)));
}

TEST(DatasetTest, ValidateErrors)
{
    Rng rng(2);
    auto data = IdDataset(6, 2, 3, rng);
    EXPECT_NO_THROW(data.Validate("ok"));

    auto rows = data;
    rows.targets.resize(5);
    ExpectThrowWith<ConfigError>([&] { rows.Validate("myset"); }, {"myset"});

    auto nan = data;
    nan.features(2, 1) = std::nan("");
    EXPECT_THROW(nan.Validate("nan"), ConfigError);

    auto cls = data;
    cls.targets[0] = 3.0;
    EXPECT_THROW(cls.Validate("cls"), ConfigError);
    cls.targets[0] = 0.5;
    EXPECT_THROW(cls.Validate("cls"), ConfigError);
    cls.targets[0] = -1.0;
    EXPECT_THROW(cls.Validate("cls"), ConfigError);

    auto bin = data;
    bin.kind = TargetKind::BinarySigned;
    bin.numClasses = 2;
    bin.targets.setConstant(1.0);
    bin.targets[1] = -1.0;
    EXPECT_NO_THROW(bin.Validate("bin"));
    bin.targets[1] = 0.0;
    EXPECT_THROW(bin.Validate("bin"), ConfigError);
}

namespace
{

/// A two-feature Categorical data set of the given rows (hand-computed preprocessing tests).
Dataset<double>
TwoFeatures(std::initializer_list<std::pair<double, double>> rows)
{
    Dataset<double> d;
    d.features.resize(static_cast<Eigen::Index>(rows.size()), 2);
    d.targets = Vec<double>::Zero(static_cast<Eigen::Index>(rows.size()));
    d.kind = TargetKind::Categorical;
    d.numClasses = 1;
    Eigen::Index i = 0;
    for (const auto& [a, b] : rows)
    {
        d.features(i, 0) = a;
        d.features(i, 1) = b;
        ++i;
    }
    return d;
}

void
ExpectFeatures(const Dataset<double>& d, std::initializer_list<std::pair<double, double>> rows)
{
    ASSERT_EQ(d.Size(), rows.size());
    Eigen::Index i = 0;
    for (const auto& [a, b] : rows)
    {
        EXPECT_NEAR(d.features(i, 0), a, 1e-12) << "row " << i;
        EXPECT_NEAR(d.features(i, 1), b, 1e-12) << "row " << i;
        ++i;
    }
}

} // namespace

// Each holder is centred (and scaled) with its own statistics: holder A = {(1, 2), (3, 6)} has
// mean (2, 4) and std (1, 2); holder B = {(10, 0), (14, 0)} has mean (12, 0) and std (2, 0 ->
// scale 1). Pooled statistics (mean (7, 2)) would give other values.
TEST(DatasetTest, StandardiseEachHolderFitsOnTheHoldersOwnData)
{
    auto a = TwoFeatures({{1, 2}, {3, 6}});
    auto b = TwoFeatures({{10, 0}, {14, 0}});
    StandardiseEachHolder<double>({&a, &b}, FeatureScaling::Centre);
    ExpectFeatures(a, {{-1, -2}, {1, 2}});
    ExpectFeatures(b, {{-2, 0}, {2, 0}});

    a = TwoFeatures({{1, 2}, {3, 6}});
    b = TwoFeatures({{10, 0}, {14, 0}});
    Dataset<double> empty;
    StandardiseEachHolder<double>({&a, &b, &empty}, FeatureScaling::Standardise);
    ExpectFeatures(a, {{-1, -1}, {1, 1}});
    ExpectFeatures(b, {{-1, 0}, {1, 0}});

    a = TwoFeatures({{1, 2}, {3, 6}});
    StandardiseEachHolder<double>({&a}, FeatureScaling::None);
    ExpectFeatures(a, {{1, 2}, {3, 6}});

    // Public constants: shift 1 for both features, scale 2 and 4.
    const auto c = ConstantNormalizer<double>({1.0}, {2.0, 4.0}, 2);
    a = TwoFeatures({{1, 2}, {3, 6}});
    b = TwoFeatures({{10, 0}, {14, 0}});
    StandardiseEachHolder<double>({&a, &b}, FeatureScaling::Public, &c);
    ExpectFeatures(a, {{0, 0.25}, {1, 1.25}});
    ExpectFeatures(b, {{4.5, -0.25}, {6.5, -0.25}});

    const auto centring = FitCentring(TwoFeatures({{1, 2}, {3, 6}}));
    EXPECT_NEAR(centring.shift[0], 2.0, 1e-12);
    EXPECT_NEAR(centring.shift[1], 4.0, 1e-12);
    EXPECT_EQ(centring.scale[0], 1.0);
    EXPECT_EQ(centring.scale[1], 1.0);
}

TEST(DatasetTest, PreprocessingErrorsNameTheParameter)
{
    using fltest::ExpectConfigError;
    ExpectConfigError([] { ConstantNormalizer<double>({1, 2, 3}, {1}, 2, "--featureShift"); },
                      "--featureShift",
                      {"3 values for 2 features"});
    ExpectConfigError(
        [] { ConstantNormalizer<double>({0}, {1, 0}, 2, "--featureShift", "--featureScale"); },
        "--featureScale",
        {"> 0"});
    ExpectConfigError(
        [] { ConstantNormalizer<double>({std::nan("")}, {1}, 2, "--featureShift"); },
        "--featureShift");
    ExpectConfigError([] { ParseFeatureScaling("zscore", "--standardise"); },
                      "--standardise",
                      {"none, centre, standardise or public"});
    EXPECT_EQ(ParseFeatureScaling("centre", "x"), FeatureScaling::Centre);
    EXPECT_EQ(ParseFeatureScaling("public", "x"), FeatureScaling::Public);
    auto a = TwoFeatures({{1, 2}});
    ExpectConfigError([&a] { StandardiseEachHolder<double>({&a}, FeatureScaling::Public); },
                      "constants");
    const auto three = ConstantNormalizer<double>({0}, {1}, 3);
    ExpectConfigError(
        [&a, &three] { StandardiseEachHolder<double>({&a}, FeatureScaling::Public, &three); },
        "normalizer");
}

TEST(DatasetTest, StandardizerAndMinMax)
{
    Rng rng(3);
    auto data = IdDataset(200, 4, 2, rng);
    data.features.col(3).setConstant(5.0); // constant feature keeps scale 1
    auto z = data;
    const auto st = FitStandardizer(z);
    st.Apply(z);
    for (Eigen::Index j = 0; j < 4; ++j)
    {
        const double mean = z.features.col(j).mean();
        const double var = (z.features.col(j).array() - mean).square().mean();
        EXPECT_NEAR(mean, 0.0, 1e-12);
        EXPECT_NEAR(var, j == 3 ? 0.0 : 1.0, 1e-12) << "feature " << j;
    }
    EXPECT_EQ(st.scale[3], 1.0);

    auto mm = data;
    const auto nm = FitMinMax(mm);
    nm.Apply(mm);
    for (Eigen::Index j = 0; j < 3; ++j)
    {
        EXPECT_NEAR(mm.features.col(j).minCoeff(), 0.0, 1e-15);
        EXPECT_NEAR(mm.features.col(j).maxCoeff(), 1.0, 1e-15);
    }
    EXPECT_EQ(mm.features.col(3).maxCoeff(), 0.0);

    Dataset<double> other;
    other.features.resize(2, 3);
    other.targets.resize(2);
    EXPECT_THROW(st.Apply(other), ConfigError);
}

TEST(DatasetTest, TrainTestSplitSizesAndDisjointness)
{
    Rng rng(4);
    const auto data = IdDataset(103, 2, 5, rng);
    auto [train, test] = TrainTestSplit(data, 0.2, rng);
    EXPECT_EQ(test.Size(), 21u); // round(0.2 * 103)
    EXPECT_EQ(train.Size(), 82u);
    std::set<long> ids;
    for (const auto* part : {&train, &test})
    {
        for (std::size_t i = 0; i < part->Size(); ++i)
        {
            const double id = part->features(i, 0);
            EXPECT_TRUE(ids.insert(std::lround(id)).second) << "sample " << id << " twice";
            EXPECT_EQ(part->targets[i], static_cast<double>(std::lround(id) % 5));
        }
    }
    EXPECT_EQ(ids.size(), 103u);
    EXPECT_THROW(TrainTestSplit(data, 0.0, rng), ConfigError);
    EXPECT_THROW(TrainTestSplit(data, 1.0, rng), ConfigError);
}

TEST(DatasetTest, Concatenate)
{
    Rng rng(5);
    const auto data = IdDataset(10, 3, 3, rng);
    const auto all = Concatenate<double>({data.Slice(0, 4), data.Slice(4, 6)});
    EXPECT_EQ(all.Size(), 10u);
    EXPECT_EQ(all.features, data.features);
    EXPECT_EQ(all.targets, data.targets);
    EXPECT_EQ(all.numClasses, 3);
    EXPECT_EQ(all.kind, TargetKind::Categorical);
    EXPECT_EQ(Concatenate<double>({}).Size(), 0u);

    auto wide = IdDataset(2, 4, 3, rng);
    EXPECT_THROW(Concatenate<double>({data, wide}), ConfigError);
    auto reg = data;
    reg.kind = TargetKind::Regression;
    EXPECT_THROW(Concatenate<double>({data, reg}), ConfigError);
}

// ------------------------------------------------------------------------------------------
// Fashion-MNIST (Debian package dataset-fashion-mnist), if installed
// ------------------------------------------------------------------------------------------

TEST_F(DataIoTest, FindFashionMnistHonoursEnvironment)
{
    const char* old = std::getenv("FL_FASHION_MNIST_DIR");
    const std::string saved = old != nullptr ? old : "";
    WriteFile(Path("train-images-idx3-ubyte.gz"), Bytes{0}, true);
    setenv("FL_FASHION_MNIST_DIR", m_dir.c_str(), 1);
    EXPECT_EQ(FindFashionMnistDirectory(), m_dir.string());
    // A directory without the files is ignored.
    setenv("FL_FASHION_MNIST_DIR", (m_dir / "none").c_str(), 1);
    EXPECT_NE(FindFashionMnistDirectory(), (m_dir / "none").string());
    if (old != nullptr)
    {
        setenv("FL_FASHION_MNIST_DIR", saved.c_str(), 1);
    }
    else
    {
        unsetenv("FL_FASHION_MNIST_DIR");
    }
}

TEST(FashionMnistTest, ReadTestSetHead)
{
    const std::string dir = FindFashionMnistDirectory();
    if (dir.empty())
    {
        GTEST_SKIP() << "Fashion-MNIST not installed (Debian package dataset-fashion-mnist)";
    }
    const std::string images = dir + "/t10k-images-idx3-ubyte.gz";
    const std::string labels = dir + "/t10k-labels-idx1-ubyte.gz";
    const IdxArray lab = ReadIdx(labels);
    EXPECT_EQ(lab.typeCode, 0x08);
    EXPECT_EQ(lab.dims, std::vector<uint32_t>{10000});

    const auto d = ReadIdxDataset<float>(images, labels, 1000);
    ASSERT_EQ(d.Size(), 1000u);
    ASSERT_EQ(d.Dim(), 784u);
    EXPECT_EQ(d.kind, TargetKind::Categorical);
    EXPECT_GE(d.numClasses, 2);
    EXPECT_LE(d.numClasses, 10);
    EXPECT_GE(d.features.minCoeff(), 0.0f);
    EXPECT_LE(d.features.maxCoeff(), 1.0f);
    EXPECT_GT(d.features.maxCoeff(), 0.5f); // not all black
    for (std::size_t i = 0; i < d.Size(); ++i)
    {
        EXPECT_GE(d.Label(i), 0);
        EXPECT_LE(d.Label(i), 9);
        EXPECT_EQ(d.targets[i], static_cast<float>(lab.values[i]));
    }
    EXPECT_NO_THROW(d.Validate("fashion-mnist"));
}

} // namespace

/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Replays the checked-in seed corpus of every fuzz harness (fuzz/corpus/<harness>/) through the
 * harness's entry point, the same function libFuzzer calls (fuzz/fl-fuzz-targets.h), plus a
 * fixed-seed set of byte mutations of every file: CI exercises the decoders' promises without
 * clang. A broken promise throws FuzzInvariantError; a crash is caught by the sanitizer build.
 */
#include "fl-fuzz-targets.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <iterator>
#include <random>
#include <set>
#include <string>
#include <vector>

using namespace ns3::fl::fuzz;
namespace fs = std::filesystem;

namespace
{

const fs::path kCorpus = FL_FUZZ_CORPUS_DIR;

std::vector<uint8_t>
ReadBytes(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

std::vector<fs::path>
CorpusFiles(const std::string& harness)
{
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(kCorpus / harness))
    {
        if (e.is_regular_file())
        {
            files.push_back(e.path());
        }
    }
    std::sort(files.begin(), files.end());
    return files;
}

class FuzzCorpus : public ::testing::TestWithParam<FuzzHarness>
{
};

TEST(FuzzCorpusLayout, EveryHarnessHasASmallSeedCorpusAndEveryCorpusAHarness)
{
    std::set<std::string> names;
    for (const FuzzHarness& h : Harnesses())
    {
        names.insert(h.name);
        ASSERT_TRUE(fs::is_directory(kCorpus / h.name)) << kCorpus / h.name;
        const auto files = CorpusFiles(h.name);
        EXPECT_GE(files.size(), 3u) << h.name;
        std::uintmax_t bytes = 0;
        for (const auto& f : files)
        {
            bytes += fs::file_size(f);
        }
        EXPECT_LE(bytes, 16u * 1024u) << h.name << ": keep the seed corpus a few KB";
    }
    EXPECT_EQ(names.size(), Harnesses().size()) << "harness names are unique";
    for (const auto& e : fs::directory_iterator(kCorpus))
    {
        EXPECT_EQ(names.count(e.path().filename().string()), 1u)
            << e.path() << " is not the corpus of any harness";
    }
}

TEST_P(FuzzCorpus, EverySeedFileAndItsMutationsKeepThePromises)
{
    const FuzzHarness h = GetParam();
    std::mt19937_64 rng(20261123);
    for (const fs::path& file : CorpusFiles(h.name))
    {
        const std::vector<uint8_t> seed = ReadBytes(file);
        EXPECT_NO_THROW(h.entry(seed.data(), seed.size())) << file;
        // 64 mutants: flip, overwrite, insert or drop bytes.
        for (int k = 0; k < 64 && !seed.empty(); ++k)
        {
            std::vector<uint8_t> m = seed;
            const std::size_t at = rng() % m.size();
            switch (rng() % 4)
            {
            case 0:
                m[at] ^= static_cast<uint8_t>(1u << (rng() % 8));
                break;
            case 1:
                m[at] = static_cast<uint8_t>(rng());
                break;
            case 2:
                m.insert(m.begin() + static_cast<std::ptrdiff_t>(at), static_cast<uint8_t>(rng()));
                break;
            default:
                m.erase(m.begin() + static_cast<std::ptrdiff_t>(at));
                break;
            }
            EXPECT_NO_THROW(h.entry(m.data(), m.size())) << file << " mutant " << k;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Harnesses,
                         FuzzCorpus,
                         ::testing::ValuesIn(Harnesses()),
                         [](const ::testing::TestParamInfo<FuzzHarness>& info) {
                             std::string n = info.param.name;
                             std::replace(n.begin(), n.end(), '-', '_');
                             return n;
                         });

} // namespace

/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * fl-ega-benchmark: wall time of the EGA client and server steps for one model of d parameters
 * (d = 100,000 by default) on one core:
 *  - client: quantise and block (EgaQuantizeToBlocks), then encode all ceil(d/b) blocks in one
 *    Encode call;
 *  - server: sum m uploads (EgaAccumulate) and decode the aggregate once (EgaDecodeAggregate).
 * for the paper's codec size (b = h = 256, width 512, 3 residual blocks of expansion 4: 6.8 M
 * parameters per network; random weights, the time does not depend on their values), the module's
 * default codec shape, the linear codec and the Gaussian surrogate, or a trained codec file.
 *
 *   fl-ega-benchmark                          # d = 100,000, m = 10
 *   fl-ega-benchmark --d=7850 --codec=data/ega-default-codec.bin
 */

#include "../fl-example-flags.h"

#include "ns3/core-module.h"
#include "ns3/ega-aggregate.h"
#include "ns3/ega-mlp-codec.h"
#include "ns3/ega-quantizer.h"

#include <chrono>
#include <iomanip>
#include <iostream>
#include <memory>

using namespace ns3;

namespace
{

using Clock = std::chrono::steady_clock;

double
Seconds(Clock::time_point t0)
{
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// Times one codec; flopsPerBlock = 0 if not an MLP.
void
TimeCodec(const std::string& label,
          const fl::EgaCodec& codec,
          std::size_t d,
          uint32_t m,
          uint32_t repeats,
          double flopsPerBlock)
{
    const uint32_t s = codec.DesignLevel() != 0 ? codec.DesignLevel() : 64;
    const uint32_t mm = codec.DesignClients() != 0 ? codec.DesignClients() : m;
    fl::Rng rng(1);
    Eigen::VectorXd update(static_cast<Eigen::Index>(d));
    for (auto& e : update)
    {
        e = 0.01 * (2.0 * fl::EgaUniform(rng) - 1.0);
    }
    const double n = update.cwiseAbs().maxCoeff();
    Eigen::MatrixXd blocks;
    Eigen::MatrixXd codes;
    double tq = 0.0;
    double te = 0.0;
    for (uint32_t r = 0; r < repeats; ++r)
    {
        auto t0 = Clock::now();
        fl::EgaQuantizeToBlocks(update, s, n, codec.BlockSize(), rng, blocks);
        tq += Seconds(t0);
        t0 = Clock::now();
        codec.Encode(blocks, codes);
        te += Seconds(t0);
    }
    tq /= repeats;
    te /= repeats;
    Eigen::MatrixXd sum;
    double ta = 0.0;
    double td = 0.0;
    Eigen::VectorXd aggregate;
    for (uint32_t r = 0; r < repeats; ++r)
    {
        sum.resize(0, 0);
        auto t0 = Clock::now();
        for (uint32_t i = 0; i < mm; ++i)
        {
            fl::EgaAccumulate(sum, codes);
        }
        ta += Seconds(t0);
        t0 = Clock::now();
        fl::EgaDecodeAggregate(codec, sum, mm, d, s, n, rng, aggregate);
        td += Seconds(t0);
    }
    ta /= repeats;
    td /= repeats;
    const double k = static_cast<double>(blocks.cols());
    std::cout << std::left << std::setw(44) << label << std::right << std::fixed
              << std::setprecision(2) << std::setw(9) << 1e3 * tq << std::setw(10) << 1e3 * te
              << std::setw(10) << 1e3 * ta << std::setw(10) << 1e3 * td;
    if (flopsPerBlock > 0.0)
    {
        std::cout << std::setw(9) << std::setprecision(1) << flopsPerBlock * k / te * 1e-9;
    }
    std::cout << "   (" << static_cast<std::size_t>(k) << " blocks, upload "
              << static_cast<std::size_t>(k) * codec.CodeSize() << " values, m = " << mm << ")"
              << std::endl;
}

double
MlpFlopsPerBlock(const fl::EgaMlpCodec& c)
{
    return 2.0 * static_cast<double>(c.EncoderNet().NumParameters());
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t d = 100000;
    uint32_t m = 10;
    uint32_t repeats = 3;
    std::string codecFile;
    bool skipPaper = false;
    flexample::Flags flags(__FILE__);
    flags.Cmd().Usage("Times the EGA client (quantise, encode) and server (sum, decode) steps.");
    flags.AddWhole<uint32_t>("d", "Model parameters", d, 1);
    flags.AddWhole<uint32_t>("m", "Clients per round (codecs without a trained m)", m, 1);
    flags.AddWhole<uint32_t>("repeats", "Timed repetitions (the mean is printed)", repeats, 1);
    flags.AddText("codec", "Also time this trained codec file", codecFile);
    flags.AddBool("skipPaper",
                  "Skip the paper-size codec (6.8 M parameters per network)",
                  skipPaper);
    if (!flags.Parse(argc, argv))
    {
        return flexample::kExitBadFlag;
    }
    try
    {
        std::cout << "EGA step times, d = " << d << ", one core, mean of " << repeats
                  << " runs (ms per client for quantise/encode, per round for sum/decode)\n"
                  << std::left << std::setw(44) << "codec" << std::right << std::setw(9)
                  << "quantise" << std::setw(10) << "encode" << std::setw(10) << "sum m"
                  << std::setw(10) << "decode" << std::setw(9) << "GFLOP/s" << std::endl;
        fl::Rng rng(2);
        if (!skipPaper)
        {
            fl::EgaMlpCodec paper(fl::EgaMlpShape{256, 256, 512, 3, 4}, 64, m, rng);
            TimeCodec("mlp b=h=256 w=512 depth 3 (paper, 6.8M)",
                      paper,
                      d,
                      m,
                      repeats,
                      MlpFlopsPerBlock(paper));
            fl::EgaMlpCodec paper8x(fl::EgaMlpShape{512, 64, 512, 3, 4}, 64, m, rng);
            TimeCodec("mlp b=512 h=64 w=512 depth 3 (paper 8x)",
                      paper8x,
                      d,
                      m,
                      repeats,
                      MlpFlopsPerBlock(paper8x));
        }
        fl::EgaMlpCodec small(fl::EgaMlpShape{}, 64, m, rng);
        TimeCodec("mlp default shape (b=h=32 w=64 depth 2 e 2)",
                  small,
                  d,
                  m,
                  repeats,
                  MlpFlopsPerBlock(small));
        if (!codecFile.empty())
        {
            const fl::EgaMlpCodec trained = fl::EgaMlpCodec::Load(codecFile);
            const auto& sh = trained.Shape();
            TimeCodec("file b=" + std::to_string(sh.blockSize) +
                          " h=" + std::to_string(sh.codeSize) + " w=" + std::to_string(sh.width) +
                          " depth " + std::to_string(sh.depth),
                      trained,
                      d,
                      m,
                      repeats,
                      MlpFlopsPerBlock(trained));
        }
        fl::EgaLinearCodec linear(256, 256, rng);
        TimeCodec("linear b=h=256", linear, d, m, repeats, 2.0 * 256 * 256);
        fl::EgaGaussianCodec surrogate(256, 1.0, 64, m);
        TimeCodec("gaussian surrogate b=256", surrogate, d, m, repeats, 0.0);
    }
    catch (const std::exception& e)
    {
        std::cerr << e.what() << std::endl;
        return 1;
    }
    return 0;
}

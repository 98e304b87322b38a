/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * fl-ega-train: trains the learned EGA codec (D. Zeng, S. Liu, S. Liang, Z. Li, H. Wang, I. King,
 * Z. Xu, "Encoded Gradients Aggregation against Gradient Leakage in Federated Learning",
 * arXiv:2205.13216, 2022, Algorithm 1) and writes it to a codec file (format in
 * ns3/ega-mlp-codec.h). The encoder and decoder are residual MLPs trained so
 * that decode(mean of m encodings) ~ mean of the m inputs, on synthetic integer vectors drawn
 * uniformly from {-s, ..., s}^b. Prints one progress line per epoch and the held-out sigma
 * (RMS decoding error in quantised units, the sigma of Theorem 1).
 *
 *   fl-ega-train --quick --output=tiny.bin              # a tiny codec in seconds
 *   fl-ega-train --output=codec.bin                     # the default codec (~1 CPU minute)
 *   fl-ega-train --b=256 --h=128 --width=512 --depth=3 --m=10 --s=64 --epochs=100
 */

#include "fl-example-flags.h"

#include "ns3/core-module.h"
#include "ns3/ega-trainer.h"

#include <cmath>
#include <cstdio>
#include <iomanip>
#include <iostream>

using namespace ns3;

int
main(int argc, char* argv[])
{
    fl::EgaMlpShape shape;
    fl::EgaTrainConfig train;
    uint32_t m = 10;
    uint32_t s = 64;
    std::string output = "ega-codec.bin";
    std::string precision = "float32";
    bool quick = false;
    bool quiet = false;
    flexample::Flags flags(__FILE__);
    flags.Cmd().Usage(
        "Trains an EGA encoder/decoder pair (Algorithm 1 of Zeng et al.) and writes the "
        "codec file.");
    flags.AddWhole("m", "Clients per round the decoder is trained for", m, decltype(m){1});
    flags.AddWhole("s", "Quantisation level s (inputs are integers in [-s, s])", s, decltype(s){1});
    flags.AddWhole("b",
                   "Block length b (encoder input)",
                   shape.blockSize,
                   decltype(shape.blockSize){1});
    flags.AddWhole("h",
                   "Code length h (encoder output; h < b compresses by b/h)",
                   shape.codeSize,
                   decltype(shape.codeSize){1});
    flags.AddWhole("width", "Hidden width of both MLPs", shape.width, decltype(shape.width){1});
    flags.AddWhole("depth", "Residual blocks per MLP", shape.depth, decltype(shape.depth){1});
    flags.AddWhole("expansion",
                   "Inner width of a residual block / width",
                   shape.expansion,
                   decltype(shape.expansion){1});
    flags.AddWhole("epochs", "Training epochs T", train.epochs, decltype(train.epochs){1});
    flags.AddWhole("trainGroups",
                   "Training groups of m vectors (paper: 10000)",
                   train.trainGroups,
                   decltype(train.trainGroups){1});
    flags.AddWhole("testGroups",
                   "Held-out groups of m vectors (paper: 5000)",
                   train.testGroups,
                   decltype(train.testGroups){1});
    flags.AddWhole("batch",
                   "Groups per Adam step",
                   train.batchGroups,
                   decltype(train.batchGroups){1});
    flags.AddReal("lr",
                  "Adam step size (cosine decay over the epochs)",
                  train.learningRate,
                  flexample::Range::Above(0.0));
    flags.AddReal("lrFinal",
                  "Last epoch's step size as a fraction of --lr",
                  train.finalLearningRateFactor,
                  flexample::Range::Above(0.0));
    flags.AddRefusedAlias("seed",
                          "--RngRun=N",
                          " (the run number, ns-3's --RngRun >= 1, seeds the weights, the data "
                          "and the shuffling)");
    flags.AddOutput("output", "Codec file to write", output, false);
    flags.AddText("precision", "Weight precision in the file: float32 or float64", precision);
    flags.AddBool(
        "quick",
        "Tiny codec in seconds (overrides the shape and training flags: b=h=16, width 32, "
        "depth 1, m=4, s=8, 20 epochs)",
        quick);
    flags.AddBool("quiet", "No per-epoch progress lines", quiet);
    flags.AddCheck([&]() {
        train.seed = RngSeedManager::GetRun(); // the weights, the data and the shuffling
        if (train.seed == 0)
        {
            throw fl::ConfigError("--RngRun",
                                  "0 (the seed of the weights, the data and the shuffling)",
                                  "give a run number >= 1");
        }
        fl::ParsePrecision(precision, "--precision");
        if (!quick)
        {
            train.Validate(); // --quick sets valid training flags of its own
        }
    });
    if (!flags.Parse(argc, argv))
    {
        return flexample::kExitBadFlag;
    }

    if (quick)
    {
        shape = fl::EgaMlpShape{16, 16, 32, 1, 2};
        m = 4;
        s = 8;
        train.epochs = 20;
        train.trainGroups = 1000;
        train.testGroups = 500;
        train.batchGroups = 16;
        train.learningRate = 3e-3;
    }
    try
    {
        const fl::Precision filePrecision = fl::ParsePrecision(precision, "precision");
        train.Validate();
        fl::Rng init(fl::DeriveSeed(train.seed, 0xE6A, 0));
        fl::EgaMlpCodec codec(shape, s, m, init);
        const double trivial = std::sqrt(s * (s + 1.0) / (3.0 * m));
        std::cout << "EGA codec training: b=" << shape.blockSize << " h=" << shape.codeSize
                  << " width=" << shape.width << " depth=" << shape.depth
                  << " expansion=" << shape.expansion << " m=" << m << " s=" << s << "; encoder "
                  << codec.EncoderNet().NumParameters() << " + decoder "
                  << codec.DecoderNet().NumParameters() << " parameters\n"
                  << "data: " << train.trainGroups << " x " << m << " training and "
                  << train.testGroups << " x " << m
                  << " held-out vectors uniform on {-s..s}^b; epochs " << train.epochs << ", batch "
                  << train.batchGroups << " groups, Adam lr " << train.learningRate
                  << " (cosine to x" << train.finalLearningRateFactor << "), seed " << train.seed
                  << "\nreference: a decoder that outputs 0 has sigma = sqrt(s(s+1)/(3m)) = "
                  << trivial << std::endl;
        auto progress = [&](const fl::EgaEpochReport& r) {
            if (quiet)
            {
                return;
            }
            std::cout << "epoch " << std::setw(3) << r.epoch << "/" << train.epochs
                      << "  train loss " << std::scientific << std::setprecision(3) << r.trainLoss
                      << "  held-out sigma " << std::fixed << std::setprecision(4) << r.heldOutSigma
                      << (r.best ? " *" : "  ") << "  lr " << std::scientific
                      << std::setprecision(2) << r.learningRate << std::fixed
                      << std::setprecision(1) << "  " << r.seconds << " s" << std::endl;
        };
        const fl::EgaTrainResult result = fl::EgaTrainCodec(codec, train, progress);
        double sigma = result.heldOutSigma;
        if (filePrecision == fl::Precision::Float32)
        {
            // The file stores float32 weights: measure sigma of the codec a reader will load.
            codec.RoundWeights(fl::Precision::Float32);
            fl::Rng unused(0);
            sigma = fl::EgaCodecSigma(codec, fl::EgaHeldOutSet(codec, train), m, unused);
            codec.SetHeldOutSigma(sigma);
        }
        fl::Rng probeRng(0);
        const fl::EgaProbeStats probe =
            fl::EgaCodecProbeStats(codec, fl::EgaHeldOutSet(codec, train), m, probeRng);
        codec.Save(output, filePrecision);
        const std::size_t bytes = codec.Serialize(filePrecision).size();
        std::cout << std::fixed << std::setprecision(4) << "best epoch " << result.bestEpoch
                  << ", training time " << std::setprecision(1) << result.seconds << " s\n"
                  << std::setprecision(4) << "held-out sigma = " << sigma
                  << " (quantised units; sigma/s = " << sigma / s << ", " << 100.0 * sigma / trivial
                  << " % of the zero decoder's)\n"
                  << "curious-server probe (Eq. 2) on the held-out groups: relative error "
                  << probe.relativeError << ", cosine " << probe.cosine
                  << " (exactly additive codec: 0 and 1)\n"
                  << "wrote " << output << " (" << bytes << " bytes, "
                  << fl::PrecisionName(filePrecision) << " weights)" << std::endl;
    }
    catch (const std::exception& e)
    {
        std::cerr << e.what() << std::endl;
        return 1;
    }
    return 0;
}

/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * scratch/, as in an ns-3 source tree: every .cc file here is built as a program of its own
 * (build/scratch/<name>), every subfolder as one program made of its .cc files, linked with
 * libns3-fl, ns-3 and Eigen. Copy this file, rename it, and build: no list to edit.
 *
 *   build/scratch/fl-scratch-simulator --samples=500
 */
#include "ns3/core-module.h"
#include "ns3/fl-module.h"

#include <iostream>

using namespace ns3;

int
main(int argc, char* argv[])
{
    uint32_t samples = 1000;
    CommandLine cmd(__FILE__);
    cmd.AddValue("samples", "Samples of the synthetic data set", samples);
    cmd.Parse(argc, argv);

    fl::Rng rng(1);
    fl::GaussianMixtureConfig mix;
    auto centres = fl::MakeMixtureCentres(mix, rng);
    auto data = fl::SampleGaussianMixture<float>(centres, samples, rng);
    auto model = fl::MakeModel<float>("softmax", data.Dim(), 10);
    std::cout << "fl scratch: " << data.Size() << " samples of dimension " << data.Dim()
              << ", model with " << model->NumParameters() << " parameters, ns-3 "
              << FL_NS3_VERSION / 100 << "." << FL_NS3_VERSION % 100 << std::endl;
    return 0;
}

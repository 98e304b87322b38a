/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * A supervised learning task from a few settings: the data (synthetic Gaussian mixture,
 * Fashion-MNIST, or a CSV file or IDX folder of the user's), its split among the clients (IID,
 * shards, Dirichlet), per-feature preprocessing fitted on each holder's own data, the model and
 * the local trainer. What the examples build from their flags, for a user's own script.
 */
#ifndef FL_TASK_BUILDER_H
#define FL_TASK_BUILDER_H

#include "dataset.h"
#include "fl-types.h"
#include "learning-task.h"

#include <cstdint>
#include <memory>
#include <string>

namespace ns3
{
namespace fl
{

/**
 * The settings of a task. Errors name the setting as the examples' flag of the same name
 * (--dataset, --samplesPerClient, --partition, --standardise, --featureShift, --featureScale,
 * --model, --precision).
 */
struct TaskSpec
{
    uint32_t clients{10};             ///< data holders
    std::string dataset{"synthetic"}; ///< synthetic, fashion-mnist, a CSV file or an IDX folder
    std::string standardise{"none"};  ///< none, centre, standardise or public (each holder's own)
    std::string featureShift{"0"};    ///< standardise = public: one shift or one per feature
    std::string featureScale{"1"};    ///< standardise = public: one scale or one per feature
    std::string model;                ///< MakeModel spec; empty: mlp:hidden=128 on
                                      ///< fashion-mnist, else mlp:hidden=64
    std::string partition{"iid"};     ///< iid, shards or dirichlet
    double alpha{0.5};                ///< Dirichlet concentration
    uint32_t shards{2};               ///< shards per client
    uint32_t samplesPerClient{500};   ///< training samples per client
    uint32_t syntheticDim{20};        ///< features of the synthetic data
    uint32_t clustersPerClass{3};     ///< Gaussian clusters per class (synthetic)
    double separation{1.0};           ///< spread of the cluster centres (synthetic)
    uint32_t testSamples{2000};       ///< held-out samples of the evaluator
    uint32_t batchSize{32};           ///< local mini-batch size
    double learningRate{0.05};        ///< local SGD step
    double localEpochs{1.0};          ///< local epochs per round (0: one mini-batch step)
    double proxMu{0.0};               ///< FedProx proximal term
    double clipNorm{0.0};             ///< mini-batch gradient clipping norm (0: off)
    std::string precision{"float32"}; ///< float32 or float64
};

/**
 * A data set of the user's: a CSV file (numeric features, the class label in the last column,
 * a header line or none (CsvHeader::Auto: a first line of numbers is data); plain or gzip) or an
 * IDX folder (train-images-idx3-ubyte and train-labels-idx1-ubyte, plain or .gz, and optionally
 * t10k-images-idx3-ubyte and t10k-labels-idx1-ubyte for the test set; pixels scaled to [0, 1]).
 * The class labels are checked and, if they run from k > 0 without a gap, renumbered 0..C-1
 * (NormaliseClassLabels); at least two classes.
 */
struct UserDataset
{
    Dataset<double> train;
    Dataset<double> test;           ///< empty: the test samples come from `train`
    std::vector<std::string> notes; ///< what was read and decided (header line, renumbering)
    std::string scaleHint;          ///< FeatureScaleHint of the training features ("" if none)
};

/// Whether `dataset` names a file or folder of the user's (not synthetic or fashion-mnist).
bool IsUserDataset(const std::string& dataset);

/**
 * Reads a CSV file or IDX folder once per process (later calls with the same path return the
 * same data). A reader's error becomes a ConfigError naming --dataset with the reader's words.
 */
const UserDataset& LoadUserDataset(const std::string& path);

/// Features per sample of the spec's data set (reads a user's file).
std::size_t DatasetDim(const TaskSpec& spec);

/**
 * Throws ConfigError naming --samplesPerClient unless clients x samplesPerClient training
 * samples (and, without a test set of its own, one test sample) fit the `available` training
 * samples of the spec's data set (`what`, e.g. "rows of --dataset"); the message says the
 * largest --samplesPerClient that fits, what it leaves to test on, and the value that leaves a
 * fifth (or --testSamples, if fewer) for testing.
 */
void CheckSamplesFit(const TaskSpec& spec,
                     std::size_t available,
                     bool ownTestSet,
                     const std::string& what);

/**
 * Checks the settings before anything is built, so that a program refuses them at once (and
 * with --checkFlags): the precision, the data set (Fashion-MNIST's files found, a user's file
 * readable, its labels usable, at least two classes), enough training samples for clients x
 * samplesPerClient (and a test sample), the public preprocessing constants against the
 * features, the model spec against the data's shape. BuildSupervisedTask checks the same first.
 * Throws ConfigError naming the setting.
 */
void CheckTaskSpec(const TaskSpec& spec);

/**
 * Builds the task: draws the data (synthetic) or the samples (Fashion-MNIST, a user's set:
 * shuffled, the first clients x samplesPerClient for training, the test file's first
 * testSamples or else the next testSamples rows), splits them among the clients, preprocesses
 * every holder's data with its own statistics (StandardiseEachHolder), builds the model and the
 * local trainer. Every random draw comes from `rng`. Throws ConfigError on a bad setting.
 */
std::shared_ptr<LearningTask> BuildSupervisedTask(const TaskSpec& spec, Rng& rng);

} // namespace fl
} // namespace ns3

#endif // FL_TASK_BUILDER_H

/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "task-builder.h"

#include "data-checks.h"
#include "data-io.h"
#include "fl-model.h"
#include "linear-models.h"
#include "partition.h"
#include "synthetic-data.h"
#include "text-parse.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <mutex>
#include <numeric>

namespace ns3
{
namespace fl
{

namespace
{

/// The IDX file `name` (or `name`.gz) in `dir`, or empty.
std::string
FindIdxFile(const std::string& dir, const std::string& name)
{
    for (const std::string& candidate : {dir + "/" + name, dir + "/" + name + ".gz"})
    {
        std::error_code ec;
        if (std::filesystem::is_regular_file(candidate, ec))
        {
            return candidate;
        }
    }
    return "";
}

/**
 * Preprocesses every holder's data as spec.standardise says: the clients' sets and the
 * evaluator's test set, each with statistics of its own data (StandardiseEachHolder), or the
 * public constants of featureShift and featureScale.
 */
template <typename S>
void
Preprocess(const TaskSpec& o, std::vector<Dataset<S>>& clients, Dataset<S>& test)
{
    const FeatureScaling mode = ParseFeatureScaling(o.standardise, "--standardise");
    std::vector<Dataset<S>*> holders;
    for (auto& c : clients)
    {
        holders.push_back(&c);
    }
    holders.push_back(&test);
    Normalizer<S> constants;
    if (mode == FeatureScaling::Public)
    {
        constants = ConstantNormalizer<S>(ParseDoubleList(o.featureShift, "--featureShift"),
                                          ParseDoubleList(o.featureScale, "--featureScale"),
                                          test.Dim(),
                                          "--featureShift",
                                          "--featureScale");
    }
    StandardiseEachHolder(holders, mode, &constants);
}

template <typename S>
std::shared_ptr<LearningTask>
BuildTaskT(const TaskSpec& o, Rng& rng)
{
    Dataset<S> train;
    Dataset<S> test;
    const std::size_t nTrain = static_cast<std::size_t>(o.clients) * o.samplesPerClient;
    if (o.dataset == "synthetic")
    {
        GaussianMixtureConfig cfg;
        cfg.dim = o.syntheticDim;
        cfg.classes = 10;
        cfg.clustersPerClass = o.clustersPerClass;
        cfg.separation = o.separation;
        const Eigen::MatrixXd centres = MakeMixtureCentres(cfg, rng);
        train = SampleGaussianMixture<S>(centres, nTrain, rng, cfg.classes);
        test = SampleGaussianMixture<S>(centres, o.testSamples, rng, cfg.classes);
    }
    else if (o.dataset == "fashion-mnist")
    {
        const std::string dir = FindFashionMnistDirectory();
        if (dir.empty())
        {
            throw ConfigError("--dataset",
                              "Fashion-MNIST files not found",
                              "apt-get install dataset-fashion-mnist, or set "
                              "FL_FASHION_MNIST_DIR to the folder with the IDX files");
        }
        Dataset<S> all = ReadIdxDataset<S>(dir + "/train-images-idx3-ubyte.gz",
                                           dir + "/train-labels-idx1-ubyte.gz");
        CheckSamplesFit(o, all.Size(), true, "Fashion-MNIST training images");
        std::vector<std::size_t> idx(all.Size());
        std::iota(idx.begin(), idx.end(), 0);
        std::shuffle(idx.begin(), idx.end(), rng);
        idx.resize(nTrain);
        train = all.Subset(idx);
        Dataset<S> allTest = ReadIdxDataset<S>(dir + "/t10k-images-idx3-ubyte.gz",
                                               dir + "/t10k-labels-idx1-ubyte.gz",
                                               o.testSamples);
        test = std::move(allTest);
    }
    else
    {
        const UserDataset& user = LoadUserDataset(o.dataset);
        CheckSamplesFit(o, user.train.Size(), user.test.Size() > 0, "samples of --dataset");
        std::vector<std::size_t> idx(user.train.Size());
        std::iota(idx.begin(), idx.end(), 0);
        std::shuffle(idx.begin(), idx.end(), rng);
        const std::vector<std::size_t> trainIdx(idx.begin(), idx.begin() + nTrain);
        train = user.train.Subset(trainIdx).template Cast<S>();
        if (user.test.Size())
        {
            test = user.test.Slice(0, std::min<std::size_t>(o.testSamples, user.test.Size()))
                       .template Cast<S>();
        }
        else
        {
            const std::size_t end = std::min<std::size_t>(idx.size(), nTrain + o.testSamples);
            test =
                user.train.Subset(std::vector<std::size_t>(idx.begin() + nTrain, idx.begin() + end))
                    .template Cast<S>();
        }
    }

    Partition part;
    if (o.partition == "iid")
    {
        part = PartitionIid(train.Size(), o.clients, rng);
    }
    else if (o.partition == "shards")
    {
        part = PartitionShards(train, o.clients, o.shards, rng);
    }
    else if (o.partition == "dirichlet")
    {
        part = PartitionDirichlet(train, o.clients, o.alpha, rng);
    }
    else
    {
        throw ConfigError("--partition",
                          "unknown partition '" + o.partition + "'",
                          "use iid, shards or dirichlet");
    }
    std::vector<Dataset<S>> clients;
    for (const auto& p : part)
    {
        clients.push_back(train.Subset(p));
    }
    Preprocess(o, clients, test);

    std::string spec = o.model;
    if (spec.empty())
    {
        spec = o.dataset == "fashion-mnist" ? "mlp:hidden=128" : "mlp:hidden=64";
    }
    auto model = MakeModel<S>(spec, train.Dim(), static_cast<std::size_t>(train.numClasses));

    LocalTrainerConfig tc;
    tc.batchSize = o.batchSize;
    tc.learningRate = o.learningRate;
    tc.localEpochs = o.localEpochs;
    tc.proxMu = o.proxMu;
    tc.clipNorm = o.clipNorm;
    return std::make_shared<SupervisedTask<S>>(model, tc, std::move(clients), std::move(test));
}

} // namespace

bool
IsUserDataset(const std::string& dataset)
{
    return dataset != "synthetic" && dataset != "fashion-mnist";
}

const UserDataset&
LoadUserDataset(const std::string& path)
{
    static std::map<std::string, UserDataset> cache;
    static std::mutex mutex;
    std::lock_guard<std::mutex> lock(mutex);
    const auto it = cache.find(path);
    if (it != cache.end())
    {
        return it->second;
    }
    std::error_code ec;
    UserDataset data;
    try
    {
        if (std::filesystem::is_directory(path, ec))
        {
            const std::string images = FindIdxFile(path, "train-images-idx3-ubyte");
            const std::string labels = FindIdxFile(path, "train-labels-idx1-ubyte");
            if (images.empty() || labels.empty())
            {
                throw ConfigError("--dataset",
                                  "the folder '" + path +
                                      "' has no train-images-idx3-ubyte[.gz] and "
                                      "train-labels-idx1-ubyte[.gz]",
                                  "give a folder with the IDX files under these names (as "
                                  "MNIST's), a CSV file, synthetic or fashion-mnist");
            }
            data.train = ReadIdxDataset<double>(images, labels);
            const std::string testImages = FindIdxFile(path, "t10k-images-idx3-ubyte");
            const std::string testLabels = FindIdxFile(path, "t10k-labels-idx1-ubyte");
            if (!testImages.empty() && !testLabels.empty())
            {
                data.test = ReadIdxDataset<double>(testImages, testLabels);
            }
            std::vector<Dataset<double>*> sets{&data.train};
            if (data.test.Size())
            {
                sets.push_back(&data.test);
            }
            const std::string note = NormaliseClassLabels(
                sets,
                [&](std::size_t set, std::size_t row) {
                    return "sample " + std::to_string(row) + " of " + (set ? testLabels : labels);
                },
                "--dataset");
            data.notes.push_back(std::to_string(data.train.Size()) + " training" +
                                 (data.test.Size()
                                      ? " and " + std::to_string(data.test.Size()) + " test"
                                      : std::string()) +
                                 " samples, " + std::to_string(data.train.Dim()) + " features, " +
                                 std::to_string(data.train.numClasses) + " classes");
            if (!note.empty())
            {
                data.notes.push_back(note);
            }
        }
        else if (std::filesystem::is_regular_file(path, ec))
        {
            CsvLayout layout;
            data.train = ReadCsvDataset<double>(path, CsvOptions(), &layout);
            const std::string note = NormaliseClassLabels<double>(
                {&data.train},
                [&](std::size_t, std::size_t row) {
                    return "line " + std::to_string(layout.lines.at(row));
                },
                "--dataset");
            data.notes.push_back(
                std::to_string(data.train.Size()) + " rows, " + std::to_string(data.train.Dim()) +
                " features and the class in the last column, " +
                std::to_string(data.train.numClasses) + " classes; " +
                (layout.headerLine
                     ? "the first line is a header (" +
                           (layout.header.size() > 60 ? layout.header.substr(0, 57) + "..."
                                                      : layout.header) +
                           ")"
                     : "no header line (the first line holds numbers: data)"));
            if (!note.empty())
            {
                data.notes.push_back(note);
            }
        }
        else
        {
            throw ConfigError("--dataset",
                              "'" + path +
                                  "' is neither synthetic, fashion-mnist, a CSV file nor an "
                                  "IDX folder",
                              "give synthetic, fashion-mnist, the path of a CSV file or of a "
                              "folder with IDX files");
        }
    }
    catch (const DataError& e)
    {
        std::string what = e.what();
        if (what.rfind("fl: ", 0) == 0)
        {
            what = what.substr(4);
        }
        throw ConfigError("--dataset", what, "give a readable data file in this format");
    }
    catch (const ConfigError& e)
    {
        if (e.Parameter() == "--dataset")
        {
            throw;
        }
        throw ConfigError("--dataset", e.what(), "give a data file the readers accept");
    }
    if (!data.test.Size() && data.train.Size() < 2)
    {
        throw ConfigError("--dataset",
                          "'" + path + "' holds " + std::to_string(data.train.Size()) + " samples",
                          "give at least one sample per client and one test sample");
    }
    if (data.train.numClasses < 2)
    {
        throw ConfigError("--dataset",
                          "every sample of '" + path +
                              "' has the same class: a classifier needs "
                              "two classes or more",
                          "give a data set with at least two classes (the class is the last "
                          "column of a CSV file)");
    }
    data.scaleHint = FeatureScaleHint(data.train.features);
    return cache.emplace(path, std::move(data)).first->second;
}

std::size_t
DatasetDim(const TaskSpec& o)
{
    if (o.dataset == "synthetic")
    {
        return o.syntheticDim;
    }
    if (o.dataset == "fashion-mnist")
    {
        return 784;
    }
    return LoadUserDataset(o.dataset).train.Dim();
}

void
CheckSamplesFit(const TaskSpec& o, std::size_t available, bool ownTestSet, const std::string& what)
{
    const uint64_t nTrain = static_cast<uint64_t>(o.clients) * o.samplesPerClient;
    const uint64_t need = nTrain + (ownTestSet ? 0 : 1);
    if (need <= available)
    {
        return;
    }
    const std::string clients = " with --clients=" + std::to_string(o.clients);
    std::string fix;
    const uint64_t testMin = ownTestSet ? 0 : 1;
    if (available < testMin + o.clients)
    {
        fix = "use at most " + std::to_string(available - testMin) +
              " clients (one sample each), or a larger data set";
    }
    else
    {
        const uint64_t largest = (available - testMin) / o.clients;
        fix = "the largest that fits is --samplesPerClient=" + std::to_string(largest) + clients;
        if (!ownTestSet)
        {
            // what it leaves to test on, and the value that leaves a fifth (or testSamples)
            const uint64_t left = available - largest * o.clients;
            const uint64_t keep =
                std::min<uint64_t>(o.testSamples, std::max<uint64_t>(1, available / 5));
            const uint64_t fair = (available - keep) / o.clients;
            fix += " (" + std::to_string(left) + " samples left to test on)";
            if (fair >= 1 && fair < largest)
            {
                fix += "; --samplesPerClient=" + std::to_string(fair) + " leaves " +
                       std::to_string(available - fair * o.clients) + " to test on";
            }
        }
        fix += "; or fewer --clients";
    }
    throw ConfigError(
        "--samplesPerClient",
        std::to_string(o.clients) + " clients x " + std::to_string(o.samplesPerClient) +
            " samples = " + std::to_string(nTrain) + (ownTestSet ? "" : " plus a test sample") +
            " exceed the " + std::to_string(available) + " " + what,
        fix);
}

void
CheckTaskSpec(const TaskSpec& o)
{
    ParsePrecision(o.precision, "--precision");
    std::size_t classes = 10;
    if (o.dataset == "fashion-mnist")
    {
        if (FindFashionMnistDirectory().empty())
        {
            throw ConfigError("--dataset",
                              "Fashion-MNIST files not found",
                              "apt-get install dataset-fashion-mnist, or set "
                              "FL_FASHION_MNIST_DIR to the folder with the IDX files");
        }
        CheckSamplesFit(o, 60000, true, "Fashion-MNIST training images");
    }
    else if (IsUserDataset(o.dataset))
    {
        const UserDataset& user = LoadUserDataset(o.dataset); // labels checked, >= 2 classes
        CheckSamplesFit(o, user.train.Size(), user.test.Size() > 0, "samples of --dataset");
        classes = static_cast<std::size_t>(user.train.numClasses);
    }
    const std::size_t dim = DatasetDim(o);
    if (ParseFeatureScaling(o.standardise, "--standardise") == FeatureScaling::Public)
    {
        ConstantNormalizer<double>(ParseDoubleList(o.featureShift, "--featureShift"),
                                   ParseDoubleList(o.featureScale, "--featureScale"),
                                   dim,
                                   "--featureShift",
                                   "--featureScale");
    }
    const std::string model =
        !o.model.empty() ? o.model
                         : (o.dataset == "fashion-mnist" ? "mlp:hidden=128" : "mlp:hidden=64");
    try
    {
        MakeModel<double>(model, dim, classes);
    }
    catch (const std::exception& e)
    {
        std::string why = e.what();
        if (why.rfind("fl: ", 0) == 0)
        {
            why = why.substr(4);
        }
        throw ConfigError("--model",
                          "'" + model + "' is not a model specification for " +
                              std::to_string(dim) + " features and " + std::to_string(classes) +
                              " classes (" + why + ")",
                          "use e.g. softmax:l2=0 or mlp:hidden=64 (fl::MakeModel)");
    }
}

std::shared_ptr<LearningTask>
BuildSupervisedTask(const TaskSpec& spec, Rng& rng)
{
    CheckTaskSpec(spec); // the same rules as a program's --checkFlags
    return ParsePrecision(spec.precision, "--precision") == Precision::Float32
               ? BuildTaskT<float>(spec, rng)
               : BuildTaskT<double>(spec, rng);
}

} // namespace fl
} // namespace ns3

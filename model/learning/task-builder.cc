/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "task-builder.h"

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
        if (nTrain > all.Size())
        {
            throw ConfigError("--samplesPerClient",
                              "clients x samplesPerClient = " + std::to_string(nTrain) +
                                  " exceeds the 60000 training images",
                              "use fewer clients or samples per client");
        }
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
        const std::size_t testFromTrain = user.test.Size() ? 0 : o.testSamples;
        if (nTrain + std::min<std::size_t>(testFromTrain, 1) > user.train.Size())
        {
            throw ConfigError("--samplesPerClient",
                              "clients x samplesPerClient = " + std::to_string(nTrain) +
                                  (testFromTrain ? " plus a test sample" : "") + " exceeds the " +
                                  std::to_string(user.train.Size()) +
                                  " training samples of --dataset",
                              "use fewer clients or samples per client");
        }
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
        }
        else if (std::filesystem::is_regular_file(path, ec))
        {
            data.train = ReadCsvDataset<double>(path);
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
CheckTaskSpec(const TaskSpec& o)
{
    ParsePrecision(o.precision, "--precision");
    const uint64_t nTrain = static_cast<uint64_t>(o.clients) * o.samplesPerClient;
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
        if (nTrain > 60000)
        {
            throw ConfigError("--samplesPerClient",
                              "clients x samplesPerClient = " + std::to_string(nTrain) +
                                  " exceeds the 60000 training images",
                              "use fewer clients or samples per client");
        }
    }
    else if (IsUserDataset(o.dataset))
    {
        const UserDataset& user = LoadUserDataset(o.dataset);
        if (nTrain + (user.test.Size() ? 0 : 1) > user.train.Size())
        {
            throw ConfigError("--samplesPerClient",
                              "clients x samplesPerClient = " + std::to_string(nTrain) +
                                  (user.test.Size() ? "" : " plus a test sample") +
                                  " exceeds the " + std::to_string(user.train.Size()) +
                                  " training samples of --dataset",
                              "use fewer clients or samples per client");
        }
        classes = static_cast<std::size_t>(std::max(2, user.train.numClasses));
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
    catch (const ConfigError&)
    {
        throw ConfigError("--model",
                          "'" + model + "' is not a model specification",
                          "use e.g. softmax:l2=0 or mlp:hidden=64 (fl::MakeModel)");
    }
}

std::shared_ptr<LearningTask>
BuildSupervisedTask(const TaskSpec& spec, Rng& rng)
{
    return ParsePrecision(spec.precision, "--precision") == Precision::Float32
               ? BuildTaskT<float>(spec, rng)
               : BuildTaskT<double>(spec, rng);
}

} // namespace fl
} // namespace ns3

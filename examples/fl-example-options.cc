/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The FedAvg examples' command-line options (declared in fl-example-common.h): the shared
 * FedAvg flags, the network, secure-aggregation, mobility and Wi-Fi options, each with its
 * checks. Compiled once for all of them, beside fl-example-common.cc.
 */
#include "fl-example-common.h"

#include "ns3/fl-mobility-presets.h"

namespace ns3
{
namespace flexample
{

void
AddFedAvgOptions(Flags& flags, FedAvgOptions& o)
{
    const Range nonNegative = Range::AtLeast(0.0);
    const Range positive = Range::Above(0.0);
    const Range probability = Range::Closed(0.0, 1.0);
    const Range seconds = Range::Closed(0.0, kMaxSimSeconds);
    flags.AddSize("clients", "Number of clients", o.clients, 1u, kMaxClients);
    flags.AddSize("rounds",
                  o.timeBudget
                      ? "Most rounds of each run: every run ends at --maxTime (the time budget "
                        "all runs get alike) unless it completes this many rounds first; the "
                        "default is out of reach"
                      : "Number of FedAvg rounds (the run also stops at --maxTime)",
                  o.rounds,
                  1u,
                  kMaxRounds);
    flags.AddText("dataset",
                  "synthetic (10-class Gaussian mixture, 3 clusters per class, no download), "
                  "fashion-mnist (Debian's dataset-fashion-mnist), a CSV file (numeric "
                  "features, the class in the last column: labels 0..C-1, or k..k+C-1 "
                  "renumbered 0..C-1, no gaps; the first line is a header if one of its fields "
                  "is not a number) or an IDX folder (train-images-idx3-ubyte and "
                  "train-labels-idx1-ubyte, optionally t10k-* for the test set; .gz or plain)",
                  o.dataset);
    flags.AddChoice("standardise",
                    "Per-feature preprocessing of every holder's data: none, centre (subtract "
                    "the mean), standardise (subtract the mean, divide by the standard "
                    "deviation), each fitted on the holder's own data (every client's, and the "
                    "evaluator's test set), never pooled; or public (--featureShift and "
                    "--featureScale)",
                    o.standardise,
                    {"none", "centre", "standardise", "public"});
    flags.AddText("featureShift",
                  "--standardise=public: the shift, one value or one per feature",
                  o.featureShift);
    flags.AddText("featureScale",
                  "--standardise=public: the scale (> 0), one value or one per feature",
                  o.featureScale);
    flags.AddText("model",
                  "Model spec: mlp:hidden=64, mlp:hidden=128-64, softmax:l2=0, ... (default: "
                  "mlp:hidden=64 for synthetic, mlp:hidden=128 for fashion-mnist)",
                  o.model);
    flags.AddChoice("partition",
                    "iid, shards or dirichlet",
                    o.partition,
                    {"iid", "shards", "dirichlet"});
    flags.AddReal("alpha", "Dirichlet concentration for --partition=dirichlet", o.alpha, positive);
    flags.AddSize("shards", "Shards per client for --partition=shards", o.shards, 1u, kMaxDim);
    flags.AddSize("samplesPerClient",
                  "Training samples per client (with a data set of yours, clients x this must "
                  "leave at least one sample to test on; the error says the largest that fits)",
                  o.samplesPerClient,
                  1u,
                  kMaxSamples);
    flags.AddSize("syntheticDim",
                  "Feature dimension of the synthetic data",
                  o.syntheticDim,
                  1u,
                  kMaxDim);
    flags.AddSize("clustersPerClass",
                  "Gaussian clusters per class of the synthetic data (> 1: not linearly separable)",
                  o.clustersPerClass,
                  1u,
                  kMaxDim);
    flags.AddReal("separation",
                  "Spread of the synthetic cluster centres (larger = easier)",
                  o.separation,
                  nonNegative);
    flags.AddSize("testSamples", "Held-out samples for evaluation", o.testSamples, 1u, kMaxSamples);
    flags.AddSize("batchSize", "Mini-batch size of local SGD", o.batchSize, 1u, kMaxSamples);
    flags.AddReal("learningRate", "Learning rate of local SGD", o.learningRate, positive);
    flags.AddReal("localEpochs",
                  "Local epochs per round",
                  o.localEpochs,
                  Range{0.0, 1000.0, true, false});
    flags.AddText("precision", "Scalar type of learning: float32 or float64", o.precision);
    flags.AddText(
        "wirePrecision",
        "Encoding on the wire: float64, float32, float16 or int8 (default: same as --precision)",
        o.wirePrecision);
    flags.AddReal("secondsPerSample",
                  "Simulated compute time per training sample [s]",
                  o.secondsPerSample,
                  Range::Closed(0.0, 10.0));
    flags.AddReal("deadline",
                  "Round deadline [s] (0 = wait for every client)",
                  o.deadline,
                  seconds);
    flags.AddOutput("output", "CSV output file", o.output, false);
    flags.AddReal("targetAccuracy",
                  "Accuracy for the time-to-accuracy summary",
                  o.targetAccuracy,
                  probability);
    flags.AddReal("maxTime",
                  o.timeBudget ? "Simulated time of each run [s] (the time budget)"
                               : "Stop the simulation at this simulated time [s] even if "
                                 "rounds remain",
                  o.maxTime,
                  Range{0.0, kMaxSimSeconds, true, false});
    flags.AddReal("clientStart",
                  "Start of the first client [s], the others 20 ms apart (0.5: after Wi-Fi "
                  "association and LTE attachment; a Wi-Fi client that starts before its "
                  "station associates sends its SYN again after the TCP connection timeout, "
                  "1 s as RFC 6298, then 2 s, 4 s, ...). Set it to the start of a DWFL run to "
                  "compare on one time axis (fl-dwfl: 0.1 s)",
                  o.clientStart,
                  seconds);
    flags.AddReal("proxMu", "FedProx proximal term mu (0 = FedAvg)", o.proxMu, nonNegative);
    flags.AddReal("serverMomentum",
                  "FedAvgM server momentum beta in [0, 1)",
                  o.serverMomentum,
                  Range{0.0, 1.0, false, true});
    flags.AddReal("serverLearningRate",
                  "FedAvgM server learning rate",
                  o.serverLearningRate,
                  positive);
    flags.AddChoice("strategy",
                    "Server strategy by name (FlStrategyRegistry): fedavg (synchronous rounds), "
                    "fedasync (Xie et al. 2019: each update mixed in with weight asyncAlpha "
                    "s(staleness)), fedbuff (Nguyen et al. 2022: every --bufferSize updates; "
                    "server rate --serverLearningRate) or qffl (Li et al., ICLR 2020); "
                    "asynchronous ones keep --clientsPerRound clients busy (0 = all)",
                    o.strategy,
                    FlStrategyRegistry::Names());
    flags.AddReal("asyncAlpha",
                  "FedAsync mixing weight alpha in (0, 1]",
                  o.asyncAlpha,
                  Range{0.0, 1.0, true, false});
    flags.AddSize("bufferSize", "FedBuff: updates per new model (K)", o.bufferSize, 1u, kMaxClients);
    flags.AddChoice("stalenessFunction",
                    "FedAsync / FedBuff staleness weight s: constant, polynomial "
                    "((1 + staleness)^-stalenessExponent) or hinge",
                    o.stalenessFunction,
                    {"constant", "polynomial", "hinge"});
    flags.AddBool("quiet", "Do not print a line per round", o.quiet);
    flags.AddChoice("transport",
                    "tcp, or udp (chunked datagrams, see --holePolicy)",
                    o.transport,
                    {"tcp", "udp"});
    flags.AddReal("tcpMinRtoMs",
                  "TCP: minimum retransmission timeout [ms] (1000: ns-3's and RFC 6298's; Linux "
                  "uses 200). Each segment leaves a cancelled timer of this horizon in ns-3's "
                  "scheduler, so a shorter one holds less memory; it changes a run only where a "
                  "timeout fires",
                  o.tcpMinRtoMs,
                  Range::Closed(1e-3, 6e4));
    flags.AddChoice("holePolicy",
                    "UDP: drop, keep-previous or retransmit (lost chunks of a model)",
                    o.holePolicy,
                    {"drop", "keep-previous", "retransmit"});
    // At least 1 b/s: the rate is handed to ns-3 in whole bits per second.
    flags.AddReal("udpPacingMbps",
                  "UDP: sending rate of each application [Mb/s]",
                  o.udpPacingMbps,
                  Range::Closed(1e-6, 1e6));
    flags.AddReal("serverPacingMbps",
                  "UDP: sending rate of the server alone [Mb/s] (0 = --udpPacingMbps); below "
                  "the cell's downlink rate the models arrive one after another and the uploads "
                  "do not all start at once, e.g. 5 in an LTE cell of 200 UEs",
                  o.serverPacingMbps,
                  Range::Closed(0.0, 1e6));
    flags.AddWhole("retryLimit",
                   "UDP retransmit: NACK rounds / probes per message, each wait twice the one "
                   "before (at most 64x)",
                   o.retryLimit,
                   0u,
                   kFlMaxRetryLimit);
    flags.AddReal("reassemblyTimeoutMs",
                  "UDP: a model that received no chunk for this long is resolved by "
                  "--holePolicy (retransmit: its missing chunks are NACKed) [ms]; raise it where "
                  "queues hold chunks longer, e.g. 500 in a loaded LTE cell",
                  o.reassemblyTimeoutMs,
                  Range::Closed(1e-3, 6e4));
    flags.AddReal("ackTimeoutMs",
                  "UDP retransmit: a sender probes with the last chunk when no feedback came "
                  "this long after a model left [ms]; e.g. 1000 in a loaded LTE cell",
                  o.ackTimeoutMs,
                  Range::Closed(1e-3, 6e4));
    flags.AddReal("congestionTargetMs",
                  "UDP retransmit: queueing delay the sender's rate control aims at [ms]: while "
                  "feedback takes longer than its smallest delay plus this, the sending rate "
                  "drops below --udpPacingMbps (in the spirit of LEDBAT, RFC 6817), e.g. 100; "
                  "0 = off",
                  o.congestionTargetMs,
                  Range::Closed(0.0, 6e4));
    flags.AddReal("serverCongestionTargetMs",
                  "UDP retransmit: --congestionTargetMs of the server alone [ms] (-1 = "
                  "--congestionTargetMs; 0 = off): the server's rate then follows the queue its "
                  "models build in the cell's downlink, e.g. 100",
                  o.serverCongestionTargetMs,
                  Range::Closed(-1.0, 6e4));
    flags.AddWhole("clientsPerRound", "Clients sampled per round (0 = all)", o.clientsPerRound);
    flags.AddChoice("sampling",
                    "Client sampling: uniform or weighted (by data size)",
                    o.sampling,
                    {"uniform", "weighted"});
    flags.AddChoice("stragglerPolicy",
                    "Late updates: drop, or accept into a later round (with staleness)",
                    o.stragglerPolicy,
                    {"drop", "accept"});
    flags.AddWhole("maxStaleness", "accept: most rounds an update may be late", o.maxStaleness);
    flags.AddReal("stalenessExponent",
                  "accept: stale weight factor (1 + staleness)^-a",
                  o.stalenessExponent,
                  nonNegative);
    flags.AddWhole("minQuorum", "Fewest updates per round (0 = none)", o.minQuorum);
    flags.AddChoice("quorumPolicy",
                    "Below quorum: skip or repeat the round",
                    o.quorumPolicy,
                    {"skip", "repeat"});
    flags.AddReal("flopRateMedian",
                  "Device speed [FLOP/s], median of a log-normal law (0 = use --secondsPerSample)",
                  o.flopRateMedian,
                  nonNegative);
    flags.AddReal("flopRateSigma",
                  "Log-normal sigma of device speeds (0 = identical devices)",
                  o.flopRateSigma,
                  Range::Closed(0.0, 10.0));
    flags.AddReal("computePower", "Power drawn while training [W]", o.computePower, nonNegative);
    flags.AddReal("dropout",
                  "Probability that a client stays silent in a round",
                  o.dropout,
                  probability);
    flags.AddWhole("leaveClients", "Number of clients (the first ones) that leave", o.leaveClients);
    flags.AddReal("leaveTime", "Time [s] at which --leaveClients leave", o.leaveTime, seconds);
    flags.AddOutput("clientOutput",
                    "Per-client CSV output file (empty = none)",
                    o.clientOutput,
                    true);
    flags.AddOutput("flowMonitor",
                    "Write ns-3 FlowMonitor statistics to this XML file (empty = off)",
                    o.flowMonitor,
                    true);
    flags.AddCheck([&o]() {
        fl::ParsePrecision(o.precision, "--precision");
        if (o.serverPacingMbps > 0.0 && o.serverPacingMbps < 1e-6)
        {
            throw fl::ConfigError("--serverPacingMbps",
                                  "a rate below 1e-6 Mb/s (1 b/s)",
                                  "give 0 (the --udpPacingMbps) or at least 1e-6");
        }
        if (o.serverCongestionTargetMs < 0.0 && o.serverCongestionTargetMs != -1.0)
        {
            throw fl::ConfigError("--serverCongestionTargetMs",
                                  "a negative target other than -1",
                                  "give -1 (the --congestionTargetMs), 0 (off) or a delay");
        }
        // The data set (files, labels, classes, enough samples), the preprocessing constants
        // and the model spec against the data's shape: the rules BuildFedAvgTask applies, so
        // that --checkFlags refuses what the run would.
        fl::CheckTaskSpec(TaskSpecOf(o));
        if (o.wirePrecision.empty())
        {
            o.wirePrecision = o.precision;
        }
        fl::ParseWireEncoding(o.wirePrecision, "--wirePrecision");
        const std::string clients = " (--clients=" + std::to_string(o.clients) + ")";
        for (const auto& [flag, value] : {std::make_pair("--clientsPerRound", o.clientsPerRound),
                                          std::make_pair("--minQuorum", o.minQuorum),
                                          std::make_pair("--leaveClients", o.leaveClients)})
        {
            if (value > o.clients)
            {
                throw fl::ConfigError(
                    flag,
                    std::to_string(value) + " exceeds the number of clients" + clients,
                    "give a whole number in [0, " + std::to_string(o.clients) + "]");
            }
        }
        // the server's rules (asynchronous strategies, quorum, deadline, stragglers)
        CheckServerRules(o, o.strategy, o.deadline);
        const uint64_t values =
            (static_cast<uint64_t>(o.clients) * o.samplesPerClient + o.testSamples) *
            o.syntheticDim;
        if (o.dataset == "synthetic" && values > kMaxSyntheticValues.value)
        {
            throw fl::ConfigError("--samplesPerClient/--testSamples/--syntheticDim",
                                  "(clients x samplesPerClient + testSamples) x syntheticDim = " +
                                      std::to_string(values) +
                                      " feature values, above the bound of " +
                                      std::to_string(kMaxSyntheticValues.value),
                                  "use fewer clients, samples or features, or raise the bound (" +
                                      std::string(kMaxSyntheticValues.where) + ")");
        }
    });
}

void
AddNetworkOption(Flags& flags, std::string& network, FedAvgOptions& o)
{
    flags.AddChoice("network",
                    "Network fidelity: packet (ns-3 devices, every frame simulated) or flow "
                    "(each message's delivery time from a calibrated model of the links: no "
                    "devices, 20x and more faster; see \"Flow-level fidelity\" in the module "
                    "documentation for its validated range)",
                    network,
                    {"packet", "flow"});
    flags.AddCheck([&network, &o]() {
        if (network == "flow" && o.transport != "tcp")
        {
            throw fl::ConfigError("--network",
                                  "flow with --transport=" + o.transport,
                                  "use --transport=tcp (the flow model carries TCP's bytes)");
        }
        if (network == "flow" && !o.flowMonitor.empty())
        {
            throw fl::ConfigError("--network",
                                  "flow with --flowMonitor",
                                  "a flow-level run has no packets to monitor; drop --flowMonitor");
        }
        if (network == "flow" && o.secure != "none")
        {
            throw fl::ConfigError("--network",
                                  "flow with --secure=" + o.secure,
                                  "secure aggregation was not validated in flow fidelity; use "
                                  "--network=packet");
        }
    });
}

void
ConfigureSecureAggregation(FlSecAggHelper& secagg, const FedAvgOptions& o)
{
    secagg.SetAttribute("Variant", StringValue(o.secure == "none" ? "secagg" : o.secure));
    secagg.SetAttribute("KeyMode", StringValue(o.secureKeys));
    secagg.SetAttribute("FractionBits", UintegerValue(o.secureFractionBits));
    secagg.SetAttribute("Threshold", UintegerValue(o.secureThreshold));
    int32_t colluders = -1;
    if (o.secureColluders != "auto")
    {
        colluders = static_cast<int32_t>(
            fl::ParseUnsigned<uint32_t>(o.secureColluders, "--secureColluders", 0, 1u << 30));
    }
    secagg.SetAttribute("Colluders", IntegerValue(colluders));
    secagg.SetServerAttribute("Timeout", TimeValue(Seconds(o.secureTimeout)));
}

bool
SecureStrategyTakesServerLearningRate(const std::string& strategy)
{
    return strategy == "fedbuff";
}

void
AddSecureOptions(Flags& flags,
                 FedAvgOptions& o,
                 std::function<std::vector<std::string>()> running)
{
    flags.AddChoice("secure",
                    "Secure aggregation of the uploads: none, secagg (Bonawitz et al., ACM CCS "
                    "2017) or secaggplus (Bell et al., ACM CCS 2020); the server learns only "
                    "sum n_k w_k and sum n_k",
                    o.secure,
                    {"none", "secagg", "secaggplus"});
    flags.AddChoice("secureKeys",
                    "Key mode of --secure: random (libsodium), or reproducible from the run seed "
                    "(INSECURE, for simulation studies only)",
                    o.secureKeys,
                    {"random", "reproducible"});
    flags.AddReal("secureTimeout",
                  "--secure: each protocol phase closes this long after it began [s] (0 = wait "
                  "for every client)",
                  o.secureTimeout,
                  Range::AtLeast(0.0));
    flags.AddWhole<uint32_t>("secureFractionBits",
                             "--secure: fixed-point fraction bits of the masked words (n_k w "
                             "2^f must stay below 2^62 / n)",
                             o.secureFractionBits,
                             1,
                             52);
    flags.AddWhole<uint32_t>("secureThreshold",
                             "--secure: t, the share holders needed to unmask (0 = the rule: "
                             "floor(2n/3)+1 for secagg); 2t > n + colluders and t - colluders "
                             ">= 2 are required",
                             o.secureThreshold);
    flags.AddText("secureColluders",
                  "--secure=secagg: n_C, the clients that may collude with an active server "
                  "(auto = the most --secureThreshold tolerates, ceil(n/3)-1 by default)",
                  o.secureColluders);
    flags.AddCheck([&o, running]() {
        if (o.secure != "none")
        {
            // the guarantee for this program's rosters: a threshold or colluders the rule cannot
            // serve are refused here, before anything runs
            FlSecAggHelper secagg;
            ConfigureSecureAggregation(secagg, o);
            const uint32_t n = o.clientsPerRound == 0 ? o.clients
                                                      : std::min(o.clients, o.clientsPerRound);
            try
            {
                secagg.Guarantee(std::max<uint32_t>(n, 2));
            }
            catch (const fl::ConfigError& e)
            {
                const bool colluders = e.Parameter().find("Colluders") != std::string::npos;
                std::string inner = e.what();
                const std::string prefix = "fl: invalid " + e.Parameter() + ": ";
                if (inner.compare(0, prefix.size(), prefix) == 0)
                {
                    inner = inner.substr(prefix.size());
                }
                throw fl::ConfigError(colluders ? "--secureColluders" : "--secureThreshold",
                                      inner,
                                      "see the guarantee printed with a valid setting");
            }
        }
        if (o.secure != "none" && (o.clients < 2 || o.clientsPerRound == 1))
        {
            throw fl::ConfigError(o.clients < 2 ? "--clients" : "--clientsPerRound",
                                  "1 with --secure=" + o.secure,
                                  "aggregate at least 2 clients (the sum of one upload is the "
                                  "upload), or use --secure=none");
        }
        if (o.secure != "none" &&
            (o.stragglerPolicy == "accept" || o.sampling == "weighted" || o.serverMomentum != 0.0))
        {
            throw fl::ConfigError("--secure",
                                  o.secure + " with --stragglerPolicy=accept, --sampling=weighted "
                                             "or --serverMomentum",
                                  "use the defaults of those flags: the securely summed mean is "
                                  "the next model, the clients announce no sample counts");
        }
        if (o.secure != "none" && o.serverLearningRate != 1.0)
        {
            const std::vector<std::string> strategies =
                running ? running() : std::vector<std::string>{o.strategy};
            for (const auto& s : strategies)
            {
                if (!SecureStrategyTakesServerLearningRate(s))
                {
                    std::ostringstream rate;
                    rate << o.serverLearningRate;
                    throw fl::ConfigError("--serverLearningRate",
                                          rate.str() + " with --secure=" + o.secure +
                                              " and strategy " + s,
                                          "use 1 (the securely summed mean is the next model), or "
                                          "run only fedbuff with secure aggregation (its rate "
                                          "scales each securely summed cohort)");
                }
            }
        }
    });
}

void
AddMobilityOption(Flags& flags, std::string& mobility, const std::string& network)
{
    flags.AddText(
        "mobility",
        "How the clients move: fixed (the default: at rest), or one of ns-3's "
        "mobility models around the origin (the AP or eNB): "
        "random-waypoint:side=100,min=1,max=2,pause=0, "
        "steady-state-random-waypoint:side=..,min=..,max=..,minPause=..,maxPause=.., "
        "gauss-markov:side=..,speed=..,sd=..,alpha=..,step=.., "
        "road:speed=..,spacing=..,x0=..,y=.. (along +x) or ns2-trace:path=FILE "
        "(m, m/s, s; packet level only). Moving clients add columns to the CSVs "
        "(lost, given_up, disconnected, handovers, detached; per client upload_distance_m, "
        "upload_snr_db, lost, upload_cell, handovers, detached)",
        mobility);
    flags.AddCheck([&mobility, &network]() {
        if (ParseFlClientMobility(mobility, "--mobility").Moves() && network == "flow")
        {
            throw fl::ConfigError("--mobility",
                                  "'" + mobility +
                                      "' moves the clients and --network=flow "
                                      "has no positions",
                                  "use --network=packet or --mobility=fixed");
        }
    });
}

void
AddWifiOptions(Flags& flags, std::string& standard, std::string& rateManager)
{
    flags.AddChoice("standard",
                    "Wi-Fi standard: 80211a, 80211g, 80211n, 80211ac, 80211ax",
                    standard,
                    {"80211a", "80211g", "80211n", "80211ac", "80211ax"});
    flags.AddText("rateManager",
                  "Wi-Fi rate control (ns-3 TypeId name, e.g. ns3::IdealWifiManager, "
                  "ns3::MinstrelHtWifiManager)",
                  rateManager);
    flags.AddCheck([&rateManager]() {
        TypeId tid;
        TypeId base;
        if (!TypeId::LookupByNameFailSafe("ns3::WifiRemoteStationManager", &base) ||
            !TypeId::LookupByNameFailSafe(rateManager, &tid) || !tid.IsChildOf(base) ||
            !tid.HasConstructor())
        {
            std::string known;
            for (uint16_t i = 0; i < TypeId::GetRegisteredN(); ++i)
            {
                const TypeId t = TypeId::GetRegistered(i);
                if (t.IsChildOf(base) && t.HasConstructor())
                {
                    known += (known.empty() ? "" : ", ") + t.GetName();
                }
            }
            throw fl::ConfigError("--rateManager",
                                  "'" + rateManager + "' is not an ns-3 Wi-Fi rate control",
                                  "use one of " + known);
        }
    });
}

} // namespace flexample
} // namespace ns3

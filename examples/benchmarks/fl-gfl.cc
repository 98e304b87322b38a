/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * fl-gfl (and fl-ghp, the same program with --figure=ghp by default): the orderings of the GFL
 * and GHP papers' main figures, in process (--mode=inprocess, ideal links, the default) or over
 * ns-3 links (--mode=network: servers on point-to-point links or an 802.11s mesh along the
 * graph, each with a CSMA or Wi-Fi cell of clients, TCP or UDP; GHP agents on Wi-Fi ad hoc, one
 * 802.11 broadcast per release or --ghpTransport=unicast, --ghpLoss for frame errors). A
 * lossless network run gives the in-process numbers bit for bit (test-gfl-network), also with
 * --secure (secure aggregation of Bonawitz et al., ACM CCS 2017) and --dropout. Monte Carlo
 * over --runs realisations with common random numbers: every variant of a run sees the same
 * data, graph, client sampling and local steps; only the privacy noise differs. In process the
 * runs and variants run on the training threads (--FlTrainingThreads=N), the CSV and the printed
 * lines the same for any N.
 *
 * Papers: GFL is E. Rizk, S. Vlaski, A. H. Sayed, "Privatized Graph Federated Learning",
 * arXiv:2203.07105, 2022 (Figs. 2-5) and its journal version, EURASIP J. Adv. Signal Process.
 * 2023, article 87 (Figs. 2-7); GHP is S. Vlaski, A. H. Sayed, "Graph-Homomorphic Perturbations
 * for Private Decentralized Learning", ICASSP 2021.
 *
 *   fl-gfl --figure=gfl    # GFL Fig. 2: none / iid-per-link / iid-broadcast / graph-homomorphic
 *   fl-gfl --figure=fl     # GFL journal Fig. 5: none / noisy models / noisy updates
 *   fl-gfl --figure=ghp    # GHP Fig. 1: none / iid / graph-homomorphic
 *   fl-gfl --quick --output=F.csv   # all three, small, in seconds (the test suite)
 *   fl-gfl --figure=bench  # in-process P = 10 x K = 100; network wall time per iteration
 *   fl-gfl --figure=gfl --runs=20 --engine=parallel  # the same CSV, one job per Monte-Carlo
 *                                                    # run by utils/fl-sweep (serial, slurm too)
 *   in process only: --figure=gfl3 (GFL Fig. 3), gfl4 (Fig. 4), fl6 (journal Fig. 6), class
 *   (two Fashion-MNIST classes in place of Avazu)
 *
 * The program (examples/support/fl-gfl-driver.cc) reads its flags, chooses the figure and writes
 * what the figures return: the figures (their variants as data, the Monte Carlo, the network
 * scenes, the papers' orderings as checked claims) are examples/support/gfl-figures.h, the
 * series and claims model/runtime/monte-carlo.h.
 * Output: a tidy CSV, one row per (iteration, variant, metric), msd_* in dB (10 log10 of the
 * Monte-Carlo mean), epsilon rows with --clip > 0 (each described by a comment line); the
 * summary prints the steady-state levels (mean over the last quarter of the iterations) and
 * whether each ordering the papers' figures show holds. The choices where the papers are silent
 * are printed with each figure and listed in examples/support/gfl-figures.h and
 * doc/fl-gfl-ghp.rst.
 *
 * --engine=serial|parallel|slurm runs each Monte-Carlo run r as one job of utils/fl-sweep
 * (FlFigureRunner: --RngRun = RngRun + r, --runs=1, --seedJob=RngRun): the job runs run r alone
 * (GflFigureOptions::firstRun = r, the same data, graph and local work as run r in process, and
 * over ns-3 links the same run number RngRun + r) and writes its series at 17 significant digits
 * (fl::WriteMonteCarloRunRows); this program then merges them in run order
 * (fl::MergeMonteCarloRunRows), as the in-process Monte Carlo does, into the same CSV bytes but
 * for one provenance line.
 */
#include "../support/fl-gfl-driver.h"

int
main(int argc, char* argv[])
{
    return ns3::flexample::RunGflFigureProgram(argc, argv, false);
}

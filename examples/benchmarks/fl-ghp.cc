/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * fl-ghp: GHP diffusion (S. Vlaski, A. H. Sayed, "Graph-Homomorphic Perturbations for Private
 * Decentralized Learning", ICASSP 2021) Fig. 1 -- none / iid / graph-homomorphic perturbations --
 * in process or over Wi-Fi ad hoc (--mode=network). The same program as fl-gfl (one source,
 * no duplicated flags or metrics) with --figure=ghp and --output=fl-ghp.csv by default.
 */
#include "../support/fl-gfl-driver.h"

int
main(int argc, char* argv[])
{
    return ns3::flexample::RunGflFigureProgram(argc, argv, true);
}

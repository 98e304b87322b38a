/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Secure aggregation, pure (no ns-3 header), in one include: the protocol of Bonawitz, Ivanov,
 * Kreuter, Marcedone, McMahan, Patel, Ramage, Segal and Seth, "Practical Secure Aggregation for
 * Privacy-Preserving Machine Learning", ACM CCS 2017, and its SecAgg+ variant of Bell, Bonawitz,
 * Gascón, Lepoint and Raykova, "Secure Single-Server Aggregation with (Poly)Logarithmic
 * Overhead", ACM CCS 2020. Each part is its own header:
 *
 *  - secagg-primitives.h  X25519 key agreement, fixed point in Z_{2^64}, the ChaCha20 mask PRG;
 *  - shamir.h             t-of-n Shamir sharing and the key source;
 *  - secagg-graph.h       the Harary graph and the SecAgg+ parameter choice;
 *  - secagg-config.h      a run's settings and the guarantee they give;
 *  - secagg-wire.h        the strict wire messages;
 *  - secagg-protocol.h    the client and server state machines (Fig. 4) and a run in process;
 *  - secagg-beacon.h      the SecAgg+ graph fixed by a public beacon the server cannot choose;
 *  - secagg-attack.h      an actively malicious server, to test the claims from its side.
 */
#ifndef FL_SECURE_AGGREGATION_H
#define FL_SECURE_AGGREGATION_H

#include "ns3/secagg-attack.h"
#include "ns3/secagg-beacon.h"
#include "ns3/secagg-config.h"
#include "ns3/secagg-graph.h"
#include "ns3/secagg-primitives.h"
#include "ns3/secagg-protocol.h"
#include "ns3/secagg-wire.h"
#include "ns3/shamir.h"

#endif // FL_SECURE_AGGREGATION_H

/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The Doxygen groups of the fl module: one group for the module and one sub-group per folder of
 * its tree (doc/fl-design.rst, "The folders"). This header holds no code.
 */
#ifndef FL_DOXYGEN_H
#define FL_DOXYGEN_H

/**
 * \defgroup fl Federated and decentralised learning
 * Federated and decentralised learning over simulated wireless networks: the learning, the
 * algorithms' maths and their privacy as pure C++ layers, and the ns-3 applications, observers
 * and helpers that move the models over simulated links.
 */

/**
 * \defgroup fl-learning Learning
 * \ingroup fl
 * Data sets, readers, partitioners, models, the local trainer, metrics and LearningTask (pure).
 */

/**
 * \defgroup fl-runtime Runtime
 * \ingroup fl
 * Monte Carlo over seeds, the sweep grid, the training thread pool, child processes, the MPI
 * rank partition and phase accounting: what runs experiments but is not learning (pure).
 */

/**
 * \defgroup fl-algorithms Algorithms
 * \ingroup fl
 * One pure file per update rule: FedAvg and its variants, asynchronous FL, q-FFL, graphs, DWFL,
 * GFL and GHP diffusion, the over-the-air parameter server, uplink codecs and EGA.
 */

/**
 * \defgroup fl-privacy Privacy
 * \ingroup fl
 * Perturbations, privacy accountants, the papers' epsilons, privacy audits and secure
 * aggregation (pure).
 */

/**
 * \defgroup fl-net Wire format
 * \ingroup fl
 * Model messages, stream reassembly, UDP chunking and feedback, payload codecs (pure).
 */

/**
 * \defgroup fl-ota Over-the-air channel
 * \ingroup fl
 * The analog over-the-air channel and PHY (ns-3) and their pure fading, power and signal maths.
 */

/**
 * \defgroup fl-apps Applications
 * \ingroup fl
 * The ns-3 applications: the transport, the generic server and client, and the GFL, GHP, DWFL
 * and over-the-air applications.
 */

/**
 * \defgroup fl-strategies Strategies
 * \ingroup fl
 * What an algorithm decides: the server and client strategy seam (eight core hooks and the
 * optional interfaces), the round rules, the module's strategies (FedAvg, FedAsync, FedBuff,
 * q-FFL, GFL, the uplink codec) and the uplink steps (secure aggregation's).
 */

/**
 * \defgroup fl-monitor Observers
 * \ingroup fl
 * FlLearningTracker and LearningMonitor: what the applications report, as tidy CSV.
 */

/**
 * \defgroup fl-helper Helpers
 * \ingroup fl
 * Installers of the applications and the network scenes.
 */

#endif // FL_DOXYGEN_H

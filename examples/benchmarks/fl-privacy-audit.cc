/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * fl-privacy-audit: every epsilon the module reports, checked by experiment. Each mechanism
 * (fl::PrivacyAuditMechanisms: FedAvg's uplink noise, GFL's and GHP's releases per adversary
 * and GHP's over two iterations of a graph that changes,
 * DWFL's reception over T = 1..10 rounds, the over-the-air parameter server, and a reference
 * Gaussian release) runs through the module's own code on two neighbouring inputs chosen to be
 * worst case; the best threshold test, its threshold chosen on a calibration set, is evaluated
 * on a separate set, and its error rates become a Clopper-Pearson lower bound on epsilon at the
 * mechanism's delta, Bonferroni-corrected over the rows (M. Jagielski, J. Ullman, A. Oprea,
 * NeurIPS 2020; M. Nasr et al., IEEE S&P 2021; M. Nasr et al., USENIX Security 2023).
 *
 *   fl-privacy-audit --quick           # 20,000 trials per input and set, under a minute
 *   fl-privacy-audit                   # 100,000 trials per input and set
 *
 * A lower bound above the claim refutes the claim (exit status 1). A claim above
 * auditable_max_eps (what the trials could certify without a single test error) is not
 * testable with that many trials.
 */

#include "../fl-example-flags.h"

#include "ns3/privacy-audit-mechanisms.h"

#include <chrono>
#include <fstream>
#include <iomanip>
#include <iostream>

using namespace ns3;

int
main(int argc, char* argv[])
{
    bool quick = false;
    uint64_t trials = 100000;
    double alpha = 0.05;
    uint64_t seed = 1;
    std::string output = "fl-privacy-audit.csv";
    flexample::Flags flags(__FILE__);
    flags.Cmd().Usage(
        "Privacy auditing by experiment: every mechanism the module reports an epsilon for runs "
        "through the module's code on worst-case neighbouring inputs; the best threshold test "
        "(threshold from a calibration set) gives a Clopper-Pearson lower bound on epsilon, "
        "Bonferroni-corrected over the rows. CSV columns: mechanism, claimed_eps, "
        "audited_eps_lower, auditable_max_eps, testable, trials, false_positives, "
        "false_negatives. Exit status 1 if a lower bound exceeds its claim.");
    flags.AddBool("quick",
                  "20,000 trials per input and set (under a minute) unless --trials is given",
                  quick);
    flags.AddWhole<uint64_t>("trials",
                             "Trials per input (D0, D1) in each of the calibration and the "
                             "evaluation set",
                             trials,
                             10,
                             100000000);
    flags.AddReal("alpha",
                  "Probability that any row's lower bound is wrong (split over the rows)",
                  alpha,
                  flexample::Range{0.0, 1.0, true, true});
    flags.AddRefusedAlias("seed",
                          "--RngRun=N",
                          " (the run number, ns-3's --RngRun, seeds every trial)");
    flags.AddCheck([&seed] { seed = RngSeedManager::GetRun(); });
    flags.AddOutput("output", "CSV output file", output, false);
    if (!flags.Parse(argc, argv))
    {
        return flexample::kExitBadFlag;
    }
    if (quick && !flags.Given("trials"))
    {
        trials = 20000; // --quick's default; --trials given with it wins
    }
    std::ofstream csv(output);
    if (!csv)
    {
        std::cerr << "fl-privacy-audit: cannot write " << output << std::endl;
        return flexample::kExitBadFlag;
    }
    std::vector<fl::AuditMechanism> mechanisms;
    try
    {
        mechanisms = fl::PrivacyAuditMechanisms();
    }
    catch (const fl::ConfigError& e)
    {
        std::cerr << "fl-privacy-audit: " << e.what() << std::endl;
        return flexample::kExitBadFlag;
    }
    std::cout << "fl-privacy-audit: " << mechanisms.size() << " mechanisms, " << trials
              << " trials per input in the calibration and in the evaluation set, alpha = " << alpha
              << " over all rows (Bonferroni), seed " << seed << std::endl;
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<fl::AuditRow> rows;
    bool refuted = false;
    csv << "mechanism,claimed_eps,audited_eps_lower,auditable_max_eps,testable,trials,"
           "false_positives,false_negatives\n";
    for (std::size_t r = 0; r < mechanisms.size(); ++r)
    {
        // one row at a time, with its Bonferroni share of alpha: progress as it goes
        fl::AuditRow row;
        try
        {
            std::vector<fl::AuditRow> one = fl::RunPrivacyAudit({mechanisms[r]},
                                                                trials,
                                                                alpha / mechanisms.size(),
                                                                fl::DeriveSeed(seed, r));
            row = std::move(one.front());
        }
        catch (const fl::ConfigError& e)
        {
            std::cerr << "fl-privacy-audit: " << e.what() << std::endl;
            return flexample::kExitBadFlag;
        }
        const bool bad = row.audit.epsilonLower > row.claimedEpsilon;
        refuted = refuted || bad;
        std::cout << "[" << std::setw(2) << (r + 1) << "/" << mechanisms.size() << "] " << std::left
                  << std::setw(44) << row.name << std::right << " claimed " << std::setw(9)
                  << std::setprecision(4) << row.claimedEpsilon << "  audited >= " << std::setw(7)
                  << row.audit.epsilonLower << "  (max certifiable " << row.audit.auditableMax
                  << (row.testable ? "" : ", claim NOT TESTABLE with these trials")
                  << (bad ? ", CLAIM REFUTED" : "") << ")" << std::endl;
        csv << std::setprecision(10) << row.name << ',' << row.claimedEpsilon << ','
            << row.audit.epsilonLower << ',' << row.audit.auditableMax << ','
            << (row.testable ? "yes" : "no") << ',' << trials << ',' << row.audit.falsePositives
            << ',' << row.audit.falseNegatives << '\n';
        rows.push_back(std::move(row));
    }
    for (const fl::AuditRow& row : rows)
    {
        csv << "# " << row.name << ": " << row.description << '\n';
    }
    csv << "# audited_eps_lower: holds for every row together with probability >= " << 1 - alpha
        << " (Clopper-Pearson bounds on the evaluation set's error rates, alpha / "
        << mechanisms.size() << " per row, split over FPR and FNR)\n";
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::cout << (refuted ? "some claim is refuted" : "audited <= claimed on every row") << "; "
              << std::fixed << std::setprecision(1) << seconds << " s; " << output << std::endl;
    return refuted ? 1 : 0;
}

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Tests of utils/fl-sweep (run by ctest): test-fl-sweep.py CASE --bin DIR --work DIR

CASE: grid (expansion, refusals of bad grids and of values --checkFlags refuses),
resume (GNU parallel on a tiny grid, one job killed by a kill marker, the rerun of that job
alone, the merge), engines (serial and GNU parallel give the same merged CSV), slurm (a real
single-node Slurm started by utils/setup-slurm.sh, stopped by utils/stop-slurm.sh; skipped with
status 77 where Slurm is not installed)."""

import argparse
import csv
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SWEEP = os.path.join(ROOT, "utils", "fl-sweep")
SKIP = 77
TINY = "--clients=2 --rounds=2 --samplesPerClient=50 --testSamples=100 --quiet"


def sweep(*args, ok=(0,)):
    p = subprocess.run([sys.executable, SWEEP] + list(args), capture_output=True, text=True,
                       timeout=55)
    if p.returncode not in ok:
        sys.exit(f"FAIL: fl-sweep {' '.join(args)} -> {p.returncode}\n{p.stdout}{p.stderr}")
    return p


def check(cond, what):
    if not cond:
        sys.exit("FAIL: " + what)
    print("ok   " + what)


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


def tiny_grid(work, name="grid.txt"):
    return write(os.path.join(work, name),
                 "# two transports x two runs\nprogram fl-fedavg-wifi\n"
                 "flag transport tcp udp\nruns 1..2\nfixed " + TINY + "\n")


def case_grid(b, work):
    g = write(os.path.join(work, "g.txt"), "program fl-fedavg-wifi\nflag clients 2 3 4\n"
              "flag transport tcp udp\nruns 1..2 5\nfixed " + TINY.replace("--clients=2 ", "")
              + "\n")
    p = sweep("list", g, "--bin", b, "--dir", os.path.join(work, "s"))
    lines = p.stdout.splitlines()
    check(len(lines) == 3 * 2 * 3, f"3 x 2 flag values x 3 runs = 18 jobs ({len(lines)})")
    check(len({l.split()[0] for l in lines}) == 18, "every job has its own directory")
    check(all("--output=jobs/" in l and "--RngRun=" in l for l in lines),
          "every job has its own --output and --RngRun")
    p = sweep("list", "--program", "fl-fedavg-wifi", "--flag", "clients=2,3", "--runs", "1,4",
              "--fixed", TINY.replace("--clients=2 ", ""), "--bin", b, "--dir",
              os.path.join(work, "c"))
    check(len(p.stdout.splitlines()) == 4, "a grid on the command line: 2 x 2 jobs")
    bad = [("program fl-fedavg-wifi\nflag clients 2 0\n", ":2:", "--clients"),
           ("program fl-fedavg-wifi\nflag bogusFlag 1 2\n", ":2:", "bogusFlag"),
           ("program fl-fedavg-wifi\nflag transport tcp quic\n", ":2:", "--transport"),
           ("program fl-fedavg-wifi\nfixed --clients=2 --model=nope\n", ":2:", "model"),
           ("program fl-fedavg-wifi\nflags clients 2\n", ":2:", "not a grid directive"),
           ("program fl-fedavg-wifi\nruns 3..1\n", ":2:", "runs range"),
           ("program fl-fedavg-wifi\nflag output a b\n", ":2:", "cannot be swept"),
           ("program fl-fedavg-wifi\nflag clients\n", ":2:", "no value"),
           ("program fl-nothing\n", ":1:", "no executable")]
    for i, (text, line, reason) in enumerate(bad):
        path = write(os.path.join(work, f"bad{i}.txt"), text)
        p = sweep("check", path, "--bin", b, "--dir", os.path.join(work, f"b{i}"), ok=(2,))
        check(line in p.stderr and reason in p.stderr,
              f"refused with the line and the reason: {text.splitlines()[-1]!r} -> "
              f"{p.stderr.strip()}")
        check(not os.path.exists(os.path.join(work, f"b{i}", "sweep.json")),
              "  no job planned")
    p = subprocess.run([os.path.join(b, "fl-fedavg-wifi"), "--checkFlags", "--clients=0"],
                       capture_output=True, text=True, timeout=30)
    check(p.returncode == 2 and "--clients" in p.stderr, "--checkFlags refuses --clients=0: 2")
    out = os.path.join(work, "never.csv")
    p = subprocess.run([os.path.join(b, "fl-fedavg-wifi"), "--checkFlags", "--output=" + out],
                       capture_output=True, text=True, timeout=30)
    check(p.returncode == 0 and "flags valid" in p.stdout and not os.path.exists(out),
          "--checkFlags on valid flags: 0, nothing run, no file written")


def jobs_of(b, grid, d):
    p = sweep("list", grid, "--bin", b, "--dir", d)
    return [l.split("\t")[0] for l in p.stdout.splitlines()]


def case_resume(b, work):
    if not shutil.which("parallel"):
        print("SKIP: GNU parallel is not installed (apt-get install parallel, or "
              "utils/install-deps.sh)")
        return SKIP
    g = tiny_grid(work)
    d = os.path.join(work, "s")
    ids = jobs_of(b, g, d)
    check(len(ids) == 4, "4 jobs")
    victim = ids[1]
    write(os.path.join(d, "jobs", victim, "kill"), "")
    p = sweep("run", g, "--bin", b, "--dir", d, "--engine", "parallel", "--ci", "test_accuracy",
              ok=(1,))
    check(f"FAILED {victim}: exit -9" in p.stderr, "the killed job is listed with its status")
    check("last lines of" in p.stderr, "  and its log")
    check("3/4 done, 1 failed" in p.stderr, "progress: 3 done, 1 failed")
    done = {i: os.path.getmtime(os.path.join(d, "jobs", i, ".done")) for i in ids if i != victim}
    p = sweep("status", "--dir", d, ok=(1,))
    check("1 failed" in p.stdout and "3 done" in p.stdout, "status: 3 done, 1 failed")
    p = sweep("run", g, "--bin", b, "--dir", d, "--engine", "parallel", "--rerun-failed", "--ci",
              "test_accuracy")
    check("3 finished (skipped), 1 to run" in p.stderr, "--rerun-failed runs the failed job alone")
    check(all(os.path.getmtime(os.path.join(d, "jobs", i, ".done")) == t
              for i, t in done.items()), "  the finished jobs are not run again")
    p = sweep("run", g, "--bin", b, "--dir", d, "--engine", "parallel")
    check("4 finished (skipped), 0 to run" in p.stderr, "a rerun skips every finished job")
    with open(os.path.join(d, "merged.csv")) as f:
        rows = list(csv.DictReader(f))
    check(len(rows) == 4 * 3, "merged: 4 jobs x 3 rows (rounds 0..2)")
    check({(r["transport"], r["rng_run"]) for r in rows} ==
          {("tcp", "1"), ("tcp", "2"), ("udp", "1"), ("udp", "2")},
          "merged: the grid's flags and rng_run as columns")
    r = rows[0]
    check(r["program"] == "fl-fedavg-wifi" and "--RngRun=1" in r["program_flags"] and
          r["git_commit"] and r["ns3_version"], "merged: provenance columns")
    with open(os.path.join(d, "summary.csv")) as f:
        summary = list(csv.DictReader(f))
    check(len(summary) == 2 * 3 and all(s["n"] == "2" for s in summary),
          "summary: one row per transport and round, 2 runs each")
    return 0


def case_engines(b, work):
    if not shutil.which("parallel"):
        print("SKIP: GNU parallel is not installed (apt-get install parallel)")
        return SKIP
    g = tiny_grid(work)
    p = sweep("run", g, "--bin", b, "--dir", os.path.join(work, "cmp"), "--engine", "parallel",
              "--compare-serial", "--quiet")
    check("merged CSVs identical" in p.stdout, "serial and GNU parallel: " + p.stdout.strip())
    return 0


def case_slurm(b, work):
    if not (shutil.which("slurmctld") and shutil.which("slurmd") and shutil.which("munged")):
        print("SKIP: Slurm is not installed (utils/setup-slurm.sh installs slurm-wlm and munge)")
        return SKIP
    state = os.path.join(work, "slurm-state")
    try:
        try:
            setup = subprocess.run(["bash", os.path.join(ROOT, "utils", "setup-slurm.sh"),
                                    "--state", state, "--timeout", "120", "--no-install"],
                                   capture_output=True, text=True, timeout=35)
        except subprocess.TimeoutExpired:
            print("SKIP: single-node Slurm did not answer within 35 s (is another Slurm using "
                  "ports 16817/16818?)")
            return SKIP
        if setup.returncode != 0:
            print("SKIP: single-node Slurm did not start here:\n" + setup.stdout + setup.stderr)
            return SKIP
        os.environ["SLURM_CONF"] = os.path.join(state, "slurm.conf")
        g = tiny_grid(work)
        sweep("run", g, "--bin", b, "--dir", os.path.join(work, "serial"), "--engine", "serial",
              "--quiet")
        p = sweep("run", g, "--bin", b, "--dir", os.path.join(work, "slurm"), "--engine",
                  "slurm", "--time", "0:05:00", "--mem", "500M", "--slurm-wait", "40")
        check("submitted Slurm array" in p.stderr, "the array is submitted")
        logs = [f for f in os.listdir(os.path.join(work, "slurm", "slurm")) if f.endswith(".log")]
        check(len(logs) == 4, "one Slurm log per array task")
        with open(os.path.join(work, "serial", "merged.csv")) as a, \
                open(os.path.join(work, "slurm", "merged.csv")) as c:
            check(a.read() == c.read(), "Slurm and serial: identical merged CSVs")
    finally:
        subprocess.run(["bash", os.path.join(ROOT, "utils", "stop-slurm.sh"), "--state", state],
                       timeout=60)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("case", choices=["grid", "resume", "engines", "slurm"])
    ap.add_argument("--bin", required=True, help="directory of the built examples")
    ap.add_argument("--work", required=True, help="scratch directory (emptied first)")
    a = ap.parse_args()
    work = os.path.abspath(os.path.join(a.work, a.case))
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    rc = {"grid": case_grid, "resume": case_resume, "engines": case_engines,
          "slurm": case_slurm}[a.case](os.path.abspath(a.bin), work)
    return rc or 0


if __name__ == "__main__":
    sys.exit(main())

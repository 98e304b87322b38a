#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Runs every utils/plot-*.sh on the CSVs of small runs of the programs and checks the gnuplot
programs they run (FL_PLOT_SCRIPT, utils/plot-common.sh) and the PNGs they write:

  * at most 6 titled curves in a panel, each with its own line type ("lt K": its colour, marker
    and dash pattern), so that no two curves of a panel look alike;
  * every panel's axes labelled, with units where the quantity has one (times in [s] or [ms],
    MSDs in [dB], bytes in [kB] or [MB], losses named as cross-entropy);
  * titles that say what ran, not a file name (no ".csv", ".png" or ".dat" in a title);
  * a learning curve against simulated time drawn as steps (the model of round r holds until
    round r + 1 ends: a wait before round 1 is a flat stretch, not a slope);
  * every PNG written and not empty.

usage: check-plots.py --bin EXAMPLES_DIR --utils UTILS_DIR --work SCRATCH_DIR
Exit 77 (skipped) without gnuplot.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

MAX_CURVES = 6


def split_top_level(text, sep=","):
    """Splits at `sep` outside quotes and parentheses."""
    parts, depth, quote, cur = [], 0, None, []
    for ch in text:
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = None
            continue
        if ch in "'\"":
            quote = ch
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    parts.append("".join(cur))
    return [p.strip() for p in parts if p.strip()]


def gp_string(text):
    """The first gnuplot string literal in text ('' doubles a quote), or None."""
    m = re.search(r"'((?:[^']|'')*)'|\"((?:[^\"\\\\]|\\\\.)*)\"", text)
    if not m:
        return None
    return m.group(1).replace("''", "'") if m.group(1) is not None else m.group(2)


def commands(program):
    """The program's commands: continuation lines joined, ';'-separated commands split."""
    lines, buf = [], ""
    for raw in program.splitlines():
        if raw.rstrip().endswith("\\"):
            buf += raw.rstrip()[:-1] + " "
            continue
        buf += raw
        for cmd in split_top_level(buf, ";"):
            lines.append(cmd)
        buf = ""
    return lines


UNITS = [
    (re.compile(r"\btime\b", re.I), re.compile(r"\[(s|ms)\]")),
    (re.compile(r"\bMSD\b"), re.compile(r"\[dB\]")),
    (re.compile(r"\b(bytes|uplink)\b", re.I), re.compile(r"\[(B|kB|MB)\]")),
    (re.compile(r"\bloss\b(?! rate)(?!.*messages)", re.I), re.compile(r"cross-entropy|fraction")),
]


def check_program(name, program, problems):
    xlabel = ylabel = ""
    titles = []
    plots = 0
    for cmd in commands(program):
        words = cmd.split()
        if not words:
            continue
        if words[0] == "set" and len(words) > 1:
            if words[1] in ("xlabel", "ylabel"):
                text = gp_string(cmd) or ""
                if words[1] == "xlabel":
                    xlabel = text
                else:
                    ylabel = text
            elif words[1] == "title" or (words[1] == "multiplot" and " title " in cmd):
                t = gp_string(cmd[cmd.index("title"):]) or ""
                titles.append(t)
        elif words[0] == "unset" and len(words) > 1 and words[1] in ("xlabel", "ylabel"):
            if words[1] == "xlabel":
                xlabel = ""
            else:
                ylabel = ""
        elif words[0] == "plot":
            plots += 1
            curves = split_top_level(cmd[len("plot"):])
            titled = [c for c in curves if re.search(r"\btitle\s+['\"]", c)]
            where = "%s, plot %d (%s / %s)" % (name, plots, xlabel, ylabel)
            if len(titled) > MAX_CURVES:
                problems.append("%s: %d curves, more than %d" % (where, len(titled), MAX_CURVES))
            styles = []
            for c in titled:
                m = re.search(r"\b(?:lt|ls)\s+(\d+)", c)
                if not m:
                    problems.append("%s: a curve without its line type: %s" % (where, c[:80]))
                else:
                    styles.append(m.group(1))
            if len(set(styles)) != len(styles):
                problems.append("%s: two curves share a style: %s" % (where, styles))
            if all("with image" in c for c in curves):
                continue
            if not xlabel.strip() or not ylabel.strip():
                problems.append("%s: an axis without a label" % where)
            for label in (xlabel, ylabel):
                for quantity, unit in UNITS:
                    if quantity.search(label) and not unit.search(label):
                        problems.append("%s: '%s' without its unit" % (where, label))
            if re.search(r"simulated time", xlabel) and "test accuracy" in ylabel and \
                    name.startswith("plot-learning-curve") and \
                    not all("with steps" in c or "with points" in c for c in curves):
                problems.append("%s: accuracy against time not drawn as steps" % where)
    if plots == 0:
        problems.append("%s: no plot" % name)
    if not any(t.strip() for t in titles):
        problems.append("%s: no title" % name)
    for t in titles:
        if re.search(r"\.(csv|png|dat)\b", t):
            problems.append("%s: a title names a file: '%s'" % (name, t))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--utils", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    a.bin, a.utils, a.work = (os.path.abspath(p) for p in (a.bin, a.utils, a.work))
    if not shutil.which("gnuplot"):
        print("skipped: gnuplot is not installed (utils/install-deps.sh installs it)")
        return 77
    os.makedirs(a.work, exist_ok=True)
    w = lambda f: os.path.join(a.work, f)

    def run(cmd):
        r = subprocess.run(cmd, cwd=a.work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
        if r.returncode != 0:
            raise SystemExit("%s exited with %d:\n%s" % (" ".join(cmd), r.returncode, r.stdout))

    b = lambda p: os.path.join(a.bin, p)
    small = ["--samplesPerClient=100", "--testSamples=200", "--quiet"]
    run([b("fl-fedavg-wifi"), "--clients=4", "--rounds=3", "--output=" + w("lc.csv")] + small)
    run([b("fl-gfl"), "--quick", "--quiet", "--figure=all", "--output=" + w("gfl-all.csv")])
    run([b("fl-gfl"), "--quick", "--quiet", "--figure=gfl3", "--iterations=20",
         "--output=" + w("gfl3.csv")])
    run([b("fl-gfl"), "--quick", "--quiet", "--figure=gfl", "--clip=1", "--iterations=20",
         "--output=" + w("gfl-eps.csv")])
    run([b("fl-ghp"), "--quick", "--quiet", "--mode=network", "--iterations=20",
         "--output=" + w("ghp-a.csv")])
    run([b("fl-ghp"), "--quick", "--quiet", "--mode=network", "--iterations=20", "--ghpLoss=0.2",
         "--output=" + w("ghp-b.csv")])
    run([b("fl-dwfl"), "--figure=workers", "--rounds=2", "--samplesPerWorker=20",
         "--testSamples=50", "--quiet", "--output=" + w("dwfl.csv")])
    run([b("fl-dwfl"), "--figure=mobility", "--rounds=3", "--samplesPerWorker=20",
         "--testSamples=50", "--quiet", "--output=" + w("dwfl-mob.csv"),
         "--aggregateOutput=" + w("dwfl-agg.csv")])
    with open(w("speed.grid"), "w") as g:
        g.write("program fl-fedavg-wifi\n"
                "flag mobility random-waypoint:side=30,min=2,max=2 "
                "random-waypoint:side=30,min=10,max=10\n"
                "runs 1\nfixed --clients=3 --rounds=3 --samplesPerClient=100 --testSamples=200"
                " --deadline=2 --quiet\n")
    run([sys.executable, os.path.join(a.utils, "fl-sweep"), "run", w("speed.grid"),
         "--engine", "serial", "--dir", w("sweep-speed"), "--bin", a.bin])
    run([b("fl-ghp-moving"), "--agents=8", "--iterations=10", "--speeds=0,10",
         "--helloIntervals=0.25,1", "--output=" + w("ghp-moving.csv")])
    run([b("fl-gfl-handover"), "--servers=2", "--clientsPerServer=3", "--sampled=2",
         "--iterations=10", "--speeds=0,5", "--output=" + w("gfl-handover.csv")])
    run([b("fl-ega"), "--quick", "--output=" + w("ega.csv"), "--imageDir=" + a.work])
    run([b("fl-fedavg-lossy"), "--rounds=3", "--losses=0,0.1", "--clients=4",
         "--output=" + w("lossy.csv")] + small)
    run([b("fl-stragglers"), "--clients=6", "--maxTime=3", "--deadlines=0,0.5",
         "--output=" + w("strag.csv")] + small)
    run([b("fl-async-wifi"), "--clients=6", "--maxTime=3", "--output=" + w("async.csv")] + small)
    run([b("fl-ota-aircomp"), "--slots=20", "--dim=100", "--quiet", "--output=" + w("ota.csv")])

    u = lambda s: os.path.join(a.utils, s)
    cases = [
        ("plot-learning-curve", [u("plot-learning-curve.sh"), w("lc.csv")], ["lc.png"]),
        ("plot-gfl all", [u("plot-gfl.sh"), w("gfl-all.csv")], ["gfl-all.png"]),
        ("plot-gfl gfl3", [u("plot-gfl.sh"), w("gfl3.csv")], ["gfl3.png"]),
        ("plot-gfl epsilon", [u("plot-gfl.sh"), w("gfl-eps.csv")], ["gfl-eps.png"]),
        ("plot-gfl ghp-network", [u("plot-gfl.sh"), "--ghp-network", w("ghp-net.csv"),
                                  "lossless=" + w("ghp-a.csv"), "lossy=" + w("ghp-b.csv")],
         ["ghp-net.png"]),
        ("plot-dwfl", [u("plot-dwfl.sh"), w("dwfl.csv")], ["dwfl.png"]),
        ("plot-dwfl-aggregate", [u("plot-dwfl-aggregate.sh"), w("dwfl-agg.csv")],
         ["dwfl-agg.png"]),
        ("plot-ghp-moving", [u("plot-ghp-moving.sh"), w("ghp-moving.csv")],
         ["ghp-moving.png"]),
        ("plot-gfl-handover", [u("plot-gfl-handover.sh"), w("gfl-handover.csv")],
         ["gfl-handover.png"]),
        ("plot-fedavg-speed", [u("plot-fedavg-speed.sh"), w("sweep-speed/merged.csv"),
                               w("fedavg-speed.png"), "0.3"],
         ["fedavg-speed.png"]),
        ("plot-ega", [u("plot-ega.sh"), w("ega.csv"), a.work],
         ["ega-sigma.png", "ega-rounds.png", "ega-algorithms.png", "ega-network.png",
          "ega-leakage.png"]),
        ("plot-lossy", [u("plot-lossy.sh"), w("lossy.csv")], ["lossy.png"]),
        ("plot-stragglers", [u("plot-stragglers.sh"), w("strag-rounds.csv")], ["strag-rounds.png"]),
        ("plot-async", [u("plot-async.sh"), w("async")],
         ["async-time.png", "async-bytes.png", "async-staleness.png"]),
        ("plot-ota-aircomp", [u("plot-ota-aircomp.sh"), w("ota.csv")], ["ota.png"]),
    ]
    scripts = {os.path.basename(c[1][0]) for c in cases}
    every = {f for f in os.listdir(a.utils) if re.match(r"plot-.*\.sh$", f) and f != "plot-common.sh"}
    problems = ["%s is not checked here (add a case)" % f for f in sorted(every - scripts)]
    for name, cmd, pngs in cases:
        gp = w(re.sub(r"\W+", "-", name) + ".gp")
        if os.path.exists(gp):
            os.remove(gp)
        env = dict(os.environ, FL_PLOT_SCRIPT=gp)
        r = subprocess.run(["bash"] + cmd, cwd=a.work, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0 or re.search(r"^\s*line \d+: (?!warning)", r.stdout, re.M):
            problems.append("%s: exit %d:\n%s" % (name, r.returncode, r.stdout))
            continue
        for png in pngs:
            if not os.path.exists(w(png)) or os.path.getsize(w(png)) < 1000:
                problems.append("%s: %s not written" % (name, png))
        with open(gp) as f:
            for program in f.read().split("# --- end of program\n"):
                if program.strip():
                    check_program(name, program, problems)
        print("checked %s" % name)
    for p in problems:
        print("FAIL " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

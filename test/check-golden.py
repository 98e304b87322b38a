#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Runs an example and compares the CSV it writes with a reference CSV committed under
test/golden/, field by field as text (no tolerance): a change of the code that is meant to keep
every learning result (a refactoring, a faster path, more threads) must keep these files.

Wall-clock measurements are left out: columns whose name contains "wall", rows with a field
that contains "wall" (and the other names given with --ignore=a,b, which must come first). The reference was written on one CPU with -march=native; on a CPU of
another kind the last bits of floating-point results may differ, so the comparison runs only
where the build's CPU matches the reference's (test/golden/MACHINE), and is skipped elsewhere
(ctest SKIP_RETURN_CODE 77).

usage: check-golden.py [--ignore=NAMES] MACHINE_OF_THIS_BUILD GOLDEN_CSV -- PROGRAM ARGS... (the program's
--output is set to a scratch file)
       check-golden.py --regenerate ... (writes the reference instead)
"""
import csv
import io
import os
import subprocess
import sys
import tempfile


IGNORE = ["wall"]


def rows_without_wall(text):
    lines = [l for l in text.splitlines() if not l.startswith("#")]
    reader = list(csv.reader(io.StringIO("\n".join(lines))))
    if not reader:
        return []
    header = reader[0]
    keep = [i for i, name in enumerate(header) if not any(w in name for w in IGNORE)]
    out = [[header[i] for i in keep]]
    for row in reader[1:]:
        if any(w in field for field in row for w in IGNORE):
            continue
        out.append([row[i] for i in keep if i < len(row)])
    return out


def main(argv):
    regenerate = False
    if argv and argv[0] == "--regenerate":
        regenerate = True
        argv = argv[1:]
    if argv and argv[0].startswith("--ignore="):
        IGNORE.extend(argv[0][len("--ignore="):].split(","))
        argv = argv[1:]
    machine, golden = argv[0], argv[1]
    sep = argv.index("--")
    cmd = argv[sep + 1:]
    golden_dir = os.path.dirname(golden)
    machine_file = os.path.join(golden_dir, "MACHINE")
    if not regenerate:
        want = open(machine_file).read().strip() if os.path.exists(machine_file) else ""
        if want != machine:
            print("skipped: the reference CSVs were written on a '%s' CPU build, this build is "
                  "'%s' (floating-point results may differ in the last bits)" % (want, machine))
            return 77
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.csv")
        run = subprocess.run(cmd + ["--output=" + out], cwd=tmp, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
        if run.returncode != 0:
            print(run.stdout[-4000:])
            print("the program failed with exit status %d" % run.returncode)
            return 1
        text = open(out).read()
    if regenerate:
        with open(golden, "w") as f:
            f.write(text)
        with open(machine_file, "w") as f:
            f.write(machine + "\n")
        print("wrote", golden)
        return 0
    got = rows_without_wall(text)
    want = rows_without_wall(open(golden).read())
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            print("%s: row %d differs from the reference\n  reference: %s\n  now:       %s"
                  % (os.path.basename(golden), i + 1, ",".join(w), ",".join(g)))
            return 1
    if len(got) != len(want):
        print("%s: %d rows, the reference has %d" % (os.path.basename(golden), len(got), len(want)))
        return 1
    print("%s: %d rows identical to the reference" % (os.path.basename(golden), len(got)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Runs an example and compares the CSV it writes with a reference CSV committed under
test/golden/, field by field as text (no tolerance): a change of the code that is meant to keep
every learning result (a refactoring, a faster path, more threads) must keep these files.

Why exact comparison holds on any x86-64 CPU. The references are written by the *portable*
build (the default, FL_NATIVE=OFF: the x86-64 baseline instruction set, no -march=native, no
floating-point contraction), so the module's own arithmetic (Eigen included) is the same
instructions on every x86-64 CPU. What could still differ is code chosen at run time by CPU:
glibc's libm picks FMA or AVX2 variants of exp, log, pow, sin, cos... on CPUs that have them,
and those round differently in the last bit. The programs therefore run with
GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-FMA,-FMA4,-AVX,-AVX512F, which makes glibc pick its
baseline (SSE2) variants everywhere. Checked under QEMU with the CPU models of an x86-64
baseline, Nehalem, Haswell and Skylake-Server (doc/fl-validation.rst, "Regression checks").

What must match (test/golden/TOOLCHAIN): the ns-3 release, the compiler and its version, and
the portable build. Another ns-3 release changes packet timing (it keeps its own checks),
another compiler may schedule floating-point operations differently, and a native build
(FL_NATIVE=ON, for speed) uses vector widths that change summation order: there the check is
skipped and says why (ctest SKIP_RETURN_CODE 77). No CPU kind is ever a reason to skip.

Wall-clock measurements are left out: columns whose name contains "wall", rows with a field
that contains "wall" (and the other names given with --ignore=a,b, which must come first).

usage: check-golden.py [--ignore=NAMES] TOOLCHAIN_OF_THIS_BUILD GOLDEN_CSV -- PROGRAM ARGS...
         (the program's --output is set to a scratch file)
       check-golden.py --regenerate ... (writes the reference instead)
       check-golden.py --expect-difference=ARGS ... (sabotage: runs the program with ARGS
         appended, space-separated, and succeeds only if the output now differs from the
         reference: the check has power against that change)
"""
import csv
import io
import os
import subprocess
import sys
import tempfile


IGNORE = ["wall"]

# glibc picks its baseline (SSE2) libm variants on every CPU with these masked.
HWCAPS = "glibc.cpu.hwcaps=-AVX2,-FMA,-FMA4,-AVX,-AVX512F"


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


def environment():
    env = dict(os.environ)
    tunables = env.get("GLIBC_TUNABLES", "")
    env["GLIBC_TUNABLES"] = (tunables + ":" if tunables else "") + HWCAPS
    return env


def run(cmd):
    """Runs the program (behind FL_GOLDEN_WRAPPER, e.g. "qemu-x86_64 -cpu Nehalem", if set);
    returns (CSV text, None) or (None, exit status)."""
    wrapper = os.environ.get("FL_GOLDEN_WRAPPER", "").split()
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.csv")
        done = subprocess.run(wrapper + cmd + ["--output=" + out], cwd=tmp, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, env=environment())
        if done.returncode != 0:
            print(done.stdout[-4000:])
            print("the program failed with exit status %d" % done.returncode)
            return None, done.returncode
        return open(out).read(), None


def differences(got, want):
    """The first differing row and the names of the columns that differ anywhere."""
    first = None
    columns = set()
    header = want[0] if want else []
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            if first is None:
                first = i
            for j, (a, b) in enumerate(zip(g, w)):
                if a != b and j < len(header):
                    columns.add(header[j])
    if first is None and len(got) != len(want):
        first = min(len(got), len(want))
    return first, sorted(columns)


def main(argv):
    mode = "compare"
    extra = []
    if argv and argv[0] == "--regenerate":
        mode = "regenerate"
        argv = argv[1:]
    elif argv and argv[0].startswith("--expect-difference="):
        mode = "sabotage"
        extra = argv[0][len("--expect-difference="):].split()
        argv = argv[1:]
    if argv and argv[0].startswith("--ignore="):
        IGNORE.extend(argv[0][len("--ignore="):].split(","))
        argv = argv[1:]
    toolchain, golden = argv[0], argv[1]
    sep = argv.index("--")
    cmd = argv[sep + 1:]
    toolchain_file = os.path.join(os.path.dirname(golden), "TOOLCHAIN")
    if mode != "regenerate":
        want_toolchain = (open(toolchain_file).read().strip()
                          if os.path.exists(toolchain_file) else "")
        if want_toolchain != toolchain:
            print("skipped: the reference CSVs were written by the build '%s', this build is "
                  "'%s' (exact results need the same ns-3 release, compiler and the portable "
                  "build; configure with -DFL_NATIVE=OFF, the default)" % (want_toolchain,
                                                                          toolchain))
            return 77
    text, status = run(cmd + extra)
    if text is None:
        return 1
    if mode == "regenerate":
        with open(golden, "w") as f:
            f.write(text)
        with open(toolchain_file, "w") as f:
            f.write(toolchain + "\n")
        print("wrote", golden)
        return 0
    got = rows_without_wall(text)
    want = rows_without_wall(open(golden).read())
    first, columns = differences(got, want)
    name = os.path.basename(golden)
    if mode == "sabotage":
        if first is None:
            print("%s: the output with %s is identical to the reference: the check would not "
                  "catch this change" % (name, " ".join(extra)))
            return 1
        print("%s: with %s the output differs from row %d on (columns: %s): caught"
              % (name, " ".join(extra), first + 1, ", ".join(columns) or "row count"))
        return 0
    if first is not None:
        if first < min(len(got), len(want)):
            print("%s: row %d differs from the reference (columns: %s)\n  reference: %s\n"
                  "  now:       %s" % (name, first + 1, ", ".join(columns),
                                       ",".join(want[first]), ",".join(got[first])))
        else:
            print("%s: %d rows, the reference has %d" % (name, len(got), len(want)))
        return 1
    print("%s: %d rows identical to the reference" % (name, len(got)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Checks that the documentation names only what exists (ctest doc.names):

1. every attribute or trace source the docs name as ns3::Class::Name (doc/*.rst, README.md),
   every one listed in doc/fl-user.rst's "Attributes" section (a bullet "* ``ns3::Class``: ...
   ``Name`` ...": every bare capitalised ``Name`` in it) and every trace of its "Traces" section
   ("* ``Class::Name``") is an attribute or a trace source of that class or of a parent, asked of
   the registered TypeIds through the program test/fl-doc-names.cc;
2. every section the code refers to (a comment or string of model/, helper/, examples/, test/
   saying doc/<file>.rst, "Title" or section "Title") is a heading of that file, so that proofs and
   explanations the code points to stay findable when the documentation moves.

usage: check-doc-names.py NAMES_PROGRAM SOURCE_DIR
"""
import glob
import os
import re
import subprocess
import sys


def headings(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    out = set()
    for i in range(1, len(lines)):
        u, t = lines[i], lines[i - 1].strip()
        if (len(u) >= 3 and len(set(u)) == 1 and u[0] in "=-*#~+^\"'" and t
                and len(set(t)) > 1 and len(u) >= len(t)):
            out.add(t)
    return out


def doc_queries(src):
    queries = set()
    files = sorted(glob.glob(os.path.join(src, "doc", "*.rst"))) + [os.path.join(src, "README.md")]
    for f in files:
        text = open(f, encoding="utf-8").read()
        for m in re.finditer(r"ns3::([A-Z]\w*)::([A-Z]\w*)(?!\s*\()", text):
            queries.add(("ns3::" + m.group(1), m.group(2), os.path.basename(f)))
    user = open(os.path.join(src, "doc", "fl-user.rst"), encoding="utf-8").read()
    section = re.search(r"\nAttributes\n\*+\n(.*?)\n\S[^\n]*\n\*+\n", user, re.S).group(1)
    for item in re.split(r"\n(?=\* )", section):
        if not item.startswith("* ``ns3::"):
            continue
        depth, cut = 0, len(item)
        for i, ch in enumerate(item):  # the first ": " outside parentheses ends the head
            depth += {"(": 1, ")": -1}.get(ch, 0)
            if ch == ":" and depth == 0 and item[i + 1:i + 2] in (" ", "\n"):
                cut = i
                break
        classes = re.findall(r"``(ns3::\w+)``", item[:cut])
        for name in re.findall(r"``([A-Z]\w*)``", item[cut:]):
            for c in classes:
                queries.add((c, name, "fl-user.rst, Attributes"))
    traces = re.search(r"\nTraces\n\*+\n(.*?)(\n\S[^\n]*\n\*+\n|$)", user, re.S).group(1)
    for m in re.finditer(r"^\* ``(\w+)::(\w+)``", traces, re.M):
        queries.add(("ns3::" + m.group(1), m.group(2), "fl-user.rst, Traces"))
    return sorted(queries)


def code_references(src):
    problems = []
    count = 0
    for folder in ("model", "helper", "examples", "test"):
        for f in sorted(glob.glob(os.path.join(src, folder, "**", "*.*"), recursive=True)):
            if not f.endswith((".h", ".cc", ".py", ".cmake")):
                continue
            text = open(f, encoding="utf-8", errors="replace").read()
            if "doc/fl" not in text:
                continue
            text = re.sub(r'"\s*\n\s*"', "", text)  # string literals continued on the next line
            text = text.replace('\\"', '"')
            text = re.sub(r"\n\s*(\*|//|#)\s?", " ", text)  # comment lines joined
            text = re.sub(r"\s+", " ", text)
            for m in re.finditer(r'doc/(fl[\w-]*\.rst)((?:(?:, |: |, section |: section | section )"[^"]+")*)', text):
                count += 1
                path = os.path.join(src, "doc", m.group(1))
                rel = os.path.relpath(f, src)
                if not os.path.exists(path):
                    problems.append("%s names doc/%s, which does not exist" % (rel, m.group(1)))
                    continue
                have = headings(path)
                for title in re.findall(r'"([^"]+)"', m.group(2)):
                    if title not in have:
                        problems.append('%s names section "%s" of doc/%s, which has no such heading'
                                        % (rel, title, m.group(1)))
    return problems, count


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    program, src = sys.argv[1], sys.argv[2]
    queries = doc_queries(src)
    stdin = "".join("%s %s\n" % (c, n) for c, n, _ in queries)
    out = subprocess.run([program], input=stdin, capture_output=True, text=True, check=True).stdout
    answers = out.strip().split("\n") if out.strip() else []
    problems = []
    if len(answers) != len(queries):
        problems.append("the names program answered %d of %d queries" % (len(answers), len(queries)))
    for (c, n, where), a in zip(queries, answers):
        if not a.startswith("ok "):
            what = "no TypeId %s" % c if a.startswith("no-type") else "%s has no attribute or trace source %s" % (c, n)
            problems.append("%s: %s" % (where, what))
    refs, count = code_references(src)
    problems += refs
    for p in problems:
        print("doc.names: " + p)
    print("doc.names: %d attribute and trace names checked, %d references from the code to the docs; %s"
          % (len(queries), count, "all found" if not problems else "%d problems" % len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

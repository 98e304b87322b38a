#!/usr/bin/env python3
"""The layers depend downwards only (ctest "layers.includes").

  check-layers.py SRCDIR CMAKE_LISTS_FILE

CMAKE_LISTS_FILE is the file test/CMakeLists.txt writes at configure time (one line per list,
NAME=item;item;...). Headers are included by name ("ns3/<name>.h" or "<name>.h"), so a name is
resolved to its folder through FL_SOURCES and FL_HEADERS. The check fails when
 1. a file under model/ includes a header of helper/ (the model does not depend on its
    installers: observers live in model/monitor, installers in helper/);
 2. a file of the library (model/ or helper/) includes a header of examples/ (the programs'
    shared code is not part of the module);
 3. a header name is listed twice in different folders (the flat ns3/ include folder would
    hold only one of them).
It prints every offending include with its file and line.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def main():
    srcdir, lists_file = sys.argv[1], sys.argv[2]
    cmake = {}
    with open(lists_file) as f:
        for line in f:
            name, _, value = line.rstrip('\n').partition('=')
            cmake[name] = [v for v in value.split(';') if v]
    errors = []
    folder_of = {}
    for path in cmake['FL_HEADERS']:
        name = os.path.basename(path)
        if name in folder_of and folder_of[name] != path:
            errors.append('header name %s is listed twice: %s and %s' % (name, folder_of[name], path))
        folder_of[name] = path
    example_headers = set()
    for root, _, names in os.walk(os.path.join(srcdir, 'examples')):
        for n in names:
            if n.endswith('.h'):
                example_headers.add(n)

    checked = 0
    for path in cmake['FL_SOURCES'] + cmake['FL_HEADERS']:
        with open(os.path.join(srcdir, path), encoding='utf-8') as f:
            lines = f.readlines()
        checked += 1
        for number, line in enumerate(lines, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            inc = m.group(1)
            name = inc[len('ns3/'):] if inc.startswith('ns3/') else inc
            target = folder_of.get(os.path.basename(name))
            if path.startswith('model/') and target and target.startswith('helper/'):
                errors.append('%s:%d includes %s (%s): model/ must not depend on helper/; move '
                              'the header (or the part of it the model needs) under model/'
                              % (path, number, inc, target))
            if name in example_headers and not target:
                errors.append('%s:%d includes %s of examples/: the library must not depend on '
                              'the programs\' shared code' % (path, number, inc))
    if errors:
        print('check-layers: %d include(s) against the layering:' % len(errors))
        for e in errors:
            print('  - ' + e)
        return 1
    print('check-layers: %d files of the library; no model/ file includes a helper/ header, no '
          'library file an examples/ header' % checked)
    return 0


if __name__ == '__main__':
    sys.exit(main())

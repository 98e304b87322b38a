#!/usr/bin/env python3
"""Keeps the wscript (waf, ns-3.35) in step with the CMake build (ctest "wscript.lists").

  check-wscript.py SRCDIR CMAKE_LISTS_FILE

CMAKE_LISTS_FILE is written by CMakeLists.txt at configure time: one line per list,
NAME=item;item;... with the lists exactly as CMake holds them. The check fails when
 1. the wscript's reading of the CMake files differs from what CMake holds (a construct the
    wscript's reader does not understand, e.g. a list built with variables or list(APPEND));
 2. build() of the wscript, run against a stand-in for waf, would build other sources, headers,
    examples, test suites or ns-3 dependencies than the CMake lists say;
 3. a source file of the module is in no list (model/**/*.cc|h, helper/**/*.cc|h,
    examples/**/*.cc, test/**/test-*.cc): a file added without a list entry is built by neither
    system;
 4. an example has no tiny run in examples/examples-tiny.txt (the in-tree check scripts run
    every example from there), or that file runs an example that does not exist;
 5. with `--targets`, build() does not post the enabled modules' header generators (a fresh
    3.35 tree would compile against headers that are not there, or another release's);
 6. utils/fuzz.sh, which keeps its own list of the decoders' sources, names a file that is not
    in FL_SOURCES (renamed or split) or a harness file that does not exist.
"""
import importlib.machinery
import importlib.util
import os
import re
import sys


def load_wscript(srcdir):
    loader = importlib.machinery.SourceFileLoader('fl_wscript', os.path.join(srcdir, 'wscript'))
    spec = importlib.util.spec_from_loader('fl_wscript', loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


class Node:
    def __init__(self, path):
        self.path = path

    def abspath(self):
        return self.path

    def get_bld(self):
        return Node(os.path.join(self.path, 'build-stand-in'))

    def make_node(self, name):
        return Node(os.path.join(self.path, name))

    def mkdir(self):
        pass

    def read(self):
        return None

    def write(self, text):
        pass  # the stand-in writes nothing


class TaskGen:
    def __init__(self, **kw):
        self.posted = False
        self.__dict__.update(kw)

    def post(self):
        self.posted = True


class Env(dict):
    def append_value(self, key, value):
        self.setdefault(key, [])
        self[key] += value if isinstance(value, list) else [value]

    def __getitem__(self, key):
        return self.get(key, [])


class StandInBld:
    """The part of ns-3.35's waf build context that the wscript uses."""

    def __init__(self, srcdir, ws):
        self.path = Node(srcdir)
        self.env = Env(ENABLE_EXAMPLES=True, ENABLE_TESTS=True, FL_HAVE_GTEST=True,
                       FL_NS3_VERSION=ws.FL_TESTS_MIN_NS3,
                       FL_CXXFLAGS=['-Wno-maybe-uninitialized'])
        self.modules = []
        self.programs = []
        self.headers = []
        self.test_libraries = []
        self.targets = 'fl-fedavg-wifi'  # as `./waf build --targets=fl-fedavg-wifi`
        self.pre_funs = []
        # another module's header generators: one enabled, one disabled (waf's 'remove' mode)
        self.other_headers = [TaskGen(features=['ns3header'], module='core'),
                              TaskGen(features='ns3moduleheader', module='core'),
                              TaskGen(features=['ns3privateheader'], module='core'),
                              TaskGen(features=['ns3header'], module='brite', mode='remove')]

    def add_pre_fun(self, fun):
        self.pre_funs.append(fun)

    def get_all_task_gen(self):
        return self.other_headers + self.headers + self.modules + self.programs

    def create_ns3_module(self, name, deps):
        m = TaskGen(name=name, deps=list(deps), source=[], use=[], env=Env())
        self.modules.append(m)
        return m

    def create_ns3_module_test_library(self, name):
        m = TaskGen(name=name, source=[], use=[], env=Env())
        self.test_libraries.append(m)
        return m

    def create_ns3_program(self, name, deps):
        p = TaskGen(name=name, deps=list(deps), source=None, use=[], env=Env(),
                    target='ns3.35-%s-optimized' % name, includes='build')
        self.programs.append(p)
        return p

    def __call__(self, **kw):
        tg = TaskGen(**kw)
        if kw.get('features') == 'ns3header':
            self.headers.append(tg)
        return tg


def main():
    srcdir, lists_file = sys.argv[1], sys.argv[2]
    errors = []
    cmake = {}
    with open(lists_file) as f:
        for line in f:
            name, _, value = line.rstrip('\n').partition('=')
            cmake[name] = [v for v in value.split(';') if v]

    ws = load_wscript(srcdir)
    try:
        lists = ws.fl_lists(srcdir)
    except ValueError as e:
        print('check-wscript: the wscript cannot read the CMake lists: %s' % e)
        return 1
    for key, cmake_name in [('sources', 'FL_SOURCES'), ('headers', 'FL_HEADERS'),
                            ('ns3_modules', 'FL_NS3_COMPONENTS'), ('examples', 'FL_EXAMPLES'),
                            ('benchmarks', 'FL_BENCHMARKS'),
                            ('example_support', 'FL_EXAMPLE_SUPPORT'),
                            ('test_suites', 'FL_TEST_SUITES')]:
        if lists[key] != cmake[cmake_name]:
            errors.append('%s: the wscript reads %s, CMake holds %s'
                          % (cmake_name, lists[key], cmake[cmake_name]))

    bld = StandInBld(srcdir, ws)
    ws.build(bld)
    fl = [m for m in bld.modules if m.name == 'fl']
    if len(fl) != 1:
        errors.append('build() must create the module fl once, created %s'
                      % [m.name for m in bld.modules])
    else:
        if fl[0].source != cmake['FL_SOURCES']:
            errors.append('wscript module sources %s != FL_SOURCES %s'
                          % (fl[0].source, cmake['FL_SOURCES']))
        if fl[0].deps != cmake['FL_NS3_COMPONENTS']:
            errors.append('wscript dependencies %s != FL_NS3_COMPONENTS %s'
                          % (fl[0].deps, cmake['FL_NS3_COMPONENTS']))
    hdrs = [h.source for h in bld.headers if getattr(h, 'module', None) == 'fl']
    if hdrs != [cmake['FL_HEADERS']]:
        errors.append('wscript headers %s != FL_HEADERS %s' % (hdrs, cmake['FL_HEADERS']))
    progs = {p.name: p for p in bld.programs}
    programs = cmake['FL_EXAMPLES'] + cmake['FL_BENCHMARKS']
    suite_names = [os.path.basename(s) for s in cmake['FL_TEST_SUITES']]
    want = programs + ['fl-' + s for s in suite_names]
    if sorted(progs) != sorted(want):
        errors.append('wscript programs %s != FL_EXAMPLES + FL_BENCHMARKS + fl-<FL_TEST_SUITES> %s'
                      % (sorted(progs), sorted(want)))
    support = ['examples/%s' % f for f in cmake['FL_EXAMPLE_SUPPORT']]
    source_of = {n: 'examples/%s.cc' % n for n in cmake['FL_EXAMPLES']}
    source_of.update({n: 'examples/benchmarks/%s.cc' % n for n in cmake['FL_BENCHMARKS']})
    for name in programs:
        if name in progs and progs[name].source != [source_of[name]] + support:
            errors.append('program %s built from %s' % (name, progs[name].source))
    for suite in cmake['FL_TEST_SUITES']:
        p = progs.get('fl-' + os.path.basename(suite))
        if p and p.source[0] != 'test/%s.cc' % suite:
            errors.append('suite %s built from %s' % (suite, p.source))
        # the figures' suites also compile their paper's files of FL_EXAMPLE_SUPPORT
        # (support/<paper>-figures.cc and, split by purpose, support/<paper>-figures-*.cc)
        paper = re.match(r'test-(gfl|dwfl)-figures$', os.path.basename(suite))
        if p and paper:
            mine = re.compile(r'examples/support/%s-figures(-[\w-]+)?\.cc$' % paper.group(1))
            want = ['test/%s.cc' % suite] + [f for f in support if mine.match(f)]
            if sorted(p.source) != sorted(want):
                errors.append('suite %s built from %s, not %s' % (suite, p.source, want))
    # `--targets` leaves ns-3's header generators unposted; the wscript posts the enabled ones.
    for fun in bld.pre_funs:
        fun(bld)
    for tg in bld.other_headers + bld.headers:
        want = getattr(tg, 'mode', 'install') != 'remove'
        if tg.posted != want:
            errors.append('with --targets, the header generator of %s is %s (want %s)'
                          % (tg.module, 'posted' if tg.posted else 'not posted',
                             'posted' if want else 'not posted'))
    if not any(t.source == ['test/fl-googletest-suite.cc'] for t in bld.test_libraries):
        errors.append('the wscript builds no test library with test/fl-googletest-suite.cc')

    # Every file of the module is in a list.
    def files(folder, suffixes, prefix=''):
        out = []
        for root, _, names in os.walk(os.path.join(srcdir, folder)):
            for n in names:
                if n.endswith(suffixes) and n.startswith(prefix):
                    out.append(os.path.relpath(os.path.join(root, n), srcdir))
        return sorted(out)

    listed = set(cmake['FL_SOURCES'] + cmake['FL_HEADERS'])
    for f in files('model', ('.cc', '.h')) + files('helper', ('.cc', '.h')):
        if f not in listed:
            errors.append('%s is in neither FL_SOURCES nor FL_HEADERS (CMakeLists.txt)' % f)
    for f in files('examples', ('.cc',)):
        if f in support:
            continue
        if f not in source_of.values():
            errors.append('%s is the source of no program: tutorials go in examples/ '
                          '(FL_EXAMPLES), benchmarks in examples/benchmarks/ (FL_BENCHMARKS), '
                          'shared code in FL_EXAMPLE_SUPPORT (examples/CMakeLists.txt)' % f)
    for f in files('test', ('.cc',), 'test-'):
        if f[len('test/'):-3] not in cmake['FL_TEST_SUITES']:
            errors.append('%s is not in FL_TEST_SUITES (test/CMakeLists.txt)' % f)
    if len(set(suite_names)) != len(suite_names):
        errors.append('two suites of FL_TEST_SUITES have the same name: %s' % suite_names)
    tiny = {}
    with open(os.path.join(srcdir, 'examples', 'examples-tiny.txt')) as f:
        for line in f:
            if line.strip() and not line.startswith('#'):
                tiny[line.split()[0]] = line
    for name in programs:
        if name not in tiny:
            errors.append('example %s has no tiny run in examples/examples-tiny.txt (the in-tree '
                          'check scripts run every example)' % name)
    for name in tiny:
        if name not in programs:
            errors.append('examples/examples-tiny.txt runs %s, which is in neither FL_EXAMPLES '
                          'nor FL_BENCHMARKS' % name)
    for f in sorted(listed):
        if not os.path.exists(os.path.join(srcdir, f)):
            errors.append('%s is listed but does not exist' % f)

    # utils/fuzz.sh's own source list.
    with open(os.path.join(srcdir, 'utils', 'fuzz.sh')) as f:
        m = re.search(r'^sources=\((.*?)\)', f.read(), re.S | re.M)
    if not m:
        errors.append('utils/fuzz.sh: no sources=( ... ) list found')
    else:
        for src in m.group(1).split():
            if src.startswith('fuzz/'):
                if not os.path.isfile(os.path.join(srcdir, src)):
                    errors.append('utils/fuzz.sh compiles %s, which does not exist' % src)
            elif src not in cmake['FL_SOURCES']:
                errors.append('utils/fuzz.sh compiles %s, which is not in FL_SOURCES' % src)

    if errors:
        print('check-wscript: the wscript and the CMake lists differ:')
        for e in errors:
            print('  - ' + e)
        return 1
    print('check-wscript: wscript in step with CMake: %d sources, %d headers, %d programs, '
          '%d test suites, ns-3 modules %s'
          % (len(cmake['FL_SOURCES']), len(cmake['FL_HEADERS']), len(programs),
             len(cmake['FL_TEST_SUITES']), ' '.join(cmake['FL_NS3_COMPONENTS'])))
    return 0


if __name__ == '__main__':
    sys.exit(main())

## -*- Mode: python; py-indent-offset: 4; indent-tabs-mode: nil; coding: utf-8; -*-
#
# waf build of the fl module, for waf-based ns-3 trees (ns-3.35 and earlier; contrib/fl).
#
# This file holds no list of its own: the sources, headers, ns-3 modules, programs and GoogleTest
# suites are read from CMakeLists.txt (FL_SOURCES, FL_HEADERS, FL_NS3_COMPONENTS),
# examples/CMakeLists.txt (FL_EXAMPLES, FL_BENCHMARKS, FL_EXAMPLE_SUPPORT) and
# test/CMakeLists.txt (FL_TEST_SUITES), so a file added there is built by waf too. test/check-wscript.py (ctest "wscript.lists", run in CI) runs
# build() below against a stand-in for waf and fails when what it would build differs from the
# CMake lists, when the CMake parser here misreads them, or when a source file of the module is in
# no list at all.
#
#   ./waf configure --enable-examples --enable-tests --disable-werror \
#         --enable-modules=fl   # (ns-3.35 on Debian bookworm: see README, "Building")
#   ./waf build --targets=fl-fedavg-wifi && ./waf --run-no-build "fl-fedavg-wifi --rounds=3"
#   ./test.py --suite=fl-googletest
import os
import re

FL_DEFINES_EIGEN = ['EIGEN_MAX_ALIGN_BYTES=64', 'EIGEN_MAX_STATIC_ALIGN_BYTES=64']
# The oldest ns-3 release the GoogleTest suites build against (see build()): they reach ns-3's
# callbacks and events only through the compat header's FlCallback and FlSchedule.
FL_TESTS_MIN_NS3 = 335


def _here():
    try:
        return os.path.dirname(os.path.abspath(__file__))
    except NameError:  # waf executes wscripts without __file__
        return None


def cmake_list(path, name):
    """The words of `set(NAME ...)` in the CMake file at path (comments dropped). Raises
    ValueError when the list is missing or uses anything but plain words (variables,
    generator expressions), which this reader would not understand."""
    with open(path) as f:
        text = f.read()
    # Comments: a # at the start of a line or after white space, to the end of the line.
    text = re.sub(r'(^|(?<=\s))#[^\n]*', '', text, flags=re.M)
    m = re.search(r'^\s*set\(\s*' + re.escape(name) + r'\b(.*?)\)', text, re.S | re.M)
    if not m:
        raise ValueError('%s: no set(%s ...)' % (path, name))
    words = m.group(1).split()
    for w in words:
        if not re.match(r'^[A-Za-z0-9_./+-]+$', w):
            raise ValueError('%s: set(%s ...) holds "%s"; the wscript reads plain file names only'
                             % (path, name, w))
    # The list must be set once: a second set() or list(APPEND) would be missed here.
    if re.search(r'^\s*(set|list)\(\s*(APPEND\s+)?' + re.escape(name) + r'\b', text[m.end():], re.M):
        raise ValueError('%s: %s is set or appended more than once; keep one set() the wscript can read'
                         % (path, name))
    return words


def fl_lists(srcdir):
    """The module's lists, from its CMake files."""
    top = os.path.join(srcdir, 'CMakeLists.txt')
    return {
        'sources': cmake_list(top, 'FL_SOURCES'),
        'headers': cmake_list(top, 'FL_HEADERS'),
        'ns3_modules': cmake_list(top, 'FL_NS3_COMPONENTS'),
        'examples': cmake_list(os.path.join(srcdir, 'examples', 'CMakeLists.txt'), 'FL_EXAMPLES'),
        'benchmarks': cmake_list(os.path.join(srcdir, 'examples', 'CMakeLists.txt'),
                                 'FL_BENCHMARKS'),
        'example_support': cmake_list(os.path.join(srcdir, 'examples', 'CMakeLists.txt'),
                                      'FL_EXAMPLE_SUPPORT'),
        'test_suites': cmake_list(os.path.join(srcdir, 'test', 'CMakeLists.txt'), 'FL_TEST_SUITES'),
    }


def fl_features(value):
    """A task generator's features as a list (waf accepts a string of names or a list)."""
    return value.split() if isinstance(value, str) else list(value)


def fl_ns3_version(text):
    """'3.35' -> 335, '3-dev' -> 399 (FL_NS3_VERSION, see model/fl-ns3-compat.h)."""
    m = re.match(r'^(\d+)\.(\d+)', text)
    if m:
        return int(m.group(1)) * 100 + int(m.group(2))
    m = re.match(r'^(\d+)-dev', text)
    if m:
        return int(m.group(1)) * 100 + 99
    raise ValueError('fl: cannot read the ns-3 version from %r' % text)


def configure(conf):
    import wutils
    conf.check_cfg(package='eigen3', uselib_store='EIGEN3', args=['--cflags'], mandatory=True)
    conf.check_cfg(package='zlib', uselib_store='ZLIB', args=['--cflags', '--libs'], mandatory=True)
    # libsodium: X25519, BLAKE2b and ChaCha20 for GFL's secure-aggregation masks (libsodium-dev).
    conf.check_cfg(package='libsodium', uselib_store='SODIUM', args=['--cflags', '--libs'],
                   mandatory=True)
    conf.env['FL_HAVE_GTEST'] = conf.check_cfg(package='gtest_main', uselib_store='GTEST',
                                               args=['--cflags', '--libs'], mandatory=False)
    if conf.env['FL_HAVE_GTEST']:
        conf.check_cfg(package='gtest', uselib_store='GTEST', args=['--cflags', '--libs'],
                       mandatory=False)
    # Every translation unit that includes an fl header must agree on these (Eigen's heap
    # alignment; the ns-3 release for fl-ns3-compat.h). They go into the shared environment,
    # so the module, its programs and scratch programs all see them.
    conf.env['FL_NS3_VERSION'] = fl_ns3_version(wutils.VERSION)
    conf.env.append_value('DEFINES', FL_DEFINES_EIGEN +
                          ['FL_NS3_VERSION=%d' % conf.env['FL_NS3_VERSION']])
    conf.env.append_value('FL_CXXFLAGS', ['-Wno-maybe-uninitialized'])


def build(bld):
    srcdir = bld.path.abspath()
    lists = fl_lists(srcdir)
    deps = lists['ns3_modules']

    module = bld.create_ns3_module('fl', deps)
    module.source = lists['sources']
    module.use += ['EIGEN3', 'ZLIB', 'SODIUM']
    # ns-3's wave module (802.11p, ns-3.35 to 3.38) is optional: with it enabled, the vehicular
    # scene is built (FL_HAVE_WAVE); without, its Build() refuses (as in the CMake build).
    if 'ns3-wave' in bld.env['NS3_ENABLED_MODULES']:
        module.use.append('ns3-wave')
        module.env.append_value('DEFINES', 'FL_HAVE_WAVE=1')
    module.uselib = 'EIGEN3 ZLIB SODIUM'
    module.env.append_value('CXXFLAGS', bld.env['FL_CXXFLAGS'])

    headers = bld(features='ns3header')
    headers.module = 'fl'
    headers.source = lists['headers']

    # `./waf build --targets=<program>` (the way to build only fl's programs) posts only the
    # named task generators and what they `use`; ns-3's header task generators (which copy
    # every enabled module's headers to build/ns3 and write the ns3/<module>-module.h umbrella
    # headers) are not among them, so in a fresh tree the sources include "ns3/..." headers
    # that are not there: the build fails, or, on a machine with another ns-3 installed
    # (Debian's libns3-dev: /usr/include/ns3), it silently compiles against that release's
    # headers. Post the enabled modules' header generators first.
    header_features = ('ns3header', 'ns3privateheader', 'ns3moduleheader')
    if getattr(bld, 'targets', '') and bld.targets != '*':
        def post_ns3_headers(ctx):
            for tg in ctx.get_all_task_gen():
                features = fl_features(getattr(tg, 'features', []))
                if any(f in features for f in header_features) and \
                        getattr(tg, 'mode', 'install') != 'remove':
                    tg.post()
        bld.add_pre_fun(post_ns3_headers)

    # the tutorials in examples/, the benchmark, validation and paper-figure programs in
    # examples/benchmarks/; each with the programs' shared code (examples/support/ and beside)
    support = ['examples/%s' % f for f in lists['example_support']]
    if bld.env['ENABLE_EXAMPLES']:
        programs = [(n, 'examples/%s.cc' % n) for n in lists['examples']] + \
            [(n, 'examples/benchmarks/%s.cc' % n) for n in lists['benchmarks']]
        for name, source in programs:
            obj = bld.create_ns3_program(name, ['fl'] + deps)
            obj.source = [source] + support
            obj.use += ['EIGEN3', 'ZLIB', 'SODIUM']
            obj.env.append_value('CXXFLAGS', bld.env['FL_CXXFLAGS'])

    tests_ok = bld.env['FL_NS3_VERSION'] >= FL_TESTS_MIN_NS3
    if bld.env['ENABLE_TESTS'] and bld.env['FL_HAVE_GTEST'] and not tests_ok:
        print('fl: the GoogleTest suites need ns-%d.%d or later; not built in ns-%s'
              % (FL_TESTS_MIN_NS3 // 100, FL_TESTS_MIN_NS3 % 100, bld.env['FL_NS3_VERSION']))
    if bld.env['ENABLE_TESTS'] and bld.env['FL_HAVE_GTEST'] and tests_ok:
        # One program fl-<suite> per GoogleTest suite, and the ns-3 test suite fl-googletest
        # (test.py) that runs them all (as in the CMake build).
        executables = []
        for entry in lists['test_suites']:
            # test/unit/<layer>/<suite>.cc or test/integration/<algorithm>/<suite>.cc
            suite = os.path.basename(entry)
            obj = bld.create_ns3_program('fl-' + suite, ['fl'] + deps)
            obj.source = ['test/%s.cc' % entry]
            obj.includes = [obj.includes, 'test']  # the suites' shared headers
            obj.use += ['EIGEN3', 'ZLIB', 'SODIUM', 'GTEST']
            obj.env.append_value('CXXFLAGS', bld.env['FL_CXXFLAGS'])
            if suite in ('test-gfl-figures', 'test-dwfl-figures'):
                # the papers' figures are the programs' shared code, not the module's: the
                # paper's files of it, <paper>-figures.cc and <paper>-figures-*.cc
                paper = 'examples/support/%s' % suite[len('test-'):]
                obj.source += [f for f in support
                               if f == paper + '.cc' or f.startswith(paper + '-')]
            if suite == 'test-vehicular':
                obj.env.append_value('DEFINES', 'FL_VEHICULAR_TRACE="%s"'
                                     % os.path.join(srcdir, 'data', 'sumo', 'highway-2km.ns2'))
            if suite == 'test-ega':
                obj.env.append_value('DEFINES', 'FL_EGA_DEFAULT_CODEC="%s"'
                                     % os.path.join(srcdir, 'data', 'ega-default-codec.bin'))
            if suite == 'test-fuzz-corpus':
                obj.source.append('fuzz/fl-fuzz-targets.cc')
                obj.includes = obj.includes + ['fuzz']
                obj.env.append_value('DEFINES', 'FL_FUZZ_CORPUS_DIR="%s"'
                                     % os.path.join(srcdir, 'fuzz', 'corpus'))
            executables.append((suite, os.path.join(bld.path.get_bld().abspath(), obj.target)))
        gen_dir = bld.path.get_bld().make_node('fl-generated')
        gen_dir.mkdir()
        text = ('// Generated by the wscript: the fl module\'s GoogleTest executables.\n'
                '#include <utility>\n'
                'static const std::pair<const char*, const char*> kFlGoogleTestExecutables[] = {\n')
        text += ''.join('    {"%s", "%s"},\n' % e for e in executables) + '};\n'
        header = gen_dir.make_node('fl-googletest-executables.h')
        if not os.path.exists(header.abspath()) or header.read() != text:
            header.write(text)
        module_test = bld.create_ns3_module_test_library('fl')
        module_test.source = ['test/fl-googletest-suite.cc']
        module_test.includes = [gen_dir.abspath()]
        module_test.use += ['EIGEN3']

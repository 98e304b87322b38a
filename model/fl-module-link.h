/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Links a program that includes ns3/fl-module.h against libns3-fl even when it uses no other
 * symbol of the module, so that the module's TypeIds are registered: a program's
 * --PrintAttributes=ns3::DwflWorkerApplication, --PrintTypeIds and Config paths then know them.
 * (A linker that drops unused shared libraries, as --as-needed does by default on Debian and
 * Ubuntu, otherwise leaves the library out, and ns-3 answers "Unknown type".) The ns-3 way
 * without this header is to link with -Wl,--no-as-needed, or to use one symbol of the module.
 */
#ifndef FL_MODULE_LINK_H
#define FL_MODULE_LINK_H

namespace ns3
{

/**
 * \ingroup fl
 * Returns true. Defined in libns3-fl; calling it makes the library a dependency of the program,
 * and loading the library registers every TypeId of the module.
 */
bool FlModuleLinked();

namespace
{
/// One call per translation unit that includes this header (at static initialisation).
[[maybe_unused]] const bool g_flModuleLinked = FlModuleLinked();
} // namespace

} // namespace ns3

#endif // FL_MODULE_LINK_H

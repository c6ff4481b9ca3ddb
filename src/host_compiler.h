// The CPU backend's compiler: the system C++ compiler builds the generated source into a shared
// library, stored in the disk cache (src/disk_cache.h) and loaded in place by cpu_launch.
#pragma once
#include <string>
#include <vector>

namespace cj::host {

// The compiler's first --version line, e.g. "g++ (Debian 12.2.0-14) 12.2.0". The compiler is
// $CXX (which may carry arguments, "ccache g++"), else the first of c++, g++, clang++ on PATH;
// found once per process. Throws SupportError when there is none.
std::string compiler_identity();

// Compiles source (the generated kernel, #include <cudajit/runtime.h>) to a shared library and
// returns its path in the disk cache. options: extra compiler flags ("-ffast-math", "-I<dir>").
// include_dir holds cudajit/*.h. Cached by source, options, compiler, target machine and the
// headers' hash, so a repeated call costs one hash. Throws CompileError with the compiler's log.
// With GCC, a unit that begins with its #defines and "#include <cudajit/runtime.h>" (as generated units do) is
// compiled against a precompiled runtime.h kept in the cache ("pch-<key>"), built on a background thread by the
// first compile that wants it; $CUDAJIT_CPU_PCH=0 turns this off.
std::string compile(const std::string& source, const std::vector<std::string>& options,
                    const std::string& include_dir);

// Ends the precompiled-header builds under way and removes their temporary files, and starts no more: the
// interpreter is exiting (src/module.cpp). A short script that compiled once left GCC building a ~20 MB header
// behind it, and the file half written (issue 37).
void stop_background_builds();

// True for a library compile() built and returned outside the cache (the cache could not take it): this process's
// own file, which the loader removes once it has loaded its copy.
bool is_own_output(const std::string& path);

// How many compiles of this process GCC ran with a precompiled runtime header it accepted (for tests).
unsigned precompiled_header_uses();

}  // namespace cj::host

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
std::string compile(const std::string& source, const std::vector<std::string>& options,
                    const std::string& include_dir);

}  // namespace cj::host

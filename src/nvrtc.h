// NVRTC, loaded at run time (dlopen libnvrtc), so the module imports without it and the CPU
// backend never needs it. NVRTC needs no GPU: compiling for sm_90 works on any machine.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "errors.h"

namespace cj::nvrtc {

struct Result {
    std::string image;  // cubin (ELF) or PTX text without the trailing NUL; c_str() is what
                        // cuModuleLoadData wants for either
    bool is_cubin = false;
    std::string log;    // NVRTC's warnings; empty when the result came from a cache
};

struct Target {
    int arch;    // e.g. 90
    bool cubin;  // false: PTX for compute_<arch>, which the driver JIT-compiles
};

// Python's site-packages directories, where the pip wheels put libnvrtc
// (nvidia/cuda_nvrtc/lib, nvidia/cu13/lib). Takes effect only before NVRTC is first loaded.
void set_search_roots(std::vector<std::string> site_packages);

// One place NVRTC was looked for, and what was found there.
struct Candidate {
    std::string directory;
    std::string origin;   // e.g. "toolkit ($CUDA_HOME)", "wheel nvidia-cuda-nvrtc (CUDA 13)"
    std::string outcome;  // "loaded libnvrtc.so.13", "no libnvrtc", or why it would not load
};

// Where NVRTC came from (loads it on first call; never throws).
struct Info {
    bool ok = false;
    std::string path;     // the libnvrtc file loaded
    std::string origin;   // the Candidate::origin it was found under
    int major = 0, minor = 0;
    std::vector<Candidate> searched;  // in search order, up to the one that loaded
    std::string why;      // when !ok: every place searched, and what to install
};
const Info& info();

// The libnvrtc file in use (once loaded) or the one a load would try first, without loading it; nullopt when
// none exists where cudajit looks (the dynamic loader's own path may still find one).
std::optional<std::string> located_path();

// True when libnvrtc loads; else false and *why (what to install).
bool available(std::string* why);

// NVRTC's (major, minor), and the archs it compiles for (e.g. 75, 80, ..., 120).
// Throw SupportError when NVRTC is missing.
std::pair<int, int> version();
std::vector<int> supported_archs();

// What to compile for a device of arch `device_arch` (e.g. 90) under a driver reporting
// `driver_version` (cuDriverGetVersion, e.g. 12040). A cubin when NVRTC knows the arch: cubins
// from a newer NVRTC of the same major version run on older drivers (minor version
// compatibility) while PTX from it does not. PTX for the highest known arch below when the
// device is newer than NVRTC. Throws SupportError when nothing built here can load.
Target choose_target(int device_arch, int driver_version);

// Compiles `source` (named `name` in messages, e.g. "kernel.cu") with `options` (include dirs
// given by the caller as -I...) for -arch=sm_<arch> (cubin) or compute_<arch> (PTX).
// Served from memory, then from the disk cache (key: source, name, options, arch, output kind,
// NVRTC version, header_hash of each -I dir, `minimal`), then compiled and stored in both.
// `minimal`: the source needs nothing of CUDA's runtime API headers (textures, cudaMalloc, cudaError_t, device-side
// launches): NVRTC 12.4 and later then get -minimal, which skips those headers (about 10 ms of a small kernel's
// compile). cudajit's generated code qualifies unless the user's own CUDA C++ is pasted into it.
// Throws CompileError whose message is NVRTC's log, verbatim.
Result compile(const std::string& source, const std::string& name,
               const std::vector<std::string>& options, int arch, bool want_cubin, bool minimal = false);

// Forgets the in-memory results (tests use it to reach the disk cache).
void clear_memory_cache();

}  // namespace cj::nvrtc

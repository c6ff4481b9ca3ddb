#include "nvrtc.h"

#include <dirent.h>
#include <dlfcn.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <optional>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <unordered_map>

#include "cuda_api.h"
#include "disk_cache.h"
#include "fork_safety.h"
#include "gil.h"

namespace cj::nvrtc {
namespace {

struct Api {
#define CJ_DECLARE_NVRTC_FN(name, symbol, params) nvrtcResult(*name) params = nullptr;
    CJ_NVRTC_API(CJ_DECLARE_NVRTC_FN)
#undef CJ_DECLARE_NVRTC_FN
    CJ_nvrtcGetErrorString_fn nvrtcGetErrorString = nullptr;
    int major = 0, minor = 0;
    std::vector<int> archs;
};

struct Loaded {
    Api api;
    Info info;
};

std::mutex& g_roots_mutex = remade_after_fork(*new std::mutex);  // never destroyed (interpreter exit)
// The one-time finding of the key's version and the library's load (made_once, fork_safety.h): a fork waits for
// them, as a child found NVRTC half initialised ("invalid value for --gpu-architecture") when made again there. The
// version's lock first: its making loads the library (a fork takes the held locks in this order). libnvrtc
// registers no atfork handler.
std::mutex& g_key_version_mutex = held_across_fork(*new std::mutex);
std::mutex& g_load_mutex = held_across_fork(*new std::mutex);
std::vector<std::string>& g_roots = *new std::vector<std::string>;  // site-packages dirs, from Python

// The library names tried in each directory, newest CUDA first.
const char* const kLibraryNames[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};

bool exists(const std::string& path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0;
}

// Where NVRTC is looked for: a toolkit named by the environment, the default toolkit, then NVIDIA's pip wheels
// in each site-packages directory (newest() reorders them); last the dynamic loader's own path.
std::vector<Candidate> candidates() {
    std::vector<Candidate> out;
    for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
        if (const char* v = std::getenv(var); v && *v)
            out.push_back({std::string(v) + "/lib64", std::string("toolkit ($") + var + ")", ""});
    out.push_back({"/usr/local/cuda/lib64", "toolkit (/usr/local/cuda)", ""});
    std::lock_guard<std::mutex> lock(g_roots_mutex);
    for (const std::string& root : g_roots) {
        if (root.empty() || !exists(root + "/nvidia")) continue;  // no NVIDIA wheel there
        out.push_back({root + "/nvidia/cu13/lib", "wheel nvidia-cuda-nvrtc (CUDA 13)", ""});
        out.push_back({root + "/nvidia/cuda_nvrtc/lib", "wheel nvidia-cuda-nvrtc-cu12", ""});
    }
    return out;
}

// NVRTC opens its builtins library by name (libnvrtc-builtins.so.<major>.<minor>) at the first compile, which the
// loader finds only on its own path: load the one beside the NVRTC we chose first, so that name is already loaded.
void preload_builtins(const std::string& directory) {
    DIR* d = opendir(directory.c_str());
    if (!d) return;
    while (dirent* e = readdir(d)) {
        if (std::string(e->d_name).rfind("libnvrtc-builtins.so", 0) == 0)
            dlopen((directory + "/" + e->d_name).c_str(), RTLD_NOW | RTLD_GLOBAL);
    }
    closedir(d);
}

// The CUDA version (major * 100 + minor) of the NVRTC in a directory, read from its builtins library's name
// (libnvrtc-builtins.so.13.5) without loading it; 0 when the name says none.
int version_in(const std::string& directory) {
    int best = 0;
    DIR* d = opendir(directory.c_str());
    if (!d) return 0;
    const std::string prefix = "libnvrtc-builtins.so.";
    while (dirent* e = readdir(d)) {
        std::string name = e->d_name;
        if (name.rfind(prefix, 0) != 0) continue;
        int major = 0, minor = 0;
        if (std::sscanf(name.c_str() + prefix.size(), "%d.%d", &major, &minor) == 2)
            best = std::max(best, major * 100 + minor);
    }
    closedir(d);
    return best;
}

// The candidates in the order they are tried: the newest NVRTC of the first candidate's CUDA major version first
// (a toolkit's 13.0 before a wheel's 13.5 was the old rule; newer NVRTCs carry compiler fixes: CUDA 13.0 to 13.3's
// ptxas inverts a predicate in unrolled boolean loops, fixed in 13.4, and their cubins load on any driver of the
// same major version), then the rest in their order. The major version stays the first candidate's: a CUDA 13
// wheel's cubins would not load under a CUDA 12 driver that a CUDA 12 toolkit serves.
std::vector<Candidate> newest(std::vector<Candidate> found) {
    std::vector<std::pair<int, size_t>> keyed;      // (version, position)
    int major = -1;
    for (size_t i = 0; i < found.size(); ++i) {
        int v = version_in(found[i].directory);
        keyed.push_back({v, i});
        if (major < 0 && v > 0) major = v / 100;
    }
    std::stable_sort(keyed.begin(), keyed.end(), [major](const auto& a, const auto& b) {
        bool a_same = a.first / 100 == major, b_same = b.first / 100 == major;
        if (a_same != b_same) return a_same;
        return a_same && a.first > b.first;
    });
    std::vector<Candidate> out;
    for (const auto& k : keyed) out.push_back(found[k.second]);
    return out;
}

// Tries each candidate directory; records what happened to each in info->searched.
void* open_library(Info* info) {
    for (Candidate c : newest(candidates())) {
        for (const char* name : kLibraryNames) {
            std::string path = c.directory + "/" + name;
            if (!exists(path)) continue;
            preload_builtins(c.directory);
            if (void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) {
                c.outcome = "loaded " + std::string(name);
                info->searched.push_back(c);
                info->path = path;
                info->origin = c.origin;
                return lib;
            }
            c.outcome += std::string(c.outcome.empty() ? "" : "; ") + dlerror();
        }
        if (c.outcome.empty()) c.outcome = "no libnvrtc";
        info->searched.push_back(c);
    }
    for (const char* name : kLibraryNames) {
        if (void* lib = dlopen(name, RTLD_NOW | RTLD_LOCAL)) {
            char where[4096] = {0};
            info->path = dlinfo(lib, RTLD_DI_ORIGIN, where) == 0
                             ? std::string(where) + "/" + name : std::string(name);
            info->origin = "dynamic loader (LD_LIBRARY_PATH, ldconfig)";
            info->searched.push_back({"(loader path)", info->origin, "loaded " + std::string(name)});
            return lib;
        }
    }
    info->searched.push_back({"(loader path)", "dynamic loader (LD_LIBRARY_PATH, ldconfig)",
                              "no libnvrtc"});
    return nullptr;
}

Loaded load() {
    Loaded L;
    Info& info = L.info;
    void* lib = open_library(&info);
    if (lib) drain_native_calls_at_exit();  // before NVRTC's destructors (gil.h)
    if (!lib) {
        std::string searched;
        for (const Candidate& c : info.searched)
            searched += "\n  " + c.directory + " [" + c.origin + "]: " + c.outcome;
        info.why = "NVRTC (libnvrtc.so.13 or .so.12) was not found:" + searched +
                   "\nInstall it with `pip install nvidia-cuda-nvrtc` (CUDA 13; "
                   "`pip install nvidia-cuda-nvrtc-cu12` for a CUDA 12 driver), or "
                   "`pip install cudajit[cuda13]`, or install the CUDA toolkit and set CUDA_HOME.";
        return L;
    }
    std::string missing;
#define CJ_LOAD_NVRTC_FN(name, symbol, params)                                    \
    L.api.name = reinterpret_cast<decltype(L.api.name)>(dlsym(lib, #symbol));     \
    if (!L.api.name && missing.empty()) missing = #symbol;
    CJ_NVRTC_API(CJ_LOAD_NVRTC_FN)
    CJ_LOAD_NVRTC_FN(nvrtcGetErrorString, nvrtcGetErrorString, ())
#undef CJ_LOAD_NVRTC_FN
    if (!missing.empty()) {
        info.why = "the NVRTC library " + info.path + " lacks " + missing +
                   ": it is older than CUDA 12; install `pip install nvidia-cuda-nvrtc`";
        return L;
    }
    int n = 0;
    if (L.api.nvrtcVersion(&L.api.major, &L.api.minor) != NVRTC_SUCCESS ||
        L.api.nvrtcGetNumSupportedArchs(&n) != NVRTC_SUCCESS) {
        info.why = "NVRTC was found (" + info.path + ") but does not answer its version query";
        return L;
    }
    L.api.archs.resize(n);
    if (n > 0) L.api.nvrtcGetSupportedArchs(L.api.archs.data());
    info.ok = true;
    info.major = L.api.major;
    info.minor = L.api.minor;
    return L;
}

std::atomic<bool> g_loaded{false};  // loaded() has run: asking NVRTC itself costs nothing more

std::atomic<const Loaded*> g_loaded_value{nullptr};

const Loaded& loaded() {
    const Loaded& L = made_once(g_loaded_value, g_load_mutex, load);  // never destroyed (interpreter exit)
    g_loaded.store(true, std::memory_order_release);
    return L;
}

const Api& api() {
    const Loaded& L = loaded();
    if (!L.info.ok) throw SupportError("NVRTC is not available: " + L.info.why);
    return L.api;
}

// Destroys the program on every path out of compile_uncached().
struct Program {
    const Api& a;
    nvrtcProgram prog = nullptr;
    ~Program() {
        if (prog) a.nvrtcDestroyProgram(&prog);
    }
};

std::string program_log(const Api& a, nvrtcProgram prog) {
    size_t n = 0;
    if (a.nvrtcGetProgramLogSize(prog, &n) != NVRTC_SUCCESS || n <= 1) return {};
    std::string log(n, '\0');
    a.nvrtcGetProgramLog(prog, log.data());
    log.resize(n - 1);  // drop the terminating NUL
    return log;
}

// Held around NVRTC's calls: a fork waits for them (fork_safety.h), so that a child does not find NVRTC's own state
// locked by a thread it does not have (os.fork() while another thread compiled: issue 37).
std::mutex& g_compiling = held_across_fork(*new std::mutex);

Result compile_uncached(const std::string& source, const std::string& name,
                        const std::vector<std::string>& options, int arch, bool want_cubin, bool minimal) {
    const Api& a = api();
    std::lock_guard<std::mutex> one_at_a_time(g_compiling);
    Program p{a};
    nvrtcResult r = a.nvrtcCreateProgram(&p.prog, source.c_str(), name.c_str(), 0, nullptr,
                                         nullptr);
    if (r != NVRTC_SUCCESS)
        throw CompileError(std::string("nvrtcCreateProgram failed: ") + a.nvrtcGetErrorString(r));
    std::string arch_opt =
        (want_cubin ? "-arch=sm_" : "-arch=compute_") + std::to_string(arch);
    std::vector<const char*> argv{arch_opt.c_str()};
    for (const std::string& o : options) argv.push_back(o.c_str());
    if (minimal && (a.major > 12 || (a.major == 12 && a.minor >= 4))) argv.push_back("-minimal");  // new in 12.4

    r = a.nvrtcCompileProgram(p.prog, static_cast<int>(argv.size()), argv.data());
    Result res;
    res.is_cubin = want_cubin;
    res.log = program_log(a, p.prog);
    if (r != NVRTC_SUCCESS) {
        // The log verbatim: the caller maps its #line positions back to the user's Python.
        throw CompileError(!res.log.empty() ? res.log
                                            : std::string("NVRTC failed: ") +
                                                  a.nvrtcGetErrorString(r));
    }
    size_t n = 0;
    if (want_cubin) {
        a.nvrtcGetCUBINSize(p.prog, &n);
        res.image.resize(n);
        a.nvrtcGetCUBIN(p.prog, res.image.data());
    } else {
        a.nvrtcGetPTXSize(p.prog, &n);
        res.image.resize(n);
        a.nvrtcGetPTX(p.prog, res.image.data());
        while (!res.image.empty() && res.image.back() == '\0') res.image.pop_back();
    }
    return res;
}

// The header hash of every include dir in the options, so editing a runtime header misses.
std::string include_hashes(const std::vector<std::string>& options) {
    std::string out;
    for (size_t i = 0; i < options.size(); ++i) {
        const std::string& o = options[i];
        std::string dir;
        if (o == "-I" && i + 1 < options.size()) dir = options[++i];
        else if (o.rfind("-I", 0) == 0) dir = o.substr(2);
        else if (o.rfind("--include-path=", 0) == 0) dir = o.substr(15);
        else continue;
        out += cache::header_hash(dir) + ";";
    }
    return out;
}

std::mutex& g_memory_mutex = remade_after_fork(*new std::mutex);  // never destroyed
std::unordered_map<std::string, Result> g_memory;

// The file open_library tries first (the first candidate that exists), found without loading it.
std::optional<std::string> locate() {
    for (const Candidate& c : newest(candidates()))
        for (const char* name : kLibraryNames)
            if (std::string path = c.directory + "/" + name; exists(path)) return path;
    return std::nullopt;
}

// NVRTC's "major.minor" for a cache key. Loading NVRTC costs ~8 ms (a large library and its builtins), which a
// warm start would otherwise pay only to name the compiler in the key: the version of the file that would be
// loaded is kept on disk, keyed by that file's identity (real path, size, change time, inode), written once
// after a load of that very file. Anything else (no such record, a file that was not the one loaded) loads.
std::string find_key_version() {
    std::optional<std::string> path;
    std::string identity;
    if (!g_loaded.load(std::memory_order_acquire) && (path = locate())) {
        struct stat st;
        char real[PATH_MAX];
        if (::stat(path->c_str(), &st) == 0 && ::realpath(path->c_str(), real)) {
            identity = cache::key({"nvrtc-file", real, std::to_string(st.st_size), std::to_string(st.st_ctim.tv_sec),
                                   std::to_string(st.st_ctim.tv_nsec), std::to_string(st.st_ino)});
            if (auto v = cache::load(identity, "version")) return *v;
        }
    }
    auto [major, minor] = version();
    std::string ver = std::to_string(major) + "." + std::to_string(minor);
    if (!identity.empty() && info().path == *path) cache::store(identity, "version", ver);
    return ver;
}

// Once a process (the library it would load does not change under it); a throw (no NVRTC) is tried again next time.
std::atomic<const std::string*> g_key_version{nullptr};

const std::string& key_version() { return made_once(g_key_version, g_key_version_mutex, find_key_version); }

}  // namespace

void set_search_roots(std::vector<std::string> site_packages) {
    std::lock_guard<std::mutex> lock(g_roots_mutex);
    g_roots = std::move(site_packages);
}

bool available(std::string* why) {
    const Info& info = loaded().info;
    if (!info.ok && why) *why = info.why;
    return info.ok;
}

const Info& info() { return loaded().info; }

std::optional<std::string> located_path() {
    if (g_loaded.load(std::memory_order_acquire) && loaded().info.ok) return loaded().info.path;
    return locate();
}

std::pair<int, int> version() {
    const Api& a = api();
    return {a.major, a.minor};
}

std::vector<int> supported_archs() { return api().archs; }

Target choose_target(int device_arch, int driver_version) {
    const Api& a = api();
    int driver_major = driver_version / 1000;
    std::string nvrtc_name =
        "NVRTC " + std::to_string(a.major) + "." + std::to_string(a.minor);
    std::string driver_name = "CUDA " + std::to_string(driver_major) + "." +
                              std::to_string(driver_version % 1000 / 10);
    // Minor version compatibility stops at the major version: neither cubin nor PTX loads.
    if (a.major > driver_major)
        throw SupportError(nvrtc_name + " builds code that the driver (" + driver_name +
                           ") cannot load: update the NVIDIA driver, or install NVRTC for CUDA " +
                           std::to_string(driver_major) + " (pip install nvidia-cuda-nvrtc-cu" +
                           std::to_string(driver_major) + ")");
    const std::vector<int>& archs = a.archs;
    if (std::find(archs.begin(), archs.end(), device_arch) != archs.end())
        return {device_arch, true};
    int best = 0;
    for (int x : archs)
        if (x <= device_arch) best = std::max(best, x);
    if (best == 0)
        throw SupportError(nvrtc_name + " cannot compile for sm_" + std::to_string(device_arch) +
                           ": its oldest target is sm_" +
                           std::to_string(archs.empty() ? 0 : archs.front()) +
                           "; use an older CUDA's NVRTC");
    // The device is newer than NVRTC: the driver JIT-compiles PTX, which it can only do for
    // PTX from an NVRTC no newer than itself.
    if (a.major * 1000 + a.minor * 10 > driver_version)
        throw SupportError(nvrtc_name + " does not know sm_" + std::to_string(device_arch) +
                           " and the driver (" + driver_name +
                           ") cannot JIT its PTX: install an NVRTC matching the driver");
    return {best, false};
}

Result compile(const std::string& source, const std::string& name,
               const std::vector<std::string>& options, int arch, bool want_cubin, bool minimal) {
    const std::string& ver = key_version();  // without loading NVRTC when the disk knows the file's version
    std::string joined;
    for (const std::string& o : options) joined += o + '\0';
    std::string k = cache::key({"nvrtc", source, name, joined, std::to_string(arch),
                                want_cubin ? "cubin" : "ptx", ver, include_hashes(options),
                                minimal ? "minimal" : ""});
    {
        std::lock_guard<std::mutex> lock(g_memory_mutex);
        auto it = g_memory.find(k);
        if (it != g_memory.end()) return it->second;
    }
    const char* ext = want_cubin ? "cubin" : "ptx";
    Result res;
    if (auto image = cache::load(k, ext)) {
        res.image = std::move(*image);
        res.is_cubin = want_cubin;
    } else {
        res = compile_uncached(source, name, options, arch, want_cubin, minimal);
        cache::store(k, ext, res.image);
    }
    std::lock_guard<std::mutex> lock(g_memory_mutex);
    g_memory.emplace(k, res);
    return res;
}

void clear_memory_cache() {
    std::lock_guard<std::mutex> lock(g_memory_mutex);
    g_memory.clear();
}

}  // namespace cj::nvrtc

#include "nvrtc.h"

#include <dlfcn.h>
#include <nvrtc.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <unordered_map>

#include "disk_cache.h"

// Every NVRTC entry point used; each is looked up with dlsym and typed from nvrtc.h.
#define CJ_NVRTC_FUNCTIONS(X)                                                               \
    X(nvrtcGetErrorString) X(nvrtcVersion) X(nvrtcGetNumSupportedArchs)                     \
    X(nvrtcGetSupportedArchs) X(nvrtcCreateProgram) X(nvrtcDestroyProgram)                  \
    X(nvrtcCompileProgram) X(nvrtcGetPTXSize) X(nvrtcGetPTX) X(nvrtcGetCUBINSize)           \
    X(nvrtcGetCUBIN) X(nvrtcGetProgramLogSize) X(nvrtcGetProgramLog)

namespace cj::nvrtc {
namespace {

struct Api {
#define CJ_DECLARE_NVRTC_FN(fn) decltype(&::fn) fn = nullptr;
    CJ_NVRTC_FUNCTIONS(CJ_DECLARE_NVRTC_FN)
#undef CJ_DECLARE_NVRTC_FN
    int major = 0, minor = 0;
    std::vector<int> archs;
};

struct Loaded {
    Api api;
    bool ok = false;
    std::string why;  // set when !ok
};

std::mutex g_roots_mutex;
std::vector<std::string> g_roots;  // site-packages dirs, from Python

std::vector<std::string> search_dirs() {
    std::vector<std::string> dirs;
    for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
        if (const char* v = std::getenv(var); v && *v) dirs.push_back(std::string(v) + "/lib64");
    dirs.push_back("/usr/local/cuda/lib64");
    std::lock_guard<std::mutex> lock(g_roots_mutex);
    for (const std::string& root : g_roots) {
        dirs.push_back(root + "/nvidia/cuda_nvrtc/lib");  // nvidia-cuda-nvrtc-cu12
        dirs.push_back(root + "/nvidia/cu13/lib");        // nvidia-cuda-nvrtc (CUDA 13)
    }
    return dirs;
}

bool exists(const std::string& path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0;
}

Loaded load() {
    Loaded L;
    const char* names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};
    std::vector<std::string> dirs = search_dirs();
    void* lib = nullptr;
    std::string load_errors;  // a library that exists but would not load says why
    for (const std::string& dir : dirs) {
        for (const char* name : names) {
            std::string path = dir + "/" + name;
            if (!exists(path)) continue;
            lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
            if (lib) break;
            load_errors += std::string("\n  ") + dlerror();
        }
        if (lib) break;
    }
    for (size_t i = 0; !lib && i < 3; ++i) lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        std::string searched;
        for (const std::string& d : dirs) searched += "\n  " + d;
        L.why = "NVRTC (libnvrtc.so.13 or .so.12) was not found in:" + searched +
                "\n  nor on the loader's path." + load_errors +
                "\nInstall it with `pip install nvidia-cuda-nvrtc` (CUDA 13; "
                "`pip install nvidia-cuda-nvrtc-cu12` for a CUDA 12 driver), or install the CUDA "
                "toolkit and set CUDA_HOME.";
        return L;
    }
    bool all = true;
#define CJ_LOAD_NVRTC_FN(fn)                                                \
    L.api.fn = reinterpret_cast<decltype(L.api.fn)>(dlsym(lib, #fn));       \
    if (!L.api.fn && all) {                                                 \
        all = false;                                                        \
        L.why = "the NVRTC library found lacks " #fn ": it is older than CUDA 12; " \
                "install `pip install nvidia-cuda-nvrtc`";                  \
    }
    CJ_NVRTC_FUNCTIONS(CJ_LOAD_NVRTC_FN)
#undef CJ_LOAD_NVRTC_FN
    if (!all) return L;
    int n = 0;
    if (L.api.nvrtcVersion(&L.api.major, &L.api.minor) != NVRTC_SUCCESS ||
        L.api.nvrtcGetNumSupportedArchs(&n) != NVRTC_SUCCESS) {
        L.why = "NVRTC was found but does not answer its version query";
        return L;
    }
    L.api.archs.resize(n);
    if (n > 0) L.api.nvrtcGetSupportedArchs(L.api.archs.data());
    L.ok = true;
    return L;
}

const Loaded& loaded() {
    static Loaded L = load();  // thread-safe one-time initialisation
    return L;
}

const Api& api() {
    const Loaded& L = loaded();
    if (!L.ok) throw SupportError("NVRTC is not available: " + L.why);
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

Result compile_uncached(const std::string& source, const std::string& name,
                        const std::vector<std::string>& options, int arch, bool want_cubin) {
    const Api& a = api();
    Program p{a};
    nvrtcResult r = a.nvrtcCreateProgram(&p.prog, source.c_str(), name.c_str(), 0, nullptr,
                                         nullptr);
    if (r != NVRTC_SUCCESS)
        throw CompileError(std::string("nvrtcCreateProgram failed: ") + a.nvrtcGetErrorString(r));
    std::string arch_opt =
        (want_cubin ? "-arch=sm_" : "-arch=compute_") + std::to_string(arch);
    std::vector<const char*> argv{arch_opt.c_str()};
    for (const std::string& o : options) argv.push_back(o.c_str());

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

std::mutex g_memory_mutex;
std::unordered_map<std::string, Result> g_memory;

}  // namespace

void set_search_roots(std::vector<std::string> site_packages) {
    std::lock_guard<std::mutex> lock(g_roots_mutex);
    g_roots = std::move(site_packages);
}

bool available(std::string* why) {
    const Loaded& L = loaded();
    if (!L.ok && why) *why = L.why;
    return L.ok;
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
               const std::vector<std::string>& options, int arch, bool want_cubin) {
    auto [major, minor] = version();
    std::string joined;
    for (const std::string& o : options) joined += o + '\0';
    std::string ver = std::to_string(major) + "." + std::to_string(minor);
    std::string k = cache::key({"nvrtc", source, name, joined, std::to_string(arch),
                                want_cubin ? "cubin" : "ptx", ver, include_hashes(options)});
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
        res = compile_uncached(source, name, options, arch, want_cubin);
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

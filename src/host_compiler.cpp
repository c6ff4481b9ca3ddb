// Runs the system C++ compiler on generated kernels and caches the shared libraries it builds.
#include "host_compiler.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <type_traits>

#include "disk_cache.h"
#include "errors.h"
#include "fork_safety.h"
#include "settings.h"

extern char** environ;

namespace cj::host {
namespace {

// Flags every kernel library is built with. -fvisibility=hidden keeps all but the entry points
// private, so two loaded libraries never share a symbol (nor a runtime header's inline variable).
// No -ffast-math (results must match NumPy's) and no -march=native (the cache may be shared
// between machines); options may add either. -fvect-cost-model=cheap: GCC 12's -O2 vectorises only loops that
// need no run-time alias check (very-cheap), and a block's loop over its threads needs one (the kernel's arrays
// may overlap); "cheap" vectorises it (an elementwise kernel's block of 256 threads: SSE2's 4 floats at a time) at
// -O2's compile time.
const std::vector<std::string> kBaseFlags = {"-std=c++17", "-O2", "-fvect-cost-model=cheap", "-fPIC", "-shared",
                                             "-fno-math-errno", "-fvisibility=hidden", "-DCJ_CPU"};

struct Compiler {
    std::vector<std::string> command;  // argv prefix: the compiler and any arguments from $CXX
    std::string identity;              // first line of --version
    std::string machine;               // -dumpmachine: the target, for the cache key
    std::string missing;               // why none was found (then command is empty)
};

// Runs argv, returns its exit status (-1 if it could not start) with stdout and stderr in *output; *signal_out (when
// given) is the signal that ended it, or 0. on_start (when given) is called with the child's pid once it runs; such a
// child leads a process group of its own, so that kill(-pid) ends it with the compiler proper it runs (cc1plus).
template <class OnStart = std::nullptr_t>
int run(const std::vector<std::string>& argv, std::string* output, int* signal_out = nullptr,
        OnStart on_start = nullptr) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return -1;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    if constexpr (!std::is_same_v<OnStart, std::nullptr_t>) {
        posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
        posix_spawnattr_setpgroup(&attr, 0);
    }
    pid_t pid;
    int err = posix_spawnp(&pid, args[0], &actions, &attr, args.data(), environ);
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    if (err != 0) {
        close(fds[0]);
        return -1;
    }
    if constexpr (!std::is_same_v<OnStart, std::nullptr_t>) on_start(pid);
    char buf[4096];
    ssize_t n;
    while ((n = read(fds[0], buf, sizeof buf)) != 0) {
        if (n > 0) output->append(buf, size_t(n));
        else if (errno != EINTR) break;
    }
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (signal_out) *signal_out = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

// What of the compiler goes into the cache key: its version line without the program name GCC starts it
// with ("g++ (Debian 12.2.0-14) 12.2.0": the name it was run as, so c++, g++ and a wrapper that execs g++
// would not share entries), plus the arguments $CXX adds (they change the code built).
std::string key_identity(const Compiler& cxx) {
    std::string id = cxx.identity;
    size_t space = id.find(' ');
    if (space != std::string::npos && id.compare(space, 2, " (") == 0) id.erase(0, space + 1);
    for (size_t i = 1; i < cxx.command.size(); ++i) id += '\n' + cxx.command[i];
    return id;
}

Compiler find_compiler() {
    std::vector<std::vector<std::string>> candidates;
    const char* cxx = std::getenv("CXX");
    if (cxx && *cxx) {
        std::istringstream words(cxx);
        std::vector<std::string> cmd;
        for (std::string w; words >> w;) cmd.push_back(w);
        candidates.push_back(cmd);
    } else {
        candidates = {{"c++"}, {"g++"}, {"clang++"}};
    }
    for (const auto& cmd : candidates) {
        std::vector<std::string> argv = cmd;
        argv.push_back("--version");
        std::string version;
        if (run(argv, &version) != 0) continue;
        argv.back() = "-dumpmachine";
        std::string machine;
        run(argv, &machine);
        return {cmd, first_line(version), first_line(machine), {}};
    }
    Compiler none;
    // Seen by a user whose first CPU-backend launch fails (a wheel installs without any compiler): say what needs
    // it, where it was looked for and how to get one.
    none.missing = cxx && *cxx
        ? std::string("no C++ compiler found: the CPU backend compiles each kernel with one, and $CXX (") + cxx +
              ") does not run; fix CXX or unset it (then c++, g++ or clang++ on PATH is used)"
        : "no C++ compiler found: the CPU backend compiles each kernel with one, and there is no $CXX and no c++, "
          "g++ or clang++ on PATH. Install one (Debian/Ubuntu: apt-get install g++; Fedora/RHEL: dnf install "
          "gcc-c++; conda: conda install -c conda-forge cxx-compiler) or set CXX. Kernels on a GPU need none.";
    return none;
}

// $CUDAJIT_CPU_SANITIZE ("address,undefined", checked by python/cudajit/settings.py): kernels are built with
// -fsanitize=<it> (and frame pointers, for readable reports); part of the cache key through the flags. The process
// must load the sanitizer runtime first (LD_PRELOAD=$(g++ -print-file-name=libasan.so)); tests/test_cpu_sanitize.py.
std::vector<std::string> sanitizer_flags() {
    std::string list = settings::current().cpu_sanitize;
    if (list.empty()) return {};
    return {"-fsanitize=" + list, "-fno-omit-frame-pointer", "-g"};
}

// Found once per process under a lock remade in a forked child: a function-local static's guard would stay "being
// initialised" in a child forked while another thread ran the compiler's --version (fork_safety.h).
std::mutex& compiler_mutex = remade_after_fork(*new std::mutex);
std::atomic<const Compiler*> found_compiler{nullptr};  // never destroyed (interpreter exit)

const Compiler& compiler() {
    const Compiler* c = found_compiler.load(std::memory_order_acquire);
    if (!c) {
        std::lock_guard<std::mutex> lock(compiler_mutex);
        c = found_compiler.load(std::memory_order_relaxed);
        if (!c) found_compiler.store(c = new Compiler(find_compiler()), std::memory_order_release);
    }
    if (c->command.empty()) throw SupportError(c->missing);
    return *c;
}

bool write_file(const std::string& path, const std::string& data) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(data.data(), std::streamsize(data.size()));
    return bool(out.flush());
}

// A private temporary directory ($TMPDIR, else /tmp) for compiles the cache directory cannot take; removed at exit
// when empty.
std::mutex& g_private_mutex = remade_after_fork(*new std::mutex);  // at load, not call_once: fork_safety.h
std::string& g_private = *new std::string;

std::string private_directory() {
    std::mutex& mutex = g_private_mutex;
    std::string& tmp = g_private;
    std::lock_guard<std::mutex> lock(mutex);
    if (tmp.empty()) {
        const char* base = std::getenv("TMPDIR");
        std::string templ = std::string(base && *base ? base : "/tmp") + "/cudajit-XXXXXX";
        if (!mkdtemp(templ.data()))
            throw CompileError("no directory to compile in: the cache directory cannot be written and TMPDIR (" +
                               templ.substr(0, templ.size() - 15) + ") neither: " + std::strerror(errno));
        tmp = templ;
        std::atexit([] { ::rmdir(g_private.c_str()); });
    }
    return tmp;
}

// ---- the precompiled runtime header ---------------------------------------------------------------------
// Parsing cudajit/runtime.h is most of a small kernel's compile (g++ alone: 0.35 s, of which 0.25 s is the parse;
// with a precompiled header 0.17 s). GCC takes "<dir>/cudajit/runtime.h.gch" in place of the header when <dir> comes first
// on the include path and the PCH was built with the same compiler, flags and macros defined before the #include;
// otherwise it ignores it and reads the header from the next directory, so a PCH only ever changes the speed.

// The #define lines before "#include <cudajit/runtime.h>" in a generated unit, as -D flags (program.py writes at most
// a few, "#define CJ_ERROR_RECORD 1  // ..."); nothing when the unit does not begin that way.
std::optional<std::vector<std::string>> runtime_prelude(const std::string& source) {
    std::vector<std::string> defines;
    size_t at = 0;
    while (at < source.size()) {
        size_t end = source.find('\n', at);
        if (end == std::string::npos) end = source.size();
        std::string line = source.substr(at, end - at);
        at = end + 1;
        if (line == "#include <cudajit/runtime.h>") return defines;
        if (line.empty() || line.rfind("//", 0) == 0 || line.rfind("#line ", 0) == 0) continue;
        if (line.rfind("#define ", 0) != 0 || line.find_first_of("\"'\\") != std::string::npos) return std::nullopt;
        std::string def = line.substr(8, line.find("//") == std::string::npos ? std::string::npos : line.find("//") - 8);
        size_t name_end = def.find(' ');
        std::string name = def.substr(0, name_end), value;
        if (name_end != std::string::npos) value = def.substr(name_end);
        value.erase(0, value.find_first_not_of(' '));
        value.erase(value.find_last_not_of(' ') + 1);
        bool identifier = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0])) &&
                          std::all_of(name.begin(), name.end(),
                                      [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
        if (!identifier) return std::nullopt;
        defines.push_back("-D" + name + "=" + value);
    }
    return std::nullopt;
}

// GCC's PCH (clang reads .gch files only through -include); $CUDAJIT_CPU_PCH=0 turns it off.
bool pch_wanted(const Compiler& cxx) {
    if (!settings::current().cpu_pch) return false;
    return cxx.identity.find("clang") == std::string::npos;
}

std::mutex& pch_mutex = remade_after_fork(*new std::mutex);  // never destroyed (interpreter exit)
std::set<std::string>& pch_started = *new std::set<std::string>;  // the PCH directories this process began
std::atomic<unsigned> pch_uses{0};
// The PCH builds under way (under pch_mutex): the compiler's pid and the temporary file it writes, so that the
// process's exit ends them (stop_background_builds). Once stopped, no build starts.
std::map<pid_t, std::string>& pch_running = *new std::map<pid_t, std::string>;
bool pch_stopped = false;

// Builds the PCH on a thread of its own and renames it into place when whole: the compile that asked for it goes on
// without it (beside the build: 0.44 -> 0.55 s for a first small kernel on 2 cores), later ones find it (0.42 ->
// 0.26 s; benchmarks/bench_cpu_compile.py). At most one build per directory and process.
void start_pch_build(const Compiler& cxx, const std::vector<std::string>& flags, const std::vector<std::string>& defines,
                     const std::string& include_dir, const std::string& root, const std::string& key) {
    {
        std::lock_guard<std::mutex> lock(pch_mutex);
        if (pch_stopped || !pch_started.insert(root).second) return;
    }
    static std::atomic<unsigned> counter{0};
    std::string tmp = cache::writable_directory() + "/tmp-pch-" + key.substr(0, 16) + "-" + std::to_string(getpid()) +
                      "-" + std::to_string(counter++) + ".gch";
    std::vector<std::string> argv = cxx.command;
    for (const std::string& f : flags)
        if (f != "-shared") argv.push_back(f);
    argv.insert(argv.end(), defines.begin(), defines.end());
    argv.insert(argv.end(), {"-I" + include_dir, "-x", "c++-header", include_dir + "/cudajit/runtime.h", "-o", tmp});
    std::thread([argv, tmp, root] {
        std::string log;
        pid_t pid = 0;
        int status = run(argv, &log, nullptr, [&](pid_t started) {
            std::lock_guard<std::mutex> lock(pch_mutex);
            pid = started;
            pch_running[pid] = tmp;
            if (pch_stopped) ::kill(-pid, SIGKILL);  // the process began to exit meanwhile
        });
        std::lock_guard<std::mutex> lock(pch_mutex);
        if (pid) pch_running.erase(pid);
        if (status == 0 && !pch_stopped) {
            std::error_code ec;
            std::filesystem::create_directories(root + "/cudajit", ec);
            if (::rename(tmp.c_str(), (root + "/cudajit/runtime.h.gch").c_str()) == 0) return;
        }
        std::remove(tmp.c_str());
    }).detach();
}

// The directory to put first on the include path for this unit, when its PCH is built; else empty (and the build
// starts). Keyed like the library (flags_key: its flags, one a line), less the source and plus the macros before the
// #include.
std::string precompiled_header(const Compiler& cxx, const std::vector<std::string>& flags, const std::string& flags_key,
                               const std::string& source, const std::string& include_dir) {
    if (!pch_wanted(cxx)) return {};
    std::optional<std::vector<std::string>> defines = runtime_prelude(source);
    if (!defines) return {};
    std::string all = flags_key;
    for (const std::string& d : *defines) all += d + '\n';
    std::string key = cache::key({"cpu-pch-1", all, key_identity(cxx), cxx.machine, cache::header_hash(include_dir)});
    std::string root = cache::pch_directory(key);
    if (root.empty()) return {};
    std::string gch = root + "/cudajit/runtime.h.gch";
    struct stat st;
    if (::stat(gch.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
        ::utimensat(AT_FDCWD, gch.c_str(), nullptr, 0);  // recency for the cache's size limit
        return root;
    }
    start_pch_build(cxx, flags, *defines, include_dir, root, key);
    return {};
}

}  // namespace

std::string compiler_identity() { return compiler().identity; }

void stop_background_builds() {
    std::lock_guard<std::mutex> lock(pch_mutex);
    pch_stopped = true;
    for (const auto& [pid, tmp] : pch_running) {
        ::kill(-pid, SIGKILL);  // the group: the driver and the compiler proper it runs
        std::remove(tmp.c_str());
    }
}

unsigned precompiled_header_uses() { return pch_uses.load(); }

namespace {

// What a failed compile's log says when the directory it wrote in failed it, not the source: a full disk, no inodes,
// a quota, a read-only or unwritable directory (GCC and ld quote strerror).
bool directory_failed(const std::string& log) {
    for (int e : {ENOSPC, EDQUOT, EROFS, EACCES, EPERM, EMFILE})
        if (log.find(std::strerror(e)) != std::string::npos) return true;
    return false;
}

std::string signal_name(int sig) {
    switch (sig) {
        case SIGKILL: return "SIGKILL";
        case SIGTERM: return "SIGTERM";
        case SIGINT: return "SIGINT";
        case SIGSEGV: return "SIGSEGV";
        case SIGABRT: return "SIGABRT";
        case SIGBUS: return "SIGBUS";
        case SIGXCPU: return "SIGXCPU";
        case SIGXFSZ: return "SIGXFSZ";
        default: return "signal " + std::to_string(sig);
    }
}

// The compiler crashed on its own (GCC's "internal compiler error", clang's crash report), whatever the source.
bool internal_error(const std::string& log) {
    return log.find("internal compiler error") != std::string::npos ||
           log.find("PLEASE submit a bug report") != std::string::npos;
}

// One compile of `source` in `dir`: the library's path, or nothing with *error set. *retry: the failure was the
// directory's (nothing could be written there), so another directory may succeed.
std::optional<std::string> build_in(const std::string& dir, const Compiler& cxx, const std::string& key,
                                    const std::string& source, const std::vector<std::string>& options,
                                    const std::vector<std::string>& sanitize, const std::vector<std::string>& flag_list,
                                    const std::string& flags, const std::string& include_dir, std::string* error,
                                    bool* retry) {
    // Unique per process and call: concurrent compiles (threads, processes) never share a file.
    static std::atomic<unsigned> counter{0};
    std::string base = dir + "/tmp-" + key.substr(0, 16) + "-" + std::to_string(getpid()) + "-" +
                       std::to_string(counter++);
    std::string src = base + ".cpp", lib = base + ".so";
    if (!write_file(src, source)) {
        std::remove(src.c_str());
        *error = "cannot write " + src + ": " + std::strerror(errno);
        *retry = true;
        return std::nullopt;
    }
    std::string pch = dir == cache::writable_directory() ? precompiled_header(cxx, flag_list, flags, source, include_dir)
                                                         : std::string();
    int killed_by = 0;
    auto build = [&](bool with_pch, std::string* log, std::vector<std::string> extra = {}) {
        std::vector<std::string> argv = cxx.command;
        argv.insert(argv.end(), kBaseFlags.begin(), kBaseFlags.end());
        argv.insert(argv.end(), extra.begin(), extra.end());        // after kBaseFlags: a later -O wins
        if (with_pch) argv.insert(argv.end(), {"-I" + pch, "-Winvalid-pch"});
        argv.push_back("-I" + include_dir);
        argv.insert(argv.end(), options.begin(), options.end());
        argv.insert(argv.end(), sanitize.begin(), sanitize.end());
        argv.insert(argv.end(), {"-o", lib, src});
        return run(argv, log, &killed_by);
    };
    std::string log;
    int status = build(!pch.empty(), &log);
    if (!pch.empty()) {
        // GCC said why it read the header instead (-Winvalid-pch): drop the PCH, the next compile builds it again
        std::error_code ec;
        if (log.find("-Winvalid-pch") != std::string::npos) std::filesystem::remove_all(pch, ec);
        else if (status == 0) ++pch_uses;
        // Another process may have removed or replaced the PCH between the check above and GCC reading it (the
        // cache's size limit, a damaged entry: "cannot read PCH file", "while reading precompiled header"; GCC words
        // it several ways). A compile that failed with a PCH is tried once more without it: only that compile's
        // errors are the user's, and when it succeeds the PCH was at fault and is dropped (built again later).
        if (status != 0 && !killed_by) {
            log.clear();
            status = build(false, &log);
            if (status == 0) std::filesystem::remove_all(pch, ec);
        }
    }
    if (status != 0 && !killed_by && internal_error(log)) {
        // The compiler's own fault, not the source's (GCC 12's TLS '%&' ICE was one): once more at -O1, which has
        // sidestepped each such fault seen; the source's real errors fail the same way there.
        std::string again;
        status = build(false, &again, {"-O1"});
        if (status != 0) log += "\n(compiled again at -O1 after that internal compiler error:)\n" + again;
    }
    std::remove(src.c_str());
    if (status == 0) return lib;
    std::remove(lib.c_str());
    if (killed_by) {
        // Not the source's fault: the compiler died (the out-of-memory killer, a timeout, someone's kill).
        *error = "the host C++ compiler (" + cxx.identity + ") was killed by " + signal_name(killed_by) +
                 " while compiling the generated source (out of memory? killed from outside?); nothing was cached, "
                 "the next launch compiles again" + (log.empty() ? std::string() : ":\n" + log);
        return std::nullopt;
    }
    *retry = directory_failed(log);
    *error = "the host C++ compiler (" + cxx.identity + ") rejected the generated source:\n" + log;
    return std::nullopt;
}

// A library that does not load (a compiler wrapper's broken output, a symbol no library defines) is never cached:
// later runs would load it from the cache and fail even with a working compiler. Under a sanitizer the library needs
// the sanitizer's runtime loaded first (cpu_launch.cpp says so when it loads it): not checked here.
void check_loads(const std::string& lib, const Compiler& cxx) {
    if (!settings::current().cpu_sanitize.empty()) return;
    void* handle = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle) {
        dlclose(handle);
        return;
    }
    std::string why = dlerror();
    std::remove(lib.c_str());
    throw CompileError("the host C++ compiler (" + cxx.identity + ") built a kernel library that cannot be loaded (" +
                       why + "); it was not cached: check $CXX and the compiler's installation");
}

}  // namespace

bool is_own_output(const std::string& path) {
    const std::string name = path.substr(path.rfind('/') + 1);
    const std::string pid = "-" + std::to_string(getpid()) + "-";
    return name.rfind("tmp-", 0) == 0 && name.size() > 3 && name.compare(name.size() - 3, 3, ".so") == 0 &&
           name.find(pid) != std::string::npos;
}

std::string compile(const std::string& source, const std::vector<std::string>& options,
                    const std::string& include_dir) {
    const Compiler& cxx = compiler();
    const std::vector<std::string> sanitize = sanitizer_flags();
    std::vector<std::string> flag_list;
    for (const auto* list : {&kBaseFlags, &options, &sanitize}) flag_list.insert(flag_list.end(), list->begin(), list->end());
    std::string flags;
    for (const std::string& f : flag_list) flags += f + '\n';
    std::string key = cache::key({"cpu-so-1", source, flags, key_identity(cxx), cxx.machine, cache::header_hash(include_dir)});
    if (auto path = cache::verified_path(key, "so")) return *path;

    // Compiles happen in the cache directory (the library is then renamed into place) and, when nothing can be
    // written there (a full disk, no inodes, a read-only or unwritable cache), in a private temporary directory:
    // a cache that cannot be used costs speed, never a compile (issue 37).
    std::string error;
    std::optional<std::string> lib;
    const std::string cache_dir = cache::writable_directory();
    for (int attempt = 0; attempt < 2 && !lib; ++attempt) {
        if (attempt == 0 && cache_dir.empty()) continue;
        bool retry = false;
        lib = build_in(attempt == 0 ? cache_dir : private_directory(), cxx, key, source, options, sanitize, flag_list,
                       flags, include_dir, &error, &retry);
        if (!lib && !retry) break;
    }
    if (!lib) throw CompileError(error);
    check_loads(*lib, cxx);

    if (auto built = cache::read_regular_file(*lib)) cache::store(key, "so", *built);
    // What this compile built is what it loads (cpu_launch loads a copy of it and removes it), not the entry just
    // stored: another thread's or process's cudajit.cache.clear() may remove that first, and did, again and again,
    // in a loop of clears. Under a sanitizer the library is loaded in place, so that its reports name a file that
    // stays: the entry, when there is one.
    if (!sanitize.empty())
        if (auto path = cache::verified_path(key, "so")) {
            std::remove(lib->c_str());
            return *path;
        }
    return *lib;
}

}  // namespace cj::host

#include "disk_cache.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "fork_safety.h"
#include "settings.h"

namespace fs = std::filesystem;

namespace cj::cache {
namespace {

// ---- SHA-256 (FIPS 180-4), only what key() needs -------------------------------------------

class Sha256 {
public:
    void update(const void* data, size_t n) {
        auto p = static_cast<const uint8_t*>(data);
        total_ += n;
        while (n > 0) {
            size_t take = std::min(n, size_t(64) - fill_);
            std::memcpy(block_ + fill_, p, take);
            fill_ += take, p += take, n -= take;
            if (fill_ == 64) compress(), fill_ = 0;
        }
    }
    void update_u64(uint64_t v) {
        uint8_t b[8];
        for (int i = 0; i < 8; ++i) b[i] = uint8_t(v >> (8 * i));
        update(b, 8);
    }
    std::string hex(size_t nbytes) {
        uint64_t bits = total_ * 8;
        uint8_t pad = 0x80;
        update(&pad, 1);
        uint8_t zero = 0;
        while (fill_ != 56) update(&zero, 1);
        uint8_t len[8];
        for (int i = 0; i < 8; ++i) len[i] = uint8_t(bits >> (56 - 8 * i));
        update(len, 8);
        static const char* digits = "0123456789abcdef";
        std::string out;
        for (size_t i = 0; i < nbytes; ++i) {
            uint8_t byte = uint8_t(h_[i / 4] >> (24 - 8 * (i % 4)));
            out += digits[byte >> 4];
            out += digits[byte & 15];
        }
        return out;
    }

private:
    static uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }
    void compress() {
        static const uint32_t k[64] = {
            0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
            0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
            0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
            0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
            0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
            0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
            0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
            0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
            0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
            0xc67178f2};
        uint32_t w[64];
        for (int i = 0; i < 16; ++i)
            w[i] = uint32_t(block_[4 * i]) << 24 | uint32_t(block_[4 * i + 1]) << 16 |
                   uint32_t(block_[4 * i + 2]) << 8 | uint32_t(block_[4 * i + 3]);
        for (int i = 16; i < 64; ++i) {
            uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
            uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16] + s0 + w[i - 7] + s1;
        }
        uint32_t a = h_[0], b = h_[1], c = h_[2], d = h_[3], e = h_[4], f = h_[5], g = h_[6],
                 h = h_[7];
        for (int i = 0; i < 64; ++i) {
            uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) +
                          k[i] + w[i];
            uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
            h = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
        }
        h_[0] += a, h_[1] += b, h_[2] += c, h_[3] += d, h_[4] += e, h_[5] += f, h_[6] += g,
            h_[7] += h;
    }

    uint32_t h_[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                      0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    uint8_t block_[64];
    size_t fill_ = 0;
    uint64_t total_ = 0;
};

// ---- files ----------------------------------------------------------------------------------

constexpr char kMagic[8] = {'C', 'J', 'C', 'A', 'C', 'H', 'E', '1'};
constexpr size_t kTrailer = 24;
// The largest file read as an entry: kernel libraries, cubins and PTX are kilobytes to a few megabytes.
constexpr uint64_t kMaxEntryBytes = uint64_t{256} << 20;

void put_u64(std::string& s, uint64_t v) {
    for (int i = 0; i < 8; ++i) s += char(uint8_t(v >> (8 * i)));
}
uint64_t get_u64(const char* p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = v << 8 | uint8_t(p[i]);
    return v;
}

// Keys and extensions come from Python too: allow only names that cannot leave the directory.
bool safe_name(const std::string& s) {
    return !s.empty() && s.size() <= 128 &&
           std::all_of(s.begin(), s.end(), [](char c) {
               return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                      c == '_' || c == '-';
           });
}

// What this process may do in a cache directory.
enum class Access { None, ReadOnly, Writable };

// Made when the library loads, never destroyed (interpreter exit): a function-local static's first use, cut by
// another thread's fork, leaves its guard taken in the child for ever (fork_safety.h).
std::mutex& g_verdicts_mutex = remade_after_fork(*new std::mutex);
std::map<std::string, Access>& g_verdicts = *new std::map<std::string, Access>;

// The configured directory and its access, judged once per path per process (one mkdir/access).
std::pair<std::string, Access> resolve_directory() {
    std::string dir = settings::current().cache_dir;  // CUDAJIT_CACHE_DIR or its default (python/cudajit/settings.py)
    if (dir.empty()) return {{}, Access::None};
    std::mutex& mutex = g_verdicts_mutex;
    auto& verdicts = g_verdicts;
    std::lock_guard<std::mutex> lock(mutex);
    auto it = verdicts.find(dir);
    if (it == verdicts.end()) {
        std::error_code ec;
        fs::create_directories(dir, ec);
        Access a = !fs::is_directory(dir, ec)                      ? Access::None
                   : ::access(dir.c_str(), W_OK | X_OK) == 0       ? Access::Writable
                   : ::access(dir.c_str(), R_OK | X_OK) == 0       ? Access::ReadOnly
                                                                   : Access::None;
        it = verdicts.emplace(dir, a).first;
    }
    return {dir, it->second};
}

// The files of a cache directory: entries ("<key>.<ext>", and the host compiler's precompiled headers, directories
// "pch-<key>" holding cudajit/runtime.h.gch) and temporary files of writers ("tmp-*" from the host compiler,
// ".<key>.<ext>.tmp.*" from store()); anything else is left alone.
enum class Kind { Entry, Temp };
struct CacheFile {
    std::string path;
    Kind kind;
    uint64_t bytes;
    fs::file_time_type mtime;
    bool directory;  // a "pch-<key>" directory: removed with everything in it
};

constexpr const char* kPchFile = "/cudajit/runtime.h.gch";

std::vector<CacheFile> list_files(const std::string& dir) {
    std::vector<CacheFile> out;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        std::string name = it->path().filename().string();
        std::error_code e;
        if (name.rfind("pch-", 0) == 0 && safe_name(name.substr(4)) && it->is_directory(e) &&
            !it->is_symlink(e)) {
            // Its size and recency are the header's; one without a header (a writer's leftover) is temporary.
            fs::path gch = it->path().string() + kPchFile;
            bool whole = fs::is_regular_file(gch, e);
            uint64_t bytes = whole ? fs::file_size(gch, e) : 0;
            auto mtime = whole ? fs::last_write_time(gch, e) : it->last_write_time(e);
            if (!e) out.push_back({it->path().string(), whole ? Kind::Entry : Kind::Temp, bytes, mtime, true});
            continue;
        }
        Kind kind;
        size_t dot = name.find('.');
        if (name.rfind("tmp-", 0) == 0 || (name[0] == '.' && name.find(".tmp.") != std::string::npos))
            kind = Kind::Temp;
        else if (dot != std::string::npos && name.find('.', dot + 1) == std::string::npos &&
                 safe_name(name.substr(0, dot)) && safe_name(name.substr(dot + 1)))
            kind = Kind::Entry;
        else
            continue;
        if (!it->is_regular_file(e)) continue;
        uint64_t bytes = it->file_size(e);
        auto mtime = it->last_write_time(e);
        if (!e) out.push_back({it->path().string(), kind, bytes, mtime, false});
    }
    return out;
}

bool remove(const CacheFile& f) {
    if (!f.directory) return ::unlink(f.path.c_str()) == 0;
    std::error_code ec;
    return fs::remove_all(f.path, ec) > 0 && !ec;
}

// The process that writes a temporary file, from its name: "tmp-<key>-<pid>-<n>.<ext>" and "tmp-pch-<key>-<pid>-<n>.gch"
// (host_compiler.cpp), ".<key>.<ext>.tmp.<pid>.<thread>.<n>" (store); 0 when the name holds none.
pid_t writer_of(const std::string& name) {
    std::string digits;
    if (name.rfind("tmp-", 0) == 0) {
        const size_t key = name.rfind("tmp-pch-", 0) == 0 ? 8 : 4;
        const size_t a = name.find('-', key), b = a == std::string::npos ? a : name.find('-', a + 1);
        if (b != std::string::npos) digits = name.substr(a + 1, b - a - 1);
    } else if (size_t t = name.find(".tmp."); name[0] == '.' && t != std::string::npos) {
        digits = name.substr(t + 5, name.find('.', t + 5) - (t + 5));
    }
    if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) return 0;
    return pid_t(std::stol(digits));
}

// The writer of a temporary file is a process here (EPERM: one of another user's).
bool writer_alive(const CacheFile& f) {
    const pid_t pid = f.directory ? 0 : writer_of(fs::path(f.path).filename().string());
    return pid > 0 && (::kill(pid, 0) == 0 || errno == EPERM);
}

// A precompiled header being written ("tmp-pch-<key>-<pid>-<n>.gch", host_compiler.cpp) whose writer is no longer a
// process here: a script that exited or was killed while GCC built it left ~20 MB behind (issue 37). Only these go
// at once: a writer in another machine or container that shares the directory loses a header, never a compile.
bool orphaned_header(const CacheFile& f) {
    const std::string name = fs::path(f.path).filename().string();
    if (f.directory || name.rfind("tmp-pch-", 0) != 0) return false;
    const pid_t pid = writer_of(name);
    return pid > 0 && ::kill(pid, 0) != 0 && errno == ESRCH;
}

// Removes temporary files older than ten minutes (a writer killed mid-write) and precompiled headers whose writer
// has gone and, when the files exceed the size limit (entries and the temporary files still being written: a
// header under way is ~20 MB), the least recently used entries (oldest mtime: a hit touches it).
void trim(const std::string& dir, uint64_t limit) {
    auto files = list_files(dir);
    auto stale = fs::file_time_type::clock::now() - std::chrono::minutes(10);
    uint64_t total = 0;
    std::vector<const CacheFile*> entries;
    for (const CacheFile& f : files) {
        if (f.kind == Kind::Temp) {
            if (!((f.mtime < stale || orphaned_header(f)) && remove(f))) total += f.bytes;
            continue;
        }
        total += f.bytes, entries.push_back(&f);
    }
    if (total <= limit) return;
    std::sort(entries.begin(), entries.end(), [](auto* a, auto* b) { return a->mtime < b->mtime; });
    for (const CacheFile* f : entries) {
        if (total <= limit) break;
        if (remove(*f)) total -= f->bytes;
    }
}

std::string file_path(const std::string& key, const std::string& ext) {
    if (!safe_name(key) || !safe_name(ext)) return {};
    std::string dir = directory();
    if (dir.empty()) return {};
    return dir + "/" + key + "." + ext;
}

// The payload length if `data` is a whole cache file, else nothing.
std::optional<size_t> verify(std::string_view data) {
    if (data.size() < kTrailer) return std::nullopt;
    const char* t = data.data() + data.size() - kTrailer;
    size_t n = data.size() - kTrailer;
    if (std::memcmp(t, kMagic, 8) != 0 || get_u64(t + 8) != n) return std::nullopt;
    if (get_u64(t + 16) != checksum(data.substr(0, n))) return std::nullopt;
    return n;
}

// Reads and verifies; deletes a corrupt file so that the next store replaces it. A file larger than any entry is
// corrupt without being read (a 10 GiB one was read whole: std::bad_alloc).
std::optional<std::string> load_verified(const std::string& path) {
    if (path.empty()) return std::nullopt;
    struct stat st;
    if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && uint64_t(st.st_size) > kMaxEntryBytes) {
        ::unlink(path.c_str());
        return std::nullopt;
    }
    auto data = read_regular_file(path);
    if (!data) return std::nullopt;
    auto n = verify(*data);
    if (!n) {
        ::unlink(path.c_str());
        return std::nullopt;
    }
    ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0);  // recency for the size limit; may fail (read-only)
    data->resize(*n);
    return data;
}

bool write_all(int fd, const char* p, size_t n) {
    while (n > 0) {
        ssize_t w = ::write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        p += w, n -= size_t(w);
    }
    return true;
}

}  // namespace

uint64_t checksum(std::string_view data) {
    // Word-at-a-time FNV-style: (h ^ w) * odd is a bijection in both h and w, so any single
    // changed word changes the result; the tail bytes and the length are mixed in last.
    uint64_t h = 0xcbf29ce484222325ull;
    const uint64_t prime = 0x100000001b3ull;
    size_t i = 0;
    for (; i + 8 <= data.size(); i += 8) {
        uint64_t w;
        std::memcpy(&w, data.data() + i, 8);
        h = (h ^ w) * prime;
        h ^= h >> 29;
    }
    for (; i < data.size(); ++i) h = (h ^ uint8_t(data[i])) * prime;
    h ^= data.size();
    h ^= h >> 33, h *= 0xff51afd7ed558ccdull, h ^= h >> 33;
    return h;
}

std::optional<std::string> read_regular_file(const std::string& path) {
    // POSIX reads, no iostreams: an entry replaced by a directory, a FIFO or an unreadable file is a miss,
    // never an exception (libstdc++'s filebuf throws from underflow on EISDIR).
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return std::nullopt;
    struct stat st;
    std::optional<std::string> data;
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && uint64_t(st.st_size) <= kMaxEntryBytes) {
        data.emplace();
        char buf[1 << 16];
        for (;;) {
            ssize_t n = ::read(fd, buf, sizeof buf);
            if (n > 0) data->append(buf, size_t(n));
            else if (n == 0) break;
            if ((n < 0 && errno != EINTR) || data->size() > kMaxEntryBytes) {  // an error, or it grew past the bound
                data.reset();
                break;
            }
        }
    }
    ::close(fd);
    return data;
}

namespace {
template <class Parts>
std::string key_of(const Parts& parts) {
    Sha256 sha;
    for (std::string_view p : parts) {
        sha.update_u64(p.size());
        sha.update(p.data(), p.size());
    }
    return sha.hex(16);
}
}  // namespace

std::string key(std::initializer_list<std::string_view> parts) { return key_of(parts); }
std::string key(const std::vector<std::string>& parts) { return key_of(parts); }

std::string directory() {
    auto [dir, access] = resolve_directory();
    return access == Access::None ? std::string() : dir;
}

std::string writable_directory() {
    auto [dir, access] = resolve_directory();
    return access == Access::Writable ? dir : std::string();
}

uint64_t size_limit() { return settings::current().cache_max; }

uint64_t size() {
    std::string dir = directory();
    uint64_t total = 0;
    if (!dir.empty())
        for (const CacheFile& f : list_files(dir))
            if (f.kind == Kind::Entry) total += f.bytes;
    return total;
}

size_t clear() {
    std::string dir = directory();
    size_t removed = 0;
    // Not the files of writers still running (this process's other threads, other processes): a compile in flight
    // lost its source and failed (issue 37). Theirs go when they finish, or as stale ones later.
    if (!dir.empty())
        for (const CacheFile& f : list_files(dir))
            if (f.kind == Kind::Entry || !writer_alive(f)) removed += remove(f);
    return removed;
}

std::optional<std::string> load(const std::string& key, const std::string& ext) {
    return load_verified(file_path(key, ext));
}

std::optional<std::string> verified_path(const std::string& key, const std::string& ext) {
    std::string path = file_path(key, ext);
    if (!load_verified(path)) return std::nullopt;
    return path;
}

std::optional<std::string> payload_if_entry(const std::string& path, const std::string& data) {
    const size_t slash = path.rfind('/');
    const std::string dir = slash == std::string::npos ? std::string() : path.substr(0, slash);
    const std::string name = path.substr(slash == std::string::npos ? 0 : slash + 1);
    const size_t dot = name.find('.');
    const bool entry = !dir.empty() && dir == directory() && dot != std::string::npos && name.rfind("tmp-", 0) != 0 &&
                       safe_name(name.substr(0, dot)) && safe_name(name.substr(dot + 1));
    if (!entry) return data;
    auto n = verify(data);
    if (!n) {
        ::unlink(path.c_str());
        return std::nullopt;
    }
    return data.substr(0, *n);
}

void store(const std::string& key, const std::string& ext, std::string_view payload) {
    const uint64_t limit = size_limit();
    const std::string dir = writable_directory();
    std::string path = file_path(key, ext);
    if (path.empty() || dir.empty()) return;
    // Unique per process, thread and call, so concurrent writers never share a temp file;
    // the leading dot keeps temp files out of the way of anything listing "*.<ext>".
    static std::atomic<uint64_t> counter{0};
    std::string tmp = dir + "/." + key + "." + ext + ".tmp." + std::to_string(::getpid()) +
                      "." + std::to_string(std::hash<std::thread::id>()(std::this_thread::get_id())) +
                      "." + std::to_string(counter++);
    std::string trailer(kMagic, 8);
    put_u64(trailer, payload.size());
    put_u64(trailer, checksum(payload));

    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return;
    bool ok = write_all(fd, payload.data(), payload.size()) &&
              write_all(fd, trailer.data(), trailer.size());
    ok = (::close(fd) == 0) && ok;
    // rename() replaces atomically: a reader sees the old file or the new one, never a mix.
    if (!ok || ::rename(tmp.c_str(), path.c_str()) != 0) ::unlink(tmp.c_str());
    trim(dir, limit);
}

std::string pch_directory(const std::string& key) {
    if (!safe_name(key)) return {};
    std::string dir = writable_directory();
    return dir.empty() ? dir : dir + "/pch-" + key;
}

// Made when the library loads (as g_verdicts), never destroyed.
std::mutex& g_hashes_mutex = remade_after_fork(*new std::mutex);
std::map<std::string, std::string>& g_hashes = *new std::map<std::string, std::string>;

std::string header_hash(const std::string& include_dir) {
    std::mutex& mutex = g_hashes_mutex;
    auto& computed = g_hashes;
    {
        std::lock_guard<std::mutex> lock(mutex);
        auto it = computed.find(include_dir);
        if (it != computed.end()) return it->second;
    }
    // Sorted relative names, so the hash does not depend on directory iteration order.
    fs::path root = fs::path(include_dir) / "cudajit";
    std::vector<std::string> names;
    std::error_code ec;
    for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec))
        if (it->is_regular_file(ec)) names.push_back(it->path().lexically_relative(root).string());
    std::sort(names.begin(), names.end());
    // The files' identity (names, sizes, change times, inodes): a process that finds the hash of this very set of
    // files recorded reads it instead of hashing them (~200 KB, about 1.4 ms of every warm start). Any write to a
    // header changes its change time, so an edited one is hashed again; a record is only ever read for the files it
    // was computed from (stat before read: an edit between them leaves a record no later identity matches).
    std::vector<std::string> identity{"headers-1", root.string()};
    for (const std::string& name : names) {
        struct stat st;
        if (::stat((root / name).c_str(), &st) != 0) {
            identity.clear();
            break;
        }
        for (auto v : {uint64_t(st.st_size), uint64_t(st.st_ctim.tv_sec), uint64_t(st.st_ctim.tv_nsec),
                       uint64_t(st.st_ino)})
            identity.push_back(name + ":" + std::to_string(v));
    }
    std::string id = identity.empty() ? std::string() : key(identity);
    std::string h;
    if (auto v = id.empty() ? std::nullopt : load(id, "headers"); v && v->size() == 32) {
        h = *v;
    } else {
        Sha256 sha;
        for (const std::string& name : names) {
            std::string content = read_regular_file((root / name).string()).value_or(std::string());
            sha.update_u64(name.size());
            sha.update(name.data(), name.size());
            sha.update_u64(content.size());
            sha.update(content.data(), content.size());
        }
        h = sha.hex(16);
        if (!id.empty() && !names.empty()) store(id, "headers", h);
    }
    std::lock_guard<std::mutex> lock(mutex);
    computed.emplace(include_dir, h);
    return h;
}

}  // namespace cj::cache

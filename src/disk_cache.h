// The on-disk cache of compiled code: cubins and PTX from NVRTC, shared objects from the host
// compiler. One file per key, written to a temp file and renamed, checksummed on every read, so
// that a crash mid-write or a disk error is a cache miss and never a crash.
//
// File format: payload, then a 24-byte trailer: "CJCACHE1", u64 payload size, u64 checksum
// (little-endian). A trailer after an ELF shared object does not stop dlopen from loading it.
//
// Size: each store keeps the directory under $CUDAJIT_CACHE_MAX (default 1 GiB) by deleting the
// least recently used entries (a hit touches its file's mtime), and removes temporary files that
// killed writers left (older than ten minutes). A read-only directory is read, never written.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cj::cache {

// 32 hex digits: the first 128 bits of SHA-256 over all parts, each prefixed with its length so
// that ("ab", "c") and ("a", "bc") differ. Key on inputs (source, options, arch, compiler
// version, header hash), never on outputs.
std::string key(std::initializer_list<std::string_view> parts);
std::string key(const std::vector<std::string>& parts);

// The settings' cache_dir ($CUDAJIT_CACHE_DIR, else $XDG_CACHE_HOME/cudajit, else ~/.cache/cudajit, as
// python/cudajit/settings.py passes it); created on demand. Empty when it neither exists nor can be created:
// caching is then off and compiling still works. Read from the settings on each call (they follow the environment).
std::string directory();

// directory() when this process may write there, else empty (read-only: entries are still read).
std::string writable_directory();

// $CUDAJIT_CACHE_MAX in bytes (the settings' cache_max; 1 GiB when unset).
uint64_t size_limit();

// The bytes held by cache entries (temporary files not counted); 0 when caching is off.
uint64_t size();

// Deletes every entry and temporary file of the cache directory; returns how many went.
size_t clear();

// The payload stored under (key, ext) when the file is whole; a corrupt or truncated file is
// deleted and reads as a miss.
std::optional<std::string> load(const std::string& key, const std::string& ext);

// The path of the file stored under (key, ext) after verifying it as load() does; for callers
// that need a file (the CPU backend dlopens its .so in place).
std::optional<std::string> verified_path(const std::string& key, const std::string& ext);

// The contents of a regular file, or nothing (missing, unreadable, a directory or other special file, larger than
// any cache entry (256 MiB), a read error): never throws.
std::optional<std::string> read_regular_file(const std::string& path);

// What a loader of the file at `path`, whose contents are `data`, may use: the payload of a whole cache entry (an
// entry of this cache directory, "<key>.<ext>"), or `data` itself for any other file; nothing for an entry that is
// not whole (truncated or rewritten since it was verified: it is deleted, as load() does).
std::optional<std::string> payload_if_entry(const std::string& path, const std::string& data);

// Writes atomically (temp file in the same directory, then rename), then trims the cache to its
// size limit. Failures are silent (the cache is an optimisation).
void store(const std::string& key, const std::string& ext, std::string_view payload);

// Where the host compiler's precompiled runtime header for `key` lives (host_compiler.cpp): the directory
// "<cache>/pch-<key>", which holds cudajit/runtime.h.gch; an entry for size(), clear() and the size limit like any
// other (its recency is the header file's mtime). Empty when the cache directory is not writable.
std::string pch_directory(const std::string& key);

// A hash of every file under include_dir/cudajit/ (names and contents), computed once per
// directory per process, so that editing a runtime header invalidates compiled kernels. Recorded in the cache
// as a ".headers" entry keyed by the files' identity (names, sizes, change times, inodes), which a later process
// with the very same files reads instead of hashing them.
std::string header_hash(const std::string& include_dir);

// 64-bit checksum of the trailer (fast, detects any single changed 8-byte word).
uint64_t checksum(std::string_view data);

}  // namespace cj::cache

// CUDA IPC (ipc.h).
//
// A pool handle's bytes, all little-endian as on the machines CUDA IPC runs on:
//   "CJIPC1\0\0"  8 bytes: what it is
//   export data   64 bytes: cuMemPoolExportPointer's description of the allocation
//   device        int32: the exporting process's ordinal of the device (the pool its socket hands out)
//   pid           int32: the exporting process
//   base          uint64: the allocation's address there (an open in that same process returns it)
//   name          the rest: the exporter's abstract Unix socket, without its leading NUL
// A legacy handle is the 64 bytes of a CUipcMemHandle, as numba.cuda's and other libraries' handles are.
//
// The exporter's socket is served by one native thread per process (started by the first pool export; a forked
// child starts its own). A request is the int32 device; the answer is one status byte, with the pool's file
// descriptor attached (SCM_RIGHTS) when the status is 1. Only a peer of the same user is answered (SO_PEERCRED):
// that user's processes may already read this one's memory.
#include "ipc.h"

#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "block_cache.h"
#include "context.h"
#include "driver.h"
#include "errors.h"
#include "gil.h"
#include "settings.h"

namespace cj::ipc {
namespace {

constexpr char kMagic[8] = {'C', 'J', 'I', 'P', 'C', '1', 0, 0};
constexpr size_t kExportBytes = sizeof(CUmemPoolPtrExportData);
constexpr size_t kHeaderBytes = sizeof(kMagic) + kExportBytes + 4 + 4 + 8;

// Two locks, never held together, nor while the GIL is released: lock_all() guards the pools and the server,
// lock_opened() the importer's tables.
std::mutex& lock_all() {
    static std::mutex* m = new std::mutex;  // never destroyed (interpreter exit)
    return *m;
}
std::mutex& lock_opened() {
    static std::mutex* m = new std::mutex;
    return *m;
}

// ---- the pools this process allocates from ----
struct DevicePool {
    CUmemoryPool pool = nullptr;
    unsigned epoch = 0;
    bool exportable = false;
    int fd = -1;  // the pool as a file descriptor, made by the first export
};
std::vector<DevicePool>& pools() {
    static auto* v = new std::vector<DevicePool>;
    return *v;
}

bool ipc_pool_wanted() {
    return settings::current().ipc_pool;  // CUDAJIT_IPC_POOL
}

// Makes `device`'s pool for the current epoch; lock_all() held, the device's context current.
DevicePool& device_pool(int device) {
    auto& all = pools();
    if (device >= static_cast<int>(all.size())) all.resize(device + 1);
    DevicePool& d = all[device];
    unsigned epoch = block_cache::epoch();
    if (d.pool && d.epoch == epoch) return d;
    const auto& a = drv::api();
    if (d.pool && d.exportable) a.cuMemPoolDestroy(d.pool);  // a released context's: its memory went with it
    if (d.fd >= 0) ::close(d.fd);
    d = DevicePool{};
    d.epoch = epoch;
    CUdevice dev = ctx::current_cu_device();
    int types = 0;
    if (ipc_pool_wanted() &&
        a.cuDeviceGetAttribute(&types, CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES, dev) == CUDA_SUCCESS &&
        (types & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)) {
        CUmemPoolProps props;
        std::memset(&props, 0, sizeof props);
        props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
        props.handleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
        props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        props.location.id = dev;
        if (a.cuMemPoolCreate(&d.pool, &props) == CUDA_SUCCESS) d.exportable = true;
    }
    if (!d.exportable) CJ_CU(cuDeviceGetDefaultMemPool, &d.pool, dev);
    // Keep freed memory for reuse instead of returning it to the OS at every sync point: without this, a loop
    // that allocates and frees pays the driver's full allocation cost.
    cuuint64_t threshold = ~0ull;
    CJ_CU(cuMemPoolSetAttribute, d.pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold);
    return d;
}

// ---- the exporter's socket ----
struct Server {
    pid_t pid = 0;  // the process that serves; another (a forked child) starts its own
    int sock = -1;
    std::string name;
};
Server& server() {
    static auto* s = new Server;
    return *s;
}

int device_fd_for_peer(int device) {
    std::lock_guard<std::mutex> lock(lock_all());
    const auto& all = pools();
    if (device < 0 || device >= static_cast<int>(all.size()) || all[device].fd < 0) return -1;
    return all[device].fd;
}

bool read_full(int fd, void* out, size_t n) {
    char* p = static_cast<char*>(out);
    while (n) {
        ssize_t r = ::recv(fd, p, n, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return false;
        p += r;
        n -= static_cast<size_t>(r);
    }
    return true;
}

void answer(int conn) {
    ucred peer{};
    socklen_t len = sizeof peer;
    if (getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &peer, &len) != 0 || peer.uid != geteuid()) return;
    timeval tv{5, 0};
    setsockopt(conn, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(conn, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    int32_t device = -1;
    if (!read_full(conn, &device, sizeof device)) return;
    int fd = device_fd_for_peer(device);
    char status = fd >= 0 ? 1 : 0;
    iovec iov{&status, 1};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
    if (fd >= 0) {
        std::memset(control, 0, sizeof control);
        msg.msg_control = control;
        msg.msg_controllen = sizeof control;
        cmsghdr* c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
    }
    while (::sendmsg(conn, &msg, MSG_NOSIGNAL) < 0 && errno == EINTR) {
    }
}

// The serving thread: never touches Python, so it can block in accept() through interpreter exit.
void serve(int sock) {
    for (;;) {
        int conn = ::accept4(sock, nullptr, nullptr, SOCK_CLOEXEC);
        if (conn < 0) {
            if (errno == EINTR || errno == ECONNABORTED || errno == EMFILE || errno == ENFILE) {
                if (errno == EMFILE || errno == ENFILE) usleep(10000);
                continue;
            }
            return;
        }
        answer(conn);
        ::close(conn);
    }
}

sockaddr_un abstract_address(const std::string& name, socklen_t* len) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (name.empty() || name.size() + 1 > sizeof addr.sun_path)
        throw std::invalid_argument("IPC handle: its socket name is malformed");
    std::memcpy(addr.sun_path + 1, name.data(), name.size());  // sun_path[0] == 0: the abstract namespace
    *len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
    return addr;
}

// Starts this process's server if it has none; lock_all() held. Returns its socket's name.
const std::string& ensure_server() {
    Server& s = server();
    if (s.pid == getpid()) return s.name;
    unsigned char random[8];
    if (getrandom(random, sizeof random, 0) != static_cast<ssize_t>(sizeof random))
        throw std::runtime_error("CUDA IPC: getrandom failed: " + std::string(std::strerror(errno)));
    char hex[17];
    for (int i = 0; i < 8; ++i) std::snprintf(hex + 2 * i, 3, "%02x", random[i]);
    std::string name = "cudajit-ipc-" + std::to_string(getpid()) + "-" + hex;
    int sock = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (sock < 0) throw std::runtime_error("CUDA IPC: socket() failed: " + std::string(std::strerror(errno)));
    socklen_t len;
    sockaddr_un addr = abstract_address(name, &len);
    if (::bind(sock, reinterpret_cast<sockaddr*>(&addr), len) != 0 || ::listen(sock, 64) != 0) {
        int e = errno;
        ::close(sock);
        throw std::runtime_error("CUDA IPC: cannot serve the pool's descriptor on a Unix socket: " +
                                 std::string(std::strerror(e)));
    }
    std::thread(serve, sock).detach();
    s.pid = getpid();
    s.sock = sock;
    s.name = name;
    return s.name;
}

// Asks the exporter named `name` for its pool of `device`; the file descriptor received.
int receive_pool_fd(const std::string& name, int device, int pid) {
    int sock = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (sock < 0) throw std::runtime_error("CUDA IPC: socket() failed: " + std::string(std::strerror(errno)));
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{sock};
    timeval tv{10, 0};
    setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    socklen_t len;
    sockaddr_un addr = abstract_address(name, &len);
    int rc;
    while ((rc = ::connect(sock, reinterpret_cast<sockaddr*>(&addr), len)) != 0 && errno == EINTR) {
    }
    if (rc != 0)
        throw std::runtime_error("CUDA IPC: cannot reach the process that exported this handle (pid " +
                                 std::to_string(pid) + "): " + std::strerror(errno) +
                                 ". It must still be running, on this machine, in this network namespace, and "
                                 "keep the array alive while others use it");
    int32_t request = device;
    if (::send(sock, &request, sizeof request, MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof request))
        throw std::runtime_error("CUDA IPC: the exporting process (pid " + std::to_string(pid) +
                                 ") did not take the request: " + std::strerror(errno));
    char status = 0;
    iovec iov{&status, 1};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    ssize_t r;
    while ((r = ::recvmsg(sock, &msg, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {
    }
    cmsghdr* c = r == 1 ? CMSG_FIRSTHDR(&msg) : nullptr;
    if (!c || status != 1 || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
        throw std::runtime_error("CUDA IPC: the exporting process (pid " + std::to_string(pid) +
                                 ") did not hand over its memory pool (it answers only processes of its own user)");
    int fd;
    std::memcpy(&fd, CMSG_DATA(c), sizeof fd);
    return fd;
}

// ---- the importer's open handles ----
struct Opened {
    uintptr_t ptr = 0;
    int count = 0;
    unsigned epoch = 0;
    enum Kind { Legacy, Pool, Own } kind = Legacy;
};
std::map<std::string, Opened>& opened() {
    static auto* m = new std::map<std::string, Opened>;
    return *m;
}
std::map<std::string, CUmemoryPool>& imported_pools() {  // "<socket name>/<exporter's device>/<our device>"
    static auto* m = new std::map<std::string, CUmemoryPool>;
    return *m;
}
unsigned g_imported_epoch = 0;

struct PoolHandle {
    CUmemPoolPtrExportData data;
    int32_t device;
    int32_t pid;
    uint64_t base;
    std::string name;
};

PoolHandle parse(const std::string& h) {
    if (h.size() <= kHeaderBytes || std::memcmp(h.data(), kMagic, sizeof kMagic) != 0)
        throw std::invalid_argument("IPC handle: " + std::to_string(h.size()) +
                                    " bytes that are neither a CUipcMemHandle (64 bytes) nor a handle from cudajit's "
                                    "get_ipc_handle");
    PoolHandle p;
    const char* at = h.data() + sizeof kMagic;
    std::memcpy(&p.data, at, kExportBytes);
    at += kExportBytes;
    std::memcpy(&p.device, at, 4);
    std::memcpy(&p.pid, at + 4, 4);
    std::memcpy(&p.base, at + 8, 8);
    p.name.assign(h.data() + kHeaderBytes, h.size() - kHeaderBytes);
    return p;
}

// Rethrows a failed IPC driver call with what usually causes it.
[[noreturn]] void rethrow_open(const DriverError& e) {
    throw DriverError(e.call, e.code, e.name,
                      std::string(e.what()) +
                          " (opening an IPC handle: the memory must be on this machine, still allocated by the "
                          "process that exported it, and a handle cannot be opened in that same process)");
}

std::string pool_key(const PoolHandle& p, int device) {
    return p.name + "/" + std::to_string(p.device) + "/" + std::to_string(device);
}

// Imports the pool a received descriptor stands for and lets `device` (current) read and write it.
CUmemoryPool import_pool(int fd) {
    CUmemoryPool pool = nullptr;
    CUresult r = drv::api().cuMemPoolImportFromShareableHandle(
        &pool, reinterpret_cast<void*>(static_cast<intptr_t>(fd)), CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
    ::close(fd);
    drv::check(r, "cuMemPoolImportFromShareableHandle");
    CUmemLocation here{CU_MEM_LOCATION_TYPE_DEVICE, ctx::current_cu_device()};
    CUmemAccess_flags flags{};
    if (drv::api().cuMemPoolGetAccess(&flags, pool, &here) != CUDA_SUCCESS ||
        flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE) {
        CUmemAccessDesc desc{here, CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
        CJ_CU(cuMemPoolSetAccess, pool, &desc, 1);
    }
    return pool;
}

}  // namespace

bool is_legacy(const std::string& handle) {
    return handle.size() == sizeof(CUipcMemHandle) && std::memcmp(handle.data(), kMagic, sizeof kMagic) != 0;
}

CUmemoryPool pool(int device) {
    std::lock_guard<std::mutex> lock(lock_all());
    return device_pool(device).pool;
}

std::pair<std::string, uint64_t> export_handle(uintptr_t ptr, int device, uintptr_t base) {
    ctx::DeviceScope scope(device);
    CJ_CU(cuCtxSynchronize);
    const auto& a = drv::api();
    const CUdeviceptr dptr = static_cast<CUdeviceptr>(ptr);
    CUmemoryPool owner = nullptr;  // null for memory of no pool (cuPointerGetAttributes: no error for it)
    CUpointer_attribute pool_attribute = CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE;
    void* pool_data = &owner;
    const bool pool_known = a.cuPointerGetAttributes(1, &pool_attribute, &pool_data, dptr) == CUDA_SUCCESS;
    const bool ours = base != 0;
    if (!ours) {
        CUdeviceptr start = 0;
        size_t bytes = 0;
        CUresult r = a.cuMemGetAddressRange(&start, &bytes, dptr);
        if (r != CUDA_SUCCESS) r = a.cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, dptr);
        if (r != CUDA_SUCCESS && pool_known && owner)
            throw SupportError("get_ipc_handle: this memory comes from another library's stream-ordered pool, which "
                               "cannot be shared with other processes; memory from cuMemAlloc, or cudajit's own "
                               "pool, can be");
        drv::check(r, "cuMemGetAddressRange");
        base = start;
    }
    uint64_t offset = ptr - base;
    const bool from_pool = pool_known ? owner != nullptr : ours;
    if (!from_pool) {  // cuMemAlloc's memory (an EMM plugin's, another library's): a legacy handle
        CUipcMemHandle h;
        CJ_CU(cuIpcGetMemHandle, &h, static_cast<CUdeviceptr>(base));
        return {std::string(h.reserved, sizeof h.reserved), offset};
    }
    std::lock_guard<std::mutex> lock(lock_all());
    DevicePool& d = device_pool(device);
    if (!pool_known) owner = d.pool;  // a DeviceBuffer's: allocated from d.pool
    if (owner != d.pool || !d.exportable)
        throw SupportError(
            "get_ipc_handle: this memory comes from a stream-ordered pool that cannot be shared with other processes "
            "(" + std::string(owner == d.pool ? "CUDAJIT_IPC_POOL=0, or the device or driver has no POSIX-descriptor "
                                                "pools"
                                              : "not cudajit's pool: another library's stream-ordered allocator") +
            "); memory from cuMemAlloc, or cudajit's own pool, can be shared");
    if (d.fd < 0) {
        int fd = -1;
        CJ_CU(cuMemPoolExportToShareableHandle, &fd, d.pool, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0ull);
        d.fd = fd;
    }
    CUmemPoolPtrExportData data;
    CJ_CU(cuMemPoolExportPointer, &data, static_cast<CUdeviceptr>(base));
    const std::string& name = ensure_server();
    std::string h(kHeaderBytes, '\0');
    char* at = h.data();
    std::memcpy(at, kMagic, sizeof kMagic);
    at += sizeof kMagic;
    std::memcpy(at, &data, kExportBytes);
    at += kExportBytes;
    int32_t dev32 = device, pid32 = getpid();
    uint64_t base64 = base;
    std::memcpy(at, &dev32, 4);
    std::memcpy(at + 4, &pid32, 4);
    std::memcpy(at + 8, &base64, 8);
    h += name;
    return {h, offset};
}

uintptr_t open(const std::string& handle, int device) {
    const bool legacy = is_legacy(handle);
    PoolHandle p{};
    if (!legacy) p = parse(handle);  // before any driver call: a malformed handle is a ValueError
    ctx::DeviceScope scope(device);
    const std::string key = std::to_string(device) + "/" + handle;
    bool own = false;
    {
        std::lock_guard<std::mutex> lock(lock_all());
        own = !legacy && p.pid == getpid() && server().pid == getpid() && p.name == server().name;
    }
    int fd = -1;  // the exporter's pool, asked for without a lock and without the GIL
    for (int attempt = 0;; ++attempt) {
        std::unique_lock<std::mutex> lock(lock_opened());
        unsigned epoch = block_cache::epoch();
        if (g_imported_epoch != epoch) {  // a released context took every mapping with it
            opened().clear();
            imported_pools().clear();
            g_imported_epoch = epoch;
        }
        auto it = opened().find(key);
        if (it != opened().end()) {
            if (fd >= 0) ::close(fd);
            ++it->second.count;
            return it->second.ptr;
        }
        Opened o;
        o.count = 1;
        o.epoch = epoch;
        try {
            if (legacy) {
                CUipcMemHandle h;
                std::memcpy(h.reserved, handle.data(), sizeof h.reserved);
                CUdeviceptr ptr = 0;
                CJ_CU(cuIpcOpenMemHandle, &ptr, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
                o.ptr = ptr;
                o.kind = Opened::Legacy;
            } else if (own) {
                o.ptr = p.base;  // this process's own allocation
                o.kind = Opened::Own;
            } else {
                auto pit = imported_pools().find(pool_key(p, device));
                if (pit == imported_pools().end()) {
                    if (fd < 0) {
                        if (attempt > 0) throw std::runtime_error("CUDA IPC: the exporter's pool was not imported");
                        lock.unlock();
                        NoGil nogil;  // the exporter may take a moment to answer
                        fd = receive_pool_fd(p.name, p.device, p.pid);
                        continue;
                    }
                    int taken = fd;
                    fd = -1;
                    pit = imported_pools().emplace(pool_key(p, device), import_pool(taken)).first;
                } else if (fd >= 0) {
                    ::close(fd);
                    fd = -1;
                }
                CUdeviceptr ptr = 0;
                CJ_CU(cuMemPoolImportPointer, &ptr, pit->second, &p.data);
                o.ptr = ptr;
                o.kind = Opened::Pool;
            }
        } catch (const DriverError& e) {
            rethrow_open(e);
        }
        opened().emplace(key, o);
        return o.ptr;
    }
}

void close(const std::string& handle, int device) {
    ctx::DeviceScope scope(device);
    std::lock_guard<std::mutex> lock(lock_opened());
    auto it = opened().find(std::to_string(device) + "/" + handle);
    if (it == opened().end() || it->second.epoch != block_cache::epoch())
        throw std::invalid_argument("IPC handle: it is not open in this process");
    if (--it->second.count > 0) return;
    Opened o = it->second;
    opened().erase(it);
    if (o.kind == Opened::Legacy) CJ_CU(cuIpcCloseMemHandle, static_cast<CUdeviceptr>(o.ptr));
    if (o.kind == Opened::Pool) CJ_CU(cuMemFree, static_cast<CUdeviceptr>(o.ptr));
}

}  // namespace cj::ipc

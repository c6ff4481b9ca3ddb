/* Definitions of the glibc symbols newer than the wheel's glibc (2.28, manylinux_2_28) that the static libstdc++ of
 * a newer GCC refers to. tools/wheel/link.sh links _core against glibc 2.28's symbol versions (zig's stub
 * libraries), so every other call binds to a version that glibc 2.28 and each later glibc provide; the few below
 * do not exist in 2.28 and are defined here, hidden, from older calls or system calls. The link fails (link.sh
 * checks for undefined symbols) when a compiler brings a new one: add it here. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define HIDDEN __attribute__((visibility("hidden")))

/* glibc 2.32: non-zero while the process has one thread. 0 ("maybe several") makes libstdc++ use atomic reference
 * counts always: correct, and _core runs threads anyway. */
HIDDEN char __libc_single_threaded = 0;

/* glibc 2.33 made stat and friends real functions (before, inline wrappers of __xstat). x86-64's kernel struct stat
 * is glibc's struct stat (and stat64). std::filesystem calls these. */
HIDDEN int stat(const char *path, void *buf) { return (int)syscall(SYS_stat, path, buf); }
HIDDEN int stat64(const char *path, void *buf) { return (int)syscall(SYS_stat, path, buf); }
HIDDEN int lstat(const char *path, void *buf) { return (int)syscall(SYS_lstat, path, buf); }
HIDDEN int lstat64(const char *path, void *buf) { return (int)syscall(SYS_lstat, path, buf); }
HIDDEN int fstat(int fd, void *buf) { return (int)syscall(SYS_fstat, fd, buf); }
HIDDEN int fstat64(int fd, void *buf) { return (int)syscall(SYS_fstat, fd, buf); }

/* glibc 2.36 (std::random_device's default source): the kernel's random bytes, as glibc's own arc4random uses. */
HIDDEN uint32_t arc4random(void) {
    uint32_t v;
    while (getrandom(&v, sizeof v, 0) != (ssize_t)sizeof v) {
    }
    return v;
}

/* glibc 2.30 (std::condition_variable's waits on steady_clock): a wait until a time on `clock`, through the
 * realtime wait that 2.28 has, the deadline moved to the realtime clock. */
HIDDEN int pthread_cond_clockwait(pthread_cond_t *cond, pthread_mutex_t *mutex, clockid_t clock,
                                  const struct timespec *abstime) {
    if (clock == CLOCK_REALTIME) return pthread_cond_timedwait(cond, mutex, abstime);
    struct timespec now, real;
    clock_gettime(clock, &now);
    clock_gettime(CLOCK_REALTIME, &real);
    long long ns = (long long)(abstime->tv_sec - now.tv_sec) * 1000000000LL + (abstime->tv_nsec - now.tv_nsec) +
                   (long long)real.tv_sec * 1000000000LL + real.tv_nsec;
    if (ns < 0) ns = 0;
    struct timespec target = {(time_t)(ns / 1000000000LL), (long)(ns % 1000000000LL)};
    return pthread_cond_timedwait(cond, mutex, &target);
}

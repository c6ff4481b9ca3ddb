#include "fork_safety.h"

#include <pthread.h>

#include <new>
#include <vector>

namespace cj {
namespace {

struct Registry {
    std::mutex mutex;
    std::vector<std::mutex*> locks;  // remade in the child
    std::vector<std::mutex*> held;   // taken before the fork, released after it
    std::vector<std::mutex*> taken;  // those the fork in progress took
};

// Never destroyed (interpreter exit); the handlers are installed with the first registration.
Registry& registry() {
    static Registry* r = [] {
        auto* made = new Registry;
        pthread_atfork(
            [] {
                // The held locks are waited for without the registry's lock: a holder may register a lock (a
                // function-local one, on its first use) before it lets go. Then no registration during the fork;
                // the registry's lock is released in both processes below.
                Registry& reg = registry();
                reg.mutex.lock();
                std::vector<std::mutex*> held = reg.held;
                reg.mutex.unlock();
                for (std::mutex* m : held) m->lock();
                reg.mutex.lock();
                reg.taken = std::move(held);
            },
            [] {
                Registry& reg = registry();
                for (auto it = reg.taken.rbegin(); it != reg.taken.rend(); ++it) (*it)->unlock();
                reg.mutex.unlock();
            },
            [] {
                Registry& reg = registry();
                for (auto it = reg.taken.rbegin(); it != reg.taken.rend(); ++it) (*it)->unlock();
                new (&reg.mutex) std::mutex;
                for (std::mutex* m : reg.locks) new (m) std::mutex;
            });
        return made;
    }();
    return *r;
}

}  // namespace

std::mutex& held_across_fork(std::mutex& m) {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.held.push_back(&m);
    return m;
}

std::mutex& remade_after_fork(std::mutex& m) {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.locks.push_back(&m);
    return m;
}

}  // namespace cj

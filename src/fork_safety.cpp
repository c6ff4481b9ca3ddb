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
};

// Never destroyed (interpreter exit); the handlers are installed with the first registration.
Registry& registry() {
    static Registry* r = [] {
        auto* made = new Registry;
        pthread_atfork(
            [] {
                Registry& reg = registry();
                reg.mutex.lock();  // no registration during the fork; released in both processes below
                for (std::mutex* m : reg.held) m->lock();
            },
            [] {
                Registry& reg = registry();
                for (auto it = reg.held.rbegin(); it != reg.held.rend(); ++it) (*it)->unlock();
                reg.mutex.unlock();
            },
            [] {
                Registry& reg = registry();
                for (auto it = reg.held.rbegin(); it != reg.held.rend(); ++it) (*it)->unlock();
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

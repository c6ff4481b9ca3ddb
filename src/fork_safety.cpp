#include "fork_safety.h"

#include <pthread.h>

#include <new>
#include <vector>

namespace cj {
namespace {

struct Registry {
    std::mutex mutex;
    std::vector<std::mutex*> locks;
};

// Never destroyed (interpreter exit); the handler is installed with the first registration.
Registry& registry() {
    static Registry* r = [] {
        auto* made = new Registry;
        pthread_atfork(nullptr, nullptr, [] {
            Registry& reg = registry();
            new (&reg.mutex) std::mutex;
            for (std::mutex* m : reg.locks) new (m) std::mutex;
        });
        return made;
    }();
    return *r;
}

}  // namespace

std::mutex& remade_after_fork(std::mutex& m) {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.locks.push_back(&m);
    return m;
}

}  // namespace cj

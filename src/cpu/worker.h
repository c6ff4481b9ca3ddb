// One OS thread of the pool: its fibers, barriers, warp collectives and the scheduler that runs a block.
// A private part of cpu_launch.cpp, which alone includes it, inside its anonymous namespace in cj::cpu (its own
// includes come first there): the CPU launcher is one translation unit, split by subject (fibers.h, job.h, worker.h,
// then the pool and the kernel in cpu_launch.cpp).
#pragma once

class Worker {
public:
    // launching: this worker runs on the thread that launches (worker 0), which polls for signals.
    explicit Worker(bool launching) : launching_(launching) {
        state_.sync = &Worker::sync_callback;
        state_.fail = &Worker::fail_callback;
        state_.poll = &Worker::poll_callback;
        state_.print = &Worker::print_callback;
        state_.stack_overflow = &Worker::stack_overflow_callback;
        state_.control = reinterpret_cast<const int32_t*>(&g_control);
        state_.launcher = this;
        state_.warp = warp_exchange_.get();
    }
    ~Worker() { std::free(smem_); }

    // Takes blocks from the job until none is left or the launch aborts.
    void run(Job& job) {
        job_ = &job;
        state_.ntid[0] = int32_t(job.block.x);
        state_.ntid[1] = int32_t(job.block.y);
        state_.ntid[2] = int32_t(job.block.z);
        state_.nctaid[0] = int32_t(job.grid.x);
        state_.nctaid[1] = int32_t(job.grid.y);
        state_.nctaid[2] = int32_t(job.grid.z);
        state_.params = job.params;
        state_.run_block = job.fibers ? 0 : 1;
        state_.ended = 0;
        const OsStack& os = os_stack();
        os_limit_ = os.bottom ? os.bottom + job.stack_margin : 0;
        try {
            state_.dynamic_smem = shared_memory(job.dynamic_shared);
            state_.dynamic_smem_bytes = job.dynamic_shared;
            uint64_t plane = uint64_t(job.grid.x) * job.grid.y;
            uint64_t b = 0, end = 0;
            int32_t* const ctaid = state_.ctaid;
            while (!between_blocks()) {
                if (b == end) {  // a run of blocks: its first block's coordinates by division, then by steps
                    b = job.next_block.fetch_add(job.chunk, std::memory_order_relaxed);
                    if (b >= job.nblocks) break;
                    end = std::min(b + job.chunk, job.nblocks);
                    ctaid[0] = int32_t(b % job.grid.x);
                    ctaid[1] = int32_t(b % plane / job.grid.x);
                    ctaid[2] = int32_t(b / plane);
                } else if (++ctaid[0] == int32_t(job.grid.x)) {
                    ctaid[0] = 0;
                    if (++ctaid[1] == int32_t(job.grid.y)) {
                        ctaid[1] = 0;
                        ++ctaid[2];
                    }
                }
                ++b;
                if (job.fibers) {
                    run_fibers();
                } else {
                    state_.tid[0] = state_.tid[1] = state_.tid[2] = 0;  // the loop starts at the first thread
                    state_.stack_limit = os_limit_;  // the block's loop runs on this OS thread's stack
                    job.fn(&state_);
                    if (segments_) finish_segments();
                }
                if (job.cooperative) job.block_exited();
            }
        } catch (const std::exception& e) {
            job.fail(e.what());
        }
        job_ = nullptr;
    }

private:
    void* shared_memory(size_t bytes) {
        bytes = (bytes + 15) / 16 * 16 + 16;
        if (bytes > smem_bytes_) {
            std::free(smem_);
            smem_ = std::aligned_alloc(16, bytes);
            smem_bytes_ = smem_ ? bytes : 0;
            if (!smem_) throw KernelRuntimeError("cannot allocate " + std::to_string(bytes) + " bytes of dynamic shared memory");
        }
        return smem_;
    }

    // Runs the current block's threads as fibers. A fiber that parks at a barrier hands over straight
    // to the next runnable fiber, and the last to arrive releases the barrier and goes on itself, so a
    // barrier costs one switch per thread. This scheduler context only starts the block, takes the
    // exits, and completes barriers when no fiber can (syncwarp across exits, deadlock).
    void run_fibers() {
        Job& job = *job_;
        const int32_t bx = int32_t(job.block.x), by = int32_t(job.block.y);
        const size_t n = size_t(job.block.x) * job.block.y * job.block.z;
        if (fibers_.size() < n) fibers_.resize(n);
        stacks_.reserve(n, job.fiber_stack);
        for (size_t i = 0; i < n; ++i) {
            Fiber& f = fibers_[i];
            f.tid[0] = int32_t(i % bx);
            f.tid[1] = int32_t(i / bx % by);
            f.tid[2] = int32_t(i / (size_t(bx) * by));
            f.state = FiberState::Ready;
            f.stack_limit = reinterpret_cast<uintptr_t>(stacks_.bottom(i)) + job.stack_margin;
#if defined(CJ_FIBER_ASM)
            context_init(f.ctx, stacks_.top(i), &Worker::fiber_main, this);
#else
            context_init(f.ctx, stacks_.top(i), &Worker::fiber_main, this, stacks_.stack_size());
#endif
        }
        n_ = n;
        live_ = n;
        at_barrier_ = at_warp_ = at_grid_ = 0;
        warps_.assign((n + 31) / 32, Warp{});
        if (views_.size() < warps_.size()) views_.resize(warps_.size());
        for (size_t w = 0; w < warps_.size(); ++w) views_[w].free = ~0u;
        for (size_t i = 0; i < n; ++i) fibers_[i].view = -1;
        if (n % 32) warps_.back().gone = ~0u << (n % 32);  // lanes past the end of the block
        for (;;) {
            if (Fiber* next = next_ready(0)) {
                resume(scheduler_, *next);
                if (between_blocks()) return;  // aborted: abandon the parked fibers
                continue;
            }
            if (live_ == 0) return;
            if (release_converging()) continue;
            if (at_barrier_ == live_) {
                release_barrier();
                continue;
            }
            if (at_grid_ == live_) {
                if (!job.grid_wait(launching_)) return;  // aborted: abandon the parked fibers
                release_grid_waiters();
                continue;
            }
            bool released = false;
            for (size_t w = 0; w * 32 < n; ++w) released |= release_warp(w);
            if (!released) return report_deadlock();
        }
    }

    // The first runnable fiber at or after index `from`, wrapping around.
    Fiber* next_ready(size_t from) {
        for (size_t k = 0; k < n_; ++k) {
            size_t i = from + k < n_ ? from + k : from + k - n_;
            if (fibers_[i].state == FiberState::Ready) return &fibers_[i];
        }
        return nullptr;
    }

    void resume(Context& from, Fiber& to) {
        current_ = &to;
        to.state = FiberState::Running;
        std::memcpy(state_.tid, to.tid, sizeof to.tid);
        state_.last_thread = to.last_thread;
        state_.stack_limit = to.stack_limit;
        context_switch(from, to.ctx);
    }

    static void fiber_main(void* self) {
        auto* w = static_cast<Worker*>(self);
        w->job_->fn(&w->state_);  // runs the CUDA thread w->state_.tid; traps unwind to here
        Fiber* f = w->current_;
        f->state = FiberState::Exited;
        --w->live_;
        size_t index = size_t(f - w->fibers_.data());
        w->drop_view(*f, index);
        w->warps_[index / 32].gone |= 1u << (index & 31);
        context_switch(f->ctx, w->scheduler_);  // never resumed
        std::abort();
    }

    // All live threads wait at syncthreads*: give each its reduction and let them all go.
    void release_barrier() {
        int32_t count = 0;
        for (size_t i = 0; i < n_; ++i)
            if (fibers_[i].state == FiberState::AtBarrier) count += fibers_[i].arg != 0;
        for (size_t i = 0; i < n_; ++i) {
            Fiber& f = fibers_[i];
            if (f.state != FiberState::AtBarrier) continue;
            f.result = f.op == CJ_SYNC_COUNT ? count
                     : f.op == CJ_SYNC_AND   ? int32_t(count == int32_t(at_barrier_))
                     : f.op == CJ_SYNC_OR    ? int32_t(count > 0)
                                             : 0;
            f.state = FiberState::Ready;
        }
        at_barrier_ = 0;
    }

    // The grid barrier completed: every thread of the block that waits at grid.sync() goes on.
    void release_grid_waiters() {
        for (size_t i = 0; i < n_; ++i)
            if (fibers_[i].state == FiberState::AtGrid) fibers_[i].state = FiberState::Ready, fibers_[i].result = 0;
        at_grid_ = 0;
    }

    // Releases the threads of warp w waiting at syncwarp(mask) whose mask's lanes have all arrived at
    // syncwarp or exited. True if any was. Usually every waiting lane gave the same mask: one test.
    bool release_warp(size_t w) {
        Warp& warp = warps_[w];
        const uint32_t done = warp.arrived | warp.gone;
        uint32_t go = 0;
        if (warp.uniform) {
            if (!(warp.mask & ~done)) go = warp.arrived;
        } else {
            // each lane's mask must be met by lanes that exited or wait at the same kind of call (same_kind)
            for (uint32_t rest = warp.arrived; rest; rest &= rest - 1) {
                uint32_t lane = uint32_t(__builtin_ctz(rest));
                const Fiber& f = fibers_[w * 32 + lane];
                uint32_t met = warp.gone;
                for (uint32_t other = warp.arrived; other; other &= other - 1) {
                    uint32_t o = uint32_t(__builtin_ctz(other));
                    if (same_kind(kind_of(f), kind_of(fibers_[w * 32 + o]))) met |= 1u << o;
                }
                if (!(f.arg & ~met)) go |= 1u << lane;
            }
        }
        if (!go) return false;
        // What the lanes waiting here published, as the released lanes will read it (they may read a lane that
        // still waits: its slot does not change until it is released).
        WarpViews& views = views_[w];
        const int32_t b = __builtin_ctz(views.free);
        views.free &= ~(1u << b);
        views.readers[b] = __builtin_popcount(go);
        for (uint32_t rest = warp.arrived; rest; rest &= rest - 1) {
            uint32_t lane = uint32_t(__builtin_ctz(rest));
            std::memcpy(views.data[b][lane], warp_exchange_->slot[w * 32 + lane], 16);
        }
        // A lane that exited (or waits elsewhere) reads as zeros: undefined on the GPU, but not another block's or
        // another collective's value left in the buffer (a reduction over a warp whose tail exited adds nothing).
        for (uint32_t rest = ~warp.arrived; rest; rest &= rest - 1)
            std::memset(views.data[b][__builtin_ctz(rest)], 0, 16);
        for (uint32_t rest = go; rest; rest &= rest - 1) {
            const size_t i = w * 32 + uint32_t(__builtin_ctz(rest));
            Fiber& f = fibers_[i];
            f.state = FiberState::Ready;
            f.result = 0;
            f.view = b;
            warp_exchange_->view[i] = views.data[b][0];
        }
        warp.arrived &= ~go;
        at_warp_ -= size_t(__builtin_popcount(go));
        return true;
    }

    // activemask: once no fiber of the block can run, the lanes of each warp waiting at an activemask go on, each
    // with the lanes waiting at the same call (its site, in arg): the rest of its warp waits elsewhere or has
    // exited, as the GPU's lanes that took another branch. True if any lane was released.
    bool release_converging() {
        bool any = false;
        for (size_t w = 0; w < warps_.size(); ++w) {
            uint32_t& waiting = warps_[w].converging;
            any |= waiting != 0;
            while (waiting) {
                const uint32_t site = fibers_[w * 32 + uint32_t(__builtin_ctz(waiting))].arg;
                uint32_t same = 0;
                for (uint32_t rest = waiting; rest; rest &= rest - 1) {
                    uint32_t lane = uint32_t(__builtin_ctz(rest));
                    if (fibers_[w * 32 + lane].arg == site) same |= 1u << lane;
                }
                for (uint32_t rest = same; rest; rest &= rest - 1) {
                    size_t i = w * 32 + uint32_t(__builtin_ctz(rest));
                    warp_exchange_->converged[i] = same;
                    fibers_[i].state = FiberState::Ready;
                    fibers_[i].result = 0;
                }
                waiting &= ~same;
            }
        }
        return any;
    }

    // No fiber of the block can run and no barrier can complete: the launch fails, saying which threads wait
    // where (grouped by the call they wait at, with its file and line) and, for lanes at a warp collective, which
    // lane of their mask keeps them waiting and where that one waits.
    void report_deadlock() {
        static const cj_cpu_where unknown = {"a barrier", "?", "?", 0};
        auto at = [&](const Fiber& f) -> const cj_cpu_where& { return f.where ? *f.where : unknown; };
        auto place = [&](const Fiber& f) { return std::string(at(f).what) + "() (" + where_text(at(f)) + ")"; };
        std::string msg = "deadlock in block " + dim3_text(state_.ctaid) + ": of its " + std::to_string(n_) +
                          " threads, ";
        std::vector<std::string> counts;
        if (at_barrier_) counts.push_back(std::to_string(at_barrier_) + " wait at syncthreads()");
        if (at_warp_) counts.push_back(std::to_string(at_warp_) + " at warp collectives");
        if (at_grid_) counts.push_back(std::to_string(at_grid_) + " at grid.sync()");
        counts.push_back(std::to_string(n_ - live_) + " have exited");
        for (size_t k = 0; k < counts.size(); ++k)
            msg += (k == 0 ? "" : k + 1 == counts.size() ? " and " : ", ") + counts[k];
        msg += "; none can go on:";
        // One line per call waited at, in thread order.
        std::vector<bool> told(n_, false);
        size_t lines = 0;
        for (size_t i = 0; i < n_; ++i) {
            const Fiber& f = fibers_[i];
            if (told[i] || f.state == FiberState::Exited || f.state == FiberState::Ready) continue;
            if (++lines > 8) {
                msg += "\n  ... (more threads wait elsewhere)";
                break;
            }
            std::vector<size_t> group;
            for (size_t j = i; j < n_; ++j) {
                const Fiber& g = fibers_[j];
                if (!told[j] && g.state == f.state && at(g).what == at(f).what && at(g).file == at(f).file &&
                    at(g).line == at(f).line)
                    group.push_back(j), told[j] = true;
            }
            msg += "\n  " + std::to_string(group.size()) + (group.size() == 1 ? " thread waits at " : " threads wait at ") +
                   place(f) + ": ";
            for (size_t k = 0; k < group.size() && k < 4; ++k)
                msg += (k ? ", " : "") + dim3_text(fibers_[group[k]].tid);
            if (group.size() > 4) msg += ", ...";
            if (f.state == FiberState::AtWarp) {
                const Warp& warp = warps_[i / 32];
                const uint32_t missing = f.arg & ~(warp.arrived | warp.gone);
                msg += "; the first with mask " + hex_mask(f.arg);
                if (missing) {
                    const Fiber& other = fibers_[i / 32 * 32 + size_t(__builtin_ctz(missing))];
                    msg += ", for lane " + std::to_string(__builtin_ctz(missing)) + " (thread " +
                           dim3_text(other.tid) + "), which waits at " + place(other);
                }
            }
        }
        msg += "\nEvery thread of a block that has not exited must reach a syncthreads(), and every lane named in a "
               "warp collective's mask a collective with that mask";
        job_->fail(msg);
    }

    // cj_cpu_state::sync: parks the running fiber at a barrier, completes the barrier if it was the
    // last to arrive (then runs on), else switches to the next runnable fiber.
    static int32_t sync_callback(cj_cpu_state* s, int32_t op, uint32_t arg, const cj_cpu_where* where) {
        auto* w = static_cast<Worker*>(s->launcher);
        if (Job::aborted()) return -1;
        if (op == CJ_SYNC_YIELD) return w->job_->fibers ? w->yield_fiber() : w->yield_segment(arg);
        if (op == CJ_SYNC_WARP && !(arg >> (w->linear_tid() & 31) & 1)) return w->lane_not_in_mask(arg, *where);
        if (!w->job_->fibers) return w->sync_without_fibers(op, arg);
        Fiber* f = w->current_;
        size_t index = size_t(f - w->fibers_.data());
        w->drop_view(*f, index);  // it read its last collective's values before coming here
        f->op = op;
        f->arg = arg;
        f->where = where;
        if (op == CJ_SYNC_WARP) {
            f->state = FiberState::AtWarp;
            ++w->at_warp_;
            Warp& warp = w->warps_[index / 32];
            if (!warp.arrived) warp.uniform = true, warp.mask = f->arg, warp.kind = kind_of(*f);
            else if (f->arg != warp.mask || !same_kind(kind_of(*f), warp.kind)) warp.uniform = false;
            warp.arrived |= 1u << (index & 31);
            w->release_warp(index / 32);
        } else if (op == CJ_SYNC_CONVERGE) {
            f->state = FiberState::AtConverge;  // released by the scheduler (release_converging)
            w->warps_[index / 32].converging |= 1u << (index & 31);
        } else if (op == CJ_SYNC_GRID) {
            if (!w->job_->cooperative) {
                w->job_->fail("grid.sync() in a launch that is not cooperative");
                return -1;
            }
            f->state = FiberState::AtGrid;
            ++w->at_grid_;
        } else {
            f->state = FiberState::AtBarrier;
            if (++w->at_barrier_ == w->live_) w->release_barrier();
        }
        if (f->state == FiberState::Ready) {
            f->state = FiberState::Running;
            return f->result;
        }
        Fiber* next = w->next_ready(index + 1 < w->n_ ? index + 1 : 0);
        if (next)
            w->resume(f->ctx, *next);
        else
            context_switch(f->ctx, w->scheduler_);
        return f->result;  // resumed: whoever switched here made this fiber current again
    }

    static const char* kind_of(const Fiber& f) { return f.where ? f.where->what : nullptr; }

    // The fiber no longer reads the warp buffer its last syncwarp gave it; the last reader frees it.
    void drop_view(Fiber& f, size_t index) {
        if (f.view < 0) return;
        WarpViews& views = views_[index / 32];
        if (--views.readers[f.view] == 0) views.free |= 1u << f.view;
        f.view = -1;
    }

    // A spinning while loop (CJ_SPIN_POLL): the running fiber stays runnable and the next runnable fiber of the
    // block runs, so the thread it waits for gets to set its flag. Nothing to do in a block run as a loop.
    int32_t yield_fiber() {
        if (!job_->fibers) return 0;
        Fiber* f = current_;
        size_t index = size_t(f - fibers_.data());
        Fiber* next = next_ready(index + 1 < n_ ? index + 1 : 0);
        if (!next || next == f) return 0;
        f->state = FiberState::Ready;
        resume(f->ctx, *next);
        return 0;  // resumed: whoever switched here made this fiber current again
    }

    size_t linear_tid() const {
        return size_t(state_.tid[0]) + job_->block.x * (size_t(state_.tid[1]) + size_t(job_->block.y) * state_.tid[2]);
    }

    // A warp collective whose mask leaves out the calling lane: undefined on the GPU (CUDA's programming guide: each
    // calling thread must have its own bit set in the mask); here its lanes would wait for each other in ways no
    // mask describes, often for good. The launch fails, naming the call.
    __attribute__((noinline, cold)) int32_t lane_not_in_mask(uint32_t mask, const cj_cpu_where& where) {
        const int32_t lane = int32_t(linear_tid() & 31);
        job_->fail(where_text(where) + ", tid=[" + std::to_string(state_.tid[0]) + ", " + std::to_string(state_.tid[1]) +
                   ", " + std::to_string(state_.tid[2]) + "] ctaid=[" + std::to_string(state_.ctaid[0]) + ", " +
                   std::to_string(state_.ctaid[1]) + ", " + std::to_string(state_.ctaid[2]) + "]: " + where.what +
                   "(mask=" + hex_mask(mask) + ") called by lane " + std::to_string(lane) + ", whose bit " +
                   hex_mask(1u << lane) + " is not set in the mask: each thread that calls a warp collective must "
                   "have its own bit set in the mask (the result is undefined on the GPU): pass a mask that names every "
                   "lane taking part (0xffffffff for the whole warp) and mask the result afterwards");
        return -1;
    }

    // Segments: a block run as a loop (no barriers) whose thread spins in a while loop, waiting perhaps for a later
    // thread of its block to set a flag (the GPU runs that thread meanwhile), hands the block's later threads over
    // to a new loop on a fiber, a segment, and from then on takes turns with it. Every thread of the block still
    // runs in a loop, on its segment's stack; a block whose threads never spin never leaves the OS thread's stack.
    // fibers_[0] is the block's first loop, on this OS thread's stack; fibers_[k] the segment started at the k-th
    // handover. The segment that handed over stops after its running thread (cj_cpu_state::last_thread).
    // The first thread of a block hands over after kSegmentStart iterations of a loop (`count`: Mandelbrot's escape
    // loop of a few thousand iterations never does; one of 20000 runs 0.7% slower for it, handing over at 1024
    // cost 3.4%). Once its block has segments, every 1024 iterations (as fibers do) a thread hands over, or lets
    // the segment before it run: the one that handed over to it, which is where a thread waiting for a later one is, so that a chain of threads each
    // waiting for the next resolves in one pass back (1024 threads: 24 ms; in a random order 1.7 s).
    static constexpr uint32_t kSegmentStart = 8192;
    int32_t yield_segment(uint32_t count) {
        if (!segments_ && count % kSegmentStart) return 0;
        const size_t n = size_t(job_->block.x) * job_->block.y * job_->block.z;
        if (!segments_) {
            if (linear_tid() + 1 == n) return 0;  // the block's last thread: nothing to hand over
            if (fibers_.size() < n) fibers_.resize(n);
            stacks_.reserve(n, job_->fiber_stack);  // no segment of this worker runs now
            Fiber& first = fibers_[0];
            first.state = FiberState::Running;
            first.last_thread = false;
            first.stack_limit = os_limit_;  // the block's first loop, on this OS thread's stack
            current_ = &first;
            segments_ = 1;
        }
        Fiber* f = current_;
        std::memcpy(f->tid, state_.tid, sizeof f->tid);
        if (!f->last_thread && linear_tid() + 1 < n) {
            // This segment runs the block's last threads: a new one takes them over from the next thread.
            Fiber& next = fibers_[segments_];
            const int32_t bx = int32_t(job_->block.x), by = int32_t(job_->block.y);
            next.tid[0] = f->tid[0] + 1, next.tid[1] = f->tid[1], next.tid[2] = f->tid[2];
            if (next.tid[0] == bx) next.tid[0] = 0, ++next.tid[1];
            if (next.tid[1] == by) next.tid[1] = 0, ++next.tid[2];
            next.state = FiberState::Ready;
            next.last_thread = false;
            next.stack_limit = reinterpret_cast<uintptr_t>(stacks_.bottom(segments_)) + job_->stack_margin;
#if defined(CJ_FIBER_ASM)
            context_init(next.ctx, stacks_.top(segments_), &Worker::segment_main, this);
#else
            context_init(next.ctx, stacks_.top(segments_), &Worker::segment_main, this, stacks_.stack_size());
#endif
            ++segments_;
            f->last_thread = true;
            f->state = FiberState::Ready;
            resume(f->ctx, next);
            return 0;  // resumed: whoever switched here made this segment current again
        }
        Fiber* next = next_segment(f);
        if (!next) return 0;
        f->state = FiberState::Ready;
        resume(f->ctx, *next);
        return 0;
    }

    // The segment before f (wrapping around to the last) that can run, or null.
    Fiber* next_segment(const Fiber* f) {
        const size_t at = size_t(f - fibers_.data());
        for (size_t k = 1; k <= segments_; ++k) {
            Fiber& g = fibers_[(at + segments_ - k) % segments_];
            if (g.state == FiberState::Ready) return &g;
        }
        return nullptr;
    }

    // A segment's fiber: runs the block's threads from its first to the end (or to where it handed over), then
    // lets another segment run; the last one to finish goes back to the block's first loop, which has finished
    // and waits in finish_segments.
    static void segment_main(void* self) {
        auto* w = static_cast<Worker*>(self);
        w->job_->fn(&w->state_);
        Fiber* f = w->current_;
        f->state = FiberState::Exited;
        Fiber* next = w->next_segment(f);
        if (next)
            w->resume(f->ctx, *next);
        else
            context_switch(f->ctx, w->scheduler_);  // never resumed
        std::abort();
    }

    // The block's first loop has returned: run the other segments to their end, on this OS thread's stack as the
    // scheduler (an aborted launch abandons them, as parked fibers).
    void finish_segments() {
        fibers_[0].state = FiberState::Exited;
        while (Fiber* next = next_segment(&fibers_[0])) {
            resume(scheduler_, *next);
            if (between_blocks()) break;
        }
        segments_ = 0;
        state_.last_thread = 0;
    }

    // A barrier in a kernel launched as a loop: fine for a one-thread block, else the compiler
    // should have asked for fibers (uses_barriers); abort rather than give wrong results.
    __attribute__((noinline, cold)) int32_t sync_without_fibers(int32_t op, uint32_t arg) {
        if (job_->block.x * job_->block.y * job_->block.z == 1) {
            warp_exchange_->view[0] = warp_exchange_->slot[0];  // a one-thread warp reads what it published
            if (op == CJ_SYNC_CONVERGE) warp_exchange_->converged[0] = 1;
            return op == CJ_SYNC_WARP || op == CJ_SYNC_CONVERGE ? 0 : int32_t(arg != 0);
        }
        job_->fail("thread " + dim3_text(state_.tid) + " of block " + dim3_text(state_.ctaid) +
                   " reached a barrier, but the kernel was launched without barrier support "
                   "(uses_barriers=False)");
        return -1;
    }

    // True when the launch aborts. The launching thread answers a poll request by checking for signals
    // (between blocks, and between fiber switches on the scheduler's own stack).
    bool between_blocks() {
        if (launching_ && (g_control.load(std::memory_order_relaxed) & kPollRequest)) job_->check_interrupt();
        return Job::aborted();
    }

    // cj_cpu_state::poll (a kernel loop saw the control word set): non-zero when the launch aborts. A
    // fiber does not check for signals on its small stack (Python's handlers may run there): it hands
    // over to the scheduler, which checks and resumes it later.
    static int32_t poll_callback(cj_cpu_state* s) {
        auto* w = static_cast<Worker*>(s->launcher);
        if (!w->job_->fibers && w->segments_ && w->current_ != &w->fibers_[0]) {
            // A segment on a fiber's stack: the block's first loop (on this OS thread's stack) or, once it has
            // finished, finish_segments answers the poll request; this segment runs on later.
            if (w->launching_ && (g_control.load(std::memory_order_relaxed) & kPollRequest) && !Job::aborted()) {
                Fiber* f = w->current_;
                std::memcpy(f->tid, w->state_.tid, sizeof f->tid);
                f->state = FiberState::Ready;
                if (w->fibers_[0].state == FiberState::Exited)
                    context_switch(f->ctx, w->scheduler_);  // resume() makes it current again
                else
                    w->resume(f->ctx, w->fibers_[0]);
            }
            return Job::aborted();
        }
        if (!w->job_->fibers) return w->between_blocks();
        if (w->launching_ && (g_control.load(std::memory_order_relaxed) & kPollRequest) && !Job::aborted()) {
            Fiber* f = w->current_;
            f->state = FiberState::Ready;
            context_switch(f->ctx, w->scheduler_);  // resume() makes it current again
        }
        return Job::aborted();
    }

    static void print_callback(cj_cpu_state* s, const char* text, uint32_t len) {
        static_cast<Worker*>(s->launcher)->job_->print(text, len);
    }

    // cj_cpu_state::stack_overflow: a guarded call of a recursive device function would take its frame below the
    // running stack's limit. The launch raises KernelRecursionError, as Python raises RecursionError.
    static void stack_overflow_callback(cj_cpu_state* s, const cj_cpu_where* where, int32_t depth) {
        auto* w = static_cast<Worker*>(s->launcher);
        const bool fiber = w->job_->fibers || (w->segments_ && w->current_ != &w->fibers_[0]);
        const std::string stack =
            fiber ? "a fiber's stack of " + std::to_string(w->stacks_.stack_size()) +
                        " bytes: set CUDAJIT_CPU_STACK higher (e.g. CUDAJIT_CPU_STACK=1M) to allow deeper recursion"
                  : "its OS thread's stack of " + std::to_string(os_stack().bytes) +
                        " bytes (the launching thread's: `ulimit -s` or threading.stack_size())";
        w->job_->fail(where_text(*where) + ", tid=" + list_text(s->tid) + " ctaid=" + list_text(s->ctaid) +
                          ": maximum recursion depth exceeded: the call of recursive device function '" +
                          python_function_name(where->function) + "' at depth " + std::to_string(depth) +
                          " would overflow this CUDA thread's stack (" + stack + "); recurse less deeply",
                      true);
    }

    static void fail_callback(cj_cpu_state* s, const char* what) {
        auto* w = static_cast<Worker*>(s->launcher);
        w->job_->fail("thread " + dim3_text(s->tid) + " of block " + dim3_text(s->ctaid) + ": " + what);
    }

    cj_cpu_state state_{};
    const bool launching_;
    Job* job_ = nullptr;
    std::vector<Fiber> fibers_;
    std::vector<Warp> warps_;
    StackArena stacks_;
    Context scheduler_;
    Fiber* current_ = nullptr;
    uintptr_t os_limit_ = 0;  // this launch's stack limit on this OS thread's stack (0: unguarded)
    size_t segments_ = 0;  // a block run as a loop: its segments (yield_segment), or 0 while it is one plain loop
    size_t n_ = 0, live_ = 0, at_barrier_ = 0, at_warp_ = 0, at_grid_ = 0;  // threads of the block, not exited, parked
    void* smem_ = nullptr;
    size_t smem_bytes_ = 0;
    std::unique_ptr<cj_cpu_warp_exchange> warp_exchange_ = std::make_unique<cj_cpu_warp_exchange>();
    std::vector<WarpViews> views_;  // per warp of the block: the copies released groups read
};

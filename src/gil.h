// Releasing the GIL around blocking work in a way that survives interpreter exit.
//
// In CPython <= 3.13 a thread (other than the finalizing one) that takes the GIL back while the
// interpreter finalizes is ended with pthread_exit. Its forced unwind calls std::terminate at the
// first noexcept frame, and py::gil_scoped_release takes the GIL back in a destructor (noexcept):
// a daemon thread inside cudajit at exit aborted the process ("terminate called without an active
// exception"). Here such a thread parks instead: it is a daemon thread of a process that is exiting.
#pragma once
#include <pybind11/pybind11.h>

#include <cxxabi.h>
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>

namespace cj {

// How many threads are inside cudajit's native code with the GIL released (NoGil scopes). Never destroyed.
inline std::atomic<int>& native_calls() {
    static std::atomic<int>* n = new std::atomic<int>(0);
    return *n;
}

// At exit, wait (at most 10 s) until no thread is inside a native call: a daemon thread leaving one parks when it
// takes the GIL back (restore_thread), so no library's destructor runs under a thread still inside that library.
// Run twice. First from Python's atexit (registered by the module, src/module.cpp), holding the GIL so that no new
// native call can start: that is before exit() runs any C++ destructor, which matters because libcuda and NVRTC
// register destructors of their function-local statics on first use, long after they were loaded (a daemon
// thread inside nvrtcCompileProgram crashed in NVRTC's error-recovery setjmp when only the second drain ran).
// Second with the C atexit after each library is loaded, before the destructors registered at its load. 10 s:
// an NVRTC compile on a loaded machine takes seconds.
inline void drain_native_calls() {
    for (int i = 0; i < 10000 && native_calls().load() > 0; ++i) usleep(1000);
}
inline void drain_native_calls_at_exit() { std::atexit(drain_native_calls); }

[[noreturn]] inline void park_forever() {
    for (;;) pause();
}

// Set by the Python-level drain (src/module.cpp): the interpreter is exiting, and from then on a thread other than
// the exiting one that would start a native call parks instead. Without this, a daemon thread took the GIL while
// the exiting thread flushed stdout after the drain, started an NVRTC compile, and was inside NVRTC when exit()
// destroyed NVRTC's statics (a SIGSEGV once in tens of exits). Never destroyed.
inline std::atomic<bool>& exiting() {
    static std::atomic<bool>* f = new std::atomic<bool>(false);
    return *f;
}
inline pthread_t& exiting_thread() {
    static pthread_t* t = new pthread_t{};
    return *t;
}
inline void begin_exit() {
    exiting_thread() = pthread_self();
    exiting().store(true);
}

// Takes the GIL back on this thread, or parks the thread when the interpreter is ending it.
inline void restore_thread(PyThreadState* tstate) noexcept {
    try {
        PyEval_RestoreThread(tstate);
    } catch (abi::__forced_unwind&) {
        park_forever();  // never leaves the handler, so the unwind neither continues nor terminates
    }
}

// Use instead of py::gil_scoped_release (also as py::call_guard<cj::NoGil>).
class NoGil {
public:
    NoGil() : tstate_(PyEval_SaveThread()) {
        if (exiting().load() && !pthread_equal(pthread_self(), exiting_thread())) park_forever();
        ++native_calls();
    }
    ~NoGil() {
        --native_calls();
        restore_thread(tstate_);
    }
    NoGil(const NoGil&) = delete;
    NoGil& operator=(const NoGil&) = delete;

private:
    PyThreadState* tstate_;
};

// Calls the Python callable fn(args..., **kwnames) from C++ that Python called (a launch compiling its kernel or
// converting its arguments) and returns its result, or throws py::error_already_set. In CPython <= 3.13 a daemon
// thread that takes the GIL back while the interpreter finalizes (Python code does, every switch interval) is ended
// with pthread_exit; its forced unwind would run the destructors of the C++ frames between here and the thread's
// start (pybind11's argument tuples, our py::objects): Py_DECREFs without the GIL, racing the exiting thread's
// garbage collection (the interpreter exiting during a compile segfaulted 8 times in 10). Nothing between this
// frame and CPython's has a destructor, and here the thread parks instead: it is a daemon thread of a process that
// is exiting, and none of its objects is released.
inline pybind11::object call_python(PyObject* fn, PyObject* const* args, size_t nargs, PyObject* kwnames = nullptr) {
    PyObject* result;
    try {
        result = PyObject_Vectorcall(fn, args, nargs, kwnames);
    } catch (abi::__forced_unwind&) {
        park_forever();
    }
    if (!result) throw pybind11::error_already_set();
    return pybind11::reinterpret_steal<pybind11::object>(result);
}

// Runs fn with the GIL from a thread that released it (NoGil); during interpreter exit fn is not run.
template <class F> void with_gil(F&& fn) {
#if PY_VERSION_HEX >= 0x030D0000
    if (Py_IsFinalizing()) return;
#else
    if (_Py_IsFinalizing()) return;
#endif
    PyThreadState* tstate = PyGILState_GetThisThreadState();
    if (!tstate) return;
    restore_thread(tstate);
    try {
        fn();
    } catch (...) {
        PyEval_SaveThread();
        throw;
    }
    PyEval_SaveThread();
}

}  // namespace cj

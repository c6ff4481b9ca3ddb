"""Run numba-cuda's own test files against cudajit: ``numba`` and the ``numba.cuda.*`` modules its tests import
resolve to cudajit's, and ``numba.cuda.testing`` / ``numba.cuda.tests.support`` to small stand-ins written here.

Imported before the tests (``run.py`` does it), so ``from numba import cuda`` in a numba-cuda test file gives
``cudajit.cuda``. Only names the test files use are provided; a test needing numba's internals (its IR, typing
templates, LLVM) fails at import or in the test, and ``run.py`` reports it as such.
"""
import cmath
import contextlib
import io
import sys
import types as _pytypes
import unittest

import numpy as np

import cudajit
from cudajit import config as _config, errors as _errors
from cudajit import cuda as _cuda


def _module(name, **attrs):
    mod = _pytypes.ModuleType(name)
    mod.__dict__.update(attrs)
    sys.modules[name] = mod
    return mod


class _Forward(_pytypes.ModuleType):
    """A module whose missing attributes are looked up on ``target`` (numba → cudajit)."""

    def __init__(self, name, target, **attrs):
        super().__init__(name)
        self.__dict__.update(attrs)
        self._target = target

    def __getattr__(self, attr):
        return getattr(self._target, attr)


def _forward(name, target, **attrs):
    mod = _Forward(name, target, **attrs)
    sys.modules[name] = mod
    return mod


class _AliasFinder:
    """``import numba.cuda.X`` gives cudajit.cuda.X itself (not a second copy of its file under another name, whose
    classes would differ from cudajit's)."""

    def find_spec(self, fullname, path=None, target=None):
        import importlib
        import importlib.util
        if not fullname.startswith("numba.cuda.") or fullname in sys.modules:
            return None
        try:
            module = importlib.import_module("cudajit.cuda." + fullname[len("numba.cuda."):])
        except ImportError:
            return None
        return importlib.util.spec_from_loader(fullname, _AliasLoader(module))


class _AliasLoader:
    def __init__(self, module):
        self.module = module

    def create_module(self, spec):
        return self.module

    def exec_module(self, module):
        pass


# --- numba.cuda.testing -------------------------------------------------------------------------------------------

def _exact_kind(x):
    if isinstance(x, (bool, np.bool_)):
        return "bool"
    if isinstance(x, (int, np.integer)):
        return "int"
    if isinstance(x, (float, np.floating)):
        return "float"
    if isinstance(x, (complex, np.complexfloating)):
        return "complex"
    return type(x).__name__


class TestCase(unittest.TestCase):
    """What numba-cuda's tests call on ``self``: assertPreciseEqual (values equal, to ``prec`` for reals) and the
    stdout/stderr captures."""

    FLOAT16_RTOL = np.finfo(np.float16).eps

    def assertPreciseEqual(self, first, second, prec="exact", ulps=1, msg=None, ignore_sign_on_zero=False,
                           abs_tol=None):
        if isinstance(first, np.ndarray) or isinstance(second, np.ndarray):
            a, b = np.asarray(first), np.asarray(second)
            self.assertEqual(a.shape, b.shape, msg)
            if a.dtype.kind in "fc" or b.dtype.kind in "fc":
                for x, y in zip(a.ravel().tolist(), b.ravel().tolist()):
                    self.assertPreciseEqual(x, y, prec, ulps, msg, ignore_sign_on_zero, abs_tol)
            else:
                np.testing.assert_array_equal(a, b, err_msg=msg or "")
            return
        if isinstance(first, (tuple, list)) and isinstance(second, (tuple, list)):
            self.assertEqual(len(first), len(second), msg)
            for x, y in zip(first, second):
                self.assertPreciseEqual(x, y, prec, ulps, msg, ignore_sign_on_zero, abs_tol)
            return
        kinds = {_exact_kind(first), _exact_kind(second)}
        if kinds <= {"float", "complex", "int", "bool"} and kinds & {"float", "complex"}:
            # numba's tolerance for a complex value is relative to its modulus, not to each part: a part that
            # cancels (log(z, base) with complex64 arguments rounded from float64) is held to the whole's ulps
            modulus = None
            if "complex" in kinds and not (cmath.isnan(complex(first)) or cmath.isnan(complex(second))):
                modulus = max(abs(complex(first)), abs(complex(second)))
            for x, y in ((complex(first).real, complex(second).real), (complex(first).imag, complex(second).imag)):
                if np.isnan(x) or np.isnan(y):
                    self.assertTrue(np.isnan(x) and np.isnan(y), msg or f"{first!r} != {second!r}")
                    continue
                if x == y:
                    if not ignore_sign_on_zero and x == 0 and prec == "exact":
                        self.assertEqual(np.signbit(x), np.signbit(y), msg or f"{first!r} != {second!r} (sign of 0)")
                    continue
                if prec == "exact":
                    self.fail(msg or f"{first!r} != {second!r}")
                eps = np.finfo(np.float32 if prec == "single" else np.float64).eps
                scale = max(abs(x), abs(y))
                if modulus is not None and np.isfinite(modulus):
                    scale = max(scale, modulus)
                tol = scale * eps * ulps * 2
                if abs_tol is not None:
                    tol = max(tol, abs_tol)
                self.assertLessEqual(abs(x - y), tol, msg or f"{first!r} != {second!r} ({prec}, {ulps} ulps)")
            return
        self.assertEqual(first, second, msg)

    def reset_module_warnings(self, module):
        module = sys.modules[module] if isinstance(module, str) else module
        module.__dict__.pop("__warningregistry__", None)

    def assertRefCount(self, *objs):
        return contextlib.nullcontext()


class CheckWarningsMixin:
    @contextlib.contextmanager
    def check_warnings(self, messages, category=RuntimeWarning):
        import warnings
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield
        found = [w for w in caught for m in messages if m in str(w.message)]
        self.assertEqual(len(found), len(messages), [str(w.message) for w in caught])
        for w in found:
            self.assertEqual(w.category, category)


class CUDATestCase(TestCase):
    def setUp(self):
        self._saved = (_config.CUDA_LOW_OCCUPANCY_WARNINGS, _config.CUDA_WARN_ON_IMPLICIT_COPY)
        _config.CUDA_LOW_OCCUPANCY_WARNINGS = 0
        _config.CUDA_WARN_ON_IMPLICIT_COPY = 0

    def tearDown(self):
        _config.CUDA_LOW_OCCUPANCY_WARNINGS, _config.CUDA_WARN_ON_IMPLICIT_COPY = self._saved

    def assertFileCheckAsm(self, *a, **k):
        self.skipTest("FileCheck of numba's assembly")

    assertFileCheckLLVM = assertFileCheckMatches = assertFileCheckAsm


def _no_skip(reason=None):
    return lambda fn: fn


def _skip(reason="numba-cuda's simulator only"):
    return unittest.skip(reason)


def _cc(major, minor):
    cc = _cuda.get_current_device().compute_capability
    return cc >= (major, minor)


class ForeignArray:
    """An array seen only through __cuda_array_interface__ (numba-cuda's helper, written afresh)."""

    def __init__(self, arr):
        self._arr = arr
        self.__cuda_array_interface__ = arr.__cuda_array_interface__


@contextlib.contextmanager
def _captured(stream):
    old = getattr(sys, stream)
    buf = io.StringIO()
    setattr(sys, stream, buf)
    try:
        yield buf
    finally:
        setattr(sys, stream, old)


def captured_stdout():
    return _captured("stdout")


def captured_stderr():
    return _captured("stderr")


@contextlib.contextmanager
def override_config(name, value):
    old = getattr(_config, name)
    setattr(_config, name, value)
    try:
        yield
    finally:
        setattr(_config, name, old)


# numba-cuda's knobs its tests read or set that cudajit's config does not define (stand-ins for the run only)
_CONFIG_DEFAULTS = dict(ENABLE_CUDASIM=0, CUDA_LOW_OCCUPANCY_WARNINGS=0, CUDA_WARN_ON_IMPLICIT_COPY=0,
                        DISABLE_PERFORMANCE_WARNINGS=0, CUDA_ENABLE_NRT=0, CUDA_DEBUG_POLY=0,
                        CUDA_DEBUG_POLY_USE_TYPED_CONST=0)


class _NoLLVM(_pytypes.ModuleType):
    """``llvmlite.ir`` where llvmlite is not installed (CI): a test file that imports it for one test of numba's LLVM
    IR (test_const_string.py) still runs its other tests; that one fails naming the reason."""

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        raise NotImplementedError(f"llvmlite.ir.{attr}: numba's LLVM IR, which cudajit does not use (and llvmlite "
                                  f"is not installed)")


def _llvmlite_stand_in():
    try:
        import llvmlite.ir  # noqa: F401
    except ImportError:
        ir = _NoLLVM("llvmlite.ir")
        sys.modules["llvmlite.ir"] = ir
        _module("llvmlite", ir=ir, __path__=[])


def install():
    _llvmlite_stand_in()
    # where numba-cuda is installed, its .pth adds a finder that sends numba.cuda imports to its own package: the
    # shim stands for numba entirely, so that finder goes
    sys.meta_path[:] = [f for f in sys.meta_path if type(f).__module__ != "_numba_cuda_redirector"]
    sys.meta_path.insert(0, _AliasFinder())
    for name, value in _CONFIG_DEFAULTS.items():
        if not hasattr(_config, name):
            setattr(_config, name, value)
    from cudajit.compiler import types as ctypes_
    numba = _forward("numba", cudajit, cuda=_cuda, __version__="0.62.0")
    sys.modules["numba.cuda"] = _cuda
    _forward("numba.types", ctypes_)
    _forward("numba.cuda.types", ctypes_)
    numba.types = sys.modules["numba.types"]
    core = _module("numba.core", types=ctypes_, errors=_errors, config=_config)
    numba.core = core
    sys.modules["numba.core.types"] = ctypes_
    sys.modules["numba.core.errors"] = _errors
    sys.modules["numba.core.config"] = _config
    _module("numba.cuda.core", config=_config, errors=_errors)
    sys.modules["numba.cuda.core.config"] = _config
    sys.modules["numba.cuda.core.errors"] = _errors
    sys.modules["numba.cuda.config"] = _config
    skips = {n: _no_skip for n in ("skip_on_cudasim", "skip_if_external_memmgr", "skip_under_cuda_memcheck",
                                   "skip_on_arm", "skip_on_wsl2", "skip_if_nvjitlink_missing",
                                   "skip_on_nvjitlink_13_1_sm_120")}
    ccs = {f"skip_unless_cc_{m}{n}": unittest.skipUnless(_cc(m, n), f"cc {m}.{n}")
           for m, n in ((5, 0), (5, 3), (6, 0), (7, 5), (9, 0))}
    testing = _module(
        "numba.cuda.testing", unittest=unittest, CUDATestCase=CUDATestCase, TestCase=TestCase,
        ForeignArray=ForeignArray, skip_unless_cudasim=_skip, skip_unless_conda_cudatoolkit=_skip,
        skip_without_nvdisasm=_skip, skip_with_nvdisasm=_no_skip,
        skip_on_standalone_numba_cuda=_no_skip(),
        skip_if_cuda_includes_missing=lambda fn: fn, skip_if_curand_kernel_missing=lambda fn: fn,
        skip_if_cudadevrt_missing=lambda fn: fn, xfail_unless_cudasim=unittest.expectedFailure,
        cc_X_or_above=_cc, captured_stdout=captured_stdout, captured_stderr=captured_stderr,
        **skips, **ccs)
    from cudajit.compiler.typeof import typeof
    support = _module("numba.cuda.np.numpy_support", from_dtype=ctypes_.from_dtype,
                      as_dtype=lambda t: np.dtype(str(t)), numpy_version=tuple(map(int, np.__version__.split(".")[:2])))
    _module("numba.cuda.np", numpy_support=support)
    sys.modules["numba.np"] = sys.modules["numba.cuda.np"]
    sys.modules["numba.np.numpy_support"] = support
    _module("numba.cuda.typing.typeof", typeof=typeof)
    _module("numba.cuda.typing", signature=lambda ret, *args: ctypes_.Signature(ret, args),
            typeof=sys.modules["numba.cuda.typing.typeof"])
    support.carray, support.farray = _cuda.carray, _cuda.farray
    _module("numba.cuda.misc", special=_module("numba.cuda.misc.special", literal_unroll=cudajit.literal_unroll))
    import os
    import pathlib
    numba.typeof = typeof
    _forward("numba.cuda.compiler", _cuda)
    _module("numba.cuda.utils", PYVERSION=sys.version_info[:2])
    # numba-cuda's usecase modules (``from numba.cuda.tests.cudapy import cache_usecases``): run.py copies them
    # beside the test files, into NC_SUITE_DIR
    _module("numba.cuda.tests", __path__=[])
    _module("numba.cuda.tests.cudapy", __path__=[os.environ.get("NC_SUITE_DIR", ".")])
    testing.test_data_dir = pathlib.Path(os.environ.get("NC_TESTS_DATA", "."))
    testing.MemoryLeakMixin = type("MemoryLeakMixin", (), {})
    _module("numba.cuda.tests.support", TestCase=TestCase, override_config=override_config,
            MemoryLeakMixin=testing.MemoryLeakMixin, CheckWarningsMixin=CheckWarningsMixin,
            linux_only=unittest.skipUnless(sys.platform.startswith("linux"), "linux only"),
            windows_only=unittest.skipUnless(sys.platform.startswith("win"), "windows only"),
            captured_stdout=captured_stdout, captured_stderr=captured_stderr,
            skip_unless_cffi=unittest.skipUnless(_has("cffi"), "cffi"), run_in_subprocess=run_in_subprocess,
            IS_NUMPY_2=int(np.__version__.split(".")[0]) >= 2, temp_directory=temp_directory,
            import_dynamic=import_dynamic, ignore_internal_warnings=lambda: None)
    _cuda.HAS_NUMBA = True   # numba.njit is cudajit.njit (plain Python on the host)
    _internals_that_only_import()
    return testing


class _Missing:
    """Stands for a numba internal that cudajit does not have: importing it and registering with it work (so that
    the test file's other tests run) and do nothing, so the tests that need it fail.""" 

    def __init__(self, name):
        self._name = name

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _Missing(f"{self._name}.{attr}")     # ``typeof_impl.register(cls)``: a decorator that does nothing

    def __call__(self, *args, **kwargs):
        if len(args) == 1 and isinstance(args[0], _pytypes.FunctionType) and not kwargs:  # a decorator: no-op
            return args[0]
        return _RegisteringDecorator()

    def __getitem__(self, key):
        return self


class _RegisteringDecorator:
    def __call__(self, fn):
        return fn


def _internals_that_only_import():
    """Modules and names that numba-cuda's test files (and their usecase modules) import at the top, for tests of
    numba's internals (its extension API, launch-config callbacks, the driver object), so that a file's other tests
    run. Each is a ``_Missing``: a test that uses one fails."""
    from cudajit.compiler import types as ctypes_
    from cudajit.cuda.cudadrv import driver as drv
    if not hasattr(drv, "driver"):
        drv.driver = _pytypes.SimpleNamespace()    # numba's Driver object (tests patch its cu* functions)
    if "_name_ok" not in ctypes_.Type.__dict__:
        def _type_init(self, name=None):           # numba's types.Type(name): extension types of the tests
            if name is not None:
                self.name = name
        ctypes_.Type.__init__ = _type_init
        ctypes_.Type._name_ok = True
    models = _pytypes.SimpleNamespace(StructModel=type("StructModel", (), {"__init__": lambda self, *a, **k: None}))
    extending = _module("numba.cuda.extending", core_models=models, models=models,
                        typeof_impl=_Missing("extending.typeof_impl"),
                        type_callable=_Missing("extending.type_callable"),
                        register_model=_Missing("extending.register_model"),
                        make_attribute_wrapper=_Missing("extending.make_attribute_wrapper"),
                        overload=_Missing("extending.overload"), intrinsic=_Missing("extending.intrinsic"),
                        lower_builtin=_Missing("extending.lower_builtin"),
                        overload_attribute=_Missing("extending.overload_attribute"),
                        overload_method=_Missing("extending.overload_method"),
                        models_register=_Missing("extending.models_register"))
    sys.modules.setdefault("numba.extending", extending)
    _module("numba.cuda.cudaimpl", lower=_Missing("cudaimpl.lower"), registry=_Missing("cudaimpl.registry"))
    _module("numba.cuda.cgutils", create_struct_proxy=_Missing("cgutils.create_struct_proxy"))
    for name in ("cgutils", "cudaimpl", "extending"):           # ``from numba.cuda import cgutils``
        if not hasattr(_cuda, name):
            setattr(_cuda, name, sys.modules["numba.cuda." + name])
    _module("numba.cuda.launchconfig", current_launch_config=_Missing("launchconfig.current_launch_config"),
            ensure_current_launch_config=_Missing("launchconfig.ensure_current_launch_config"),
            capture_compile_config=_Missing("launchconfig.capture_compile_config"))
    _cuda_launchconfig = sys.modules["numba.cuda.launchconfig"]
    if not hasattr(_cuda, "launchconfig"):
        _cuda.launchconfig = _cuda_launchconfig
    try:
        import cuda.core._utils.cuda_utils  # noqa: F401
    except ImportError:                            # cuda-core is not installed here (it is on the device)
        if "cuda" not in sys.modules:
            _module("cuda", __path__=[])
        _module("cuda.core", __path__=[])
        _module("cuda.core._utils", __path__=[])
        _module("cuda.core._utils.cuda_utils", CUDAError=type("CUDAError", (RuntimeError,), {}))


def _has(mod):
    try:
        __import__(mod)
        return True
    except ImportError:
        return False


def temp_directory(prefix):
    """numba's test helper: a new folder that outlives the test (removed with the process's temporary files)."""
    import tempfile
    return tempfile.mkdtemp(prefix=prefix + "-")


def import_dynamic(modname):
    """numba's test helper: import ``modname`` afresh (the finders' directory caches dropped first)."""
    import importlib
    importlib.invalidate_caches()
    __import__(modname)
    return sys.modules[modname]


def run_in_subprocess(code, flags=(), env=None, timeout=30):
    """numba's test helper: run ``code`` in a new Python; (stdout, stderr), AssertionError when it fails."""
    import subprocess
    proc = subprocess.run([sys.executable, *flags, "-c", code], env=env, capture_output=True, text=True,
                          timeout=timeout)
    if proc.returncode:
        raise AssertionError(f"process failed with code {proc.returncode}: stderr:\n{proc.stderr}")
    return proc.stdout, proc.stderr

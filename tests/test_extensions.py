"""Numba's kernel extensions (``cuda.jit(extensions=[...])``, ``kernel.extensions``) and its argument hints
(``cuda.args.wrap_arg``, ``ArgHint.to_device``): each launch's arguments pass through every extension's
``prepare_args``, the last first, before they are converted; what an extension appends to ``retr`` runs after the
kernel."""
import pickle

import numpy as np
import pytest

from cudajit import cuda
from cudajit.cuda import types
from cudajit.cuda.args import ArgHint, In, InOut, Out, wrap_arg


class Tracked(np.ndarray):
    """A host array an extension copies itself, counting the copies back (numba types it as its array first)."""
    updates = 0


class CopyExtension:
    def __init__(self):
        self.seen = []

    def prepare_args(self, ty, val, stream, retr):
        self.seen.append((ty, stream))
        if not isinstance(val, Tracked):
            return ty, val
        dev = cuda.to_device(np.asarray(val), stream=stream)

        def copy_back():
            dev.copy_to_host(np.asarray(val), stream=stream)
            val.updates += 1
        retr.append(copy_back)
        return ty, dev


class DefaultIn:
    """numba-cuda's own example: host arrays copied to the device but not back."""

    def prepare_args(self, ty, val, **kwargs):
        return ty, wrap_arg(val, default=In)


class Scale:
    """Multiplies a float argument (order of extensions: the last in the list runs first)."""

    def __init__(self, factor, log):
        self.factor, self.log = factor, log

    def prepare_args(self, ty, val, stream, retr):
        if isinstance(val, float):
            self.log.append(self.factor)
            return ty, val * self.factor
        return ty, val


def axpy(out, x, a):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + out[i]


def set_first(arr):
    arr[0] = 3


def test_extension_converts_an_argument_and_writes_back(backend):
    rng = np.random.default_rng(1)
    start = rng.standard_normal(200)
    x = rng.standard_normal(200)
    ext = CopyExtension()
    kernel = cuda.jit(extensions=[ext])(axpy)
    out = start.copy().view(Tracked)
    kernel[2, 128](out, x, 1.5)
    np.testing.assert_allclose(out, 1.5 * x + start, rtol=1e-13)      # the GPU fuses a * x + out
    assert out.updates == 1
    # ty is the argument's type in the compiled kernel
    tys = [ty for ty, _ in ext.seen]
    assert isinstance(tys[0], types.Array) and tys[0].dtype == types.float64 and tys[0].ndim == 1
    assert tys[2] == types.float64
    assert kernel.targetoptions["extensions"] is kernel.extensions


def test_extensions_appended_later_are_read_at_each_launch(backend):
    kernel = cuda.jit(set_first)
    host = np.random.default_rng(2).integers(10, 100, 4)
    first = host[0]
    kernel[1, 1](host)                  # makes the core's launcher for [1, 1]; the array is copied back
    assert host[0] == 3
    host[0] = first
    kernel.extensions.append(DefaultIn())
    kernel[1, 1](host)                  # the same launcher: copied in only
    assert host[0] == first
    kernel.extensions.clear()
    kernel[1, 1](host)
    assert host[0] == 3


def test_last_extension_runs_first(backend):
    log = []
    kernel = cuda.jit(extensions=[Scale(2.0, log), Scale(10.0, log)])(axpy)
    x = np.random.default_rng(3).standard_normal(64)
    out = np.zeros(64)
    kernel[1, 64](out, x, 0.5)
    assert log == [10.0, 2.0]
    np.testing.assert_allclose(out, 10.0 * x, rtol=1e-15)


def test_extension_sees_the_launch_stream(backend):
    ext = CopyExtension()
    kernel = cuda.jit(extensions=[ext])(set_first)
    kernel[1, 1](np.zeros(2))
    assert ext.seen[-1][1] == 0
    s = cuda.stream()
    arr = np.random.default_rng(4).standard_normal(2).view(Tracked)
    kernel[1, 1, s](arr)
    s.synchronize()
    assert ext.seen[-1][1].handle == s.handle
    assert arr[0] == 3 and arr.updates == 1


def test_extension_with_a_declared_signature(backend):
    ext = CopyExtension()
    kernel = cuda.jit("void(float32[:], float32[:], float32)", extensions=[ext])(axpy)
    rng = np.random.default_rng(5)
    start = rng.standard_normal(50).astype(np.float32)
    x = rng.standard_normal(50).astype(np.float32)
    out = start.copy().view(Tracked)
    kernel[1, 64](out, x, 2.0)
    assert ext.seen[0][0].dtype == types.float32 and ext.seen[2][0] == types.float32   # 2.0 typed as declared
    np.testing.assert_allclose(out, np.float32(2.0) * x + start, rtol=1e-6)


def test_bad_extensions_are_refused(backend):
    with pytest.raises(TypeError, match=r"kernel extension 0 \(object\) has no prepare_args"):
        cuda.jit(extensions=[object()])(set_first)
    with pytest.raises(TypeError, match="must be a list"):
        cuda.jit(extensions=5)(set_first)

    class NoTuple:
        def prepare_args(self, ty, val, stream, retr):
            return val
    kernel = cuda.jit(extensions=[NoTuple()])(set_first)
    with pytest.raises(TypeError, match=r"kernel 'set_first': extension NoTuple.prepare_args must return \(ty, val\)"):
        kernel[1, 1](np.zeros(1))
    kernel.extensions[0] = 7
    with pytest.raises(TypeError, match=r"kernel extension 0 \(int\) has no prepare_args"):
        kernel[1, 1](np.zeros(1))


def test_wrap_arg_and_to_device(backend):
    assert ArgHint is In.__mro__[1]
    host = np.random.default_rng(6).standard_normal((3, 5))
    hint = In(host)
    assert wrap_arg(hint) is hint and isinstance(wrap_arg(host), InOut) and isinstance(wrap_arg(host, Out), Out)
    assert wrap_arg(host).value is host
    retr = []
    dev = In(host).to_device(retr)
    np.testing.assert_array_equal(dev.copy_to_host(), host)
    assert retr == []
    # Out: not copied in, copied back by retr
    target = np.zeros((3, 5))
    dev = Out(target).to_device(retr)
    dev.copy_to_device(host)
    assert not target.any()
    for call in retr:
        call()
    np.testing.assert_array_equal(target, host)
    # a device array is passed as it is
    d = cuda.to_device(host)
    assert InOut(d).to_device([]) is d
    with pytest.raises(TypeError, match=r"argument 0 \(value\) is a ndarray: arrays of dtype object"):
        In(np.array([object()])).to_device([])


def test_extensions_pickle_with_the_kernel(backend):
    kernel = cuda.jit(extensions=[DefaultIn()])(set_first)
    again = pickle.loads(pickle.dumps(kernel))
    assert len(again.extensions) == 1 and isinstance(again.extensions[0], DefaultIn)
    host = np.random.default_rng(7).standard_normal(3)
    before = host.copy()
    again[1, 1](host)
    np.testing.assert_array_equal(host, before)

"""Read-only arrays: a non-writeable NumPy array and CUDA-array-interface data marked read-only (``data[1]``) are
typed as Numba's readonly arrays. Kernels may read them; one that writes them (setitem, atomics) is a TypingError
naming the argument and the line. The dispatcher keys them apart from writeable arrays of the same type."""
import inspect
import os

import numpy as np
import pytest

from cudajit import cuda
from cudajit.compiler import typeof
from cudajit.errors import TypingError

HERE = os.path.basename(__file__)


class ReadOnlyView:
    """A foreign array exporting another's memory through the CUDA array interface, marked read-only."""
    def __init__(self, dev):
        self._dev = dev
        cai = dict(dev.__cuda_array_interface__)
        cai["data"] = (cai["data"][0], True)
        self.__cuda_array_interface__ = cai


def _line(fn, text):
    lines, first = inspect.getsourcelines(fn.py_func)
    return first + next(k for k, line in enumerate(lines) if text in line)


@cuda.jit
def scale(a, out, k):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = a[i] * k


@cuda.jit
def scale_in_place(a, k):
    i = cuda.grid(1)
    if i < a.size:
        a[i] *= k


@cuda.jit
def count_into(a):
    cuda.atomic.add(a, 0, 1)


def _frozen(x):
    x = x.copy()
    x.flags.writeable = False
    return x


def test_read_only_types():
    assert str(typeof(_frozen(np.zeros(3)))) == "readonly array(float64, 1d, C)"
    assert str(typeof(np.zeros(3))) == "array(float64, 1d, C)"
    assert typeof(ReadOnlyView(cuda.to_device(np.zeros((2, 2), np.float32)))).readonly


def test_reading_read_only_arrays_works(backend, rng):
    a = _frozen(rng.standard_normal(50))
    out = np.zeros(50)
    scale[1, 64](a, out, 3.0)
    np.testing.assert_array_equal(out, a * 3.0)
    assert not a.flags.writeable                       # not copied back into
    dev = cuda.to_device(rng.standard_normal(50))
    scale[1, 64](ReadOnlyView(dev), out, 2.0)
    np.testing.assert_array_equal(out, dev.copy_to_host() * 2.0)


def test_writing_a_read_only_numpy_array_is_a_typing_error(backend, rng):
    a = _frozen(rng.standard_normal(8))
    with pytest.raises(TypingError) as info:
        scale_in_place[1, 8](a, 2.0)
    msg = str(info.value)
    assert "cannot write to read-only array 'a'" in msg
    assert f"{HERE}:{_line(scale_in_place, 'a[i] *= k')}" in msg, msg


def test_atomics_on_read_only_cai_data_are_a_typing_error(backend):
    dev = cuda.to_device(np.zeros(4, np.int32))
    with pytest.raises(TypingError, match=rf"{HERE}:{_line(count_into, 'atomic.add')}: cannot write to read-only array 'a'"):
        count_into[1, 4](ReadOnlyView(dev))
    assert dev.copy_to_host()[0] == 0


def test_dispatcher_keys_read_only_apart(backend, rng):
    dev = cuda.to_device(np.ones(16))
    scale_in_place[1, 16](dev, 2.0)                    # compiled for a writeable array first
    with pytest.raises(TypingError, match="read-only array 'a'"):
        scale_in_place[1, 16](ReadOnlyView(dev), 2.0)  # same dtype/ndim/layout, but read-only: not that kernel
    scale_in_place[1, 16](dev, 2.0)
    np.testing.assert_array_equal(dev.copy_to_host(), np.full(16, 4.0))

"""``cuda.local.array`` / ``cuda.shared.array`` with ``alignment=`` (numba-cuda 0.30): the array's address is a
multiple of it (read in the kernel through ``a.ctypes.data``, Numba's ArrayCTypes); an invalid value is numba-cuda's
ValueError or RequireLiteralValueError, with the kernel's line."""
import numpy as np
import pytest

from cudajit import cuda
from cudajit.errors import RequireLiteralValueError, TypingError

RECORD = np.dtype([("a", np.uint8), ("b", np.int32), ("c", np.float64)], align=False)


@pytest.mark.parametrize("dtype", [np.uint8, np.float64, RECORD], ids=["u1", "f8", "record"])
def test_arrays_start_at_a_multiple_of_the_alignment(backend, dtype):
    numeric = dtype is not RECORD        # a constant of the kernel: its branch is typed only for numbers
    for alignment in (16, 64, 256):
        @cuda.jit
        def k(values, out):
            pad = cuda.local.array(3, np.uint8)      # a neighbour of another size, so the next starts unaligned
            loc = cuda.local.array((2, 3), dtype, alignment=alignment)
            shr = cuda.shared.array(shape=5, dtype=dtype, alignment=alignment)
            pad[0] = 1
            out[0] = loc.ctypes.data
            out[1] = shr.ctypes.data
            out[2] = pad.ctypes.data
            if numeric:                              # the arrays hold values as any array does
                loc[1, 2] = values[0]
                shr[4] = values[1]
                values[2] = loc[1, 2] + shr[4]

        values = np.random.default_rng(alignment).integers(1, 100, 3).astype(np.float64)
        expect = values[0] + values[1]
        out = np.zeros(3, np.uint64)
        k[1, 1](values, out)
        assert out[0] % alignment == 0 and out[1] % alignment == 0, (alignment, out)
        assert out[2] != 0
        if numeric:
            assert values[2] == expect
        assert f"alignas({alignment})" in k.inspect_source(k.signatures[0])


def test_alignment_passed_to_a_device_function(backend):
    @cuda.jit(device=True)
    def scratch_address(alignment):
        a = cuda.local.array(4, np.float32, alignment=alignment)
        a[0] = 1.0
        return a.ctypes.data

    @cuda.jit
    def k(out):
        out[0] = scratch_address(128)
        out[1] = scratch_address(None)

    out = np.zeros(2, np.uint64)
    k[1, 1](out)
    assert out[0] % 128 == 0 and out[1] % 4 == 0


@pytest.mark.parametrize("alignment, error, message", [
    (0, ValueError, "Alignment must be positive, got 0"),
    (-8, ValueError, "Alignment must be positive"),
    (24, ValueError, "Alignment must be a power of 2, got 24"),
    (4, ValueError, "Alignment must be a multiple of 8, got 4"),
    (1.5, RequireLiteralValueError, "alignment must be a constant integer, got 1.5"),
    ("16", RequireLiteralValueError, "alignment must be a constant integer, got '16'"),
])
def test_invalid_alignments_are_refused_with_the_line(backend, alignment, error, message):
    @cuda.jit
    def k(out):
        a = cuda.shared.array(8, np.uint8, alignment=alignment)
        out[0] = a.ctypes.data

    with pytest.raises(error) as info:
        k[1, 1](np.zeros(1, np.uint64))
    assert message in str(info.value) and "test_array_alignment.py:" in str(info.value)


def test_run_time_alignment_is_a_typing_error(backend):
    @cuda.jit
    def k(out, alignment):
        a = cuda.local.array(8, np.uint8, alignment=alignment)
        out[0] = a.ctypes.data

    with pytest.raises(TypingError, match="alignment must be a constant integer"):
        k[1, 1](np.zeros(1, np.uint64), 16)

"""Generated C++ keeps Python's grouping where an operand is a looser C++ expression than the operator around it:
``range(n & 6)``'s bound, a non-constant step's sign test, ``bool(v & 4)`` (``!= 0`` binds tighter than ``&`` in
C++), a vote's predicate ``x & (1 << i)`` (a stream-compaction kernel's warp scan). Checked against Python."""
import numpy as np

from cudajit import cuda


@cuda.jit
def loops_and_truth(x, out, flags):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        c = 0
        for _ in range(v & 6):
            c += 1
        out[i, 0] = c
        c = 0
        for _ in range(0, v | 1, (v & 3) + 1):          # a run-time step: its sign picks the test
            c += 1
        out[i, 1] = c
        c = 0
        for _ in range(v ^ 5, 0, -(v & 3) - 1):
            c += 1
        out[i, 2] = c
        out[i, 3] = bool(v & 4)
        flags[i] = v & 8                                 # stored into a boolean array: converted as bool()
        out[i, 4] = 1 if v & 16 else 0


def test_bitwise_operands_of_range_bool_and_stores(backend, rng):
    x = rng.integers(0, 64, 200).astype(np.int32)
    out = np.zeros((200, 5), np.int64)
    flags = np.zeros(200, np.bool_)
    loops_and_truth[4, 64](x, out, flags)
    v = x.astype(np.int64)
    expect = np.stack([v & 6,
                       [len(range(0, int(a) | 1, (int(a) & 3) + 1)) for a in v],
                       [len(range(int(a) ^ 5, 0, -(int(a) & 3) - 1)) for a in v],
                       (v & 4) != 0, (v & 16) != 0], axis=1)
    np.testing.assert_array_equal(out, expect)
    np.testing.assert_array_equal(flags, (v & 8) != 0)


@cuda.jit
def warp_scan_bits(counts, out):
    lane = cuda.threadIdx.x
    if lane < counts.size:
        total = 0
        for bit in range(6):                             # each lane's count, one bit-plane vote at a time
            b = cuda.ballot_sync((1 << counts.size) - 1, counts[lane] & (1 << bit))
            total += cuda.popc(b & ((1 << lane) - 1)) << bit
        out[lane] = total                                # the exclusive prefix sum of counts
        out[counts.size + lane] = cuda.any_sync(0xFFFFFFFF, counts[lane] & 32)


def test_vote_predicate_is_a_bitwise_expression(backend, rng):
    counts = rng.integers(0, 64, 32).astype(np.int32)
    out = np.zeros(64, np.int64)
    warp_scan_bits[1, 32](counts, out)
    np.testing.assert_array_equal(out[:32], np.concatenate([[0], np.cumsum(counts)[:-1]]))
    np.testing.assert_array_equal(out[32:], np.full(32, ((counts & 32) != 0).any()))

"""Warp collectives: shuffles, votes, ballot, match, activemask and lanemask_lt, typed as numba-cuda types them
(votes are bool, ballot and match_any int32, shuffles keep int32/int64/float32/float64), on every backend."""
import numpy as np
import pytest

from cudajit import cuda
from cudajit.errors import TypingError

FULL = 0xffffffff


@cuda.jit
def warp_sum(x, out):
    i = cuda.grid(1)
    s = x[i]
    off = 16
    while off > 0:
        s += cuda.shfl_down_sync(FULL, s, off)        # tree reduction: lane 0 ends with the warp's sum
        off //= 2
    if cuda.laneid == 0:
        out[i // 32] = s


@cuda.jit
def shuffles(x, out):
    i = cuda.grid(1)
    v = x[i]
    out[i, 0] = cuda.shfl_sync(FULL, v, 5)            # broadcast lane 5
    out[i, 1] = cuda.shfl_up_sync(FULL, v, 3)         # lanes below 3 keep their own value
    out[i, 2] = cuda.shfl_down_sync(FULL, v, 7)       # lanes above 24 keep their own value
    out[i, 3] = cuda.shfl_xor_sync(FULL, v, 6)


@cuda.jit
def votes(x, flags, masks):
    i = cuda.grid(1)
    v = x[i]
    flags[i, 0] = cuda.all_sync(FULL, v > -3.0)
    flags[i, 1] = cuda.any_sync(FULL, v > 1.5)
    flags[i, 2] = cuda.eq_sync(FULL, v > 0)
    masks[i, 0] = cuda.ballot_sync(FULL, v > 0)
    masks[i, 1] = cuda.match_any_sync(FULL, int(v > 0))
    m, same = cuda.match_all_sync(FULL, i // 64)      # warps of one block: every lane agrees
    masks[i, 2] = m
    flags[i, 3] = same
    masks[i, 3] = cuda.lanemask_lt()
    masks[i, 4] = cuda.selp(v > 0, 1, -1)


@cuda.jit
def active(out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = cuda.activemask()


def _lanes(a):
    return a.reshape(-1, 32)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.float64])
def test_warp_sum_by_shuffles(backend, rng, dtype):
    x = (rng.standard_normal(128) * 100).astype(dtype)
    out = np.zeros(4, dtype)
    warp_sum[2, 64](x, out)
    ref = _lanes(x).astype(np.float64).sum(axis=1)
    if np.dtype(dtype).kind == "i":
        np.testing.assert_array_equal(out, ref.astype(dtype))
    else:
        np.testing.assert_allclose(out, ref, rtol=1e-5 if dtype == np.float32 else 1e-13)


def test_shuffle_patterns(backend, rng):
    x = rng.standard_normal(64)
    out = np.zeros((64, 4))
    shuffles[1, 64](x, out)
    lanes = np.arange(32)
    for w, xw in enumerate(_lanes(x)):
        ow = out[32 * w:32 * w + 32]
        np.testing.assert_array_equal(ow[:, 0], np.full(32, xw[5]))
        np.testing.assert_array_equal(ow[:, 1], np.where(lanes >= 3, xw[lanes - 3], xw))
        np.testing.assert_array_equal(ow[:, 2], np.where(lanes + 7 < 32, xw[np.minimum(lanes + 7, 31)], xw))
        np.testing.assert_array_equal(ow[:, 3], xw[lanes ^ 6])


def _bits(pred):
    return int(sum(1 << k for k, p in enumerate(pred) if p))


def _as_int32(m):
    return m - (1 << 32) if m >= 1 << 31 else m


def test_votes_ballot_and_match(backend, rng):
    x = rng.standard_normal(128)
    x[64:96] = np.abs(x[64:96]) + 0.1                 # a warp where every predicate agrees
    flags = np.zeros((128, 4), np.bool_)
    masks = np.zeros((128, 5), np.int64)
    votes[2, 64](x, flags, masks)
    lanes = np.arange(32)
    for w, xw in enumerate(_lanes(x)):
        f, m = flags[32 * w:32 * w + 32], masks[32 * w:32 * w + 32]
        assert (f[:, 0] == (xw > -3.0).all()).all()
        assert (f[:, 1] == (xw > 1.5).any()).all()
        assert (f[:, 2] == ((xw > 0).all() or (xw <= 0).all())).all()
        ballot = _bits(xw > 0)
        np.testing.assert_array_equal(m[:, 0], _as_int32(ballot))          # int32, as numba-cuda types it
        groups = np.where(xw > 0, ballot, _bits(xw <= 0))
        np.testing.assert_array_equal(m[:, 1], [_as_int32(g) for g in groups])
        np.testing.assert_array_equal(m[:, 2], -1)
        assert f[:, 3].all()
        np.testing.assert_array_equal(m[:, 3], (1 << lanes) - 1)
        np.testing.assert_array_equal(m[:, 4], np.where(xw > 0, 1, -1))


def test_activemask_of_a_partial_warp(backend):
    out = np.zeros(40, np.int64)
    active[1, 40](out)                                # the second warp has 8 lanes
    np.testing.assert_array_equal(out[:32], 0xffffffff)
    np.testing.assert_array_equal(out[32:], 0xff)


@cuda.jit
def active_by_branch(x, out):
    i = cuda.grid(1)
    if i >= x.size:
        return                                        # exited lanes are not active
    if x[i] > 0:
        out[i] = cuda.activemask()
    else:
        out[i] = cuda.activemask()


def test_activemask_in_divergent_branches_names_the_lanes_of_the_branch(backend, rng):
    """As on the GPU: the lanes that took the same branch (numba-cuda's test_activemask, even against odd lanes)."""
    n = 90                                            # three warps, the last partial, lanes 90..95 exited
    x = rng.standard_normal(n)
    x[:32] = np.where(np.arange(32) % 2 == 0, 1.0, -1.0)
    out = np.zeros(n, np.int64)
    active_by_branch[1, 96](x, out)
    want = np.zeros(n, np.int64)
    for w in range(0, n, 32):
        lanes = np.arange(w, min(w + 32, n))
        for taken in (x[lanes] > 0, ~(x[lanes] > 0)):
            mask = int(np.sum(1 << (lanes[taken] - w).astype(np.int64)))
            want[lanes[taken]] = mask
    assert out[0] == 0x55555555 and out[1] == 0xAAAAAAAA
    np.testing.assert_array_equal(out, want)


@cuda.jit(device=True)
def _aggregated_slot(counter):
    mask = cuda.activemask()                           # the lanes that take the branch with this thread
    leader = cuda.ffs(mask) - 1
    base = 0
    if cuda.laneid == leader:
        base = cuda.atomic.add(counter, 0, cuda.popc(mask))
    base = cuda.shfl_sync(mask, base, leader)
    return base + cuda.popc(mask & ((1 << cuda.laneid) - 1))


@cuda.jit
def compact_positive(x, out, counter):
    i = cuda.grid(1)
    if i < x.size and x[i] > 0:
        out[_aggregated_slot(counter)] = x[i]


def test_warp_aggregated_atomics_compact_an_array(backend, rng):
    """One atomic per warp for the lanes in a branch (activemask, ffs, popc, shfl_sync): every positive value once."""
    x = rng.standard_normal(5000)
    out = np.zeros_like(x)
    counter = np.zeros(1, np.int32)
    compact_positive[(x.size + 127) // 128, 128](x, out, counter)
    want = np.sort(x[x > 0])
    assert counter[0] == want.size
    np.testing.assert_array_equal(np.sort(out[:counter[0]]), want)


@cuda.jit
def aggregate_in_a_loop(flags, out, counter):
    # A BFS flood fill's enqueue: the same warp-aggregated append, reached in a loop by changing groups of lanes,
    # so each lane takes part in a different number of collectives (the CPU backend once read a lane's value from
    # the wrong round, and two lanes took one slot)
    i = cuda.grid(1)
    for r in range(3):
        for d in range(flags.shape[1]):
            if i < flags.shape[0] and flags[i, d]:
                out[_aggregated_slot(counter)] = (r * flags.shape[0] + i) * flags.shape[1] + d


@cuda.jit
def shuffles_of_changing_groups(x, out):
    lane = cuda.threadIdx.x
    v = x[lane]
    if lane < 16:
        out[lane, 0] = cuda.shfl_sync(0xFFFF, v, 3)        # half the warp: lanes 0-15 exchange once more
    if lane % 3 == 0:
        out[lane, 1] = cuda.shfl_sync(0x49249249, v * 2, (lane + 3) % 30)
    out[lane, 2] = cuda.shfl_sync(FULL, v, (lane + 1) % 32)
    out[lane, 3] = cuda.ballot_sync(FULL, v > 0)


def test_collectives_of_lanes_that_took_part_in_different_collectives(backend, rng):
    flags = rng.random((300, 4)) < 0.5
    out = np.full(flags.size * 3, -1, np.int64)
    counter = np.zeros(1, np.int32)
    aggregate_in_a_loop[3, 128](flags, out, counter)
    want = [(r * 300 + i) * 4 + d for r in range(3) for i, d in zip(*np.nonzero(flags))]
    assert counter[0] == len(want)
    np.testing.assert_array_equal(np.sort(out[:counter[0]]), np.sort(want))

    x = rng.integers(-50, 50, 32)
    got = np.zeros((32, 4), np.int64)
    shuffles_of_changing_groups[1, 32](x, got)
    lanes = np.arange(32)
    np.testing.assert_array_equal(got[:16, 0], np.full(16, x[3]))
    third = lanes % 3 == 0
    np.testing.assert_array_equal(got[third, 1], 2 * x[(lanes[third] + 3) % 30])
    np.testing.assert_array_equal(got[:, 2], x[(lanes + 1) % 32])
    ballot = np.array([np.sum((x > 0).astype(np.uint64) << lanes.astype(np.uint64))], np.uint64)
    np.testing.assert_array_equal(got[:, 3], np.full(32, ballot.astype(np.uint32).view(np.int32)[0]))


@cuda.jit
def partial_votes(x, masks):
    i = cuda.grid(1)
    masks[i, 0] = cuda.ballot_sync(FULL, x[i] > 0)
    masks[i, 1] = cuda.match_any_sync(FULL, x[i] > 0)
    m, same = cuda.match_all_sync(FULL, i // 64)
    masks[i, 2] = m if same else -2


def test_ballot_and_match_of_a_partial_warp(backend, rng):
    """A full mask in a warp of 10 lanes: lanes past the block's end neither vote nor match (numba-cuda's tests)."""
    x = rng.standard_normal(42)
    masks = np.zeros((42, 3), np.int64)
    partial_votes[1, 42](x, masks)
    tail = x[32:] > 0
    ballot = _bits(tail)
    np.testing.assert_array_equal(masks[32:, 0], ballot)
    np.testing.assert_array_equal(masks[32:, 1], np.where(tail, ballot, _bits(~tail)))
    np.testing.assert_array_equal(masks[32:, 2], (1 << 10) - 1)
    np.testing.assert_array_equal(masks[:32, 0], _as_int32(_bits(x[:32] > 0)))


@pytest.mark.parametrize("mask_dtype, pred_dtype, message", [
    (np.float32, np.int32, "Mask type must be an integer, not float32"),
    (np.bool_, np.int32, "Mask type must be an integer, not bool"),
    (np.uint32, np.float64, "Predicate must be an integer or boolean, not float64"),
])
def test_vote_arguments_typed_as_numba_cuda(backend, mask_dtype, pred_dtype, message):
    @cuda.jit
    def vote(mask, pred, out):
        i = cuda.grid(1)
        out[i] = cuda.all_sync(mask[i], pred[i]) + cuda.ballot_sync(mask[i], pred[i])

    with pytest.raises(TypingError, match=r"test_kernels_warp.py:\d+: cuda.all_sync: " + message):
        vote[1, 32](np.ones(32, mask_dtype), np.ones(32, pred_dtype), np.zeros(32, np.int64))


def test_vote_with_integer_predicates(backend, rng):
    @cuda.jit
    def vote(mask, pred, out):
        i = cuda.grid(1)
        out[i, 0] = cuda.all_sync(mask[i], pred[i])
        out[i, 1] = cuda.ballot_sync(mask[i], pred[i])

    pred = rng.integers(0, 3, 32).astype(np.int64)
    out = np.zeros((32, 2), np.int64)
    vote[1, 32](np.full(32, FULL, np.uint64), pred, out)
    np.testing.assert_array_equal(out[:, 0], (pred != 0).all())
    np.testing.assert_array_equal(out[:, 1], _as_int32(_bits(pred != 0)))


@cuda.jit
def histogram_then_tree(values, n, hist, lane_counts, steps):
    # A rule learner's per-column histogram (match_any_sync in chunks of 32, the last chunk partial: its idle lanes go
    # on to the syncwarp()), then a shfl_down tree over the warp. The idle lanes must wait at their syncwarp() until
    # the busy ones reach theirs, not go on when those reach match_any_sync (a different call).
    tid = cuda.threadIdx.x
    count = 0
    for start in range(0, n, 32):
        active = start + tid < n
        busy = cuda.ballot_sync(0xffffffff, active)
        if active:
            v = values[start + tid]
            same = cuda.match_any_sync(busy, v)
            if same & ((1 << tid) - 1) == 0:
                count += cuda.popc(same)
                hist[v] += cuda.popc(same)
        cuda.syncwarp()
    lane_counts[tid] = count
    k = 0
    for offset in (16, 8, 4, 2, 1):
        count += cuda.shfl_down_sync(0xffffffff, count, offset)
        steps[k, tid] = count
        k += 1


@pytest.mark.parametrize("n", [150, 181, 64])
def test_idle_lanes_wait_at_their_syncwarp_not_at_another_collective(backend, rng, n):
    values = rng.integers(0, 37, n)
    hist = np.zeros(37, np.int64)
    lane_counts = np.zeros(32, np.int64)
    steps = np.zeros((5, 32), np.int64)
    histogram_then_tree[1, 32](values, n, hist, lane_counts, steps)
    np.testing.assert_array_equal(hist, np.bincount(values, minlength=37))
    assert lane_counts.sum() == n
    v = lane_counts.copy()
    for k, offset in enumerate((16, 8, 4, 2, 1)):
        v = v + np.array([v[i + offset] if i + offset < 32 else v[i] for i in range(32)])
        np.testing.assert_array_equal(steps[k], v)          # every lane, every step: a tree of this step's values
    assert steps[4, 0] == n


@cuda.jit
def tail_exits_then_reduces(n, out):
    # lanes past n exit; the rest reduce with a full mask (a poker simulation's per-block tally): reading an exited
    # lane is undefined on the GPU
    i = cuda.grid(1)
    if i >= n:
        return
    v = i + 1
    for offset in (16, 8, 4, 2, 1):
        v += cuda.shfl_down_sync(0xffffffff, v, offset)
    if cuda.laneid == 0:
        cuda.atomic.add(out, 0, v)


def test_exited_lanes_read_as_zero_on_the_cpu(backend):
    if backend == "gpu":
        pytest.skip("a lane that exited gives an undefined value on the GPU")
    for _ in range(3):                  # earlier blocks' and launches' values must not leak in
        out = np.zeros(1, np.int64)
        tail_exits_then_reduces[8, 64](300, out)
        assert out[0] == 300 * 301 // 2

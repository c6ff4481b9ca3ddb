"""The fixed frame every generated program runs in: its parameters (input arrays and scalars of many types, its
own output slots) and how the inputs are made. One place, read by the generator, the batch builder, the oracle and
the backends alike."""
import numpy as np

THREADS_PER_BLOCK = 16
BLOCKS = 2
THREADS = THREADS_PER_BLOCK * BLOCKS
SLOTS = 3                                   # output slots per program and thread, per output array

# (name, dtype, shape): read-only inputs every program receives
INPUT_ARRAYS = [("ia", "int32", (64,)), ("ib", "int64", (64,)), ("ic", "uint8", (64,)), ("iu", "uint64", (32,)),
                ("ih", "int16", (32,)), ("iw", "uint32", (32,)), ("fa", "float32", (64,)),
                ("fb", "float64", (64,)), ("fm", "float64", (8, 8)), ("za", "complex128", (16,)),
                ("zb", "complex64", (16,)), ("ba", "bool", (32,))]
# (name, numba type): scalar arguments
INPUT_SCALARS = [("sn", "int64"), ("sk", "int32"), ("sx", "float32"), ("sy", "float64"), ("su", "uint64"),
                 ("sb", "bool")]
# (name, dtype): per-program outputs, each (SLOTS, THREADS), written only at [slot, t]
OUTPUTS = [("oi", "int64"), ("of", "float64"), ("o8", "int8"), ("o4", "float32"), ("oz", "complex128")]
RESULT_KIND = {"bool": "ri", "float32": "rf", "float64": "rf", "complex64": "rc", "complex128": "rc"}
RESULTS = [("ri", "int64"), ("rf", "float64"), ("rc", "complex128")]


def result_array(ty):
    return RESULT_KIND.get(ty, "ri")


def param_names():
    return ["t"] + [n for n, _, _ in INPUT_ARRAYS] + [n for n, _ in INPUT_SCALARS] + [n for n, _ in OUTPUTS]


def _np(dtype):
    return np.dtype("bool" if dtype == "bool" else dtype)


def make_inputs(rng):
    """Random inputs with edge values mixed in: (arrays dict, scalars dict) of NumPy values."""
    arrays = {}
    for n, dt, shape in INPUT_ARRAYS:
        size = int(np.prod(shape))
        if dt == "bool":
            a = rng.random(size) < 0.5
        elif dt.startswith("complex"):
            a = (rng.normal(0, 4, size) + 1j * rng.normal(0, 4, size)).round(2)
        elif dt.startswith("float"):
            a = rng.normal(0, 10, size).round(rng.integers(0, 4))
            edges = np.array([0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 1e30, -1e-30, 3.0e38, 1e-40, 100.0, -7.5])
            k = rng.random(size) < 0.2
            a[k] = rng.choice(edges, k.sum())
        else:
            info = np.iinfo(_np(dt))
            a = rng.integers(-50 if info.min < 0 else 0, 50, size)
            edges = np.array([info.min, info.max, 0, 1, info.max // 2 + 1, -1 if info.min < 0 else 2], dtype=object)
            k = rng.random(size) < 0.2
            a = a.astype(object)
            a[k] = rng.choice(edges, k.sum())
        arrays[n] = np.array(a.tolist() if a.dtype == object else a, dtype=_np(dt)).reshape(shape)
    scalars = {"sn": np.int64(rng.integers(-20, 20)), "sk": np.int32(rng.integers(-2**31, 2**31 - 1)),
               "sx": np.float32(rng.normal(0, 5)), "sy": float(rng.normal(0, 100)),
               "su": np.uint64(rng.integers(0, 2**63)) * np.uint64(2) + np.uint64(1), "sb": bool(rng.random() < 0.5)}
    return arrays, scalars


def make_outputs(nprog):
    outs = {n: np.zeros((nprog, SLOTS, THREADS), dtype=_np(dt)) for n, dt in OUTPUTS}
    res = {n: np.zeros((nprog, THREADS), dtype=_np(dt)) for n, dt in RESULTS}
    return outs, res

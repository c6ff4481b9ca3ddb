"""The seeds' kernels, written once and compiled by both cudajit and numba-cuda in the benchmarks
(``make(cuda, float32)`` returns them bound to either library's ``cuda`` module)."""

TPB = 16


def make(cuda, float32):
    @cuda.jit
    def add(a, b, c):
        i = cuda.grid(1)
        if i < c.size:
            c[i] = a[i] + b[i]

    @cuda.jit
    def naive_mm(A, B, C):
        row, col = cuda.grid(2)
        if row < C.shape[0] and col < C.shape[1]:
            tmp = float32(0.)
            for k in range(A.shape[1]):
                tmp += A[row, k] * B[k, col]
            C[row, col] = tmp

    @cuda.jit
    def tiled_mm(A, B, C):
        sA = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
        sB = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
        x, y = cuda.grid(2)
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        bpg = cuda.gridDim.x
        tmp = float32(0.)
        for i in range(bpg):
            sA[ty, tx] = 0
            sB[ty, tx] = 0
            if y < A.shape[0] and (tx + i * TPB) < A.shape[1]:
                sA[ty, tx] = A[y, tx + i * TPB]
            if x < B.shape[1] and (ty + i * TPB) < B.shape[0]:
                sB[ty, tx] = B[ty + i * TPB, x]
            cuda.syncthreads()
            for j in range(TPB):
                tmp += sA[ty, j] * sB[j, tx]
            cuda.syncthreads()
        if y < C.shape[0] and x < C.shape[1]:
            C[y, x] = tmp

    @cuda.jit
    def empty3(a, b, c):
        pass

    return add, naive_mm, tiled_mm, empty3


def make_reduction(cuda, float32, block=256):
    """The seeds' shared-memory reduction: each block sums its slice in shared memory (a barrier in
    every step of the tree), thread 0 adds the block's sum to the result atomically."""
    @cuda.jit
    def block_sum(a, out):
        buf = cuda.shared.array(block, dtype=float32)
        tid = cuda.threadIdx.x
        i = cuda.grid(1)
        buf[tid] = a[i] if i < a.size else float32(0)
        cuda.syncthreads()
        s = block // 2
        while s > 0:
            if tid < s:
                buf[tid] += buf[tid + s]
            cuda.syncthreads()
            s //= 2
        if tid == 0:
            cuda.atomic.add(out, 0, buf[0])

    return block_sum

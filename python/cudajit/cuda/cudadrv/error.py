"""``numba.cuda.cudadrv.error``: cudajit's exceptions under numba-cuda's names."""
from ...errors import CudaAPIError, CudaSupportError, NvrtcError  # noqa: F401

# numba-cuda's base of the driver's errors; every failed driver call raises CudaAPIError here
CudaDriverError = CudaAPIError

"""``numba.cuda.cudadrv``'s import paths, for programs that name its classes there
(``isinstance(x, numba.cuda.cudadrv.devicearray.DeviceNDArray)``, ``except numba.cuda.cudadrv.driver.CudaAPIError``).

Each module holds cudajit's own objects under numba-cuda's names, and only those that have a counterpart here:
numba-cuda's ctypes driver object and its other internals are left out.
"""
from . import devicearray, devices, driver, error, linkable_code, runtime  # noqa: F401

"""``numba.cuda.cudadrv.devicearray``: the device array classes and constructors, as cudajit has them."""
from ..arrays import ManagedNDArray, MappedNDArray  # noqa: F401
from ..devicearray import DeviceNDArray


def from_array_like(ary, stream=0, gpu_data=None):
    """An uninitialised device array with ``ary``'s shape, strides and dtype (or viewing ``gpu_data``)."""
    return DeviceNDArray(ary.shape, ary.strides, ary.dtype, stream=stream, gpu_data=gpu_data)

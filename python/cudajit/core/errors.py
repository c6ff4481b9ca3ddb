"""``numba.core.errors`` by its path: ``from cudajit.core.errors import TypingError`` is cudajit.errors'
class (the same object)."""
from ..errors import (CompileError, CudaAPIError, CudaJitError, CudaSupportError, DeprecationError,  # noqa: F401
                      KernelRuntimeError, LaunchError, LiteralTypingError, LoweringError, NumbaDeprecationWarning,
                      NumbaError, NumbaNotImplementedError, NumbaPerformanceWarning, NumbaTypeError,
                      NumbaValueError, NumbaWarning, NvrtcError, RequireLiteralValueError, TypingError, UnsupportedError)

"""The compiler: Python kernels (their ``ast``) -> CUDA C++ for NVRTC and the host C++ compiler.

Interface (docs/INTERNALS.md, "Compiler <-> user API"): ``types``, ``typeof``, ``parse_signature``,
``compile_kernel``, ``compile_device``, ``CompileOptions``, ``typeconv`` (overload resolution, for eager signatures).
"""
from . import typeconv, types
from .typeof import typeof
from .signatures import parse_signature
from .program import CompileOptions, KernelSource, ParamSpec, compile_kernel, compile_device

__all__ = ["types", "typeconv", "typeof", "parse_signature", "compile_kernel", "compile_device", "CompileOptions",
           "KernelSource", "ParamSpec"]

"""Explicit signatures: ``"void(float32[:], int32)"``, lists of them, ``Signature`` objects or tuples of types."""
from . import types as T
from ..errors import TypingError

# Names a signature string may use: every type name and alias in types.py, plus Numba's spellings.
_NAMESPACE = {k: v for k, v in vars(T).items() if isinstance(v, T.Type)}
_NAMESPACE.update({"Array": T.Array, "UniTuple": T.UniTuple, "Tuple": T.Tuple, "none": T.none, "CPointer": T.CPointer})


def parse_signature(sig):
    """One signature or a list of them -> a Signature or a list of Signatures. A bare tuple of argument
    types gives a signature with no return type given (``None``), as Numba's ``cuda.jit((float32[:],))``."""
    if isinstance(sig, list):
        return [parse_signature(s) for s in sig]
    if isinstance(sig, T.Signature):
        return sig
    if isinstance(sig, tuple):
        return T.Signature(None, [_as_type(a, sig) for a in sig])
    if isinstance(sig, str):
        try:
            value = eval(sig, {"__builtins__": {}}, dict(_NAMESPACE))   # names limited to types
        except Exception as exc:
            raise TypingError(f"cannot parse signature {sig!r}: {exc}") from None
        if isinstance(value, T.Type):                 # "float32[:]": a one-argument form is not a signature
            raise TypingError(f"signature {sig!r} has no argument list: write e.g. 'void({sig})'")
        return parse_signature(value)
    raise TypingError(f"cannot use {sig!r} as a signature: give e.g. 'void(float32[:], int32)'")


def _as_type(t, sig):
    if isinstance(t, T.Type):
        return t
    if isinstance(t, str):
        return parse_signature(f"void({t})").args[0]
    conv = T.from_dtype(t) if t is not None else None
    if conv is None:
        raise TypingError(f"signature {sig!r}: {t!r} is not a type")
    return conv

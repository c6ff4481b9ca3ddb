"""CUDA graphs from the Numba API: capture the launches and copies issued on a stream, replay them.

numba-cuda has no graphs; the API follows PyTorch's ``torch.cuda.graph`` and CuPy's ``Graph.launch``::

    s = cuda.stream()
    with cuda.graph(s) as g:       # captured, nothing runs yet
        k1[grid, block, s](a, b)
        d.copy_to_host(h, stream=s)
    g.launch()                      # on the capture stream, or g.launch(stream=other)

Capturing again into the same graph (``with cuda.graph(s, graph=g):`` or ``with g.capture(s):``) replaces its
work; when the new capture has the same shape (same kernels and copies in the same order, only arguments
differ) the instantiated graph is updated in place (``cuGraphExecUpdate``, ``g.updated`` is True), else it
is instantiated again. The graph keeps its kernels' argument arrays alive; keep the host arrays of captured
copies alive yourself (as with CUDA's own graphs).

What cannot be captured raises ``StreamCaptureError`` naming it, and the capture is ended with the stream
usable: NumPy arrays as kernel arguments (copied synchronously), copies to pageable host memory (use
``cuda.pinned_array``), anything on the default stream while a stream of its device is captured,
synchronizing, allocating on the captured stream. Launches on a stream that another library captures
(``cupy.cuda.Stream.begin_capture()``, ``torch.cuda.graph``; pass ``cuda.external_stream(ptr)``) are
recorded into that library's graph. The CPU backend records the launches and copies and replays them in
order, under the same rules.
"""
import contextlib

from .. import _backend, _core
from .streams import stream_handle


class Graph:
    """Work captured from a stream (``cuda.graph``); ``launch()`` replays it."""

    __slots__ = ("_core", "_stream")

    def __init__(self):
        self._core = _core.Graph()
        self._stream = None  # the stream of the last capture: launch()'s default

    @contextlib.contextmanager
    def capture(self, stream):
        """Capture what the block issues on ``stream`` (a ``cuda.stream()``, an external stream or a handle)
        into this graph, replacing its previous work. An exception in the block ends the capture, discards
        the graph and propagates; the stream is usable again."""
        handle = stream_handle(stream)
        _backend.current()  # settles the backend (and tells the core) before the capture starts
        self._core.begin(handle)
        try:
            yield self
        except BaseException:
            self._core.abort()
            raise
        self._core.end()
        self._stream = stream

    def launch(self, stream=None):
        """Run the captured work on ``stream`` (default: the stream it was captured from); asynchronous on the
        GPU unless a kernel of it was compiled with debug checks, which are read after the graph ran."""
        self._core.launch(stream_handle(self._stream if stream is None else stream))

    @property
    def nodes(self):
        """How many operations (kernel launches, copies, memsets) the graph holds."""
        return self._core.nodes

    @property
    def updated(self):
        """True when the last capture updated the instantiated graph in place instead of instantiating it."""
        return self._core.updated

    def __repr__(self):
        state = ("capturing" if self._core.capturing else f"{self.nodes} nodes" if self._core.ready
                 else "not captured")
        return f"<cudajit.cuda.Graph {state}>"


def graph(stream, graph=None):
    """``with cuda.graph(stream) as g:`` captures the launches and copies issued on ``stream`` into a new
    :class:`Graph` (or into ``graph``, updating it); ``g.launch()`` replays them."""
    if graph is None:
        graph = Graph()
    elif not isinstance(graph, Graph):
        raise TypeError(f"cuda.graph(stream, graph=...) takes a cuda.Graph, not {type(graph).__name__}")
    return graph.capture(stream)

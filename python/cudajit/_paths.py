"""Where the runtime headers live: inside the installed package, or the source tree's kernels/."""
import os

_here = os.path.dirname(os.path.abspath(__file__))


def include_dir():
    """The directory to pass as ``-I`` so that ``#include <cudajit/runtime.h>`` resolves."""
    installed = os.path.join(_here, "include")
    if os.path.isfile(os.path.join(installed, "cudajit", "runtime.h")):
        return installed
    source_tree = os.path.normpath(os.path.join(_here, "..", "..", "kernels"))
    if os.path.isdir(os.path.join(source_tree, "cudajit")):
        return source_tree
    return installed

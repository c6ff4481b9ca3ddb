"""Run a command with no CUDA toolkit visible: in a private mount namespace (``unshare -m``, needs
root or CAP_SYS_ADMIN) with an empty tmpfs over every /usr/local/cuda* and $CUDA_HOME, and the
environment variables that name a toolkit removed. Shared by tests/test_install.py and
tests/test_nvrtc.py; tools/device_hidden_toolkit.sh does the same in shell.
"""
import glob
import os
import shutil
import subprocess

def toolkit_dirs():
    dirs = set(glob.glob("/usr/local/cuda*")) | {os.environ.get(v) for v in ("CUDA_HOME", "CUDA_PATH")}
    return sorted({os.path.realpath(d) for d in dirs if d and os.path.isdir(d)})


def env_without_toolkit(**extra):
    """os.environ less what names a toolkit, and less CUDAJIT_CHECK_NVRTC (CI sets it; NVRTC may be
    gone with the toolkit): ``extra`` sets it again where a test wants it."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("CUDA_HOME", "CUDA_PATH", "LIBRARY_PATH", "LD_LIBRARY_PATH", "CPATH", "CUDAJIT_CHECK_NVRTC")}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if "cuda" not in p)
    env.update(extra)
    return env


def why_unavailable():
    """None when commands can run with the toolkit hidden, else why not."""
    if not shutil.which("unshare"):
        return "unshare is not installed"
    r = subprocess.run(["unshare", "-m", "sh", "-c", "mount -t tmpfs none /mnt"], capture_output=True, text=True)
    return None if r.returncode == 0 else f"unshare -m cannot mount here: {r.stderr.strip()}"


def run(argv, env, cwd=None, timeout=600):
    """subprocess.run(argv) with every toolkit directory hidden; a 97 exit means hiding failed."""
    hide = ["unshare", "-m", "bash", "-c",
            'n=$1; shift; for d in "${@:1:$n}"; do mount -t tmpfs cudajit-hidden "$d" || exit 97; done; '
            'shift "$n"; exec "$@"', "hide"]
    dirs = toolkit_dirs()
    r = subprocess.run(hide + [str(len(dirs))] + dirs + list(argv), env=env, cwd=cwd, timeout=timeout,
                       capture_output=True, text=True)
    assert r.returncode != 97, f"could not hide the toolkit: {r.stderr}"
    return r

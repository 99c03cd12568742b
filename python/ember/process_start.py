"""Process start-up: the command line ember's worker processes start with, and ember.init.

A process actor (isolation="process") is a worker process running ``python -m ember`` with
this interpreter and this package; it serves its driver over the socket ember hands it. The
driver tells the engine that command line when the package is imported.
"""

import os
import sys

from . import _ember

_LAUNCHER_SIZE_VARIABLES = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE")
_libraries = []
_started = False


def _package_parent():
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def worker_command():
    """The command line of a worker process: ``python -m ember --worker`` run by this
    interpreter, with this package first on its path and every library ember.load_udfs
    loaded."""
    bootstrap = (
        "import sys; sys.path.insert(0, %r); import runpy; "
        "runpy.run_module('ember', run_name='__main__', alter_sys=True)" % _package_parent()
    )
    argv = [sys.executable, "-c", bootstrap, "--worker"]
    for library in _libraries:
        argv += ["--load", library]
    return argv


def _under_launcher():
    for name in _LAUNCHER_SIZE_VARIABLES:
        value = os.environ.get(name, "")
        if value.isdigit() and int(value) > 1:
            return True
    return bool(os.environ.get("SLURM_STEP_ID")) and int(os.environ.get("SLURM_NTASKS", "1")) > 1


def init():
    """Starts ember in this process. Importing ember does it, except under ``mpirun`` (or
    ``srun``) with several ranks: there call ``ember.init()`` first thing in the script, as a
    C++ program calls ember::init. On rank 0 it returns once every rank has reported its
    resources; every other rank hosts the actors rank 0 places on it and exits when rank 0's
    script ends, without returning. Idempotent."""
    global _started
    _ember._init(worker_command())
    _started = True


def note_library(path):
    """Records a UDF library so that worker processes load it too."""
    _libraries.append(path)
    if _started:
        _ember._init(worker_command())


def start_as_driver():
    """Called at import: records the worker command line, unless this process is itself a
    worker (it serves from ember.__main__) or a rank under a launcher (ember.init)."""
    if "EMBER_WORKER_FD" in os.environ or _under_launcher():
        return
    init()

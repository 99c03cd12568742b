"""``python -m ember --worker``: the entry of a worker process that ember starts for process
actors (isolation="process"). It is not meant to be run by hand."""

import signal
import sys

from . import _ember


def main(argv):
    if "--worker" not in argv:
        print("python -m ember: ember starts this for its worker processes; use "
              "`import ember` in a program instead", file=sys.stderr)
        return 2
    # Ctrl-C in a terminal reaches the whole process group: the driver decides what stops.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for i, arg in enumerate(argv):
        if arg == "--load":
            _ember._load_udf_library(argv[i + 1])
    # Serves the driver over the inherited socket and exits; returns only when this process
    # was not started by a driver.
    _ember._init([sys.executable])
    print("python -m ember --worker: no driver started this process", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

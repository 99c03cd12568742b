"""UDF classes shared by the tests (a module, so that worker processes import it by name)."""

import os
import time

import numpy as np

import ember

# Constructions in this process, by class: thread actors construct here; process actors in
# their workers (whose counts this process never sees).
INITS = {}


def _count(name):
    INITS[name] = INITS.get(name, 0) + 1


class AddOne:
    def __init__(self, step=1):
        _count("AddOne")
        self.step = step

    def __call__(self, x):
        assert isinstance(x, ember.Series)
        return x.to_numpy() + self.step


class WhoAmI:
    """Returns the process id and an id of the instance, for every row."""

    def __init__(self):
        self.token = id(self)

    def __call__(self, x):
        return [os.getpid()] * len(x)


class FailOn:
    """Raises on any batch holding `bad`."""

    def __init__(self, bad):
        self.bad = bad

    def __call__(self, x):
        values = x.to_pylist()
        if self.bad in values:
            raise ValueError("cannot take %d" % self.bad)
        return values


class Sleepy:
    def __init__(self, seconds):
        self.seconds = seconds

    def __call__(self, x):
        time.sleep(self.seconds)
        return x.to_pylist()


class ExitOnce:
    """Kills its own worker process on the first call of each worker whose marker file does
    not exist yet (os._exit: no cleanup, as a crash)."""

    def __init__(self, marker):
        self.marker = marker

    def __call__(self, x):
        if not os.path.exists(self.marker):
            open(self.marker, "w").close()
            os._exit(7)
        return x.to_pylist()


class Embed:
    """A 2-D float32 array: an embedding of `dim` floats per row."""

    def __init__(self, dim):
        self.dim = dim

    def __call__(self, x):
        v = x.to_numpy().astype(np.float32)
        return np.stack([v * k for k in range(self.dim)], axis=1)

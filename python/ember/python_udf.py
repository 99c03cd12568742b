"""Stateful Python UDFs: the @ember.cls decorator, and the actor side that constructs each
class once per actor and calls it for every batch.

A decorated class is a :class:`ClassUdf`; calling it binds init args (a :class:`BoundUdf`,
nothing constructed); calling that on expressions gives an expression. The engine runs every
Python UDF as one registered C++ UDF class whose init args carry the Python class, its init
args and its return type, pickled by value with cloudpickle, so that a worker process (or
another rank) can rebuild it; in the driver's own process a thread actor takes the class from a
registry instead, so that its init args need not be picklable.
"""

import functools
import itertools
import os
import pickle
import sys
import threading
import weakref

from . import _ember

_SETTINGS = ("batch_size", "concurrency", "num_cpus", "num_gpus", "memory_bytes", "isolation",
             "max_retries", "on_error", "timeout", "max_concurrency", "max_failed_rows",
             "retry_backoff")

_registry = weakref.WeakValueDictionary()  # token -> _Binding, for actors of this process
_tokens = itertools.count(1)
_lock = threading.Lock()
_current = threading.local()  # .context: the ActorContext of the actor this thread runs


class ActorContext:
    """What an actor knows about itself (ember.actor_context() inside a UDF).

    Attributes:
      actor_id: 0 .. concurrency - 1 within its pool.
      gpu_ids: the GPUs this actor holds (distinct across actors; a process actor also sees
        them as CUDA_VISIBLE_DEVICES, renumbered from 0 by CUDA).
      num_cpus: the CPUs it reserved (0 when num_cpus was not set).
      memory_bytes: the memory it reserved.
    """

    __slots__ = ("actor_id", "gpu_ids", "num_cpus", "memory_bytes")

    def __init__(self, actor_id=0, gpu_ids=(), num_cpus=0.0, memory_bytes=0):
        self.actor_id = actor_id
        self.gpu_ids = tuple(gpu_ids)
        self.num_cpus = num_cpus
        self.memory_bytes = memory_bytes

    def __repr__(self):
        return "ActorContext(actor_id=%d, gpu_ids=%r, num_cpus=%g, memory_bytes=%d)" % (
            self.actor_id, self.gpu_ids, self.num_cpus, self.memory_bytes)


def actor_context():
    """The ActorContext of the actor running the calling code: call it in a UDF class's
    ``__init__`` (e.g. to pick its GPU: ``torch.device("cuda", ctx.gpu_ids[0])`` on a thread
    actor, ``"cuda:0"`` on a process actor, which sees only its own GPUs) or ``__call__``.
    Raises ember.InvalidArgument anywhere else."""
    context = getattr(_current, "context", None)
    if context is None:
        raise _ember.InvalidArgument(
            "ember.actor_context() is only available inside a UDF class's __init__ or __call__, "
            "while an actor runs it")
    return context


class RetryAfter(_ember.UdfError):
    """Raise it from a UDF's ``__call__`` to have the batch run again after ``seconds`` (a
    rate-limited or busy service): it counts as one of the UDF's max_retries, and the wait
    replaces retry_backoff's. Once the retries are spent the batch fails with ``message``
    under the UDF's on_error policy."""

    def __init__(self, seconds, message=None):
        if not seconds >= 0:
            raise _ember.InvalidArgument("RetryAfter needs seconds >= 0, got %r" % (seconds,))
        self.seconds = float(seconds)
        self.message = message or "asked to be retried after %g s" % self.seconds
        super().__init__(self.message)


def cls(_class=None, *, returns, batch_size=None, concurrency=None, num_cpus=None,
        num_gpus=None, memory_bytes=None, isolation="thread", max_retries=None,
        on_error=None, timeout=None, max_concurrency=None, max_failed_rows=None,
        retry_backoff=None, name=None):
    """Makes a class a stateful UDF, constructed once per actor and reused for every batch.

    The class's ``__init__`` runs once per actor (load a model there); its ``__call__`` runs
    for every batch, with one :class:`ember.Series` per argument expression, and returns a
    NumPy array, a list or a Series of as many rows (a 2-D float32 array for a
    ``fixed_size_list(float32(), n)`` result). Calling the decorated class binds its init args
    and constructs nothing; calling that on expressions (or column names) gives an
    expression::

        @ember.cls(returns=ember.int64(), concurrency=2)
        class Count:
            def __init__(self, word): self.word = word
            def __call__(self, text): return [t.count(self.word) for t in text.to_pylist()]

        df.with_column("n", Count("the")(col("text")))

    Arguments (None keeps the engine's default):
      returns: the ember.DataType of the result column (required).
      batch_size: most rows per call (default 4096).
      concurrency: actors in the pool (default 1), or (min, max) for an autoscaling pool.
      num_cpus, num_gpus, memory_bytes: what each actor reserves; a query whose pools do not
        fit fails before any work runs (ember.ResourceError).
      isolation: "thread" (actors share this interpreter; the GIL is taken only for the calls)
        or "process" (each actor a worker process with its own interpreter; the class is
        shipped by value with cloudpickle).
      max_retries: re-runs of a batch whose call raised, timed out or whose worker died.
      on_error: after retries, "raise" (default: the query fails with ember.UdfError), "null"
        (the failing rows get null) or "skip" (they are dropped); either way they are listed
        in QueryResult.rejected.
      timeout: seconds a call may take; past it the call fails (a process actor's worker is
        killed and replaced).
      max_concurrency: calls one actor serves at once (its __call__ must be thread-safe).
      max_failed_rows: under "null"/"skip", fail the query once more rows than this failed.
      retry_backoff: (initial, max) seconds between retries of a failed call.
      name: the UDF's name in stats and errors (default: the class's name).
    """
    settings = dict(batch_size=batch_size, concurrency=concurrency, num_cpus=num_cpus,
                    num_gpus=num_gpus, memory_bytes=memory_bytes, isolation=isolation,
                    max_retries=max_retries, on_error=on_error, timeout=timeout,
                    max_concurrency=max_concurrency, max_failed_rows=max_failed_rows,
                    retry_backoff=retry_backoff)

    def wrap(klass):
        if not isinstance(klass, type):
            raise _ember.InvalidArgument("@ember.cls decorates a class, not %r" % (klass,))
        return ClassUdf(klass, returns, settings, name or klass.__name__)

    return wrap if _class is None else wrap(_class)


def fn(_function=None, *, returns, batch_size=None, name=None):
    """Makes a plain function a stateless UDF: no actors, nothing constructed; the pipeline
    threads call it inline, taking the GIL for each batch (C++'s ``Udf::fn``)::

        @ember.fn(returns=ember.float64())
        def scaled(x):
            return x.to_numpy() * 2.5

        df.with_column("y", scaled(col("x")))

    It gets one :class:`ember.Series` per argument and returns a NumPy array, a list or a
    Series of as many rows, as a class UDF's ``__call__`` does. An exception it raises fails
    the query (ember.UdfError naming the UDF and its arguments). Use it for cheap, stateless
    work; anything with a costly set-up belongs in an :func:`ember.cls` class. Under mpirun a
    query that calls one runs on rank 0 (the function lives in the driver's process).

    Arguments: returns (the result's ember.DataType, required); batch_size (most rows per
    call; default: the batches the pipeline has); name (default: the function's name).
    """

    def wrap(function):
        if isinstance(function, type) or not callable(function):
            raise _ember.InvalidArgument("@ember.fn decorates a function, not %r" % (function,))
        return FunctionUdf(function, returns, batch_size,
                           name or getattr(function, "__name__", "udf"))

    return wrap if _function is None else wrap(_function)


class _FunctionCall:
    """What the engine calls for each batch of an @ember.fn function."""

    __slots__ = ("function", "returns", "name")

    def __init__(self, function, returns, name):
        self.function = function
        self.returns = returns
        self.name = name

    def __call__(self, num_rows, *series):
        result = self.function(*series)
        return _as_series(result, self.returns, num_rows, self.name)


def _launched_ranks():
    """How many ranks the launcher (mpirun, a PMI launcher, srun) started, as ember.init reads
    it; 1 when none did."""
    env = os.environ
    for size in ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE"):
        if env.get(size, "").isdigit():
            return int(env[size])
    if env.get("SLURM_STEP_ID") is not None and env.get("SLURM_NTASKS", "").isdigit():
        return int(env["SLURM_NTASKS"])
    return 1


def _function_payload(call):
    """The function, its return type and name, pickled by value with the driver's sys.path: the
    cluster runner rebuilds it on the other ranks (_load_function), so that a query calling it
    runs on every rank. None on one machine (nothing to pickle for), and when it cannot be
    pickled: such a query stays on rank 0."""
    if _launched_ranks() <= 1:
        return None
    try:
        import cloudpickle
        blob = cloudpickle.dumps((call.function, call.returns, call.name))
    except Exception:  # noqa: BLE001  (any pickling failure)
        return None
    return pickle.dumps((list(sys.path), blob))


def _load_function(payload):
    """Called by the engine (under the GIL) on another rank: the function _function_payload
    pickled, as the engine calls it for each batch."""
    path, blob = pickle.loads(payload)
    for entry in path:
        if entry not in sys.path:
            sys.path.append(entry)
    import cloudpickle  # noqa: F401  (cloudpickle's reducers)
    function, returns, name = pickle.loads(blob)
    return _FunctionCall(function, returns, name)


class FunctionUdf:
    """A function decorated with @ember.fn: call it on expressions (or column names)."""

    def __init__(self, function, returns, batch_size, name):
        self.function = function
        self.returns = returns
        self.name = name
        functools.update_wrapper(self, function, updated=())
        settings = {} if batch_size is None else {"batch_size": batch_size}
        call = _FunctionCall(function, returns, name)
        self._udf = _ember._function_udf(name, call, _function_payload(call),
                                         returns=returns, **settings)

    def __call__(self, *exprs):
        """The expression calling the function on `exprs` (column names or ember.Expr)."""
        return self._udf(*exprs)

    def __repr__(self):
        return "ember.fn(%s, returns=%r)" % (self.function.__qualname__, self.returns)


class ClassUdf:
    """A class decorated with @ember.cls. Call it with the class's init args to bind them."""

    def __init__(self, klass, returns, settings, name):
        self.cls = klass
        self.returns = returns
        self.settings = {k: v for k, v in settings.items() if v is not None}
        self.name = name
        functools.update_wrapper(self, klass, updated=())
        # Validated now, not when a query runs: a bad setting raises here.
        _ember._python_udf(name, b"", 0, None, returns=returns, **self.settings)

    def __call__(self, *args, **kwargs):
        """Binds init args; constructs nothing (each actor constructs its own instance)."""
        return BoundUdf(self, args, kwargs)

    def options(self, **changes):
        """The same UDF with some settings changed, e.g. Embed.options(concurrency=4)."""
        settings = dict(self.settings)
        returns = changes.pop("returns", self.returns)
        name = changes.pop("name", self.name)
        unknown = set(changes) - set(_SETTINGS)
        if unknown:
            raise _ember.InvalidArgument("unknown UDF setting(s): %s" % ", ".join(sorted(unknown)))
        settings.update(changes)
        return ClassUdf(self.cls, returns, settings, name)

    def __repr__(self):
        return "ember.cls(%s, returns=%r, %s)" % (
            self.cls.__qualname__, self.returns,
            ", ".join("%s=%r" % kv for kv in sorted(self.settings.items())))


class _Binding:
    """What a thread actor of this process constructs from: held by the engine's Udf while it
    lives (not by the BoundUdf alone, which may go first), found by token in _registry."""

    __slots__ = ("cls", "args", "kwargs", "returns", "__weakref__")

    def __init__(self, cls, args, kwargs, returns):
        self.cls = cls
        self.args = args
        self.kwargs = kwargs
        self.returns = returns


class BoundUdf:
    """A Python UDF class with its init args bound: call it on expressions."""

    def __init__(self, spec, args, kwargs):
        self.spec = spec
        self.args = args
        self.kwargs = kwargs
        self._udf = None

    def __call__(self, *exprs):
        """The expression calling the UDF on `exprs` (column names or ember.Expr)."""
        return self.udf()(*exprs)

    def udf(self):
        """The configured ember.Udf (built once, on first use)."""
        with _lock:
            if self._udf is None:
                token = next(_tokens)
                binding = _Binding(self.spec.cls, self.args, self.kwargs, self.spec.returns)
                _registry[token] = binding
                self._udf = _ember._python_udf(self.spec.name, self._payload(), token, binding,
                                               returns=self.spec.returns, **self.spec.settings)
            return self._udf

    def _payload(self):
        """The class, its init args and return type, pickled by value, with the driver's
        sys.path (so that modules the class refers to import in a worker). Thread actors on one
        machine take them from the registry instead: nothing is pickled for them (a class in
        __main__ is pickled with every global it names, a loaded model say)."""
        if self.spec.settings.get("isolation", "thread") != "process" and _launched_ranks() <= 1:
            return pickle.dumps((list(sys.path), None))
        try:
            import cloudpickle
            blob = cloudpickle.dumps((self.spec.cls, self.args, self.kwargs, self.spec.returns))
        except Exception as e:  # noqa: BLE001  (any pickling failure)
            if self.spec.settings.get("isolation", "thread") == "process":
                raise _ember.InvalidArgument(
                    "UDF %s: isolation='process' ships the class and its init args to worker "
                    "processes with cloudpickle, which failed: %s: %s"
                    % (self.spec.name, type(e).__name__, e)) from e
            blob = None  # thread actors of this process use the registry
        return pickle.dumps((list(sys.path), blob))

    def __repr__(self):
        return "%s(%s)" % (self.spec.name, ", ".join(
            [repr(a) for a in self.args] + ["%s=%r" % kv for kv in self.kwargs.items()]))


class _Actor:
    """One actor's instance of the class, called by the engine for each batch."""

    __slots__ = ("instance", "returns", "name", "context")

    def __init__(self, instance, returns, name, context):
        self.instance = instance
        self.returns = returns
        self.name = name
        self.context = context

    def call(self, num_rows, *series):
        _current.context = self.context
        try:
            result = self.instance(*series)
        finally:
            _current.context = None
        return _as_series(result, self.returns, num_rows, self.name)


# References to a UDF's fresh result while _as_series looks at it: the caller's variable, this
# function's argument and sys.getrefcount's. One more means the UDF kept the array (to write
# into it again, say), so the engine must copy it rather than share its memory.
_FRESH_RESULT_REFS = 3


def _as_series(result, returns, num_rows, name):
    if not isinstance(result, (_ember.Series, list, tuple)) and hasattr(result, "__array__"):
        import numpy
        if hasattr(result, "detach"):  # a torch tensor
            result = result.detach().cpu()
        result = numpy.asarray(result)
    fresh = sys.getrefcount(result) <= _FRESH_RESULT_REFS  # before a call's arguments add one
    out = _ember._udf_result(result, returns, fresh)
    if len(out) != num_rows:
        raise ValueError("UDF %s returned %d rows for a batch of %d" % (name, len(out), num_rows))
    return out


def _construct_actor(payload, token, pid, actor):
    """Called by the engine (under the GIL) once per actor: builds the instance."""
    bound = _registry.get(token) if pid == os.getpid() else None
    if bound is not None:
        klass, args, kwargs, returns = bound.cls, bound.args, bound.kwargs, bound.returns
    else:
        path, blob = pickle.loads(payload)
        if blob is None:
            raise _ember.InvalidArgument(
                "this UDF's class or init args could not be pickled, so it can only run on "
                "thread actors of the process that defined it")
        for entry in path:
            if entry not in sys.path:
                sys.path.append(entry)
        import cloudpickle  # noqa: F401  (cloudpickle's reducers)
        klass, args, kwargs, returns = pickle.loads(blob)
    context = ActorContext(**actor)
    _current.context = context
    try:
        instance = klass(*args, **kwargs)
    finally:
        _current.context = None
    return _Actor(instance, returns, getattr(klass, "__name__", "udf"), context)

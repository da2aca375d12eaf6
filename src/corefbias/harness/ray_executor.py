"""``corefbias run --executor ray``: a benchmark's missing answers asked of a pool of Ray actors.

Each replica is a Ray actor that loads the model once from its spec and options (``load_model``, after
``extensions.include_from_environment()``, so kinds of ``--include`` folders and ``$COREFBIAS_INCLUDE``
load on workers too) and then answers batches through ``executors.ask``, the function a local run asks
through. This process (the driver) keeps everything else as a local run does: it reads the prediction
cache, cuts each part into the same calls of ``batch_size`` consecutive rows (the model's ``call_size``
when it batches itself, as ``hf:`` does, and no ``--batch-size`` is given; only the rows without a cached
answer go out), commits every call's answers to the cache as they come back (a killed driver loses only
the calls in flight, and the same command resumes), then scores and writes the outputs. A replica
answers exactly the rows a local run would have put in one model call, so even a model whose answers
depend on its batch (as padding can make a batched forward pass) answers alike, and a Ray run gives
exactly the results of a local run, whatever the number of replicas.

**GPUs**: each replica asks Ray for ``replica_gpus`` GPUs; by default one when the model's ``device`` option
names a GPU (``cuda``, or ``auto`` on a cluster with GPUs), else none. Ray gives each replica its own GPU
(``CUDA_VISIBLE_DEVICES``), so ``--replicas N --device cuda`` runs one ``hf:`` replica per GPU on N GPUs.

The driver loads no model: the identity that keys the cache and the results is the replicas', every
replica must report the same one (else the run is refused: a replica loaded something else), and every
answer comes back tagged with the digest of the identity that produced it, so a replica restarted onto
other weights is caught too. A ready-made ``model`` given to ``runner.run`` is the reference instead.
Loading nothing here matters for ``hf:``: the weights load once per replica, where the GPUs are, and
never on a driver that may have no GPU and too little memory.

Plain Ray actors, not Ray Data's ``map_batches`` with an actor pool, because:

* batches: Ray Data cuts its own blocks and batches; here the batches are the local run's, exactly;
* rows: Ray Data carries rows through Arrow (nested ``candidates`` become arrays, absent keys nulls);
  an actor call receives the rows as Python dicts, as ``executors.ask`` does locally;
* failures: Ray Data restarts actors and retries tasks without limit and waits for its pool without
  limit by default (``max_restarts=-1``, ``DataContext.wait_for_min_actors_s=-1``); here a replica whose
  model cannot load reports why at once (a ``ModelError``), a crashed replica is restarted and its
  batches retried ``max_restarts`` times, and replicas not up within ``start_timeout`` end the run;
* simplicity: between the driver and the replicas there is one ``ray.wait`` per batch and nothing else
  (0.97 of the ideal throughput per replica at 8 replicas: ``perf/scale_out.py``).

Each replica holds at most ``IN_FLIGHT`` batches, so it always has its next batch while the driver
commits the last one, and a killed driver loses little. Ray sets a replica's ``OMP_NUM_THREADS`` to its
``replica_cpus`` (torch's threads). ``model_seconds`` sums the replicas' time inside the model, so it can
exceed the wall time of the predictions.

Without an ``address`` (the default) nor ``$RAY_ADDRESS``, a new one-machine cluster starts on 127.0.0.1
for the run (never one an earlier ``ray start`` left running): no dashboard, Ray's usage statistics off
unless ``RAY_USAGE_STATS_ENABLED`` says otherwise, and loopback as the node's address
(``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``, which Ray reads when it is imported; without it Ray swaps
127.0.0.1 for the machine's outward address). With ``address`` (``auto``, ``HOST:PORT``, ``ray://...``)
the run joins that cluster (as 127.0.0.1 too when the address is 127.0.0.1 or localhost); a program that
has called ``ray.init`` itself keeps its connection, and an address naming another cluster is refused. The
model's files and ``--include`` folders must be at the same paths on every node.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ..models.base import ModelError, Task
from ..models.identity import digest
from ..models.registry import load_model, parse_spec
from .executors import Predictions, ask, cached_and_missing, model_identity
from .extensions import INCLUDE_ENV
from .prediction_cache import PredictionCache

IN_FLIGHT = 2  # batches a replica holds at once: the one it answers and the next


@dataclass(frozen=True)
class ReplicaModel:
    """What the driver knows of the model its replicas hold: enough to key the cache and the results."""

    name: str
    identity: dict
    uses_cloze_template: bool = False
    call_size: int | None = None  # the instances per call of a model that batches itself


class _Replica:
    """One replica: the model loaded in a Ray worker process, answering batches until the run ends.

    A model that cannot load is reported by ``describe`` (and by ``answer``, after a restart), never raised
    from ``__init__``: an actor whose constructor raises is dead for good, and its error reaches the driver
    only as a long traceback."""

    def __init__(self, spec: str, options: dict):
        from .extensions import include_from_environment

        self.pid = os.getpid()
        try:
            include_from_environment()
            self.model = load_model(spec, **options)
            self.identity = model_identity(self.model)
        except Exception as error:  # noqa: BLE001 — whatever stops the load is the driver's message
            self.model, self.failure = None, f"{type(error).__name__}: {error}"
            return
        self.failure = None
        self.digest = digest(self.identity)

    def describe(self) -> dict:
        if self.failure is not None:
            return {"failure": self.failure}
        import ray

        return {
            "name": self.model.name,
            "identity": self.identity,
            "cloze": bool(getattr(self.model, "uses_cloze_template", False)),
            "call_size": getattr(self.model, "call_size", None),
            "gpus": [str(gpu) for gpu in ray.get_gpu_ids()],
        }

    def answer(self, task: Task, rows: list[dict]) -> tuple[str, list, float]:
        if self.failure is not None:
            raise ModelError(f"a replica (pid {self.pid}) could not load its model: {self.failure}")
        started = time.perf_counter()
        outputs = ask(self.model, task, rows)
        return self.digest, outputs, time.perf_counter() - started


@dataclass(frozen=True)
class _Batch:
    """Rows of one part sent to a replica: the ids of those it answers, and the batch's full size."""

    part: tuple[str, str]
    ids: list[str]
    rows: list[dict]
    size: int


class _RaySession:
    def __init__(self, ray, actors: list, spec: str, model, reference: str, gpus: list[list[str]]):
        self.ray, self.actors, self.spec, self.model, self.reference = ray, actors, spec, model, reference
        self.gpus = gpus  # per replica, the ids of the GPUs Ray gave it

    def _batches(self, parts, keys, cache, reuse, batch_size, answers, advance) -> Iterator[_Batch]:
        """The batches to ask, cut as ``Dataset.map`` cuts them; those the cache answers whole are only counted."""
        for part, data in parts.items():
            for start in range(0, len(data), batch_size):
                batch = data[start : start + batch_size]
                found, missing_ids, rows = cached_and_missing(batch, keys[part], cache, reuse)
                answers[part].update(found)
                if rows:
                    yield _Batch(part, missing_ids, rows, len(batch["id"]))
                else:
                    advance(len(batch["id"]))

    def predict(self, parts, keys, task, cache: PredictionCache | None, *, reuse, batch_size, advance) -> Predictions:
        found = Predictions({})
        answers: dict[tuple[str, str], dict] = {part: {} for part in parts}
        work = self._batches(parts, keys, cache, reuse, batch_size, answers, advance)
        pending: dict = {}  # object ref → (replica index, batch)
        load = [0] * len(self.actors)

        def submit() -> None:
            while min(load) < IN_FLIGHT:
                batch = next(work, None)
                if batch is None:
                    return
                index = load.index(min(load))
                pending[self.actors[index].answer.remote(task, batch.rows)] = index, batch
                load[index] += 1

        submit()
        while pending:
            [ref], _ = self.ray.wait(list(pending), num_returns=1)
            index, batch = pending.pop(ref)
            load[index] -= 1
            answered, outputs, seconds = self._result(ref, index)
            if answered != self.reference:
                raise ModelError(
                    f"replica {index} of {self.spec} answered with another model (identity digest {answered[:12]}, "
                    f"the run's {self.reference[:12]}): it was restarted onto other files; refusing its answers"
                )
            # Through JSON, as a local run's outputs go (tuples become lists), so both runs score the same values.
            new = dict(zip(batch.ids, json.loads(json.dumps(outputs))))
            if cache is not None:
                cache.put(keys[batch.part], new)
            answers[batch.part].update(new)
            found.model_seconds += seconds
            found.predicted += len(new)
            advance(batch.size)
            submit()
        found.outputs = {part: [answers[part][instance] for instance in data["id"]] for part, data in parts.items()}
        return found

    def _result(self, ref, index: int) -> tuple[str, list, float]:
        try:
            return self.ray.get(ref)
        except self.ray.exceptions.RayTaskError as error:
            # The model's own exception (ModelError, ValueError...), as a local run raises it; the remote
            # traceback stays attached.
            raise (error.cause if error.cause is not None else ModelError(str(error))) from error
        except self.ray.exceptions.RayActorError as error:
            raise ModelError(
                f"replica {index} of {self.spec} died and could not be brought back, its batch retried as often as "
                f"it was restarted: {str(error).splitlines()[0]}"
            ) from error


@dataclass(frozen=True, kw_only=True)
class RayExecutor:
    """A pool of ``replicas`` Ray actors, each holding the model, answering a run's missing instances.

    Parameters
    ----------
    replicas : int
        Actors, each loading the model once.
    address : str or None
        The Ray cluster to join (``auto``, ``HOST:PORT``, ``ray://HOST:10001``); None: ``$RAY_ADDRESS`` (set for
        the driver of ``ray job submit``), else a one-machine cluster on 127.0.0.1 started for the run.
    replica_cpus : float
        CPUs per replica (torch's threads there); fractions share a CPU between replicas.
    replica_gpus : float or None
        GPUs per replica (fractions share a GPU); None: one where the model options' ``device`` names a GPU
        (``cuda``, ``cuda:N``, or ``auto`` on a cluster with GPUs), else none.
    include : tuple of str
        Folders of model declarations the replicas include, besides those of ``$COREFBIAS_INCLUDE``.
    max_restarts : int
        Times a replica whose process died is started again; its batches in flight are asked again.
    start_timeout : float
        Seconds to wait for every replica to have loaded its model (a cluster that cannot place them, a
        model that hangs while loading) before the run gives up.

    Examples
    --------
    >>> RayExecutor(replicas=4).settings()
    {'executor': 'ray', 'replicas': 4}
    >>> RayExecutor(replicas=0)
    Traceback (most recent call last):
    ...
    ValueError: replicas must be at least 1, got 0
    """

    replicas: int = 2
    address: str | None = None
    replica_cpus: float = 1.0
    replica_gpus: float | None = None
    include: tuple[str, ...] = ()
    max_restarts: int = 3
    start_timeout: float = 600.0

    def __post_init__(self):
        if not isinstance(self.replicas, int) or self.replicas < 1:
            raise ValueError(f"replicas must be at least 1, got {self.replicas!r}")
        if self.replica_cpus < 0 or (self.replica_gpus or 0) < 0:
            raise ValueError(
                f"replica resources cannot be negative: {self.replica_cpus} CPUs, {self.replica_gpus} GPUs"
            )
        if self.max_restarts < 0:
            raise ValueError(f"max_restarts cannot be negative, got {self.max_restarts}")

    def settings(self) -> dict:
        return {"executor": "ray", "replicas": self.replicas}

    @contextmanager
    def open(self, model_spec: str, model_options: dict, model=None) -> Iterator[_RaySession]:
        parse_spec(model_spec)  # a mistyped spec fails here, before a cluster starts
        # Ray's convention: a driver started by `ray job submit` (or on a configured node) finds its cluster there.
        address = self.address if self.address is not None else os.environ.get("RAY_ADDRESS") or None
        ray, started = self._connect(address)
        actors = []
        try:
            gpus = self._gpus_per_replica(ray, model_options)
            if started and address is None:
                self._check_fits(ray, gpus)
            options = {
                "num_cpus": self.replica_cpus,
                "num_gpus": gpus,
                "max_restarts": self.max_restarts,
                "max_task_retries": self.max_restarts,
            }
            env = self._replica_env()
            if env:
                options["runtime_env"] = {"env_vars": env}
            replica = ray.remote(**options)(_Replica)
            actors = [replica.remote(model_spec, model_options) for _ in range(self.replicas)]
            described = self._wait_ready(ray, actors, model_spec, gpus)
            reference = model_identity(model) if model is not None else described[0]["identity"]
            for index, description in enumerate(described):
                if digest(description["identity"]) != digest(reference):
                    raise ModelError(
                        f"replica {index} loaded another model than {'this process' if model else 'replica 0'} from "
                        f"{model_spec}: identity {description['identity']} instead of {reference}; the nodes must "
                        "hold the same files"
                    )
            first = described[0]
            driver_model = model
            if driver_model is None:
                driver_model = ReplicaModel(first["name"], reference, first["cloze"], first["call_size"])
            placed = [description["gpus"] for description in described]
            yield _RaySession(ray, actors, model_spec, driver_model, digest(reference), placed)
        finally:
            for actor in actors:
                ray.kill(actor, no_restart=True)
            if started:
                ray.shutdown()

    @staticmethod
    def _connect(address: str | None):
        """Ray, connected to ``address`` or to a new local cluster (and whether this call connected it, so the run
        disconnects it)."""
        if _on_loopback(address) and "ray" not in sys.modules:
            # Read once, when Ray is imported: without it Ray swaps 127.0.0.1 for the machine's outward address,
            # and a driver joining a loopback cluster looks for it there and waits forever.
            os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
        try:
            import ray
        except ImportError as error:
            raise ModelError("--executor ray needs Ray; install it with: pip install 'corefbias[ray]'") from error
        if address is not None:
            _check_reachable(address)
        if ray.is_initialized():
            _check_same_cluster(address, ray.get_runtime_context().gcs_address)
            return ray, False
        if address is None:
            os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
            # "local": a new cluster, never one an earlier `ray start` left running on this machine.
            ray.init(address="local", _node_ip_address="127.0.0.1", include_dashboard=False)
        else:
            ray.init(address=address)
        return ray, True

    def _gpus_per_replica(self, ray, model_options: dict) -> float:
        """``replica_gpus``, or by default one GPU where the model is to run on a GPU (see the class docstring)."""
        if self.replica_gpus is not None:
            return self.replica_gpus
        device = str(model_options.get("device", ""))
        wants = device.startswith("cuda") or (device == "auto" and ray.cluster_resources().get("GPU", 0) >= 1)
        return 1.0 if wants else 0.0

    def _check_fits(self, ray, gpus: float) -> None:
        """On the cluster this run started (no autoscaler to add nodes), refuse at once what cannot be placed."""
        have = ray.cluster_resources()
        for resource, each in (("CPU", self.replica_cpus), ("GPU", gpus)):
            if each * self.replicas > have.get(resource, 0):
                raise ValueError(
                    f"{self.replicas} replicas × {each:g} {resource} do not fit this machine's "
                    f"{have.get(resource, 0):g} {resource}s; ask fewer replicas, or a fraction per replica "
                    "(--replica-cpus 0.5)"
                )

    def _replica_env(self) -> dict[str, str]:
        folders = [folder for folder in os.environ.get(INCLUDE_ENV, "").split(os.pathsep) if folder]
        folders += [str(Path(folder).expanduser().resolve()) for folder in self.include]
        return {INCLUDE_ENV: os.pathsep.join(dict.fromkeys(folders))} if folders else {}

    def _wait_ready(self, ray, actors: list, spec: str, gpus: float) -> list[dict]:
        """Each replica's description once loaded; the first failure or the timeout ends the wait with a ModelError."""
        waiting = {actor.describe.remote(): index for index, actor in enumerate(actors)}
        described: dict[int, dict] = {}
        deadline = time.monotonic() + self.start_timeout
        while waiting:
            ready, _ = ray.wait(list(waiting), num_returns=1, timeout=max(0.0, deadline - time.monotonic()))
            if not ready:
                raise ModelError(
                    f"{len(waiting)} of {self.replicas} replicas of {spec} had not loaded the model after "
                    f"{self.start_timeout:g} s; each asks for {self.replica_cpus:g} CPU and {gpus:g} GPU, "
                    f"the cluster has {ray.cluster_resources()}"
                )
            index = waiting.pop(ready[0])
            try:
                description = ray.get(ready[0])
            except ray.exceptions.RayActorError as error:
                raise ModelError(
                    f"replica {index} of {spec} died while loading: {str(error).splitlines()[0]}"
                ) from error
            if "failure" in description:
                raise ModelError(f"replica {index} could not load {spec}: {description['failure']}")
            described[index] = description
        return [described[index] for index in range(len(actors))]


LOOPBACK_HOSTS = ("127.0.0.1", "localhost")
# How long a cluster's address may take to answer before the run says it cannot reach it: ray.init itself waits
# for ever on an address where nothing listens.
CONNECT_SECONDS = 10.0


def _check_reachable(address: str, timeout: float = CONNECT_SECONDS) -> None:
    """Refuse a cluster address (``host:port``, ``ray://host:port``) where nothing answers; ``auto`` is Ray's to find.

    Examples
    --------
    >>> _check_reachable("auto")  # Ray looks it up itself
    >>> _check_reachable("127.0.0.1:1", timeout=1.0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    corefbias.models.cluster_format.ModelError: cannot reach the Ray cluster at 127.0.0.1:1 (Connection refused); ...
    """
    host, port = _host_and_port(address)
    if not host or not port.isdigit():
        return
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except OSError as error:
        raise ModelError(
            f"cannot reach the Ray cluster at {address} ({error.strerror or error}); start it (ray start --head) or "
            "give the address its head node prints"
        ) from None


def _check_same_cluster(address: str | None, connected: str) -> None:
    """Refuse a ``HOST:PORT`` address other than the cluster this process is already connected to (``connected``).

    Ray keeps one connection per process: joining another cluster would silently run on the first one.

    Examples
    --------
    >>> _check_same_cluster("localhost:6379", "127.0.0.1:6379")
    >>> _check_same_cluster(None, "127.0.0.1:6379")  # no address asked for: the program's own connection
    >>> _check_same_cluster("127.0.0.1:6380", "127.0.0.1:6379")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    corefbias.models.cluster_format.ModelError: this process is already connected to the Ray cluster at ...
    """
    if address is None or "//" in address or ":" not in address:
        return  # ray://, auto: Ray resolves them; nothing to compare
    (host, port), (connected_host, connected_port) = _host_and_port(address), _host_and_port(connected)
    same_host = host == connected_host or (host in LOOPBACK_HOSTS and connected_host in LOOPBACK_HOSTS)
    if not (same_host and port == connected_port):
        raise ModelError(
            f"this process is already connected to the Ray cluster at {connected}, not {address}; call "
            "ray.shutdown() before the run, or leave the address out to run on that cluster"
        )


def _on_loopback(address: str | None) -> bool:
    """Whether the cluster is this machine's loopback one: a new local one, or one at 127.0.0.1 or localhost.

    Examples
    --------
    >>> addresses = (None, "127.0.0.1:6379", "ray://localhost:10001", "auto", "10.0.0.2:6379")
    >>> [_on_loopback(address) for address in addresses]
    [True, True, True, False, False]
    """
    return address is None or _host_and_port(address)[0] in LOOPBACK_HOSTS


def _host_and_port(address: str) -> tuple[str, str]:
    """The host and port of ``HOST:PORT`` or ``ray://HOST:PORT`` (``("", "auto")`` for ``auto``).

    Examples
    --------
    >>> _host_and_port("ray://localhost:10001"), _host_and_port("10.0.0.2:6379")
    (('localhost', '10001'), ('10.0.0.2', '6379'))
    """
    host, _, port = address.rpartition("//")[2].rpartition(":")
    return host, port

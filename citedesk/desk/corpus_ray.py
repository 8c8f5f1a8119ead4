"""The corpus's audits on Ray Data (`citedesk batch --engine ray [--address ADDR]`, issue 31): the
same worker (`desk.corpus_worker`) on Ray's actors instead of local processes.

The documents are a dataset (`ray.data.from_items`: path and name); `map_batches` runs `Auditor`
on an actor pool of `workers` actors, each of which builds its desk and loads its judge model once
(its constructor is the local pool's initializer) and asks for a GPU when the cluster has one. Ray
does the distribution, the retries of a lost actor and the back-pressure; nothing here schedules.
The stages before (parse, the distinct sources fetched once) and after (the table, the overview)
are the local engine's, in the driver: what the actors read from the store is what the driver put
there, so on a cluster the store (`--store`) and the output folder must be on a filesystem every
node sees.

Ray is an optional extra (`pip install "citedesk[scale]"`): it is imported only here, only when
asked for, and its absence is a UsageError saying how to install it.
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
import os
import pickle
from collections.abc import Iterator, Sequence
from typing import Any

from citedesk.desk import corpus_worker
from citedesk.desk.corpus_files import CorpusDocument
from citedesk.engine.state import AuditOptions
from citedesk.errors import UsageError

BATCH = 4
"""Documents per batch handed to an actor: small, so the progress moves and a lost actor costs little."""


def ray_installed() -> bool:
    return importlib.util.find_spec("ray") is not None


class Auditor:
    """One actor of the pool: a worker's desk and judge, kept for every batch it is given."""

    def __init__(self, options: AuditOptions, threads: int | None) -> None:
        corpus_worker.start(options, threads)  # its private store: a temporary folder on its node

    def __call__(self, batch: dict[str, Any]) -> dict[str, list[Any]]:
        names = [str(name) for name in batch["name"]]
        results = [
            corpus_worker.audit_one(str(path), name) for path, name in zip(batch["path"], names, strict=True)
        ]
        return {"name": names, "result": [pickle.dumps(result) for result in results]}


def ray_audits(
    options: AuditOptions,
    todo: Sequence[CorpusDocument],
    workers: int,
    address: str | None = None,
) -> Iterator[tuple[CorpusDocument, corpus_worker.WorkerResult]]:
    """Each document's audit as Ray hands it back (a local Ray started for the run, and stopped
    after it, unless `address` names a running cluster)."""
    if not ray_installed():
        raise UsageError('--engine ray needs Ray: pip install "citedesk[scale]" (or use the local engine)')
    if not todo:
        return
    ray: Any = importlib.import_module("ray")
    started = not ray.is_initialized()
    if started:
        local = {} if address else {"_node_ip_address": "127.0.0.1"}  # a run's own Ray: loopback only
        ray.init(
            address=address,
            num_cpus=None if address else max(workers, os.cpu_count() or 1),
            include_dashboard=False,
            log_to_driver=False,
            configure_logging=False,
            **local,
        )
    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = False  # the command shows its own (documents/s and time left)
    logging.getLogger("ray.data").setLevel(logging.WARNING)
    try:
        gpus = 1 if ray.cluster_resources().get("GPU", 0) >= workers else 0
        threads = None if address else max(1, (os.cpu_count() or 1) // workers)
        by_name = {doc.name: doc for doc in todo}
        dataset = ray.data.from_items([{"path": str(doc.path), "name": doc.name} for doc in todo])
        audited = dataset.map_batches(
            Auditor,
            fn_constructor_args=(options, threads),
            batch_size=BATCH,
            compute=ray.data.ActorPoolStrategy(size=workers),
            num_gpus=gpus,
        )
        for row in audited.iter_rows():
            yield by_name[str(row["name"])], pickle.loads(row["result"])
    finally:
        if started:
            ray.shutdown()

"""Downloading a catalogue model from the Hugging Face Hub: progress, cancel, and nothing half-installed.

`pull` asks the Hub (through huggingface_hub, which honours `HF_ENDPOINT` for a mirror) for
the repository's files at one commit, downloads only what the judge needs (config, tokenizer, one
copy of the weights: safetensors when the repository has them) into a hidden folder beside the
models, checks that the result loads and answers the known pairs of `models verify` the right way
round, and only then renames it into place. A cancel, a failure or a model that fails the check
removes the hidden folder and raises a typed error saying why; the models folder never holds a
half-downloaded model. Progress is reported in bytes against the total the Hub announced.

Download goes through huggingface_hub's plain HTTP path even where hf_xet is installed: that is the
path whose progress reports arrive in Python between 10 MB chunks, where a cancel is honoured.
"""

from __future__ import annotations

import contextlib
import errno
import fnmatch
import os
import shutil
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from citedesk.evidence import onnx_judge
from citedesk.evidence.catalogue import CatalogueEntry, find_entry
from citedesk.evidence.judges.nli import (
    DEFAULT_MAX_LENGTH,
    InputFormat,
    ModelError,
    read_format,
    write_format,
)
from citedesk.evidence.judges.registry import model_judge
from citedesk.evidence.judges.spec import JudgeKind
from citedesk.evidence.local_models import model_kind, models_dir
from citedesk.evidence.models import verify
from citedesk.evidence.onnx_embed import onnx_enabled, runtime_installed

Progress = Callable[[int, int], None]
"""(bytes done, bytes in all) — called from the downloading thread."""

CONFIG_FILES = ("config.json",)
TOKENIZER_FILES = (
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "added_tokens.json",
    "vocab.txt",
    "vocab.json",
    "merges.txt",
    "spm.model",
    "sentencepiece.bpe.model",
    "tokenizer.model",
)
SAFETENSORS = ("model.safetensors", "model.safetensors.index.json", "model-*-of-*.safetensors")
PYTORCH = ("pytorch_model.bin", "pytorch_model.bin.index.json", "pytorch_model-*-of-*.bin")
STAGING = ".download-"
"""Hidden download folders are named `.<name>.download-<random>` beside the models."""
STALE_AFTER = 24 * 3600
"""A download folder untouched this long (seconds) was left by a process that died; the next pull
removes it."""
MIN_RIGHT = 4
"""Of the six known pairs of `models verify`, a download must get at least this many right: a
model read with its labels the wrong way round, or one that says the same to everything, gets
three or fewer."""


class DownloadError(ModelError):
    """A download that did not install anything; the message says why and what to do."""


class NoNetwork(DownloadError):
    """The Hub could not be reached (no network, DNS, a firewall, offline mode)."""


class ModelNotFound(DownloadError):
    """The Hub answered that the model (or the revision) does not exist."""


class DiskFull(DownloadError):
    """Not enough free space for the model."""


class DownloadCancelled(DownloadError):
    """The user cancelled; nothing was installed. Not an error to report as one."""


@dataclass(frozen=True)
class PullResult:
    path: Path
    entry: CatalogueEntry
    commit: str
    downloaded: int
    """Bytes fetched."""
    right: int
    """Known pairs of `models verify` judged right (of `pairs`)."""
    pairs: int
    onnx: OnnxPrepared | None = None
    """The ONNX file made right after the download (None: not tried, ONNX is off)."""


@dataclass(frozen=True)
class OnnxPrepared:
    """What an installed model will judge with after `prepare_onnx`: its ONNX file, or torch and why."""

    engine: str
    """`onnx-int8`, `onnx` (fp32: int8 disagreed) or `torch`."""
    path: Path | None
    """The ONNX file (None on torch)."""
    why: str = ""
    """Why torch: the model cannot be exported, or is not an encoder."""

    def describe(self) -> str:
        """One line for the CLI and the download dialog."""
        if self.path is None:
            return f"judges with torch ({self.why})"
        precision = "int8" if self.engine == "onnx-int8" else "fp32"
        return f"judges on ONNX Runtime ({precision})"


def progress_text(done: int, total: int) -> str:
    """`312 MB of 1,430 MB (22%)`: a download's progress in words, for the CLI and the window."""
    if total <= 0:
        return f"{done / 1e6:,.0f} MB"
    return f"{done / 1e6:,.0f} MB of {total / 1e6:,.0f} MB ({100 * done // total}%)"


def hub_endpoint() -> str:
    """The Hub's address: `HF_ENDPOINT` (a mirror, or a test's local server) read now, else the Hub."""
    from huggingface_hub import constants  # noqa: PLC0415 - not needed to open the window

    return (os.environ.get("HF_ENDPOINT") or constants.ENDPOINT).rstrip("/")


def hub_reachable(timeout: float = 3.0, endpoint: str | None = None) -> bool:
    """Whether the Hub answers at all (any HTTP answer counts), within `timeout` seconds.

    Cheap enough to decide whether to offer a download; it blocks for up to `timeout` on a network
    that drops packets, so call it off the GUI thread. False in huggingface_hub's offline mode.
    """
    from huggingface_hub import constants, get_session  # noqa: PLC0415

    if constants.is_offline_mode():
        return False
    base = endpoint or hub_endpoint()
    try:
        response = get_session().head(f"{base}/api/models", timeout=timeout, follow_redirects=False)
    except Exception:  # any failure to get an answer means "not reachable"
        return False
    return response.status_code < 500


def pull(
    name: str | CatalogueEntry,
    *,
    progress: Progress | None = None,
    cancelled: Callable[[], bool] | None = None,
    models_root: Path | None = None,
    timeout: float = 10.0,
) -> PullResult:
    """Download a registry model (by name or hub id) into the models folder, checked, atomically.

    `progress(done, total)` gets byte counts; `cancelled()` is polled between chunks and files and
    stops the download with `DownloadCancelled`. Raises `NoNetwork`, `ModelNotFound`, `DiskFull`,
    `DownloadCancelled` or `ModelError` (already installed, custom code, a model that fails the
    check); in every case nothing is left behind.
    """
    entry = name if isinstance(name, CatalogueEntry) else _entry_for(name)
    if not entry.offered:
        raise ModelError(
            f"{entry.name} ({entry.hub_id}) is not offered for download: {entry.why_not_offered}"
        )
    root = models_root or models_dir()
    target = root / entry.name
    if target.exists():
        raise ModelError(f"a model named {entry.name} is already installed; remove it first")
    endpoint = hub_endpoint()
    root.mkdir(parents=True, exist_ok=True)
    _sweep(root)
    staging = root / f".{entry.name}{STAGING}{uuid.uuid4().hex[:8]}"
    try:
        with _plain_http(), _translated(entry, endpoint, root):
            commit, files = _listing(entry, endpoint, timeout)
            total = sum(size for _, size in files)
            _check_space(root, total)
            meter = _Meter(total, progress, cancelled)
            for filename, _ in files:
                meter.check()
                _fetch(entry, filename, commit, staging, endpoint, timeout, meter)
            meter.check()
        shutil.rmtree(staging / ".cache", ignore_errors=True)  # huggingface_hub's download notes
        right, pairs = _check(staging, entry)
        write_format(staging, entry.input_format, registry=entry.name, hub_id=entry.hub_id, revision=commit)
        staging.rename(target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    # installed; a failed export below leaves it installed, on torch (it says so, and loses nothing)
    onnx = prepare_onnx(target) if onnx_enabled() and runtime_installed() else None
    return PullResult(target, entry, commit, meter.done, right, pairs, onnx)


def prepare_onnx(folder: Path, *, again: bool = False) -> OnnxPrepared:
    """Export an installed encoder model to ONNX now (fp32 checked against torch, int8 where it agrees),
    once: the files are cached under the model's fingerprint and later calls find them (`again`
    makes them anew, retrying one that failed). Never raises for a model that cannot be exported:
    its failure is noted (`onnx_judge.judge_failure_file`) and it stays on torch.

    Done right after a download, so the first audit with a new model does not pay for torch's
    import and a background export; `citedesk models prepare NAME` does it for a model installed
    otherwise."""

    if model_kind(folder) is not JudgeKind.ENCODER:
        return OnnxPrepared("torch", None, "only encoder judges run on ONNX Runtime")
    if again:
        for stale in (
            onnx_judge.judge_onnx_file(folder, int8=True),
            onnx_judge.judge_onnx_file(folder),
            onnx_judge.int8_refused_file(folder),
            onnx_judge.judge_failure_file(folder),
        ):
            stale.unlink(missing_ok=True)
    shape = read_format(folder) or InputFormat()
    if shape.kind not in ("pair", "joined"):  # a prompt template: ONNX judges read (joined) pairs only
        return OnnxPrepared("torch", None, f"its input format ({shape.kind}) is not one ONNX judges read")
    kind: Literal["pair", "joined"] = "joined" if shape.kind == "joined" else "pair"
    try:
        onnx_judge.prepare_judge(folder, kind, shape.max_length or DEFAULT_MAX_LENGTH)
    except ModelError as exc:
        return OnnxPrepared("torch", None, str(exc))
    except OSError as exc:  # an unreadable model file: prepare_judge notes only its own failures
        return OnnxPrepared("torch", None, f"the model could not be read ({exc})")
    return onnx_state(folder)


def onnx_state(folder: Path) -> OnnxPrepared:
    """What an installed model judges with now, from the files alone (nothing is exported)."""
    if model_kind(folder) is not JudgeKind.ENCODER:
        return OnnxPrepared("torch", None, "only encoder judges run on ONNX Runtime")
    try:
        path = onnx_judge.best_file(folder)
        failed = onnx_judge.judge_failure_file(folder)
    except OSError as exc:  # no weights to fingerprint
        return OnnxPrepared("torch", None, f"the model could not be read ({exc})")
    if path is not None:
        int8 = path == onnx_judge.judge_onnx_file(folder, int8=True)
        return OnnxPrepared("onnx-int8" if int8 else "onnx", path)
    if failed.is_file():
        why = failed.read_text(encoding="utf-8", errors="replace").strip().splitlines()[:1]
        return OnnxPrepared("torch", None, f"the ONNX export failed: {''.join(why)}")
    return OnnxPrepared("torch", None, "not exported yet; the first audit starts it")


def judged_with(folder: Path) -> str:
    """What an installed model judges with now, in one line (nothing is exported)."""
    if not onnx_enabled():
        return "judges with torch (CITEDESK_ONNX is off)"
    return onnx_state(folder).describe()


def _sweep(root: Path) -> None:
    """Remove download folders that a killed process left behind (untouched for a day)."""
    now = time.time()
    for folder in root.glob(f".*{STAGING}*"):
        with contextlib.suppress(OSError):
            newest = max((p.stat().st_mtime for p in folder.rglob("*")), default=folder.stat().st_mtime)
            if now - newest > STALE_AFTER:
                shutil.rmtree(folder, ignore_errors=True)


def _entry_for(name: str) -> CatalogueEntry:
    entry = find_entry(name)
    if entry is not None:
        return entry
    if name.count("/") != 1:
        raise ModelNotFound(
            f"no model {name!r} in the registry (`citedesk models list`); a Hub model is named owner/name"
        )
    # any other Hub model: read as a sentence pair with its own labels, and checked like the rest
    return CatalogueEntry(
        name.replace("/", "--"),
        name,
        0,
        "see its model card",
        "from its id2label",
        "",
        "",
        input_format=InputFormat(),
    )


def _listing(entry: CatalogueEntry, endpoint: str, timeout: float) -> tuple[str, list[tuple[str, int]]]:
    """The commit and the files to fetch with their sizes, from the Hub's model info."""
    from huggingface_hub import HfApi  # noqa: PLC0415

    info = HfApi(endpoint=endpoint, token=False).model_info(
        entry.hub_id, revision=entry.revision, files_metadata=True, timeout=timeout
    )
    sizes = {s.rfilename: int(s.size or 0) for s in info.siblings or []}
    if any(name.endswith(".py") for name in sizes) or "config.json" not in sizes:
        raise ModelError(
            f"{entry.hub_id} is not a plain transformers model folder "
            "(no config.json, or it ships its own Python code, which CiteDesk never runs)"
        )
    weights = _matching(sizes, SAFETENSORS) or _matching(sizes, PYTORCH)
    if not weights:
        raise ModelError(f"{entry.hub_id} has no PyTorch or safetensors weights")
    wanted = [*CONFIG_FILES, *(n for n in TOKENIZER_FILES if n in sizes), *weights]
    return str(info.sha), [(n, sizes[n]) for n in wanted]


def _matching(names: dict[str, int], patterns: tuple[str, ...]) -> list[str]:
    return sorted(n for n in names if any(fnmatch.fnmatchcase(n, p) for p in patterns))


def _check_space(root: Path, total: int) -> None:
    free = shutil.disk_usage(root).free
    if total > free:
        raise DiskFull(
            f"not enough disk space in {root}: the model needs {total / 1e6:,.0f} MB, "
            f"{free / 1e6:,.0f} MB are free"
        )


def _fetch(
    entry: CatalogueEntry,
    filename: str,
    commit: str,
    staging: Path,
    endpoint: str,
    timeout: float,
    meter: _Meter,
) -> None:
    from huggingface_hub import hf_hub_download  # noqa: PLC0415

    hf_hub_download(
        entry.hub_id,
        filename,
        revision=commit,
        local_dir=str(staging),
        endpoint=endpoint,
        token=False,
        etag_timeout=timeout,
        tqdm_class=meter.bar,  # a tqdm look-alike: update(), a context manager
    )


def _check(staging: Path, entry: CatalogueEntry) -> tuple[int, int]:
    """Load the download as the judge will, and run the known pairs: labels the wrong way round, or
    a model that answers everything alike, fail here instead of misjudging every citation."""
    runner = model_judge(entry.kind)  # `pull` offers only models a registered judge runs
    if runner is None or runner.from_folder is None:
        raise ModelError(f"no judge runs a {entry.kind.value}; {entry.hub_id} was not installed")
    judge = runner.from_folder(staging, entry.input_format, entry.name)
    try:
        result = verify(judge)
    except (OSError, RuntimeError) as exc:  # torch / safetensors on weights that do not fit the config
        raise ModelError(
            f"{entry.hub_id} downloaded but could not be loaded: {exc}; it was not installed"
        ) from exc
    if result.correct < MIN_RIGHT:
        raise ModelError(
            f"{entry.hub_id} downloaded but judged only {result.correct} of {result.total} known pairs "
            "right, so its labels are not read the way the model means them; it was not installed"
        )
    return result.correct, result.total


class _Meter:
    """Counts bytes across files, reports them, and raises `DownloadCancelled` when asked to stop."""

    def __init__(self, total: int, progress: Progress | None, cancelled: Callable[[], bool] | None) -> None:
        self.total = total
        self.done = 0
        self.progress = progress
        self.cancelled = cancelled
        meter = self

        class Bar:
            """What huggingface_hub's http_get needs of a tqdm class: one per file."""

            def __init__(self, *args: object, **kwargs: object) -> None:
                self.n = 0
                self.total = kwargs.get("total")

            def __enter__(self) -> Bar:
                return self

            def __exit__(self, *exc: object) -> None:
                pass

            def update(self, n: float | None = 1) -> None:
                self.n += int(n or 0)
                meter.add(int(n or 0))

            def update_transfer(self, n: float | None = 1) -> None:
                pass  # network bytes: the same bytes as update() on the plain HTTP path

            def set_postfix_str(self, *args: object, **kwargs: object) -> None:
                pass

            def set_transfer_postfix_str(self, *args: object, **kwargs: object) -> None:
                pass

            def refresh(self) -> None:
                pass

            def close(self) -> None:
                pass

        self.bar = Bar

    def add(self, n: int) -> None:
        self.done += n
        self.total = max(self.total, self.done)  # the Hub may announce less than it sends
        if self.progress is not None:
            self.progress(self.done, self.total)
        self.check()

    def check(self) -> None:
        if self.cancelled is not None and self.cancelled():
            raise DownloadCancelled("download cancelled; nothing was installed")


@contextlib.contextmanager
def _plain_http() -> Iterator[None]:
    """huggingface_hub's plain HTTP download path for this download, even with hf_xet installed."""
    from huggingface_hub import constants  # noqa: PLC0415

    before = constants.HF_HUB_DISABLE_XET
    constants.HF_HUB_DISABLE_XET = True
    try:
        yield
    finally:
        constants.HF_HUB_DISABLE_XET = before


@contextlib.contextmanager
def _translated(entry: CatalogueEntry, endpoint: str, root: Path) -> Iterator[None]:
    """huggingface_hub's and httpx2's exceptions as CiteDesk's typed download errors."""
    import httpx2  # noqa: PLC0415
    from huggingface_hub import errors  # noqa: PLC0415

    elsewhere = "download the model elsewhere and `citedesk models import FOLDER`"
    try:
        yield
    except DownloadError:
        raise
    except errors.HFValidationError as exc:
        raise ModelNotFound(f"{entry.hub_id!r} is not a Hub model name ({exc})") from exc
    except errors.OfflineModeIsEnabled as exc:
        raise NoNetwork(
            f"no network: HF_HUB_OFFLINE is set, so the Hub is not contacted; {elsewhere}"
        ) from exc
    except (
        errors.RepositoryNotFoundError,
        errors.RevisionNotFoundError,
        errors.RemoteEntryNotFoundError,
    ) as exc:
        raise ModelNotFound(f"{entry.hub_id} was not found on {endpoint}") from exc
    except errors.HfHubHTTPError as exc:
        status = exc.response.status_code if exc.response is not None else 0
        if status in (401, 403, 404):
            raise ModelNotFound(f"{entry.hub_id} was not found on {endpoint} (HTTP {status})") from exc
        raise NoNetwork(
            f"the Hub at {endpoint} answered HTTP {status}; try again later, or {elsewhere}"
        ) from exc
    except (httpx2.TransportError, errors.LocalEntryNotFoundError) as exc:
        raise NoNetwork(f"no network: {endpoint} cannot be reached ({_reason(exc)}); {elsewhere}") from exc
    except OSError as exc:
        if exc.errno == errno.ENOSPC:
            raise DiskFull(
                f"the disk holding {root} filled up during the download; nothing was installed"
            ) from exc
        raise


def _reason(exc: BaseException) -> str:
    cause: BaseException | None = exc
    while cause is not None and not str(cause):
        cause = cause.__cause__
    return str(cause or type(exc).__name__).splitlines()[0][:200]

"""A stand-in for the Hugging Face Hub on 127.0.0.1: enough of its API for huggingface_hub to download.

huggingface_hub, pointed here with `HF_ENDPOINT`, makes exactly the requests it makes to the real
Hub (read from its source, huggingface_hub 2.4.0):

- `GET /api/models/{repo}/revision/{rev}?blobs=True` (`HfApi.model_info(files_metadata=True)`):
  JSON with the commit `sha` and `siblings` (file names, sizes, git blob ids, LFS metadata);
- `HEAD /{repo}/resolve/{rev}/{file}` (`get_hf_file_metadata`): `X-Repo-Commit`, `ETag` (the git
  blob sha1) and `Content-Length` for small files; for large (LFS) files a 302 whose `Location` is
  the blob's address, with `X-Linked-Etag` (sha256) and `X-Linked-Size`, which it follows on the
  same host;
- `GET` of the same addresses for the bytes.

A missing repo answers 404 with `X-Error-Code: RepoNotFound`, a missing revision
`RevisionNotFound`, a missing file `EntryNotFound`, as the Hub does. Files can be served slowly
(`chunk_delay`) to leave time to cancel, and every request is recorded.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import ClassVar
from urllib.parse import unquote, urlsplit

from tests.helpers.server import running

LFS_SUFFIXES = (".safetensors", ".bin")


@dataclass
class HubRepo:
    """One model repository: its files (name → bytes) at one commit."""

    files: dict[str, bytes]
    sha: str = "0123456789abcdef0123456789abcdef01234567"
    advertised_sizes: dict[str, int] = field(default_factory=dict)
    """Sizes the API reports instead of the real ones (a hub that announces a huge file)."""

    @classmethod
    def from_folder(cls, folder: Path) -> HubRepo:
        files = {
            str(path.relative_to(folder)): path.read_bytes()
            for path in sorted(folder.rglob("*"))
            if path.is_file()
        }
        return cls(files)

    def is_lfs(self, name: str) -> bool:
        return name.endswith(LFS_SUFFIXES)


def git_blob_sha1(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


class _HubHandler(BaseHTTPRequestHandler):
    repos: ClassVar[dict[str, HubRepo]] = {}
    requests: ClassVar[list[str]] = []
    chunk_delay: ClassVar[float] = 0.0

    def log_message(self, *args: object) -> None:  # keep test output clean
        pass

    def do_HEAD(self) -> None:
        self._answer(body=False)

    def do_GET(self) -> None:
        self._answer(body=True)

    def _answer(self, *, body: bool) -> None:
        self.requests.append(f"{self.command} {self.path}")
        path = unquote(urlsplit(self.path).path)
        if info := re.fullmatch(r"/api/models/([^/]+/[^/]+)/revision/([^/]+)", path):
            self._model_info(info[1], info[2], body=body)
        elif resolve := re.fullmatch(r"/([^/]+/[^/]+)/resolve/([^/]+)/(.+)", path):
            self._resolve(resolve[1], resolve[2], resolve[3], body=body)
        elif blob := re.fullmatch(r"/lfs/([^/]+/[^/]+)/(.+)", path):
            repo = self.repos.get(blob[1])
            if repo is None or blob[2] not in repo.files:
                self._error(404, "EntryNotFound", body=body)
            else:
                self._file(repo, blob[2], body=body)
        else:
            self._error(404, "RepoNotFound", body=body)

    def _model_info(self, repo_id: str, revision: str, *, body: bool) -> None:
        repo = self.repos.get(repo_id)
        if repo is None:
            self._error(404, "RepoNotFound", body=body)
            return
        if revision not in ("main", repo.sha):
            self._error(404, "RevisionNotFound", body=body)
            return
        siblings = []
        for name, data in repo.files.items():
            size = repo.advertised_sizes.get(name, len(data))
            sibling: dict[str, object] = {"rfilename": name, "size": size, "blobId": git_blob_sha1(data)}
            if repo.is_lfs(name):
                sibling["lfs"] = {
                    "size": size,
                    "sha256": hashlib.sha256(data).hexdigest(),
                    "pointerSize": 134,
                }
            siblings.append(sibling)
        payload = json.dumps({"id": repo_id, "modelId": repo_id, "sha": repo.sha, "siblings": siblings})
        self._send(200, payload.encode(), "application/json", body=body)

    def _resolve(self, repo_id: str, revision: str, name: str, *, body: bool) -> None:
        repo = self.repos.get(repo_id)
        if repo is None:
            self._error(404, "RepoNotFound", body=body)
        elif revision not in ("main", repo.sha):
            self._error(404, "RevisionNotFound", body=body)
        elif name not in repo.files:
            self._error(404, "EntryNotFound", body=body, X_Repo_Commit=repo.sha)
        elif repo.is_lfs(name):
            data = repo.files[name]
            self.send_response(302)
            self.send_header("Location", f"/lfs/{repo_id}/{name}")
            self.send_header("X-Repo-Commit", repo.sha)
            self.send_header("X-Linked-Etag", f'"{hashlib.sha256(data).hexdigest()}"')
            self.send_header("X-Linked-Size", str(len(data)))
            self.send_header("Content-Length", "0")
            self.end_headers()
        else:
            self._file(repo, name, body=body)

    def _file(self, repo: HubRepo, name: str, *, body: bool) -> None:
        data = repo.files[name]
        etag = hashlib.sha256(data).hexdigest() if repo.is_lfs(name) else git_blob_sha1(data)
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("ETag", f'"{etag}"')
        self.send_header("X-Repo-Commit", repo.sha)
        self.end_headers()
        if not body:
            return
        step = max(1, len(data) // 8) if self.chunk_delay else len(data)
        try:
            for start in range(0, len(data), step):
                self.wfile.write(data[start : start + step])
                self.wfile.flush()
                if self.chunk_delay:
                    time.sleep(self.chunk_delay)
        except OSError:  # the client went away (a cancelled download)
            return

    def _error(self, code: int, error_code: str, *, body: bool, **headers: str) -> None:
        self._send(
            code,
            json.dumps({"error": error_code}).encode(),
            "application/json",
            body=body,
            X_Error_Code=error_code,
            **headers,
        )

    def _send(self, code: int, payload: bytes, content_type: str, *, body: bool, **headers: str) -> None:
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.end_headers()
        if body:
            self.wfile.write(payload)


@dataclass
class LocalHub:
    """A running local hub: its base URL (for `HF_ENDPOINT`) and the requests it has seen."""

    url: str
    repos: dict[str, HubRepo]

    @property
    def requests(self) -> list[str]:
        return _HubHandler.requests

    def downloads(self) -> list[str]:
        """Paths of file bodies fetched (GET of a file or a blob)."""
        return [r.split(" ", 1)[1] for r in self.requests if r.startswith("GET /") and "/api/" not in r]


@contextmanager
def serve_hub(repos: dict[str, HubRepo], *, chunk_delay: float = 0.0) -> Iterator[LocalHub]:
    """Serve `repos` (repo id → files) on 127.0.0.1 the way the Hub serves them."""
    _HubHandler.repos = repos  # class-level state: one hub at a time, as tests run one at a time
    _HubHandler.requests = []
    _HubHandler.chunk_delay = chunk_delay
    with running(_HubHandler) as base:
        yield LocalHub(base, repos)

"""Undoing a response's Content-Encoding in bounded steps, so no chain of encodings can blow up.

httpx decodes each received chunk whole before a caller can count it: 3.5 KB of gzip-of-gzip of
zeros became 4 GB in memory before the size check ran. Here the fetcher reads the raw body and
undoes each layer itself, at most `STEP` bytes at a time (zlib's `max_length`); every layer's output
— the intermediate ones too — is counted against the limit as it is produced, and at most
`MAX_LAYERS` compression layers are accepted. Whatever the chain, memory stays within a few steps
plus the page itself, and the work within `MAX_LAYERS + 1` times the limit.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Iterator

from citedesk.errors import CiteDeskError

STEP = 64 * 1024
"""The most any layer produces from one call: what a compression bomb can cost before it is counted."""
MAX_LAYERS = 2
"""Servers compress once; two layers are tolerated (a proxy compressing again), more are refused."""
ACCEPT_ENCODING = "gzip, deflate"
"""What the fetcher asks for: the codings undone here."""

_CODINGS = {"gzip": "gzip", "x-gzip": "gzip", "deflate": "deflate"}
_GZIP_MAGIC = b"\x1f\x8b"


class DecodingError(CiteDeskError):
    """The body cannot be decoded; the message is meant for the writer. The fetcher turns each into
    the source's outcome, so none reaches a front end."""

    kind = "decoding"


class UnsupportedEncoding(DecodingError):
    pass


class BodyTooLarge(DecodingError):
    pass


class DamagedBody(DecodingError):
    """The compressed data is corrupt, or ends before the compressed stream does."""


def content_codings(header: str | None) -> list[str]:
    """The compression layers named by a Content-Encoding header, in the order they were applied.

    `identity` is no layer; an unknown coding or more than MAX_LAYERS layers raise
    UnsupportedEncoding.
    """
    names = [name.strip().lower() for name in (header or "").split(",")]
    codings: list[str] = []
    for name in names:
        if name in ("", "identity"):
            continue
        coding = _CODINGS.get(name)
        if coding is None:
            raise UnsupportedEncoding(f"the page is compressed with {name}, which CiteDesk does not read")
        codings.append(coding)
    if len(codings) > MAX_LAYERS:
        raise UnsupportedEncoding(
            f"the page is compressed {len(codings)} times over ({', '.join(codings)}); "
            f"CiteDesk undoes at most {MAX_LAYERS} layers"
        )
    return codings


def decode_body(raw: Iterable[bytes], codings: list[str], max_bytes: int) -> Iterator[bytes]:
    """The decoded body, in pieces of at most STEP bytes (the raw chunks as they are when there is
    no coding); raises BodyTooLarge as soon as the raw body or any layer's output passes
    `max_bytes`, DamagedBody for corrupt or cut-off compressed data."""
    stream: Iterable[bytes] = _counted(raw, max_bytes)
    for coding in reversed(codings):  # the last coding applied is the first undone
        stream = _counted(_inflate(stream, coding), max_bytes)
    return iter(stream)


def _counted(pieces: Iterable[bytes], max_bytes: int) -> Iterator[bytes]:
    size = 0
    for piece in pieces:
        size += len(piece)
        if size > max_bytes:
            raise BodyTooLarge(f"the page is larger than the {max_bytes / 2**20:.0f} MB size limit")
        yield piece


def _inflate(source: Iterable[bytes], coding: str) -> Iterator[bytes]:
    """One gzip (members one after another) or deflate (zlib-wrapped or raw) layer, STEP at a time."""
    decompressor: zlib._Decompress | None = None
    first = True
    finished = False
    for data in source:
        if finished:
            continue  # after the compressed stream's end: padding, ignored as zlib and browsers do
        while data:
            if decompressor is None:
                decompressor = zlib.decompressobj(16 + zlib.MAX_WBITS if coding == "gzip" else zlib.MAX_WBITS)
            try:
                out = decompressor.decompress(data, STEP)
            except zlib.error as exc:
                if coding == "deflate" and first:  # servers send raw deflate as often as zlib's
                    decompressor = zlib.decompressobj(-zlib.MAX_WBITS)
                    first = False
                    continue
                raise DamagedBody(f"the page's {coding} data is damaged ({exc})") from exc
            first = False
            data = decompressor.unconsumed_tail
            if out:
                yield out
            if decompressor.eof:
                rest = decompressor.unused_data + data
                if coding == "gzip" and rest.startswith(_GZIP_MAGIC):
                    decompressor, data = None, rest  # the next gzip member
                    continue
                finished = True
                break
            if not data and len(out) < STEP:
                break  # all input used and nothing pending: the next chunk, please
    if not finished and decompressor is not None:
        # the body ended inside the compressed stream: drain what is pending, then say it was cut
        while out := decompressor.decompress(b"", STEP):
            yield out
        if not decompressor.eof:
            raise DamagedBody(f"the page's {coding} data ends before it is complete")

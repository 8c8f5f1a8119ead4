"""Small helpers for building documents in tests."""

from __future__ import annotations

from citedesk.core.document.model import Document
from citedesk.core.reading import parse_document


def marker_texts(doc: Document) -> list[str]:
    return [doc.text[m.start : m.end] for m in doc.markers]


def with_refs(
    body: str, refs: str = "[1] One. https://a.example/1\n[2] Two. https://b.example/2\n"
) -> Document:
    return parse_document(f"{body}\n\n## References\n\n{refs}")

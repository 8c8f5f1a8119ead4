"""The keys and CSL-JSON of a Word view: which work each citationItem is, the readable key it gets
(`smith2020`, `smith2020a`, …), the front matter that lists the works, and a field as a pandoc group.

Keys are derived at each read from the fields' own items (Zotero and Mendeley ids are not
readable and Mendeley's repeat across fields), so `WordView.works` says which work a key is and two
reads are compared by work, never by key.
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

_LOCATOR_LABELS = {
    "page": "p.",
    "chapter": "chap.",
    "section": "sec.",
    "paragraph": "para.",
    "figure": "fig.",
    "volume": "vol.",
    "line": "l.",
    "note": "n.",
    "verse": "v.",
}
_UNSAFE_AFFIX = re.compile(r"[\[\]@;\\\n\r]")


def identity(item: dict[str, Any]) -> str:
    """Which work a citationItem is: its URIs (Zotero's and Mendeley's stable ids), else its id and
    title in itemData (the same item cited by several fields gets one key)."""
    uris = item.get("uris") or ([item["uri"]] if isinstance(item.get("uri"), str) else [])
    if isinstance(uris, list) and uris:
        return "uris:" + json.dumps(sorted(str(u) for u in uris))
    data = item_data(item)
    ident = data.get("id", item.get("id"))
    return "id:" + json.dumps([str(ident), str(data.get("title", ""))])


def item_data(item: dict[str, Any]) -> dict[str, Any]:
    """A citationItem's CSL-JSON (`itemData`), empty when it has none."""
    data = item.get("itemData")
    return data if isinstance(data, dict) else {}


def assign_keys(citations: list[dict[str, Any]]) -> dict[str, str]:
    """A readable key per work: `smith2020`, then `smith2020a`, … Works are taken in the order of
    their base key and identity, never of where they are cited, so a repair that swaps or removes
    citations renames no other work's key and reorders no line of the front matter."""
    bases: dict[str, str] = {}
    for citation in citations:
        for item in citation["citationItems"]:
            bases.setdefault(identity(item), _base_key(item_data(item)))
    keys: dict[str, str] = {}
    used: set[str] = set()
    next_try: dict[str, int] = {}  # per base: every candidate before it is taken (`used` only grows)
    for ident, base in sorted(bases.items(), key=lambda work: (work[1], work[0])):
        n = next_try.get(base, 0)
        while _candidate(base, n) in used:
            n += 1
        next_try[base] = n + 1
        keys[ident] = _candidate(base, n)
        used.add(keys[ident])
    return keys


def _candidate(base: str, n: int) -> str:
    """The n-th key a work of this base may get: the base, then `a`, `b`, … `z`, `aa`, … appended.
    Each base's search goes on where its last one stopped, so 20,000 works of one author and year
    get their keys in linear time (each search began at `a`: quadratic)."""
    return base + _suffix(n - 1) if n else base


def _suffix(n: int) -> str:
    letters = ""
    n += 1
    while n:
        n, rest = divmod(n - 1, 26)
        letters = chr(ord("a") + rest) + letters
    return letters


def _base_key(data: dict[str, Any]) -> str:
    name = ""
    for role in ("author", "editor"):
        people = data.get(role)
        if isinstance(people, list) and people and isinstance(people[0], dict):
            name = str(people[0].get("family") or people[0].get("literal") or "")
            if name:
                break
    if not name:
        name = str(data.get("title") or "ref").split(" ")[0]
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().lower()
    word = re.sub(r"[^a-z0-9]", "", ascii_name) or "ref"
    if word[0].isdigit():
        word = "ref" + word
    return word + year_of(data)


def year_of(data: dict[str, Any]) -> str:
    issued = data.get("issued")
    if isinstance(issued, dict):
        parts = issued.get("date-parts")
        if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
            found = re.match(r"-?\d{1,4}", str(parts[0][0]))
            if found:
                return found.group().lstrip("-")
        for field_name in ("raw", "literal"):
            found = re.search(r"\d{4}", str(issued.get(field_name, "")))
            if found:
                return found.group()
    return "nd"


def references_of(citations: list[dict[str, Any]], keys: dict[str, str]) -> dict[str, dict[str, Any]]:
    """The CSL item of each cited work under its key (its `id`), in key order."""
    references: dict[str, dict[str, Any]] = {}
    for citation in citations:
        for item in citation["citationItems"]:
            key = keys[identity(item)]
            if key not in references:
                data = item_data(item)
                references[key] = {**data, "id": key}
    return dict(sorted(references.items()))


def front_matter(references: dict[str, dict[str, Any]]) -> str:
    lines = ["---", "references:"]
    lines += ["- " + json.dumps(item, ensure_ascii=False) for item in references.values()]
    return "\n".join([*lines, "---", "", ""])


def group_text(citation: dict[str, Any], keys: dict[str, str]) -> str:
    """A citation field as a pandoc group: `[see @smith2020, p. 3; @lee2019]`."""
    return "[" + "; ".join(_item_text(item, keys[identity(item)]) for item in citation["citationItems"]) + "]"


def _item_text(item: dict[str, Any], key: str) -> str:
    prefix = _affix(item.get("prefix"))
    text = (prefix + " " if prefix else "") + ("-" if item.get("suppress-author") else "") + "@" + key
    locator = _affix(item.get("locator"))
    if locator:
        label = _LOCATOR_LABELS.get(str(item.get("label") or "page"), "")
        if label == "p." and re.search(r"[-–,]", locator):
            label = "pp."
        text += ", " + (label + " " if label else "") + locator
    suffix = _affix(item.get("suffix"))
    if suffix:
        text += (" " if suffix[0].isalnum() else "") + suffix
    return text


def _affix(value: object) -> str:
    if not isinstance(value, str | int) or isinstance(value, bool):
        return ""
    text = " ".join(str(value).split())
    return "" if _UNSAFE_AFFIX.search(text) or re.search(r"[*_<`$]", text) else text

"""Repairs in pandoc citation syntax: keys swapped, added and removed, everything else byte-identical."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citedesk.core.dialects.pandoc.repair import (
    AddKey,
    CiteAt,
    KeyOperation,
    RemoveKey,
    SwapKey,
    citation_prose,
    key_edits,
)
from citedesk.core.document.citekeys import find_citations
from citedesk.core.repair import apply_edits
from citedesk.errors import RepairError


def repaired(text: str, *operations: KeyOperation, allow_in_text: bool = False) -> str:
    groups = find_citations(text)
    result = apply_edits(text, key_edits(text, groups, list(operations), allow_in_text=allow_in_text))
    assert citation_prose(result, find_citations(result)) == citation_prose(text, groups)
    return result


@pytest.mark.parametrize(
    ("text", "operation", "expected"),
    [
        (
            "Blah [see @moreau2021, pp. 33-35; also @b, chap. 1].",
            SwapKey(0, "moreau2021", "forestry2019"),
            "Blah [see @forestry2019, pp. 33-35; also @b, chap. 1].",
        ),
        (
            "@moreau2021 [p. 2] says so.",
            SwapKey(0, "moreau2021", "forestry2019"),
            "@forestry2019 [p. 2] says so.",
        ),
        ("As -@moreau2021 says.", SwapKey(0, "moreau2021", "forestry2019"), "As -@forestry2019 says."),
        ("See [@{a.b.}, p. 4].", SwapKey(0, "a.b.", "c"), "See [@{c}, p. 4]."),  # the braces stay
        ("See [@a, p. 4].", SwapKey(0, "a", "key.with.end."), "See [@{key.with.end.}, p. 4]."),
        ("See [@a, p. 4].", SwapKey(0, "a", "https://x.org/b"), "See [@{https://x.org/b}, p. 4]."),
    ],
)
def test_swap_keeps_prefix_and_locator(text: str, operation: SwapKey, expected: str) -> None:
    assert repaired(text, operation) == expected


@pytest.mark.parametrize(
    ("text", "key", "expected"),
    [
        ("Blah [see @a, pp. 33-35; also @b, chap. 1; @c] end.", "b", "Blah [see @a, pp. 33-35; @c] end."),
        ("Blah [see @a, pp. 33-35; also @b, chap. 1; @c] end.", "a", "Blah [also @b, chap. 1; @c] end."),
        (
            "Blah [see @a, pp. 33-35; also @b, chap. 1; @c] end.",
            "c",
            "Blah [see @a, pp. 33-35; also @b, chap. 1] end.",
        ),
        ("Blah [ @a ;\n  @b ] end.", "a", "Blah [ @b ] end."),
        ("Blah [@a].", "a", "Blah."),
        ("Blah [@a] and more.", "a", "Blah and more."),
        ("[@a] Starts a line.", "a", "Starts a line."),
        ("Drought.[@a] Next.", "a", "Drought. Next."),
        ("@x [p. 2; see @b] says.", "b", "@x [p. 2] says."),
        ("@x [see @b] says.", "b", "@x says."),
        ("@x [see @b; @c] says.", "b", "@x [@c] says."),
    ],
)
def test_remove_keeps_the_group_well_formed(text: str, key: str, expected: str) -> None:
    assert repaired(text, RemoveKey(0, key)) == expected


def test_adjacent_emptied_groups_go_as_one_run() -> None:
    text = "Blah [@a] [@b] end."
    assert repaired(text, RemoveKey(0, "a"), RemoveKey(1, "b")) == "Blah end."
    assert repaired(text, RemoveKey(0, "a")) == "Blah [@b] end."


def test_add_to_a_group_and_as_a_new_group() -> None:
    assert repaired("Blah [@a].", AddKey(0, "b")) == "Blah [@a; @b]."
    assert repaired("Blah [@a;@c].", AddKey(0, "b")) == "Blah [@a;@c;@b]."  # the written separator
    assert repaired("Blah [@a].", AddKey(0, "a")) == "Blah [@a]."  # already cited: nothing to do
    assert repaired("@x [p. 2] says.", AddKey(0, "b")) == "@x [p. 2; @b] says."
    assert repaired("Blah blah.", CiteAt(9, "b")) == "Blah blah [@b]."
    assert repaired("Blah blah.", CiteAt(9, "b"), CiteAt(9, "c")) == "Blah blah [@b; @c]."
    assert repaired("Blah [@a].", CiteAt(9, "b")) == "Blah [@a; @b]."  # joins the group ending there
    assert repaired("Blah.", CiteAt(5, "b")) == "Blah. [@b]"


def test_several_operations_on_one_group_make_one_edit() -> None:
    text = "Blah [see @a, p. 1; @b; cf. @c, ch. 2] end."
    groups = find_citations(text)
    edits = key_edits(text, groups, [SwapKey(0, "a", "z"), RemoveKey(0, "b"), AddKey(0, "d")])
    assert len(edits) == 1
    assert apply_edits(text, edits) == "Blah [see @z, p. 1; cf. @c, ch. 2; @d] end."
    # swapping to a key the group already cites drops the duplicate
    assert repaired(text, SwapKey(0, "a", "c")) == "Blah [see @c, p. 1; @b] end."


def test_in_text_citations_are_part_of_the_sentence() -> None:
    with pytest.raises(RepairError, match="part of the sentence"):
        repaired("@x says so.", RemoveKey(0, "x"))
    with pytest.raises(RepairError, match="without brackets"):
        repaired("@x says so.", AddKey(0, "y"))
    assert repaired("@x [p. 2; see @b] says.", RemoveKey(0, "x"), allow_in_text=True) == "[see @b] says."
    assert repaired("As shown @x.", RemoveKey(0, "x"), allow_in_text=True) == "As shown."


@pytest.mark.parametrize(
    ("text", "operation", "reason"),
    [
        ("Blah [@a].", SwapKey(0, "a", "two words"), "cannot cite"),
        ("Blah [@a] end.", CiteAt(7, "b"), "inside another"),
        ("Blah (x) end.", CiteAt(5, "b"), "read as something else"),
        ("Blah word.", CiteAt(5, "b"), "join the word"),
        ("Intro.\n\n[@a] - item\n", RemoveKey(0, "a"), "Markdown structure"),
        ("Blah [@a].", RemoveKey(3, "a"), "no citation group"),
    ],
)
def test_unsafe_repairs_are_refused(text: str, operation: KeyOperation, reason: str) -> None:
    with pytest.raises(RepairError, match=reason):
        repaired(text, operation)


def test_citation_prose_ignores_citations_only() -> None:
    text = "A [@a] b @c [p. 2] d [@e] [@f]."
    assert citation_prose(text, find_citations(text)) == "A b d."


# -- property: random citation groups round-trip through repairs --------------------------------

KEYS = ["doe99", "smith:2004", "Foo_bar.baz", "{odd.key.}", "пункт3", "roe-2020"]
NEW_KEYS = ["new1", "other:2", "{x.y.}", "doe99"]
PREFIXES = ["", "see", "see also", "*cf.*", "e.g.,"]
SUFFIXES = ["", ", p. 33", ", pp. 33-35", " chap. 1", ", 89, and suffix", " and *passim*"]
SEPARATORS = ["; ", ";", " ; ", ";\n"]
WORDS = ["Drought", "rose", "in", "the", "north", "Rain", "fell", "1990"]


@dataclass
class Built:
    text: str = ""
    groups: list[list[tuple[str, str, str, bool]]] = field(default_factory=list)
    """Per group as generated: (key, prefix, suffix, in_text) per item."""
    points: list[int] = field(default_factory=list)
    """Offsets right after a word, where a new group may go."""


def plain(key: str) -> str:
    return key.strip("{}")


@st.composite
def item_text(draw: st.DrawFn) -> tuple[str, tuple[str, str, str, bool]]:
    key = draw(st.sampled_from(KEYS))
    prefix = draw(st.sampled_from(PREFIXES))
    suffix = draw(st.sampled_from(SUFFIXES))
    dash = "-" if draw(st.booleans()) else ""
    written = (prefix + " " if prefix else "") + dash + "@" + key + suffix
    return written, (plain(key), prefix, suffix, False)


@st.composite
def documents(draw: st.DrawFn) -> Built:
    built = Built()
    parts: list[str] = []
    for _ in range(draw(st.integers(1, 6))):
        for word in draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=3)):
            parts.append(word)
            built.points.append(sum(map(len, parts)))
            parts.append(" ")
        if draw(st.booleans()):  # a bracketed group
            items = draw(st.lists(item_text(), min_size=1, max_size=4))
            pad = draw(st.sampled_from(["", " "]))
            seps = [draw(st.sampled_from(SEPARATORS)) for _ in items[1:]]
            body = items[0][0] + "".join(
                sep + written for sep, (written, _) in zip(seps, items[1:], strict=True)
            )
            parts.append("[" + pad + body + pad + "]")
            built.groups.append([meta for _, meta in items])
        else:  # an in-text citation, perhaps with a locator and more items
            key = draw(st.sampled_from(KEYS))
            locator = draw(st.sampled_from(["", "p. 33", "chap. 2"]))
            more = draw(st.lists(item_text(), max_size=2)) if locator or draw(st.booleans()) else []
            inner = [locator] if locator else []
            inner += [written for written, _ in more]
            bracket = " [" + "; ".join(inner) + "]" if inner else ""
            parts.append("@" + key + bracket)
            built.groups.append([(plain(key), "", locator, True)] + [meta for _, meta in more])
        parts.append(draw(st.sampled_from([" ", ". ", ", ", ".\n"])))
    built.text = "".join(parts)
    return built


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents(), st.data())
def test_random_groups_round_trip_through_repairs(built: Built, data: st.DataObject) -> None:
    text = built.text
    groups = find_citations(text)
    assert [[i.key for i in g.items] for g in groups] == [[k for k, *_ in g] for g in built.groups]

    operations: list[KeyOperation] = []
    expected: list[tuple[int, list[tuple[str, str, str] | str]]] = []
    for index, (group, meta) in enumerate(zip(groups, built.groups, strict=True)):
        slots: list[tuple[str, str, str] | str] = [(k, p, s) for k, p, s, _ in meta]
        touched = False
        for _ in range(data.draw(st.integers(0, 2))):
            keys = [s if isinstance(s, str) else s[0] for s in slots]
            choice = data.draw(st.sampled_from(["swap", "remove", "add"]))
            removable = [k for k in keys if not (group.in_text and k == keys[0])]
            if choice == "remove" and removable:
                key = data.draw(st.sampled_from(removable))
                operations.append(RemoveKey(index, key))
                touched = True
                slots = [s for s in slots if (s if isinstance(s, str) else s[0]) != key]
            elif choice == "swap" and keys:
                old, new = data.draw(st.sampled_from(keys)), plain(data.draw(st.sampled_from(NEW_KEYS)))
                operations.append(SwapKey(index, old, new))
                touched = True
                slots = [
                    (new, s[1], s[2]) if not isinstance(s, str) and s[0] == old else (new if s == old else s)
                    for s in slots
                ]
            elif choice == "add" and group.bracket is not None:
                new = plain(data.draw(st.sampled_from(NEW_KEYS)))
                operations.append(AddKey(index, new))
                touched = True
                slots.append(new)
        if touched:  # a rewritten group cites each key once
            deduped: dict[str, tuple[str, str, str] | str] = {}
            for s in slots:
                deduped.setdefault(s if isinstance(s, str) else s[0], s)
            slots = list(deduped.values())
        if slots:
            expected.append((group.start, slots))
    for offset in data.draw(st.lists(st.sampled_from(built.points), max_size=2, unique=True)):
        key = plain(data.draw(st.sampled_from(NEW_KEYS)))
        operations.append(CiteAt(offset, key))
        expected.append((offset, [key]))
    expected.sort(key=lambda pair: pair[0])

    result = apply_edits(text, key_edits(text, groups, operations))
    after = find_citations(result)
    got = [
        [(i.key, result[i.prefix[0] : i.prefix[1]], result[i.suffix[0] : i.suffix[1]]) for i in g.items]
        for g in after
    ]
    assert [[s if isinstance(s, str) else s[0] for s in slots] for _, slots in expected] == [
        [k for k, _, _ in g] for g in got
    ]
    for (_, slots), items in zip(expected, got, strict=True):
        for slot, (key, prefix, suffix) in zip(slots, items, strict=True):
            if isinstance(slot, str):  # a key added: no prefix, no suffix
                assert (prefix, suffix) == ("", "")
            else:  # every other item keeps its prefix and locator byte for byte
                assert (key, prefix, suffix) == (slot[0], slot[1], slot[2])
    assert citation_prose(result, after) == citation_prose(text, groups)

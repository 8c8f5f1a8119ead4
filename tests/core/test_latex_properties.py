"""A property of the LaTeX reading (issue 29): in random prose with random citation commands,
every marker's keys are found at their exact offsets, and nothing in a comment is read."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from citedesk.core.reading import parse_document

WORDS = st.sampled_from(["heat", "trees", "cool", "streets", "by", "2~C", "50\\%", "\\emph{fast}", "--", "."])
KEYS = st.lists(st.from_regex(r"[a-z][a-z0-9:_-]{0,8}", fullmatch=True), min_size=1, max_size=3)
COMMANDS = st.sampled_from(["cite", "citep", "citet*", "parencite", "Textcite", "autocite"])
NOTES = st.sampled_from(["", "[p.~4]", "[see][]", "[see {A}][p.~2]"])
SPACES = st.sampled_from(["", " "])


@st.composite
def citation(draw: st.DrawFn) -> tuple[str, list[str]]:
    keys = draw(KEYS)
    pad = draw(SPACES)
    sep = "," + draw(SPACES)
    written = f"\\{draw(COMMANDS)}{draw(NOTES)}{{{pad}{sep.join(keys)}{pad}}}"
    return written, keys


@st.composite
def paper(draw: st.DrawFn) -> tuple[str, list[list[str]]]:
    pieces: list[str] = []
    cited: list[list[str]] = []
    for _ in range(draw(st.integers(1, 6))):
        pieces.append(" ".join(draw(st.lists(WORDS, min_size=1, max_size=6))))
        kind = draw(st.sampled_from(["cite", "tie", "comment", "blank"]))
        if kind in ("cite", "tie"):
            written, keys = draw(citation())
            pieces.append(("~" if kind == "tie" else " ") + written)
            cited.append(keys)
        elif kind == "comment":
            written, _ = draw(citation())
            pieces.append(" % " + written + "\n")
        else:
            pieces.append("\n\n")
    return "".join(pieces) + "\n", cited


@settings(max_examples=60, deadline=None)
@given(paper())
def test_every_marker_key_is_found_at_its_offsets(drawn: tuple[str, list[list[str]]]) -> None:
    text, cited = drawn
    document = parse_document(text, "random.tex")
    assert [[text[i.start : i.end] for i in m.items] for m in document.markers] == cited
    assert [[k for i in m.items for k in i.keys] for m in document.markers] == cited

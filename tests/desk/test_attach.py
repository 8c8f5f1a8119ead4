"""Matching local files to references: by key, by number, else by the words of the title."""

from __future__ import annotations

from pathlib import Path

from citedesk.core.reading import parse_document
from citedesk.desk.attach import match_file, match_files

NUMBERED = parse_document(
    "Text [1] [2] [3].\n\n## References\n\n"
    '1. Regional Climate Office. "Urban heat islands: a fact sheet".\n'
    '2. Moreau, L. (2021). "Tree canopy and afternoon heat in 112 mid-sized cities".\n'
    '3. Municipal Forestry Network (2019). "Street tree survival after planting".\n'
).references.entries
KEYED = parse_document(
    "Text [^smith2020] and [^jones-2019].\n\n## References\n\n"
    "[^smith2020]: Smith, A. (2020). Heat and health.\n"
    "[^jones-2019]: Jones, B. (2019). Parks and heat.\n"
).references.entries


def test_numbers_in_the_usual_spellings() -> None:
    for name in ("2.pdf", "02.txt", "ref-2.html", "Reference 2.md", "[2].txt", "ref_2.pdf", "source2.txt"):
        match = match_file(Path(name), NUMBERED)
        assert (match.key, match.how) == ("2", "number"), name
    assert match_file(Path("9.pdf"), NUMBERED).key is None  # no reference 9
    assert match_file(Path("2021.pdf"), NUMBERED).key is None  # a year is not reference 2021


def test_keys_match_exactly_ignoring_case() -> None:
    assert [r.key for r in KEYED] == ["smith2020", "jones-2019"]
    smith = match_file(Path("Smith2020.pdf"), KEYED)
    assert (smith.key, smith.how) == ("smith2020", "key")
    assert match_file(Path("jones-2019.txt"), KEYED).key == "jones-2019"
    assert match_file(Path("Parks and heat.pdf"), KEYED).key == "jones-2019"  # else by title


def test_titles_match_when_most_of_the_name_is_in_one_title_only() -> None:
    assert match_file(Path("heat-islands.txt"), NUMBERED).key == "1"
    assert match_file(Path("Street tree survival.pdf"), NUMBERED).key == "3"
    assert match_file(Path("canopy-survey.txt"), NUMBERED).how == "title"  # half its words: canopy
    assert match_file(Path("shopping list.txt"), NUMBERED).key is None
    ambiguous = match_file(Path("heat.txt"), NUMBERED)  # in titles 1 and 2 alike
    assert ambiguous.key is None
    assert "alike" in ambiguous.how


def test_two_files_for_one_reference_the_better_match_wins() -> None:
    matches = match_files([Path("heat-islands.txt"), Path("1.pdf"), Path("ref-1.txt")], NUMBERED)
    assert [(m.path.name, m.key) for m in matches] == [
        ("heat-islands.txt", None),
        ("1.pdf", "1"),
        ("ref-1.txt", None),
    ]
    assert matches[0].how == "[1] has a better match"
    assert matches[2].how == "[1] has a file already"

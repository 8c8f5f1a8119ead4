"""Bibliographies read from real exports (tests/fixtures/bibliographies, see its README)."""

from __future__ import annotations

from pathlib import Path

import pytest

from citedesk.core.bibliographies.model import (
    BibEntry,
    BibFormat,
    Bibliography,
    BibliographyError,
    arxiv_id,
    bare_doi,
    duplicate_entries,
    first_isbn,
    format_for,
    normalised_title,
    parse_file_field,
)
from citedesk.core.bibliographies.parse import parse_bibliography

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "bibliographies"


def load(name: str) -> Bibliography:
    text = (FIXTURES / name).read_text(encoding="utf-8")
    fmt = format_for(name, text)
    assert fmt is not None
    return parse_bibliography(text, fmt, source=name)


def test_better_bibtex_bibtex_export() -> None:
    bib = load("bbt-bibtex.bib")
    assert [e.key for e in bib.entries] == [
        "Abawi:2004ks",
        "Abdelrahman:2015bs",
        "AbdulKudus:2016te",
        "Abdulla:2003p3896",
        "Abowd:2000jo",
    ]
    abawi = bib.by_key()["Abawi:2004ks"]
    assert abawi.entry_type == "inproceedings"
    # `{{Optical Tracking}}` and `D{\"o}rner` come out as plain text
    assert (
        abawi.title
        == "Accuracy in Optical Tracking with Fiducial Markers: An Accuracy Function for ARToolKit"
    )
    assert abawi.authors == ("Abawi, Daniel F", "Bienwald, Joachim", "Dörner, Ralf")
    assert abawi.year == "2004"  # written `year = 2004`, without braces
    assert abawi.container == "Third IEEE and ACM International Symposium on Mixed and Augmented Reality"
    assert abawi.pages == "260–261"
    assert abawi.doi == "10.1109/ISMAR.2004.8"
    assert abawi.isbn == "0769521916"
    assert abawi.files == ("~/BBTTEST/48EB765D-F196-4600-BB07-160322A89457.pdf",)
    assert abawi.line == 2
    abowd = bib.by_key()["Abowd:2000jo"]
    assert (abowd.volume, abowd.issue, abowd.line) == ("7", "1", 69)


def test_better_biblatex_arxiv_eprint() -> None:
    (entry,) = load("bbt-biblatex-arxiv.bib").entries
    assert entry.arxiv == "1412.2970"  # eprint + eprinttype = {arXiv}
    assert entry.year == "2014"  # from biblatex `date = {2014-12-09}`
    assert entry.title is not None
    assert entry.title.startswith("Lieb-Robinson Bounds, Arveson Spectrum")
    assert entry.url == "http://arxiv.org/abs/1412.2970"


def test_better_bibtex_windows_attachment_and_issn_is_no_isbn() -> None:
    (entry,) = load("bbt-windows-path.bib").entries
    assert entry.files == ("~\\BBTTEST\\storage\\Baltes_Staudinger_2000_Wisdom.pdf",)
    assert entry.isbn is None  # `issn = {1935-8237, 1935-8245}`
    assert entry.container == "Foundations and Trends® in Machine Learning"  # \textregistered{}


def test_jabref_exports() -> None:
    complex_bib = load("jabref-complex.bib")  # @Preamble, @String and free comments around entries
    assert [e.key for e in complex_bib.entries] == ["deBraga2001", "1102917", "1137631"]
    bardram = complex_bib.by_key()["1102917"]
    assert bardram.doi == "10.1007/s00779-005-0347-6"  # written `doi = {http://dx.doi.org/…}`
    bostrom = complex_bib.by_key()["1137631"]
    assert bostrom.doi == "10.1145/1137627.1137631"  # written as a doi.acm.org URL
    assert bostrom.authors[:3] == ("Boström, Gustav", "Wäyrynen, Jaana", "Bodén, Marine")
    assert bostrom.files == (
        "/Volumes/iDisk/Freie Universität Berlin/Semester 9/Softwareprozesse/p11-bostrom.pdf",
    )
    authors_bib = load("jabref-authors.bib")
    geiger = authors_bib.by_key()["GeigerHarrerLenhardEtAl2016"]
    assert geiger.authors == ("Geiger, Matthias", "Harrer, Simon", "Lenhard, Jörg", "Wirtz, Guido")
    assert geiger.files == ("geiger2016evolution.pdf",)  # JabRef's `:geiger2016evolution.pdf:PDF`
    betsy = authors_bib.by_key()["GeigerHarrerLenhard2016"]
    assert betsy.title == "Process Engine Benchmarking with Betsy – Current Status and Future Directions"
    assert authors_bib.by_key()["GeigerHarrerLenhardEtAl2015"].authors[2] == "Lenhard, Jörg"  # J{\"{o}}rg


def test_file_field_forms_of_zotero_and_mendeley() -> None:
    bib = load("written-forms.bib").by_key()
    assert bib["zotero_stock_2016"].files == (
        "/home/writer/Zotero/storage/MDQP3JWE/Holdgraf et al. - 2016.pdf",
        "/home/writer/Zotero/storage/MDQP3JWE/ncomms13654.html",
    )
    assert bib["zotero_stock_2016"].doi == "10.1038/ncomms13654"
    assert bib["zotero_stock_2016"].authors[1] == "Theunissen, Frédéric E."
    assert bib["zotero_windows_2016"].files == (
        "C:\\Users\\writer\\Zotero\\storage\\MDQP3JWE\\Holdgraf et al. - 2016.pdf",
    )
    assert bib["Andronov2018"].files == ("home/writer/Downloads/bty200.pdf",)  # as written; see bibfiles
    assert bib["Costa2021"].files == ()  # `file = {::}`
    assert bib["Costa2021"].authors == ("da Costa, Nuno M. C.", "World Health Organization")
    assert bib["MendeleyWindows2019"].files == (
        "C:/Users/writer/Documents/Mendeley Desktop/Writer - 2019.pdf",
    )


@pytest.mark.parametrize(
    ("value", "paths"),
    [
        ("Full Text PDF:/abs/path.pdf:application/pdf", ("/abs/path.pdf",)),
        ("/a.pdf;/b/c d.pdf", ("/a.pdf", "/b/c d.pdf")),  # Better BibTeX, several files
        (":relative/path.pdf:PDF", ("relative/path.pdf",)),  # JabRef
        ("Paper:sub/paper.pdf:PDF", ("sub/paper.pdf",)),
        ("file:///C:/Users/a%20b.pdf", ("C:/Users/a b.pdf",)),
        ("Snapshot:https\\://example.org/page:text/html", ()),  # a link, not a file
        ("internal-pdf://0123/x.pdf", ()),  # EndNote's own store
        ("a\\;b.pdf", ("a;b.pdf",)),
        ("::", ()),
    ],
)
def test_parse_file_field(value: str, paths: tuple[str, ...]) -> None:
    assert parse_file_field(value) == paths


def test_csl_json_and_csl_yaml_exports_of_one_library_agree() -> None:
    as_json = load("bbt-csl.json")
    as_yaml = load("bbt-csl.yaml")
    assert (as_json.format, as_yaml.format) == (BibFormat.CSL_JSON, BibFormat.CSL_YAML)
    keys = ["Adams2001", "Berndt1994", "Dunning2016", "Wordsworth1883"]
    assert [e.key for e in as_json.entries] == [e.key for e in as_yaml.entries] == keys
    for one, other in zip(as_json.entries, as_yaml.entries, strict=True):
        assert (one.authors, one.year, one.doi, one.url, one.container, one.pages) == (
            other.authors,
            other.year,
            other.doi,
            other.url,
            other.container,
            other.pages,
        )
    adams = as_json.by_key()["Adams2001"]
    assert adams.title == "The physical volcanology of the 1600 eruption of Huaynaputina, southern Peru"
    assert as_yaml.by_key()["Adams2001"].title == adams.title  # YAML writes **Huaynaputina**
    assert adams.year == "2014"  # date-parts with the year as a string
    assert adams.authors[0] == "Adams, Nancy K"
    dunning = as_json.by_key()["Dunning2016"]
    assert dunning.title is not None
    assert "<span" not in dunning.title
    assert as_json.by_key()["Berndt1994"].doi == "10.1484/J.SE.2.303788"
    assert as_json.by_key()["Berndt1994"].line == 75
    assert as_yaml.by_key()["Berndt1994"].line == 34


def test_ris_exports_with_pandocs_keys() -> None:
    full = load("rispy-full.ris")
    # both records say `ID  - 12345`: pandoc keeps the first and calls the second `12345a`
    assert [e.key for e in full.entries] == ["12345", "12345a"]
    first = full.entries[0]
    assert first.title == "Title of reference"
    assert first.authors == ("Marx, Karl", "Lindgren, Astrid")
    assert (first.year, first.volume, first.issue, first.pages) == ("2014", "9", "3", "e0815")
    assert first.url == "http://example_url.com"
    assert first.files == ()  # `L2  - http://example.com` is a link, not a file
    examples = load("rispy-examples.ris")
    fanning = examples.entries[0]
    assert fanning.key == "2006713348"
    assert fanning.doi == "10.1177/2325967120950040"  # `DO  - http://dx.doi.org/…`
    assert fanning.isbn is None  # `SN  - 2325-9671` is an ISSN
    # no ID: pandoc's key is the authors' family names and the PY value, then a, b … for repeats
    assert [e.key for e in examples.entries[1:]] == ["Shannon_1948/07//", "Shannon_1948/07//a"]
    assert examples.entries[1].pages == "379–423"


def test_ris_attachments() -> None:
    text = "TY  - JOUR\nTI  - Sharing data\nAU  - Piwowar, Heather A.\nPY  - 2007/03/21/\nL1  - files/7/Piwowar.pdf\nL1  - file:///home/me/x.pdf\nER  - \n"
    (entry,) = parse_bibliography(text, BibFormat.RIS).entries
    assert entry.key == "Piwowar_2007/03/21/"
    assert entry.files == ("files/7/Piwowar.pdf", "/home/me/x.pdf")


@pytest.mark.parametrize(
    ("fmt", "text", "line", "reason"),
    [
        (
            BibFormat.BIBTEX,
            "@article{a,\n  title = {Open\n\n@book{b, title = {B}}\n",
            5,  # where pandoc stops: the end of the file, inside the brace opened on line 2
            "never closed",
        ),
        (BibFormat.BIBTEX, "@misc{c title = {no comma}}\n", 1, "expected `,` after the key"),
        (BibFormat.CSL_JSON, '[\n  {"id": "a",\n   "title": "x",,}\n]', 3, "not valid JSON"),
        (BibFormat.CSL_JSON, '{"id": "a"}', 1, "list of items"),
        (BibFormat.CSL_JSON, '[{"title": "no id"}]', None, "item 1 has no `id`"),
        (BibFormat.CSL_YAML, "references:\n- id: a\n  title: [unclosed\n", 4, "not valid YAML"),
        (BibFormat.RIS, "TY  - JOUR\nTI  - A\nER  - \n\nTY  - BOOK\nTI  - never ends\n", 5, "does not end"),
        (BibFormat.RIS, "just some text\n", 1, "no RIS record"),
    ],
)
def test_bad_input_is_a_clear_error_with_its_line(
    fmt: BibFormat, text: str, line: int | None, reason: str
) -> None:
    with pytest.raises(BibliographyError, match=reason) as caught:
        parse_bibliography(text, fmt, source="refs")
    assert caught.value.line == line
    assert str(caught.value).startswith("refs" + (f", line {line}" if line else ""))


def test_duplicate_keys_are_a_warning_and_the_first_counts() -> None:
    text = "@book{a, title = {First}}\n@book{a, title = {Second}}\n@book{b, title = {B}}\n"
    bib = parse_bibliography(text, BibFormat.BIBTEX)
    assert [(e.key, e.title) for e in bib.entries] == [("a", "First"), ("b", "B")]
    assert bib.warnings == ("the key 'a' is defined again (line 2); the first definition is used",)
    json_bib = parse_bibliography(
        '[{"id": "a", "title": "1"}, {"id": "a", "title": "2"}]', BibFormat.CSL_JSON
    )
    assert [e.title for e in json_bib.entries] == ["1"]
    assert len(json_bib.warnings) == 1


def test_duplicate_works() -> None:
    a = BibEntry("a", "article", title="Drought in the North", year="2020", doi="10.1/ABC")
    b = BibEntry("b", "article", title="Something else", year="2019", doi="10.1/abc")
    c = BibEntry("c", "article", title="Drought in the north!", year="2020")
    d = BibEntry("d", "article", title="Drought in the North", year="2021")
    assert duplicate_entries([a, b, c, d]) == [(a, b), (a, c)]
    assert normalised_title("Él  Niño: a—review") == "el nino a review"


def test_identifiers() -> None:
    assert bare_doi("https://doi.org/10.1000/xyz.123.") == "10.1000/xyz.123"
    assert bare_doi("doi:10.1000/a(b)c") == "10.1000/a(b)c"
    assert bare_doi("not a doi") is None
    assert arxiv_id("https://arxiv.org/abs/1502.01852v2") == "1502.01852v2"
    assert arxiv_id(None, "10.48550/arXiv.1910.07512") == "1910.07512"
    assert arxiv_id("arXiv preprint arXiv:hep-th/9901001") == "hep-th/9901001"
    assert first_isbn("978-1-4503-3145-6, 1-59593-411-1") == "9781450331456"
    assert first_isbn("1935-8237") is None


@pytest.mark.parametrize(
    ("name", "text", "fmt"),
    [
        ("refs.bib", "", BibFormat.BIBTEX),
        ("refs.ris", "", BibFormat.RIS),
        ("refs.json", '[{"id": "a"}]', BibFormat.CSL_JSON),
        ("refs.yaml", "references:\n- id: a\n", BibFormat.CSL_YAML),
        ("refs.yml", '[{"id": "a"}]', BibFormat.CSL_YAML),  # YAML reads JSON
        ("refs.json", "- id: a\n", BibFormat.CSL_YAML),  # a .json file that holds YAML
        ("refs.txt", "", None),
    ],
)
def test_format_for(name: str, text: str, fmt: BibFormat | None) -> None:
    assert format_for(name, text) == fmt
    if fmt is not None and text:
        assert [e.key for e in parse_bibliography(text, fmt).entries] == ["a"]


@pytest.mark.parametrize(
    ("fmt", "text", "where"),
    [
        (BibFormat.CSL_JSON, '[\n  {"id": "a",\n   "title": "x",,}\n]', "refs, line 3, column 17:"),
        (BibFormat.CSL_YAML, "references:\n- id: a\n  title: [unclosed\n", "refs, line 4, column 1:"),
    ],
)
def test_a_syntax_error_in_csl_says_its_column_too(fmt: BibFormat, text: str, where: str) -> None:
    """Line and column, as for BibTeX, so the writer's editor goes straight to it (issue 43 #11)."""
    with pytest.raises(BibliographyError) as caught:
        parse_bibliography(text, fmt, source="refs")
    assert str(caught.value).startswith(where)

"""Pandoc citations read as pandoc reads them.

Cases come from pandoc's own documentation and tests (jgm/pandoc at commit 0a9a2f26): MANUAL.txt
"Citation syntax", test/markdown-citations.txt (with its expected test/markdown-citations.native),
and test/command/{5099,6026,6836,7632,8254,citeproc-author-in-text-suffix,cite-in-inline-note}.md.
Expected keys and modes were also checked against pandoc 3.9 (`pandoc -t json`); where CiteDesk
differs on purpose (no citations inside bare URLs, headings) the test says so.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citedesk.core.document.citekeys import (
    CiteMode,
    cited_keys,
    find_citations,
    is_simple_key,
    render_key,
)
from citedesk.core.document.markdown import scan_markdown

N, S, T = CiteMode.NORMAL, CiteMode.SUPPRESS_AUTHOR, CiteMode.AUTHOR_IN_TEXT


def read(text: str) -> list[list[tuple[str, CiteMode, str, str]]]:
    """Each group as (key, mode, prefix, suffix) per item, prefix and suffix as written."""
    return [
        [
            (
                item.key,
                item.mode,
                text[item.prefix[0] : item.prefix[1]],
                text[item.suffix[0] : item.suffix[1]],
            )
            for item in group.items
        ]
        for group in find_citations(text)
    ]


def keys_and_modes(text: str) -> list[tuple[str, CiteMode]]:
    return [(item.key, item.mode) for group in find_citations(text) for item in group.items]


# MANUAL.txt, "Citation syntax"
def test_manual_bracketed_group_with_three_keys() -> None:
    text = "Blah blah [@doe99; @smith2000; @smith2004].\n"
    (group,) = find_citations(text)
    assert text[group.start : group.end] == "[@doe99; @smith2000; @smith2004]"
    assert group.keys == ("doe99", "smith2000", "smith2004")
    assert group.bracket == (group.start, group.end)
    assert group.separator == "; "
    assert [text[i.key_span[0] : i.key_span[1]] for i in group.items] == ["doe99", "smith2000", "smith2004"]


def test_manual_prefix_locator_and_suffix() -> None:
    text = "Blah blah [see @doe99, pp. 33-35 and *passim*; @smith04, chap. 1].\n"
    assert read(text) == [[("doe99", N, "see", ", pp. 33-35 and *passim*"), ("smith04", N, "", ", chap. 1")]]
    first, second = find_citations(text)[0].items
    assert first.locator is not None
    assert second.locator is not None
    assert (first.locator.label, first.locator.value) == ("page", "33-35")
    assert text[first.locator.label_span[0] : first.locator.label_span[1]] == "pp."
    assert (second.locator.label, second.locator.value) == ("chapter", "1")


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("See @Foo_bar.baz. Next.", "Foo_bar.baz"),  # the final period is not internal
        ("See @{Foo_bar.baz.} Next.", "Foo_bar.baz."),  # braces keep it
        ("See @Foo_bar--baz here.", "Foo_bar"),  # repeated punctuation ends the key
        ("See @a:b#c$d%e&f-g+h?i<j>k~l/m here.", "a:b#c$d%e&f-g+h?i<j>k~l/m"),
        (
            "[@{https://example.com/bib?name=foobar&date=2000}, p.  33]",
            "https://example.com/bib?name=foobar&date=2000",
        ),
    ],
)
def test_manual_key_rules(text: str, key: str) -> None:
    assert [k for k, _ in keys_and_modes(text)] == [key]


def test_manual_braced_locators() -> None:
    text = (
        "[@smith{ii, A, D-Z}, with a suffix]\n"
        "[@smith, {pp. iv, vi-xi, (xv)-(xvii)} with suffix here]\n"
        "[@smith{}, 99 years later]\n"
    )
    first, second, third = (g.items[0] for g in find_citations(text))
    assert first.locator is not None
    assert (first.locator.label, first.locator.value) == ("", "ii, A, D-Z")
    assert second.locator is not None
    assert (second.locator.label, second.locator.value) == ("page", "iv, vi-xi, (xv)-(xvii)")
    assert third.locator is None  # `{}` only stops "99 years later" being read as a locator
    assert text[third.suffix[0] : third.suffix[1]] == "{}, 99 years later"


def test_manual_suppress_author_and_in_text() -> None:
    assert keys_and_modes("Smith says blah [-@smith04].") == [("smith04", S)]
    assert keys_and_modes("@smith04 says blah.") == [("smith04", T)]
    text = "@smith04 [p. 33] says blah."
    (group,) = find_citations(text)
    assert read(text) == [[("smith04", T, "", "p. 33")]]
    assert group.in_text
    assert group.bracket is not None
    assert text[group.start : group.end] == "@smith04 [p. 33]"
    assert text[group.bracket[0] : group.bracket[1]] == "[p. 33]"
    item = group.items[0]
    assert item.locator is not None
    assert (item.locator.label, item.locator.value) == ("page", "33")
    assert text[item.token[0] : item.token[1]] == "@smith04"


# test/markdown-citations.txt and its expected .native
MARKDOWN_CITATIONS = """\
-   [@nonexistent]

-   @nonexistent

-   @item1 says blah.

-   @item1 [p. 30] says blah.

-   @item1 [p. 30, with suffix] says blah.

-   @item1 [-@item2 p. 30; see also @пункт3] says blah.

-   A citation group [see @item1 chap. 3; also @пункт3 p. 34-35].

-   Another one [see @item1 p. 34-35].

-   Citation with a suffix and locator [@item1 pp. 33, 35-37, and nowhere else].

-   Citation with suffix only [@item1 and nowhere else].

-   With some markup [*see* @item1 p. **32**].

[^1]: @пункт3 [p. 12] and a citation without locators [@пункт3].

[^2]: Some citations [see @item1 chap. 3; @пункт3; @item2].

[^3]: Like a citation without author: [-@item1], and now Doe with a locator [-@item2 p. 44].
"""


def test_pandoc_markdown_citations_suite() -> None:
    assert read(MARKDOWN_CITATIONS) == [
        [("nonexistent", N, "", "")],
        [("nonexistent", T, "", "")],
        [("item1", T, "", "")],
        [("item1", T, "", "p. 30")],
        [("item1", T, "", "p. 30, with suffix")],
        [("item1", T, "", ""), ("item2", S, "", " p. 30"), ("пункт3", N, "see also", "")],
        [("item1", N, "see", " chap. 3"), ("пункт3", N, "also", " p. 34-35")],
        [("item1", N, "see", " p. 34-35")],
        [("item1", N, "", " pp. 33, 35-37, and nowhere else")],
        [("item1", N, "", " and nowhere else")],
        [("item1", N, "*see*", " p. **32**")],
        [("пункт3", T, "", "p. 12")],
        [("пункт3", N, "", "")],
        [("item1", N, "see", " chap. 3"), ("пункт3", N, "", ""), ("item2", N, "", "")],
        [("item1", S, "", "")],
        [("item2", S, "", " p. 44")],
    ]
    locators = {
        MARKDOWN_CITATIONS[i.suffix[0] : i.suffix[1]]: (i.locator.label, i.locator.value)
        if i.locator
        else None
        for g in find_citations(MARKDOWN_CITATIONS)
        for i in g.items
    }
    assert locators[" pp. 33, 35-37, and nowhere else"] == ("page", "33, 35-37")
    assert locators[" and nowhere else"] is None
    assert locators[" chap. 3"] == ("chapter", "3")
    assert locators[" p. **32**"] == ("page", "**32**")
    assert locators["p. 30, with suffix"] == ("page", "30")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("(@citation\n", [("citation", T)]),  # test/command/5099.md
        (
            "@{https://openreview.net/forum?id=HkwoSDPgg}\n",
            [("https://openreview.net/forum?id=HkwoSDPgg", T)],
        ),  # 6026
        ("Wow![@legras_michel_2010]\n", [("legras_michel_2010", N)]),  # 8254
        ("foo^[bar [@doe]]\n", [("doe", N)]),  # cite-in-inline-note
        ("@a [p. 33; @b]\n", [("a", T), ("b", N)]),  # citeproc-author-in-text-suffix
        ("[@a]{.class}\n", [("a", T)]),  # 7632: a span holding an in-text citation
        ("[@a](url)\n", [("a", T)]),  # 7632: a link holding an in-text citation
    ],
)
def test_pandoc_command_tests(text: str, expected: list[tuple[str, CiteMode]]) -> None:
    assert keys_and_modes(text) == expected


def test_example_list_labels_are_not_citations() -> None:
    # test/command/6836.md: `(@foo)` starts an example list and `@foo` refers to it
    text = "[@buchanan]\n\n(@foo) An example.\n\nSee @foo.\n\n[@buchanan]\n"
    assert keys_and_modes(text) == [("buchanan", N), ("buchanan", N)]


def test_in_text_author_followed_by_a_group_joins_it() -> None:
    text = "@item1 [see @item2] says blah."
    (group,) = find_citations(text)
    assert [(i.key, i.mode) for i in group.items] == [("item1", T), ("item2", N)]
    assert text[group.start : group.end] == "@item1 [see @item2]"


def test_in_text_locator_may_follow_a_line_break() -> None:
    text = "As @doe99\n[p. 4] shows, and as @roe\n\n[p. 5] does not."
    groups = find_citations(text)
    assert [text[g.start : g.end] for g in groups] == ["@doe99\n[p. 4]", "@roe"]


@pytest.mark.parametrize(
    "text",
    [
        "Write to john@example.com or jane.doe@uni.edu today.",  # e-mail: `@` after a word
        "Not a.@b either.",  # after a period
        "Nor *x*@y after emphasis.",
        "Escaped \\@key is text.",
        "Inline `code [@x] and @y` is code.",
        "```\n[@fenced] @fenced2\n```\n",
        "    [@indented] code block\n",
        "See https://x.org/@user/[@a] in a URL.",
        "A link [text](https://x.org/@z) target.",
        "Math $E = mc^2 @w$ is math.",
        "[@a;] has an empty item, so it is no group and @ then nothing.",
        "A footnote reference [^note] and [@a][^] and @ alone.",
    ],
)
def test_not_citations(text: str) -> None:
    found = keys_and_modes(text)
    assert all(key in {"a"} for key, _ in found), found
    if "[@a;]" in text:  # pandoc reads the `@a` inside as an in-text citation
        assert found == [("a", T)]


def test_link_text_is_not_a_group() -> None:
    # pandoc 3.9: `[@a; @b](@ex)` is a link whose text holds two in-text citations
    assert keys_and_modes("[@a; @b](@ex) `@a`]\n") == [("a", T), ("b", T)]
    assert keys_and_modes("[see @a](https://x.org) and [@b]\n") == [("a", T), ("b", N)]


def test_reference_link_after_brackets_is_a_link_not_a_group() -> None:
    # pandoc 3.9: `[@a][@b]` is `[`, in-text @a, `]`, then the group [@b]; `[@a][^1]` is a group
    assert keys_and_modes("[@a][@b]\n") == [("a", T), ("b", N)]
    assert keys_and_modes("[@a][^1]\n\n[^1]: A note.\n") == [("a", N)]
    assert keys_and_modes("[@a] [foo]\n") == [("a", N)]


def test_url_keys_end_where_pandoc_ends_them() -> None:
    text = "See [@https://x.org/a?b=c; @z] and @{https://x.org/b}; then @c."
    # `=` is not key punctuation: pandoc cites `https://x.org/a?b` (test/command/6026.md)
    assert keys_and_modes(text) == [("https://x.org/a?b", N), ("z", N), ("https://x.org/b", T), ("c", T)]


def test_dash_before_at_sign() -> None:
    # pandoc 3.9: `foo-@y` is text then an in-text @y; `--@a` is a dash then @a
    assert keys_and_modes("-@x and foo-@y and a --@z\n") == [("x", S), ("y", T), ("z", T)]


def test_citations_in_footnote_definitions_and_headings_are_found() -> None:
    text = "# On @nope\n\nText.[^1]\n\n[^1]: See @doe99 [p. 3].\n"
    assert keys_and_modes(text) == [("nope", T), ("doe99", T)]  # pandoc cites @nope in the heading


def test_offsets_cover_exact_text() -> None:
    text = "Intro. Blah [ see @doe99 , p. 3 ;\n  -@{roe:2020.} ] end."
    (group,) = find_citations(text)
    first, second = group.items
    assert text[first.start : first.end] == "see @doe99 , p. 3"
    assert text[first.token[0] : first.token[1]] == "@doe99"
    assert text[second.token[0] : second.token[1]] == "-@{roe:2020.}"
    assert text[second.key_span[0] : second.key_span[1]] == "roe:2020."
    assert second.suppress_author
    assert second.braced
    assert not first.braced
    assert group.separator == ";\n  "
    assert cited_keys(find_citations(text)) == ["doe99", "roe:2020."]


def test_key_rendering_round_trips() -> None:
    for key in ["doe99", "Foo_bar.baz", "https://x.org/a?b=c", "a.", "key:with--dashes", "{braced}x"]:
        rendered = render_key(key)
        assert rendered.startswith("@{") != (is_simple_key(key) and "://" not in key)
        assert keys_and_modes(f"See [{rendered}; @z].") == [(key, N), ("z", N)]
    for bad in ["", "two words", "open{"]:
        with pytest.raises(ValueError, match="cannot cite"):
            render_key(bad)


def test_many_unclosed_brackets_stay_linear() -> None:
    text = "[" * 20000 + " @a"
    assert keys_and_modes(text) == [("a", T)]


PIECES = st.sampled_from(
    [
        "@a",
        "-@b",
        "@{c.d.}",
        "[",
        "]",
        ";",
        " ",
        "\n",
        "\n\n",
        "see ",
        ", p. 3",
        "`",
        "```\n",
        "x@y.org",
        "$",
        "\\",
        "*",
        "_",
        "(",
        ")",
        "{",
        "}",
        "^[",
        "[^1]",
        "https://u.org/@v ",
        "(@ex) ",
        "[@a; @b]",
        "@a [p. 2]",
        "word",
        ".",
        "# ",
        "> ",
        "- ",
        "    ",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(PIECES, max_size=40).map("".join))
def test_any_text_parses_into_ordered_groups_outside_code(text: str) -> None:
    layout = scan_markdown(text)
    groups = find_citations(text, layout)
    previous_end = 0
    for group in groups:
        assert previous_end <= group.start < group.end <= len(text)
        previous_end = group.end
        for item in group.items:
            assert not layout.code.overlaps(*item.token)
            assert group.start <= item.token[0] < item.token[1] <= group.end
            written = text[item.key_span[0] : item.key_span[1]]
            assert written == item.key
            assert text[item.token[0] : item.token[1]].lstrip("-").startswith("@")

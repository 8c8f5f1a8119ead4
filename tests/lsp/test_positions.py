"""Offsets ↔ LSP positions, exact in each encoding the protocol names."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citedesk.lsp.positions import UTF8, UTF16, UTF32, PositionMap

TEXT = "a😀b\r\nç [9]\n\n𝔸x"


@pytest.mark.parametrize(
    ("encoding", "offset", "expected"),
    [
        (UTF16, 2, (0, 3)),  # after the emoji: two UTF-16 units
        (UTF8, 2, (0, 5)),  # four UTF-8 bytes
        (UTF32, 2, (0, 2)),
        (UTF16, 7, (1, 2)),  # `[9]` after `ç `: one unit each
        (UTF8, 7, (1, 3)),  # ç is two bytes
        (UTF16, 4, (0, 4)),  # inside \r\n: the line's end
        (UTF16, 14, (3, 3)),  # after 𝔸x
    ],
)
def test_positions_count_units_of_the_negotiated_encoding(
    encoding: str, offset: int, expected: tuple[int, int]
) -> None:
    assert PositionMap(TEXT, encoding).position(offset) == expected


def test_a_position_past_a_line_end_is_the_line_end_and_the_middle_of_a_pair_its_start() -> None:
    positions = PositionMap(TEXT, UTF16)
    assert positions.offset(0, 99) == 3  # before \r\n
    assert positions.offset(0, 2) == 1  # the middle of 😀's surrogate pair
    assert positions.offset(9, 0) == len(TEXT)


@given(
    st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=60),
    st.sampled_from([UTF8, UTF16, UTF32]),
)
def test_every_offset_not_inside_a_line_break_round_trips(text: str, encoding: str) -> None:
    positions = PositionMap(text, encoding)
    for offset in range(len(text) + 1):
        if 0 < offset < len(text) and text[offset - 1] == "\r" and text[offset] == "\n":
            continue
        assert positions.offset(*positions.position(offset)) == offset

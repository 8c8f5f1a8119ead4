"""The evented document state: observers hear each change once, after all of an update is set."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from citedesk.desk.state import DocumentState


def test_observers_hear_each_change_after_the_whole_update() -> None:
    state = DocumentState()
    heard: list[tuple[str, Any, Any]] = []
    state.on_change("report", lambda value: heard.append(("report", value, state.text)))
    state.on_change("text", lambda value: heard.append(("text", value, state.generation)))
    report = object()
    state.update(text="one", report=report, generation=1)
    assert heard == [("text", "one", 1), ("report", report, "one")]  # each saw the whole update
    heard.clear()
    state.update(text="one", report=report)  # nothing changed
    assert heard == []
    state.update(report=object())  # another report, even an equal one, is a change
    assert [name for name, *_ in heard] == ["report"]


def test_an_observer_can_stop_and_fields_are_checked() -> None:
    state = DocumentState()
    heard: list[Any] = []
    stop = state.on_change("path", heard.append)
    state.update(path=Path("a.md"))
    stop()
    state.update(path=Path("b.md"))
    assert heard == [Path("a.md")]
    assert state.path == Path("b.md")
    with pytest.raises(KeyError):
        state.on_change("title", heard.append)
    with pytest.raises(KeyError):
        state.update(title="x")

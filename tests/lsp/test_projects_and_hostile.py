"""`citedesk lsp` end to end: a chapter finds its project (a LaTeX thesis's main file and
bibliography, a Quarto book's `_quarto.yml`), and a hostile client (malformed JSON-RPC, unknown
methods, a huge document, a bad command) gets a logged error while the server goes on."""

from __future__ import annotations

import inspect
import io
import json
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from citedesk.lsp.server import MAX_DOCUMENT_CHARS
from citedesk.lsp.wire import MAX_MESSAGE_BYTES, REFUSED, BoundedInput
from tests.lsp.helpers import SAMPLES, SERVER, codes, initialize_params, logged, open_document, pushed

QUARTO = "project:\n  type: book\nbook:\n  title: Canopy\n  chapters:\n    - index.qmd\n    - chapters/heat.qmd\nbibliography: refs.bib\n"
BIB = "@article{moreau2021,\n  author = {Moreau, Léa and Okafor, Tunde},\n  title = {Tree canopy and afternoon heat},\n  year = {2021}\n}\n"
HEAT = "# Heat\n\nCanopy cover cools streets in the afternoon [@moreau2012].\n"


@pytest_lsp.fixture(config=SERVER)  # type: ignore[untyped-decorator]
async def client(lsp_client: LanguageClient, tmp_path: Path) -> AsyncIterator[None]:
    await lsp_client.initialize_session(initialize_params(tmp_path, {"offline": True, "judge": "none"}))
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio(loop_scope="function")
async def test_a_latex_chapter_is_read_with_its_main_files_bibliography(
    client: LanguageClient, tmp_path: Path
) -> None:
    shutil.copytree(SAMPLES / "thesis", tmp_path / "thesis")
    chapter = tmp_path / "thesis" / "chapters" / "background.tex"
    uri = open_document(client, chapter, chapter.read_text(encoding="utf-8"), "latex")
    shown = await pushed(client, uri, lambda shown: "unknown_key" in codes(shown))
    said = " ".join(d.message for d in shown if d.code == "unknown_key")
    assert str(tmp_path / "thesis" / "refs.bib") in said  # the main file's \bibliography{refs}
    assert "did you mean \\citep{lindgren20" in said


@pytest.mark.asyncio(loop_scope="function")
async def test_a_quarto_chapter_is_read_with_its_books_bibliography(
    client: LanguageClient, tmp_path: Path
) -> None:
    book = tmp_path / "book"
    (book / "chapters").mkdir(parents=True)
    (book / "_quarto.yml").write_text(QUARTO, encoding="utf-8")
    (book / "index.qmd").write_text("# Preface\n\nA book about trees.\n", encoding="utf-8")
    (book / "refs.bib").write_text(BIB, encoding="utf-8")
    uri = open_document(client, book / "chapters" / "heat.qmd", HEAT, "quarto")
    shown = await pushed(client, uri, lambda shown: "unknown_key" in codes(shown))
    (typo,) = [d for d in shown if d.code == "unknown_key"]
    assert "did you mean @moreau2021" in typo.message  # the chapter names no bibliography; the book does

    line = "Shade helps [@oka"
    text = HEAT + line
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(version=2, uri=uri),
            [types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )
    completed = await client.text_document_completion_async(
        types.CompletionParams(types.TextDocumentIdentifier(uri), types.Position(3, len(line)))
    )
    assert isinstance(completed, types.CompletionList)
    assert [item.label for item in completed.items] == ["moreau2021"]


async def _send_raw(client: LanguageClient, body: bytes) -> None:
    """Bytes on the server's stdin as they are, header and all (what a broken client sends)."""
    writer = client.protocol.writer
    assert writer is not None
    done = writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    if inspect.isawaitable(done):
        await done


@pytest.mark.asyncio(loop_scope="function")
async def test_malformed_json_rpc_unknown_notifications_and_bad_commands_are_logged_and_the_server_goes_on(
    client: LanguageClient, tmp_path: Path
) -> None:
    await _send_raw(client, b"{this is not json")
    await logged(client, "JSONDecodeError")
    client.protocol.notify("citedesk/noSuchNotification", {"x": 1})  # ignored, as the protocol says
    await client.workspace_execute_command_async(  # three arguments, not four
        types.ExecuteCommandParams("citedesk.review", ["file:///nowhere.md", "one", 2])
    )
    await logged(client, "takes [uri, generation, index, decision]")
    uri = open_document(client, tmp_path / "draft.md", "A claim [9].\n")
    await pushed(client, uri, lambda shown: "fabricated" in codes(shown))  # and it still audits


@pytest.mark.asyncio(loop_scope="function")
async def test_a_document_too_large_to_check_is_said_and_left_unchecked(
    client: LanguageClient, tmp_path: Path
) -> None:
    huge = "A claim [9]. " * (MAX_DOCUMENT_CHARS // 13 + 1)
    uri = (tmp_path / "huge.md").as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "markdown", 1, huge))
    )
    said = await logged(client, "too large to check")
    assert "huge.md" in said
    assert not await pushed(client, uri, lambda shown: True)  # cleared, never a partial audit
    small = open_document(client, tmp_path / "draft.md", "A claim [9].\n")
    await pushed(client, small, lambda shown: "fabricated" in codes(shown))


@pytest.mark.asyncio(loop_scope="function")
async def test_a_message_longer_than_any_document_is_read_past_not_held(
    client: LanguageClient, tmp_path: Path
) -> None:
    await _send_raw(client, b" " * (MAX_MESSAGE_BYTES + 1))
    said = await logged(client, "was read past")
    assert f"{MAX_MESSAGE_BYTES + 1} bytes" in said
    uri = open_document(client, tmp_path / "draft.md", "A claim [9].\n")
    await pushed(client, uri, lambda shown: "fabricated" in codes(shown))  # the next message is read


def test_the_bounded_input_stands_a_short_notice_for_a_long_message_and_reads_on() -> None:
    long, short = b"x" * 5000, b'{"jsonrpc": "2.0", "method": "exit"}'
    stream = io.BytesIO(
        b"Content-Length: %d\r\n\r\n" % len(long) + long + b"Content-Length: %d\r\n\r\n" % len(short) + short
    )
    bounded = BoundedInput(stream, limit=1000)
    header = bounded.readline()
    assert bounded.readline() == b"\r\n"
    notice = bounded.read(int(header.split(b":")[1]))
    assert json.loads(notice) == {
        "jsonrpc": "2.0",
        "method": REFUSED,
        "params": {"bytes": 5000, "limit": 1000},
    }
    assert bounded.readline() == b"Content-Length: %d\r\n" % len(short)
    assert bounded.readline() == b"\r\n"
    assert bounded.read(len(short)) == short

"""`citedesk lsp` in a real editor: headless Neovim and its built-in client.

Neovim starts the server with the set-up docs/editors.md gives (its Lua block, run as is), opens a
Markdown draft with a fabricated `[9]`, waits for the diagnostics, applies the preferred quick fix through its own workspace-edit code,
writes the file and quits. What it saw comes back as JSON; the file on disk must have lost ` [9]`
and nothing else, and the server and its audit child must end with the editor.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

NVIM = shutil.which("nvim")
pytestmark = pytest.mark.skipif(NVIM is None, reason="Neovim (nvim) is not installed")

WAIT_MS = 120_000
"""A guard, not a timing: the first audit loads the audit child's stages (a few seconds here)."""
WATCHDOG_S = 300
"""Neovim itself is stopped after this long, whatever it waits for."""
GONE_S = 30.0
"""The server and its audit child end within this after Neovim (well under a second here)."""
DRAFT = (
    "# Draft\n\n"
    "Street trees cool the pavement below them by several degrees in summer [1]. "
    "Shade also lowers what households spend on cooling [9].\n\n"
    "## References\n\n"
    "1. Moreau, L. (2021). Tree canopy and afternoon heat. Urban Climate, 12, 40-52.\n"
)

EDITORS = Path(__file__).resolve().parents[2] / "docs" / "editors.md"
DOCUMENTED_CMD = '{ "citedesk", "lsp" }'
"""How docs/editors.md starts the server; the test starts this checkout's instead."""
SCRIPT = """
local out = OUT
local function finish(seen)
  local file = io.open(out, "w")
  file:write(vim.fn.json_encode(seen))
  file:close()
  vim.cmd("qall!")
end

local function fabricated()
  for _, d in ipairs(vim.diagnostic.get(0)) do
    if d.code == "fabricated" then return d end
  end
end

vim.api.nvim_create_autocmd("VimEnter", { callback = function() vim.schedule(function()
  local seen = { diagnostics = {} }
  local client = vim.lsp.get_client_by_id(citedesk_id)
  seen.server_pid = client.rpc.pid
  if not vim.wait(WAIT_MS, function() return fabricated() ~= nil end, 100) then
    seen.error = "no fabricated diagnostic within the wait"
    return finish(seen)
  end
  for _, d in ipairs(vim.diagnostic.get(0)) do
    table.insert(seen.diagnostics, {
      code = d.code, severity = d.severity, source = d.source,
      lnum = d.lnum, col = d.col, end_lnum = d.end_lnum, end_col = d.end_col,
    })
  end
  local d = fabricated()
  local lsp_diagnostic = {
    range = {
      start = { line = d.lnum, character = d.col },
      ["end"] = { line = d.end_lnum, character = d.end_col },
    },
    severity = d.severity, code = d.code, source = d.source, message = d.message,
  }
  local responses = vim.lsp.buf_request_sync(0, "textDocument/codeAction", {
    textDocument = vim.lsp.util.make_text_document_params(0),
    range = lsp_diagnostic.range,
    context = { diagnostics = { lsp_diagnostic } },
  }, WAIT_MS)
  seen.preferred = 0
  for _, response in pairs(responses or {}) do
    for _, action in ipairs(response.result or {}) do
      if action.isPreferred then
        seen.preferred = seen.preferred + 1
        seen.title = action.title
        vim.lsp.util.apply_workspace_edit(action.edit, "utf-16")
      end
    end
  end
  seen.children = vim.api.nvim_get_proc_children(seen.server_pid)
  vim.cmd("write")
  finish(seen)
end) end })
"""


def _lua(value: object) -> str:
    """A Python string, number or list of strings as a Lua literal (JSON strings are Lua strings)."""
    if isinstance(value, list):
        return "{ " + ", ".join(_lua(v) for v in value) + " }"
    return json.dumps(value)


def _documented_lua() -> str:
    """The Neovim set-up docs/editors.md gives (its one Lua block): the test runs what writers copy."""
    blocks: list[str] = re.findall(r"```lua\n(.*?)```", EDITORS.read_text(encoding="utf-8"), re.DOTALL)
    assert len(blocks) == 1
    return blocks[0]


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def test_neovim_shows_a_fabricated_marker_and_its_quick_fix_removes_only_it(tmp_path: Path) -> None:
    assert NVIM is not None
    draft = tmp_path / "draft.md"
    draft.write_text(DRAFT, encoding="utf-8")
    seen_path = tmp_path / "seen.json"
    init = tmp_path / "init.lua"
    setup = _documented_lua()
    assert DOCUMENTED_CMD in setup
    init.write_text(
        setup.replace(DOCUMENTED_CMD, _lua([sys.executable, "-m", "citedesk", "lsp"]))
        + SCRIPT.replace("OUT", _lua(str(seen_path))).replace("WAIT_MS", str(WAIT_MS)),
        encoding="utf-8",
    )
    environment = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")}  # Neovim's LSP log
    run = subprocess.run(
        [NVIM, "--headless", "--clean", "-u", str(init), str(draft)],
        cwd=tmp_path,
        env=environment,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=WATCHDOG_S,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    seen = json.loads(seen_path.read_text(encoding="utf-8"))
    assert "error" not in seen, seen

    errors = [d for d in seen["diagnostics"] if d["severity"] == 1]  # vim.diagnostic.severity.ERROR
    assert [d["code"] for d in errors] == ["fabricated"]
    (error,) = errors
    lines = DRAFT.splitlines()
    line = next(i for i, text in enumerate(lines) if "[9]" in text)
    column = lines[line].index("[9]")  # ASCII: bytes, UTF-16 units and characters agree
    assert (error["lnum"], error["col"], error["end_lnum"], error["end_col"]) == (
        line,
        column,
        line,
        column + 3,
    )
    assert error["source"] == "citedesk"

    assert seen["preferred"] == 1
    assert draft.read_text(encoding="utf-8") == DRAFT.replace(" [9]", "")  # the marker, nothing else

    pids = [seen["server_pid"], *seen["children"]]
    assert seen["children"], "the server's audit child was running while Neovim was"
    deadline = time.monotonic() + GONE_S
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [p for p in pids if _alive(p)], "the server or its audit child outlived Neovim"

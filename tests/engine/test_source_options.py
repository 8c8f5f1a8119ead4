"""An audit's options reach the sources' options by name: a setting both hold is copied as it is
(`engine.sourcing.SAME_NAMED`), and every other source option is made from the audit's options."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

from citedesk.engine.sourcing import SAME_NAMED, source_options
from citedesk.engine.state import AuditOptions
from citedesk.sources.resolved import SourceOptions


def test_every_source_option_an_audit_sets_reaches_the_sources() -> None:
    options = AuditOptions(
        offline=True,
        sources_dir=Path("/sources"),
        refresh=True,
        refresh_keys=frozenset({"doe99"}),
        attached=(("doe99", Path("/doe.pdf")),),
        local_roots=(Path("/allowed"),),
        allow_local_paths=True,
        allow_private_network=True,
        fetch_timeout=12.0,
        doi_base="http://127.0.0.1:9/doi/",
        arxiv_base="http://127.0.0.1:9/arxiv/",
        crossref_base="http://127.0.0.1:9/crossref/",
    )
    made = source_options(options, Path("/document"), budget=30.0)
    defaults = SourceOptions()
    for name in SAME_NAMED:
        assert getattr(made, name) == getattr(options, name) != getattr(defaults, name), name
    assert (made.document_dir, made.budget) == (Path("/document"), 30.0)
    assert (made.doi_base, made.arxiv_base, made.crossref_base) == (
        options.doi_base, options.arxiv_base, options.crossref_base
    )  # fmt: skip
    assert made.fetch.allow_private_network
    assert (made.fetch.deadline, made.fetch.read_timeout, made.fetch.connect_timeout) == (12.0, 12.0, 10.0)
    # each source option is either copied by name or made from others, so none is forgotten
    made_from_others = {
        "document_dir",
        "budget",
        "settled",
        "fetch",
        "doi_base",
        "arxiv_base",
        "crossref_base",
    }
    assert {f.name for f in fields(SourceOptions)} == set(SAME_NAMED) | made_from_others

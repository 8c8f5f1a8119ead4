"""`citedesk models`: the judge models installed and recommended, and the work on them (pull,
import, remove, default, bench, verify, and preparing the embedder on ONNX Runtime)."""

from __future__ import annotations

import argparse
import sys

from citedesk.cli.progress import Progress
from citedesk.desk import models
from citedesk.errors import EXIT_FINDINGS, EXIT_OK, UsageError


def _prepare_embedder(*, again: bool) -> int:
    from citedesk.desk.embedder import prepare_embedder  # noqa: PLC0415 - loads the embedding stack

    prepared = prepare_embedder(again=again)
    done = f"made in {prepared.seconds:.1f} s" if prepared.made else "already made"
    print(f"embedder ready on ONNX Runtime: {prepared.path} ({done})")
    if not prepared.used:
        print("CITEDESK_ONNX is off: audits still embed with torch", file=sys.stderr)
    return EXIT_OK


def _prepare_model(name: str, *, again: bool) -> int:
    from citedesk.desk.onnx import prepare_model  # noqa: PLC0415 - loads the judge stack

    prepared = prepare_model(name, again=again)
    print(f"{prepared.name} {prepared.description} ({prepared.seconds:.1f} s)")
    if prepared.engine != "torch" and not prepared.used:
        print("CITEDESK_ONNX is off: audits still judge with torch", file=sys.stderr)
    return EXIT_OK


def models_command(args: argparse.Namespace) -> int:
    """`citedesk models list|prepare|import|pull|remove|default|bench|verify`."""
    if args.action == "list":
        found = models.installed()
        print(
            f"Installed in {models.models_dir()}:"
            if found
            else f"No NLI model installed ({models.models_dir()})."
        )
        for model in found:
            print(f" {'*' if model.default else ' '} {model.name:28} {model.description}")
            print(f"   {'':28} {model.speed}")
        print()
        for line in models.recommended():
            print(line)
        print("\nWithout a model the heuristic judge is used (labelled `heuristic` in every report).")
        return EXIT_OK
    if args.action == "prepare":
        return (
            _prepare_model(args.target, again=args.again)
            if args.target
            else _prepare_embedder(again=args.again)
        )
    if not args.target:
        raise UsageError(f"`citedesk models {args.action}` needs a target")
    if args.action == "import":
        model = models.import_model(args.target, args.name, args.registry_name)
        print(f"installed {model.name} ({model.description})")
    elif args.action == "pull":
        label = f"downloading {args.target}"
        with Progress() as progress:
            pulled = models.pull_model(
                args.target, progress=lambda done, total: progress.update(label, done, total, unit="bytes")
            )
        print(
            f"installed {pulled.name} ({pulled.hub_id} at {pulled.commit[:10]}, {pulled.megabytes:,.0f} MB); "
            f"{pulled.right}/{pulled.pairs} known pairs right"
        )
        print(f"{pulled.name} {pulled.engine}")
    elif args.action == "remove":
        models.remove_model(args.target)
        print(f"removed {args.target}")
    elif args.action == "default":
        print(f"{models.set_default(args.target)} is now the default judge model")
    elif args.action == "bench":
        print(f"{args.target}: {models.bench(args.target)}")
    elif args.action == "verify":
        outcome = models.verify(args.target)
        for claim, ok, score in outcome.rows:
            print(f"  {'ok ' if ok else 'BAD'} {score:.2f}  {claim}")
        print(f"{outcome.name}: {outcome.correct}/{outcome.total} known pairs right")
        return EXIT_OK if outcome.passed else EXIT_FINDINGS
    return EXIT_OK

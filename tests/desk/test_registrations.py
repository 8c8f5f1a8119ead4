"""What a module outside CiteDesk registers is what the audit child is told (`desk.registrations`):
CiteDesk's own entries are not sent (the child has them), a plug-in's are, and the child takes an
entry back once its parent has."""

from __future__ import annotations

import pickle

from citedesk.core import containers, dialects, formats
from citedesk.desk.registrations import Adopted, Registrations, plugged_in
from tests.helpers.toy_format import TOY_FORMAT, ToyDialect, ToyPackage, toy_format


def test_only_what_a_plug_in_registered_is_passed_on() -> None:
    assert plugged_in() == Registrations()
    with toy_format():
        given = plugged_in()
        assert [f.name for f in given.formats] == ["toy"]
        assert [c.name for c in given.containers] == [ToyPackage.name]
        assert [d.name for d in given.dialects] == [ToyDialect.name]
        assert pickle.loads(pickle.dumps(given)).formats == (TOY_FORMAT,)
    assert plugged_in() == Registrations()


def test_the_child_registers_them_and_takes_them_back() -> None:
    given = Registrations(formats=(TOY_FORMAT,), containers=(ToyPackage(),), dialects=(ToyDialect(),))
    adopted = Adopted()
    try:
        adopted.adopt(given)
        assert formats.format_for("a.cite.txt") == TOY_FORMAT
        assert containers.container_named(ToyPackage.name).name == ToyPackage.name
        assert dialects.dialect_named(ToyDialect.name).name == ToyDialect.name
    finally:
        adopted.adopt(Registrations())
    assert formats.format_for("a.cite.txt") == formats.format_named("markdown")
    assert ToyPackage.name not in [c.name for c in containers.containers()]
    assert ToyDialect.name not in [d.name for d in dialects.registered()]


def test_a_replaced_entry_of_citedesk_is_restored() -> None:
    own, order = formats.format_named("latex"), formats.formats()
    own_module = formats.REGISTRY.of("latex")
    assert own_module.startswith("citedesk.")
    adopted = Adopted()
    try:
        adopted.adopt(Registrations(formats=(TOY_FORMAT.__class__("latex", "Mine", (".mine",)),)))
        assert formats.format_named("latex").label == "Mine"
        assert formats.REGISTRY.plug_in("latex")  # the parent's plug-in, not CiteDesk's own
    finally:
        adopted.adopt(Registrations())
    assert formats.format_named("latex") == own
    assert formats.formats() == order
    assert formats.REGISTRY.of("latex") == own_module  # recorded as who registered it, restored

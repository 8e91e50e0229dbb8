"""``@record`` behaves as ``dataclasses.dataclass`` for every option tfphi uses: the same
constructor signature, repr, equality, hash, frozenness and slots, checked side by side on
the same declarations (each body is declared twice, once per decorator)."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
import re
from pathlib import Path
from typing import Optional

import pytest

from tfphi import records
from tfphi.records import record

OPTIONS = [
    {},
    {"frozen": True},
    {"frozen": True, "slots": True},
    {"frozen": True, "slots": True, "eq": False},
    {"frozen": True, "slots": True, "repr": False},
    {"frozen": True, "kw_only": True},
    {"slots": True},
    {"eq": False},
]


def declare(decorator, field, options):
    """A small hierarchy using defaults, factories, per-field options and kw_only fields."""

    @decorator(**options)
    class Base:
        span: Optional[int] = field(default=None, compare=False, kw_only=True)
        aside: bool = field(default=False, compare=False, kw_only=True)

    @decorator(**options)
    class Item(Base):
        name: str = "n"
        value: object = field(default=None, compare=False, hash=False)
        hidden: int = field(default=0, repr=False)
        tags: list = field(default_factory=list, compare=False, hash=False)

        def __post_init__(self):
            if options.get("frozen"):
                object.__setattr__(self, "hidden", self.hidden * 2)
            else:
                self.hidden = self.hidden * 2

    @decorator(**options)
    class Leaf(Item):
        extra: tuple = ()

    return Leaf


def both(options):
    return declare(dataclasses.dataclass, dataclasses.field, options), declare(record, records.field, options)


def behaviour(cls):
    """What a caller can observe of the class and a few instances."""
    a = cls(name="a", value=1, hidden=2, tags=[3], extra=(4,), span=5)
    b = cls(name="a", value=9, hidden=2, tags=[], extra=(4,), span=6, aside=True)
    c = cls(extra=(5,))
    seen = {
        "signature": str(inspect.signature(cls)),
        "repr": tuple(re.sub(r" at 0x[0-9a-f]+", "", repr(x).replace(cls.__qualname__, "Q")) for x in (a, c)),
        "eq": (a == b, a == c, a == a, a != b),
        "hash": (type(cls.__hash__).__name__, cls.__hash__ is None),
        "slots": (hasattr(a, "__dict__"), getattr(cls, "__slots__", None)),
        "match_args": cls.__match_args__,
        "defaults": (c.name, c.value, c.hidden, c.tags, c.extra, c.span, c.aside),
        "fresh_factory": cls().tags is not cls().tags,
        "post_init": a.hidden,
    }
    if cls.__hash__ is not None:
        seen["hash_equal"] = (hash(a) == hash(b)) if a == b else None
        seen["hash_value"] = hash(a) == hash(cls(name="a", value=1, hidden=2, tags=[3], extra=(4,), span=5))
    try:
        a.name = "z"
        seen["assign"] = a.name
    except AttributeError as exc:
        seen["assign"] = (type(exc).__name__.replace("FrozenInstanceError", "frozen"), str(exc))
    try:
        a.other = 1
        seen["assign_other"] = "ok"
    except (AttributeError, TypeError) as exc:
        # dataclasses (3.11) raises TypeError for a frozen class with slots: its __setattr__ names
        # the class before the slots were added; a record raises FrozenInstanceError as for the rest.
        seen["assign_other"] = "frozen" if getattr(cls, "__slots__", None) is not None else type(exc).__name__
    copied = copy.deepcopy(a)
    seen["deepcopy"] = (copied == a, repr(copied) == repr(a))
    return seen


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "plain")
def test_a_record_behaves_as_the_same_dataclass(options):
    dataclass_version, record_version = both(options)
    assert behaviour(record_version) == behaviour(dataclass_version)


def test_replace_and_fields_are_the_dataclasses_ones_for_records():
    dc, rc = both({"frozen": True, "slots": True})
    a_dc, a_rc = dc(name="a", value=1, hidden=2, span=3), rc(name="a", value=1, hidden=2, span=3)
    assert [f.name for f in records.fields(a_rc)] == [f.name for f in dataclasses.fields(a_dc)]
    assert repr(records.replace(a_rc, name="b", aside=True)).replace("Leaf", "") == repr(
        dataclasses.replace(a_dc, name="b", aside=True)).replace("Leaf", "")
    assert records.replace(a_rc, name="b").hidden == dataclasses.replace(a_dc, name="b").hidden  # __post_init__ again
    assert records.is_record(a_rc) and records.is_record(rc) and not records.is_record(a_dc)


@record(frozen=True, slots=True)
class Pickled:
    name: str
    value: object = None


def test_records_pickle_and_repr_of_a_cycle():
    assert hash(Pickled("a", (1, 2))) == hash(Pickled("a", (1, 2)))  # hash compiled before ==
    value = Pickled("a", (1, 2))
    assert pickle.loads(pickle.dumps(value)) == value

    @record
    class Node:
        child: object = None

    node = Node()
    node.child = node
    assert repr(node) == "test_records_pickle_and_repr_of_a_cycle.<locals>.Node(child=...)"


def test_declaration_errors_are_the_dataclasses_ones():
    with pytest.raises(TypeError, match="non-default argument 'b' follows default argument"):
        @record
        class Bad:
            a: int = 0
            b: int

    with pytest.raises(ValueError, match="mutable default"):
        @record
        class Mutable:
            a: list = []  # noqa: RUF012


def test_every_tfphi_class_is_declared_with_record():
    """``dataclasses`` costs start-up (ARCHITECTURE.md, "Start-up"): only the settings that
    cattrs decodes, read when a configuration is decoded, are dataclasses."""
    package = Path(records.__file__).parent
    allowed = {"config_schema.py"}
    users = sorted(
        str(path.relative_to(package))
        for path in package.rglob("*.py")
        if path.name not in allowed and re.search(r"^\s*(import dataclasses|from dataclasses import)", path.read_text(), re.M)
    )
    assert users == []

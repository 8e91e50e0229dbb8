"""``@record``: how tfphi declares its value classes (Span, steps, conditions, results, settings...).

The subset of ``dataclasses.dataclass`` that tfphi uses, with the same generated methods and
the same behaviour (``__init__`` with defaults, factories, ``kw_only`` and ``__post_init__``;
``__repr__``, ``__eq__``, ``__hash__`` by the same rules; ``frozen``; ``slots``), built for
start-up: the standard decorator writes and ``exec``s each method on its own (five to seven
compilations per class, plus ``inspect.signature`` for a missing docstring), and importing it
loads ``inspect`` with ``ast``, ``dis`` and ``tokenize``. With ~100 records that was two thirds
of ``import tfphi`` and a quarter of a small ``tfphi check``. Here ``__repr__`` and the frozen
``__setattr__`` are closures shared by every class, and ``__init__``, ``__eq__`` and ``__hash__``
(they run for every instance and every lookup) are compiled as dataclasses compile them, but
only when first called: a check uses about half of the records. (Until a class is first
instantiated, ``inspect.signature`` of it reads ``(*args, **kwargs)``.) Nothing else is imported.

``replace``, ``fields`` and ``is_record`` stand for their ``dataclasses`` namesakes, which do
not know records. The decorator is marked with ``typing.dataclass_transform``, so type checkers
read records as they read dataclasses.
"""

from __future__ import annotations

from _thread import get_ident
from typing import Any, Callable

try:
    from typing import dataclass_transform
except ImportError:  # Python 3.10: only type checkers read the marker
    def dataclass_transform(**_kwargs):
        return lambda decorator: decorator

__all__ = ["FrozenInstanceError", "Field", "MISSING", "field", "fields", "is_record", "record", "replace"]


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()
_FIELDS = "__record_fields__"


class FrozenInstanceError(AttributeError):
    """An assignment to a field of a frozen record."""


class Field:
    """One field of a record: its name, default (or factory), and whether it counts for ``==``,
    ``hash`` and ``repr``. ``field(...)`` makes one; ``fields(record)`` lists them."""

    __slots__ = ("name", "type", "default", "default_factory", "compare", "hash", "repr", "kw_only")

    def __init__(self, default=MISSING, default_factory=MISSING, compare=True, hash=None, repr=True, kw_only=MISSING):
        if default is not MISSING and default_factory is not MISSING:
            raise ValueError("cannot specify both default and default_factory")
        self.name, self.type = "", None
        self.default, self.default_factory = default, default_factory
        self.compare, self.hash, self.repr, self.kw_only = compare, hash, repr, kw_only

    def _named(self, name: str, annotation: Any, kw_only: bool) -> "Field":
        f = Field(self.default, self.default_factory, self.compare, self.hash, self.repr, self.kw_only)
        f.name, f.type = name, annotation
        if f.kw_only is MISSING:
            f.kw_only = kw_only
        return f

    @property
    def hashed(self) -> bool:
        return self.compare if self.hash is None else self.hash

    def __repr__(self) -> str:
        return f"Field(name={self.name!r}, default={self.default!r}, compare={self.compare}, kw_only={self.kw_only})"


def field(*, default=MISSING, default_factory=MISSING, compare=True, hash=None, repr=True, kw_only=MISSING) -> Any:
    """A field with options, as ``dataclasses.field`` (``init=False`` is not supported)."""
    return Field(default, default_factory, compare, hash, repr, kw_only)


def fields(obj) -> tuple[Field, ...]:
    """The fields of a record (class or instance), in ``__init__`` order of declaration."""
    try:
        return getattr(obj, _FIELDS)
    except AttributeError:
        raise TypeError("must be called with a record type or instance") from None


def is_record(obj) -> bool:
    """True for a record class or instance."""
    return hasattr(obj if isinstance(obj, type) else type(obj), _FIELDS)


def replace(obj, /, **changes):
    """A new record like ``obj`` with ``changes`` (``__post_init__`` runs again, as for dataclasses)."""
    for f in fields(obj):
        if f.name not in changes:
            changes[f.name] = getattr(obj, f.name)
    return obj.__class__(**changes)


class WeaklyReferenced:
    """A base for a record with slots that weak references point at (``__weakref__``): what is
    remembered as "the one this was made from" without keeping it alive, and without an ``id``
    that a later object may be given once it is gone."""

    __slots__ = ("__weakref__",)


@dataclass_transform(field_specifiers=(field, Field), kw_only_default=False)
def record(cls=None, /, *, frozen: bool = False, slots: bool = False, eq: bool = True, repr: bool = True,
           kw_only: bool = False) -> Any:
    """Declare a record class; the options mean what they mean for ``dataclasses.dataclass``."""

    def wrap(cls):
        return _process(cls, frozen, slots, eq, repr, kw_only)

    return wrap if cls is None else wrap(cls)


def _collect(cls, kw_only: bool) -> dict[str, Field]:
    found: dict[str, Field] = {}
    for base in reversed(cls.__mro__[1:]):
        for f in base.__dict__.get(_FIELDS, ()):
            found[f.name] = f
    for name, annotation in cls.__dict__.get("__annotations__", {}).items():
        text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "")
        if text.startswith(("ClassVar", "typing.ClassVar", "InitVar", "dataclasses.InitVar")):
            raise TypeError(f"{cls.__name__}.{name}: ClassVar and InitVar are not supported by @record")
        value = cls.__dict__.get(name, MISSING)
        f = value if isinstance(value, Field) else Field(default=value)
        if f.default is not MISSING and f.default.__class__.__hash__ is None:
            raise ValueError(f"mutable default {type(f.default)} for field {name} is not allowed: use default_factory")
        found[name] = f._named(name, annotation, kw_only)
    return found


def _process(cls, frozen: bool, slots: bool, eq: bool, repr: bool, kw_only: bool):
    own = cls.__dict__
    all_fields = _collect(cls, kw_only)
    for name, f in all_fields.items():
        if name in own.get("__annotations__", {}) and not slots:
            # as dataclasses: a plain class keeps a field's default as its class attribute
            if f.default is MISSING:
                if isinstance(own.get(name), Field):
                    delattr(cls, name)
            else:
                setattr(cls, name, f.default)
    for base in cls.__mro__[1:]:
        if _FIELDS in base.__dict__ and base.__dict__["__record_frozen__"] != frozen:
            raise TypeError(f"{cls.__name__}: cannot mix frozen and non-frozen records in one hierarchy")
    if slots:
        cls = _with_slots(cls, tuple(all_fields))
        own = cls.__dict__
    record_fields = tuple(all_fields.values())
    setattr(cls, _FIELDS, record_fields)
    setattr(cls, "__record_frozen__", frozen)

    class_hash = own.get("__hash__", MISSING)
    explicit_hash = not (class_hash is MISSING or (class_hash is None and "__eq__" in own))
    positional = [f for f in record_fields if not f.kw_only]
    keyword = [f for f in record_fields if f.kw_only]
    if "__match_args__" not in own:
        cls.__match_args__ = tuple(f.name for f in positional)

    if "__init__" not in own:
        _check_defaults(cls, positional)
        cls.__init__ = _first_init(cls, positional, keyword, frozen)
    if repr and "__repr__" not in own:
        cls.__repr__ = _repr_method(cls, tuple(f.name for f in record_fields if f.repr))
    want_eq = eq and "__eq__" not in own
    hashed = [f.name for f in record_fields if f.hashed] if eq and frozen and not explicit_hash else None
    if want_eq or hashed is not None:
        eq_stub, hash_stub = _first_compare(cls, [f.name for f in record_fields if f.compare], want_eq, hashed)
        if want_eq:
            cls.__eq__ = eq_stub
        if hashed is not None:
            cls.__hash__ = hash_stub
    if frozen:
        if "__setattr__" in own or "__delattr__" in own:
            raise TypeError(f"{cls.__name__}: a frozen record cannot define __setattr__ or __delattr__")
        cls.__setattr__, cls.__delattr__ = _frozen_methods(cls, frozenset(f.name for f in record_fields))
    if eq and not frozen and not explicit_hash:
        cls.__hash__ = None  # mutable and compared by value: unhashable, as dataclasses make it
    return cls


# __init__, __eq__ and __hash__ are compiled from source, as dataclasses do (they run for every
# instance and every lookup and must be as fast as hand-written ones), but only when first
# called: a check uses about half of the records. __repr__ and the frozen __setattr__ are the
# same closures for every class; they compute what the dataclasses' generated methods compute.


def _first_compare(cls, compared: list[str], eq: bool, hashed: list[str] | None) -> tuple[Callable, Callable]:
    """Stand-in ``__eq__`` and ``__hash__`` that compile the real ones (both in one go, on the
    first call of either), put them on the class, and call them: they run in every dict and set
    lookup, so they are the dataclasses' own code."""

    def compile_methods() -> dict[str, Any]:
        source = ""
        if eq:
            source += ("def __eq__(self, other):\n  if other.__class__ is self.__class__:\n"
                       f"    return {_tuple('self', compared)} == {_tuple('other', compared)}\n  return NotImplemented\n")
        if hashed is not None:
            source += f"def __hash__(self):\n  return hash({_tuple('self', hashed)})\n"
        namespace: dict[str, Any] = {}
        exec(source, namespace)
        for name in ("__eq__", "__hash__"):
            if name in namespace:
                namespace[name].__qualname__ = f"{cls.__qualname__}.{name}"
                setattr(cls, name, namespace[name])
        return namespace

    def __eq__(self, other):
        return compile_methods()["__eq__"](self, other)

    def __hash__(self):
        return compile_methods()["__hash__"](self)

    __eq__.__qualname__ = f"{cls.__qualname__}.__eq__"
    __hash__.__qualname__ = f"{cls.__qualname__}.__hash__"
    return __eq__, __hash__


def _tuple(owner: str, names: list[str]) -> str:
    return "(" + "".join(f"{owner}.{name}," for name in names) + ")"


def _repr_method(cls, shown: tuple[str, ...]) -> Callable:
    """``Name(a=1, b='x')``; a record that contains itself prints ``...`` there, as dataclasses do."""
    running: set = set()

    def __repr__(self):
        key = (id(self), get_ident())
        if key in running:
            return "..."
        running.add(key)
        try:
            return self.__class__.__qualname__ + "(" + ", ".join([f"{name}={getattr(self, name)!r}" for name in shown]) + ")"
        finally:
            running.discard(key)

    __repr__.__qualname__ = f"{cls.__qualname__}.__repr__"
    return __repr__


def _frozen_methods(cls, names: frozenset[str]) -> tuple[Callable, Callable]:
    def __setattr__(self, name, value):
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self, name):
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__delattr__(name)

    __setattr__.__qualname__ = f"{cls.__qualname__}.__setattr__"
    __delattr__.__qualname__ = f"{cls.__qualname__}.__delattr__"
    return __setattr__, __delattr__


def _check_defaults(cls, positional: list[Field]) -> None:
    seen_default = False
    for f in positional:
        if f.default is not MISSING or f.default_factory is not MISSING:
            seen_default = True
        elif seen_default:
            raise TypeError(f"{cls.__name__}: non-default argument {f.name!r} follows default argument")


def _first_init(cls, positional: list[Field], keyword: list[Field], frozen: bool) -> Callable:
    """A stand-in ``__init__`` that compiles the real one, puts it on the class, and calls it."""

    def __init__(self, *args, **kwargs):
        namespace: dict[str, Any] = {"_object_setattr": object.__setattr__, "_FACTORY": _FACTORY}
        exec(_init_source(cls, positional, keyword, frozen, namespace), namespace)
        init = namespace["__init__"]
        init.__qualname__ = f"{cls.__qualname__}.__init__"
        init.__annotations__ = {f.name: f.type for f in positional + keyword} | {"return": None}
        cls.__init__ = init
        init(self, *args, **kwargs)

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    return __init__


class _Factory:
    __slots__ = ()

    def __repr__(self) -> str:
        return "<factory>"


_FACTORY = _Factory()  # the default of a parameter whose field has a default_factory


def _init_source(cls, positional: list[Field], keyword: list[Field], frozen: bool, namespace: dict) -> str:
    params, body = ["self"], []
    for i, f in enumerate(positional + keyword):
        if i == len(positional):
            params.append("*")
        if f.default is not MISSING:
            namespace[f"_dflt_{f.name}"] = f.default
            params.append(f"{f.name}=_dflt_{f.name}")
        elif f.default_factory is not MISSING:
            namespace[f"_factory_{f.name}"] = f.default_factory
            params.append(f"{f.name}=_FACTORY")
        else:
            params.append(f.name)
        value = f"_factory_{f.name}() if {f.name} is _FACTORY else {f.name}" if f.default_factory is not MISSING else f.name
        slot = _slot_setter(cls, f.name) if frozen else None
        if slot is not None:  # (a slot's own setter: half the cost of ``object.__setattr__``'s look-up, per field)
            namespace[f"_set_{f.name}"] = slot
            body.append(f"_set_{f.name}(self, {value})")
        else:
            body.append(f"_object_setattr(self, {f.name!r}, {value})" if frozen else f"self.{f.name} = {value}")
    if hasattr(cls, "__post_init__"):
        body.append("self.__post_init__()")
    return f"def __init__({', '.join(params)}):\n" + "".join(f"  {line}\n" for line in body or ["pass"])


def _slot_setter(cls, name: str) -> Callable | None:
    """What ``object.__setattr__(self, name, value)`` calls for a field kept in a slot: the slot
    descriptor's ``__set__`` (found on the class or the base that declares the slot); None when the
    field is not a slot there."""
    for klass in cls.__mro__:
        if name in klass.__dict__:
            found = klass.__dict__[name]
            return found.__set__ if type(found) is _MemberDescriptor else None
    return None


class _Slotted:
    __slots__ = ("x",)


_MemberDescriptor = type(_Slotted.__dict__["x"])  # (types.MemberDescriptorType, without importing types)


def _with_slots(cls, names: tuple[str, ...]):
    """A copy of ``cls`` with ``__slots__`` for its own fields (a class's slots are fixed when it is made)."""
    inherited = set()
    for base in cls.__mro__[1:-1]:
        slots = base.__dict__.get("__slots__", ())
        inherited.update((slots,) if isinstance(slots, str) else slots)
    namespace = dict(cls.__dict__)
    namespace["__slots__"] = tuple(n for n in names if n not in inherited)
    for name in names:
        namespace.pop(name, None)
    namespace.pop("__dict__", None)
    namespace.pop("__weakref__", None)
    new = type(cls)(cls.__name__, cls.__bases__, namespace)
    new.__qualname__ = cls.__qualname__
    if "__getstate__" not in namespace:
        new.__getstate__ = _slots_getstate
        new.__setstate__ = _slots_setstate
    return new


def _slots_getstate(self):
    return [getattr(self, f.name) for f in fields(self)]


def _slots_setstate(self, state):
    for f, value in zip(fields(self), state):
        object.__setattr__(self, f.name, value)  # frozen records too

"""STIR: the typed, immutable graph of a Terraform workspace.

Nodes are declarations (variables, locals, resources, data sources, module calls, outputs)
grouped into modules; their values are ``Expr`` trees (the ExprArg edges). The seed's other
edges are explicit fields: ``Val`` (a local to its value), ``Field`` (a resource or module
call to an attribute), ``GenIter`` (an iterated block to its ``for_each``/``count``), and
``RefTo`` (a scope reference to its declaration, resolved by ``Module.lookup``).

Resource attributes are apply-time nodes (``Resource``); variables, locals and data-source
queries are plan-time. The tracer only recurses through plan-time nodes.
"""

from __future__ import annotations

import weakref
from sys import intern
from types import MappingProxyType
from typing import Mapping

from ..addrs import InputVariable, LocalValue, ModuleCall as ModuleCallAddr, OutputValue, Resource as ResourceAddr
from ..records import WeaklyReferenced, record, field
from ..syntax.expr import Expr, LiteralExpr, Span
from ..syntax.hclfile import Attribute, Block, Body
from .decl_tables import DeclTable


@record(frozen=True, slots=True)
class Validation:
    condition_attr: Attribute
    error_message_attr: Attribute | None
    block: Block  # the ``validation`` block (its span is made when asked: kept, a span per validation)

    @property
    def span(self) -> Span:
        return self.block.span

    @property
    def condition(self) -> Expr:
        return self.condition_attr.expr

    @property
    def error_message(self) -> str | None:
        return static_string(self.error_message_attr)


class OneLabelBlock:
    """A declaration of a block with one label (``variable``, ``module``, ``output``): its spans
    are made from its ``block`` when asked (``Block`` keeps offsets, no span objects)."""

    __slots__ = ()
    block: Block

    @property
    def span(self) -> Span:  # the whole block
        return self.block.span

    @property
    def label_span(self) -> Span:
        return self.block.label_span(0)


@record(frozen=True, slots=True)
class Variable(OneLabelBlock):
    """A ``variable`` block. Its arguments are read from its block's body when asked: every module
    build reads that body, and it stays read while the block lives (``syntax.hclfile``'s eager
    bodies), so they are the same objects at every ask; kept here too, they were two slots per
    variable, of the 108,000 at 10,000 modules (docs/memory.md, "Session 13")."""

    name: str
    block: Block  # its spans are made from the block when asked (``Block``: no span objects kept)
    validations: tuple[Validation, ...]
    nullable: bool

    @property
    def body(self) -> Body:
        return self.block.body

    @property
    def type_attr(self) -> Attribute | None:
        return self.block.body.attributes.get("type")

    @property
    def default(self) -> Attribute | None:
        return self.block.body.attributes.get("default")

    @property
    def address(self) -> str:
        return intern(str(InputVariable(self.name)))

    @property
    def type_expr(self) -> Expr | None:
        attr = self.type_attr
        return attr.expr if attr is not None else None


@record(frozen=True, slots=True)
class Local:
    attribute: Attribute  # Val edge: the local's value (one slot: 61,000 locals at 10,000 modules)

    @property
    def name(self) -> str:
        return self.attribute.name

    @property
    def address(self) -> str:
        return intern(str(LocalValue(self.name)))

    @property
    def span(self) -> Span:
        return self.attribute.span


@record(frozen=True, slots=True)
class Resource:
    """A ``resource`` (mode ``managed``) or ``data`` block; its attributes are Field edges."""

    mode: str
    type: str
    name: str
    block: Block  # its spans are made from the block when asked (``Block``: no span objects kept)

    @property
    def span(self) -> Span:
        return self.block.span

    @property
    def label_spans(self) -> tuple[Span, ...]:
        return self.block.label_spans

    @property
    def body(self) -> Body:
        """Read on first use: most resources are never traced."""
        return self.block.body

    @property
    def address(self) -> str:
        # (interned: traces, memo keys and the edit indexes keep it, one string for all of them)
        return intern(str(ResourceAddr(self.mode, self.type, self.name)))

    @property
    def count(self) -> Attribute | None:  # GenIter
        return self.body.attributes.get("count")

    @property
    def for_each(self) -> Attribute | None:  # GenIter
        return self.body.attributes.get("for_each")


META_ARGUMENTS = frozenset({"source", "version", "count", "for_each", "providers", "depends_on"})


@record(frozen=True, slots=True)
class ModuleCall(OneLabelBlock):
    name: str
    source: str | None
    block: Block  # its spans are made from the block when asked (``Block``: no span objects kept)

    @property
    def address(self) -> str:
        return intern(str(ModuleCallAddr(self.name)))

    @property
    def body(self) -> Body:
        """Read on first use."""
        return self.block.body

    @property
    def source_attr(self) -> Attribute | None:
        return self.block.body.attributes.get("source")

    @property
    def arguments(self) -> dict[str, Attribute]:
        """Field edges to the child module's variables (meta-arguments excluded)."""
        return {k: v for k, v in self.body.attributes.items() if k not in META_ARGUMENTS}

    @property
    def count(self) -> Attribute | None:
        return self.body.attributes.get("count")

    @property
    def for_each(self) -> Attribute | None:
        return self.body.attributes.get("for_each")


@record(frozen=True, slots=True)
class Output(OneLabelBlock):
    name: str
    block: Block  # its spans are made from the block when asked (``Block``: no span objects kept)

    @property
    def value(self) -> Attribute | None:
        """Read from its block's body when asked (the same object each time: see ``Variable``)."""
        return self.block.body.attributes.get("value")

    @property
    def address(self) -> str:
        return intern(str(OutputValue(self.name)))


@record(frozen=True, slots=True)
class Module(WeaklyReferenced):
    """All the declarations of one directory's ``.tf`` files (slots: 10,000 of them at 10,000
    modules, 208 bytes each with an instance dict, 120 without). A later build of an edited
    module and the host's interfaces refer to it weakly (``calls_changed``,
    ``stir.references.ModuleInterfaces``)."""

    dir: str  # relative to the workspace root, POSIX, "" for the root directory
    files: tuple[str, ...]
    variables: Mapping[str, Variable] = field(default_factory=dict)
    locals: Mapping[str, Local] = field(default_factory=dict)
    resources: Mapping[str, Resource] = field(default_factory=dict)  # "type.name"
    data: Mapping[str, Resource] = field(default_factory=dict)  # "type.name"
    calls: Mapping[str, ModuleCall] = field(default_factory=dict)
    outputs: Mapping[str, Output] = field(default_factory=dict)
    # Declarations whose name an earlier one (files in lexical order, as Terraform loads them)
    # already took: (what, the second one's label span, the first one's label span).
    duplicates: tuple["Duplicate", ...] = ()
    # Built from an earlier build of the module by replacing some declarations (``assemble_module``'s
    # ``previous``): (a weak reference to that module, the names of the calls whose declaration is
    # not that module's: replaced, added or removed). What a module's call checks and call outputs
    # take over from their last answer (``calls_changed_since``); not part of what the module is.
    calls_changed: tuple | None = field(default=None, compare=False, repr=False)

    def declarations(self):
        """Every declaration, in a stable order."""
        yield from self.variables.values()
        yield from self.locals.values()
        yield from self.resources.values()
        yield from self.data.values()
        yield from self.calls.values()
        yield from self.outputs.values()


@record(frozen=True, slots=True)
class Duplicate:
    """A second declaration of a name in one module (``duplicate-declaration``)."""

    what: str  # ``variable "region"``, ``local.name``, ``resource "aws_db_instance" "this"``
    span: Span  # the second declaration's label
    first: Span  # the first declaration's label


def calls_changed_since(module: Module, earlier: Module) -> frozenset[str] | None:
    """The names of the calls of ``module`` whose declaration is not ``earlier``'s (replaced,
    added or removed), when ``module`` is ``earlier`` or was built from it by replacing
    declarations; None when that is not known (a module assembled afresh, or built from another
    one): the caller compares the calls themselves."""
    if module is earlier:
        return frozenset()
    changes = module.calls_changed
    if earlier is None:
        return None
    if changes is None or changes[0]() is not earlier:
        return None
    return changes[1]


def _calls_replaced(previous: Module, names) -> tuple:
    """``Module.calls_changed`` of a module built from ``previous`` with the calls ``names`` replaced
    (a weak reference: a module never keeps the earlier builds alive)."""
    return (weakref.ref(previous), frozenset(names))


def static_string(attribute: Attribute | None) -> str | None:
    """The value of an attribute that must be a literal string (``source``, ``error_message``)."""
    return attribute.literal_string() if attribute is not None else None


# The table of a kind of declaration a module has none of (most modules have no data source, no
# call or no local: a dict each was 64 bytes): read-only, shared. A later build never writes into
# a table: it replaces entries of an edited module's tables through ``DeclTable`` (``_updated``,
# ``_renamed``), whose older versions keep reading as they were.
NO_DECLARATIONS: Mapping = MappingProxyType({})


# One declaration of a block: (table, key in it, address, the declaration).
# Tables: 0 variables, 1 locals, 2 resources, 3 data, 4 calls, 5 outputs (``Module.declarations`` order).
Entry = tuple[int, str, str, object]


class BlockDecls:
    """What one top-level block declares. A block's declarations are a function of its text and
    its anchor (``syntax.expr.Anchor``): while a parse takes the block over (its text unchanged,
    wherever it now is), the next build takes them over too, the same objects."""

    __slots__ = ("block", "entries")

    def __init__(self, block: Block, entries: tuple[Entry, ...]):
        self.block = block
        self.entries = entries

    @property
    def names(self):
        """(identity, label span) of each name the block declares (duplicate check). Read again
        from the block when asked, not kept: kept, they were a sixth of a 10,000-module check's memory."""
        return _declared_names(self.block)


class FileDecls(WeaklyReferenced):
    """What one file declares, block by block (``read_declarations``); ``changes``: when it was
    spliced from an earlier one, (a weak reference to that one, first, last, count, ids of the
    blocks kept from its blocks[first:last], alive as long as this one): no reference that keeps
    what it no longer has, and no ``id`` of it that a later one could be given once it is gone."""

    __slots__ = ("body", "blocks", "changes")

    def __init__(self, body: Body, blocks: list[BlockDecls], changes: tuple | None = None):
        self.body = body
        self.blocks = blocks
        self.changes = changes


def read_declarations(body: Body, previous: FileDecls | None = None, splice: tuple | None = None) -> FileDecls:
    """The declarations of one file's top-level body, taking over what ``previous`` read of the
    blocks that are the same objects (taken over by the parse); every other block is read afresh.

    ``splice`` (``HclFile.splice``): when ``body`` is ``previous.body`` with a range of its blocks
    replaced, only that range is looked at; the others keep their declarations by position."""
    if previous is not None and previous.body is body:
        return previous
    if previous is not None and splice is not None and splice[0]() is previous.body:
        _, first, last, count = splice
        replaced = previous.blocks[first:last]
        by_block = {id(info.block): info for info in replaced}
        added = []
        kept = set()
        for block in body.blocks[first : first + count]:
            info = by_block.get(id(block))
            if info is not None and info.block is block:
                kept.add(id(info))
            else:
                info = _block_decls(block)
            added.append(info)
        blocks = previous.blocks[:first] + added + previous.blocks[last:]
        return FileDecls(body, blocks, (weakref.ref(previous), first, last, count, kept))
    by_id: dict[int, BlockDecls] = {}
    if previous is not None:
        for info in previous.blocks:
            by_id[id(info.block)] = info
    out = []
    for block in body.blocks:
        info = by_id.get(id(block))
        out.append(info if info is not None and info.block is block else _block_decls(block))
    return FileDecls(body, out)


def block_changes(old: FileDecls | None, new: FileDecls) -> tuple[list[BlockDecls], list[BlockDecls]]:
    """The blocks of ``old`` that ``new`` no longer has, and those it has anew (by identity: a
    block the parse took over keeps its ``BlockDecls``)."""
    if old is None:
        return [], list(new.blocks)
    if old is new:
        return [], []
    if new.changes is not None and new.changes[0]() is old:  # spliced from ``old``
        _, first, last, count, kept = new.changes
        return ([i for i in old.blocks[first:last] if id(i) not in kept],
                [i for i in new.blocks[first : first + count] if id(i) not in kept])
    old_ids = {id(info) for info in old.blocks}
    new_ids = {id(info) for info in new.blocks}
    return [i for i in old.blocks if id(i) not in new_ids], [i for i in new.blocks if id(i) not in old_ids]


Previous = tuple["Module", dict[str, object], Mapping[str, FileDecls]]


def assemble_module(dir: str, files: Mapping[str, FileDecls], previous: Previous | None = None) -> tuple[Module, dict[str, object]]:
    """The module of the files' declarations (files in lexical order; the first of a name wins,
    as Terraform loads them) and the declaration that won for each address (of two declarations
    with one address, the later in ``Module.declarations`` order).

    ``previous``: the last build of the module (its module, winners and files' declarations).
    When the blocks that changed since declare the same names as before (an edit inside a
    block, or between blocks), its tables are taken over with those names' declarations
    replaced, at the cost of the changed blocks; else (a name added, removed or declared twice)
    they are assembled again."""
    if previous is not None:
        updated = _updated(dir, files, *previous)
        if updated is not None:
            return updated
    tables: tuple[dict, ...] = ({}, {}, {}, {}, {}, {})
    winners: dict[str, object] = {}
    firsts: dict[tuple, Span] = {}
    duplicates: list[Duplicate] = []
    for path in sorted(files):
        for info in files[path].blocks:
            for table, key, address, decl in info.entries:
                if tables[table].setdefault(key, decl) is decl:
                    winners[address] = decl
            for key, span in info.names:
                first = firsts.setdefault(key, span)
                if first is not span:
                    duplicates.append(Duplicate(_describe(key), span, first))
    variables, locals_, resources, data, calls, outputs = [table if table else NO_DECLARATIONS for table in tables]
    module = Module(dir, tuple(sorted(files)), variables, locals_, resources, data, calls, outputs, tuple(duplicates))
    return module, winners


def _updated(dir: str, files: Mapping[str, FileDecls], module: Module, winners: dict[str, object],
             old_files: Mapping[str, FileDecls]) -> tuple[Module, dict[str, object]] | None:
    """``assemble_module`` from the last build, when the changed blocks declare the same names
    (the tables keep their order: each name's entry is replaced where it is); None otherwise."""
    if module.duplicates or module.files != tuple(sorted(files)):
        return None
    removed: list[Entry] = []
    added: list[Entry] = []
    for path, decls in files.items():
        gone, new = block_changes(old_files.get(path), decls)
        for info in gone:
            removed.extend(info.entries)
        for info in new:
            added.extend(info.entries)
    if not removed and not added:
        return module, winners
    keys = {(entry[0], entry[1]) for entry in added}
    tables = [module.variables, module.locals, module.resources, module.data, module.calls, module.outputs]
    if len(keys) != len(added) or len(removed) != len(added) or keys != {(entry[0], entry[1]) for entry in removed}:
        return _renamed(dir, module, winners, tables, files, old_files)
    for table, key, address, decl in removed:  # each was its name's only declaration
        if tables[table].get(key) is not decl or winners.get(address) is not decl:
            return None
    # Each name's declaration replaced where it is, in O(1) (``DeclTable``: the last build's tables read as they were).
    changes: dict[int, dict] = {}
    for table, key, address, decl in added:
        changes.setdefault(table, {})[key] = (key, decl)
    for table, replaced in changes.items():
        tables[table] = DeclTable.from_mapping(tables[table]).replaced(replaced)
    winners = DeclTable.from_mapping(winners).replaced({address: (address, decl) for _, _, address, decl in added})
    calls = _calls_replaced(module, [key for table, key, _, _ in added if table == 4])
    return Module(dir, module.files, *tables, (), calls), winners


def _renamed(dir: str, module: Module, winners: dict[str, object], tables: list[dict],
             files: Mapping[str, FileDecls], old_files: Mapping[str, FileDecls]) -> tuple[Module, dict[str, object]] | None:
    """``_updated`` when blocks were replaced where they were (a spliced parse, ``FileDecls.changes``)
    and each declares as many names as the block it replaced, in the same tables: what a letter
    typed into a label does. Each new name takes its old one's place in its table, which is where
    a build from scratch puts it. None when the changes are of another kind, or a new name is
    already declared (a duplicate: the module is assembled again)."""
    pairs: list[tuple[Entry, Entry]] = []
    for path, new in files.items():
        old = old_files.get(path)
        if old is new:
            continue
        replaced = _replaced_in_place(old, new)
        if replaced is None:
            return None
        for before, after in replaced:
            if len(before.entries) != len(after.entries):
                return None
            pairs.extend(zip(before.entries, after.entries))
    renames: dict[int, dict] = {}
    for (table, key, address, decl), new_entry in pairs:
        if new_entry[0] != table or tables[table].get(key) is not decl or winners.get(address) is not decl:
            return None
        renames.setdefault(table, {})[key] = (new_entry[1], new_entry[3])
    tables = list(tables)
    for table, renamed in renames.items():
        old_table = tables[table]
        new_keys = {key for key, _ in renamed.values()}
        if len(new_keys) != len(renamed) or any(key in old_table and key not in renamed for key in new_keys):
            return None
    addresses = {before[2]: (after[2], after[3]) for before, after in pairs}
    new_addresses = {address for address, _ in addresses.values()}
    if len(new_addresses) != len(addresses) or any(a in winners and a not in addresses for a in new_addresses):
        return None  # (two kinds of declaration with one address, ``resource "var" "x"``: assembled again)
    # Each renamed entry at its old one's place, in O(1) (``DeclTable``: the last build's tables read as they were).
    for table, renamed in renames.items():
        tables[table] = DeclTable.from_mapping(tables[table]).replaced(renamed)
    winners = DeclTable.from_mapping(winners).replaced(addresses)
    calls = _calls_replaced(module, [name for old, (new, _) in renames.get(4, {}).items() for name in (old, new)])
    return Module(dir, module.files, *tables, (), calls), winners


def _replaced_in_place(old: FileDecls | None, new: FileDecls) -> list[tuple[BlockDecls, BlockDecls]] | None:
    """(old block, new block) for each block of ``new`` that replaced one of ``old`` at the same
    place, when ``new`` is ``old`` spliced that way and no other; None otherwise."""
    if old is None or new.changes is None or new.changes[0]() is not old:
        return None
    _, first, last, count, kept = new.changes
    if count != last - first:
        return None
    out = []
    for before, after in zip(old.blocks[first:last], new.blocks[first : first + count]):
        if before is after:
            continue
        if id(before) in kept or id(after) in kept:  # a block taken over elsewhere in the region
            return None
        out.append((before, after))
    return out


def _block_decls(block: Block) -> BlockDecls:
    entries: list[Entry] = []
    _add_block(block, entries)
    return BlockDecls(block, tuple(entries))


_LABELLED = {"variable": 1, "output": 1, "module": 1, "resource": 2, "data": 2}


def _declared_names(block: Block):
    """(identity, label span) of each name a top-level block declares."""
    kind, labels = block.type, block.labels
    if kind == "locals":
        for name, attr in block.body.attributes.items():
            yield ("local", name), attr.name_span
        return
    count = _LABELLED.get(kind)
    if count is None or len(labels) != count:
        return
    yield (kind, *labels), block.label_span(-1)


def _describe(key: tuple) -> str:
    """How a duplicate declaration is named: ``local.name``, ``resource "type" "name"``
    (worked out only for the duplicates, not for every declaration)."""
    kind, *labels = key
    if kind == "local":
        return str(LocalValue(labels[0]))
    quoted = " ".join(f'"{label}"' for label in labels)
    return f"{kind} {quoted}"


def _add_block(block: Block, entries: list) -> None:
    kind, labels = block.type, block.labels
    if kind == "variable" and len(labels) == 1:
        name = labels[0]
        validations = []
        for vblock in block.body.blocks_of("validation"):
            cond = vblock.body.attributes.get("condition")
            if cond is not None:
                validations.append(Validation(cond, vblock.body.attributes.get("error_message"), vblock))
        nullable_attr = block.body.attributes.get("nullable")
        nullable = True
        if nullable_attr is not None:
            # ``nullable = false`` read from its bytes (converting it parsed the attribute again)
            keyword = nullable_attr.literal_bool()
            if keyword is not None:
                nullable = keyword
            else:
                nullable = not (isinstance(nullable_attr.expr, LiteralExpr) and nullable_attr.expr.value is False)
        variable = Variable(name, block, tuple(validations), nullable)
        entries.append((0, name, variable.address, variable))
    elif kind == "locals":
        for name, attr in block.body.attributes.items():
            local = Local(attr)
            entries.append((1, name, local.address, local))
    elif kind in ("resource", "data") and len(labels) == 2:
        res = Resource("managed" if kind == "resource" else "data", labels[0], labels[1], block)
        # The key names the resource in the module's table and in every name table of the
        # workspace (``stir.references.NameTable``): one string for all of them.
        key = intern(ResourceAddr(res.mode, labels[0], labels[1]).key)
        entries.append((2 if kind == "resource" else 3, key, res.address, res))
    elif kind == "module" and len(labels) == 1:
        call = ModuleCall(labels[0], block.literal_attribute("source"), block)
        entries.append((4, labels[0], call.address, call))
    elif kind == "output" and len(labels) == 1:
        output = Output(labels[0], block)
        entries.append((5, labels[0], output.address, output))


# ---- what a build read, derived again from its module ----------------------------------------
#
# An editor's host keeps what each module's last build read of each block (``FileDecls``) and
# the declaration of each address, for the next build of an edited module to take over and
# compare. Most modules are never edited: the host keeps them only once a module is built again
# (``retention``), and derives them from the module the first time (docs/memory.md).


def declarations_by_address(module: Module) -> dict[str, object]:
    """The declaration of each address of ``module`` (``assemble_module``'s second answer)."""
    return {decl.address: decl for decl in module.declarations()}


def kept_declarations(module: Module, bodies: Mapping[str, Body]) -> dict[str, FileDecls]:
    """What the build of ``module`` read of the blocks of ``bodies`` (its files' current parses)
    that it holds as they are: a block whose every declaration is in the module's tables as this
    block's (the parse took it over) gets a ``BlockDecls`` with those objects, the same as
    ``_block_decls`` would read but for their identity; any other block is left out, to be read
    anew (a block declaring a name an earlier one took, or new). For ``read_declarations`` to
    take those declarations over; the blocks this leaves out are not a complete answer for
    ``assemble_module``'s ``previous``."""
    tables = (module.variables, module.locals, module.resources, module.data, module.calls, module.outputs)
    out: dict[str, FileDecls] = {}
    for path, body in bodies.items():
        blocks: list[BlockDecls] = []
        for block in body.blocks:
            entries = _held_entries(block, tables)
            if entries is not None:
                blocks.append(BlockDecls(block, entries))
        out[path] = FileDecls(Body(), blocks)  # (not ``body``: ``read_declarations`` looks at each block)
    return out


def _held_entries(block: Block, tables: tuple) -> tuple[Entry, ...] | None:
    """``_block_decls(block).entries`` with the declarations ``tables`` hold for ``block``; None
    when one of them is not the one the tables hold."""
    kind, labels = block.type, block.labels
    if kind == "locals":
        entries = []
        for name, attr in block.body.attributes.items():
            local = tables[1].get(name)
            if local is None or local.attribute is not attr:
                return None
            entries.append((1, name, local.address, local))
        return tuple(entries)
    if kind in ("resource", "data") and len(labels) == 2:
        table, key = (2 if kind == "resource" else 3), f"{labels[0]}.{labels[1]}"
    elif kind in _ONE_LABEL and len(labels) == 1:
        table, key = _ONE_LABEL[kind], labels[0]
    else:
        return ()
    decl = tables[table].get(key)
    if decl is None or decl.block is not block:
        return None
    return ((table, key, decl.address, decl),)


_ONE_LABEL = {"variable": 0, "module": 4, "output": 5}

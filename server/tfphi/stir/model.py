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

from typing import Mapping, NamedTuple

from ..records import record, field
from ..syntax.expr import Expr, LiteralExpr, Span
from ..syntax.hclfile import Attribute, Block, Body


@record(frozen=True, slots=True)
class Validation:
    condition_attr: Attribute
    error_message_attr: Attribute | None
    span: Span

    @property
    def condition(self) -> Expr:
        return self.condition_attr.expr

    @property
    def error_message(self) -> str | None:
        return static_string(self.error_message_attr)


@record(frozen=True, slots=True)
class Variable:
    name: str
    span: Span  # the whole block
    label_span: Span
    type_attr: Attribute | None
    default: Attribute | None
    validations: tuple[Validation, ...]
    nullable: bool
    body: Body

    @property
    def address(self) -> str:
        return f"var.{self.name}"

    @property
    def type_expr(self) -> Expr | None:
        return self.type_attr.expr if self.type_attr is not None else None


@record(frozen=True, slots=True)
class Local:
    name: str
    attribute: Attribute  # Val edge: the local's value

    @property
    def address(self) -> str:
        return f"local.{self.name}"

    @property
    def span(self) -> Span:
        return self.attribute.span


@record(frozen=True, slots=True)
class Resource:
    """A ``resource`` (mode ``managed``) or ``data`` block; its attributes are Field edges."""

    mode: str
    type: str
    name: str
    block: Block
    span: Span
    label_spans: tuple[Span, ...]

    @property
    def body(self) -> Body:
        """Read on first use: most resources are never traced."""
        return self.block.body

    @property
    def address(self) -> str:
        prefix = "data." if self.mode == "data" else ""
        return f"{prefix}{self.type}.{self.name}"

    @property
    def count(self) -> Attribute | None:  # GenIter
        return self.body.attributes.get("count")

    @property
    def for_each(self) -> Attribute | None:  # GenIter
        return self.body.attributes.get("for_each")


META_ARGUMENTS = frozenset({"source", "version", "count", "for_each", "providers", "depends_on"})


@record(frozen=True, slots=True)
class ModuleCall:
    name: str
    source: str | None
    block: Block
    span: Span
    label_span: Span

    @property
    def address(self) -> str:
        return f"module.{self.name}"

    @property
    def body(self) -> Body:
        """Read on first use: a call below an edit keeps its origin's body until something reads it (syntax.reuse)."""
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
class Output:
    name: str
    value: Attribute | None
    span: Span
    label_span: Span

    @property
    def address(self) -> str:
        return f"output.{self.name}"


@record(frozen=True)
class Module:
    """All the declarations of one directory's ``.tf`` files."""

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


def static_string(attribute: Attribute | None) -> str | None:
    """The value of an attribute that must be a literal string (``source``, ``error_message``)."""
    return attribute.literal_string() if attribute is not None else None


class Print(NamedTuple):
    """Where a declaration is and what it says: same text elsewhere means it moved."""

    file: str
    start: int
    text: bytes


# One declaration of a block: (table, key in it, address, the declaration, its print).
# Tables: 0 variables, 1 locals, 2 resources, 3 data, 4 calls, 5 outputs (``Module.declarations`` order).
Entry = tuple[int, str, str, object, "Print | None"]


class BlockDecls:
    """What one top-level block declares, kept for the next build of its module to take over."""

    __slots__ = ("block", "text", "entries", "names")

    def __init__(self, block: Block, text: bytes | None, entries: tuple[Entry, ...], names: tuple[tuple[tuple, Span], ...]):
        self.block = block
        self.text = text  # the block's source text (None: no source given, nothing to match by)
        self.entries = entries
        self.names = names  # (identity, label span) of each name it declares (duplicate check)


class FileDecls:
    """What one file declares, block by block (``read_declarations``)."""

    __slots__ = ("body", "blocks")

    def __init__(self, body: Body, blocks: list[BlockDecls]):
        self.body = body
        self.blocks = blocks


def read_declarations(body: Body, source: bytes | None = None, previous: FileDecls | None = None,
                      by_text: bool = False) -> FileDecls:
    """The declarations of one file's top-level body, taking over what ``previous`` read.

    The same body is the same declarations. Otherwise a block that is the previous parse's
    object itself (an edit below it: ``syntax.reuse``) keeps its declarations, and with
    ``by_text`` (two parses without syntax errors, of the native syntax) a block whose text a
    previous block had, at another offset (an edit above it), gets that block's declarations
    with its own spans: module calls and resources without reading their bodies again. Every
    other block is read afresh. ``source`` is the file's text (prints; matching by text)."""
    if previous is not None and previous.body is body:
        return previous
    by_id: dict[int, BlockDecls] = {}
    texts: dict[bytes, BlockDecls] = {}
    if previous is not None:
        for info in previous.blocks:
            by_id[id(info.block)] = info
            if by_text and info.text is not None:
                texts.setdefault(info.text, info)
    out = []
    for block in body.blocks:
        info = by_id.get(id(block))
        if info is not None and info.block is block:
            out.append(info)
            continue
        span = block.span
        text = source[span.start : span.end] if source is not None else None
        old = texts.get(text) if texts else None
        moved = _moved_decls(block, text, old) if old is not None else None
        out.append(moved if moved is not None else _block_decls(block, text, source))
    return FileDecls(body, out)


def assemble_module(dir: str, files: Mapping[str, FileDecls]) -> tuple[Module, dict[str, Print]]:
    """The module of the files' declarations (files in lexical order; the first of a name wins,
    as Terraform loads them) and the print of each declaration that won, by address (of two
    declarations with one address, the later in ``Module.declarations`` order)."""
    tables: tuple[dict, ...] = ({}, {}, {}, {}, {}, {})
    prints: tuple[dict, ...] = ({}, {}, {}, {}, {}, {})
    firsts: dict[tuple, Span] = {}
    duplicates: list[Duplicate] = []
    for path in sorted(files):
        for info in files[path].blocks:
            for table, key, address, decl, print_ in info.entries:
                if tables[table].setdefault(key, decl) is decl:
                    prints[table][address] = print_
            for key, span in info.names:
                first = firsts.setdefault(key, span)
                if first is not span:
                    duplicates.append(Duplicate(_describe(key), span, first))
    variables, locals_, resources, data, calls, outputs = tables
    module = Module(dir, tuple(sorted(files)), variables, locals_, resources, data, calls, outputs, tuple(duplicates))
    return module, {**prints[0], **prints[1], **prints[2], **prints[3], **prints[4], **prints[5]}


def _print(file: str, source: bytes | None, span: Span, text: bytes | None = None) -> Print:
    if text is None:
        text = source[span.start : span.end] if source is not None else b""
    return Print(file, span.start, text)


def _block_decls(block: Block, text: bytes | None, source: bytes | None) -> BlockDecls:
    entries: list[Entry] = []
    _add_block(block, entries, source, text)
    return BlockDecls(block, text, tuple(entries), tuple(_declared_names(block)))


def _moved_decls(block: Block, text: bytes | None, old: BlockDecls) -> BlockDecls | None:
    """The declarations of a block whose text ``old``'s block had elsewhere: module calls and
    resources (what a root module is made of) with the new block's spans; None for the others
    (their declarations hold attributes of the body: read afresh)."""
    kind = block.type
    old_block = old.block
    if kind != old_block.type or block.labels != old_block.labels:
        return None
    text = old.text  # the same bytes: one copy kept, and the edit's scan compares prints by identity first
    if kind == "module" or kind == "resource" or kind == "data":
        entries = old.entries
        if not entries and not old.names:
            return BlockDecls(block, text, (), ())  # (labels that declare nothing)
        if len(entries) != 1 or len(old.names) != 1:
            return None  # (one declaration and one name, as ``_add_block`` gives such a block)
        span = block.span
        table, key, address, decl, _ = entries[0]
        if table == 4:
            new = ModuleCall(decl.name, decl.source, block, span, block.label_spans[0])
        else:
            new = Resource(decl.mode, decl.type, decl.name, block, span, block.label_spans)
        return BlockDecls(block, text, ((table, key, address, new, Print(span.file, span.start, text)),),
                          ((old.names[0][0], block.label_spans[-1]),))
    if not old.entries and not old.names and kind not in _DECLARING:
        return BlockDecls(block, text, (), ())
    return None


_DECLARING = frozenset({"variable", "locals", "resource", "data", "module", "output"})


_LABELLED = {"variable": 1, "output": 1, "module": 1, "resource": 2, "data": 2}


def _declared_names(block: Block):
    """(identity, label span) of each name a top-level block declares."""
    kind, labels = block.type, block.labels
    if kind == "locals":
        for name, attr in block.body.attributes.items():
            yield ("local", name), attr.name_span
        return
    count = _LABELLED.get(kind)
    if count is None or len(labels) != count or not block.label_spans:
        return
    yield (kind, *labels), block.label_spans[-1]


def _describe(key: tuple) -> str:
    """How a duplicate declaration is named: ``local.name``, ``resource "type" "name"``
    (worked out only for the duplicates, not for every declaration)."""
    kind, *labels = key
    if kind == "local":
        return f"local.{labels[0]}"
    quoted = " ".join(f'"{label}"' for label in labels)
    return f"{kind} {quoted}"


def _add_block(block: Block, entries: list, source: bytes | None, text: bytes | None) -> None:
    kind, labels = block.type, block.labels
    file = block.span.file
    if kind == "variable" and len(labels) == 1:
        name = labels[0]
        validations = []
        for vblock in block.body.blocks_of("validation"):
            cond = vblock.body.attributes.get("condition")
            if cond is not None:
                validations.append(Validation(cond, vblock.body.attributes.get("error_message"), vblock.span))
        type_attr = block.body.attributes.get("type")
        nullable_attr = block.body.attributes.get("nullable")
        nullable = True
        if nullable_attr is not None:
            # ``nullable = false`` read from its bytes (converting it parsed the attribute again)
            keyword = nullable_attr.literal_bool()
            if keyword is not None:
                nullable = keyword
            else:
                nullable = not (isinstance(nullable_attr.expr, LiteralExpr) and nullable_attr.expr.value is False)
        variable = Variable(
            name,
            block.span,
            block.label_spans[0],
            type_attr,
            block.body.attributes.get("default"),
            tuple(validations),
            nullable,
            block.body,
        )
        entries.append((0, name, f"var.{name}", variable, _print(file, source, block.span, text)))
    elif kind == "locals":
        for name, attr in block.body.attributes.items():
            entries.append((1, name, f"local.{name}", Local(name, attr), _print(file, source, attr.span)))
    elif kind in ("resource", "data") and len(labels) == 2:
        res = Resource("managed" if kind == "resource" else "data", labels[0], labels[1], block, block.span, block.label_spans)
        entries.append((2 if kind == "resource" else 3, f"{labels[0]}.{labels[1]}", res.address, res, _print(file, source, block.span, text)))
    elif kind == "module" and len(labels) == 1:
        call = ModuleCall(labels[0], block.literal_attribute("source"), block, block.span, block.label_spans[0])
        entries.append((4, labels[0], f"module.{labels[0]}", call, _print(file, source, block.span, text)))
    elif kind == "output" and len(labels) == 1:
        output = Output(labels[0], block.body.attributes.get("value"), block.span, block.label_spans[0])
        entries.append((5, labels[0], f"output.{labels[0]}", output, _print(file, source, block.span, text)))

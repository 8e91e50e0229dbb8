"""Strict reference resolution: every reference resolves, or it is an ``undefined-reference``.

Also ``missing-argument``: a module call that omits a child variable with no default.
Results are plain ``Finding`` records, sorted by position, so two runs report the same thing.
"""

from __future__ import annotations

import weakref
from bisect import bisect_left
from functools import cached_property
from itertools import compress
from operator import ge, is_, is_not, itemgetter
from sys import getrefcount
from types import MappingProxyType
from typing import Callable, Iterable, Iterator, Mapping

from ..addrs import InputVariable, LocalValue, ModuleCall, ModuleCallOutput, Resource
from ..records import field, record
from ..syntax.expr import Span
from ..syntax.references import name_ends
from .model import META_ARGUMENTS, Module, calls_changed_since
from .workspace import ModuleTree, init_command, targets_changed_since

# Roots that name no declaration of the module.
BUILTIN_ROOTS = frozenset({"each", "count", "self", "path", "terraform"})


@record(frozen=True, slots=True)
class Finding:
    code: str
    span: Span
    message: str
    related: tuple[tuple[Span, str], ...] = ()
    severity: str = "error"


def check_module(module: Module, modules: Mapping[str, Module], tree: ModuleTree, file_findings: Callable[[str], list[Finding]],
                 interfaces: "ModuleInterfaces", table: "NameTable | None" = None, generation: int | None = None) -> list[Finding]:
    """Undefined references and missing arguments in one module (``file_findings(path)``: a file's references;
    ``interfaces``: the host's table of what callers check against each module). With ``table`` (the
    module's ``name_table``) and ``generation`` (``ModuleInterfaces.generation`` when the snapshot was
    taken), the calls whose check found nothing last time, unchanged since, are not checked again
    (``CallChecks``)."""
    findings: list[Finding] = []
    for path in module.files:
        findings.extend(file_findings(path))
    last = _last_checks(module, interfaces, generation)
    clean: dict[str, tuple] = {}
    found: dict[str, list[Finding]] = {}
    changed = _calls_changed(module, tree, last) if last is not None else None
    if changed is not None:  # the last check's clean calls carried over whole, the others checked again
        clean = dict(last.clean)
        for name in changed:
            clean.pop(name, None)
        reaching: list[set[str]] = []
        for name in changed | last.found.keys():  # (a call that found something is checked again: its spans may have moved)
            call = module.calls.get(name)
            if call is not None:
                _check_one(name, call, module, modules, tree, interfaces, clean, found, reaching)
    else:
        _call_findings(module, modules, tree, interfaces, last.clean if last is not None else {}, clean, found)
    for each in found.values():
        findings.extend(each)
    if generation is not None and table is not None and interfaces.keep:
        # (most modules have no call, or none that found something: one read-only empty table for those)
        interfaces.checks[module.dir] = CallChecks(tree, generation, table, clean or _NO_CALLS, module, found or _NO_CALLS)
    findings.extend(_duplicates(module))
    files = module.files
    if found or module.duplicates or any(map(ge, files, files[1:])):
        # (each file's findings come in order, one per reference; the files' in the order of their paths need no sort)
        findings.sort(key=lambda f: (f.span.file, f.span.start, f.span.end, f.code, f.message))
    return findings


def _last_checks(module: Module, interfaces: "ModuleInterfaces", generation: int | None) -> "CallChecks | None":
    """The last ``CallChecks`` of the module, when made in this generation of interfaces."""
    last = interfaces.checks.get(module.dir) if generation is not None else None
    return last if last is not None and last.generation == generation else None


def _calls_changed(module: Module, tree: ModuleTree, last: "CallChecks") -> frozenset[str] | None:
    """The calls of ``module`` that may check otherwise than at ``last``: those whose declaration
    the module build replaced since, and those whose target the module tree resolved again; None
    when either is not known (the calls are then compared one by one). A call in neither keeps its
    declaration, its ``CallTarget`` and, the callers graph being the same, whether it is a cycle."""
    calls = calls_changed_since(module, last.module)
    if calls is None:
        return None
    if last.tree is tree:
        return calls
    targets = targets_changed_since(tree, last.tree)
    if targets is None:
        return None
    dir = module.dir
    return calls | {name for d, name in targets if d == dir} if targets else calls


@record(frozen=True)
class NameTable:
    """What references in one module can resolve to; ``key`` identifies it for caches."""

    variables: frozenset[str]
    locals: frozenset[str]
    resources: frozenset[str]
    data: frozenset[str]
    calls: frozenset[str]
    outputs: tuple[tuple[str, str, frozenset[str]], ...]  # (call, target dir, its outputs) for resolved calls

    @property
    def key(self) -> tuple:
        return (self.variables, self.locals, self.resources, self.data, self.calls, self.outputs)

    @cached_property
    def outputs_by_call(self) -> dict[str, tuple[str, frozenset[str]]]:
        """``outputs`` by call: a root of 10,000 calls resolves each ``module.x.y`` in one look-up
        (a scan of every call per reference was a tenth of a 10,000-module check)."""
        return dict(zip(map(_first, self.outputs), map(_target_and_outputs, self.outputs)))  # (made in C)


def changed_names(old: NameTable, new: NameTable) -> frozenset[tuple[str, str]]:
    """The names whose look-up differs between two tables (in ``file_findings.name_looked_up``'s
    terms): declared in one only, or a call whose target's outputs differ. Worked out once per
    pair: ``new`` remembers its answer for the last ``old`` it was compared with (weakly: it
    keeps no old table alive), as each file of a module asks it after a change of its names.
    None changed: the tables are equal."""
    if old is new:
        return _NONE_CHANGED
    last = new.__dict__.get("_changed_since")
    if last is not None and last[0]() is old:
        return last[1]
    changed = _changed_names(old, new)
    object.__setattr__(new, "_changed_since", (weakref.ref(old), changed))  # (a cache, not a field: ``cached_property``'s way)
    return changed


_NONE_CHANGED: frozenset[tuple[str, str]] = frozenset()


def _changed_names(old: NameTable, new: NameTable) -> frozenset[tuple[str, str]]:
    out: set[tuple[str, str]] = set()
    for kind, before, after in (("var", old.variables, new.variables), ("local", old.locals, new.locals),
                                ("module", old.calls, new.calls), ("data", old.data, new.data),
                                ("resource", old.resources, new.resources)):
        if before is not after and before != after:
            out.update((kind, name) for name in before ^ after)
    if old.outputs is not new.outputs and old.outputs != new.outputs:  # (the calls whose target or outputs differ)
        out.update(("module", entry[0]) for entry in _other_entries(old.outputs, new.outputs))
    return frozenset(out)


def _other_entries(old: tuple, new: tuple) -> set[tuple]:
    """The entries of one of two ``NameTable.outputs`` that the other lacks. ``name_table`` carries
    the entries of the calls it did not look at again over as the same objects, so the entries
    at one place in both are compared by identity first (in C), and only the others by value:
    hashing all of a root's hundreds of entries was most of the cost of a renamed call. Exact:
    an entry that is the other's at the same place is in both; an entry that is not, but equals
    one of the other's, equals one that is not in place either (a call has one entry: the place
    of that entry holds the same object in both only if it is this entry's place)."""
    moved = list(map(is_not, old, new))
    held = len(moved)
    return set(compress(old, moved)).union(old[held:]).symmetric_difference(set(compress(new, moved)).union(new[held:]))


def name_table(module: Module, modules: Mapping[str, Module], tree: ModuleTree, interfaces: "ModuleInterfaces",
               generation: int | None = None) -> NameTable:
    """What references in ``module`` can resolve to. With ``generation`` (see ``check_module``), the
    last table of the module (``CallChecks``) is the answer while its names are the same, and its
    calls' outputs while the module tree and the interfaces are, but for the calls the module
    build or the tree says changed (``_calls_changed``): an edit of a root of 200 calls does not
    ask each child's interface again, and the table stays the same object (what the file findings
    compare it by)."""
    last = _last_checks(module, interfaces, generation)
    changed = _calls_changed(module, tree, last) if last is not None else None
    if changed is not None and not changed:
        calls = last.table.calls
        outputs = last.table.outputs  # the same calls, targets and children's interfaces
    else:
        if changed is not None and changed <= last.table.calls and all(name in module.calls for name in changed):
            calls = last.table.calls  # (calls replaced where they were: none added, none removed)
        else:
            calls = interfaces.names(module.calls)
        if last is not None and last.tree is tree and last.table.calls == calls:
            outputs = last.table.outputs
        elif changed is not None:
            outputs = _outputs_replaced(last.table, changed, module, modules, tree, interfaces)
        else:
            outputs = _call_outputs(module, modules, tree, interfaces, last.table.outputs_by_call if last is not None else {})
    shared = interfaces.names
    names = (shared(module.variables), shared(module.locals), shared(module.resources), shared(module.data), calls)
    if last is not None and outputs is last.table.outputs and names == last.table.key[:5]:
        return last.table
    table = NameTable(*names, outputs)
    if changed is not None and all(map(is_, names[:4], last.table.key[:4])):
        # Only the calls in ``changed`` can differ (their names and ``outputs`` entries): what
        # ``changed_names`` answers is found from them, not by comparing the sets of a root's calls.
        object.__setattr__(table, "_changed_since", (weakref.ref(last.table), _calls_changed_names(last.table, table, changed)))
    return table


def _calls_changed_names(old: "NameTable", new: "NameTable", changed: frozenset[str]) -> frozenset[tuple[str, str]]:
    """``changed_names(old, new)`` when the tables differ at most in the ``changed`` calls."""
    out = []
    for name in changed:
        if (name in old.calls) != (name in new.calls) or _outputs_entry(old.outputs, name) != _outputs_entry(new.outputs, name):
            out.append(("module", name))
    return frozenset(out) if out else _NONE_CHANGED


def _outputs_entry(outputs: tuple, name: str) -> tuple | None:
    at = bisect_left(outputs, name, key=_first)
    return outputs[at] if at < len(outputs) and outputs[at][0] == name else None


def _outputs_replaced(table: "NameTable", changed: frozenset[str], module: Module, modules: Mapping[str, Module],
                      tree: ModuleTree, interfaces: "ModuleInterfaces") -> tuple:
    """``NameTable.outputs`` from the last ``table``'s, with the ``changed`` calls' entries taken out
    and found again (their place in the sorted tuple found by bisection: the other calls' entries
    are carried over in C)."""
    outputs = table.outputs
    targets = tree.targets
    for name in sorted(changed):
        at = bisect_left(outputs, name, key=_first)
        if at < len(outputs) and outputs[at][0] == name:
            outputs = outputs[:at] + outputs[at + 1 :]
        if name not in module.calls:
            continue
        target = targets.get((module.dir, name))
        child = modules.get(target.dir) if target is not None and target.dir is not None else None
        if child is not None:
            outputs = outputs[:at] + ((name, target.dir, interfaces.of(child).outputs),) + outputs[at:]
    return outputs


_first = itemgetter(0)
_target_and_outputs = itemgetter(1, 2)


def _call_outputs(module: Module, modules: Mapping[str, Module], tree: ModuleTree, interfaces: "ModuleInterfaces",
                  known: Mapping[str, tuple[str, frozenset[str]]]) -> tuple:
    """``NameTable.outputs``: each resolved call's target and the outputs of the module there
    (``known``: the last table's of this generation of interfaces, by call: the same while the call
    leads to the same directory)."""
    outputs = []
    targets = tree.targets
    dir = module.dir
    for call in sorted(module.calls):
        target = targets.get((dir, call))
        if target is None or target.dir is None:
            continue
        last = known.get(call)
        if last is not None and last[0] == target.dir:
            outputs.append((call, target.dir, last[1]))
            continue
        child = modules.get(target.dir)
        if child is not None:
            outputs.append((call, target.dir, interfaces.of(child).outputs))
    return tuple(outputs)


_NO_NAMES: frozenset[str] = frozenset()
_NO_CALLS: Mapping = MappingProxyType({})  # (``CallChecks``: a dict was 64 bytes, two per module)


# A relative finding: start and end offsets from the start of its block, and the message.
RelativeFinding = tuple[int, int, str]


def block_findings(refs: list[tuple], table: NameTable, is_bound: Callable[[tuple], bool],
                   resolved: dict[tuple, tuple | None] | None = None) -> tuple[RelativeFinding, ...]:
    """Undefined references among one block's references (as ``syntax.references`` lists them,
    relative). A tuple: the host keeps one per top-level block, and the empty tuple, what almost
    every block has, is one shared object (an empty list per block was 2 MiB at 2,000 modules).
    ``resolved``: what was resolved against ``table`` before, by (root, names), and is added to
    (a renamed call's references in 22 blocks of a root ask one thing)."""
    out: list[RelativeFinding] = []
    for ref in refs:
        root, names, start, _ = ref
        if resolved is None:
            unresolved = _message(resolve(root, names, table))
        else:
            path = (root, names)
            unresolved = resolved.get(path, _UNSEEN)
            if unresolved is _UNSEEN:
                unresolved = resolved[path] = _message(resolve(root, names, table))
        if unresolved is not None and not is_bound(ref):
            names_used, message = unresolved
            out.append((start, start + name_ends(ref)[names_used], message))
    return tuple(out) if out else ()


_UNSEEN = object()  # (not resolved yet in this pass)


def _message(unresolved: tuple[int, str, str] | None) -> tuple[int, str] | None:
    """``resolve``'s answer as (names the finding covers, its message)."""
    if unresolved is None:
        return None
    names_used, name, why = unresolved
    return names_used, f"undefined reference to {name}: {why}"


def resolve(root: str, names: tuple[str, ...], table: NameTable) -> tuple[int, str, str] | None:
    """None when ``root.names...`` resolves; else (names it covers, the undefined name, why)."""
    if root in BUILTIN_ROOTS:
        return None
    first = names[0]
    if root == "var":
        if first not in table.variables:
            return 1, str(InputVariable(first)), "no variable block declares it"
    elif root == "local":
        if first not in table.locals:
            return 1, str(LocalValue(first)), "no locals block declares it"
    elif root == "module":
        if first not in table.calls:
            return 1, str(ModuleCall(first)), "no module block declares it"
        target = table.outputs_by_call.get(first) if len(names) > 1 else None
        if target is not None and names[1] not in target[1]:
            return 2, str(ModuleCallOutput(first, names[1])), f"the module in {target[0] or '.'} has no output {names[1]!r}"
    elif root == "data":
        if len(names) > 1 and f"{first}.{names[1]}" not in table.data:
            return 2, str(Resource('data', first, names[1])), "no data block declares it"
    elif "::" not in root and f"{root}.{first}" not in table.resources:
        return 1, f"{root}.{first}", "no resource block declares it"
    return None


@record(frozen=True, slots=True)
class Interface:
    """What a module's callers check against: its outputs' names, its variables without a
    default (and their names), and whether one of them is named like a meta-argument."""

    outputs: frozenset[str]
    required: tuple
    required_names: frozenset[str]
    meta: bool


class ModuleInterfaces:
    """Each module's ``Interface``, remembered per module object (a root of 200 calls asked it of
    each child on every edit of the root). The host owns one; an entry goes when its module is
    freed (a weak reference, so that a module an edit replaced is neither kept alive nor
    mistaken for the one that reuses its id).

    It also keeps, per module directory, what the last check of the module's calls found
    (``checks``, unless ``keep`` is off: a batch host checks each module once); ``generation``
    counts the changes of any module's interface (``interfaces_changed``), so that a memo of
    one generation is not read in another."""

    __slots__ = ("_known", "checks", "generation", "keep", "_names", "_held", "_prune_at")

    # How many names the sets ``names`` holds may count before it lets go of those nothing else holds.
    NAMES_PRUNED_AT = 16_384

    def __init__(self, keep: bool = True) -> None:
        self._known: dict[int, tuple[weakref.ref, Interface]] = {}
        self.checks: dict[str, CallChecks] = {}
        self.generation = 0
        self.keep = keep
        self._names: dict[frozenset[str], frozenset[str]] = {}
        self._held = 0  # how many names the sets of ``_names`` count
        self._prune_at = self.NAMES_PRUNED_AT

    def names(self, names: Iterable[str]) -> frozenset[str]:
        """``frozenset(names)``, one object for equal sets: the name tables and interfaces of the
        modules hold their sets of names through it (``NameTable``, ``Interface``). A workspace's
        modules repeat a few shapes: at 1,000 generated modules, 1,000 sets of variable names were
        26 distinct ones, and the seven kinds of sets were 2.4 MiB, a tenth of what was traced
        then (docs/memory.md, "Session 13"). Equal sets are interchangeable (every reader compares
        them by value); every empty one is ``_NO_NAMES`` (216 bytes each, and most leaf modules
        have neither locals, data nor calls).

        What the table holds is a function of what is live, within a factor of two: a label typed
        into a block makes a new set per keystroke (a root's calls: a thousand names), so once
        the sets it holds count twice as many names as after its last pruning
        (``NAMES_PRUNED_AT`` at least), it lets go of those that nothing else holds."""
        names = frozenset(names)
        if not names:
            return _NO_NAMES
        table = self._names
        shared = table.setdefault(names, names)
        if shared is names:
            self._held += len(names)
            if self._held > self._prune_at:
                self._prune()
        return shared

    def _prune(self) -> None:
        table = self._names
        # held by the table alone: its key and value, the loop's name and ``getrefcount``'s argument
        for gone in [kept for kept in table if getrefcount(kept) <= 4]:
            del table[gone]
        self._held = sum(map(len, table))
        self._prune_at = max(self.NAMES_PRUNED_AT, 2 * self._held)

    def names_held(self) -> int:
        """How many distinct sets of names ``names`` holds."""
        return len(self._names)

    def interfaces_changed(self) -> None:
        """A module's interface changed: the call checks of every module may differ."""
        self.generation += 1
        self.checks.clear()

    def __len__(self) -> int:
        return len(self._known)

    def of(self, module: Module) -> Interface:
        known = self._known.get(id(module))
        if known is not None and known[0]() is module:
            return known[1]
        required = tuple(var for var in module.variables.values() if var.default is None)
        names = self.names(var.name for var in required)
        interface = Interface(self.names(module.outputs), required, names, not names.isdisjoint(META_ARGUMENTS))
        key = id(module)
        table = self._known
        # dropped when the module is freed (before its id can be reused): the required variables hold its parse
        gone = weakref.ref(module, lambda _ref, key=key, table=table: table.pop(key, None))
        table[key] = (gone, interface)
        return interface


@record(frozen=True, slots=True)
class CallChecks:
    """What the last check of one module's calls found, for the next check of the module: its name
    table (and the module tree it was made with) and the calls whose check found nothing (name ->
    the call's declaration and its target). Valid for one generation of interfaces: a call that is
    the same declaration with the same target (a ``CallTarget`` object the module tree keeps while
    the call's source is the same) is then checked the same (its arguments are its block's), unless
    it now leads back to its module (a call cycle: checked on every check)."""

    tree: ModuleTree
    generation: int
    table: NameTable
    clean: dict
    module: Module | None = None  # the module checked (what ``Module.calls_changed`` of a later build refers to)
    found: dict = field(default_factory=dict)  # name -> findings of each call whose check found something


def _call_findings(module: Module, modules, tree: ModuleTree, interfaces: ModuleInterfaces,
                   clean_before: Mapping[str, object], clean: dict[str, object], found: dict[str, list[Finding]]) -> None:
    """What is wrong with each module call, in one pass over the calls (a root has hundreds;
    the findings are sorted afterwards, and no two of them have the same sort key): a local
    source that leads nowhere, a source not installed, a call cycle, a missing argument.
    A call in ``clean_before`` (the same declaration) found nothing then and finds nothing now;
    each call that finds nothing is added to ``clean``, each other one to ``found``."""
    reaching: list[set[str]] = []  # found once, for the first call checked that needs it
    targets = tree.targets
    dir = module.dir
    for name, call in module.calls.items():
        target = targets.get((dir, name))
        last = clean_before.get(name)
        if last is not None and last[0] is call and last[1] is target:
            if target is not None and target.dir is not None and not reaching:
                reaching.append(_reaching(module, tree))
            if target is None or target.dir is None or target.dir not in reaching[0]:  # (another call may have made this one a cycle since)
                clean[name] = last
                continue
        _check_one(name, call, module, modules, tree, interfaces, clean, found, reaching)


def _check_one(name: str, call, module: Module, modules, tree: ModuleTree, interfaces: ModuleInterfaces,
               clean: dict[str, object], found: dict[str, list[Finding]], reaching: list[set[str]]) -> None:
    """Checks one call: into ``found`` when it finds something, else into ``clean``."""
    result = list(_check_call(name, call, module, modules, tree, interfaces, reaching))
    if result:
        found[name] = result
    else:
        clean[name] = (call, tree.targets.get((module.dir, name)))


def _check_call(name: str, call, module: Module, modules, tree: ModuleTree, interfaces: ModuleInterfaces,
                reaching: list[set[str]]) -> Iterator[Finding]:
    """What is wrong with one module call (``reaching``: empty, or the modules from which this one can be reached)."""
    target = tree.targets.get((module.dir, name))
    if target is None:
        return
    if target.dir is None:
        source = call.source
        if source is None:
            return
        if source.startswith(("./", "../")):
            if call.source_attr is not None:
                yield _unresolved_source(call, target)
        else:
            yield _not_installed(name, call, init_command(module.files))
        return
    if not reaching:
        reaching.append(_reaching(module, tree))
    if target.dir in reaching[0]:
        yield _call_cycle(name, call, target, module)
    child = modules.get(target.dir)
    if child is None:
        return
    interface = interfaces.of(child)
    required = interface.required
    if required:
        passed = call.block.attribute_names()  # (a call below an edit answers without copying its body)
        if interface.meta or not passed >= interface.required_names:  # (else every required variable is set: a dict view compares as a set, in C)
            yield from _missing_arguments(name, call, target, required, passed)


def _missing_arguments(name: str, call, target, required: tuple, passed) -> Iterator[Finding]:
    """A call that omits a variable of its module without a default (or sets it only as a meta-argument)."""
    for var in required:
        if var.name in META_ARGUMENTS or var.name not in passed:
            yield Finding(
                "missing-argument",
                call.label_span,
                f"{ModuleCall(name)} does not set {var.name}, which the module in {target.dir or '.'} requires (no default)",
                ((var.label_span, f"{InputVariable(var.name)} is declared here"),),
            )


def _unresolved_source(call, target) -> Finding:
    """A local module source that leads nowhere is an undefined reference to that module."""
    return Finding("undefined-reference", call.source_attr.expr.span, target.opaque_reason or "module source not found")


def _duplicates(module: Module) -> Iterator[Finding]:
    """Two declarations of one name in a module: Terraform refuses to load it."""
    for dup in module.duplicates:
        yield Finding("duplicate-declaration", dup.span, f"duplicate {dup.what}: it is already declared in this module",
                      ((dup.first, f"{dup.what} is first declared here"),))


def _not_installed(name: str, call, command: str) -> Finding:
    """A registry (or other non-local) source that ``terraform init`` (``command``) has not installed."""
    return Finding(
        "module-not-installed", call.label_span,
        f"{ModuleCall(name)} uses {call.source!r}, which is not installed: its outputs are unknown until "
        f"`{command}` installs it into .terraform/modules (tfphi never downloads it)",
        severity="information",
    )


def _reaching(module: Module, tree: ModuleTree) -> set[str]:
    """The modules from which this one can be reached, found once (a walk from each call's
    target was 200 walks of the whole tree for a root of 200 calls, on every edit of it)."""
    callers = tree.callers
    reaching = {module.dir}
    stack = [module.dir]
    while stack:
        for caller, _ in callers.get(stack.pop(), ()):
            if caller not in reaching:
                reaching.add(caller)
                stack.append(caller)
    return reaching


def _call_cycle(name: str, call, target, module: Module) -> Finding:
    """A module call that leads back to the calling module (``source = "./"``, or a -> b -> a)."""
    where = "this module itself" if target.dir == module.dir else f"the module in {target.dir or '.'}, which calls back to this module"
    span = call.source_attr.expr.span if call.source_attr is not None else call.label_span
    return Finding("undefined-reference", span, f"{ModuleCall(name)} calls {where}: a module call cycle, which Terraform cannot load")

"""The module tree of a workspace: which directory each module call reaches, roots and call paths.

Pure: the ``.terraform/modules/modules.json`` manifests arrive as already-read text.
"""

from __future__ import annotations

import json
import posixpath
import weakref
from functools import cached_property
from sys import intern
from typing import Iterable, Mapping

from ..addrs import ModuleCall
from ..records import field, record
from .model import Module

MODULES_JSON = ".terraform/modules/modules.json"
MAX_CALL_PATHS = 64
LOCAL_PREFIXES = ("./", "../")


@record(frozen=True, slots=True)
class CallTarget:
    """Where a module call leads: a module directory, or nowhere (opaque) with the reason why."""

    dir: str | None
    opaque_reason: str | None = None


# A call path: the root module's directory, then (call name, module directory) per hop.
Frame = tuple[str, str]  # (call name, module dir); the root frame has call name ""
CallPath = tuple[Frame, ...]


TERRAFORM_SUFFIXES = (".tf", ".tf.json")
OPENTOFU_SUFFIXES = (".tofu", ".tofu.json")
TERRAFORM, OPENTOFU = "terraform", "opentofu"


def is_opentofu_file(path: str) -> bool:
    return path.endswith(OPENTOFU_SUFFIXES)


def configuration_files(paths: Iterable[str], engine: str | None) -> list[str]:
    """The files of one module directory that its engine reads (SPEC 2), sorted.

    OpenTofu reads ``.tofu`` and ``.tofu.json`` too, and where ``x.tofu`` and ``x.tf`` (or
    ``x.tofu.json`` and ``x.tf.json``) share a name it reads ``x.tofu`` and ignores ``x.tf``;
    Terraform ignores ``.tofu`` files. ``engine`` None: OpenTofu's rule (a directory without
    ``.tofu`` files reads the same either way)."""
    paths = sorted(paths)
    if engine == TERRAFORM:
        return [p for p in paths if not is_opentofu_file(p)]
    tofu = {p for p in paths if is_opentofu_file(p)}
    if not tofu:
        return paths
    return [p for p in paths if not _shadowed(p, tofu)]


def _shadowed(path: str, tofu: set[str]) -> bool:
    """``x.tf`` beside ``x.tofu`` (``x.tf.json`` beside ``x.tofu.json``)."""
    if path.endswith(".tf"):
        return path[:-3] + ".tofu" in tofu
    if path.endswith(".tf.json"):
        return path[:-8] + ".tofu.json" in tofu
    return False


def module_dir_of(path: str) -> str:
    """The module directory (POSIX, relative, "" for the root) of a file path; interned: the
    host's tables of files, modules and traces name each module by it, one string for all."""
    return intern(posixpath.dirname(path))


def is_local_source(source: str) -> bool:
    return source.startswith(LOCAL_PREFIXES)


# How far above DIR a chain of ``../`` sources may climb before tfphi stops following it:
# deeper than any repository layout, and a bound on a configuration that climbs forever.
MAX_UP_LEVELS = 16


def local_target(dir: str, source: str) -> str | None:
    """The module directory a local ``source`` of a module in ``dir`` calls ("" for DIR), or None
    when it climbs more than ``MAX_UP_LEVELS`` above DIR."""
    target = posixpath.normpath(posixpath.join(dir or ".", source))
    if target == ".":
        return ""
    if up_levels(target) > MAX_UP_LEVELS:
        return None
    return intern(target)  # (a module's name in the module tree: see ``module_dir_of``)


def up_levels(path: str) -> int:
    """How many ``..`` a normalized relative path starts with (0 inside DIR)."""
    levels = 0
    for part in path.split("/"):
        if part != "..":
            break
        levels += 1
    return levels


def is_installed_dir(dir: str) -> bool:
    """Directories under ``.terraform`` hold modules that ``terraform init`` installed."""
    return dir == ".terraform" or dir.startswith(".terraform/") or "/.terraform/" in f"/{dir}/"


@record(frozen=True, slots=True)
class Manifest:
    """One ``modules.json``: module keys (``a.b``) to installed directories."""

    root_dir: str
    dirs: Mapping[str, str]
    sources: Mapping[str, str]


def parse_manifest(root_dir: str, text: str) -> tuple[Manifest | None, str | None]:
    """Reads a ``modules.json``; returns the manifest or a readable problem."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        return None, f"modules.json is not valid JSON: {exc}"
    entries = data.get("Modules") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        return None, 'modules.json has no "Modules" list'
    dirs: dict[str, str] = {}
    sources: dict[str, str] = {}
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        key, dir_, source = entry.get("Key"), entry.get("Dir"), entry.get("Source", "")
        if not isinstance(key, str) or not isinstance(dir_, str) or not key:
            continue
        target = posixpath.normpath(posixpath.join(root_dir, dir_))
        if target.startswith("../") or target == ".." or posixpath.isabs(dir_):
            continue  # never follow a manifest outside the workspace
        dirs[key] = "" if target == "." else target
        sources[key] = source if isinstance(source, str) else ""
    return Manifest(root_dir, dirs, sources), None


@record(frozen=True)
class ModuleTree:
    """Call targets, callers and roots, derived from the modules and manifests."""

    targets: Mapping[tuple[str, str], CallTarget]  # (module dir, call name) -> target
    callers: Mapping[str, tuple[tuple[str, str], ...]]  # module dir -> (caller dir, call name)
    roots: tuple[str, ...]
    # (module dir, call name) -> the directory outside DIR its local source leads to, loaded or not:
    # the calls that can ask for a module directory the walker never reads (``roots.missing_local_targets``
    # looks at these instead of every module's calls; a rebuilt tree updates the changed calls only).
    outside: Mapping[tuple[str, str], str] = field(default_factory=dict)
    # Rebuilt from an earlier tree for some changed calls: (a weak reference to that tree, those
    # calls); see ``targets_changed_since``. Not part of what the tree is.
    rebuilt: tuple | None = field(default=None, compare=False, repr=False)

    def calls_beyond(self, dir: str, calls: Iterable[str]) -> tuple[tuple[str, str], ...]:
        """(call name, target dir), sorted by name, of the ``calls`` of the module in ``dir`` that lead
        to an installed module or out of DIR: the only calls that can reach a module the user does
        not own (``is_foreign_dir``). Remembered per directory for this tree (the calls are those
        the tree was built from): an edit of a root of 200 calls that keeps its calls asks once."""
        found = self._beyond.get(dir)
        if found is None:
            targets = self.targets
            found = self._beyond[dir] = tuple(sorted(
                (name, t.dir) for name in calls
                if (t := targets.get((dir, name))) is not None and t.dir is not None
                and (is_installed_dir(t.dir) or _outside(t.dir))))
        return found

    @cached_property
    def _beyond(self) -> dict[str, tuple[tuple[str, str], ...]]:
        return {}

    def call_paths(self, dir: str) -> list[CallPath]:
        """Every call path from a root to ``dir`` (at most MAX_CALL_PATHS, shortest first)."""
        paths: list[CallPath] = []
        self._collect_paths(dir, (), paths, set())
        paths.sort(key=lambda p: (len(p), p))
        return paths[:MAX_CALL_PATHS]

    def _collect_paths(self, dir: str, suffix: tuple[Frame, ...], out: list[CallPath], seen: set[str]) -> None:
        if len(out) >= MAX_CALL_PATHS or dir in seen:
            return
        if dir in self.roots:
            out.append((("", dir),) + suffix)
        seen = seen | {dir}
        for caller_dir, call in self.callers.get(dir, ()):
            self._collect_paths(caller_dir, ((call, dir),) + suffix, out, seen)


def build_module_tree(modules: Mapping[str, Module], manifests: Mapping[str, Manifest],
                      deployed: Iterable[str] = (), known: "tuple[ModuleTree, set[tuple[str, str]]] | None" = None) -> ModuleTree:
    """Resolves every module call and finds the roots (SPEC section 2); ``deployed``: the module
    directories Terragrunt units deploy, roots wherever they lie (``stir.terragrunt``). ``known``:
    the last tree, and the calls (module dir, name) added, removed or given another source since
    (the same module directories, manifests and units): only those are resolved again, and the
    roots are the last tree's while every call still links the same two modules."""
    if known is not None:
        return (_rebuilt_module_tree(modules, manifests, known[0], known[1])
                or _reusing(build_module_tree(modules, manifests, deployed), known[0]))
    targets: dict[tuple[str, str], CallTarget] = {}
    callers: dict[str, list[tuple[str, str]]] = {}
    outside: dict[tuple[str, str], str] = {}
    keys = _manifest_keys(modules, manifests)
    for dir in sorted(modules):
        for name, call in modules[dir].calls.items():
            target = _resolve_call(dir, name, call.source, modules, manifests, keys)
            targets[(dir, name)] = target
            if target.dir is not None:
                callers.setdefault(target.dir, []).append((dir, name))
            if (leads := outside_target(dir, call.source)) is not None:
                outside[(dir, name)] = leads
    # A module outside DIR is only ever loaded because a local source calls it: never a root.
    roots = [d for d in sorted(modules) if d not in callers and not is_installed_dir(d) and not _outside(d)]
    roots.extend(d for d in deployed if d in modules and d not in roots)
    roots.extend(_cycle_roots(modules, callers, roots))
    return ModuleTree(targets, {k: tuple(v) for k, v in callers.items()}, tuple(sorted(roots)), outside)


def _reusing(tree: ModuleTree, last: ModuleTree) -> ModuleTree:
    """``tree``, built whole, holding ``last``'s equal targets (their keys too), callers and roots
    as those very objects. A keystroke that takes a call away and its undo (a root's block broken,
    then mended) build the tree whole twice; each build's objects would live until the next build,
    born among the keystroke's transient ones (the pools of Python's allocator they pin:
    bench/README.md, "Session 14: soak6"). With the last tree's objects kept, the new ones die young."""
    old_targets, old_callers = last.targets, last.callers
    old_keys = {key: key for key in old_targets}
    targets = {}
    for key, target in tree.targets.items():
        old = old_targets.get(key)
        targets[old_keys.get(key, key)] = old if old is not None and old == target else target
    callers = {}
    for dir, entries in tree.callers.items():
        old = old_callers.get(dir)
        callers[dir] = old if old is not None and old == entries else entries
    roots = last.roots if tree.roots == last.roots else tree.roots
    return ModuleTree(targets, callers, roots, tree.outside)


def outside_target(dir: str, source: str | None) -> str | None:
    """The directory outside DIR that a local ``source`` of the module in ``dir`` leads to; None
    for any other source. (``./x`` from inside DIR stays inside: a root's 200 calls need no path
    worked out.)"""
    if source is None or not is_local_source(source) or (".." not in source and not _outside(dir)):
        return None
    target = local_target(dir, source)
    return target if target is not None and _outside(target) else None


def _rebuilt_module_tree(modules, manifests, old: ModuleTree, changed: set[tuple[str, str]]) -> ModuleTree | None:
    """``old`` with the ``changed`` calls resolved again; None when a call now links other
    modules than before (the roots must be found again). The new tree takes ``old``'s dicts over
    and changes the changed calls' entries in them; ``old`` reads them through its undo entries
    (``_Undone``): the work is the changed calls', not the workspace's (copying the dicts of a
    workspace of 1,000 modules was most of a renamed call's tree rebuild)."""
    keys = _manifest_keys(modules, manifests)
    old_targets = old.targets
    targets: dict[tuple[str, str], CallTarget | None] = {}  # the changed calls' new entries (None: no call)
    outside: dict[tuple[str, str], str | None] = {}
    before: dict[tuple[str, str], int] = {}  # (caller dir, target dir) -> calls linking them, before minus after
    for dir, name in changed:
        was = old_targets.get((dir, name))
        if was is not None and was.dir is not None:
            before[(dir, was.dir)] = before.get((dir, was.dir), 0) + 1
        module = modules.get(dir)
        call = module.calls.get(name) if module is not None else None
        outside[(dir, name)] = outside_target(dir, call.source) if call is not None else None
        target = targets[(dir, name)] = _resolve_call(dir, name, call.source, modules, manifests, keys) if call is not None else None
        if target is not None and target.dir is not None:
            before[(dir, target.dir)] = before.get((dir, target.dir), 0) - 1
    if any(before.values()):
        return None
    # Every call still links the same two modules: the callers of a module whose callers changed
    # differ by the changed calls' names alone, listed in the order a whole build lists them (by
    # caller directory, then in the caller's call order).
    callers: dict[str, tuple[tuple[str, str], ...] | None] = {}
    orders: dict[str, dict[str, int]] = {}
    for target in {target for _, target in before}:
        kept = [entry for entry in old.callers.get(target, ()) if entry not in changed]
        kept.extend(key for key, t in targets.items() if t is not None and t.dir == target)
        callers[target] = _in_build_order(kept, modules, orders) if kept else None
    taken = {name: _taken_over(old, name, changes) for name, changes in (("targets", targets), ("callers", callers), ("outside", outside))}
    tree = ModuleTree(taken["targets"][0], taken["callers"][0], old.roots, taken["outside"][0], (weakref.ref(old), frozenset(changed)))
    # What ``calls_beyond`` found, the same for the calls that did not change: the new tree takes
    # the cache over, and the old one starts another (only a stale snapshot asks it again).
    beyond = tree.__dict__["_beyond"] = old._beyond
    old.__dict__["_beyond"] = {}
    for dir in {dir for dir, _ in changed}:
        found = beyond.get(dir)
        if found is None:
            continue
        kept = [(name, target) for name, target in found if (dir, name) not in changed]
        for name in [name for d, name in changed if d == dir]:
            target = targets.get((dir, name))
            if target is not None and target.dir is not None and (is_installed_dir(target.dir) or _outside(target.dir)):
                kept.append((name, target.dir))
        beyond[dir] = tuple(sorted(kept))
    for name, (mapping, undo) in taken.items():
        if getattr(old, name) is mapping:
            _hand_over(old, tree, name, undo)
    return tree


_ABSENT = object()  # (an undo entry: the key was not in the mapping)


def _taken_over(old: ModuleTree, name: str, changes: dict) -> tuple[dict, dict]:
    """``old``'s dict ``name`` with ``changes`` made (a None value: the key removed), and what
    undoes them (``_ABSENT``: a key to remove): the dict itself when ``old`` holds it (a tree's
    dicts are its own: ``build_module_tree`` makes them), else a copy (``old`` was rebuilt from
    already)."""
    current = getattr(old, name)
    mapping = current if type(current) is dict else dict(current)
    undo = {}
    for key, value in changes.items():
        was = mapping.get(key, _ABSENT)
        if value is None:
            if was is not _ABSENT:
                undo[key] = was
                del mapping[key]
        elif was is not value:
            undo[key] = was
            mapping[key] = value
    return mapping, undo


def _hand_over(old: ModuleTree, new: ModuleTree, name: str, undo: dict) -> None:
    """``old`` reads its field ``name`` through ``new``'s, but for the keys in ``undo``, once ``new``
    took ``old``'s very dict over: the trick of persistent arrays (the newest version holds the
    data, each older one the undo entries to its successor). Reads of the current tree stay a
    dict's; reading an old tree (only the pass that replaced it, and a stale snapshot, do) costs
    a look-up per newer tree. The old tree's value is unchanged: the frozen record's field is
    set only to the same mapping, read another way."""
    object.__setattr__(old, name, _Undone(new, name, undo))


class _Undone(Mapping):
    """A tree's mapping as it was before a newer tree took its dict over: the newer tree's, with
    the keys it changed as they were (``_ABSENT``: not there)."""

    __slots__ = ("_newer", "_name", "_undo")

    def __init__(self, newer: ModuleTree, name: str, undo: dict):
        self._newer, self._name, self._undo = newer, name, undo

    def __getitem__(self, key):
        value = self._undo.get(key, self)
        if value is self:
            return getattr(self._newer, self._name)[key]
        if value is _ABSENT:
            raise KeyError(key)
        return value

    def __iter__(self):
        undo = self._undo
        for key in getattr(self._newer, self._name):
            if key not in undo:
                yield key
        for key, value in undo.items():
            if value is not _ABSENT:
                yield key

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __repr__(self) -> str:
        return repr(dict(self.items()))


def _in_build_order(entries: list[tuple[str, str]], modules, orders: dict[str, dict[str, int]]) -> tuple[tuple[str, str], ...]:
    """The (caller dir, call name) callers of one module in a whole build's order: by caller
    directory, then in the caller's call order. The call order is only looked up for a directory
    that calls the module more than once: a module called once from a root of 1,000 calls (the
    usual case) does not number the root's calls (that was most of a renamed call's tree rebuild)."""
    if len(entries) == 1:
        return (entries[0],)
    entries = sorted(entries, key=_first)
    dirs = [dir for dir, _ in entries]
    if len(set(dirs)) == len(dirs):
        return tuple(entries)
    return tuple(sorted(entries, key=lambda entry: (entry[0], _call_order(modules, entry[0], orders).get(entry[1], -1))))


def _first(entry: tuple[str, str]) -> str:
    return entry[0]


def _call_order(modules, dir: str, orders: dict[str, dict[str, int]]) -> dict[str, int]:
    """Each call name of the module in ``dir`` -> its place among the module's calls (made in C, once per directory)."""
    order = orders.get(dir)
    if order is None:
        calls = modules[dir].calls if dir in modules else {}
        order = orders[dir] = dict(zip(calls, range(len(calls))))
    return order


def targets_changed_since(tree: ModuleTree, earlier: ModuleTree) -> frozenset[tuple[str, str]] | None:
    """The calls (module dir, name) whose target in ``tree`` may not be ``earlier``'s, when ``tree``
    is ``earlier`` or was rebuilt from it for some changed calls (``build_module_tree``'s ``known``):
    then every other call keeps its ``CallTarget`` object, and every call links the same two
    modules as before (the same callers graph, roots and call cycles). None when not known."""
    if tree is earlier:
        return frozenset()
    rebuilt = tree.rebuilt
    if earlier is None or rebuilt is None or rebuilt[0]() is not earlier:
        return None
    return rebuilt[1]


def _resolve_call(dir, name, source, modules, manifests, keys) -> CallTarget:
    if source is None:
        return CallTarget(None, f"{ModuleCall(name)} has no literal source")
    if is_local_source(source) and not is_installed_dir(dir):
        target = local_target(dir, source)
        if target is None:
            return CallTarget(None, f"{ModuleCall(name)} source {source!r} climbs too far above the workspace")
        if target not in modules:
            return CallTarget(None, f"{ModuleCall(name)} source {source!r}: no .tf files in {target or '.'}")
        return CallTarget(target)
    key_prefix = keys.get(dir, "")
    key = f"{key_prefix}.{name}" if key_prefix else name
    for manifest in manifests.values():
        installed = manifest.dirs.get(key)
        if installed is not None and installed in modules:
            return CallTarget(installed)
    if is_local_source(source):  # in an installed module: `terraform init` lists its nested calls too
        return CallTarget(
            None,
            f"{ModuleCall(name)} (source {source!r}, in the installed module {dir}) is not listed in "
            ".terraform/modules/modules.json (a partial or older `terraform init`); `terraform init` installs it",
        )
    command = init_command(modules[dir].files) if dir in modules else "terraform init"
    return CallTarget(
        None,
        f"{ModuleCall(name)} uses the non-local source {source!r}, which is not installed; "
        f"`{command}` installs it into .terraform/modules",
    )


def is_foreign_dir(dir: str, owned_outside: tuple[str, ...] | None) -> bool:
    """Whether the module in ``dir`` is not the user's to edit (SPEC 2): installed by ``terraform
    init``, or, in the editor (``owned_outside`` given, see ``Config.owned_outside``), outside the
    workspace folder and not listed there (``dir``, or a tree ``dir/`` holding it)."""
    if is_installed_dir(dir):
        return True
    if owned_outside is None or not _outside(dir):
        return False
    return not any(dir == owned or (owned.endswith("/") and dir.startswith(owned)) for owned in owned_outside)


def init_command(files: Iterable[str]) -> str:
    """The command that installs a module's non-local sources: ``tofu init`` where the module is
    OpenTofu's (it reads ``.tofu`` files, which only OpenTofu does), else ``terraform init``."""
    return "tofu init" if any(f.endswith((".tofu", ".tofu.json")) for f in files) else "terraform init"


def _outside(dir: str) -> bool:
    return dir == ".." or dir.startswith("../")


def _manifest_keys(modules, manifests) -> dict[str, str]:
    """Installed module directories, and local modules below them, mapped to manifest keys."""
    keys: dict[str, str] = {}
    for manifest in manifests.values():
        for key, dir in manifest.dirs.items():
            if dir != manifest.root_dir:
                keys.setdefault(dir, key)
    return keys


def _cycle_roots(modules, callers, roots) -> list[str]:
    """Modules only reachable through a call cycle get the smallest directory of each cycle as a root."""
    reached: set[str] = set()
    children: dict[str, list[str]] = {}
    for target, sources in callers.items():
        for caller_dir, _ in sources:
            children.setdefault(caller_dir, []).append(target)
    stack = list(roots)
    while stack:
        d = stack.pop()
        if d in reached:
            continue
        reached.add(d)
        stack.extend(children.get(d, ()))
    extra: list[str] = []
    for d in sorted(modules):
        if d in reached or is_installed_dir(d) or _outside(d):
            continue
        extra.append(d)
        stack = [d]
        while stack:
            x = stack.pop()
            if x in reached:
                continue
            reached.add(x)
            stack.extend(children.get(x, ()))
    return extra

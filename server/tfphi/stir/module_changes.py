"""What a new build of a module changed, as the host's incremental pass asks it: the addresses
its edited files declare, whether its calls or its interface differ, and the modules its calls
reach in a module tree. Pure functions over ``model``'s modules and ``workspace``'s tree."""

from __future__ import annotations

from typing import Mapping

from ..addrs import AddressError, ModuleCall as ModuleCallAddr, parse_referenceable
from .model import FileDecls, Module, block_changes, calls_changed_since
from .workspace import ModuleTree


def declared_addresses(old: Mapping[str, FileDecls], new: Mapping[str, FileDecls]) -> set[str]:
    """The addresses declared by the blocks that changed between two builds' files (removed,
    or read anew: a block the parse took over keeps its declarations), before or after."""
    out: set[str] = set()
    for path in old.keys() | new.keys():
        before, after = old.get(path), new.get(path)
        if after is None:
            gone, fresh = list(before.blocks), []
        else:
            gone, fresh = block_changes(before, after)
        for info in (*gone, *fresh):
            for entry in info.entries:
                out.add(entry[2])
    return out


def modules_below(dirs: set[str], tree: ModuleTree, modules: Mapping[str, Module], before: Mapping[str, Module] | None = None) -> set[str]:
    """The modules that the calls of ``dirs`` reach in ``tree``, directly or not (``before``: the
    modules of ``dirs`` as they were when ``tree`` was built)."""
    seen: set[str] = set()
    stack = list(dirs)
    while stack:
        dir = stack.pop()
        module = before.get(dir) if before is not None and dir in before else modules.get(dir)
        if module is None:
            continue
        for name in module.calls:
            target = tree.targets.get((dir, name))
            if target is not None and target.dir is not None and target.dir not in seen:
                seen.add(target.dir)
                stack.append(target.dir)
    return seen


def changed_calls(old: Module, new: Module) -> set[str]:
    """The names of the calls added, removed or given another source between two builds of a module
    (among the calls the build replaced, when it says which: ``calls_changed_since``)."""
    before, after = old.calls, new.calls
    replaced = calls_changed_since(new, old)
    return {name for name in (before.keys() | after.keys() if replaced is None else replaced)
            if name not in before or name not in after or before[name].source != after[name].source}


def calls_differ(old: Module, new: Module, changed: list[str]) -> bool:
    """Whether the module's calls (names and sources) differ, given the addresses whose
    declarations changed (every other call is the same declaration, or one that moved)."""
    for address in changed:
        try:
            declared = parse_referenceable(address)
        except AddressError:  # a name Terraform rejects (`module "1cache"`) is still a call here: compare them all
            return bool(changed_calls(old, new))
        if isinstance(declared, ModuleCallAddr):
            before, after = old.calls.get(declared.name), new.calls.get(declared.name)
            if (before is None) != (after is None) or (before is not None and before.source != after.source):
                return True
    return False


def interface(module: Module) -> tuple:
    """What callers check against: output names, and variables with whether they have a default."""
    return (tuple(sorted(module.outputs)), tuple(sorted((n, v.default is None) for n, v in module.variables.items())))


def interface_differs(old: Module, new: Module, changed: list[str]) -> bool:
    """Whether the module's ``interface`` differs, given the addresses whose declarations changed
    (every other declaration is the same object, its name and block the same): only a changed
    variable or output can change it, so an edit elsewhere (a root's call renamed) sorts none of
    the module's names (``interface`` of a root of 200 outputs was per keystroke). (A resource of
    type ``var`` or ``output`` only makes the interfaces compared.)"""
    if not any(address.startswith(("var.", "output.")) for address in changed):
        return False
    return interface(old) != interface(new)

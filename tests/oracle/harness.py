"""Ground truth for generated workspaces from one ``terraform plan`` over all their assignments.

Each (workspace, assignment) pair becomes a module call of a harness root: the workspace's root
module is called as a child with the assignment as its arguments (a root variable and a module
variable take values the same way: type conversion, validation, defaults). Each call has
``count = contains(var.enabled, "<pair>") ? 1 : 0``, so one ``terraform init`` serves every plan.
Each pair calls its own copy of the workspace, so Terraform's errors name the pairs it rejects
(those assignments are not accepted and are skipped) and the others are planned again. ``terraform show -json`` of the plan
gives every resource instance's ``input`` and every pair's outputs, among which the gates tfphi
printed, added to the workspace's root module as outputs. No value comes from tfphi.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from terraform import decode_json
from terraform_cli import run_terraform
from tfphi.values.value import to_hcl


@dataclass
class Truth:
    """What Terraform computed for one accepted pair."""

    instances: dict[str, list[tuple[str, Any]]] = field(default_factory=dict)  # config address -> [(instance, input)]
    outputs: dict[str, Any] = field(default_factory=dict)


@dataclass
class Harness:
    directory: Path
    pairs: dict[str, dict] = field(default_factory=dict)  # pair name -> assignment
    sources: dict[str, str] = field(default_factory=dict)  # pair name -> workspace directory name
    plans: int = 0
    rejected: dict[str, str] = field(default_factory=dict)  # pair -> Terraform's error
    unattributed: list[str] = field(default_factory=list)  # errors that named no pair (then halves)

    def add(self, pair: str, source: str, assignment: dict, workspace: Path) -> None:
        """A pair gets its own copy of the workspace: Terraform's errors then name the pair."""
        self.pairs[pair] = assignment
        self.sources[pair] = source
        shutil.copytree(workspace, self.directory / pair)

    def write(self) -> None:
        parts = ['variable "enabled" {\n  type = set(string)\n}\n']
        for pair, assignment in self.pairs.items():
            args = "".join(f"  {name} = {to_hcl(value)}\n" for name, value in assignment.items())
            parts.append(
                f'module "{pair}" {{\n  source = "./{pair}"\n'
                f'  count  = contains(var.enabled, "{pair}") ? 1 : 0\n{args}}}\n'
                f'output "{pair}" {{\n  value = try(module.{pair}[0], null)\n}}\n'
            )
        (self.directory / "main.tf").write_text("\n".join(parts))

    def run(self) -> dict[str, Truth]:
        self.write()
        init = run_terraform(["init", "-backend=false", "-input=false", "-no-color"], self.directory)
        assert init.returncode == 0, init.stdout + init.stderr
        truths: dict[str, Truth] = {}
        self._plan(sorted(self.pairs), truths)
        return truths

    def _plan(self, pairs: list[str], truths: dict[str, Truth]) -> None:
        """Plans the enabled pairs; the pairs Terraform's errors name are rejected and the rest
        planned again (each pair has its own copy of the workspace, so an error's file names it);
        errors that name no pair are isolated by splitting the set in halves."""
        if not pairs:
            return
        self.plans += 1
        enabled = json.dumps(pairs)
        plan = run_terraform(
            ["plan", "-input=false", "-no-color", "-lock=false", "-refresh=false", "-out=plan.out", f"-var=enabled={enabled}"],
            self.directory,
        )
        if plan.returncode != 0:
            text = plan.stdout + plan.stderr
            named = {p for p in re.findall(r'on (\w+)/\S+ line|in module "(\w+)"', text) for p in p if p in self.pairs}
            named &= set(pairs)
            if named:
                for pair in named:
                    self.rejected[pair] = _error_summary(text)
                self._plan([p for p in pairs if p not in named], truths)
            elif len(pairs) == 1:
                self.rejected[pairs[0]] = _error_summary(text)
            else:
                self.unattributed.append(_error_summary(text))
                half = len(pairs) // 2
                self._plan(pairs[:half], truths)
                self._plan(pairs[half:], truths)
            return
        shown = run_terraform(["show", "-json", "plan.out"], self.directory)
        assert shown.returncode == 0, shown.stderr
        document = decode_json(shown.stdout)
        planned = document["planned_values"]
        for pair in pairs:
            truths[pair] = Truth(outputs=(planned.get("outputs", {}).get(pair, {}).get("value") or {}))
        for resource in _resources(planned.get("root_module", {})):
            match = re.match(r'module\.(\w+)\[0\]\.(.*)$', resource["address"])
            if match is None or match.group(1) not in truths:
                continue
            instance = match.group(2)
            config = re.sub(r'\[[^\]]*\]', "", instance)
            truths[match.group(1)].instances.setdefault(config, []).append((instance, resource["values"].get("input")))


def _resources(module: dict):
    yield from module.get("resources", [])
    for child in module.get("child_modules", []):
        yield from _resources(child)


def _error_summary(text: str) -> str:
    errors = re.findall(r"Error: (.*)", text)
    return "; ".join(dict.fromkeys(errors)) or text[-300:]

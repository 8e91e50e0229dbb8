"""The soundness property of phi tracing, against the real Terraform, over multi-module workspaces.

SPEC's first rule: every Resolved or Bounded answer is what Terraform computes, for every
assignment of the root's variables that Terraform accepts. For generated workspaces
(``workspaces.py``) tfphi traces every ``terraform_data.input`` field (as ``trace --json``
prints it); Terraform plans every assignment of every workspace in one run (``harness.py``),
and evaluates every gate tfphi printed (each one an output of the workspace's root module).
Then for every accepted assignment, field and resource instance:

- ``exists`` holds exactly when Terraform plans at least one instance;
- exactly one branch whose ``instance`` covers the instance has a gate that holds (a null gate
  always holds), no gate fails to evaluate, and that branch's value is Terraform's ``input``.

Unbounded is allowed (it is never wrong) and counted. Counterexamples the property finds in the
tracer are written to ../COUNTEREXAMPLES.md with their minimal workspace, and the construct is
left out of the generator (``workspaces.py``, with a FIXME naming the counterexample) until the
tracer is fixed. ``TFPHI_SOUNDNESS_WORKSPACES`` sets how many workspaces (default 16), ``TFPHI_SOUNDNESS_SEED``
the first seed.
"""

from __future__ import annotations

import os
import shutil
import time
from collections import Counter
from decimal import Decimal
from typing import Any

from harness import Harness
from terraform import scratch_dir
from terraform_cli import run_terraform, terraform_binary
from workspaces import fixed_workspaces, generate
from tfphi.features.trace_json import trace_to_json
from tfphi.loader import load_workspace
from tfphi.syntax.hclfile import parse_file

WORKSPACES = int(os.environ.get("TFPHI_SOUNDNESS_WORKSPACES", "16"))
FIRST_SEED = int(os.environ.get("TFPHI_SOUNDNESS_SEED", "1000"))


def same(ours: Any, theirs: Any) -> bool:
    """tfphi's JSON value equals Terraform's (Terraform's numbers are exact decimals)."""
    if isinstance(theirs, Decimal):
        return isinstance(ours, (int, float)) and not isinstance(ours, bool) and float(theirs) == float(ours)
    if isinstance(theirs, list):
        return isinstance(ours, list) and len(ours) == len(theirs) and all(map(same, ours, theirs))
    if isinstance(theirs, dict):
        return isinstance(ours, dict) and ours.keys() == theirs.keys() and all(same(ours[k], theirs[k]) for k in theirs)
    return type(ours) is type(theirs) and ours == theirs


def is_hcl(text: str) -> bool:
    """Whether a gate is an HCL expression at all (tfphi's parser; Terraform then evaluates it)."""
    parsed = parse_file("gate.tf", f"gate = {text}\n".encode())
    return not parsed.errors and "gate" in parsed.body.attributes


def covers(instance: str | None, address: str) -> bool:
    """Whether a branch's ``instance`` names this planned instance (module path + resource + key)."""
    if instance is None:
        return True
    if instance.startswith("["):  # only the resource iterates: its own key
        return _resource_key(address) == instance
    return address == instance or address.startswith(instance + "[")


def _resource_key(address: str) -> str:
    last = address.rsplit(".", 1)[-1]  # "r0[0]" or 'r0["k"]' (keys hold no dots here)
    return last[last.find("[") :] if "[" in last else ""


def test_tracer_is_sound_against_terraform():
    terraform_binary()
    scratch = scratch_dir()
    harness = Harness(scratch / "harness")
    harness.directory.mkdir()
    traced: dict[str, dict[str, dict]] = {}  # workspace -> field -> trace json
    gates: dict[str, dict[str, str]] = {}  # workspace -> gate text -> output name
    stats: Counter = Counter()
    not_hcl: list[str] = []  # gates tfphi printed that are not root-scope HCL
    known: dict[str, list[str]] = {}  # workspace -> fields Terraform plans that tfphi must bound
    unblamed: dict[str, list[str]] = {}  # workspace -> apply-time values no reason may name
    for ws in fixed_workspaces() + [generate(FIRST_SEED + index) for index in range(WORKSPACES)]:
        seed = ws.seed
        name = f"w{seed}"
        directory = scratch / "workspaces" / name
        ws.write(directory)
        analysis = load_workspace(directory)
        traced[name], gates[name], known[name], unblamed[name] = {}, {}, ws.known, ws.unblamed
        for address in ws.fields:
            result = analysis.trace_address(address)
            assert result is not None, (name, address)
            js = trace_to_json(analysis, result)
            traced[name][address] = js
            texts = [b["gate"] for b in js["branches"] if b["gate"] is not None]
            if isinstance(js["exists"], str):
                texts.append(js["exists"])
            for text in texts:
                if not is_hcl(text):
                    not_hcl.append(f"{name} ({address}): {text!r} is not an HCL expression")
                    continue
                gates[name].setdefault(text, f"g{len(gates[name])}")
        outputs = "".join(
            f'output "{out}" {{\n  value = try(({text}) ? "T" : "F", "ERR")\n}}\n' for text, out in gates[name].items()
        )
        (directory / "zz_oracle_gates.tf").write_text(outputs)
        (directory / ".tfphi.toml").unlink()
        for a, assignment in enumerate(ws.assignments):
            harness.add(f"{name}_a{a}", name, assignment, directory)
        stats["workspaces"] += 1
    # Every printed gate and exists parses as Terraform: terraform fmt reads them all at once
    # (the plan below then evaluates each one in its workspace).
    printed = "".join(f"g{i} = {text}\n" for i, text in enumerate(t for texts in gates.values() for t in texts))
    formatted = run_terraform(["fmt", "-no-color", "-"], scratch, stdin=printed)
    assert formatted.returncode == 0, f"terraform fmt rejects a printed gate:\n{formatted.stderr}"
    stats["gates parsed by terraform fmt"] = printed.count("\n")
    started = time.monotonic()
    truths = harness.run()
    stats["terraform seconds"] = round(time.monotonic() - started)

    failures: list[str] = list(not_hcl)
    for pair, assignment in harness.pairs.items():
        name = harness.sources[pair]
        if pair in harness.rejected:
            stats["rejected assignments"] += 1
            continue
        truth = truths[pair]
        stats["assignments"] += 1
        gate_value = {text: truth.outputs.get(out) for text, out in gates[name].items()}
        for address, js in traced[name].items():
            config = address.rsplit(".", 1)[0]
            instances = truth.instances.get(config, [])
            where = f"{name} ({address}) under {assignment}"
            exists = js["exists"]
            holds = exists if isinstance(exists, bool) else gate_value.get(exists)
            if holds not in (True, False, "T", "F"):
                failures.append(f"{where}: exists gate {exists!r} does not evaluate ({holds!r})")
            elif (holds in (True, "T")) != bool(instances):
                failures.append(f"{where}: exists = {exists!r} ({holds}) but Terraform plans {len(instances)} instance(s)")
            if js["kind"] == "unbounded":
                stats["unbounded field checks"] += 1
                blamed = [v for v in unblamed[name] if v in (js["reason"] or "")]
                if blamed:
                    failures.append(f"{name} ({address}): Unbounded blames {blamed[0]}, which it never reads: {js['reason']}")
                if address in known[name] and instances:
                    failures.append(f"{where}: Terraform plans {instances[0][1]!r}, tfphi is Unbounded: {js['reason']}")
                continue
            for instance, value in instances:
                stats[f"{js['kind']} instance checks"] += 1
                candidates = [b for b in js["branches"] if covers(b["instance"], instance)]
                states = [(b, "T" if b["gate"] is None else gate_value.get(b["gate"])) for b in candidates]
                broken = [b["gate"] for b, s in states if s not in ("T", "F")]
                holding = [b for b, s in states if s == "T"]
                rendered = "\n    ".join(f"{b['value']!r} when {b['gate']} [{b['instance']}]" for b in js["branches"])
                if broken:
                    failures.append(f"{where} {instance}: gates do not evaluate: {broken}\n    {rendered}")
                elif len(holding) != 1:
                    failures.append(f"{where} {instance}: {len(holding)} gates hold; Terraform: {value!r}\n    {rendered}")
                elif not same(holding[0]["value"], value):
                    failures.append(f"{where} {instance}: tfphi {holding[0]['value']!r}, Terraform {value!r}\n    {rendered}")
                else:
                    stats["sound"] += 1
    stats["terraform plans"] = harness.plans
    print("\nsoundness against terraform:", dict(sorted(stats.items())))
    for pair, error in sorted(harness.rejected.items()):
        print(f"  rejected {pair}: {error}")
    for error in harness.unattributed:
        print(f"  an error that named no pair: {error}")
    for failure in failures:
        print(f"  UNSOUND {failure}")
    shutil.rmtree(scratch, ignore_errors=True) if not failures else print(f"workspaces kept in {scratch}")
    assert failures == [], f"{len(failures)} unsound answers:\n" + "\n".join(failures[:30])
    assert stats["sound"] > 0 and stats["assignments"] > stats["rejected assignments"]

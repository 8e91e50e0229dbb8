"""The tracer's concrete rules (operators, templates, conditionals, for, splat, conversions,
try/can, functions) against ``terraform console``, on constant expressions.

Each expression is a traced field of one workspace (``terraform_data.e<i>.input``) and a row of
one console batch. Where Terraform has a value, tfphi must answer Resolved with that value (or
Unbounded: never wrong, listed as imprecise); where Terraform rejects the expression, tfphi must
not give any value (Unbounded). This replaces the evaluator that used to be tfphi's own oracle.
"""

from __future__ import annotations

from pathlib import Path

from terraform import ERROR, UNKNOWN, Console, scratch_dir
from test_soundness_terraform import same
from tfphi.features.trace_json import trace_to_json
from tfphi.loader import load_workspace

EXPRESSIONS = [
    # literals, templates, operators
    '"a"', "1.5", "true", "null", '"${1 + 1}-x"', '"${true}"', '[1, "a"]', '{ a = 1, "b" = 2 }', "1 + 2 * 3",
    "-7 % 3", "7 % -3", "5.5 % 2", "!false", '1 == "1"', "2 >= 2", "0.1 + 0.2", "1 / 3", "10 / 4", "2 - 3.5",
    '"5" + 1', '"1_000" + 1', '" 1" + 1', '"0x10" + 1', '"1e3" + 1', '"+2" + 1', '"1." + 1', '".5" + 1', '"Inf" + 1',
    '"true" && true', '"True" && true', '!"false"', '1 == 1.0', '"a" < "b"', '"a" + 1', "1 / 0", "true && null", 'null == null', '"a" == null', "[1] == [1]", '{ a = 1 } == { a = 1 }',
    '"x ${"y"} %{if true}z%{endif}"', '"%{for s in ["a", "b"]}${s},%{endfor}"', '"a${null}"', '"${[1]}"',
    "1 < 2 && 3 > 2 || false", "-(-2)", "0 / 0", "5 % 0", "-1 / 0", "0.3 % 0.1", "-5.5 % 2", '!"true"', '"1.50" == 1.5', "5 == 5.0",
    # conditionals
    'true ? "a" : "b"', 'false ? "a" : "b"', 'true ? 1 : "s"', 'true ? "a" : tonumber("x")', 'false ? "a" : true ? "b" : "c"',
    "null ? 1 : 2", 'true ? 1 : true', 'true ? [1] : ["a"]', 'false ? { a = 1 } : { a = "x" }', 'true ? null : "a"',
    '"true" ? 1 : 2', 'true ? { a = 1 } : { b = "x" }', 'true ? { a = 1 } : { b = true }', 'true ? [1, true] : ["a"]', 'true ? { a = 1, b = true } : { a = "x", b = false }',
    # functions, splat, index, for
    'upper("a")', 'format("%s=%d", "a", 1)', "max([1, 5, 2]...)", 'try(tonumber("x"), "d")', 'can(tonumber("x"))',
    'can(tonumber("1"))', 'try(tonumber("x"))', "[for x in [1, 2, 3] : x * 2 if x != 2]",
    '{ for k, v in { a = 1, b = 2 } : v => k }', '{ for s in ["a", "b", "a"] : s => s... }', '{ for s in ["a", "a"] : s => s }',
    '{ for k in ["a", "a"] : k => 1 }', '[{ n = 1 }, { n = 2 }][*].n', '{ a = ["x", "y"] }.a[1]', '{ a = 1 }["a"]',
    "[1][3]", "{ a = 1 }.b", '["a", "b"][1.0]', '["a", "b"]["1"]', '{ a = 1 }[0]', '[for s in toset(["b", "a"]) : s]',
    'toset(["a"])[0]', "[for i, v in [\"x\", \"y\"] : \"${i}${v}\"]", '{ for k, v in { b = 1, a = 2 } : k => v if v > 1 }',
    '[for k, v in { b = 1, a = 2 } : k]', "[for v in null : v]", '[for v in "ab" : v]', "null[*]", '"a"[*]',
    'lookup({ a = 1 }, "b", 2)', 'coalesce(null, "", "c")', 'length({ a = 1, b = 2 })', 'element(["a", "b"], 3)',
    'contains(["1"], 1)', 'keys({ b = 1, a = 2 })', 'merge({ a = 1 }, { a = 2, b = 3 })', 'jsondecode("{\\"a\\": [1, 2]}").a[1]',
    'yamldecode("a: yes").a', 'split(",", "a,b")[1]', 'join("-", concat(["a"], ["b"]))', 'tostring(1.0)', 'tonumber("0.10")',
    'sum([0.1, 0.2])', 'abs(-0.5) * 2', 'format("%.2f", 1 / 3)', 'replace("a.b", ".", "-")', 'regex("(\\\\d+)", "ab12")[0]',
    'try({ a = 1 }.b, "none")', 'can({ a = 1 }.a)', 'try([1][5], [1][0])', 'try(null.a, "n")',
    # every string is in Unicode normal form C, however it is written or built
    '"e\\u0301" == "\\u00e9"', '"é" == "é"', 'join("", ["e", "\\u0301"]) == "\\u00e9"',
    '"${"e"}\\u0301" == "\\u00e9"', '{ "e\\u0301" = 1 }["\\u00e9"]', 'upper("e\\u0301")',
    'length(toset(["e\\u0301", "\\u00e9"]))', 'jsondecode("\\"e\\\\u0301\\"") == "\\u00e9"',
    'format("%s%s", "e", "\\u0301") == "\\u00e9"', 'contains(["\\u00e9"], "e\\u0301")',
]


def test_tracer_concrete_rules_agree_with_terraform():
    scratch = scratch_dir()
    workspace = Path(scratch) / "ws"
    workspace.mkdir()
    (workspace / "main.tf").write_text(
        "".join(f'resource "terraform_data" "e{i}" {{\n  input = {text}\n}}\n\n' for i, text in enumerate(EXPRESSIONS))
    )
    analysis = load_workspace(workspace)
    assert not [e for f in analysis.files.values() for e in f.errors]
    theirs = Console(scratch).evaluate(EXPRESSIONS)
    wrong, imprecise = [], []
    for i, (text, value) in enumerate(zip(EXPRESSIONS, theirs)):
        js = trace_to_json(analysis, analysis.trace_address(f"terraform_data.e{i}.input"))
        if js["kind"] == "unbounded":
            if value not in (ERROR, UNKNOWN):
                imprecise.append(f"{text}: Terraform {value!r}, tfphi Unbounded ({js['reason']})")
            continue
        ours = [b["value"] for b in js["branches"]]
        if value in (ERROR, UNKNOWN) or js["kind"] != "resolved" or not same(ours[0], value):
            wrong.append(f"{text}: Terraform {value!r}, tfphi {js['kind']} {ours!r}")
    print(f"\n{len(EXPRESSIONS)} expressions; imprecise:", *imprecise, sep="\n  ")
    assert wrong == []
    assert len(imprecise) <= 12, imprecise

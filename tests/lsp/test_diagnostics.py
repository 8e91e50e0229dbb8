"""Diagnostics: published at start-up, updated live across files, with code, source, related information and data."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from lsp_helpers import Session, position_of, uri

CACHE_MAIN = "modules/cache/main.tf"


async def test_unbounded_field_published_for_an_unopened_file(session: Session, workspace: Path):
    cache_uri = uri(workspace / CACHE_MAIN)
    [diag] = await session.wait_diagnostics(cache_uri, "unbounded-field")
    text = (workspace / CACHE_MAIN).read_text()
    assert diag.source == "tfphi"
    assert diag.severity == types.DiagnosticSeverity.Warning
    assert diag.range.start == position_of(text, "var.node_type")
    assert diag.range.end == position_of(text, "var.node_type", delta=len("var.node_type"))
    assert "node_type" in diag.message and "cache_node_type" in diag.message
    assert diag.data and diag.data["variable"] == ["", "cache_node_type"]
    [related] = diag.related_information
    assert related.location.uri == uri(workspace / "variables.tf")
    variables = (workspace / "variables.tf").read_text()
    assert related.location.range.start == position_of(variables, '"cache_node_type"')
    assert "declared here" in related.message


async def test_edit_in_root_updates_the_child_module_file(session: Session, workspace: Path):
    cache_uri = uri(workspace / CACHE_MAIN)
    await session.wait_diagnostics(cache_uri, "unbounded-field")
    main = session.open(workspace / "main.tf")
    # bound the argument: the child's field becomes Resolved, its diagnostic goes away
    session.replace(main, "var.cache_node_type", '"cache.t4g.small"')
    await session.wait_diagnostics(cache_uri, "unbounded-field", present=False)
    # and back: it returns
    session.replace(main, '"cache.t4g.small"', "var.cache_node_type")
    await session.wait_diagnostics(cache_uri, "unbounded-field", present=True)


async def test_edited_document_always_gets_versioned_diagnostics(session: Session, workspace: Path):
    def versions():
        return [(u, v) for u, v, _ in session.published]

    main = session.open(workspace / "main.tf")
    await session.wait_for(lambda: (main, 1) in versions(), what="diagnostics for version 1")
    v = session.change(main, types.Range(start=session.pos(main, "locals"), end=session.pos(main, "locals")), "\n")
    await session.wait_for(lambda: (main, v) in versions(), what=f"diagnostics for version {v}")


async def test_undefined_reference_and_syntax_error(session: Session, workspace: Path):
    main = session.open(workspace / "main.tf")
    session.replace(main, "local.instance_class", "local.nope")
    [diag] = await session.wait_diagnostics(main, "undefined-reference")
    assert diag.severity == types.DiagnosticSeverity.Error
    assert diag.range == types.Range(start=session.pos(main, "local.nope"),
                                     end=session.pos(main, "local.nope", delta=len("local.nope")))
    session.replace(main, "local.nope", "local.instance_class")
    await session.wait_diagnostics(main, "undefined-reference", present=False)
    session.replace(main, 'locals {', 'locals {{')
    await session.wait_diagnostics(main, "syntax-error")
    session.replace(main, 'locals {{', 'locals {')
    await session.wait_diagnostics(main, "syntax-error", present=False)


async def test_an_argument_typed_a_second_time_is_a_syntax_error_until_it_is_removed(session: Session, workspace: Path):
    """Terraform rejects an argument set twice in one body ("Attribute redefined", at the second
    name), which tree-sitter-hcl reads without an error: typed into the open document, half-typed
    first, then removed."""
    main = session.open(workspace / "main.tf")

    def syntax_errors():
        return [(d.range.start.line, d.range.start.character, d.message) for d in session.diagnostics(main, "syntax-error")]

    await session.wait_for(lambda: main in [u for u, _, _ in session.published], what="diagnostics of main.tf")
    assert syntax_errors() == []
    line = session.pos(main, "  runtime       =").line
    session.replace(main, "  runtime       =", "  handler\n  runtime       =")  # a name alone, so far
    await session.wait_for(lambda: [m.split(":")[1] for _, _, m in syntax_errors()] == [" argument or block definition required"],
                           what="the half-typed argument's error")
    session.replace(main, "  handler\n", '  handler = "app.main"\n')
    twice = [(line, 2, "syntax error: attribute redefined: the argument 'handler' was already set; each argument may be set only once")]
    await session.wait_for(lambda: syntax_errors() == twice, what="attribute redefined")
    session.replace(main, '  handler = "app.main"\n', "")
    await session.wait_diagnostics(main, "syntax-error", present=False)
    # In one edit of a parse without errors (the blocks the edit did not touch are taken over).
    session.replace(main, "  runtime       =", '  handler = "app.main"\n  runtime       =')
    await session.wait_for(lambda: syntax_errors() == twice, what="attribute redefined in one edit")
    session.replace(main, '  handler = "app.main"\n', "")
    await session.wait_diagnostics(main, "syntax-error", present=False)


async def test_missing_argument(session: Session, workspace: Path):
    main = session.open(workspace / "main.tf")
    session.replace(main, '  instance_class = local.instance_class\n', "")
    [diag] = await session.wait_diagnostics(main, "missing-argument")
    assert diag.range.start == session.pos(main, '"database"')


async def test_config_error_on_tfphi_toml(session: Session, workspace: Path):
    config = workspace / ".tfphi.toml"
    config.write_text("[limits]\ndepth = \"deep\"\n")
    u = session.open(config)
    [diag] = await session.wait_diagnostics(u, "config-error")
    assert diag.severity == types.DiagnosticSeverity.Error
    assert diag.range.start.line == 1
    session.change(u, None, "[limits]\ndepth = 5\n")
    await session.wait_diagnostics(u, "config-error", present=False)

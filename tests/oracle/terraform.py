"""The real Terraform as the test oracle: batched ``terraform console`` and offline plans.

Terraform needs no provider for variables, locals, outputs, module calls and ``terraform_data``,
so everything here runs offline in a scratch directory with an empty CLI configuration
(``TF_CLI_CONFIG_FILE`` at an empty file: the environment's default names a missing one).

Where ``terraform`` is not installed the tests that need it skip with an install hint, except
under ``CI=true`` (``.ci/run``), where a missing oracle fails the run instead of hiding it.
"""

from __future__ import annotations

import base64
import json
import subprocess
import tempfile
from decimal import Decimal
from pathlib import Path
from typing import Any

from terraform_cli import run_terraform

# terraform console reads its input with a 64 KiB line buffer
LINE_LIMIT = 60_000

class Marker:
    """A row's outcome that is no value. Compared by identity: a row whose value is the string "E"
    is a value, not an error."""

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return repr(self.text)

    def __str__(self) -> str:
        return self.text


ERROR = Marker("E")  # a row Terraform rejects
UNENCODABLE = Marker("U")  # a row Terraform evaluates to something jsonencode refuses (an infinity)
UNKNOWN = Marker("?")  # a row Terraform evaluates to an unknown value ("known after apply")
TIMEOUT = Marker("T")  # a row terraform console did not evaluate within its time limit (nothing to compare)


def decode_json(text: str) -> Any:
    """Terraform's JSON, numbers kept exact (Terraform numbers are arbitrary precision)."""
    return json.loads(text, parse_float=Decimal, parse_int=Decimal)


class Console:
    """Evaluates many expressions with one ``terraform console`` process.

    Non-interactive ``terraform console`` prints only its last result and stops at the first
    error, so a batch is ONE line (console reads at most 64 KiB a line: a table makes as few
    batches as fit): an object with one attribute per row, each
    ``try({v = nonsensitive(jsonencode(<row>))}, can(<row>) ? "U" : "E")``, the whole object
    JSON-encoded and base64-encoded so the printed string needs no unquoting. A batch that
    Terraform rejects outright (an error ``try`` does not catch) is split in halves until the
    rejected rows are alone; a row rejected alone is an error row. A batch whose value is
    unknown is split the same way, down to the rows whose value is unknown.
    """

    def __init__(self, directory: Path):
        self.directory = directory
        self.runs = 0

    def evaluate(self, expressions: list[str]) -> list[Any]:
        """One result per expression: the decoded JSON value, ``ERROR`` or ``UNENCODABLE``."""
        results: list[Any] = [None] * len(expressions)
        batch: list[tuple[int, str]] = []
        size = 0
        for i, expression in enumerate(expressions):
            row = self._row(i, expression)
            if batch and size + len(row.encode()) > LINE_LIMIT:
                self._evaluate(batch, results)
                batch, size = [], 0
            batch.append((i, expression))
            size += len(row.encode()) + 2
        self._evaluate(batch, results)
        return results

    @staticmethod
    def _row(i: int, expression: str) -> str:
        return f'r{i} = try({{v = nonsensitive(jsonencode({expression}))}}, can({expression}) ? "{UNENCODABLE.text}" : "{ERROR.text}")'

    def _evaluate(self, rows: list[tuple[int, str]], results: list[Any]) -> None:
        if not rows:
            return
        attrs = ", ".join(self._row(i, expression) for i, expression in rows)
        self.runs += 1
        try:
            done = run_terraform(["console", "-no-color"], self.directory, stdin=f"base64encode(jsonencode({{{attrs}}}))\n", timeout=60)
        except subprocess.TimeoutExpired:  # one row Terraform takes minutes over (a huge range or pow): found by halving
            if len(rows) == 1:
                results[rows[0][0]] = TIMEOUT
                return
            half = len(rows) // 2
            self._evaluate(rows[:half], results)
            self._evaluate(rows[half:], results)
            return
        printed = done.stdout.strip()
        unknown = done.returncode == 0 and printed == "(known after apply)"
        if done.returncode != 0 or unknown:
            if len(rows) == 1:
                results[rows[0][0]] = UNKNOWN if unknown else ERROR
                return
            half = len(rows) // 2
            self._evaluate(rows[:half], results)
            self._evaluate(rows[half:], results)
            return
        assert printed.startswith('"') and printed.endswith('"'), (printed[:200], done.stderr[:2000])
        decoded = json.loads(base64.b64decode(printed[1:-1]))
        for i, _ in rows:
            entry = decoded[f"r{i}"]
            results[i] = decode_json(entry["v"]) if isinstance(entry, dict) else ERROR if entry == ERROR.text else UNENCODABLE


def scratch_dir() -> Path:
    return Path(tempfile.mkdtemp(prefix="tfphi-oracle-"))

"""Encoding functions: JSON, CSV, base64, text encodings and URL encoding."""

from __future__ import annotations

import codecs
import io
import json
import re
from typing import Any

from ...values.numbers import format_number, parse_number
from ...values.value import TfEvalError, TfUnrepresentable, Value, is_number, to_string
from .deferred import base64, csv, urllib_parse
from . import return_rules as rules
from .spec import builtin
from .arguments import str_arg


# ---------------------------------------------------------------------------------------------
# Encoding


def _json_number(value: Any) -> str:
    """cty's JSON: ``Text('f', -1)``; an infinity has no JSON form."""
    text = format_number(value)
    if text.endswith("Inf"):
        raise TfEvalError("cannot serialize infinity as JSON")
    return text


def json_string(text: str) -> str:
    return (
        json.dumps(text, ensure_ascii=False)
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def json_encode(value: Value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if is_number(value):
        return _json_number(value)
    if isinstance(value, str):
        return json_string(value)
    if isinstance(value, list):
        return "[" + ",".join(json_encode(v) for v in value) + "]"
    return "{" + ",".join(f"{json_string(k)}:{json_encode(value[k])}" for k in sorted(value)) + "}"


def normalize_decoded(value: Any) -> Value:
    if isinstance(value, str):  # a lone surrogate (JSON "\\ud800") decodes as U+FFFD, as in Go
        return re.sub("[\ud800-\udfff]", "\ufffd", value)
    if isinstance(value, bool) or value is None:
        return value
    if is_number(value):
        return value
    if isinstance(value, float):  # yamldecode's infinities
        raise TfUnrepresentable("an infinite number")
    if isinstance(value, list):
        return [normalize_decoded(v) for v in value]
    if isinstance(value, dict):
        return {decoded_key(k): normalize_decoded(v) for k, v in value.items()}
    raise TfEvalError(f"unsupported decoded value {value!r}")


def decoded_key(key: Any) -> str:
    if isinstance(key, str):
        return key
    if key is None:
        return "null"
    if isinstance(key, bool) or is_number(key):
        return to_string(normalize_decoded(key))
    raise TfEvalError(f"unsupported mapping key {key!r}: keys must be strings")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"invalid JSON literal {name}")


@builtin("jsonencode", 1, params=("val: dynamic?",))
def _jsonencode(args: list[Value]) -> Value:
    return json_encode(args[0])


@builtin("jsondecode", 1, params=("str: string",))
def _jsondecode(args: list[Value]) -> Value:
    text = str_arg(args[0], "str")
    try:
        decoded = json.loads(text, parse_constant=_reject_constant, parse_float=parse_number, parse_int=parse_number)
    except (ValueError, RecursionError) as exc:
        raise TfEvalError(f"invalid JSON: {exc}") from None
    return normalize_decoded(decoded)



@builtin("csvdecode", 1, params=("str: string",), returns=rules.csvdecode)
def _csvdecode(args: list[Value]) -> Value:
    text = str_arg(args[0], "str")
    try:
        rows = list(csv.reader(io.StringIO(text), strict=True))
    except csv.Error as exc:
        raise TfEvalError(f"invalid CSV: {exc}") from None
    if not rows:
        raise TfEvalError("missing header line")
    header = rows[0]
    if len(set(header)) != len(header):
        raise TfEvalError("duplicate column name in the header line")
    out: list[Value] = []
    for number, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            raise TfEvalError(f"record on line {number}: wrong number of fields")
        out.append({key: row[i] for i, key in enumerate(header)})
    return out


@builtin("base64encode", 1, params=("str: string",))
def _base64encode(args: list[Value]) -> Value:
    return base64.b64encode(str_arg(args[0], "str").encode()).decode("ascii")


@builtin("base64decode", 1, params=("str: string",))
def _base64decode(args: list[Value]) -> Value:
    text = str_arg(args[0], "str")
    try:  # Go's decoder skips line breaks
        raw = base64.b64decode(text.replace("\r", "").replace("\n", ""), validate=True)
    except ValueError:
        raise TfEvalError("failed to decode base64 data") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise TfEvalError("the result of decoding the provided string is not valid UTF-8") from None


# IANA character set names and aliases that Terraform's ianaindex lookup accepts (checked with
# terraform console), with Python's codec for each. Any other name may or may not be Terraform's:
# tfphi does not guess (Python knows names IANA does not, such as CP1252).
_IANA_LATIN1 = ("iso-8859-1", "iso_8859-1", "iso_8859-1:1987", "iso-ir-100", "latin1", "l1", "ibm819", "cp819", "csisolatin1")
IANA_ENCODINGS = {
    **{name: "latin-1" for name in _IANA_LATIN1},
    "utf-8": "utf-8", "utf-16le": "utf-16-le", "utf-16be": "utf-16-be", "us-ascii": "ascii",
    **{f"iso-8859-{n}": f"iso8859-{n}" for n in (2, 3, 4, 5, 6, 7, 8, 9, 10, 13, 14, 15, 16)},
    **{f"windows-{n}": f"cp{n}" for n in range(1250, 1259)},
    "gbk": "gbk", "gb18030": "gb18030", "big5": "big5", "shift_jis": "shift_jis", "euc-jp": "euc_jp",
    "euc-kr": "euc_kr", "koi8-r": "koi8_r", "koi8-u": "koi8_u", "ibm437": "cp437", "macintosh": "mac_roman",
}


def _codec(encoding: str) -> str:
    codec = IANA_ENCODINGS.get(encoding.lower())
    if codec is None:
        try:
            codecs.lookup(encoding)
        except LookupError:  # no encoding by that name at all
            raise TfEvalError(f'"{encoding}" is not a supported IANA encoding name or alias') from None
        raise TfUnrepresentable(f'whether "{encoding}" is an encoding Terraform supports is not known to tfphi')
    return codec


@builtin("textencodebase64", 2, params=("string: string", "encoding: string"))
def _textencodebase64(args: list[Value]) -> Value:
    text, encoding = args
    if encoding.lower() == "utf-16":  # Go's UTF-16 encoder writes a byte-order mark and big-endian code units
        return base64.b64encode(b"\xfe\xff" + text.encode("utf-16-be")).decode("ascii")
    try:
        return base64.b64encode(text.encode(_codec(encoding))).decode("ascii")
    except UnicodeEncodeError:
        raise TfEvalError(f"the given string contains characters that cannot be represented in {encoding}") from None


@builtin("textdecodebase64", 2, params=("source: string", "encoding: string"))
def _textdecodebase64(args: list[Value]) -> Value:
    text, encoding = args
    try:
        raw = base64.b64decode(text, validate=True)
    except ValueError:
        raise TfEvalError("the given value has invalid base64 encoding") from None
    if encoding.lower() == "utf-16":  # Go: a byte-order mark decides, big-endian without one
        codec = "utf-16-le" if raw[:2] == b"\xff\xfe" else "utf-16-be"
        raw = raw[2:] if raw[:2] in (b"\xff\xfe", b"\xfe\xff") else raw
    else:
        codec = _codec(encoding)
    decoded = raw.decode(codec, errors="replace")
    if "\ufffd" in decoded:  # Terraform rejects any replacement character in the result
        raise TfEvalError(f"the given value is has an invalid {encoding} encoding")
    return decoded


@builtin("urlencode", 1, params=("str: string",))
def _urlencode(args: list[Value]) -> Value:
    return urllib_parse.quote_plus(str_arg(args[0], "str"), safe="")


# The family's built-ins, for the registry.
SPECS = (_jsonencode, _jsondecode, _csvdecode, _base64encode, _base64decode, _textencodebase64,
         _textdecodebase64, _urlencode)

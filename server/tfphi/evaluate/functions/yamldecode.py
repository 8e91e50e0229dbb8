"""yamldecode, as go-cty-yaml reads YAML."""

from __future__ import annotations

import functools
import math
import re
from typing import Any, Callable

from ...values.numbers import parse_number
from ...values.value import TfEvalError, Value
from .deferred import base64, datetime_module, yaml
from .spec import builtin
from .encoding import decoded_key, normalize_decoded
from .arguments import str_arg


# --- YAML --------------------------------------------------------------------------------------
#
# Terraform's yamldecode (go-cty-yaml) has its own scalar rules: YAML 1.1's bools and timestamps,
# YAML 1.2's core-schema numbers. PyYAML parses; the rules below decide what each scalar means
# (measured with `terraform console`, and checked against it in tests/oracle):
# - a plain scalar is looked up first: y/yes/on/true and n/no/off/false (in three casings) are
#   bools, "", ~ and null/Null/NULL are null, [+-].inf/.Inf/.INF are infinities, .nan is an error;
# - then one that starts with four digits and a dash may be a timestamp (YYYY-M-D, optionally with
#   a time), normalized to RFC 3339 ("2001-12-14" is "2001-12-14T00:00:00Z");
# - then YAML 1.2 core numbers: [-+]?[0-9]+ (so 010 is ten), 0o[0-7]+, 0x[0-9a-fA-F]+ (at most
#   64 bits), and decimals with an optional exponent; 1_000, 0b101, -0x1F and 0X1F stay strings;
# - an explicit tag (!!int, !!bool, ...) first tries the same lookup and numbers, then its own
#   parse (!!int takes underscores and 0b); !!str and !!binary keep the text; other tags fail;
# - quoted scalars are strings; mapping keys become strings (`y:` is the key "true");
# - an empty document, several documents and a %YAML directive other than 1.1 are errors.

_YAML_TAG = "tag:yaml.org,2002:"
_YAML_PLAIN = "tag:tfphi:plain"  # an untagged plain scalar, resolved by _yaml_plain
_YAML_WORDS: dict[str, Value] = {
    **{w: True for w in ("y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "true", "True", "TRUE")},
    **{w: False for w in ("n", "N", "no", "No", "NO", "off", "Off", "OFF", "false", "False", "FALSE")},
    **{w: None for w in ("", "~", "null", "Null", "NULL")},
    **{w: math.inf for w in (".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF")},
    **{w: -math.inf for w in ("-.inf", "-.Inf", "-.INF")},
}
_YAML_NAN = (".nan", ".NaN", ".NAN")
_YAML_DECIMAL = re.compile(r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")
_YAML_TIMESTAMP = re.compile(
    r"(\d{4})-(\d{1,2})-(\d{1,2})"
    r"(?:(?:[Tt](\d{1,2}):(\d{1,2}):(\d{1,2})(\.\d+)?(Z|[-+]\d{2}:\d{2}))"
    r"|(?: (\d{1,2}):(\d{1,2}):(\d{1,2})(\.\d+)?))?"
)


def _yaml_number(text: str) -> Value | None:
    """A YAML 1.2 core-schema number, or None."""
    if re.fullmatch(r"[-+]?[0-9]+", text):
        return parse_number(text)  # "-0" is -0
    if re.fullmatch(r"0o[0-7]+|0x[0-9a-fA-F]+", text):
        value = int(text[2:], 8 if text[1] == "o" else 16)
        if value >= 2**64:
            raise TfEvalError(f"cannot parse {text!r} as !!int")
        return value
    if _YAML_DECIMAL.fullmatch(text):
        return parse_number(text)
    return None


def _yaml_go_int(text: str) -> Value | None:
    """Go's strconv.ParseInt(text, 0, 64) or ParseUint: 0x, 0o, 0b and leading-0 octal."""
    match = re.fullmatch(r"([-+]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]+|[0-9]+)", text)
    if match is None:
        return None
    sign, body = match.groups()
    if body[:2].lower() in ("0x", "0o", "0b"):
        value = int(body, 0)
    else:
        value = int(body, 8) if len(body) > 1 and body[0] == "0" else int(body)
    value = -value if sign == "-" else value
    return value if -(2**63) <= value < 2**64 else None


def _yaml_timestamp(text: str) -> str | None:
    match = _YAML_TIMESTAMP.fullmatch(text)
    if match is None:
        return None
    year, month, day = (int(g) for g in match.group(1, 2, 3))
    clock = match.group(4, 5, 6) if match.group(4) else match.group(9, 10, 11) if match.group(9) else ("0", "0", "0")
    hour, minute, second = (int(g) for g in clock)
    zone = match.group(8) or "Z"
    try:
        datetime_module.datetime(year, month, day, hour, minute, second)
    except ValueError:
        return None
    if zone != "Z":
        hours, minutes = int(zone[1:3]), int(zone[4:6])
        if hours > 23 or minutes > 59:
            return None
        zone = "Z" if hours == minutes == 0 else zone
    return f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}{zone}"


def _yaml_plain(text: str) -> Value:
    """What an untagged plain scalar means to Terraform."""
    if text in _YAML_WORDS:
        return _YAML_WORDS[text]
    if text in _YAML_NAN:
        raise TfEvalError("floating point NaN is not supported")
    stamp = _yaml_timestamp(text)
    if stamp is not None:
        return stamp
    number = _yaml_number(text)
    return text if number is None else number


def _yaml_tagged(tag: str, text: str) -> Value:
    """A scalar with an explicit standard tag (``!!int 0x10``)."""
    if tag == "binary":
        try:
            base64.b64decode(text, validate=True)
        except ValueError:
            raise TfEvalError(f"cannot parse {text!r} as !!binary: not valid base64") from None
    if tag in ("str", "binary"):
        return text
    if text in _YAML_WORDS:
        return _YAML_WORDS[text]
    if text in _YAML_NAN:
        raise TfEvalError("floating point NaN is not supported")
    number = _yaml_number(text)
    if number is not None:
        return number
    if tag == "null":
        return None
    if tag == "timestamp" and _yaml_timestamp(text) is not None:
        return _yaml_timestamp(text)
    if tag in ("int", "float"):
        plain = text.replace("_", "")
        number = _yaml_number(plain) if _YAML_DECIMAL.fullmatch(plain) else _yaml_go_int(plain)
        if number is not None:
            return number
    raise TfEvalError(f"cannot parse {text!r} as !!{tag}")


def _construct_plain(loader: Any, node: Any) -> Value:
    return _yaml_plain(loader.construct_scalar(node))


def _construct_tagged(tag: str) -> Callable[[Any, Any], Value]:
    return lambda loader, node: _yaml_tagged(tag, loader.construct_scalar(node))


def _construct_unsupported(loader: Any, node: Any) -> Value:
    raise TfEvalError(f"unsupported tag {node.tag}")


@functools.lru_cache(maxsize=1)
def _yaml_loader() -> Any:
    """PyYAML's parser with Terraform's scalar resolution (above) and string keys; the class is
    made on first use (importing PyYAML was most of this module's import)."""

    class _YamlLoader(yaml.SafeLoader):
        def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
            if kind is yaml.ScalarNode and implicit[0]:
                return f"{_YAML_TAG}merge" if value == "<<" else _YAML_PLAIN
            if kind is yaml.ScalarNode:
                return f"{_YAML_TAG}str"
            return super().resolve(kind, value, implicit)

        def construct_mapping(self, node: Any, deep: bool = False) -> dict[str, Any]:
            # Keys become Terraform attribute names (strings) before they can collide
            # (Python's True == 1 would merge `true:` and `1:`).
            if isinstance(node, yaml.MappingNode):
                self.flatten_mapping(node)
            mapping: dict[str, Any] = {}
            for key_node, value_node in node.value:
                key = decoded_key(self.construct_object(key_node, deep=True))
                mapping[key] = self.construct_object(value_node, deep=deep)
            return mapping

    _YamlLoader.add_constructor(_YAML_PLAIN, _construct_plain)
    for tag in ("str", "binary", "bool", "null", "timestamp", "int", "float"):
        _YamlLoader.add_constructor(f"{_YAML_TAG}{tag}", _construct_tagged(tag))
    for tag in ("omap", "pairs", "set"):
        _YamlLoader.add_constructor(f"{_YAML_TAG}{tag}", _construct_unsupported)
    _YamlLoader.add_constructor(None, _construct_unsupported)
    return _YamlLoader


@builtin("yamldecode", 1, params=("src: string",))
def _yamldecode(args: list[Value]) -> Value:
    text = str_arg(args[0], "src")
    loader = _yaml_loader()(text)
    try:
        node = loader.get_single_node()
        if node is None:
            raise TfEvalError("the YAML source contains no document")
        if loader.yaml_version not in (None, (1, 1)):
            raise TfEvalError(f"unsupported YAML version {loader.yaml_version}")
        decoded = loader.construct_document(node)
    except yaml.YAMLError as exc:
        raise TfEvalError(f"invalid YAML: {exc}") from None
    except RecursionError:
        raise TfEvalError("invalid YAML: cyclic or too deeply nested structure") from None
    finally:
        loader.dispose()
    return normalize_decoded(decoded)


# The family's built-ins, for the registry.
SPECS = (_yamldecode,)

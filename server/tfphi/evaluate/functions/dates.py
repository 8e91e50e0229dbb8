"""Date and time functions (lang/funcs/datetime.go)."""

from __future__ import annotations

import re
from typing import Callable

from ...values.value import TfEvalError, Value
from .deferred import datetime_module, decimal
from .spec import builtin
from .arguments import str_arg


# ---------------------------------------------------------------------------------------------
# Date and time


_RFC3339 = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})"
)


def _parse_timestamp(value: Value, what: str = "timestamp") -> datetime_module.datetime:
    text = str_arg(value, what)
    match = _RFC3339.fullmatch(text)
    if match is None:
        raise TfEvalError(f'not a valid RFC3339 timestamp: "{text}"')
    year, month, day, hour, minute, second = (int(match.group(i)) for i in range(1, 7))
    fraction = match.group(7)
    micro = int((fraction[1:] + "000000")[:6]) if fraction else 0
    zone = match.group(8)
    if zone in ("Z", "z"):
        tz = datetime_module.timezone.utc
    else:
        sign = 1 if zone[0] == "+" else -1
        tz = datetime_module.timezone(sign * datetime_module.timedelta(hours=int(zone[1:3]), minutes=int(zone[4:6])))
    try:
        return datetime_module.datetime(year, month, day, hour, minute, second, micro, tzinfo=tz)
    except ValueError as exc:
        raise TfEvalError(f'not a valid RFC3339 timestamp: "{text}": {exc}') from None


def _rfc3339(moment: datetime_module.datetime) -> str:
    offset = moment.utcoffset() or datetime_module.timedelta(0)
    base = moment.strftime("%Y-%m-%dT%H:%M:%S")
    return base + _offset_text(offset, colon=True, z=True)


def _offset_text(offset: datetime_module.timedelta, *, colon: bool, z: bool) -> str:
    total = int(offset.total_seconds()) // 60
    if total == 0 and z:
        return "Z"
    sign = "-" if total < 0 else "+"
    hours, minutes = divmod(abs(total), 60)
    return f"{sign}{hours:02d}{':' if colon else ''}{minutes:02d}"


_DURATION_PART = re.compile(r"(\d*\.?\d+|\d+\.)(ns|us|µs|μs|ms|s|m|h)")
_DURATION_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600}


def _parse_duration(text: str) -> datetime_module.timedelta:
    body = text
    sign = 1
    if body[:1] in ("+", "-"):
        sign = -1 if body[0] == "-" else 1
        body = body[1:]
    if body == "0":
        return datetime_module.timedelta(0)
    if not body:
        raise TfEvalError(f'invalid duration "{text}"')
    seconds = decimal.Decimal(0)
    position = 0
    while position < len(body):
        match = _DURATION_PART.match(body, position)
        if match is None:
            raise TfEvalError(f'invalid duration "{text}"')
        seconds += decimal.Decimal(match.group(1)) * decimal.Decimal(str(_DURATION_UNITS[match.group(2)]))
        position = match.end()
    return sign * datetime_module.timedelta(seconds=float(seconds))


@builtin("timeadd", 2, params=("timestamp: string", "duration: string"))
def _timeadd(args: list[Value]) -> Value:
    moment = _parse_timestamp(args[0])
    duration = _parse_duration(str_arg(args[1], "duration"))
    try:
        return _rfc3339(moment + duration)
    except OverflowError:
        raise TfEvalError("resulting timestamp is out of range") from None


@builtin("timecmp", 2, params=("timestamp_a: string", "timestamp_b: string"))
def _timecmp(args: list[Value]) -> Value:
    a = _parse_timestamp(args[0], "timestamp_a")
    b = _parse_timestamp(args[1], "timestamp_b")
    return (a > b) - (a < b)


_DATE_TOKEN = re.compile(r"'(?:[^']|'')*'?|([A-Za-z])\1*|[^A-Za-z']+")
_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
_WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def _date_token(token: str, moment: datetime_module.datetime) -> str:
    offset = moment.utcoffset() or datetime_module.timedelta(0)
    hour12 = moment.hour % 12 or 12
    table: dict[str, Callable[[], str]] = {
        "YYYY": lambda: f"{moment.year:04d}",
        "YY": lambda: f"{moment.year % 100:02d}",
        "MMMM": lambda: _MONTHS[moment.month - 1],
        "MMM": lambda: _MONTHS[moment.month - 1][:3],
        "MM": lambda: f"{moment.month:02d}",
        "M": lambda: str(moment.month),
        "DD": lambda: f"{moment.day:02d}",
        "D": lambda: str(moment.day),
        "EEEE": lambda: _WEEKDAYS[moment.weekday()],
        "EEE": lambda: _WEEKDAYS[moment.weekday()][:3],
        "hh": lambda: f"{moment.hour:02d}",
        "h": lambda: str(moment.hour),
        "HH": lambda: f"{hour12:02d}",
        "H": lambda: str(hour12),
        "AA": lambda: "AM" if moment.hour < 12 else "PM",
        "aa": lambda: "am" if moment.hour < 12 else "pm",
        "mm": lambda: f"{moment.minute:02d}",
        "m": lambda: str(moment.minute),
        "ss": lambda: f"{moment.second:02d}",
        "s": lambda: str(moment.second),
        "ZZZZZ": lambda: _offset_text(offset, colon=True, z=False),
        "ZZZZ": lambda: _offset_text(offset, colon=False, z=False),
        "ZZZ": lambda: "UTC" if not offset else _offset_text(offset, colon=False, z=False),
        "Z": lambda: _offset_text(offset, colon=True, z=True),
    }
    render = table.get(token)
    if render is None:
        raise TfEvalError(f'invalid date format verb "{token}"')
    return render()


@builtin("formatdate", 2, params=("format: string", "time: string"))
def _formatdate(args: list[Value]) -> Value:
    spec = str_arg(args[0], "format")
    moment = _parse_timestamp(args[1])
    out: list[str] = []
    for match in _DATE_TOKEN.finditer(spec):
        token = match.group(0)
        if token.startswith("'"):
            if len(token) < 2 or not token.endswith("'") or token == "'":
                raise TfEvalError("unterminated literal in date format")
            out.append("'" if token == "''" else token[1:-1].replace("''", "'"))
        elif token[0].isalpha():
            out.append(_date_token(token, moment))
        else:
            out.append(token)
    return "".join(out)


def _now() -> str:
    return datetime_module.datetime.now(datetime_module.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


@builtin("timestamp", 0, nondeterministic=True)
def _timestamp(args: list[Value]) -> Value:
    return _now()


@builtin("plantimestamp", 0, nondeterministic=True)
def _plantimestamp(args: list[Value]) -> Value:
    return _now()


# The family's built-ins, for the registry.
SPECS = (_timeadd, _timecmp, _formatdate, _timestamp, _plantimestamp)

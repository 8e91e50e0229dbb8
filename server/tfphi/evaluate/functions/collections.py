"""Collection functions (lang/funcs/collection.go and cty's stdlib collections and sets)."""

from __future__ import annotations


from ...values.numbers import FLOAT64, INT64, Whole, arithmetic
from ...values.sets import set_has
from ...values.value import TfEvalError, Value, type_name, value_key, values_equal
from . import return_rules as rules
from .spec import builtin
from .strings import graphemes
from .arguments import not_null, str_arg, number_arg, int_arg, bool_arg, list_arg, sequence_arg, object_arg, string_list_arg, unify_elements, unify_collections, set_sorted


# ---------------------------------------------------------------------------------------------
# Collections


@builtin("coalesce", 1, None, params=(), variadic="vals: dynamic?")
def _coalesce(args: list[Value]) -> Value:
    present = [v for v in args if v is not None]
    unified = unify_elements(present, "coalesce") if present else []
    for value in unified:
        if value != "":
            return value
    raise TfEvalError("no non-null, non-empty-string arguments")


@builtin("coalescelist", 1, None, params=(), variadic="vals: dynamic")
def _coalescelist(args: list[Value]) -> Value:
    for index, value in enumerate(args):
        if value is None:
            raise TfEvalError(f"argument {index + 1} must not be null")
        if list_arg(value, f"argument {index + 1}"):
            return value
    raise TfEvalError("no non-null arguments")


@builtin("lookup", 2, 3, params=("inputMap: dynamic", "key: string", "default: dynamic?"), returns=rules.lookup)
def _lookup(args: list[Value]) -> Value:
    mapping = object_arg(args[0], "inputMap")
    key = str_arg(args[1], "key")
    if key in mapping:
        return mapping[key]
    if len(args) == 3:
        return args[2]
    raise TfEvalError(f'lookup failed to find key "{key}"')


@builtin("element", 2, params=("list: dynamic", "index: number"))
def _element(args: list[Value]) -> Value:
    items = sequence_arg(args[0], "list")
    index = int_arg(args[1], "index")
    if not items:
        raise TfEvalError("cannot use element function with an empty list")
    if index < 0:
        raise TfEvalError("cannot use element function with a negative index")
    return items[index % len(items)]


@builtin("contains", 2, params=("list: dynamic", "value: dynamic"))
def _contains(args: list[Value]) -> Value:
    items = list_arg(args[0], "list")
    not_null(args[1], "value")
    return any(values_equal(item, args[1]) for item in items)


@builtin("index", 2, params=("list: dynamic", "value: dynamic"))
def _index(args: list[Value]) -> Value:
    items = list_arg(args[0], "list")
    for position, item in enumerate(items):
        if values_equal(item, args[1]):
            return Whole(position, INT64)
    raise TfEvalError("item not found")


@builtin("concat", 1, None, params=(), variadic="seqs: dynamic", returns=rules.concat)
def _concat(args: list[Value]) -> Value:
    out: list[Value] = []
    for index, value in enumerate(args):
        out.extend(sequence_arg(value, f"argument {index + 1}"))
    return out


@builtin("merge", 0, None, params=(), variadic="maps: dynamic?", returns=rules.merge)
def _merge(args: list[Value]) -> Value:
    out: dict[str, Value] = {}
    for index, value in enumerate(args):
        if value is None:
            continue
        out.update(object_arg(value, f"argument {index + 1}"))
    return {key: out[key] for key in sorted(out)}


@builtin("keys", 1, params=("inputMap: dynamic",), returns=rules.list_of_strings_for_a_map)
def _keys(args: list[Value]) -> Value:
    return sorted(object_arg(args[0], "inputMap"))


@builtin("values", 1, params=("mapping: dynamic",), returns=rules.list_for_a_map)
def _values(args: list[Value]) -> Value:
    mapping = object_arg(args[0], "mapping")
    return [mapping[key] for key in sorted(mapping)]


@builtin("length", 1, params=("value: dynamic",))
def _length(args: list[Value]) -> Value:
    value = args[0]
    not_null(value, "value")
    if isinstance(value, str):
        return Whole(len(graphemes(value)), INT64)  # cty.NumberIntVal: a Go int64
    if isinstance(value, (list, dict)):
        return Whole(len(value), INT64)
    raise TfEvalError(f"argument must be a string, a collection type, or a structural type, not {type_name(value)}")


@builtin("distinct", 1, params=("list: list(dynamic)",), returns=rules.list_like_the_argument)
def _distinct(args: list[Value]) -> Value:
    seen: set[str] = set()
    out: list[Value] = []
    for item in unify_elements(list_arg(args[0], "list"), "list"):
        key = value_key(item)
        if key not in seen:
            seen.add(key)
            out.append(item)
    return out


def _flatten_into(items: list[Value], out: list[Value]) -> None:
    for item in items:
        if isinstance(item, list):
            _flatten_into(item, out)
        else:
            out.append(item)


@builtin("flatten", 1, params=("list: dynamic",))
def _flatten(args: list[Value]) -> Value:
    out: list[Value] = []
    _flatten_into(list_arg(args[0], "list"), out)
    return out


@builtin("reverse", 1, params=("list: dynamic",), returns=rules.list_for_a_list_or_set)
def _reverse(args: list[Value]) -> Value:
    return list(reversed(list_arg(args[0], "list")))


@builtin("slice", 3, params=("list: dynamic", "start_index: number", "end_index: number"), returns=rules.list_for_a_list_or_set)
def _slice(args: list[Value]) -> Value:
    items = list_arg(args[0], "list")
    start = int_arg(args[1], "start_index")
    end = int_arg(args[2], "end_index")
    if start < 0:
        raise TfEvalError("start_index must not be negative")
    if end > len(items):
        raise TfEvalError("end_index must not be greater than the length of the list")
    if start > end:
        raise TfEvalError("start_index must be less than or equal to end_index")
    return items[start:end]


@builtin("sort", 1, params=("list: list(string)",), returns="list(string)")
def _sort(args: list[Value]) -> Value:
    return sorted(string_list_arg(args[0], "list"))


@builtin("zipmap", 2, params=("keys: list(string)", "values: dynamic"), returns=rules.zipmap)
def _zipmap(args: list[Value]) -> Value:
    keys = string_list_arg(args[0], "keys")
    values = list_arg(args[1], "values")
    if len(keys) != len(values):
        raise TfEvalError(f"number of keys ({len(keys)}) does not match number of values ({len(values)})")
    out = dict(zip(keys, values))
    return {key: out[key] for key in sorted(out)}


@builtin("compact", 1, params=("list: list(string)",), returns="list(string)")
def _compact(args: list[Value]) -> Value:
    items = list_arg(args[0], "list")
    return [str_arg(item, "element") for item in items if item is not None and item != ""]


@builtin("range", 1, 3, variadic="params: number", params=(), returns="list(number)")
def _range(args: list[Value]) -> Value:
    numbers = [number_arg(arg, f"argument {i + 1}") for i, arg in enumerate(args)]
    if len(numbers) == 1:
        start, limit = Whole(0, FLOAT64), numbers[0]  # cty.Zero is big.NewFloat(0): 53 bits
    else:
        start, limit = numbers[0], numbers[1]
    step = numbers[2] if len(numbers) == 3 else Whole(1 if start <= limit else -1, INT64)
    if step == 0:
        raise TfEvalError("step must not be zero")
    if step < 0 and start < limit:
        raise TfEvalError("step must be positive when start is less than limit")
    if step > 0 and start > limit:
        raise TfEvalError("step must be negative when start is greater than limit")
    out: list[Value] = []
    value = start
    while not ((step > 0 and value >= limit) or (step < 0 and value <= limit)):
        if len(out) >= 1024:
            raise TfEvalError("more than 1024 values were generated; either decrease the difference between start and end or use a smaller step")
        out.append(value)
        value = arithmetic("+", value, step)  # cty adds the step to the last value
    return out


@builtin("one", 1, params=("list: dynamic",))
def _one(args: list[Value]) -> Value:
    items = list_arg(args[0], "list")
    if not items:
        return None
    if len(items) > 1:
        raise TfEvalError(f"must be a list, set, or tuple value with either zero or one elements, got {len(items)}")
    return items[0]


@builtin("chunklist", 2, params=("list: list(dynamic)", "size: number"), returns=rules.chunks)
def _chunklist(args: list[Value]) -> Value:
    items = list_arg(args[0], "list")
    size = int_arg(args[1], "size")
    if size < 0:
        raise TfEvalError("the size argument must be positive")
    if size == 0:
        return [list(items)] if items else []
    return [items[i : i + size] for i in range(0, len(items), size)]


@builtin("matchkeys", 3, params=("values: dynamic", "keys: dynamic", "searchset: dynamic"), returns=rules.list_of_the_first_elements)
def _matchkeys(args: list[Value]) -> Value:
    values = list_arg(args[0], "values")
    keys = list_arg(args[1], "keys")
    search = list_arg(args[2], "searchset")
    if len(values) != len(keys):
        raise TfEvalError("length of keys and values should be equal")
    # keys and searchset are converted to one element type first (["1"] matches [1])
    unified = unify_elements(list(keys) + list(search), "keys and searchset")
    keys, search = unified[: len(keys)], unified[len(keys) :]
    wanted = {value_key(v) for v in search}
    return [value for value, key in zip(values, keys) if value_key(key) in wanted]


@builtin("transpose", 1, params=("values: map(list(string))",), returns="map(list(string))")
def _transpose(args: list[Value]) -> Value:
    mapping = object_arg(args[0], "values")
    out: dict[str, list[str]] = {}
    for key in sorted(mapping):
        for item in string_list_arg(mapping[key], f'value for "{key}"'):
            out.setdefault(item, []).append(key)
    return {key: out[key] for key in sorted(out)}


@builtin("alltrue", 1, params=("list: list(bool)",))
def _alltrue(args: list[Value]) -> Value:
    items = list_arg(args[0], "list")
    result = True
    for index, item in enumerate(items):
        if item is None or not bool_arg(item, f"element {index}"):
            result = False
    return result


@builtin("anytrue", 1, params=("list: list(bool)",))
def _anytrue(args: list[Value]) -> Value:
    items = list_arg(args[0], "list")
    result = False
    for index, item in enumerate(items):
        if item is not None and bool_arg(item, f"element {index}"):
            result = True
    return result


@builtin("setunion", 1, None, params=("first_set: dynamic",), variadic="other_sets: dynamic", returns=rules.set_operation)
def _setunion(args: list[Value]) -> Value:
    out: list[Value] = []
    for index, value in enumerate(args):
        out.extend(list_arg(value, f"argument {index + 1}"))
    return set_sorted(unify_elements(out, "setunion"))


@builtin("setintersection", 1, None, params=("first_set: dynamic",), variadic="other_sets: dynamic", returns=rules.set_operation)
def _setintersection(args: list[Value]) -> Value:
    sets = unify_collections([list_arg(value, f"argument {i + 1}") for i, value in enumerate(args)])
    return set_sorted([v for v in sets[0] if all(set_has(other, v) for other in sets[1:])])


@builtin("setsubtract", 2, params=("a: dynamic", "b: dynamic"), returns=rules.set_operation)
def _setsubtract(args: list[Value]) -> Value:
    first, second = unify_collections([list_arg(args[0], "a"), list_arg(args[1], "b")])
    return set_sorted([v for v in first if not set_has(second, v)])


@builtin("setproduct", 2, None, returns=rules.setproduct)
def _setproduct(args: list[Value]) -> Value:
    product: list[list[Value]] = [[]]
    for index, value in enumerate(args):
        items = list_arg(value, f"argument {index + 1}")
        product = [prefix + [item] for prefix in product for item in items]
    return product


@builtin("list", 0, None)
def _list_removed(args: list[Value]) -> Value:
    raise TfEvalError('the "list" function was deprecated in Terraform v0.12 and is no longer available; use tolist([ ... ]) syntax instead')


@builtin("map", 0, None)
def _map_removed(args: list[Value]) -> Value:
    raise TfEvalError('the "map" function was deprecated in Terraform v0.12 and is no longer available; use tomap({ ... }) syntax instead')


# The family's built-ins, for the registry.
SPECS = (_coalesce, _coalescelist, _lookup, _element, _contains, _index, _concat, _merge, _keys, _values,
         _length, _distinct, _flatten, _reverse, _slice, _sort, _zipmap, _compact, _range, _one, _chunklist,
         _matchkeys, _transpose, _alltrue, _anytrue, _setunion, _setintersection, _setsubtract, _setproduct,
         _list_removed, _map_removed)

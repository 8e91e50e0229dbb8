"""Typed addresses print in Terraform's syntax and parse back (addrs)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tfphi.addrs import AddressError, FieldAddress, ModuleInstance, ModuleStep, parse_field_address, parse_referenceable

names = st.from_regex(r"[a-z_][a-z0-9_-]{0,8}", fullmatch=True)
keys = st.one_of(st.none(), st.integers(0, 99), st.text(max_size=6))


@given(
    st.lists(st.tuples(names, keys), max_size=3),
    st.sampled_from(["managed", "data"]),
    names,
    names,
    keys,
    st.lists(names, min_size=1, max_size=3),
)
def test_field_addresses_round_trip(modules, mode, type_, name, key, field):
    address = FieldAddress(ModuleInstance(tuple(ModuleStep(n, k) for n, k in modules)), mode, type_, name, key, tuple(field))
    assert parse_field_address(str(address)) == address


@pytest.mark.parametrize(
    "text, printed_module, resource, key, field",
    [
        ('module.cache["eu"].aws_elasticache_replication_group.this["jobs"].description',
         'module.cache["eu"]', "aws_elasticache_replication_group.this", "jobs", ("description",)),
        ("aws_instance.web[0].instance_type", "", "aws_instance.web", 0, ("instance_type",)),
        ("data.aws_ssm_parameter.p.value", "", "data.aws_ssm_parameter.p", None, ("value",)),
        ("aws_db_instance.app.restore_to_point_in_time.source_db_instance_identifier", "", "aws_db_instance.app", None,
         ("restore_to_point_in_time", "source_db_instance_identifier")),
    ],
)
def test_parts_of_an_address(text, printed_module, resource, key, field):
    address = parse_field_address(text)
    assert (str(address.module), address.resource, address.key, address.field) == (printed_module, resource, key, field)


@pytest.mark.parametrize(
    "parse, text, message",
    [
        (parse_field_address, "module.a", "'module.a' names a module, not a field of a resource"),
        (parse_field_address, "aws_x.y", "'aws_x.y' names a resource, not one of its fields"),
        (parse_field_address, "x", "'x' is not a field address: expected <type>.<name>.<field>"),
        (parse_field_address, "aws_x.y[zz].f", "'aws_x.y[zz].f' is not a field address: unexpected '[zz].f'"),
        (parse_referenceable, "var", "'var' is not the address of a variable, local value, module call, output or resource"),
        (parse_referenceable, "var.a.b", "'var.a.b' is not the address of a variable, local value, module call, output or resource"),
        (parse_referenceable, "module.a[0]", "'module.a[0]' is not an address: unexpected '[0]'"),
        (parse_referenceable, "var.", "'var.' is not an address: expected a name at column 5"),
    ],
)
def test_bad_addresses_say_what_is_wrong(parse, text, message):
    with pytest.raises(AddressError) as error:
        parse(text)
    assert str(error.value) == message


def test_identifiers_may_be_unicode_letters():
    address = parse_field_address("module.日本.aws_db_instance.ü.engine_version")
    assert (str(address.module), address.resource, address.field) == ("module.日本", "aws_db_instance.ü", ("engine_version",))

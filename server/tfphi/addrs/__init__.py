"""Typed Terraform addresses that print in Terraform's syntax and parse back.

Modelled on Terraform's ``internal/addrs``: one small module per address kind. Nothing
downstream builds an address with an f-string or parses one with a regular expression.
"""

from .instance_key import InstanceKey, NO_KEY, format_key
from .module_instance import ROOT_MODULE, ModuleInstance, ModuleStep
from .field import FieldAddress, parse_field_address, AddressError

__all__ = [
    "AddressError",
    "FieldAddress",
    "InstanceKey",
    "ModuleInstance",
    "ModuleStep",
    "NO_KEY",
    "ROOT_MODULE",
    "format_key",
    "parse_field_address",
]

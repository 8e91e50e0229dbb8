"""Typed Terraform addresses that print in Terraform's syntax and parse back.

Modelled on Terraform's ``internal/addrs``: one small module per address kind. Nothing
downstream builds an address with an f-string or parses one with a regular expression.
"""

from .instance_key import InstanceKey, NO_KEY, format_key
from .module_instance import ROOT_MODULE, ModuleInstance, ModuleStep
from .errors import AddressError
from .field import FieldAddress, parse_field_address
from .referenceable import (AbsResource, InputVariable, LocalValue, ModuleCall, ModuleCallOutput, OutputValue, Referenceable, Resource,
                            parse_referenceable)

__all__ = [
    "AbsResource",
    "AddressError",
    "FieldAddress",
    "InputVariable",
    "InstanceKey",
    "LocalValue",
    "ModuleCall",
    "ModuleCallOutput",
    "ModuleInstance",
    "ModuleStep",
    "NO_KEY",
    "OutputValue",
    "ROOT_MODULE",
    "Referenceable",
    "Resource",
    "format_key",
    "parse_field_address",
    "parse_referenceable",
]

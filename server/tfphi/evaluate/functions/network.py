"""IP network functions (lang/funcs/cidr.go)."""

from __future__ import annotations


from ...values.value import TfEvalError, TfUnrepresentable, Value
from .deferred import ipaddress
from .spec import builtin
from .arguments import str_arg, int_arg


# ---------------------------------------------------------------------------------------------
# IP network functions


def _network(prefix: Value) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
    text = str_arg(prefix, "prefix")
    if "/" not in text:  # Go's ParseCIDR needs the prefix length
        raise TfEvalError(f'invalid CIDR expression "{text}"')
    try:
        return ipaddress.ip_network(text, strict=False)
    except ValueError:
        raise TfEvalError(f'invalid CIDR expression "{text}"') from None


@builtin("cidrhost", 2, params=("prefix: string", "hostnum: number"))
def _cidrhost(args: list[Value]) -> Value:
    network = _network(args[0])
    hostnum = int_arg(args[1], "hostnum")
    size = network.num_addresses
    position = hostnum + size if hostnum < 0 else hostnum
    if not 0 <= position < size:
        raise TfEvalError(f"prefix of {network.prefixlen} does not accommodate a host numbered {hostnum}")
    return str(network.network_address + position)


def _subnet(network: ipaddress.IPv4Network | ipaddress.IPv6Network, newbits: int, netnum: int) -> str:
    max_bits = network.max_prefixlen
    if newbits < 0:
        raise TfEvalError("newbits must not be negative")
    new_length = network.prefixlen + newbits
    if new_length > max_bits:
        raise TfEvalError(f"insufficient address space to extend prefix of {network.prefixlen} by {newbits}")
    if not 0 <= netnum < (1 << newbits):
        raise TfEvalError(f"prefix extension of {newbits} does not accommodate a subnet numbered {netnum}")
    address = network.network_address + (netnum << (max_bits - new_length))
    return f"{address}/{new_length}"


@builtin("cidrsubnet", 3, params=("prefix: string", "newbits: number", "netnum: number"))
def _cidrsubnet(args: list[Value]) -> Value:
    if int_arg(args[2], "netnum") < 0:
        # Terraform accepts a negative netnum with an unexpected result (cidrsubnet("10.0.0.0/8",
        # 2, -1) is "0.64.0.0/10"): not a value tfphi reproduces
        raise TfUnrepresentable("cidrsubnet() with a negative netnum")
    return _subnet(_network(args[0]), int_arg(args[1], "newbits"), int_arg(args[2], "netnum"))


@builtin("cidrsubnets", 1, None, params=("prefix: string",), variadic="newbits: number", returns="list(string)")
def _cidrsubnets(args: list[Value]) -> Value:
    network = _network(args[0])
    max_bits = network.max_prefixlen
    base = int(network.network_address)
    end = base + network.num_addresses
    cursor = base
    out: list[Value] = []
    for index, value in enumerate(args[1:]):
        if base == 0:  # Terraform starts from the subnet before the network's: at address 0 that wraps (go-cidr), and every call fails
            int_arg(value, f"newbits[{index}]")
            raise TfEvalError("not enough remaining address space (the network starts at address 0)")
        newbits = int_arg(value, f"newbits[{index}]")
        if newbits < 1:
            raise TfEvalError("must extend prefix by at least one bit")
        new_length = network.prefixlen + newbits
        if new_length > max_bits:
            raise TfEvalError(f"would extend prefix to {new_length} bits, which is too long for an IP address")
        size = 1 << (max_bits - new_length)
        cursor = -(-cursor // size) * size
        if cursor + size > end:
            raise TfEvalError(f"not enough remaining address space for a subnet with a prefix of {new_length} bits")
        out.append(f"{type(network.network_address)(cursor)}/{new_length}")
        cursor += size
    return out


@builtin("cidrnetmask", 1, params=("prefix: string",))
def _cidrnetmask(args: list[Value]) -> Value:
    network = _network(args[0])
    if network.version != 4:
        raise TfEvalError("only IPv4 networks are supported")
    return str(network.netmask)


# The family's built-ins, for the registry.
SPECS = (_cidrhost, _cidrsubnet, _cidrsubnets, _cidrnetmask)

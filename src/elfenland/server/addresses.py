"""The key a client address is counted under, by every per-address limit (the HTTP
work ration and creation quotas, the unfinished games per host, the reply ration, chat):
one function, so that no limit can be multiplied by a host that owns many addresses."""

from __future__ import annotations

import ipaddress


def address_key(host: str) -> str:
    """The key an address is counted under: an IPv6 address's /64 (one subscriber's
    usual share: counting each address alone would give them 2^64 rations), an IPv4
    address (IPv4-mapped IPv6 unwrapped) as it is; anything else (``"unknown"``, a
    test client's name) as it is."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)

"""Which network addresses the server may call, and which peers it may believe.

Two questions a public server must answer from addresses, never from names: may a
player's webhook make the server connect to this address (not to the host itself, its
private network or a cloud metadata service), and may this peer tell us who the client
is (only a configured proxy may set ``X-Forwarded-For``).  Both read addresses
through ``ipaddress`` and unwrap IPv4-mapped IPv6 (``::ffff:127.0.0.1`` is loopback).
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Iterable
from dataclasses import dataclass, field

from .errors import ServerError

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_address(text: str) -> Address | None:
    """``text`` as an address (IPv4-mapped IPv6 unwrapped, a zone index dropped)."""
    try:
        addr = ipaddress.ip_address(text.split("%", 1)[0].strip("[]"))
    except ValueError:
        return None
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        return addr.ipv4_mapped
    return addr


def parse_networks(items: Iterable[str]) -> tuple[Network, ...]:
    """Networks from ``10.0.0.0/8``, ``127.0.0.1`` or ``::1`` items (empty ones skipped);
    a malformed item raises ``ValueError`` naming it."""
    out: list[Network] = []
    for item in items:
        item = item.strip()
        if not item:
            continue
        try:
            out.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise ValueError(f"{item!r} is not an address or a network") from None
    return tuple(out)


def split_list(text: str | None) -> list[str]:
    """A comma- or space-separated list (how the command line and ``ELFENLAND_…`` give
    lists)."""
    return [x for x in (text or "").replace(",", " ").split() if x]


NAT64 = ipaddress.IPv6Network("64:ff9b::/96")


def embedded_ipv4(addr: Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one leads to: IPv4-mapped, NAT64 (64:ff9b::/96), 6to4
    or Teredo; None for any other."""
    if not isinstance(addr, ipaddress.IPv6Address):
        return None
    if addr.ipv4_mapped is not None:
        return addr.ipv4_mapped
    if addr in NAT64:
        return ipaddress.IPv4Address(int(addr) & 0xFFFFFFFF)
    if addr.sixtofour is not None:
        return addr.sixtofour
    if addr.teredo is not None:
        return addr.teredo[1]
    return None


def is_public(addr: Address) -> bool:
    """Whether ``addr`` is a global unicast address: not loopback, private, link-local
    (cloud metadata lives there), multicast, unspecified, reserved or shared — and, for
    an IPv6 address that embeds an IPv4 one, neither is that."""
    inner = embedded_ipv4(addr)
    if inner is not None and not is_public(inner):
        return False
    return addr.is_global and not (addr.is_multicast or addr.is_unspecified
                                   or addr.is_loopback or addr.is_link_local
                                   or addr.is_private or addr.is_reserved)


def own_addresses() -> set[Address]:
    """The addresses this machine answers on, as far as its name resolves: a webhook on
    them would reach the server itself even when they are public."""
    out: set[Address] = set()
    for name in {socket.gethostname(), socket.getfqdn()}:
        try:
            infos = socket.getaddrinfo(name, None)
        except OSError:
            continue
        for info in infos:
            addr = parse_address(str(info[4][0]))
            if addr is not None:
                out.add(addr)
    return out


@dataclass(frozen=True)
class OutboundPolicy:
    """Where webhooks may go: public addresses other than the server's own, plus what the
    operator allow-listed (``--webhook-allow``: networks, or host names whose every
    address is then allowed)."""

    networks: tuple[Network, ...] = ()
    hosts: frozenset[str] = frozenset()
    own: frozenset[Address] = field(default_factory=frozenset)

    @classmethod
    def from_items(cls, items: Iterable[str], own: Iterable[Address] = ()) -> OutboundPolicy:
        nets: list[str] = []
        hosts: set[str] = set()
        for item in items:
            item = item.strip()
            if not item:
                continue
            if parse_address(item.split("/", 1)[0]) is not None:
                nets.append(item)
            else:
                hosts.add(item.lower().rstrip("."))
        return cls(parse_networks(nets), frozenset(hosts), frozenset(own))

    def allows(self, host: str, addr: Address) -> bool:
        if host.lower().rstrip(".") in self.hosts:
            return True
        if any(addr in net for net in self.networks):
            return True
        return is_public(addr) and addr not in self.own

    async def resolve(self, host: str, port: int) -> list[Address]:
        """Every address ``host`` resolves to, all of them allowed, or a ``ServerError``
        naming the first refused one (a name with one private address among public ones
        is refused: the resolver, not we, would choose which one is used)."""
        literal = parse_address(host)
        if literal is not None:
            found = [literal]
        else:
            try:
                infos = await asyncio.get_running_loop().getaddrinfo(
                    host, port, type=socket.SOCK_STREAM)
            except (OSError, UnicodeError) as exc:
                # UnicodeError: the IDNA codec refuses the name ("a..b", a label over
                # 63 characters) before any lookup.
                raise ServerError("bad-request",
                                  f"the webhook's host {host!r} does not resolve: {exc}"
                                  ) from None
            found = []
            for info in infos:
                addr = parse_address(str(info[4][0]))
                if addr is not None and addr not in found:
                    found.append(addr)
            if not found:
                raise ServerError("bad-request", f"the webhook's host {host!r} has no address")
        for addr in found:
            if not self.allows(host, addr):
                raise ServerError(
                    "bad-request",
                    f"a webhook may not reach {addr} (not a public address; an operator "
                    "may allow it with --webhook-allow)")
        return found


@dataclass(frozen=True)
class TrustedProxies:
    """The peers whose ``X-Forwarded-For`` is believed (``--trusted-proxies``)."""

    networks: tuple[Network, ...] = ()

    def client(self, peer: str, forwarded: str | None) -> str:
        """The client's address: the peer's own, unless the peer is a trusted proxy;
        then the rightmost address of ``forwarded`` that is not itself a trusted proxy
        (what a client wrote on the left of the header is never believed)."""
        if not self.networks or forwarded is None or not self._trusted(peer):
            return peer
        hops = [h.strip() for h in forwarded.split(",") if h.strip()]
        for hop in reversed(hops):
            addr = parse_address(hop)
            if addr is None:
                return peer  # a malformed hop: believe no one further left
            if not any(addr in net for net in self.networks):
                return str(addr)
        return peer

    def _trusted(self, peer: str) -> bool:
        addr = parse_address(peer)
        return addr is not None and any(addr in net for net in self.networks)

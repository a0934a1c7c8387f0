"""Webhooks cannot be turned against the host (issue 23): real listeners on loopback
must receive nothing unless an operator allow-listed them; redirects are not followed; a
webhook dripping its answer is cut at the call's deadline while other players' notices
still arrive; a player's queue is bounded."""

from __future__ import annotations

import asyncio
import ipaddress
import time

import pytest

from elfenland.server.config import Guard
from elfenland.server.errors import ServerError
from elfenland.server.netguard import OutboundPolicy, is_public
from elfenland.server.webhooks import WebhookLimits, WebhookSender

from .conftest import ServerFactory
from .helpers import HTTP, post
from .listeners import Listener

REFUSED = ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1", "10.1.2.3", "172.16.0.9",
           "192.168.1.1", "169.254.169.254", "fe80::1", "fc00::5", "224.0.0.1", "ff02::1",
           "0.0.0.0", "::", "100.64.0.1", "240.0.0.1",
           # IPv6 addresses that lead to a private IPv4 one: NAT64, 6to4, Teredo.
           "64:ff9b::7f00:1", "2002:a00:1::1", "2001:0:4136:e378:8000:63bf:f5ff:fffe"]


@pytest.mark.parametrize("address", REFUSED)
def test_non_global_addresses_are_refused(address: str) -> None:
    assert not is_public(ipaddress.ip_address(address))
    with pytest.raises(ServerError) as err:
        asyncio.run(OutboundPolicy().resolve(address, 80))
    assert err.value.code == "bad-request" and "--webhook-allow" in err.value.message


def test_public_and_allow_listed_addresses() -> None:
    assert is_public(ipaddress.ip_address("93.184.215.14"))
    assert is_public(ipaddress.ip_address("2606:4700::1111"))
    own = ipaddress.ip_address("93.184.215.14")
    with pytest.raises(ServerError):  # the server's own public address
        asyncio.run(OutboundPolicy(own=frozenset({own})).resolve("93.184.215.14", 80))
    allowed = OutboundPolicy.from_items(["127.0.0.0/8", "hooks.internal"])
    assert asyncio.run(allowed.resolve("127.0.0.1", 80)) == [ipaddress.ip_address("127.0.0.1")]
    assert allowed.allows("hooks.internal", ipaddress.ip_address("10.0.0.1"))
    assert not allowed.allows("other.internal", ipaddress.ip_address("10.0.0.1"))


def test_a_loopback_webhook_is_refused_and_never_called(make_server: ServerFactory) -> None:
    server = make_server()
    with Listener() as hook:
        for url in (hook.url, f"http://localhost:{hook.port}/h",
                    f"http://[::ffff:127.0.0.1]:{hook.port}/h", "http://169.254.169.254/",
                    f"http://127.0.0.1:{server.port}/api/games"):
            r = post(server.url, "/api/players", {"name": "Eve", "webhook": url})
            assert r.status_code == 400, (url, r.text)
            assert r.json()["code"] == "bad-request"
        eve = post(server.url, "/api/players", {"name": "Eve"}).json()
        r = post(server.url, "/api/players/me", {"token": eve["token"], "webhook": hook.url})
        assert r.status_code == 400
        assert HTTP.get(f"{server.url}/api/players/me",
                        params={"token": eve["token"]}).json()["webhook"] is None
        time.sleep(0.2)
        assert hook.requests == []


def test_the_allow_list_opens_a_loopback_listener(make_server: ServerFactory) -> None:
    server = make_server(guard=Guard(webhook_allow=("127.0.0.1/32",)))
    with Listener() as hook:
        r = post(server.url, "/api/players", {"name": "Sam", "webhook": hook.url})
        assert r.status_code == 201 and r.json()["player"]["webhook"] == hook.url


def test_checked_again_at_call_time() -> None:
    """A URL accepted once (an allow-list since removed, or a name that now resolves to
    loopback) is checked again at each call: the listener gets nothing."""
    with Listener() as hook:
        sender = WebhookSender(OutboundPolicy())
        assert asyncio.run(sender.call(hook.url, {"type": "your-turn"})) is None
        time.sleep(0.2)
        assert hook.requests == []


def test_redirects_are_not_followed() -> None:
    with Listener() as internal:
        answer = (f"HTTP/1.1 302 Found\r\nLocation: {internal.url}/secret\r\n"
                  "Content-Length: 0\r\n\r\n").encode()
        with Listener(answer) as hook:
            sender = WebhookSender(OutboundPolicy.from_items(["127.0.0.1/32"]))
            assert asyncio.run(sender.call(hook.url, {"type": "your-turn"})) == 302
            time.sleep(0.3)
            assert len(hook.requests) == 1 and hook.requests[0].startswith(b"POST /hook ")
            assert internal.requests == []


#: A dripping answer's length in seconds (a byte every DRIP_EVERY s): far beyond every
#: deadline below, so a call that is not cut, or a notice held up behind one, shows as a
#: wait of DRIP_SECONDS, whatever the load on the machine.
DRIP_EVERY = 0.3
DRIP_SECONDS = 90.0


def test_a_dripping_webhook_is_cut_and_delays_nobody() -> None:
    drip = b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n"
    with Listener(drip, drip=int(DRIP_SECONDS / DRIP_EVERY), every=DRIP_EVERY) as slow, \
            Listener() as fast:
        policy = OutboundPolicy.from_items(["127.0.0.1/32"])
        # The cut: a call ends at its deadline, not when the answer does.
        cutter = WebhookSender(policy, WebhookLimits(deadline=3.0))
        # The hostile calls below run under a deadline longer than the test, so that
        # they are all still in flight when the honest player's notices must go out.
        sender = WebhookSender(policy, WebhookLimits(deadline=DRIP_SECONDS, queue=3))

        async def run() -> tuple[float, float, float]:
            t0 = time.monotonic()
            cut = await cutter.call(slow.url, {"n": 0})
            cut_after = time.monotonic() - t0
            assert cut is None
            # Ten hostile players' webhooks drip; an honest player's notices still go out
            # at once, while those calls are in flight.
            for p in range(10):
                for n in range(5):
                    sender.notify(f"slow{p}", slow.url, {"n": n})
            t1 = time.monotonic()
            for n in range(3):
                sender.notify("honest", fast.url, {"n": n})
            while len(fast.requests) < 3:
                assert time.monotonic() - t1 < DRIP_SECONDS / 3, \
                    "the honest player's notices were held up"
                await asyncio.sleep(0.02)
            honest_after = time.monotonic() - t1
            in_flight = len(slow.requests)
            await asyncio.sleep(0.5)
            sender.cancel_all()
            return cut_after, honest_after, in_flight

        cut_after, honest_after, in_flight = asyncio.run(run())
    # Cut at its 3 s, not after the answer's DRIP_SECONDS (the upper bound leaves room
    # for a loaded machine).
    assert 2.9 <= cut_after < DRIP_SECONDS / 3
    # While every hostile call was still in flight (each lasts DRIP_SECONDS).
    assert honest_after < DRIP_SECONDS / 3
    # At most one call in flight per player: ten hostile players, ten calls (plus the
    # first one, cut).
    assert in_flight <= 11
    # Each hostile player's queue holds 3: its 5 notices, queued before its call starts,
    # lose the 2 oldest, with a log line each.
    assert sender.dropped == 20

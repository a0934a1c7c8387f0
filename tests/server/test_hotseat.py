"""Hotseat: one device plays several seats, each with its own token."""

from __future__ import annotations

import asyncio

from .conftest import ServerFactory
from .helpers import HTTP, create, play_seat, post


def test_one_device_plays_every_human_seat(make_server: ServerFactory) -> None:
    server = make_server()
    made = create(server.url, game="king-of-the-elves", players=3, seed=8, hotseat=True,
                  name="Ann", seats=[{"kind": "human"}, {"kind": "human", "name": "Bob"},
                                     {"kind": "bot", "level": "random"}])
    gid = made["game"]["id"]
    assert [s["seat"] for s in made["hotseat"]] == [0, 1]
    assert made["hotseat"][0]["token"] == made["token"]
    assert [s.get("name") for s in made["game"]["seats"]] == ["Ann", "Bob", "Random bot"]
    assert [s["kind"] for s in made["game"]["seats"]] == ["human", "human", "bot"]
    assert post(server.url, f"/api/games/{gid}/start", {"token": made["hotseat"][1]["token"]}
                ).is_success

    async def both() -> list[list[dict[str, object]]]:
        return list(await asyncio.gather(*(
            play_seat(server.ws_url, gid, s["token"], s["seat"]) for s in made["hotseat"])))

    asyncio.run(both())
    assert HTTP.get(f"{server.url}/api/games/{gid}").json()["game"]["status"] == "finished"
    # Without hotseat, further human seats stay open for others.
    plain = create(server.url, players=2, seats=[{"kind": "human"}, {"kind": "human"}])
    assert "hotseat" not in plain and plain["game"]["seats"][1]["kind"] == "open"

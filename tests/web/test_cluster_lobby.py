"""The browser lobby in a cluster (real Chromium, three processes, HAProxy): a lobby page
open on one process shows, without reloading, a game created through another process,
who has that game open there, and "your turn" in it; and a lobby whose feed's process
drains, or is killed, reconnects through HAProxy to another process and still sees what
happens."""

from __future__ import annotations

import signal
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page

# The cluster tests' fixtures (PostgreSQL schema, processes, HAProxy) next to this
# directory's one Chromium.
from cluster.conftest import ClusterFactory, make_cluster, pg_url  # noqa: F401
from cluster.play import owner_of, post

from .conftest import checked_page
from .helpers import play_until

pytestmark = [pytest.mark.cluster, pytest.mark.browser]

@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    """A page of its own (not the shared server's)."""
    with checked_page(browser) as pg:
        yield pg


def _open_lobby(page: Page, base: str) -> None:
    page.goto(f"{base}/")
    page.wait_for_selector(".lobby[data-feed='live']")
    page.wait_for_selector("#open-games .game-row, #open-games .muted", state="attached")
    # Set once; a reload would lose it.
    page.evaluate("window.__sameDocument = true")


def _same_document(page: Page) -> bool:
    return bool(page.evaluate("window.__sameDocument === true"))


def test_a_lobby_on_one_process_sees_another_process(make_cluster: ClusterFactory,  # noqa: F811
                                                     page: Page) -> None:
    cluster = make_cluster(3)
    one, two = cluster.server_url("s1"), cluster.server_url("s2")
    _open_lobby(page, one)
    assert page.get_attribute(".lobby", "data-feed-server").startswith("s1/")

    # A game created on s2 appears in the lobby served by s1.
    made = post(two, "/api/games", {"players": 2, "name": "Ann", "seats": [
        {"kind": "human"}, {"kind": "open"}]}).json()
    gid, ann = made["game"]["id"], made["token"]
    page.wait_for_selector(f"#open-games .game-row[data-game='{gid}']")
    assert "Ann" in page.inner_text(f"#open-games [data-game='{gid}']")

    # This browser holds Ann's seat (as it would after creating the game elsewhere).
    page.evaluate("([g, t]) => localStorage.setItem('elfenland.seats', JSON.stringify("
                  "{[g]: {seat: 0, token: t, name: 'Ann'}}))", [gid, ann])
    bob = post(two, f"/api/games/{gid}/join", {"name": "Bob"}).json()["token"]
    assert post(two, f"/api/games/{gid}/start", {"token": ann}).is_success
    assert owner_of(cluster.db, gid) == "s2", "the game is served by s2, the page by s1"
    page.wait_for_selector(f"#my-games .game-row[data-game='{gid}']")
    assert "running" in page.inner_text(f"#my-games [data-game='{gid}']").lower()

    # Ann's turn first ("Games waiting for you"), then Bob's, then Ann's again: the
    # turns are played on s2 and seen on s1.
    waiting = f".waiting-row[data-game='{gid}']"
    page.wait_for_selector(waiting)
    ws_two = two.replace("http", "ws")
    assert play_until(ws_two, gid, ann, 0, 1) > 0
    page.wait_for_selector(waiting, state="detached")
    assert play_until(ws_two, gid, bob, 1, 0) > 0
    page.wait_for_selector(waiting)
    page.wait_for_function(
        "() => document.querySelector('#lobby-live').textContent.startsWith('Your turn')")
    assert _same_document(page)

    # Ann opens the game in a browser on s2: her seat shows as online on s1, and no
    # longer once she closes it.
    assert page.locator(f"#my-games [data-game='{gid}'] [data-seat='0'][data-connected]"
                        ).count() == 0
    other = page.context.browser.new_context() if page.context.browser else None
    assert other is not None
    try:
        table = other.new_page()
        table.goto(f"{two}/")
        table.evaluate("([g, t]) => localStorage.setItem('elfenland.seats', JSON.stringify("
                       "{[g]: {seat: 0, token: t, name: 'Ann'}}))", [gid, ann])
        table.goto(f"{two}/#/game/{gid}")
        table.wait_for_selector(".game .panel")
        page.wait_for_selector(f"#my-games [data-game='{gid}'] [data-seat='0'][data-connected]")
    finally:
        other.close()
    page.wait_for_selector(
        f"#my-games [data-game='{gid}'] [data-seat='0']:not([data-connected])")
    assert _same_document(page)


def test_a_lobby_reconnects_after_its_process_drains_or_dies(
        make_cluster: ClusterFactory, page: Page) -> None:  # noqa: F811
    cluster = make_cluster(3)
    _open_lobby(page, cluster.url)  # through HAProxy, like any player
    first = str(page.get_attribute(".lobby", "data-feed-server"))
    drained = first.split("/")[0]
    cluster.signal(drained, signal.SIGTERM)  # drains: the feed is closed with 1012
    second = _moved(page, first)
    assert page.evaluate("window.__elfenlandLobby.feed.lastClose") == 1012
    killed = second.split("/")[0]
    assert killed != drained
    # Still live: a game created through the third process appears.
    third = next(n for n in cluster.names if n not in (drained, killed))
    _created_shows(page, cluster.server_url(third), "Cleo")

    # The feed's process is killed outright: the feed comes back on the last one.
    cluster.kill(killed)
    last = _moved(page, second)
    assert last.startswith(f"{third}/")
    assert page.evaluate("window.__elfenlandLobby.feed.lastClose") != 1012
    _created_shows(page, cluster.server_url(third), "Dora")


def _moved(page: Page, before: str) -> str:
    """Wait until the lobby's feed is live on another process than ``before``."""
    page.wait_for_function(
        "s => { const l = document.querySelector('.lobby');"
        " return l.dataset.feed === 'live' && l.dataset.feedServer !== s; }",
        arg=before)
    assert _same_document(page)
    return str(page.get_attribute(".lobby", "data-feed-server"))


def _created_shows(page: Page, base: str, name: str) -> None:
    made = post(base, "/api/games", {
        "players": 2, "name": name, "seats": [{"kind": "human"}, {"kind": "open"}]}).json()
    row = f"#open-games .game-row[data-game='{made['game']['id']}']"
    page.wait_for_selector(row)
    assert name in page.inner_text(row)
    assert _same_document(page)

"""The SRP map in Debian's Chromium: dragging the acting fighter sends the same move the form
sends; a zone of control stops it (SRP-15), a charge carries it through a long weapon's zone
and the defender makes its extra attack; a refused move snaps back with the reason; distances
show while dragging; keyboard moves and turns work too."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from tests.browser_fixtures import PHONE, WAIT_MS, browser, clean, pages, shoot, web  # noqa: F401
from tests.service_fixtures import LiveServer

pytestmark = pytest.mark.browser


def sheet(weapon: str, reach_cm: int, x_cm: int, facing: int) -> dict[str, Any]:
    return {
        "hits": 12,
        "weapons": [{"name": weapon, "damage": 3, "reach_cm": reach_cm}],
        "skills": {weapon: 15},
        "defense": 10,
        "x_cm": x_cm,
        "y_cm": 0,
        "facing": facing,
    }


def ford(server: LiveServer) -> tuple[str, str, str]:
    """Tarl (broadsword) at (0, 0) facing east; Pa-Kur (pike, 4.5 m) at (6, 0) facing west.
    Initiative is rolled and, if Pa-Kur won it, Pa-Kur passes: Tarl is to act."""
    r = server.post("/api/bouts", json={"system": "srp", "name": "Ford"})
    bid, ref = r.json()["id"], r.json()["referee_token"]
    fighters = {"Tarl": sheet("broadsword", 150, 0, 0), "Pa-Kur": sheet("pike", 450, 600, 180)}
    tokens = {}
    for name, stats in fighters.items():
        r = server.post(f"/api/bouts/{bid}/fighters", ref, json={"name": name, "sheet": stats})
        assert r.status_code == 201, r.text
        tokens[name] = r.json()["token"]
    assert server.post(f"/api/bouts/{bid}/initiative", ref).status_code == 200
    if server.get(f"/api/bouts/{bid}").json()["turn"] == "Pa-Kur":
        body = {"actor": "Pa-Kur", "kind": "pass", "options": {}}
        assert server.post(f"/api/bouts/{bid}/actions", ref, json=body).status_code == 200
    assert server.get(f"/api/bouts/{bid}").json()["turn"] == "Tarl"
    return bid, ref, tokens["Tarl"]


def open_map(page: Any, server: LiveServer, bid: str, token: str) -> None:
    page.goto(f"{server.url}/static/fighter.html#bout={bid}&token={token}")
    expect(page.locator("#map .token.movable[data-name='Tarl']")).to_have_count(1)
    # Every event so far has reached the page, so no late redraw replaces the map under a key
    # press or a drag (a keydown on a replaced token is lost).
    events = len(server.get(f"/api/bouts/{bid}/log", token).json())
    expect(page.locator("#log > li")).to_have_count(events, timeout=WAIT_MS)
    expect(page.locator("#map .token.movable[data-name='Tarl']")).to_have_count(1)


def press_on_token(page: Any, name: str, key: str) -> Any:
    """Focus the token's body, press `key`, and return the answer to the action it sends.

    A redraw of the map between the focus and the key press replaces the token, and the key
    is lost: then nothing is sent, and the key is pressed again (at most five times). A press
    that was sent is never repeated; the request leaves as the key goes down, so 10 s without
    one means the press was lost, not slow.
    """
    for _ in range(5):
        try:
            with page.expect_request(lambda r: r.url.endswith("/actions"), timeout=10_000) as sent:
                page.focus(f"#map .token[data-name='{name}'] .body")
                page.keyboard.press(key)
        except PlaywrightTimeout:
            continue
        return sent.value.response()
    pytest.fail(f"pressing {key!r} on {name} sent no action in five tries")


def square_left(page: Any, name: str) -> Any:
    """Focus the token's body and add one square to the west by the arrow key; the distance
    walked it shows. As in `press_on_token`, a redraw between the focus and the key loses the
    key: then it is pressed again (at most five times)."""
    walked = page.locator("#map .guide .distance[data-walked]")
    for _ in range(5):
        page.focus(f"#map .token[data-name='{name}'] .body")
        page.keyboard.press("ArrowLeft")
        try:
            expect(walked).to_have_count(1, timeout=5_000)
            break
        except AssertionError:
            continue
    return walked


def screen(page: Any, x: float, y: float) -> tuple[float, float]:
    """Where the map point (x, y) metres is on the screen."""
    point = page.evaluate(
        """([x, y]) => {
          const svg = document.querySelector('#map svg');
          const p = svg.createSVGPoint(); p.x = x; p.y = -y;
          const s = p.matrixTransform(svg.getScreenCTM());
          return [s.x, s.y];
        }""",
        [x, y],
    )
    return float(point[0]), float(point[1])


def drag(
    page: Any, start: tuple[float, float], end: tuple[float, float], check: Any = None
) -> None:
    page.mouse.move(*screen(page, *start))
    page.mouse.down()
    page.mouse.move(*screen(page, *end), steps=12)
    if check:
        check()
    page.mouse.up()


def last_outcome(server: LiveServer, bid: str) -> dict[str, Any]:
    events = server.get(f"/api/bouts/{bid}/log").json()
    return dict(next(e for e in reversed(events) if e["type"] == "outcome"))


def tarl(server: LiveServer, bid: str) -> dict[str, Any]:
    view = server.get(f"/api/bouts/{bid}").json()
    return dict(next(f for f in view["fighters"] if f["name"] == "Tarl")["stats"])


def test_dragging_into_a_zone_of_control_stops_there(
    web: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
) -> None:
    bid, _, token = ford(web)
    page = pages()
    open_map(page, web, bid, token)

    # A refused move (a step of two squares) snaps back and says why; nothing is stored.
    before = len(web.get(f"/api/bouts/{bid}/log").json())
    page.select_option("#map-mode", "step")
    page.focus("#map .token[data-name='Tarl'] .body")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#map .guide .distance[data-walked]")).to_have_text("3 m")
    page.keyboard.press("Enter")
    expect(page.locator("#message")).to_have_text(
        "a step (minimum move) is one square, at most 1.5 m", timeout=WAIT_MS
    )
    assert page.get_attribute("#map .token[data-name='Tarl']", "transform") is None
    assert len(web.get(f"/api/bouts/{bid}/log").json()) == before

    # Dragging shows the distance walked and to the enemy, then sends the move.
    page.select_option("#map-mode", "move")

    def while_dragging() -> None:
        expect(page.locator("#map .guide .distance[data-walked]")).to_have_text("4.5 m")
        expect(page.locator("#map .guide .distance.enemy[data-name='Pa-Kur']")).to_have_text(
            "Pa-Kur 1.5 m"
        )

    with page.expect_response(lambda r: r.url.endswith("/actions")) as answer:
        drag(page, (0, 0), (4.5, 0), while_dragging)
    sent = answer.value.request.post_data_json
    assert sent["actor"] == "Tarl" and sent["kind"] == "move"
    assert sent["options"]["path"] == [[50 * i, 0] for i in range(1, 10)]
    outcome = last_outcome(web, bid)
    assert outcome["payload"]["stopped_by"] == "Pa-Kur"
    assert outcome["payload"]["path"][-1] == [150, 0]  # 4.5 m from the pike: its zone (SRP-15)
    assert (tarl(web, bid)["x_cm"], tarl(web, bid)["y_cm"]) == (150, 0)
    expect(page.locator("#message")).to_have_text(
        "Tarl moves to (1.5, 0) m, stopped by Pa-Kur's zone", timeout=WAIT_MS
    )
    # The map is drawn again from the new state; names stay above every zone.
    expect(page.locator("#map svg")).to_have_attribute(
        "aria-label",
        "Map: Tarl at (1.5, 0) m facing 0°; Pa-Kur at (6, 0) m facing 180°",
        timeout=WAIT_MS,
    )
    layers = page.evaluate(
        "[...document.querySelector('#map svg').children].map((n) => n.getAttribute('class'))"
    )
    assert layers[-4:] == ["zones", "bodies", "guide", "names"]
    shoot(page, "srp-map")
    clean(page)


def test_a_charge_carries_through_the_pike_and_draws_its_extra_attack(
    web: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
) -> None:
    bid, _, token = ford(web)
    page = pages()
    open_map(page, web, bid, token)
    page.select_option("#map-mode", "charge")
    with page.expect_response(lambda r: r.url.endswith("/actions")) as answer:
        drag(page, (0, 0), (4.5, 0))
    assert answer.value.status == 200, answer.value.text()
    result = answer.value.json()
    assert result["kind"] == "charge"
    assert [a["attacker"] for a in result["extra_attacks"]] == ["Pa-Kur"]
    assert len(result["rolls"]) == 1 and result["rolls"][0]["dice"] == ["d20", "d20", "d6"]
    assert result["path"][-1] == [450, 0]
    assert (tarl(web, bid)["x_cm"], tarl(web, bid)["facing"]) == (450, 0)
    line = page.locator(f"#log li.outcome[data-seq='{result['seq']}']")
    expect(line).to_be_visible(timeout=WAIT_MS)
    line.locator("summary").click()
    expect(line.locator(".explain")).to_contain_text("who gets one extra attack")
    clean(page)


def test_the_keyboard_turns_the_acting_fighter(
    web: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
) -> None:
    bid, _, token = ford(web)
    page = pages()
    open_map(page, web, bid, token)
    answer = press_on_token(page, "Tarl", "q")
    assert answer.request.post_data_json["kind"] == "face"
    assert answer.status == 200
    expect(page.locator("#map svg")).to_have_attribute(
        "aria-label",
        "Map: Tarl at (0, 0) m facing 45°; Pa-Kur at (6, 0) m facing 180°",
        timeout=WAIT_MS,
    )
    clean(page)


def test_news_from_the_bout_does_not_take_away_a_move_being_made_by_keys(
    web: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
) -> None:
    """A square added by the arrow keys stays while the bout moves on (the referee rolls; the
    page hears it and refreshes), and Enter sends the move as it was made."""
    bid, ref, token = ford(web)
    page = pages()
    open_map(page, web, bid, token)
    walked = square_left(page, "Tarl")
    assert web.post(f"/api/bouts/{bid}/rolls", ref, json={"dice": "1d6"}).status_code == 200
    events = len(web.get(f"/api/bouts/{bid}/log", token).json())
    expect(page.locator("#log > li")).to_have_count(events, timeout=WAIT_MS)  # heard
    expect(walked).to_have_text("1.5 m")
    with page.expect_request(lambda r: r.url.endswith("/actions"), timeout=WAIT_MS) as sent:
        page.keyboard.press("Enter")
    assert sent.value.post_data_json["options"]["path"] == [[-150, 0]]
    assert sent.value.response().status == 200
    clean(page)


def test_on_a_phone_the_maps_labels_are_big_enough_to_read(
    web: LiveServer,  # noqa: F811
    pages: Callable[..., Any],  # noqa: F811
) -> None:
    """At 390 px the map is drawn small: its names and the distances shown while moving are
    sized in map metres so that none is under 13 and 14 CSS pixels on screen."""
    bid, _, token = ford(web)
    page = pages(PHONE)
    open_map(page, web, bid, token)
    walked = square_left(page, "Tarl")
    expect(walked).to_have_text("1.5 m")
    sizes = page.evaluate(
        """() => [...document.querySelectorAll('#map .names .name, #map .guide .distance')]
             .map((t) => [t.classList.contains('name') ? 'name' : 'distance',
                          parseFloat(getComputedStyle(t).fontSize) *
                          document.querySelector('#map svg').getScreenCTM().a])"""
    )
    assert {kind for kind, _ in sizes} == {"name", "distance"}
    for kind, pixels in sizes:
        assert pixels >= {"name": 13, "distance": 14}[kind] - 0.01, (kind, pixels)
    page.keyboard.press("Escape")
    clean(page)

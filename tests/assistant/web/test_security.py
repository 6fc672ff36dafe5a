"""The PIN guards every change; sessions need their CSRF token; debug is off; errors are 4xx."""
from __future__ import annotations

import json

import pytest

from assistant.web import create_app, security
from tests.assistant.web.conftest import PIN, csrf_of

CHANGES = [("post", "/api/game/new"), ("post", "/api/game/roll"), ("post", "/api/game/next"),
           ("post", "/api/game/undo"), ("post", "/api/photo"), ("post", "/api/setup/system"),
           ("put", "/api/setup/house"), ("put", "/api/roster/m10"), ("delete", "/api/roster/m10"),
           ("post", "/api/live")]


@pytest.mark.parametrize("method, path", CHANGES)
def test_change_without_pin_is_401(client, method, path):
    res = getattr(client, method)(path, json={})
    assert res.status_code == 401
    assert "PIN" in res.get_json()["error"]


@pytest.mark.parametrize("method, path", CHANGES)
def test_change_with_wrong_pin_is_403(client, method, path):
    res = getattr(client, method)(path, json={}, headers={"X-Table-PIN": "0000"})
    assert res.status_code == 403
    assert "wrong PIN" in res.get_json()["error"]


def test_viewing_needs_no_pin(client):
    for path in ("/api/scene", "/api/status", "/api/targets", "/api/los?a=m10&b=m11", "/api/game",
                 "/api/systems", "/api/roster", "/api/frame.jpg"):
        assert client.get(path).status_code == 200, path


def test_joined_session_may_change_with_its_csrf_token(joined):
    c, token = joined
    res = c.put("/api/roster/m10", json={"name": "Robin Hood"}, headers={"X-CSRF-Token": token})
    assert res.status_code == 200
    names = {f["id"]: f["name"] for f in c.get("/api/roster").get_json()["figures"]}
    assert names["m10"] == "Robin Hood"


def test_joined_session_without_csrf_token_is_403(joined):
    c, _ = joined
    res = c.put("/api/roster/m10", json={"name": "Mallory"})
    assert res.status_code == 403 and "CSRF" in res.get_json()["error"]
    res = c.put("/api/roster/m10", json={"name": "Mallory"}, headers={"X-CSRF-Token": "forged"})
    assert res.status_code == 403


def test_join_form_needs_its_token_and_the_right_pin(client):
    token = csrf_of(client.get("/join").data)
    assert client.post("/join", data={"pin": PIN}).status_code == 403                  # no token
    res = client.post("/join", data={"pin": "1111", "csrf_token": token})
    assert res.status_code == 403 and b"wrong PIN" in res.data
    assert client.post("/api/game/new", headers={"X-CSRF-Token": token}).status_code == 401


def test_join_never_redirects_off_site(client):
    token = csrf_of(client.get("/join").data)
    for target in ("https://evil.example/", "//evil.example/", "/\\evil.example"):
        res = client.post("/join", data={"pin": PIN, "csrf_token": token, "next": target})
        assert res.status_code == 302 and res.headers["Location"] == "/"


OFF_SITE = ["https://evil.example/", "//evil.example/", "/\\evil.example", "/\t/evil.example", "/\n/evil.example",
            "/\r/evil.example", " //evil.example", "\\\\evil.example", "\\/evil.example", "/%2F/evil.example",
            "%2F%2Fevil.example", "/%5Cevil.example", "/%09/evil.example", "/%252F/evil.example",
            "javascript:alert(1)", "JaVaScRiPt:alert(1)", "data:text/html,x", "http:evil.example",
            "https:/evil.example", "/\x00/evil.example", "/\u3000/evil.example", "///evil.example",
            "evil.example", "", "/" + "a" * 600]


@pytest.mark.parametrize("target", OFF_SITE)
def test_next_that_could_leave_the_site_goes_home(client, target):
    """`/join?next=%2F%09%2Fevil.example` once redirected to `//evil.example` (a browser drops the tab)."""
    token = csrf_of(client.get("/join").data)
    res = client.post("/join", data={"pin": PIN, "csrf_token": token, "next": target})
    assert res.status_code == 302 and res.headers["Location"] == "/"
    assert security.same_site_path(target, "/") == "/"


@pytest.mark.parametrize("target", ["/play/", "/referee/?a=m10&b=m11", "/setup/#roster", "/table/%C3%A9"])
def test_next_on_this_site_is_kept(client, target):
    token = csrf_of(client.get("/join").data)
    res = client.post("/join", data={"pin": PIN, "csrf_token": token, "next": target})
    assert res.status_code == 302 and res.headers["Location"] == target


def test_join_page_keeps_only_a_same_site_next(client):
    assert b"evil.example" not in client.get("/join?next=%2F%09%2Fevil.example").data


def test_leave_ends_the_session(joined):
    c, token = joined
    assert c.post("/leave", data={"csrf_token": token}).status_code == 302
    assert c.put("/api/roster/m10", json={"name": "x"}, headers={"X-CSRF-Token": token}).status_code == 401


def _cookie_payload(client) -> dict:
    """What anyone holding the cookie can read: Flask signs the session, it does not encrypt it."""
    import base64, json, zlib
    value = client.get_cookie("session").value
    compressed = value.startswith(".")
    body = value.lstrip(".").split(".")[0]
    raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
    return json.loads(zlib.decompress(raw) if compressed else raw)


def _joined_client(tmp_path, pin):
    app = create_app({"DEMO": True, "INSTANCE_PATH": str(tmp_path), "SECRET_KEY": "same", "TABLE_PIN": pin})
    c = app.test_client()
    token = csrf_of(c.get("/join").data)
    assert c.post("/join", data={"pin": pin, "csrf_token": token}).status_code == 302
    return c


def test_the_cookie_says_nothing_about_the_pin(tmp_path):
    """The cookie once carried a digest of the PIN: all 10,000 PINs tried offline gave it back at once."""
    import hashlib
    payload = _cookie_payload(_joined_client(tmp_path / "a", "4321"))
    text = json.dumps(payload)
    for guess in (f"{n:04d}" for n in range(10_000)):
        for digest in (hashlib.sha256(("tablesight-pin:" + guess).encode()).hexdigest(),
                       hashlib.sha256(guess.encode()).hexdigest()):
            assert digest[:16] not in text
    assert "4321" not in text
    # The same PIN on two tables gives unrelated tokens: the cookie is no function of the PIN.
    other = _cookie_payload(_joined_client(tmp_path / "b", "4321"))
    assert set(other) == set(payload)
    assert all(other[k] != payload[k] for k in payload if isinstance(payload[k], str))
    assert "joined" in payload


def test_a_restart_with_the_same_pin_keeps_tablets_joined(tmp_path):
    config = {"DEMO": True, "INSTANCE_PATH": str(tmp_path), "SECRET_KEY": "same", "TABLE_PIN": "1357"}
    first = create_app(config).test_client()
    token = csrf_of(first.get("/join").data)
    first.post("/join", data={"pin": "1357", "csrf_token": token})
    c = create_app(config).test_client()
    c.set_cookie("session", first.get_cookie("session").value)
    assert c.put("/api/roster/m10", json={"name": "x"}, headers={"X-CSRF-Token": token}).status_code == 200


def test_a_new_pin_ends_old_sessions(tmp_path):
    config = {"DEMO": True, "INSTANCE_PATH": str(tmp_path), "SECRET_KEY": "same", "TABLE_PIN": "1357"}
    first = create_app(config).test_client()
    token = csrf_of(first.get("/join").data)
    first.post("/join", data={"pin": "1357", "csrf_token": token})
    second = create_app({**config, "TABLE_PIN": "9753"})
    c = second.test_client()
    cookie = first.get_cookie("session")
    c.set_cookie("session", cookie.value)
    assert c.put("/api/roster/m10", json={"name": "x"}, headers={"X-CSRF-Token": token}).status_code == 401


def _from(address: str) -> dict:
    return {"environ_base": {"REMOTE_ADDR": address}}


def test_wrong_pins_hold_back_only_the_tablet_that_guessed(client):
    """Ten wrong guesses from one tablet once kept every new tablet out for five minutes."""
    for _ in range(10):
        res = client.post("/api/game/undo", headers={"X-Table-PIN": "9999"}, **_from("10.0.0.66"))
        assert res.status_code in (403, 429)
    res = client.post("/api/game/undo", headers={"X-Table-PIN": PIN}, **_from("10.0.0.66"))
    assert res.status_code == 429 and "wait" in res.get_json()["error"]
    # A new tablet with the right PIN gets straight in, through the header or the Join page.
    assert client.post("/api/game/undo", headers={"X-Table-PIN": PIN}, **_from("10.0.0.7")).status_code != 429
    token = csrf_of(client.get("/join", **_from("10.0.0.8")).data)
    res = client.post("/join", data={"pin": PIN, "csrf_token": token}, **_from("10.0.0.8"))
    assert res.status_code == 302


def test_a_new_tablet_on_the_guessers_address_still_joins(app):
    """On one address (a shared network, or loopback) the guesser's waits do not keep a new tablet out."""
    guesser = app.test_client()
    for _ in range(10):
        assert guesser.post("/api/game/undo", headers={"X-Table-PIN": "9999"}).status_code in (403, 429)
    assert guesser.post("/api/game/undo", headers={"X-Table-PIN": PIN}).status_code == 429
    tablet = app.test_client()
    token = csrf_of(tablet.get("/join").data)
    res = tablet.post("/join", data={"pin": PIN, "csrf_token": token})
    assert res.status_code == 302


def test_fresh_sessions_do_not_buy_a_guesser_more_tries():
    now = [0.0]
    failures = security.Failures(clock=lambda: now[0])
    for i in range(failures.ADDRESS_BUDGET):
        assert failures.wait_s(f"session:{i}", "10.0.0.66") == 0.0
        failures.add(f"session:{i}", "10.0.0.66")
    assert failures.wait_s("session:new", "10.0.0.66") > 0              # the address is out of tries
    assert failures.wait_s("session:other", "10.0.0.7") == 0.0          # another address is not
    now[0] += failures.ADDRESS_WINDOW_S
    assert failures.wait_s("session:new", "10.0.0.66") == 0.0          # and the wait ends


def test_back_off_grows_per_client_and_always_ends():
    now = [0.0]
    failures = security.Failures(clock=lambda: now[0])
    waits = []
    for _ in range(12):
        failures.add("a")
        waits.append(failures.wait_s("a"))
    assert waits[:2] == [0.0, 0.0] and waits[2] == failures.FIRST_WAIT_S
    assert all(later >= earlier for earlier, later in zip(waits, waits[1:]))
    assert max(waits) == failures.MAX_WAIT_S                 # never a lock-out, at most a minute
    assert failures.wait_s("b") == 0.0
    now[0] += failures.MAX_WAIT_S
    assert failures.wait_s("a") == 0.0                      # the guesser's own wait ends too
    failures.clear("a")
    failures.add("a")
    assert failures.wait_s("a") == 0.0                      # the right PIN starts the count afresh


def test_a_guesser_at_it_all_day_still_waits_at_most_a_minute():
    now = [0.0]
    failures = security.Failures(clock=lambda: now[0])
    for _ in range(5000):
        failures.add("a")
        now[0] += 1.0
    assert failures.wait_s("a") == failures.MAX_WAIT_S - 1.0


def test_the_table_of_guessers_is_bounded():
    failures = security.Failures()
    for i in range(failures.MAX_CLIENTS + 100):
        failures.add(f"c{i}")
    assert len(failures._clients) == failures.MAX_CLIENTS


def test_debug_is_off_whatever_the_config(tmp_path):
    app = create_app({"DEMO": True, "INSTANCE_PATH": str(tmp_path), "DEBUG": True})
    assert app.debug is False


def test_generated_pin_is_four_digits(tmp_path):
    app = create_app({"DEMO": True, "INSTANCE_PATH": str(tmp_path)})
    assert len(app.config["TABLE_PIN"]) == 4 and app.config["TABLE_PIN"].isdigit()


def test_secret_key_is_kept_in_the_instance_folder(tmp_path):
    a = create_app({"DEMO": True, "INSTANCE_PATH": str(tmp_path)})
    b = create_app({"DEMO": True, "INSTANCE_PATH": str(tmp_path)})
    assert a.config["SECRET_KEY"] == b.config["SECRET_KEY"] and len(a.config["SECRET_KEY"]) >= 32


def test_wrong_method_is_405_json(client):
    res = client.get("/api/photo")
    assert res.status_code == 405 and "error" in res.get_json()


def test_no_table_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="no table profile"):
        create_app({"INSTANCE_PATH": str(tmp_path)})


def test_unknown_system_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="unknown rule system"):
        create_app({"DEMO": True, "INSTANCE_PATH": str(tmp_path), "SYSTEM": "chess"})


@pytest.mark.parametrize("sent", ["é", "\u3000", "token\x00", "🙂" * 10])
def test_a_csrf_token_or_pin_in_any_letters_is_a_plain_refusal(client, sent):
    """hmac.compare_digest refuses non-ASCII text: a join form with 'é' as its token was a 500."""
    client.get("/join")
    assert client.post("/join", data={"pin": PIN, "csrf_token": sent}).status_code == 403
    assert client.post("/join", data={"pin": sent, "csrf_token": sent}).status_code == 403
    assert client.post("/leave", data={"csrf_token": sent}).status_code == 403
    assert client.post("/api/game/undo", headers={"X-Table-PIN": sent.encode("utf-8").decode("latin-1")}).status_code == 403

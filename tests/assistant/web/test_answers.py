"""Answers are computed once per table state, whatever the number of tablets asking, and never stale."""
from __future__ import annotations

import threading

from assistant.web.answers import Answers

READS = ("/api/scene", "/api/targets", "/api/game", "/api/status", "/api/targets?shooter=m11",
         "/api/los?a=m10&b=m20")


def test_ten_tablets_cost_one_computation_per_answer(app, client):
    answers = app.extensions["tablesight"].setdefault("answers", Answers())
    first = {p: client.get(p).get_data() for p in READS}
    before = answers.computed
    for _ in range(10):
        assert {p: client.get(p).get_data() for p in READS} == first
    assert answers.computed == before


def test_every_change_gives_fresh_answers(app, client, pin):
    old = client.get("/api/scene").get_json()
    assert client.put("/api/roster/m10", json={"name": "Robin of the Hood"}, headers=pin).status_code == 200
    new = client.get("/api/scene").get_json()
    assert new["version"] > old["version"]
    assert {f["name"] for f in new["scene"]["figures"]} >= {"Robin of the Hood"}
    client.post("/api/game/new", headers=pin)
    assert client.get("/api/game").get_json()["kind"] != "start"


def test_a_game_log_changed_behind_the_api_is_seen(app, client, pin):
    client.post("/api/game/new", headers=pin)
    before = client.get("/api/game").get_json()
    path = app.extensions["tablesight"]["games"].current_path()
    path.unlink()
    for extra in path.parent.glob(path.name + "-*"):
        extra.unlink()
    assert before["kind"] != "start" and client.get("/api/game").get_json()["kind"] == "start"


def test_tablets_asking_at_once_wait_for_one_computation():
    answers = Answers()
    started = threading.Event()
    release = threading.Event()
    calls = []

    def slow():
        calls.append(1)
        started.set()
        release.wait(5)
        return {"x": 1}

    from flask import Flask
    app = Flask(__name__)
    bodies = []

    def ask():
        with app.app_context():
            bodies.append(answers.json(("v", 1), "q", slow).get_data())

    threads = [threading.Thread(target=ask) for _ in range(10)]
    threads[0].start()
    started.wait(5)
    for t in threads[1:]:
        t.start()
    release.set()
    for t in threads:
        t.join(5)
    assert len(calls) == 1 and bodies == [b'{"x":1}'] * 10


def test_errors_are_not_kept_and_old_states_are_dropped():
    answers = Answers(max_answers=3)
    from flask import Flask
    with Flask(__name__).app_context():
        fails = [True]

        def flaky():
            if fails[0]:
                raise ValueError("not yet")
            return 1
        try:
            answers.json(1, "q", flaky)
        except ValueError:
            pass
        fails[0] = False
        assert answers.json(1, "q", flaky).get_data() == b"1"
        for i in range(10):
            answers.json(1, i, lambda: 2)
        assert len(answers._answers) == 3
        answers.json(2, "q", lambda: 3)
        assert list(answers._answers) == ["q"]


def test_long_queries_are_answered_but_not_kept(app, client):
    answers = app.extensions["tablesight"].setdefault("answers", Answers())
    width = "1." + "0" * 5000 + "1"
    for _ in range(3):
        assert client.get(f"/api/los?a=m10&b=m20&width={width}").status_code == 200
    assert all(len(repr(q)) < 300 for q in answers._answers)


def test_a_new_picture_has_its_answers_ready_before_tablets_hear_of_it(app, client):
    import cv2
    from assistant.demo import DEMO_PHOTO
    table = app.extensions["tablesight"]["table"]
    heard = []
    real_notify = table._cond.notify_all

    def notify_all():
        answers = app.extensions["tablesight"]["answers"]
        heard.append(answers.computed)
        real_notify()
    table._cond.notify_all = notify_all
    version, _ = table.analyze(cv2.imread(str(DEMO_PHOTO)), source="photo")
    answers = app.extensions["tablesight"]["answers"]
    assert heard and heard[-1] == answers.computed              # computed before the streams were woken
    before = answers.computed
    for path in ("/api/scene", "/api/targets", "/api/game", "/api/status"):
        assert client.get(path).status_code == 200
    assert answers.computed == before                           # every tablet finds them ready
    assert client.get("/api/scene").get_json()["version"] == version

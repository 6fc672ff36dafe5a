"""`tablesight serve`: bad options end in one line and exit 2; a good start prints the address and PIN."""
from __future__ import annotations

import pytest

from assistant.cli import main
from assistant.cli import serve


@pytest.mark.parametrize("argv, words", [
    (["serve"], "give --table"),
    (["serve", "--demo", "--port", "70000"], "--port"),
    (["serve", "--demo", "--pin", "12"], "--pin"),
    (["serve", "--demo", "--threads", "1"], "--threads"),
    (["serve", "--table", "no/such/table.toml"], "no such table profile"),
    (["serve", "--demo", "--system", "chess"], "unknown rule system"),
])
def test_bad_options_exit_2_with_one_line(argv, words, capsys, tmp_path):
    assert main(argv + ["--instance", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tablesight: error:") and words in err and err.count("\n") == 1


def test_demo_start_prints_address_and_pin(monkeypatch, capsys, tmp_path):
    calls = {}
    monkeypatch.setattr("waitress.serve", lambda app, **kw: calls.update(app=app, **kw))
    assert main(["serve", "--demo", "--port", "8123", "--pin", "4321", "--instance", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "http://127.0.0.1:8123/" in out and "join PIN: 4321" in out and "--host 0.0.0.0" in out
    assert calls["port"] == 8123 and calls["host"] == "127.0.0.1" and calls["threads"] >= 8
    assert calls["app"].config["TABLE_PIN"] == "4321" and calls["app"].debug is False
    assert calls["channel_request_lookahead"] >= 1          # closed tablets free their stream at once
    assert 0 < calls["app"].config["LIVE_MAX_STREAMS"] <= calls["threads"] - 4  # pages keep the rest
    assert calls["connection_limit"] >= 200                 # forty tablets, a few connections each


def test_lan_host_prints_a_reachable_address(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr("waitress.serve", lambda app, **kw: None)
    monkeypatch.setattr(serve, "lan_address", lambda: "192.168.1.20")
    assert main(["serve", "--demo", "--host", "0.0.0.0", "--instance", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "http://192.168.1.20:8080/" in out
    pin = out.split("join PIN: ")[1].strip()
    assert len(pin) == 4 and pin.isdigit()


def test_calibration_file_is_used_to_undistort(monkeypatch, tmp_path):
    import numpy as np
    from calibration.intrinsics import CameraModel

    camera_file = tmp_path / "camera.json"
    CameraModel(camera_matrix=np.array([[1500.0, 0, 959.5], [0, 1500.0, 539.5], [0, 0, 1]]),
                dist=np.zeros(5), image_size=(1920, 1080), rms_px=0.3).save(camera_file)
    calls = {}
    monkeypatch.setattr("waitress.serve", lambda app, **kw: calls.update(app=app))
    assert main(["serve", "--demo", "--calibration", str(camera_file), "--instance", str(tmp_path / "i")]) == 0
    pipeline = calls["app"].extensions["tablesight"]["table"].pipeline
    assert pipeline.camera is not None and pipeline.camera.fx == 1500.0


def test_corrupt_calibration_file_is_one_line(tmp_path, capsys):
    bad = tmp_path / "camera.json"
    bad.write_text("{not json")
    assert main(["serve", "--demo", "--calibration", str(bad), "--instance", str(tmp_path / "i")]) == 2
    err = capsys.readouterr().err
    assert "camera.json" in err and err.count("\n") == 1


def test_the_server_gives_frames_back_and_its_pipelines_keep_to_that():
    # In a fresh process (a malloc policy is chosen once a process): serve's, then a pipeline's.
    import subprocess
    import sys
    code = ("import sys; from vision import heap; from vision.pipeline import FramePipeline; "
            "import tomllib; from calibration.profile import profile_from_dict; "
            "from vision.synthetic.demo import demo_profile_toml; "
            "profile = profile_from_dict(tomllib.loads(demo_profile_toml())); "
            "chosen = heap.give_back_freed_memory(); FramePipeline(profile); "
            "print(chosen, heap.policy() == heap.GIVE_BACK, heap.keep_freed_memory())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    on_linux = str(sys.platform.startswith("linux"))
    assert out == [on_linux, on_linux, "False"]

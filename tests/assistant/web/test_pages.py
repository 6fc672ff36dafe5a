"""Every page answers, carries no internet asset, and links only files the package serves."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

import assistant.web

WEB = Path(assistant.web.__file__).parent
PAGES = {"/": "What shall we do?", "/play/": 'id="prompt"', "/referee/": 'id="los-result"',
         "/table/": 'id="photo-input"', "/live/": "Live camera", "/setup/": 'id="roster"', "/join": 'name="pin"'}


@pytest.mark.parametrize("path, marker", PAGES.items())
def test_page_renders(client, path, marker):
    res = client.get(path)
    assert res.status_code == 200
    assert res.mimetype == "text/html"
    assert marker in res.get_data(as_text=True)


@pytest.mark.parametrize("path", PAGES)
def test_page_assets_are_local_and_exist(client, path):
    html = client.get(path).get_data(as_text=True)
    refs = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert refs
    for ref in refs:
        assert not ref.startswith(("http:", "https:", "//")), f"{path} loads {ref} from elsewhere"
        if ref.startswith("/static/"):
            with client.get(ref) as res:
                assert res.status_code == 200, ref


def test_no_internet_urls_in_static_files():
    for f in list((WEB / "static").iterdir()) + list((WEB / "templates").iterdir()):
        text = f.read_text(encoding="utf-8")
        urls = set(re.findall(r"https?://[^\s\"')]+", text)) - {"http://www.w3.org/2000/svg"}
        assert not urls, f"{f.name} refers to {urls}"


def test_photo_input_uses_the_tablet_camera(client):
    html = client.get("/table/").get_data(as_text=True)
    assert re.search(r'<input type="file" name="photo"[^>]*accept="image/\*"[^>]*capture="environment"', html)


def test_join_link_when_not_joined_and_badge_when_joined(client, joined):
    c, _ = joined
    assert "Joined" in c.get("/").get_data(as_text=True)


def test_not_joined_page_offers_join(app):
    html = app.test_client().get("/play/").get_data(as_text=True)
    assert 'href="/join?next=/play/"' in html and 'data-joined="no"' in html


def test_unknown_page_is_404_page_and_api_404_is_json(client):
    res = client.get("/nowhere")
    assert res.status_code == 404 and res.mimetype == "text/html" and "no such page" in res.get_data(as_text=True)
    res = client.get("/api/nowhere")
    assert res.status_code == 404 and res.get_json()["error"] == "no such page"

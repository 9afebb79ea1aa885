"""The token visualizer page in a real headless browser: Debian's Chromium driven by Playwright.

The test setup installs what it can: Playwright comes with the test extras (PyPI); Chromium is
Debian's package (`apt-get install chromium`), installed here when missing and the tests run as
root with apt-get at hand (TOKENFORGE_NO_BROWSER_INSTALL=1 turns that off). Without a browser the
tests skip, saying what to install. Screenshots go to test-artifacts/visualizer/.

Checked: the page renders the right token counts and ids for known texts on two tokenizers,
side by side; whitespace markers; the link in the address bar reproduces the view in a fresh
page; markup in the text stays text (nothing injected or run); hover details; 100 KB of text.
"""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
import threading
import zlib
from collections.abc import Iterator
from typing import Any

import pytest

import tokenforge
from conftest import REPO, corpus_files, read_sample
from tokenforge.server import TokenizerSet, make_server
from tokenforge.visualize import token_view

ARTIFACTS = REPO / "test-artifacts" / "visualizer"
BROWSERS = ("chromium", "chromium-browser", "google-chrome")


def _find_browser() -> str | None:
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


def _install_browser() -> str | None:
    """Debian's chromium, installed by apt-get where the tests may (root, apt-get present)."""
    if os.environ.get("TOKENFORGE_NO_BROWSER_INSTALL") or not hasattr(os, "geteuid") or os.geteuid() != 0:
        return None
    if not shutil.which("apt-get"):
        return None
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for command in (["apt-get", "install", "-y", "-q", "chromium"], ["apt-get", "update", "-q"]):
        subprocess.run(command, capture_output=True, timeout=900, check=False, env=env)
        if _find_browser():
            return _find_browser()
    subprocess.run(
        ["apt-get", "install", "-y", "-q", "chromium"], capture_output=True, timeout=900, check=False, env=env
    )
    return _find_browser()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is missing: pip install playwright")
    path = _find_browser() or _install_browser()
    if path is None:
        pytest.skip("no Chromium to drive: install Debian's package (apt-get install chromium) and rerun")
    with sync_api.sync_playwright() as p:
        try:
            launched = p.chromium.launch(executable_path=path, args=["--no-sandbox", "--disable-gpu"])
        except Exception as e:  # noqa: BLE001 - a browser that will not start is a skip, with why
            pytest.skip(f"{path} would not start under Playwright: {e}")
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    server = make_server(TokenizerSet(), port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    host, port = server.server_address[:2]
    yield f"http://{host}:{port}/"
    server.shutdown()
    server.server_close()


@pytest.fixture
def page(browser, request) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    yield page
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{request.node.name}.png"), full_page=True)
    context.close()
    assert not errors, errors


def link(base: str, names: list[str], text: str, special: bool = False) -> str:
    """The page's own link format: #t=names&z=base64url(deflate-raw(utf-8 text))."""
    packed = zlib.compressobj(9, zlib.DEFLATED, -15)
    data = packed.compress(text.encode("utf-8")) + packed.flush()
    z = base64.urlsafe_b64encode(data).decode().rstrip("=")
    return f"{base}#t={','.join(names)}{'&sp=1' if special else ''}&z={z}"


def rendered(page: Any, views: int, timeout: float = 60_000) -> None:
    page.wait_for_function(
        "n => document.getElementById('views').dataset.rendered && document.querySelectorAll('.view').length === n",
        arg=views,
        timeout=timeout,
    )


def view_ids(page: Any, name: str) -> list[int]:
    return page.eval_on_selector_all(f'.view[data-name="{name}"] .tok', "spans => spans.map(s => Number(s.dataset.id))")


TEXT = "Hello world! The tokenizer splits   this: 日本語, code(x) and 1234567.\n\tindented"


def test_counts_and_ids_for_two_tokenizers_side_by_side(page, base_url):
    page.goto(link(base_url, ["cl100k_base", "o200k_base"], TEXT))
    rendered(page, 2)
    for name in ("cl100k_base", "o200k_base"):
        ids = tokenforge.get_encoding(name).encode_ordinary(TEXT)
        assert view_ids(page, name) == ids
        count = page.get_attribute(f'.view[data-name="{name}"]', "data-count")
        assert count == str(len(ids))
        stats = page.text_content(f'.view[data-name="{name}"] .stats')
        assert stats.startswith(f"{len(ids)} tokens · {len(TEXT)} chars · {len(TEXT.encode())} bytes")
    first, second = (
        page.query_selector(f'.view[data-name="{n}"]').bounding_box() for n in ("cl100k_base", "o200k_base")
    )
    assert second["x"] > first["x"] + first["width"] - 1 and abs(second["y"] - first["y"]) < 2  # side by side


def test_a_tokenizer_file_with_gaps_and_specials(page, base_url):
    page.goto(link(base_url, ["bert-base-uncased"], "Hello  [CLS] WORLD", special=True))
    rendered(page, 1)
    bert = tokenforge.get_tokenizer("bert-base-uncased")
    assert view_ids(page, "bert-base-uncased") == bert.encode("Hello  [CLS] WORLD", add_special_tokens=False).ids
    assert page.eval_on_selector_all(".tok.special", "s => s.map(x => x.dataset.id)") == ["101"]


def test_whitespace_and_partial_bytes_are_visible(page, base_url):
    page.goto(link(base_url, ["cl100k_base"], "a  b\tc\nd 語"))
    rendered(page, 1)
    markers = "".join(page.eval_on_selector_all(".ws", "s => s.map(x => x.textContent)"))
    assert "··" in markers and "→" in markers and "↵" in markers
    view = token_view(tokenforge.get_encoding("cl100k_base"), "a  b\tc\nd 語")
    partial = [value for item in view.items for kind, value in item["parts"] if kind == "b"]
    assert len(partial) >= 2  # "語" is split into bytes
    assert page.eval_on_selector_all(".bytes", "s => s.map(x => x.textContent)") == partial
    page.uncheck("#whitespace")
    rendered(page, 1)
    assert page.query_selector_all(".ws") == []


def test_the_link_reproduces_the_view(page, browser, base_url):
    page.goto(base_url)
    rendered(page, 2)
    page.select_option("#pick", ["o200k_base", "p50k_base", "bert-base-uncased"])
    text = "Share me: 👍🏽 naïve café, <|endoftext|>  done"
    page.fill("#text", text)
    page.check("#special")
    page.wait_for_function(
        "t => document.getElementById('text').value === t && location.hash.includes('sp=1')", arg=text
    )
    rendered(page, 3)
    page.wait_for_timeout(300)
    url = page.url
    other = browser.new_context().new_page()
    try:
        other.goto(url)
        rendered(other, 3)
        assert other.input_value("#text") == text
        assert other.eval_on_selector_all("#pick option:checked", "o => o.map(x => x.value)") == [
            "p50k_base",
            "o200k_base",
            "bert-base-uncased",
        ]
        assert other.is_checked("#special")
        for name in ("o200k_base", "p50k_base", "bert-base-uncased"):
            assert view_ids(other, name) == view_ids(page, name)
        enc = tokenforge.get_encoding("o200k_base")
        assert view_ids(other, "o200k_base") == enc.encode(text, allowed_special="all")
    finally:
        other.context.close()


def test_markup_in_the_text_stays_text(page, base_url):
    evil = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script><b>bold</b>'
    page.goto(link(base_url, ["cl100k_base"], evil))
    rendered(page, 1)
    assert page.query_selector_all("#views img, #views script, #views b") == []
    assert page.evaluate("window.__pwned") is None
    assert page.text_content(".tokens").replace("\u00b7", " ") == evil  # spaces shown as middle dots
    assert page.input_value("#text") == evil


def test_hover_shows_the_token(page, base_url):
    page.goto(link(base_url, ["cl100k_base"], "hello world"))
    rendered(page, 1)
    page.hover('.tok[data-i="1"]')
    tip = page.text_content("#tip")
    assert "id 1917" in tip and "bytes 20 77 6F 72 6C 64" in tip


def test_100_kb_of_text(page, base_url):
    text = "".join(read_sample(p, 40_000) for p in corpus_files())[:100_000]
    page.goto(link(base_url, ["cl100k_base", "o200k_base"], text))
    rendered(page, 2, timeout=120_000)
    for name in ("cl100k_base", "o200k_base"):
        ids = tokenforge.get_encoding(name).encode_ordinary(text)
        assert page.eval_on_selector_all(f'.view[data-name="{name}"] .tok', "s => s.length") == len(ids)

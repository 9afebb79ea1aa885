"""The token visualizer's data and server (tokenforge.visualize, tokenforge.server, `tokenforge
serve`): the token views spell the text exactly and carry the tokenizer's ids; the server
answers only local requests, only JSON calls, and reports every bad request as a clear error.
The page itself, in a real browser, is tests/test_visualizer_browser.py."""

from __future__ import annotations

import http.client
import json
import re
import subprocess
import sys
import threading
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tokenforge
from conftest import corpus_files, read_sample
from tokenforge.server import MAX_TEXT_BYTES, TokenizerSet, make_server
from tokenforge.visualize import spelled, token_view

SAMPLES = [read_sample(p, 3_000) for p in corpus_files()]
EDGE = ["", " ", "a  b\t\n\r\nc", "日本語 👍🏽 e\u0301", "<|endoftext|> [CLS] x", "\x00\x7f\u2028"]


def _tokenizer(name: str) -> object:
    if name == "bert":
        return tokenforge.get_tokenizer("bert-base-uncased")
    if name == "gpt2-tokenizer":
        return tokenforge.Tokenizer(tokenforge.get_encoding("gpt2"))
    return tokenforge.get_encoding(name)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base", "bert", "gpt2-tokenizer"])
def test_views_spell_the_text_and_carry_the_ids(name):
    tok = _tokenizer(name)
    for text in SAMPLES + EDGE:
        view = token_view(tok, text)
        assert spelled(view) == text.encode("utf-8")
        ids = [item["id"] for item in view.items if "gap" not in item]
        if isinstance(tok, tokenforge.Encoding):
            expected = tok.encode_ordinary(text)
        else:
            expected = tok.encode(text, add_special_tokens=False, allowed_special=set(), disallowed_special=set()).ids
        assert ids == expected
        assert view.count == len(ids) and view.chars == len(text) and view.bytes == len(text.encode())


@settings(max_examples=80, deadline=None)
@given(st.text(max_size=40))
def test_views_spell_any_text(text):
    for tok in (tokenforge.get_encoding("cl100k_base"), tokenforge.get_tokenizer("bert-base-uncased")):
        assert spelled(token_view(tok, text)) == text.encode("utf-8")


def test_partial_characters_show_as_bytes():
    enc = tokenforge.get_encoding("cl100k_base")
    view = token_view(enc, "語")  # cl100k splits it: E8 AA + 9E
    kinds = [part[0] for item in view.items for part in item["parts"]]
    assert "b" in kinds and spelled(view) == "語".encode()


def test_special_token_policy():
    enc = tokenforge.get_encoding("cl100k_base")
    as_text = token_view(enc, "<|endoftext|>")
    matched = token_view(enc, "<|endoftext|>", special="match")
    assert as_text.count > 1 and not any(i.get("special") for i in as_text.items)
    assert matched.count == 1 and matched.items[0]["special"] and matched.items[0]["id"] == enc.eot_token
    bert = tokenforge.get_tokenizer("bert-base-uncased")
    assert [i["id"] for i in token_view(bert, "[CLS]", special="match").items] == [101]
    assert 101 not in [i.get("id") for i in token_view(bert, "[CLS]").items]
    with pytest.raises(ValueError, match="special"):
        token_view(enc, "x", special="all")
    with pytest.raises(TypeError, match="str"):
        token_view(enc, b"x")  # type: ignore[arg-type]


# -- the server --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, int]]:
    srv = make_server(TokenizerSet(), port=0)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv.server_address[:2]
    srv.shutdown()
    srv.server_close()


def _call(
    server: tuple[str, int], method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection(*server, timeout=30)
    conn.request(method, path, body=body, headers=headers or {})
    response = conn.getresponse()
    data = response.read()
    conn.close()
    return response.status, dict(response.getheaders()), data


def _encode(server, payload, headers=None) -> tuple[int, dict]:
    status, _, data = _call(
        server,
        "POST",
        "/api/encode",
        json.dumps(payload).encode(),
        {"Content-Type": "application/json", **(headers or {})},
    )
    return status, json.loads(data)


def test_page_and_assets_are_served(server):
    status, headers, page = _call(server, "GET", "/")
    assert status == 200 and headers["Content-Type"].startswith("text/html") and b"/static/app.js" in page
    assert "script-src 'self'" in headers["Content-Security-Policy"]
    for name, kind in (("app.js", "text/javascript"), ("style.css", "text/css")):
        status, headers, body = _call(server, "GET", f"/static/{name}")
        assert status == 200 and headers["Content-Type"].startswith(kind) and body
    assert b"http://" not in page and b"https://" not in page  # nothing from a CDN
    assert _call(server, "GET", "/static/../__init__.py")[0] == 404
    assert _call(server, "GET", "/nothing")[0] == 404


def test_encode_call_equals_the_library(server):
    listing = json.loads(_call(server, "GET", "/api/tokenizers")[2])
    assert "cl100k_base" in listing["tokenizers"] and listing["default"] == ["cl100k_base", "o200k_base"]
    text = SAMPLES[0][:2000] + " 日本語 <|endoftext|>"
    status, answer = _encode(server, {"text": text, "tokenizers": ["cl100k_base", "bert-base-uncased"]})
    assert status == 200
    cl100k, bert = answer["results"]
    assert cl100k["name"] == "cl100k_base" and cl100k["count"] == len(
        tokenforge.get_encoding("cl100k_base").encode_ordinary(text)
    )
    assert cl100k == json.loads(
        json.dumps(token_view(tokenforge.get_encoding("cl100k_base"), text, name="cl100k_base").as_json())
    )
    assert bert["count"] == token_view(tokenforge.get_tokenizer("bert-base-uncased"), text).count
    status, answer = _encode(server, {"text": "<|endoftext|>", "tokenizers": ["cl100k_base"], "special": "match"})
    assert answer["results"][0]["count"] == 1


@pytest.mark.parametrize(
    ("payload", "status", "message"),
    [
        ({"text": 1, "tokenizers": ["cl100k_base"]}, 400, "text"),
        ({"text": "x", "tokenizers": []}, 400, "tokenizers"),
        ({"text": "x", "tokenizers": ["nope"]}, 404, "nope"),
        ({"text": "x", "tokenizers": ["cl100k_base"], "special": "all"}, 400, "special"),
        ([1, 2], 400, "text"),
        ({"text": "x" * (MAX_TEXT_BYTES + 1), "tokenizers": ["cl100k_base"]}, 413, "too large"),
    ],
)
def test_bad_requests_are_clear_errors(server, payload, status, message):
    got, answer = _encode(server, payload)
    assert got == status and message in answer["error"]


def test_only_json_local_same_origin_requests(server):
    form = _call(server, "POST", "/api/encode", b"text=x", {"Content-Type": "application/x-www-form-urlencoded"})
    assert form[0] == 415
    status, _, body = _call(server, "GET", "/", headers={"Host": "attacker.example"})
    assert status == 403 and b"not this machine" in body
    status, _ = _encode(server, {"text": "x", "tokenizers": ["cl100k_base"]}, {"Origin": "http://attacker.example"})
    assert status == 403
    host = f"{server[0]}:{server[1]}"
    assert _encode(server, {"text": "x", "tokenizers": ["cl100k_base"]}, {"Origin": f"http://{host}"})[0] == 200
    bad = _call(server, "POST", "/api/encode", b"{not json", {"Content-Type": "application/json"})
    assert bad[0] == 400


def test_lone_surrogates_and_markup_are_text(server):
    status, answer = _encode(server, {"text": "a\ud800b <img src=x onerror=alert(1)>", "tokenizers": ["o200k_base"]})
    assert status == 200
    spelled_text = b"".join(
        p[1].encode() if p[0] == "t" else bytes.fromhex(p[1]) for i in answer["results"][0]["items"] for p in i["parts"]
    )
    assert spelled_text == "a\ufffdb <img src=x onerror=alert(1)>".encode()


def test_non_local_binds_are_refused():
    with pytest.raises(ValueError, match="allow-remote"):
        make_server(TokenizerSet(), host="0.0.0.0", port=0)
    make_server(TokenizerSet(), host="127.0.0.1", port=0).server_close()


def test_given_files_are_offered(tmp_path):
    path = tmp_path / "tokenizer.json"
    tokenforge.get_tokenizer("bert-base-uncased").save(path)
    tokenizers = TokenizerSet([str(path)])
    assert tokenizers.default == [str(path)] and str(path) in tokenizers.names
    assert (
        tokenizers.get(str(path)).encode("hello").ids
        == tokenforge.get_tokenizer("bert-base-uncased").encode("hello").ids
    )


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tokenforge", *args], capture_output=True, text=True, timeout=60, check=False
    )


def test_serve_command_line():
    help_text = _cli("serve", "--help")
    assert help_text.returncode == 0 and "--allow-remote" in help_text.stdout and "this machine" in help_text.stdout
    remote = _cli("serve", "--host", "0.0.0.0", "--port", "0")
    assert remote.returncode == 2 and "--allow-remote" in remote.stderr
    port = _cli("serve", "--port", "70000")
    assert port.returncode == 2 and "--port" in port.stderr
    missing = _cli("serve", "no/such/tokenizer.json", "--port", "0")
    assert missing.returncode == 2 and "no/such/tokenizer.json" in missing.stderr


def test_compare_command_line(tmp_path):
    text = "Hello world, tokenization of 日本語 and   spaces 12345678"
    out = _cli("compare", "-e", "cl100k_base", "-e", "gpt2", "--text", text, "--json")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    counts = [row["tokens"] for row in report["tokenizers"]]
    assert counts == [len(tokenforge.get_encoding(n).encode_ordinary(text)) for n in ("cl100k_base", "gpt2")]
    assert report["tokenizers"][1]["relative_to_first"] == counts[1] / counts[0]
    first = report["differences"][0]
    data = text.encode()
    for pieces in first["splits"].values():  # each tokenizer's pieces of one stretch, joined, are the stretch
        joined = b"".join(
            bytes.fromhex(chunk) if i % 2 else chunk.encode()
            for piece in pieces
            for i, chunk in enumerate(re.split(r"<([0-9A-F ]+)>", piece))
        )
        assert joined == data[first["start"] : first["end"]]
    assert data[first["start"] : first["end"]].decode("utf-8", "replace") == first["text"]
    assert {tuple(p) for p in first["splits"].values()} != {tuple(next(iter(first["splits"].values())))}
    path = tmp_path / "a.txt"
    path.write_text(text, encoding="utf-8")
    table = _cli("compare", "-e", "cl100k_base", "-e", "o200k_base", str(path))
    assert table.returncode == 0 and "o200k_base" in table.stdout and "where they split differently" in table.stdout
    piped = subprocess.run(
        [sys.executable, "-m", "tokenforge", "compare", "--json"],
        input=text,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert [r["name"] for r in json.loads(piped.stdout)["tokenizers"]] == ["cl100k_base", "o200k_base"]
    for bad, says in (
        (["-e", "cl100k_base", "--text", "x"], "two or more"),
        (["--text", "x", str(path)], "not both"),
        (["-e", "cl100k_base", "-e", "nope", "--text", "x"], "nope"),
        ([str(tmp_path / "missing.txt")], "missing.txt"),
        (["--differences", "-1", "--text", "x"], "--differences"),
    ):
        proc = _cli("compare", *bad)
        assert proc.returncode == 2 and says in proc.stderr, (bad, proc.stderr)

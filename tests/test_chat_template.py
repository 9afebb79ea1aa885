"""Chat templates rendered as transformers renders them, and model folders read as it reads them.

The reference is transformers itself: the fixture folders (tests/data/chat_templates: the chat
templates and settings of Llama 3, Qwen3, Gemma 3 and Llama 2, without vocabularies) are loaded
with `AutoTokenizer` beside a tiny tokenizer.json written here, and every rendering, error and
setting is compared with what `apply_chat_template(..., tokenize=False)` and the loaded tokenizer
give. Tests that need transformers skip without it; the rest check our own behaviour.
"""

from __future__ import annotations

import dataclasses
import datetime as datetime_module
import json
import pathlib
import shutil
from typing import Any

import pytest

from tokenforge.chat_template import (
    ChatTemplateError,
    ModelConfig,
    compile_chat_template,
    render_chat_template,
    select_chat_template,
)
from tokenforge.errors import FormatError

FIXTURES = pathlib.Path(__file__).parent / "data" / "chat_templates"
MODELS = ["llama3", "qwen3", "gemma3", "llama2"]
EXTRA = FIXTURES / "extra"

try:
    import jinja2
    import tokenizers
    import transformers
    from transformers.utils import chat_template_utils as hf_chat_utils
except ImportError:  # the comparisons need transformers (and the tokenizers it builds on)
    transformers = None

needs_hf = pytest.mark.skipif(transformers is None, reason="transformers is not installed")


# --------------------------------------------------------------------------------------------------
# helpers


def _tiny_tokenizer_json(folder: pathlib.Path) -> None:
    """A one-word tokenizer.json, enough for transformers to load the folder's settings."""
    model = tokenizers.models.WordLevel({"<unk>": 0}, unk_token="<unk>")
    tokenizers.Tokenizer(model).save(str(folder / "tokenizer.json"))


def _hf_load(folder: pathlib.Path) -> Any:
    """transformers' tokenizer for a copy of `folder` with a tiny tokenizer.json."""
    if not (folder / "tokenizer.json").exists():
        _tiny_tokenizer_json(folder)
    return transformers.AutoTokenizer.from_pretrained(str(folder), local_files_only=True)


def _hf_with_template(template: str, **special: str) -> Any:
    """A transformers tokenizer built in memory around `template`."""
    model = tokenizers.models.WordLevel({"<unk>": 0}, unk_token="<unk>")
    return transformers.PreTrainedTokenizerFast(
        tokenizer_object=tokenizers.Tokenizer(model), chat_template=template, **special
    )


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[ModelConfig, Any]]:
    """Per model: our ModelConfig of the fixture folder and transformers' tokenizer of a copy."""
    if transformers is None:
        pytest.skip("transformers is not installed")
    out = {}
    for name in MODELS:
        copy = tmp_path_factory.mktemp(name)
        shutil.copytree(FIXTURES / name, copy, dirs_exist_ok=True)
        out[name] = (ModelConfig.from_folder(FIXTURES / name), _hf_load(copy))
    return out


def _same(expected_call: Any, our_call: Any) -> Any:
    """Run transformers and us; the same string(s), or the matching error: a template's own
    raise_exception with the same message, ValueError as ChatTemplateError, TypeError as TypeError."""
    try:
        expected = expected_call()
    except Exception as hf_error:  # noqa: BLE001  (whatever the reference raises, we must raise its match)
        with pytest.raises((ChatTemplateError, TypeError)) as info:
            our_call()
        ours = info.value
        if isinstance(hf_error, TypeError):
            assert isinstance(ours, TypeError), (hf_error, ours)
        elif isinstance(hf_error, jinja2.TemplateError) and type(hf_error) is jinja2.TemplateError:
            assert isinstance(ours, ChatTemplateError) and ours.from_template, (hf_error, ours)
            assert str(ours) == str(hf_error)
        else:
            assert isinstance(hf_error, (ValueError, jinja2.TemplateError)), hf_error
            assert isinstance(ours, ChatTemplateError), (hf_error, ours)
        return hf_error
    got = our_call()
    assert got == expected
    return got


def _compare(folders: dict[str, Any], name: str, conversation: Any, **kwargs: Any) -> Any:
    config, hf = folders[name]
    return _same(
        lambda: hf.apply_chat_template(conversation, tokenize=False, **kwargs),
        lambda: config.render_chat(conversation, **kwargs),
    )


# --------------------------------------------------------------------------------------------------
# conversations

SIMPLE = [
    {"role": "user", "content": "Hello, who are you?"},
    {"role": "assistant", "content": "  I am a helpful assistant.  "},
    {"role": "user", "content": "What is 2+2?"},
]
SYSTEM = [{"role": "system", "content": "You are terse.\nAnswer in one word."}, *SIMPLE]
UNICODE = [
    {"role": "system", "content": "Réponds en français — s’il te plaît."},
    {"role": "user", "content": "日本語で？ 🦙🦙 <b>&amp;</b> \"quoted\" 'single' \\backslash\u200b\tTab"},
    {"role": "assistant", "content": "مرحبا بالعالم ✓ Ω≈ç√ 😀\r\n"},
    {"role": "user", "content": "Ünïcödé {{ not a template }} {% raw %}"},
]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Météo d'une ville — « current » weather",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string", "description": "City name, e.g. Zürich"},
                    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                },
                "required": ["city"],
            },
        },
    },
    {"type": "function", "function": {"name": "now", "description": "The time", "parameters": {"type": "object"}}},
]
TOOL_CHAT = [
    {"role": "system", "content": "Use tools when useful."},
    {"role": "user", "content": "Weather in Zürich?"},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {
                "type": "function",
                "function": {"name": "get_weather", "arguments": {"city": "Zürich", "unit": "celsius"}},
            },
            {"type": "function", "function": {"name": "now", "arguments": "{}"}},
        ],
    },
    {"role": "tool", "content": '{"temperature": 21, "sky": "☀"}'},
    {"role": "tool", "content": "12:00"},
    {"role": "assistant", "content": "It is 21 °C and sunny at noon."},
    {"role": "user", "content": "Thanks!"},
]
CONVERSATIONS = {"simple": SIMPLE, "system": SYSTEM, "unicode": UNICODE}


# --------------------------------------------------------------------------------------------------
# rendering the four real templates


@needs_hf
@pytest.mark.parametrize("name", MODELS)
@pytest.mark.parametrize("conversation", list(CONVERSATIONS))
@pytest.mark.parametrize("add_generation_prompt", [False, True])
def test_real_templates_render_as_transformers(folders, name, conversation, add_generation_prompt):
    _compare(folders, name, CONVERSATIONS[conversation], add_generation_prompt=add_generation_prompt)


@needs_hf
@pytest.mark.parametrize("name", MODELS)
def test_single_message_and_none_keys(folders, name):
    # keys set to None are dropped before rendering (a template would print "None")
    _compare(folders, name, [{"role": "user", "content": "Hi", "tool_calls": None, "name": None}])


@needs_hf
@pytest.mark.parametrize("add_generation_prompt", [False, True])
@pytest.mark.parametrize("enable_thinking", [None, False, True])
def test_qwen3_tool_calls_and_results(folders, add_generation_prompt, enable_thinking):
    kwargs: dict[str, Any] = {"add_generation_prompt": add_generation_prompt}
    if enable_thinking is not None:
        kwargs["enable_thinking"] = enable_thinking
    _compare(folders, "qwen3", TOOL_CHAT, tools=TOOLS, **kwargs)
    _compare(folders, "qwen3", TOOL_CHAT[1:], tools=TOOLS, **kwargs)  # no system message
    _compare(folders, "qwen3", TOOL_CHAT, **kwargs)  # tool calls, no tools


@needs_hf
@pytest.mark.parametrize("field", ["reasoning_content", "thinking", "reasoning"])
def test_qwen3_reasoning_fields(folders, field):
    chat = [
        {"role": "user", "content": "Think first."},
        {"role": "assistant", "content": "Four.", field: "2+2 is\n4"},
        {"role": "user", "content": "And 3+3?"},
        {"role": "assistant", "content": "Six.", field: "3+3=6"},
    ]
    _compare(folders, "qwen3", chat)
    _compare(folders, "qwen3", chat[:2])
    inline = [chat[0], {"role": "assistant", "content": "<think>\nhmm\n</think>\n\nFour."}]
    _compare(folders, "qwen3", inline)


@needs_hf
def test_gemma3_content_blocks(folders):
    chat = [
        {"role": "system", "content": [{"type": "text", "text": "Be brief."}]},
        {"role": "user", "content": [{"type": "image", "url": "x.png"}, {"type": "text", "text": " What is this? "}]},
        {"role": "assistant", "content": [{"type": "text", "text": "A cat."}]},
    ]
    _compare(folders, "gemma3", chat, add_generation_prompt=True)


@needs_hf
@pytest.mark.parametrize("name", MODELS)
def test_batched_conversations(folders, name):
    batch = [SIMPLE, SYSTEM, UNICODE, SIMPLE[:1]]
    got = _compare(folders, name, batch, add_generation_prompt=True)
    assert isinstance(got, list) and len(got) == 4
    _compare(folders, name, tuple(batch))


@needs_hf
def test_special_tokens_can_be_overridden(folders):
    _compare(folders, "llama3", SIMPLE, bos_token="<BOS>")
    _compare(folders, "llama2", SYSTEM[:3], bos_token="[B]", eos_token="[E]")


@needs_hf
def test_message_objects(folders):
    @dataclasses.dataclass
    class Message:
        role: str
        content: str
        name: str | None = None

    chat = [Message("user", "Hello"), Message("assistant", "Hi there"), Message("user", "Bye")]
    for name in MODELS:
        _compare(folders, name, chat, add_generation_prompt=True)


@needs_hf
def test_rich_values_become_plain_data(folders):
    np = pytest.importorskip("numpy")
    chat = [
        {"role": "user", "content": "n?"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"function": {"name": "f", "arguments": {"n": np.int64(3), "x": np.float32(0.5)}}}],
        },
        {"role": "tool", "content": "ok", "extra": np.bool_(False)},
    ]
    _compare(folders, "qwen3", chat, tools=TOOLS)
    _compare(folders, "qwen3", chat, tools=TOOLS, enable_thinking=np.bool_(False), add_generation_prompt=True)


# --------------------------------------------------------------------------------------------------
# continue_final_message


@needs_hf
@pytest.mark.parametrize("name", MODELS)
@pytest.mark.parametrize("prefill", ["The answer is", "The answer is ", "  Spaced  ", "Ünïcödé 🦙"])
def test_continue_final_message(folders, name, prefill):
    chat = [*SIMPLE, {"role": "assistant", "content": prefill}]
    got = _compare(folders, name, chat, continue_final_message=True)
    assert isinstance(got, str) and got.rstrip().endswith(prefill.strip())
    _compare(folders, name, [chat, [*SYSTEM, {"role": "assistant", "content": prefill}]], continue_final_message=True)


@needs_hf
def test_continue_final_message_fields_and_blocks(folders):
    reasoning = [SIMPLE[0], {"role": "assistant", "content": "", "reasoning_content": "Let me think"}]
    _compare(folders, "qwen3", reasoning, continue_final_message="reasoning_content")
    thinking = [SIMPLE[0], {"role": "assistant", "content": "", "thinking": "Let me think"}]
    _compare(folders, "qwen3", thinking, continue_final_message="thinking")
    blocks = [
        {"role": "user", "content": "Describe."},
        {"role": "assistant", "content": [{"type": "image"}, {"type": "text", "text": "It shows"}, {"type": "image"}]},
    ]
    _compare(folders, "gemma3", blocks, continue_final_message=True)


@needs_hf
def test_continue_final_message_errors(folders):
    partial = [*SIMPLE, {"role": "assistant", "content": "The answer"}]
    errors = [
        # both flags
        _compare(folders, "llama3", partial, continue_final_message=True, add_generation_prompt=True),
        # a field the template never reads
        _compare(
            folders,
            "llama3",
            [*SIMPLE, {"role": "assistant", "content": "x", "reasoning_content": "y"}],
            continue_final_message="reasoning_content",
        ),
        # the final message lacks the field
        _compare(folders, "qwen3", partial, continue_final_message="reasoning_content"),
        # content blocks without text
        _compare(
            folders,
            "gemma3",
            [SIMPLE[0], {"role": "assistant", "content": [{"type": "image"}]}],
            continue_final_message=True,
        ),
        # an empty conversation in a batch
        _compare(folders, "llama3", [partial, []], continue_final_message=True),
    ]
    # the template drops the final message
    template = "{{ messages[0].content }}"
    errors.append(
        _same(
            lambda: _hf_with_template(template).apply_chat_template(
                partial, tokenize=False, continue_final_message=True
            ),
            lambda: render_chat_template(template, partial, continue_final_message=True),
        )
    )
    assert all(isinstance(error, Exception) for error in errors), errors
    assert "not an accepted field" in str(errors[1])
    assert "does not appear" in str(errors[-1])


# --------------------------------------------------------------------------------------------------
# errors


@needs_hf
@pytest.mark.parametrize("name", ["gemma3", "llama2"])
def test_raise_exception_message(folders, name):
    not_alternating = [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]
    error = _compare(folders, name, not_alternating)
    assert "Conversation roles must alternate" in str(error)
    error = _compare(folders, name, [SIMPLE, not_alternating])  # in a batch too
    assert "Conversation roles must alternate" in str(error)


@needs_hf
def test_raise_exception_invalid_content(folders):
    error = _compare(folders, "gemma3", [{"role": "user", "content": 42}])
    assert str(error) == "Invalid content type"


@needs_hf
def test_validation_errors(folders):
    errors = [
        _compare(folders, "llama3", []),  # empty conversation
        _compare(folders, "llama3", ["not a message"]),  # TypeError
        _compare(folders, "qwen3", SIMPLE, tools=["not a schema"]),
        _compare(folders, "qwen3", SIMPLE, documents=["not a dict"]),  # TypeError
        _compare(folders, "qwen3", [[]]),  # a batch of one empty conversation: the template fails
    ]
    assert all(isinstance(error, Exception) for error in errors), errors


def test_our_messages_name_the_fix():
    with pytest.raises(ChatTemplateError, match="at least one message"):
        render_chat_template("{{ messages }}", [])
    with pytest.raises(ChatTemplateError, match="cannot both be set"):
        render_chat_template("{{ messages }}", SIMPLE, continue_final_message=True, add_generation_prompt=True)
    with pytest.raises(ChatTemplateError, match="get_json_schema"):
        render_chat_template("{{ tools }}", SIMPLE, tools=[len])  # type: ignore[list-item]
    with pytest.raises(ChatTemplateError, match="not valid Jinja") as info:
        compile_chat_template("{% for m in messages %}")
    assert isinstance(info.value.__cause__, jinja2.TemplateSyntaxError) if transformers else True
    with pytest.raises(TypeError, match="str of Jinja source"):
        compile_chat_template(3)  # type: ignore[arg-type]
    with pytest.raises(ChatTemplateError) as raised:
        render_chat_template("{{ raise_exception('Only user and assistant roles!') }}", SIMPLE)
    assert str(raised.value) == "Only user and assistant roles!" and raised.value.from_template


@needs_hf
def test_sandbox_matches_transformers():
    templates = [
        "{% set ns = namespace(_x=1) %}{{ ns._x }}",  # underscore attributes refused
        "{% set ns = namespace(a=1) %}{% set ns.a = 2 %}{{ ns.a }}",
        "{{ dict(a=1, b=[1, 2]) | tojson }}{{ dict.fromkeys(['x', 'y'], 0) | tojson(indent=2, sort_keys=true) }}",
        "{{ messages.append(1) }}",  # immutable sandbox
        "{{ ''.__class__ }}",
        "{{ messages[0].content | tojson(ensure_ascii=true) }}{{ '<&>' | tojson }}",
        "{% for m in messages %}{% if loop.index > 1 %}{% break %}{% endif %}{{ m.role }}{% endfor %}",
        "{{ undefined_name }}|{{ messages[0].missing }}|{{ undefined_name.attr }}",
        # trim_blocks and lstrip_blocks: indented tags leave neither their indent nor their newline
        "  {% for m in messages %}\n    {% if m.role == 'user' %}\n  U: {{ m.content }}\n    {% endif %}\n  {% endfor %}\n",
        # keys set to None were dropped: not defined, not printed
        "{% for m in messages %}{{ m.name is defined }} {{ m | tojson }} {{ m.tool_calls }}|{% endfor %}",
    ]
    chat = [
        {"role": "user", "content": "Ω <tag> & 'q'", "name": None},
        {"role": "assistant", "content": "x", "tool_calls": None, "name": "bot"},
    ]
    for template in templates:
        _same(
            lambda: _hf_with_template(template).apply_chat_template(chat, tokenize=False),
            lambda: render_chat_template(template, chat),
        )


# --------------------------------------------------------------------------------------------------
# documents, strftime_now, generation blocks, named templates


@needs_hf
@pytest.mark.parametrize("add_generation_prompt", [False, True])
def test_documents(add_generation_prompt):
    template = (EXTRA / "documents.jinja").read_text(encoding="utf-8")
    hf = _hf_with_template(template, eos_token="</s>")
    documents = [
        {"title": "Zürich", "text": "Zürich is in Switzerland. « Quote »"},
        {"text": 'An untitled document with <html> & JSON "chars"', "score": 0.5, "tags": ["a", "b"]},
    ]
    chat = [*UNICODE, {"role": "tool", "content": "skipped"}, {"role": "user", "content": "STOP"}, SIMPLE[1]]
    for docs in (documents, None, []):
        _same(
            lambda: hf.apply_chat_template(
                chat, documents=docs, add_generation_prompt=add_generation_prompt, tokenize=False
            ),
            lambda: render_chat_template(
                template, chat, documents=docs, add_generation_prompt=add_generation_prompt, eos_token="</s>"
            ),
        )


class _FrozenDatetime(datetime_module.datetime):
    @classmethod
    def now(cls, tz: Any = None) -> _FrozenDatetime:  # type: ignore[override]
        return cls(2024, 2, 29, 23, 59, 30)


@needs_hf
def test_strftime_now_frozen(monkeypatch):
    import tokenforge.chat_template as ours

    monkeypatch.setattr(ours, "datetime", _FrozenDatetime)
    monkeypatch.setattr(hf_chat_utils, "datetime", _FrozenDatetime)
    template = (EXTRA / "dated_tools.jinja").read_text(encoding="utf-8")
    hf = _hf_with_template(template, bos_token="<|begin_of_text|>")
    for kwargs in ({}, {"tools": TOOLS}, {"date_string": "01 Jan 1970"}, {"add_generation_prompt": True}):
        got = _same(
            lambda: hf.apply_chat_template(TOOL_CHAT, tokenize=False, **kwargs),
            lambda: render_chat_template(template, TOOL_CHAT, bos_token="<|begin_of_text|>", **kwargs),
        )
        assert "Weekday: Thursday" in got
        assert ("Today Date: 01 Jan 1970" if kwargs.get("date_string") else "Today Date: 29 Feb 2024") in got


@needs_hf
def test_strftime_now_real_clock():
    template = "{{ strftime_now('%Y-%m-%d') }}|{{ messages[0].content }}"
    hf = _hf_with_template(template)
    for _ in range(3):  # retried if the day changes between the two renderings
        expected = hf.apply_chat_template(SIMPLE, tokenize=False)
        got = render_chat_template(template, SIMPLE)
        if got == expected:
            break
    assert got == expected
    assert got.split("|")[0] == datetime_module.date.today().isoformat() or got == expected


@needs_hf
def test_generation_spans_match_transformers():
    template = (EXTRA / "generation.jinja").read_text(encoding="utf-8")
    compiled = compile_chat_template(template)
    assert compiled.has_generation_blocks
    batch = [SIMPLE, [*SIMPLE, {"role": "assistant", "content": "Four ✓"}], UNICODE]
    for add_generation_prompt in (False, True):
        expected_text, expected_spans = hf_chat_utils.render_jinja_template(
            conversations=batch,
            chat_template=template,
            return_assistant_tokens_mask=True,
            add_generation_prompt=add_generation_prompt,
            eos_token="</s>",
        )
        text, spans = render_chat_template(
            compiled, batch, return_generation_spans=True, add_generation_prompt=add_generation_prompt, eos_token="</s>"
        )
        assert text == expected_text
        assert spans == [list(s) for s in expected_spans]
        for rendered, chat_spans in zip(text, spans):
            assert all(rendered[a:b].endswith("</s>") for a, b in chat_spans)
        # without tracking, the blocks render as they are
        assert (
            render_chat_template(template, batch[1], add_generation_prompt=add_generation_prompt, eos_token="</s>")
            == expected_text[1]
        )
    with pytest.raises(ChatTemplateError, match="return_generation_spans"):
        render_chat_template(template, SIMPLE, continue_final_message=True, return_generation_spans=True)


@needs_hf
def test_named_templates_as_transformers():
    named = {
        "default": "D:{% for m in messages %}{{ m.content }}{% endfor %}",
        "tool_use": "T:{{ tools | length }}",
        "rag": "R:{{ documents | length }}",
    }
    hf = _hf_with_template(named)  # type: ignore[arg-type]
    config = ModelConfig(path="", special_tokens={}, chat_template=named)
    cases: list[dict[str, Any]] = [
        {},
        {"tools": TOOLS},
        {"chat_template": "rag", "documents": [{"text": "x"}]},
        {"chat_template": "tool_use"},
        {"chat_template": "literal {{ messages | length }}"},
    ]
    for kwargs in cases:
        _same(
            lambda: hf.apply_chat_template(SIMPLE, tokenize=False, **kwargs),
            lambda: config.render_chat(SIMPLE, **kwargs),
        )
    no_default = {"a": "A", "b": "B"}
    hf = _hf_with_template(no_default)  # type: ignore[arg-type]
    config = ModelConfig(path="", special_tokens={}, chat_template=no_default)
    error = _same(lambda: hf.apply_chat_template(SIMPLE, tokenize=False), lambda: config.render_chat(SIMPLE))
    assert "no default" in str(error)
    _same(
        lambda: hf.apply_chat_template(SIMPLE, tokenize=False, chat_template="b"),
        lambda: config.render_chat(SIMPLE, chat_template="b"),
    )


def test_select_chat_template():
    assert select_chat_template("X") == "X"
    assert select_chat_template("X", "Y") == "Y"  # a str argument is Jinja source
    assert select_chat_template({"default": "D", "tool_use": "T"}, tools=[]) == "T"
    assert select_chat_template({"default": "D", "tool_use": "T"}) == "D"
    with pytest.raises(ChatTemplateError, match="no chat template"):
        select_chat_template(None)
    with pytest.raises(ChatTemplateError, match=r"\['a', 'b'\]"):
        select_chat_template({"b": "B", "a": "A"})


# --------------------------------------------------------------------------------------------------
# model folders


def _settings_equal(config: ModelConfig, hf: Any) -> None:
    assert config.special_tokens == hf.special_tokens_map
    assert config.model_max_length == hf.model_max_length
    assert config.padding_side == hf.padding_side
    assert config.truncation_side == hf.truncation_side
    assert config.clean_up_tokenization_spaces == hf.clean_up_tokenization_spaces
    assert config.chat_template == hf.chat_template


@needs_hf
@pytest.mark.parametrize("name", MODELS)
def test_fixture_folders_read_as_transformers(folders, name):
    config, hf = folders[name]
    _settings_equal(config, hf)
    assert config.chat_template is not None
    raw = json.loads((FIXTURES / name / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert config.add_bos_token == raw.get("add_bos_token")
    assert config.add_eos_token == raw.get("add_eos_token")


def _folder(tmp_path: pathlib.Path, config: dict[str, Any] | None, **files: Any) -> pathlib.Path:
    folder = tmp_path / "model"
    folder.mkdir()
    if config is not None:
        (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    for name, content in files.items():
        path = folder / name.replace("__", "/")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return folder


AT = {
    "__type": "AddedToken",
    "lstrip": False,
    "rstrip": False,
    "normalized": False,
    "single_word": False,
    "special": True,
}
FOLDER_CASES: dict[str, tuple[dict[str, Any] | None, dict[str, Any]]] = {
    "jinja file over config": (
        {"chat_template": "config {{ messages | length }}", "eos_token": "</s>"},
        {"chat_template.jinja": "file {{ eos_token }}"},
    ),
    "additional templates": (
        {"chat_template": "config"},
        {"chat_template.jinja": "default {{ 1 }}", "additional_chat_templates__tool_use.jinja": "tools {{ tools }}"},
    ),
    "additional templates only": (
        {},
        {"additional_chat_templates__rag.jinja": "rag", "additional_chat_templates__x.txt": "no"},
    ),
    "named list in config": (
        {"chat_template": [{"name": "default", "template": "D"}, {"name": "tool_use", "template": "T"}]},
        {},
    ),
    "AddedToken objects": (
        {
            "bos_token": {**AT, "content": "<s>"},
            "eos_token": {**AT, "content": "</s>"},
            "pad_token": None,
            "image_token": {**AT, "content": "<img>"},
            "model_max_length": 512,
            "padding_side": "left",
            "truncation_side": "left",
            "clean_up_tokenization_spaces": True,
        },
        {},
    ),
    "legacy special_tokens_map": (
        {"bos_token": "<s>", "eos_token": "</s>", "tokenizer_class": "PreTrainedTokenizerFast"},
        {
            "special_tokens_map.json": {
                "eos_token": {"content": "<|end|>", "special": True},
                "unk_token": "<unk>",
                "additional_special_tokens": ["<a>"],
                "sep_token": "[SEP]",
            }
        },
    ),
    "special_tokens_map ignored beside added_tokens_decoder": (
        {"bos_token": "<s>", "eos_token": "</s>", "added_tokens_decoder": {"0": {**AT, "content": "<unk>"}}},
        {"special_tokens_map.json": {"eos_token": "<|end|>"}},
    ),
    "no config": (None, {"chat_template.jinja": "{{ messages[0].content }}"}),
    "extra special tokens": (
        {
            "extra_special_tokens": {"image_token": "<image>", "audio_token": "<audio>"},
            "video_token": "<video>",
            "eos_token": "<eos>",
            "max_len": 1024,
        },
        {},
    ),
    "class defaults: Llama": ({"tokenizer_class": "LlamaTokenizer", "unk_token": None}, {}),
    "class defaults: Gemma": ({"tokenizer_class": "GemmaTokenizer", "eos_token": "<end_of_turn>"}, {}),
    "class defaults: Qwen2": ({"tokenizer_class": "Qwen2Tokenizer", "bos_token": None}, {}),
}


@needs_hf
@pytest.mark.parametrize("case", list(FOLDER_CASES))
def test_folder_precedence_as_transformers(tmp_path, case):
    config, files = FOLDER_CASES[case]
    folder = _folder(tmp_path, config, **files)
    ours = ModelConfig.from_folder(folder)
    hf = _hf_load(folder)
    _settings_equal(ours, hf)
    if ours.chat_template is not None:
        _same(
            lambda: hf.apply_chat_template(SIMPLE, tokenize=False, tools=TOOLS),
            lambda: ours.render_chat(SIMPLE, tools=TOOLS),
        )


def test_legacy_chat_template_json(tmp_path):
    # a processor's chat_template.json: the last fallback
    folder = _folder(tmp_path, {"eos_token": "</s>"}, **{"chat_template.json": {"chat_template": "J{{ eos_token }}"}})
    config = ModelConfig.from_folder(folder)
    assert config.chat_template == "J{{ eos_token }}"
    assert config.render_chat(SIMPLE) == "J</s>"
    (folder / "chat_template.jinja").write_text("jinja", encoding="utf-8")
    assert ModelConfig.from_folder(folder).chat_template == "jinja"
    (folder / "chat_template.jinja").unlink()
    (folder / "tokenizer_config.json").write_text(json.dumps({"chat_template": "config"}), encoding="utf-8")
    assert ModelConfig.from_folder(folder).chat_template == "config"
    assert ModelConfig.from_folder(folder).chat_templates == {"default": "config"}


@pytest.mark.parametrize(
    ("config", "files", "where"),
    [
        ("{not json", {}, "tokenizer_config.json: line 1 column 2"),
        ([1, 2], {}, "tokenizer_config.json: must be a JSON object"),
        ({"padding_side": "middle"}, {}, "tokenizer_config.json: padding_side"),
        ({"truncation_side": 1}, {}, "tokenizer_config.json: truncation_side"),
        ({"model_max_length": "long"}, {}, "tokenizer_config.json: model_max_length"),
        ({"model_max_length": -1}, {}, "tokenizer_config.json: model_max_length"),
        ({"add_bos_token": "yes"}, {}, "tokenizer_config.json: add_bos_token"),
        ({"clean_up_tokenization_spaces": 1}, {}, "tokenizer_config.json: clean_up_tokenization_spaces"),
        ({"bos_token": 3}, {}, "tokenizer_config.json: bos_token"),
        ({"eos_token": {"id": 3}}, {}, "tokenizer_config.json: eos_token"),
        ({"chat_template": 5}, {}, "tokenizer_config.json: chat_template"),
        ({"chat_template": [{"name": "x"}]}, {}, "tokenizer_config.json: chat_template[0]"),
        ({"extra_special_tokens": "<a>"}, {}, "tokenizer_config.json: extra_special_tokens"),
        ({"extra_special_tokens": [1]}, {}, "tokenizer_config.json: extra_special_tokens[0]"),
        ({"tokenizer_class": 1}, {}, "tokenizer_config.json: tokenizer_class"),
        ({}, {"special_tokens_map.json": "{bad"}, "special_tokens_map.json: line 1"),
        ({}, {"special_tokens_map.json": {"bos_token": 7}}, "special_tokens_map.json: bos_token"),
        ({}, {"chat_template.json": {"template": "x"}}, "chat_template.json: chat_template"),
        ({}, {"chat_template.json": {"chat_template": 1}}, "chat_template.json: chat_template"),
    ],
)
def test_malformed_files_name_file_and_field(tmp_path, config, files, where):
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "tokenizer_config.json").write_text(
        config if isinstance(config, str) else json.dumps(config), encoding="utf-8"
    )
    for name, content in files.items():
        (folder / name).write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    with pytest.raises(FormatError) as info:
        ModelConfig.from_folder(folder)
    assert where in str(info.value)
    assert str(info.value).startswith(str(folder))


def test_not_utf8_and_missing_folder(tmp_path):
    with pytest.raises(FileNotFoundError, match="not a model folder"):
        ModelConfig.from_folder(tmp_path / "absent")
    folder = _folder(tmp_path, {})
    (folder / "chat_template.jinja").write_bytes(b"\xff\xfe bad")
    with pytest.raises(FormatError, match=r"chat_template\.jinja: byte 0: not UTF-8"):
        ModelConfig.from_folder(folder)


def test_model_config_defaults(tmp_path):
    config = ModelConfig.from_folder(_folder(tmp_path, {"bos_token": "<s>", "eos_token": {"content": "</s>"}}))
    assert (config.bos_token, config.eos_token, config.pad_token, config.unk_token) == ("<s>", "</s>", None, None)
    assert config.model_max_length == int(1e30)
    assert (config.padding_side, config.truncation_side, config.clean_up_tokenization_spaces) == (
        "right",
        "right",
        False,
    )
    assert config.chat_template is None and config.chat_templates == {}
    with pytest.raises(ChatTemplateError, match="no chat template"):
        config.render_chat(SIMPLE)


def test_module_is_pure_python():
    # the module (and what it imports from the package) never imports the native extension
    import subprocess
    import sys

    src = pathlib.Path(__file__).resolve().parents[1] / "src"
    code = (
        "import sys, types; pkg = types.ModuleType('tokenforge'); pkg.__path__ = [sys.argv[1] + '/tokenforge'];"
        "sys.modules['tokenforge'] = pkg; import tokenforge.chat_template as m;"
        "assert 'tokenforge._core' not in sys.modules; print(m.render_chat_template('{{ messages[0].content }}',"
        " [{'role': 'user', 'content': 'ok'}]))"
    )
    out = subprocess.run([sys.executable, "-c", code, str(src)], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "ok"

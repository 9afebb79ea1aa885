"""Chat templates as transformers renders them, and the model-folder settings that go with them.

A model folder holds a tokenizer (tokenizer.json, read by `formats/`) and the settings around it:
tokenizer_config.json, the legacy special_tokens_map.json, and the chat template(s) in
chat_template.jinja, additional_chat_templates/*.jinja or inside tokenizer_config.json (a processor's
legacy chat_template.json is the last fallback). `ModelConfig.from_folder` reads those settings with
transformers' precedence; `render_chat_template` turns conversations into the prompt text
`PreTrainedTokenizerBase.apply_chat_template(..., tokenize=False)` returns, character for character:
the same Jinja environment (`compile_chat_template`: an ImmutableSandboxedEnvironment with
trim_blocks, lstrip_blocks, loop controls, `{% generation %}`, transformers' `tojson`,
`raise_exception`, `strftime_now`, `dict` and `namespace`), the same conversion of every input to
plain JSON data, the same `continue_final_message` trimming and the same validation (our messages
say what to change). Turning Python functions into tool schemas is left to transformers
(`transformers.utils.get_json_schema`); tools are passed as JSON-schema dicts.

The module is pure Python (jinja2 only, no native import). Neighbours: `tokenizer.py` (the surface
that encodes the rendered text), `errors.py` (`FormatError`, raised here for malformed files),
`added_tokens.py` (the tokens a template's special-token strings become when encoded).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import re
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime
from functools import lru_cache
from typing import Any, NoReturn, Union

import jinja2
import jinja2.ext
import jinja2.nodes
import jinja2.utils
from jinja2.sandbox import ImmutableSandboxedEnvironment

from .errors import FormatError

__all__ = [
    "ChatTemplate",
    "ChatTemplateError",
    "ModelConfig",
    "compile_chat_template",
    "render_chat_template",
    "select_chat_template",
]

Message = dict[str, Any]
Conversation = Sequence[Mapping[str, Any]]
ChatTemplates = Union[str, dict[str, str]]

# The file names transformers looks for (transformers.utils.hub).
TOKENIZER_CONFIG_FILE = "tokenizer_config.json"
SPECIAL_TOKENS_MAP_FILE = "special_tokens_map.json"
ADDED_TOKENS_FILE = "added_tokens.json"
CHAT_TEMPLATE_FILE = "chat_template.jinja"
CHAT_TEMPLATE_DIR = "additional_chat_templates"
LEGACY_CHAT_TEMPLATE_FILE = "chat_template.json"

# The named special tokens of every transformers tokenizer, in its order (SPECIAL_TOKENS_ATTRIBUTES).
SPECIAL_TOKEN_NAMES = ("bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token")

# transformers' model_max_length when a config gives none (VERY_LARGE_INTEGER).
VERY_LARGE_INTEGER = int(1e30)

# The names a message's reasoning is passed under; the first is the one templates read.
_REASONING_FIELDS = ("reasoning_content", "thinking", "reasoning")
_CONTINUE_TAG = "CONTINUE_FINAL_MESSAGE_TAG "


class ChatTemplateError(ValueError):
    """A chat template that cannot be compiled or rendered, or inputs it cannot render.

    When a template calls `raise_exception(message)`, str() of the error is exactly that message
    (transformers raises jinja2's TemplateError with it) and `from_template` is True."""

    def __init__(self, message: str, *, from_template: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.from_template = from_template


class _RaisedByTemplate(jinja2.TemplateError):
    """What `raise_exception` raises inside the sandbox; rendering turns it into ChatTemplateError."""


# --------------------------------------------------------------------------------------------------
# The Jinja environment (transformers.utils.chat_template_utils._cached_compile_jinja_template)


class _GenerationTracker(jinja2.ext.Extension):
    """`{% generation %}...{% endgeneration %}`: renders its body unchanged and, while a caller
    tracks spans (`render_chat_template(..., return_generation_spans=True)`), records the body's
    character span in the output as transformers' AssistantTracker does (its start is the length
    of what the template has yielded so far)."""

    tags = {"generation"}  # noqa: RUF012  (jinja2 reads this class attribute)

    def __init__(self, environment: jinja2.Environment) -> None:
        super().__init__(environment)
        self._tracking: ContextVar[tuple[list[str], list[tuple[int, int]]] | None] = ContextVar(
            "generation_tracker", default=None
        )
        environment.extend(track_generation=self.track)

    def parse(self, parser: Any) -> jinja2.nodes.Node:
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
        return jinja2.nodes.CallBlock(self.call_method("_generation", []), [], [], body).set_lineno(lineno)

    def _generation(self, caller: Any) -> str:
        text: str = caller()
        tracking = self._tracking.get()
        if tracking is not None:
            blocks, spans = tracking
            start = len("".join(blocks))
            spans.append((start, start + len(text)))
        return text

    @contextmanager
    def track(self, blocks: list[str], spans: list[tuple[int, int]]) -> Iterator[None]:
        token = self._tracking.set((blocks, spans))
        try:
            yield
        finally:
            self._tracking.reset(token)


def _raise_exception(message: Any) -> None:
    raise _RaisedByTemplate(message)


def _tojson(
    x: Any, ensure_ascii: bool = False, indent: Any = None, separators: Any = None, sort_keys: bool = False
) -> str:
    # Jinja's own tojson escapes HTML characters and takes no options; transformers' does neither.
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def _strftime_now(format: str) -> str:
    return datetime.now().strftime(format)


class _TemplateDict:
    """`dict(...)` and `dict.fromkeys(...)` in templates, without the type's other attributes."""

    def __call__(self, *args: Any, **kwargs: Any) -> dict[Any, Any]:
        return dict(*args, **kwargs)

    def fromkeys(self, *args: Any, **kwargs: Any) -> dict[Any, Any]:
        return dict.fromkeys(*args, **kwargs)


class _TemplateNamespace(jinja2.utils.Namespace):
    """`namespace(...)` refusing underscore-prefixed attributes (a way into CPython internals)."""

    def __init__(*args: Any, **kwargs: Any) -> None:  # same signature trick as Jinja's Namespace
        self, args = args[0], args[1:]
        attrs = dict(*args, **kwargs)
        for name in attrs:
            _TemplateNamespace._check_name(name)
        jinja2.utils.Namespace.__init__(self, attrs)

    def __setitem__(self, name: str, value: Any) -> None:
        _TemplateNamespace._check_name(name)
        jinja2.utils.Namespace.__setitem__(self, name, value)

    @staticmethod
    def _check_name(name: Any) -> None:
        if isinstance(name, str) and name.startswith("_"):
            raise jinja2.exceptions.SecurityError(
                f"Chat templates cannot store underscore-prefixed attributes on a namespace, but got {name!r}. "
                "Please rename the attribute."
            )


def _environment() -> ImmutableSandboxedEnvironment:
    env = ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=[_GenerationTracker, jinja2.ext.loopcontrols]
    )
    env.filters["tojson"] = _tojson
    env.globals["raise_exception"] = _raise_exception
    env.globals["strftime_now"] = _strftime_now
    env.globals["dict"] = _TemplateDict()
    env.globals["namespace"] = _TemplateNamespace
    return env


@dataclasses.dataclass(frozen=True, eq=False)
class ChatTemplate:
    """A compiled chat template: its `source` (the continue_final_message check reads it) and the
    Jinja template. Build one with `compile_chat_template`."""

    source: str
    template: jinja2.Template = dataclasses.field(repr=False)

    @property
    def has_generation_blocks(self) -> bool:
        """Whether the template marks assistant text with {% generation %} (the pattern transformers checks)."""
        return re.search(r"\{\%-?\s*generation\s*-?\%\}", self.source) is not None


def _check_jinja_version() -> None:
    # transformers refuses older versions: they have known sandbox escapes, and templates are untrusted code.
    parts = re.findall(r"\d+", jinja2.__version__)[:3]
    if tuple(int(p) for p in parts) < (3, 1, 6):
        raise ImportError(
            f"chat templates need jinja2>=3.1.6 (older versions have known sandbox escapes); "
            f"installed is {jinja2.__version__}: pip install -U 'jinja2>=3.1.6'"
        )


@lru_cache(maxsize=64)
def _compile(source: str) -> ChatTemplate:
    _check_jinja_version()
    try:
        template = _environment().from_string(source)
    except jinja2.TemplateSyntaxError as e:
        raise ChatTemplateError(f"the chat template is not valid Jinja (line {e.lineno}): {e.message}") from e
    return ChatTemplate(source, template)


def compile_chat_template(source: str) -> ChatTemplate:
    """Compile a chat template in transformers' Jinja environment (cached by source text).

    Raises ChatTemplateError for a template that is not valid Jinja, TypeError for a non-str."""
    if not isinstance(source, str):
        raise TypeError(f"a chat template must be a str of Jinja source, got {type(source).__name__}")
    return _compile(source)


# --------------------------------------------------------------------------------------------------
# Inputs as plain data (transformers: _message_objects_to_dicts, _normalize_chat_messages,
# _plain_template_data, _alias_reasoning_fields)


def _objects_to_dicts(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {key: _objects_to_dicts(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_objects_to_dicts(item) for item in value]
    if isinstance(value, tuple):
        return tuple(_objects_to_dicts(item) for item in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {field.name: _objects_to_dicts(getattr(value, field.name)) for field in dataclasses.fields(value)}
    if callable(getattr(value, "model_dump", None)):  # pydantic models, e.g. the OpenAI SDK's messages
        return _objects_to_dicts(value.model_dump())
    return value


def _normalize_messages(conversation: Any) -> list[Message]:
    """Message objects as dicts, without the keys whose value is None (templates handle a missing
    key, but many render `content=None` as "None")."""
    messages = _objects_to_dicts(getattr(conversation, "messages", conversation))
    normalized = []
    for message in messages:
        if not isinstance(message, dict):
            raise TypeError(
                f"each chat message must be a dict (or a dataclass or pydantic model) such as "
                f'{{"role": "user", "content": "..."}}, got {message!r}'
            )
        normalized.append({key: value for key, value in message.items() if value is not None})
    return normalized


def _is_numpy_scalar(value: Any) -> bool:
    numpy = sys.modules.get("numpy")  # numpy scalars can only exist once numpy is imported
    return numpy is not None and isinstance(value, numpy.generic)


def _plain(value: Any) -> Any:
    """`value` rebuilt from JSON types; anything else becomes "<TypeName>" (the sandbox does not
    know which methods of rich objects are dangerous, and templates never read media values)."""
    if value is None or type(value) in (str, int, float, bool):
        return value
    if isinstance(value, str):  # subclasses (enums, numpy strings) lose their extra methods
        return str.__str__(value)
    if isinstance(value, int):
        return int.__int__(value)
    if isinstance(value, float):
        return float.__float__(value)
    if isinstance(value, Mapping):
        return {_plain(key): _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, tuple):
        return tuple(_plain(item) for item in value)
    if _is_numpy_scalar(value):
        return _plain(value.item())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {field.name: _plain(getattr(value, field.name)) for field in dataclasses.fields(value)}
    if callable(getattr(value, "model_dump", None)):
        return _plain(value.model_dump())
    return f"<{type(value).__name__}>"


def _alias_reasoning(chat: list[Any]) -> list[Any]:
    """Reasoning given as `thinking` or `reasoning` is also `reasoning_content` (what templates
    read), and `thinking` too (what gpt-oss templates read)."""
    aliased = []
    for message in chat:
        if isinstance(message, dict):
            reasoning = next((message[key] for key in _REASONING_FIELDS if message.get(key) is not None), None)
            if reasoning is not None:
                message = {"thinking": reasoning, **message, "reasoning_content": reasoning}
        aliased.append(message)
    return aliased


def _is_batch(conversation: Any) -> bool:
    return isinstance(conversation, (list, tuple)) and (
        isinstance(conversation[0], (list, tuple)) or hasattr(conversation[0], "messages")
    )


# --------------------------------------------------------------------------------------------------
# Rendering (transformers: apply_chat_template with tokenize=False, render_jinja_template)


def render_chat_template(
    template: str | ChatTemplate,
    conversation: Any,
    *,
    add_generation_prompt: bool = False,
    continue_final_message: bool | str = False,
    tools: Sequence[Mapping[str, Any]] | None = None,
    documents: Sequence[Mapping[str, Any]] | None = None,
    return_generation_spans: bool = False,
    **kwargs: Any,
) -> Any:
    """Render a conversation, or a batch of them, as transformers' `apply_chat_template(...,
    tokenize=False)` does.

    `template`: Jinja source or a `compile_chat_template` result. `conversation`: a list of
    messages (dicts such as {"role": "user", "content": "..."}, dataclasses or pydantic models;
    keys set to None are dropped), or a list of such lists for a batch (then a list of strings
    comes back). `add_generation_prompt` and every keyword in `kwargs` are passed to the template,
    the special-token strings among them (bos_token=..., eos_token=...; `ModelConfig.special_tokens`
    gives a folder's). `continue_final_message` (True, or the name of the field to continue, such as
    "reasoning_content") leaves the last message open: the text after it is cut off. `tools` are
    JSON-schema dicts, `documents` dicts (e.g. with "title" and "text").

    With `return_generation_spans`, returns (rendered, spans) where spans lists, per conversation,
    the (start, end) character spans of the template's {% generation %} blocks (transformers'
    assistant masks come from these); it cannot be combined with continue_final_message.

    Raises ChatTemplateError (a ValueError) where transformers raises ValueError or a template
    error: `raise_exception(message)` in the template gives exactly `message`. TypeError for
    messages or documents that are not dicts.
    """
    if isinstance(conversation, (list, tuple)) and len(conversation) == 0:
        raise ChatTemplateError("cannot apply a chat template to an empty conversation: pass at least one message")
    batched = _is_batch(conversation)
    conversations = [_normalize_messages(c) for c in (conversation if batched else [conversation])]
    if continue_final_message:
        if add_generation_prompt:
            raise ChatTemplateError(
                "continue_final_message and add_generation_prompt cannot both be set: use continue_final_message "
                "to let the model continue the final message, add_generation_prompt to start a new assistant message"
            )
        if return_generation_spans:
            raise ChatTemplateError(
                "continue_final_message cannot be combined with return_generation_spans: render without one of them"
            )

    # checked in transformers' order: conversation, flags, template, tools, documents
    compiled = template if isinstance(template, ChatTemplate) else compile_chat_template(template)
    tool_schemas: list[Any] | None = None
    if tools is not None:
        tool_schemas = []
        for tool in tools:
            if not isinstance(tool, dict):
                raise ChatTemplateError(
                    f"each tool must be a JSON-schema dict such as {{'type': 'function', 'function': {{...}}}}, "
                    f"got {type(tool).__name__}; convert Python functions with transformers.utils.get_json_schema"
                )
            tool_schemas.append(tool)
    if documents is not None:
        for document in documents:
            if not isinstance(document, dict):
                raise TypeError(
                    f"documents must be a list of dicts such as {{'title': ..., 'text': ...}}, "
                    f"got a {type(document).__name__}"
                )
    plain_tools = _plain(tool_schemas)
    plain_documents = _plain(documents)
    plain_kwargs = _plain(kwargs)

    rendered: list[str] = []
    all_spans: list[list[tuple[int, int]]] = []
    for messages in conversations:
        chat = _plain(messages)  # a fresh copy: the edits below never touch the caller's messages
        chat = _alias_reasoning(chat)
        final_message: Any = None
        if continue_final_message:
            if not isinstance(continue_final_message, str):
                continue_final_message = "content"
            final_message = _tag_final_message(compiled.source, chat, continue_final_message)
        render_args = dict(
            messages=chat,
            tools=plain_tools,
            documents=plain_documents,
            add_generation_prompt=add_generation_prompt,
            **plain_kwargs,
        )
        spans: list[tuple[int, int]] = []
        try:
            if return_generation_spans:
                blocks: list[str] = []
                with compiled.template.environment.track_generation(blocks, spans):  # type: ignore[attr-defined]
                    for block in compiled.template.generate(**render_args):
                        blocks.append(block)
                text = "".join(blocks)
            else:
                text = compiled.template.render(**render_args)
        except _RaisedByTemplate as e:
            raise ChatTemplateError(e.message or "", from_template=True) from None
        except jinja2.TemplateError as e:
            raise ChatTemplateError(f"the chat template failed: {type(e).__name__}: {e.message}") from e
        if continue_final_message:
            text = _cut_after_final_message(text, final_message)
        rendered.append(text)
        all_spans.append(spans)
    result: Any = rendered if batched else rendered[0]
    if return_generation_spans:
        return result, (all_spans if batched else all_spans[0])
    return result


def _tag_final_message(source: str, chat: list[Message], field: str) -> str:
    """Append the continue tag to the final message's `field` (every copy of it, for reasoning
    fields) and return the text to continue."""
    if not chat:
        raise ChatTemplateError(
            "continue_final_message is set but the conversation is empty: add the message to continue"
        )
    final_message = chat[-1].get(field)
    if final_message is None:
        raise ChatTemplateError(
            f'continue_final_message is set but the final message has no "{field}" to continue: '
            f'give it a "{field}" or set continue_final_message to the field that holds the text'
        )
    fields = [field]
    if field in _REASONING_FIELDS:  # reasoning is copied under several names; tag each copy
        fields = [name for name in _REASONING_FIELDS if chat[-1].get(name) == final_message]
    if not any(name in source for name in fields):
        raise ChatTemplateError(
            f'continue_final_message is set to "{field}" but this is not an accepted field in the chat_template: '
            f"continue a field the template reads"
        )
    if isinstance(final_message, (list, tuple)):
        for block in reversed(final_message):
            if "text" in block:  # the last text block is the one to continue
                final_message = block["text"]
                block["text"] = block["text"] + _CONTINUE_TAG
                break
        else:
            raise ChatTemplateError(
                "continue_final_message is set but the final message has no text block to continue: "
                'add a {"type": "text", "text": ...} block'
            )
    else:
        for name in fields:
            if not isinstance(chat[-1][name], str):
                raise TypeError(
                    f'continue_final_message needs the final message\'s "{name}" to be a str or a list of '
                    f"content blocks, got {type(chat[-1][name]).__name__}"
                )
            chat[-1][name] = chat[-1][name] + _CONTINUE_TAG
    if not isinstance(final_message, str):
        raise TypeError(f"continue_final_message needs text to continue, got {type(final_message).__name__}")
    return final_message


def _cut_after_final_message(rendered: str, final_message: str) -> str:
    tag = _CONTINUE_TAG.strip()
    if final_message.strip() not in rendered or tag not in rendered:
        raise ChatTemplateError(
            "continue_final_message is set but the final message does not appear in the rendered chat: the "
            "template deletes part of it, so it cannot be continued; render without continue_final_message or "
            f"change the message.\nFinal message to continue: {final_message.strip()}\nRendered chat:\n{rendered}"
        )
    at = rendered.rindex(tag)
    if rendered[at : at + len(_CONTINUE_TAG)] == _CONTINUE_TAG:
        return rendered[:at]  # the template keeps spacing as it is
    return rendered[:at].rstrip()  # the template trimmed the message's trailing space


def select_chat_template(
    templates: ChatTemplates | None, chat_template: str | None = None, tools: Sequence[Any] | None = None
) -> str:
    """The template source to render, as transformers' `get_chat_template` picks it.

    `templates` is a model's template (str) or named templates (dict). `chat_template` is a name in
    that dict, or else Jinja source used as it is. With named templates and no `chat_template`,
    "tool_use" is picked when `tools` is given and the dict has one, else "default"."""
    if isinstance(templates, dict):
        if chat_template is not None and chat_template in templates:
            return templates[chat_template]
        if chat_template is None:
            if tools is not None and "tool_use" in templates:
                return templates["tool_use"]
            if "default" in templates:
                return templates["default"]
            raise ChatTemplateError(
                f"this model has several chat templates and none is named 'default': pass chat_template= with "
                f"one of {sorted(templates)} or with a template's Jinja source"
            )
        return chat_template
    if chat_template is not None:
        return chat_template
    if templates is None:
        raise ChatTemplateError(
            "no chat template: the model folder has none (tokenizer_config.json 'chat_template', "
            "chat_template.jinja) and no chat_template= was passed; pass the template's Jinja source"
        )
    return templates


# --------------------------------------------------------------------------------------------------
# Model-folder configuration


# Constructor defaults of tokenizer classes (transformers 5: models/*/tokenization_*.py). A key
# the config leaves out takes the class's default; an explicit null in the config means none.
# Where a class wraps a named token given as a string (its default or the config's) in an
# AddedToken with flags of its own (`mask_token = AddedToken(mask_token, lstrip=True,
# rstrip=False) if isinstance(mask_token, str) else mask_token`), _CLASS_TOKEN_FLAGS has those
# flags; where it makes extra special tokens (T5's <extra_id_N>, Pegasus' <unk_N>, XLNet's,
# XGLM's made-up words, MBart's, MBart50's and NLLB's language codes, CamemBERT's, CodeLlama's
# infilling tokens, LUKE's and mLUKE's entity tokens), _CLASS_EXTRAS has the function that makes
# them. The class is the one AutoTokenizer builds (Tokenizer.from_pretrained passes it: the
# routing of formats/transformers_classes.transformers_class), the declared tokenizer_class
# otherwise. The pipelines and post-processors these classes build (MBart50's vocabulary, the
# src_lang templates, Splinter's question token) are formats/transformers_classes.py's.
# SiglipTokenizer's, M2M100Tokenizer's, Wav2Vec2CTCTokenizer's, EsmTokenizer's and ByT5Tokenizer's:
# their folders without tokenizer.json (formats/slow_files.py; transformers cannot load a folder of
# tokenizer.json alone that names one of the first four, and ByT5Tokenizer reads no file at all).
# tests/test_special_tokens_transformers.py checks them against AutoTokenizer.
_BERT = {"unk_token": "[UNK]", "sep_token": "[SEP]", "pad_token": "[PAD]", "cls_token": "[CLS]", "mask_token": "[MASK]"}
_ROBERTA = {
    "bos_token": "<s>",
    "eos_token": "</s>",
    "unk_token": "<unk>",
    "sep_token": "</s>",
    "pad_token": "<pad>",
    "cls_token": "<s>",
    "mask_token": "<mask>",
}
_ENDOFTEXT = {"bos_token": "<|endoftext|>", "eos_token": "<|endoftext|>", "unk_token": "<|endoftext|>"}
_CLASS_DEFAULTS: dict[str, dict[str, Any]] = {
    "BertTokenizer": _BERT,
    "ElectraTokenizer": _BERT,
    "LayoutLMv2Tokenizer": _BERT,
    "RobertaTokenizer": _ROBERTA,
    "BartTokenizer": _ROBERTA,
    "LongformerTokenizer": _ROBERTA,
    "XLMRobertaTokenizer": _ROBERTA,
    "GPT2Tokenizer": _ENDOFTEXT,
    "GPTNeoXTokenizer": {**_ENDOFTEXT, "pad_token": "<|padding|>"},
    "CLIPTokenizer": {**_ENDOFTEXT, "bos_token": "<|startoftext|>", "pad_token": "<|endoftext|>"},
    "T5Tokenizer": {"eos_token": "</s>", "unk_token": "<unk>", "pad_token": "<pad>"},
    "DebertaV2Tokenizer": {**_BERT, "bos_token": "[CLS]", "eos_token": "[SEP]"},
    "CohereTokenizer": {
        "padding_side": "left",
        "bos_token": "<BOS_TOKEN>",
        "eos_token": "<|END_OF_TURN_TOKEN|>",
        "unk_token": "<UNK>",
        "sep_token": "<SEP>",
        "pad_token": "<PAD>",
        "cls_token": "<CLS>",
        "mask_token": "<MASK_TOKEN>",
    },
    "Phi3Tokenizer": {"padding_side": "left", "unk_token": "<unk>", "bos_token": "<s>", "eos_token": "</s>"},
    "LlamaTokenizer": {"padding_side": "left", "unk_token": "<unk>", "bos_token": "<s>", "eos_token": "</s>"},
    "GemmaTokenizer": {
        "padding_side": "left",
        "unk_token": "<unk>",
        "bos_token": "<bos>",
        "eos_token": "<eos>",
        "pad_token": "<pad>",
        "mask_token": "<mask>",
    },
    "Qwen2Tokenizer": {"unk_token": "<|endoftext|>", "eos_token": "<|endoftext|>", "pad_token": "<|endoftext|>"},
    "SiglipTokenizer": {"eos_token": "</s>", "unk_token": "<unk>", "pad_token": "</s>", "model_max_length": 64},
    "ByT5Tokenizer": {"eos_token": "</s>", "unk_token": "<unk>", "pad_token": "<pad>"},
    "MarianTokenizer": {"eos_token": "</s>", "unk_token": "<unk>", "pad_token": "<pad>", "model_max_length": 512},
    "SpeechT5Tokenizer": {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>", "pad_token": "<pad>"},
    "BartphoTokenizer": {**_ROBERTA},
    "PLBartTokenizer": {**_ROBERTA, "clean_up_tokenization_spaces": True},
    "PhobertTokenizer": _ROBERTA,
    "CTRLTokenizer": {"unk_token": "<unk>"},
    "GPTSw3Tokenizer": {"pad_token": "<pad>", "unk_token": "<unk>", "eos_token": "<|endoftext|>", "bos_token": "<s>"},
    "BertGenerationTokenizer": {
        "bos_token": "<s>",
        "eos_token": "</s>",
        "unk_token": "<unk>",
        "pad_token": "<pad>",
        "sep_token": "<::::>",
    },
    "EsmTokenizer": {
        "unk_token": "<unk>",
        "cls_token": "<cls>",
        "pad_token": "<pad>",
        "mask_token": "<mask>",
        "eos_token": "<eos>",
    },
    "Wav2Vec2CTCTokenizer": {
        "bos_token": "<s>",
        "eos_token": "</s>",
        "unk_token": "<unk>",
        "pad_token": "<pad>",
        "model_specific": {"word_delimiter_token": "|"},
    },
    "M2M100Tokenizer": {
        "bos_token": "<s>",
        "eos_token": "</s>",
        "sep_token": "</s>",
        "pad_token": "<pad>",
        "unk_token": "<unk>",
    },
}
# CodeLlamaTokenizer's infilling tokens, which it passes to super().__init__ (model-specific
# special tokens) and appends to the extra special tokens.
_CODE_LLAMA_TOKENS = (
    ("prefix_token", "\u2581<PRE>"),
    ("middle_token", "\u2581<MID>"),
    ("suffix_token", "\u2581<SUF>"),
    ("eot_token", "\u2581<EOT>"),
    ("fill_token", "<FILL_ME>"),
)

_CLASS_DEFAULTS.update(
    {
        "MPNetTokenizer": {**_ROBERTA, "unk_token": "[UNK]"},
        "WhisperTokenizer": _ENDOFTEXT,
        "XLNetTokenizer": {
            "padding_side": "left",
            "bos_token": "<s>",
            "eos_token": "</s>",
            "unk_token": "<unk>",
            "sep_token": "<sep>",
            "pad_token": "<pad>",
            "cls_token": "<cls>",
            "mask_token": "<mask>",
        },
        "BigBirdTokenizer": {**_ROBERTA, "sep_token": "[SEP]", "mask_token": "[MASK]", "cls_token": "[CLS]"},
        "BarthezTokenizer": _ROBERTA,
        "MBartTokenizer": _ROBERTA,
        "NllbTokenizer": _ROBERTA,
        "CamembertTokenizer": _ROBERTA,
        "CodeLlamaTokenizer": {
            "padding_side": "left",
            "unk_token": "<unk>",
            "bos_token": "<s>",
            "eos_token": "</s>",
            "model_specific": dict(_CODE_LLAMA_TOKENS),
        },
        "MarkupLMTokenizer": _ROBERTA,
        "LayoutXLMTokenizer": _ROBERTA,
        "BlenderbotTokenizer": _ROBERTA,
        "AlbertTokenizer": {
            **_BERT,
            "bos_token": "[CLS]",
            "eos_token": "[SEP]",
            "unk_token": "<unk>",
            "pad_token": "<pad>",
        },
        "PegasusTokenizer": {"pad_token": "<pad>", "eos_token": "</s>", "unk_token": "<unk>", "mask_token": "<mask_2>"},
        "FunnelTokenizer": {
            **_BERT,
            "unk_token": "<unk>",
            "sep_token": "<sep>",
            "pad_token": "<pad>",
            "cls_token": "<cls>",
            "mask_token": "<mask>",
            "bos_token": "<s>",
            "eos_token": "</s>",
        },
        "RemBertTokenizer": {
            **_BERT,
            "bos_token": "[CLS]",
            "eos_token": "[SEP]",
            "unk_token": "<unk>",
            "pad_token": "<pad>",
        },
        "FNetTokenizer": {
            **_BERT,
            "bos_token": "[CLS]",
            "eos_token": "[SEP]",
            "unk_token": "<unk>",
            "pad_token": "<pad>",
        },
        "UdopTokenizer": {"eos_token": "</s>", "sep_token": "</s>", "unk_token": "<unk>", "pad_token": "<pad>"},
        "HerbertTokenizer": {
            "cls_token": "<s>",
            "unk_token": "<unk>",
            "pad_token": "<pad>",
            "mask_token": "<mask>",
            "sep_token": "</s>",
        },
        "ReformerTokenizer": {"eos_token": "</s>", "unk_token": "<unk>"},
        "NougatTokenizer": {"unk_token": "<unk>", "bos_token": "<s>", "eos_token": "</s>", "pad_token": "<pad>"},
        "LayoutLMv3Tokenizer": _ROBERTA,
        "LEDTokenizer": _ROBERTA,
        "XGLMTokenizer": {k: v for k, v in _ROBERTA.items() if k != "mask_token"},
        "LasrTokenizer": _CLASS_DEFAULTS["T5Tokenizer"],
        "VideoPrismTokenizer": _CLASS_DEFAULTS["T5Tokenizer"],
        "MBart50Tokenizer": {k: v for k, v in _ROBERTA.items() if k != "bos_token"},
        "SplinterTokenizer": {**_BERT, "model_specific": {"question_token": "[QUESTION]"}},
    }
)
# LUKE's and mLUKE's entity tokens, which they pass to super().__init__ (model-specific special
# tokens): mLUKE's first two start with "▁"
_ENTITY_TOKENS = (
    ("entity_1_token", "<ent>"),
    ("entity_2_token", "<ent2>"),
    ("entity_unk_token", "[UNK]"),
    ("entity_pad_token", "[PAD]"),
    ("entity_mask_token", "[MASK]"),
    ("entity_mask2_token", "[MASK2]"),
)
# Named tokens a class sets to its own argument's value after its tokens are added
_CLASS_RESET_TOKENS = {"SplinterTokenizer": {"question_token": "[QUESTION]"}}
_CLASS_RESET_TOKENS["SplinterTokenizerFast"] = _CLASS_RESET_TOKENS["SplinterTokenizer"]
# Other names of a token argument that a class pops from its kwargs before its own argument
_LUKE_ALIASES = {"entity_token_1": "entity_1_token", "entity_token_2": "entity_2_token"}
_CLASS_ALIASES = {"LukeTokenizer": _LUKE_ALIASES, "MLukeTokenizer": _LUKE_ALIASES}
# Token arguments whose string a class passes on with "\u2581" before it
_CLASS_SPACE_PREFIXED = {"MLukeTokenizer": ("entity_1_token", "entity_2_token")}
_CLASS_SPACE_PREFIXED["MLukeTokenizerFast"] = _CLASS_SPACE_PREFIXED["MLukeTokenizer"]
_CLASS_DEFAULTS["LukeTokenizer"] = {**_ROBERTA, "model_specific": dict(_ENTITY_TOKENS)}
_CLASS_DEFAULTS["MLukeTokenizer"] = {
    **_ROBERTA,
    "model_specific": {
        k: ("\u2581" + v if k in ("entity_1_token", "entity_2_token") else v) for k, v in _ENTITY_TOKENS
    },
}

# The flags a class's AddedToken(text, ...) gives a named token passed as a string, as
# tokenizers' AddedToken takes them (special false where the class does not say; the token is
# made special when added, being named, and `normalized` left out then follows `special`).
_KEEP_SPACES = {"special": False, "lstrip": False, "rstrip": False}
_MASK_LSTRIP = {"special": False, "lstrip": True, "rstrip": False}
_CLASS_TOKEN_FLAGS: dict[str, dict[str, dict[str, bool]]] = {
    "BartphoTokenizer": {"mask_token": _MASK_LSTRIP},
    "PLBartTokenizer": {"mask_token": _MASK_LSTRIP},
    "MPNetTokenizer": {
        **dict.fromkeys(("bos_token", "eos_token", "sep_token", "cls_token", "unk_token", "pad_token"), _KEEP_SPACES),
        "mask_token": _MASK_LSTRIP,
    },
    "BigBirdTokenizer": {
        **dict.fromkeys(("bos_token", "eos_token", "unk_token", "pad_token", "cls_token", "sep_token"), _KEEP_SPACES),
        "mask_token": _MASK_LSTRIP,
    },
    "MarkupLMTokenizer": {
        **dict.fromkeys(("bos_token", "eos_token", "sep_token", "cls_token", "unk_token", "pad_token"), _KEEP_SPACES),
        "mask_token": _MASK_LSTRIP,
    },
    "WhisperTokenizer": {
        name: {"special": True, "lstrip": False, "rstrip": False, "normalized": False}
        for name in ("bos_token", "eos_token", "unk_token")
    },
    "XLNetTokenizer": {"mask_token": _MASK_LSTRIP},
    "MBartTokenizer": {"mask_token": _MASK_LSTRIP},
    "NllbTokenizer": {"mask_token": {"special": True, "lstrip": True, "normalized": True}},
    "CamembertTokenizer": {"mask_token": {"special": True, "lstrip": True}},
    "BarthezTokenizer": {"mask_token": _MASK_LSTRIP},
    "LayoutXLMTokenizer": {"mask_token": _MASK_LSTRIP},
    "BlenderbotTokenizer": {"mask_token": {**_MASK_LSTRIP, "normalized": False}},
    "MBart50Tokenizer": {"mask_token": _MASK_LSTRIP},
    "MLukeTokenizer": {"mask_token": _MASK_LSTRIP},
}


def _t5_extras(init: dict[str, Any], config: Mapping[str, Any], path: str) -> None:
    """T5Tokenizer.__init__ (and LASR's, VideoPrism's): `extra_ids` (100 by default) tokens
    <extra_id_0>, ... appended to an additional_special_tokens list that has none (only
    special_tokens_map.json can still give one here: the config's became extra_special_tokens),
    or the list itself where there is none; they reach the tokenizer only where nothing set
    extra_special_tokens. A list with <extra_id_ tokens of another count than extra_ids is
    transformers' ValueError."""
    extra_ids = config.get("extra_ids", 100)
    if not isinstance(extra_ids, int) or isinstance(extra_ids, bool):
        raise FormatError(path, "extra_ids", f"must be an integer, got {extra_ids!r}")
    generated = [f"<extra_id_{i}>" for i in range(extra_ids)]
    listed = init.get("additional_special_tokens")
    if listed is None:
        listed = generated
    else:
        found = [x for x in listed if "<extra_id_" in str(x)]  # str() as transformers applies it
        if not found:
            listed = [*listed, *generated]
        elif extra_ids > 0 and extra_ids != len(found):
            raise FormatError(
                path, "extra_ids", f"{extra_ids} extra ids, but additional_special_tokens lists {len(found)}"
            )
    if "extra_special_tokens" not in init:
        init["additional_special_tokens"] = listed


def _byt5_extras(init: dict[str, Any], config: Mapping[str, Any], path: str) -> None:
    """ByT5Tokenizer.__init__: `extra_ids` (125 by default) tokens <extra_id_0>, ... as the
    additional_special_tokens where there is no such list (only special_tokens_map.json can
    still give one here); a list given beside extra_ids must hold that many distinct tokens
    with "extra_id" in them (transformers' ValueError), and is kept as it is. As T5's, they
    reach the tokenizer only where nothing set extra_special_tokens."""
    extra_ids = config.get("extra_ids", 125)
    if not isinstance(extra_ids, int) or isinstance(extra_ids, bool):
        raise FormatError(path, "extra_ids", f"must be an integer, got {extra_ids!r}")
    listed = init.get("additional_special_tokens")
    if extra_ids > 0 and listed is None:
        listed = [f"<extra_id_{i}>" for i in range(extra_ids)]
    elif extra_ids > 0 and listed:
        texts = [str(x["content"]) if isinstance(x, dict) and "content" in x else str(x) for x in listed]
        found = {t for t in texts if "extra_id" in t}  # (an AddedToken's str() is its content)
        if len(found) != extra_ids:
            raise FormatError(
                path, "extra_ids", f"{extra_ids} extra ids, but additional_special_tokens lists {len(found)}"
            )
    if "extra_special_tokens" not in init and listed is not None:
        init["additional_special_tokens"] = listed


def _pegasus_extras(init: dict[str, Any], config: Mapping[str, Any], path: str) -> None:
    """PegasusTokenizer.__init__: mask_token_sent ("<mask_1>") unless an additional_special_tokens
    list (only special_tokens_map.json can still give one) already has it, then <unk_2> up to
    <unk_{offset-1}> (offset 103), in place of that list; as T5's, only where nothing set
    extra_special_tokens."""
    sent = config.get("mask_token_sent", "<mask_1>")
    offset = config.get("offset", 103)
    if not isinstance(offset, int) or isinstance(offset, bool):
        raise FormatError(path, "offset", f"must be an integer, got {offset!r}")
    if sent is not None and not isinstance(sent, str):
        raise FormatError(path, "mask_token_sent", f"must be a string, got {sent!r}")
    listed = init.get("additional_special_tokens")
    made = [sent] if (listed is None or sent not in listed) and sent is not None else []
    made += [f"<unk_{i}>" for i in range(2, offset)]
    if "extra_special_tokens" not in init:
        init["additional_special_tokens"] = made


def _xlnet_extras(init: dict[str, Any], config: Mapping[str, Any], path: str) -> None:
    """XLNetTokenizer.__init__: additional_special_tokens ["<eop>", "<eod>"] where none is given
    (only special_tokens_map.json can still give one), only where nothing set extra_special_tokens."""
    if "extra_special_tokens" not in init and init.get("additional_special_tokens") is None:
        init["additional_special_tokens"] = ["<eop>", "<eod>"]


def _language_codes(class_name: str, kind: str | None = None) -> tuple[str, ...]:
    """The FAIRSEQ_LANGUAGE_CODES of transformers' MBartTokenizer, NllbTokenizer, ... as
    tools/dump_transformers_routing.py wrote them into data/transformers_routing.json (read once,
    with the routing tables, by formats/transformers_classes.py); for a class with several sets
    (PLBartTokenizer's), the set `kind` (none for an unknown one)."""
    from .formats.transformers_classes import _routing

    codes = _routing()["language_codes"][class_name]
    return tuple(codes.get(kind, ()) if isinstance(codes, dict) else codes)


def _mbart_extras(init: dict[str, Any], config: Mapping[str, Any], path: str) -> None:
    """MBartTokenizer.__init__: its 25 language codes, then those of an additional_special_tokens
    list (only special_tokens_map.json can still give one) that are not among them; only where
    nothing set extra_special_tokens."""
    made = list(_language_codes("MBartTokenizer"))
    listed = init.get("additional_special_tokens")
    if listed is not None:
        made.extend([t for t in listed if t not in made])
    if "extra_special_tokens" not in init:
        init["additional_special_tokens"] = made


def _plbart_extras(init: dict[str, Any], config: Mapping[str, Any], path: str) -> None:
    """PLBartTokenizer.__init__: its language codes (language_codes "base" or "multi"), then
    those of an additional_special_tokens list that are not among them; only where nothing set
    extra_special_tokens."""
    kind = config.get("language_codes", "base")
    made = list(_language_codes("PLBartTokenizer", kind if isinstance(kind, str) else ""))
    listed = init.get("additional_special_tokens")
    if listed is not None:
        made.extend([t for t in listed if t not in made])
    if "extra_special_tokens" not in init:
        init["additional_special_tokens"] = made


def _camembert_extras(init: dict[str, Any], config: Mapping[str, Any], path: str) -> None:
    """CamembertTokenizer.__init__: additional_special_tokens <s>NOTUSED, </s>NOTUSED,
    <unk>NOTUSED where none is given; only where nothing set extra_special_tokens."""
    if "extra_special_tokens" not in init and init.get("additional_special_tokens") is None:
        init["additional_special_tokens"] = ["<s>NOTUSED", "</s>NOTUSED", "<unk>NOTUSED"]


def _code_llama_extras(init: dict[str, Any], config: Mapping[str, Any], path: str) -> None:
    """CodeLlamaTokenizer.__init__: its infilling tokens (prefix, middle, suffix, eot, fill)
    after an additional_special_tokens list (only special_tokens_map.json can still give one);
    only where nothing set extra_special_tokens. A config's string for one of them became a
    model-specific token before the class saw it, so the class keeps its default; a null drops it."""
    made = list(init.get("additional_special_tokens") or [])
    for name, default in _CODE_LLAMA_TOKENS:
        value = init.get(name, default)
        if value is not None:
            made.append(value if isinstance(value, dict) else default)
    if "extra_special_tokens" not in init:
        init["additional_special_tokens"] = made


def _nllb_extras(init: dict[str, Any], config: Mapping[str, Any], path: str) -> None:
    """NllbTokenizer.__init__: its extra_special_tokens are the given ones (a config's list, even
    []), else an additional_special_tokens list (only special_tokens_map.json can still give
    one), else its 202 language codes."""
    if init.get("extra_special_tokens") is not None:
        return
    listed = init.get("additional_special_tokens")
    init["extra_special_tokens"] = list(_language_codes("NllbTokenizer")) if listed is None else listed


def _xglm_extras(init: dict[str, Any], config: Mapping[str, Any], path: str) -> None:
    """XGLMTokenizer.__init__: <madeupword0> to <madeupword6> after an additional_special_tokens
    list's tokens (only special_tokens_map.json can still give one), those it lacks; only where
    nothing set extra_special_tokens."""
    made = list(init.get("additional_special_tokens") or [])
    made += [w for w in (f"<madeupword{i}>" for i in range(7)) if w not in made]
    if "extra_special_tokens" not in init:
        init["additional_special_tokens"] = made


def _mbart50_extras(init: dict[str, Any], config: Mapping[str, Any], path: str) -> None:
    """MBart50Tokenizer.__init__: an additional_special_tokens list (only special_tokens_map.json
    can still give one), then its 52 language codes; where something set extra_special_tokens,
    those stay and the codes they lack are listed after them once the tokens are added (never
    added themselves)."""
    if "extra_special_tokens" not in init:
        listed = init.get("additional_special_tokens") or []
        init["additional_special_tokens"] = [*listed, *_language_codes("MBart50Tokenizer")]
    else:
        init[_LATE_EXTRAS] = list(_language_codes("MBart50Tokenizer"))


_LATE_EXTRAS = "\x00late_extra_special_tokens"  # an init key no config can have


def _luke_extras(init: dict[str, Any], config: Mapping[str, Any], path: str, mluke: bool = False) -> None:
    """LukeTokenizer.__init__ (and mLUKE's): its extra special tokens are the given
    extra_special_tokens, then additional_special_tokens, then its entity tokens those lack
    (mLUKE: the first two entity tokens, "\u2581" before a string's text, then the other four)."""
    made = [*(init.get("extra_special_tokens") or []), *(init.get("additional_special_tokens") or [])]
    seen = {_token_text_of(t) for t in made}
    defaults = dict(_ENTITY_TOKENS)
    names = [k for k, _ in _ENTITY_TOKENS] if mluke else ["entity_1_token", "entity_2_token"]
    # A string the config gives under the argument's own name became a model-specific token
    # before the class saw it (the class keeps its default); one under the other name (popped
    # by the class) or an AddedToken object reaches it.
    given = {key: config[alias] for alias, key in _LUKE_ALIASES.items() if alias in config}
    for key in names:
        value = init.get(key) if isinstance(init.get(key), dict) else given.get(key, defaults[key])
        if isinstance(value, str):  # the AddedToken the class wraps it in
            first_two = key in ("entity_1_token", "entity_2_token")
            content = "\u2581" + value if mluke and first_two else value
            # (mLUKE's _post_init adds them again as special tokens, not normalized)
            flags = {"special": False} if first_two and not mluke else {"special": True, "normalized": False}
            value = {"__type": "AddedToken", "content": content, "lstrip": False, "rstrip": False, **flags}
        if _token_text_of(value) not in seen:
            made.append(value)
            seen.add(_token_text_of(value))
    init.pop("additional_special_tokens", None)
    init["extra_special_tokens"] = made


def _token_text_of(value: Any) -> str:
    return str(value.get("content")) if isinstance(value, dict) else str(value)


_CLASS_EXTRAS: dict[str, Callable[[dict[str, Any], Mapping[str, Any], str], None]] = {
    "MBart50Tokenizer": _mbart50_extras,
    "LukeTokenizer": _luke_extras,
    "MLukeTokenizer": functools.partial(_luke_extras, mluke=True),
    "XGLMTokenizer": _xglm_extras,
    "NllbTokenizer": _nllb_extras,
    "CamembertTokenizer": _camembert_extras,
    "CodeLlamaTokenizer": _code_llama_extras,
    "MBartTokenizer": _mbart_extras,
    "XLNetTokenizer": _xlnet_extras,
    "T5Tokenizer": _t5_extras,
    "LasrTokenizer": _t5_extras,
    "VideoPrismTokenizer": _t5_extras,
    "PegasusTokenizer": _pegasus_extras,
    "ByT5Tokenizer": _byt5_extras,
    "PLBartTokenizer": _plbart_extras,
}
for _name in list(_CLASS_DEFAULTS):  # the "Fast" names of the same classes
    _CLASS_DEFAULTS[_name + "Fast"] = _CLASS_DEFAULTS[_name]
for _name in list(_CLASS_TOKEN_FLAGS):
    _CLASS_TOKEN_FLAGS[_name + "Fast"] = _CLASS_TOKEN_FLAGS[_name]
for _name in list(_CLASS_EXTRAS):
    _CLASS_EXTRAS[_name + "Fast"] = _CLASS_EXTRAS[_name]
for _name in list(_CLASS_ALIASES):
    _CLASS_ALIASES[_name + "Fast"] = _CLASS_ALIASES[_name]


def same_class_tables(a: str | None, b: str | None) -> bool:
    """Whether classes `a` and `b` (None for none) have the same defaults, token flags and extra
    special tokens here (ModelConfig.from_folder gives the same for either)."""
    a, b = a or "", b or ""
    tables: tuple[Mapping[str, Any], ...] = (_CLASS_DEFAULTS, _CLASS_TOKEN_FLAGS, _CLASS_EXTRAS, _CLASS_ALIASES)
    tables += (_CLASS_SPACE_PREFIXED, _CLASS_RESET_TOKENS)
    return all(table.get(a) is table.get(b) for table in tables)


def _read_json(path: str) -> Any:
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except json.JSONDecodeError as e:
        raise FormatError(path, f"line {e.lineno} column {e.colno}", f"not valid JSON: {e.msg}") from None
    except UnicodeDecodeError as e:
        raise FormatError(path, f"byte {e.start}", "not UTF-8 text") from None


def _read_text(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except UnicodeDecodeError as e:
        raise FormatError(path, f"byte {e.start}", "not UTF-8 text") from None


class _MapToken(dict):  # type: ignore[type-arg]
    """An AddedToken object of special_tokens_map.json: transformers makes it special
    (AddedToken(**value, special=True), its own "special" dropped). `path`: the file."""

    def __init__(self, value: Mapping[str, Any], path: str) -> None:
        super().__init__({k: v for k, v in value.items() if k != "special"}, special=True)
        self.path = path


def _token_entry(value: Any, path: str, field: str) -> tuple[str | None, dict[str, bool] | None]:
    """A special token's text and, for an AddedToken object, the flags it gives (read as
    tokenizers' AddedToken(**object): `special` false where it gives none)."""
    if isinstance(value, _MapToken):
        path = value.path
    text = _token_text(value, path, field)
    if not isinstance(value, dict):
        return text, None
    from .added_tokens import token_flags

    def fail(flag: str, why: str) -> NoReturn:
        raise FormatError(path, f"{field}.{flag}", why)

    special = value.get("special", False)
    if not isinstance(special, bool):
        fail("special", f"must be true or false, got {special!r}")
    return text, token_flags(value, special, fail)


def _special_texts(init: Mapping[str, Any]) -> set[str]:
    """The texts transformers' _from_pretrained counts as special while it reads added_tokens.json:
    str() of each named special token the config or special_tokens_map.json sets (a string, or a
    map's AddedToken; a config's own object is still a dict then, whose str() is no token's text)
    and of each extra_special_tokens entry; class defaults and model-specific tokens are not
    among them yet."""

    def text(value: Any) -> str | None:
        if isinstance(value, _MapToken):
            return str(value["content"])
        return value if isinstance(value, str) else None

    values = [init[name] for name in SPECIAL_TOKEN_NAMES if init.get(name)]
    extra = init.get("extra_special_tokens")
    if isinstance(extra, (list, tuple)):
        values += list(extra)
    return {t for t in map(text, values) if t is not None}


def _legacy_added_tokens(path: str, special: set[str]) -> tuple[tuple[str, int, bool], ...]:
    """A legacy added_tokens.json ({"text": index, ...}) as (text, index, special) in file order;
    () where the file is absent. FormatError for a file that is not such an object (transformers
    fails on it too: an index that is not an integer cannot be sorted with the others)."""
    if not os.path.isfile(path):
        return ()
    loaded = _read_json(path)
    if not isinstance(loaded, dict):
        raise FormatError(path, "", f"must be a JSON object of token -> id, got {type(loaded).__name__}")
    out = []
    for text, index in loaded.items():
        if not isinstance(index, int) or isinstance(index, bool):
            raise FormatError(path, repr(text), f"the id must be an integer, got {index!r}")
        if text:
            out.append((text, index, text in special))
    return tuple(out)


def _same_token(a: Any, b: Any, i: int, j: int) -> bool:
    """Whether two special-token values are equal as transformers compares them while it merges
    special_tokens_map.json's list (`i`, `j`: their places in the merged extra_special_tokens,
    for errors): a str equals a str of its text, an AddedToken one of the same content and flags,
    as added_tokens.AddedToken resolves them; the config's own objects are not AddedTokens yet."""
    if isinstance(a, _MapToken) and isinstance(b, _MapToken):
        field = "extra_special_tokens[{}]"
        return _map_added_token(a, field.format(i)) == _map_added_token(b, field.format(j))
    return isinstance(a, str) and isinstance(b, str) and a == b


def _map_added_token(value: _MapToken, field: str) -> Any:
    """A special_tokens_map.json object as the AddedToken transformers makes of it (its id unused)."""
    from .added_tokens import AddedToken

    text, flags = _token_entry(value, value.path, field)
    return AddedToken(text or "", 0, **(flags or {}))


def _token_text(value: Any, path: str, field: str) -> str | None:
    """A special token's text: a str, or an AddedToken as transformers serializes it (a dict with
    "content"); None where the config says null."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, dict) and isinstance(value.get("content"), str):
        return str(value["content"])
    raise FormatError(
        path, field, f'a special token must be a string or an object with a "content" string, got {value!r}'
    )


def _templates_from_config(value: Any, path: str, field: str) -> ChatTemplates | None:
    """A config's chat_template: one template (str) or named ones ([{"name": ..., "template": ...}])."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, list):
        templates = {}
        for i, entry in enumerate(value):
            if not (
                isinstance(entry, dict)
                and isinstance(entry.get("name"), str)
                and isinstance(entry.get("template"), str)
            ):
                raise FormatError(
                    path,
                    f"{field}[{i}]",
                    f'a named chat template must be {{"name": str, "template": str}}, got {entry!r}',
                )
            templates[entry["name"]] = entry["template"]
        return templates
    raise FormatError(
        path, field, f"must be a template string or a list of named templates, got {type(value).__name__}"
    )


# The classes whose constructor names no pad_token keyword (none of their own, or Llama's and
# CodeLlama's, which leave it in **kwargs): none hides the one tokenizer.json's padding gives.
_GENERIC_CLASSES = frozenset(
    ("", "TokenizersBackend", "PreTrainedTokenizerFast", "LlamaTokenizer", "CodeLlamaTokenizer")
)


@dataclasses.dataclass(frozen=True)
class ModelConfig:
    """The settings of a model folder that transformers reads beside tokenizer.json.

    `special_tokens` maps the named special tokens set (bos_token, eos_token, unk_token,
    sep_token, pad_token, cls_token, mask_token, then model-specific ones such as Gemma's
    image_token) to their text: the keywords apply_chat_template passes to a template.
    `add_bos_token` / `add_eos_token` are the config's values (None where absent; transformers 5
    ignores them when tokenizer.json exists, whose post-processor decides). `chat_template` is
    one template, named templates, or None."""

    path: str
    special_tokens: dict[str, str]
    extra_special_tokens: tuple[str, ...] = ()
    # The flags of the special tokens given as AddedToken objects (by name in special_tokens;
    # by position in extra_special_tokens, None for a plain string): what each sets, `special`
    # always, the others only where given (added_tokens.AddedToken holds the defaults).
    special_token_flags: Mapping[str, Mapping[str, bool]] = dataclasses.field(default_factory=dict, repr=False)
    extra_special_token_flags: tuple[Mapping[str, bool] | None, ...] = dataclasses.field(default=(), repr=False)
    # The legacy added_tokens.json of a folder whose config has no added_tokens_decoder: (text,
    # index, special) in file order, `special` where the text is one of the named or extra special
    # tokens the config and special_tokens_map.json give (added_tokens.config_added_tokens adds them).
    legacy_added_tokens: tuple[tuple[str, int, bool], ...] = dataclasses.field(default=(), repr=False)
    # How many of extra_special_tokens (the last ones) a class lists only after its tokens are
    # added (MBart50's language codes beside a config's list): transformers never adds them.
    late_extra_special_tokens: int = dataclasses.field(default=0, repr=False)
    # The named tokens that were added with another text than the one special_tokens gives (a
    # class set its own value after adding): name -> the text added.
    added_special_tokens: Mapping[str, str] = dataclasses.field(default_factory=dict, repr=False)
    add_bos_token: bool | None = None
    add_eos_token: bool | None = None
    model_max_length: int = VERY_LARGE_INTEGER
    padding_side: str = "right"
    truncation_side: str = "right"
    clean_up_tokenization_spaces: bool = False
    chat_template: ChatTemplates | None = None
    tokenizer_class: str | None = None
    config: Mapping[str, Any] = dataclasses.field(default_factory=dict, repr=False)
    # The class AutoTokenizer builds for the folder (without "Fast"; None: TokenizersBackend), as
    # Tokenizer.from_pretrained routes it: its model_input_names (transformers_api.py)
    transformers_class: str | None = None

    @property
    def bos_token(self) -> str | None:
        return self.special_tokens.get("bos_token")

    @property
    def eos_token(self) -> str | None:
        return self.special_tokens.get("eos_token")

    @property
    def pad_token(self) -> str | None:
        return self.special_tokens.get("pad_token")

    @property
    def unk_token(self) -> str | None:
        return self.special_tokens.get("unk_token")

    @property
    def chat_templates(self) -> dict[str, str]:
        """Every template by name; a single template is named "default"."""
        if self.chat_template is None:
            return {}
        if isinstance(self.chat_template, str):
            return {"default": self.chat_template}
        return dict(self.chat_template)

    def get_chat_template(self, chat_template: str | None = None, tools: Sequence[Any] | None = None) -> str:
        """The template source transformers would render (see `select_chat_template`)."""
        return select_chat_template(self.chat_template, chat_template, tools)

    def render_chat(
        self,
        conversation: Any,
        *,
        chat_template: str | None = None,
        tools: Sequence[Mapping[str, Any]] | None = None,
        documents: Sequence[Mapping[str, Any]] | None = None,
        add_generation_prompt: bool = False,
        continue_final_message: bool | str = False,
        **kwargs: Any,
    ) -> Any:
        """`apply_chat_template(conversation, ..., tokenize=False)` for this folder: the template
        picked by name or default, the special tokens as template variables (`kwargs` win)."""
        source = self.get_chat_template(chat_template, tools)
        return render_chat_template(
            source,
            conversation,
            add_generation_prompt=add_generation_prompt,
            continue_final_message=continue_final_message,
            tools=tools,
            documents=documents,
            **{**self.special_tokens, **kwargs},
        )

    @classmethod
    def from_folder(
        cls,
        folder: str | os.PathLike[str],
        class_name: str | None = None,
        loader_init: Mapping[str, Any] | None = None,
        file_settings: Mapping[str, Any] | None = None,
    ) -> ModelConfig:
        """Read a model folder's tokenizer_config.json, special_tokens_map.json and chat templates
        with transformers' precedence:

        - chat templates: chat_template.jinja ("default") and additional_chat_templates/*.jinja
          (named by file) replace the config's "chat_template"; that is a string or a list of
          {"name", "template"}; a processor's chat_template.json ({"chat_template": ...}) is used
          only where neither gives one.
        - special tokens: the config's values (strings or AddedToken objects), then, only when
          the config has no "added_tokens_decoder" (older folders), special_tokens_map.json's
          values over them; keys a config leaves out take the defaults of known tokenizer classes.

        `loader_init` are keywords transformers' loader passes the class over the config's (a
        folder without tokenizer.json: the sentencepiece model's control and user-defined
        pieces as additional_special_tokens, formats/slow_files.py).
        `file_settings` are what tokenizer.json's truncation and padding give transformers'
        TokenizersBackend beneath the config's keys: truncation_side, padding_side (over the
        class's default) and, for a class that names no pad token of its own, pad_token.
        The class defaults are those of `class_name` (the class AutoTokenizer builds, as
        Tokenizer.from_pretrained finds it: formats/transformers_classes.transformers_class; ""
        for none) where given, else of the config's tokenizer_class.

        Raises FormatError naming the file and field for malformed JSON or wrong types, and
        FileNotFoundError when `folder` is not a directory."""
        folder = os.fspath(folder)
        if not os.path.isdir(folder):
            raise FileNotFoundError(f"{folder}: not a model folder (a directory with tokenizer_config.json)")
        config_path = os.path.join(folder, TOKENIZER_CONFIG_FILE)
        config: dict[str, Any] = {}
        if os.path.isfile(config_path):
            loaded = _read_json(config_path)
            if not isinstance(loaded, dict):
                raise FormatError(config_path, "", f"must be a JSON object, got {type(loaded).__name__}")
            config = loaded

        def field(name: str, types: tuple[type, ...], what: str) -> Any:
            value = config.get(name)
            if value is not None and (not isinstance(value, types) or (bool not in types and isinstance(value, bool))):
                raise FormatError(config_path, name, f"must be {what}, got {value!r}")
            return value

        tokenizer_class = field("tokenizer_class", (str,), "a class name")
        class_name = (tokenizer_class or "") if class_name is None else class_name
        defaults = _CLASS_DEFAULTS.get(class_name, {})

        # Named special tokens: the config, special_tokens_map.json for older folders, class defaults,
        # gathered as transformers' _from_pretrained and PreTrainedTokenizerBase.__init__ do. Each is
        # kept as its text and, where the file gives an AddedToken object, the flags it sets
        # (transformers adds the tokens tokenizer.json lacks: tokenizer.py's from_pretrained).
        init: dict[str, Any] = dict(config)
        for alias, key in _CLASS_ALIASES.get(class_name, {}).items():
            if alias in init:  # the class pops the other name and passes it on as the usual one
                value = init.pop(alias)
                if isinstance(value, str) and key in _CLASS_SPACE_PREFIXED.get(class_name, ()):
                    value = "\u2581" + value  # mLUKE passes str(AddedToken("\u2581" + text)) on
                init.setdefault(key, value)  # (the config's own key names the token where given)
        where = dict.fromkeys(init, config_path)
        if "additional_special_tokens" in init and not init.get("extra_special_tokens"):
            init["extra_special_tokens"] = init.pop("additional_special_tokens")
            where["extra_special_tokens"] = config_path
        # (the loader's keywords come after that: a sentencepiece model's additional_special_tokens
        # reach the class as its argument, as convert_to_native_format passes them)
        init.update(loader_init or {})
        where.update(dict.fromkeys(loader_init or {}, config_path))
        # model-specific tokens given as strings (and extra_special_tokens given as an object)
        explicit = {
            k: init.pop(k)
            for k in list(init)
            if k not in SPECIAL_TOKEN_NAMES and k.endswith("_token") and isinstance(init[k], str)
        }
        if isinstance(init.get("extra_special_tokens"), dict):
            explicit.update(init.pop("extra_special_tokens"))
        map_path = os.path.join(folder, SPECIAL_TOKENS_MAP_FILE)
        if "added_tokens_decoder" not in config and os.path.isfile(map_path):
            special_map = _read_json(map_path)
            if not isinstance(special_map, dict):
                raise FormatError(map_path, "", f"must be a JSON object, got {type(special_map).__name__}")
            for key, value in special_map.items():
                # its objects become special AddedTokens; its extra_special_tokens list is merged
                if isinstance(value, dict) and key != "extra_special_tokens":
                    value = _MapToken(value, map_path)
                elif key == "extra_special_tokens" and isinstance(value, list):
                    merged = list(init.get("extra_special_tokens") or [])
                    for k, token in enumerate(value):
                        if isinstance(token, dict) and "special" in token:
                            # AddedToken(**token, special=True): transformers raises TypeError
                            raise FormatError(
                                map_path,
                                f"extra_special_tokens[{k}].special",
                                "must be left out (transformers makes the list's tokens special itself)",
                            )
                        token = _MapToken(token, map_path) if isinstance(token, dict) else token
                        if not any(_same_token(token, t, len(merged), j) for j, t in enumerate(merged)):
                            merged.append(token)
                    value = merged
                init[key] = value
                where[key] = map_path
            if isinstance(init.get("extra_special_tokens"), dict):
                explicit.update(init.pop("extra_special_tokens"))
        if class_name == "GPTSw3Tokenizer" and "gpt-sw3-7b" in folder:
            # (its __init__ reads name_or_path: there, the pad token is the unknown token and the
            # bos token the eos token, where not given)
            for key, like in (("pad_token", "unk_token"), ("bos_token", "eos_token")):
                if init.get(key) is None:
                    same = init.get(like)
                    defaults = {**defaults, key: defaults[like] if same is None else _token_text_of(same)}
        file_settings = file_settings or {}
        if "pad_token" in file_settings and "pad_token" not in init and class_name in _GENERIC_CLASSES:
            init["pad_token"] = file_settings["pad_token"]  # (kwargs.setdefault, under the config's)
        legacy_added = (
            ()
            if "added_tokens_decoder" in config
            else _legacy_added_tokens(os.path.join(folder, ADDED_TOKENS_FILE), _special_texts(init))
        )
        if class_name in _CLASS_EXTRAS:  # the class's __init__, after _from_pretrained read the files
            _CLASS_EXTRAS[class_name](init, config, config_path)
        if "additional_special_tokens" in init and "extra_special_tokens" not in init:
            init["extra_special_tokens"] = init.pop("additional_special_tokens")
            where["extra_special_tokens"] = where.get("additional_special_tokens", config_path)

        special: dict[str, str] = {}
        flags: dict[str, dict[str, bool]] = {}

        def entry(name: str, value: Any, field: str) -> str | None:
            text, given = _token_entry(value, where.get(name, config_path), field)
            if given is not None:
                flags[name] = given
            return text

        for name in SPECIAL_TOKEN_NAMES:
            value = entry(name, init[name], name) if name in init else defaults.get(name)
            if value is not None and name not in flags and name in _CLASS_TOKEN_FLAGS.get(class_name, {}):
                flags[name] = dict(_CLASS_TOKEN_FLAGS[class_name][name])  # the class wraps the string
            if value is not None:
                special[name] = value
        extra = init.get("extra_special_tokens")
        extra_list: list[str] = []
        extra_flags: list[dict[str, bool] | None] = []
        if isinstance(extra, list):
            for i, value in enumerate(extra):
                path = where.get("extra_special_tokens", config_path)
                text, given = _token_entry(value, path, f"extra_special_tokens[{i}]")
                if text is not None:
                    extra_list.append(text)
                    extra_flags.append(given)
        elif extra is not None:
            raise FormatError(
                config_path, "extra_special_tokens", f"must be a list or an object of tokens, got {extra!r}"
            )
        late = [t for t in dict.fromkeys(init.pop(_LATE_EXTRAS, ())) if t not in extra_list]
        extra_list += late
        extra_flags += [None] * len(late)
        # model-specific tokens: AddedToken objects left among the keys (as __init__ finds them),
        # then those given as strings
        model_specific: dict[str, str] = {}
        for key, text in defaults.get("model_specific", {}).items():
            # a class that passes tokens of its own to super().__init__ (CodeLlama's prefix_token,
            # ...): they come first; a config's null drops one, a config's value replaces it below
            if not (key in init and init[key] is None):
                model_specific[key] = text
        for key, value in init.items():
            is_object = isinstance(value, _MapToken) or (
                isinstance(value, dict) and value.get("__type") == "AddedToken"
            )
            if is_object and key.endswith("_token") and key not in SPECIAL_TOKEN_NAMES and key not in explicit:
                model_specific[key] = entry(key, value, key) or ""
        for key, value in explicit.items():
            text = entry(key, value, key if key in config else f"extra_special_tokens.{key}")
            if text is not None:
                model_specific[key] = text
        special.update(model_specific)
        # a class that sets a named token to its own value after the tokens are added (Splinter's
        # `self.question_token = question_token`: the config's string never reached it)
        added_as: dict[str, str] = {}
        for key, value in _CLASS_RESET_TOKENS.get(class_name, {}).items():
            if key in special and special[key] != value:
                added_as[key] = special[key]
                special[key] = value

        add_bos = field("add_bos_token", (bool,), "true or false")
        add_eos = field("add_eos_token", (bool,), "true or false")
        max_length = config.get("model_max_length", config.get("max_len"))
        if max_length is None:
            max_length = defaults.get("model_max_length")  # (a class's own default: Siglip's 64)
        if max_length is not None:
            if isinstance(max_length, float) and max_length.is_integer():
                max_length = int(max_length)
            if not isinstance(max_length, int) or isinstance(max_length, bool) or max_length < 0:
                raise FormatError(
                    config_path, "model_max_length", f"must be a non-negative integer, got {max_length!r}"
                )
        sides = {}
        for name in ("padding_side", "truncation_side"):
            side = config.get(name, file_settings.get(name, defaults.get(name, "right")))
            if side not in ("right", "left"):
                raise FormatError(config_path, name, f'must be "right" or "left", got {side!r}')
            sides[name] = side
        clean_up = field("clean_up_tokenization_spaces", (bool,), "true or false")
        if clean_up is None:
            clean_up = defaults.get("clean_up_tokenization_spaces")  # (a class's own default: PLBart's)

        templates = _templates_from_config(config.get("chat_template"), config_path, "chat_template")
        from_files: dict[str, str] = {}
        jinja_path = os.path.join(folder, CHAT_TEMPLATE_FILE)
        if os.path.isfile(jinja_path):
            from_files["default"] = _read_text(jinja_path)
        template_dir = os.path.join(folder, CHAT_TEMPLATE_DIR)
        if os.path.isdir(template_dir):
            for name in sorted(os.listdir(template_dir)):
                file = os.path.join(template_dir, name)
                if name.endswith(".jinja") and os.path.isfile(file):
                    from_files[name[: -len(".jinja")]] = _read_text(file)
        if from_files:
            templates = from_files["default"] if list(from_files) == ["default"] else from_files
        elif templates is None:
            legacy_path = os.path.join(folder, LEGACY_CHAT_TEMPLATE_FILE)
            if os.path.isfile(legacy_path):
                legacy = _read_json(legacy_path)
                if not isinstance(legacy, dict) or "chat_template" not in legacy:
                    raise FormatError(legacy_path, "chat_template", 'must be an object with a "chat_template" key')
                templates = _templates_from_config(legacy["chat_template"], legacy_path, "chat_template")

        return cls(
            path=folder,
            special_tokens=special,
            extra_special_tokens=tuple(extra_list),
            special_token_flags=flags,
            extra_special_token_flags=tuple(extra_flags),
            late_extra_special_tokens=len(late),
            added_special_tokens=added_as,
            legacy_added_tokens=legacy_added,
            add_bos_token=add_bos,
            add_eos_token=add_eos,
            model_max_length=VERY_LARGE_INTEGER if max_length is None else max_length,
            padding_side=sides["padding_side"],
            truncation_side=sides["truncation_side"],
            clean_up_tokenization_spaces=bool(clean_up) if clean_up is not None else False,
            chat_template=templates,
            tokenizer_class=tokenizer_class,
            config=config,
        )

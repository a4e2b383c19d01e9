"""A scripted model server for the real clients, bound to 127.0.0.1.

It speaks the three wire protocols the clients call, just enough for a client
to run its tool loop:

* ``anthropic``: the Messages API (``POST /v1/messages``, SSE when ``stream``
  is true), what Claude Code calls through ``ANTHROPIC_BASE_URL``;
* ``gemini``: the Gemini API (``:streamGenerateContent?alt=sse``,
  ``:generateContent``, ``:countTokens``), what Gemini CLI calls through
  ``GOOGLE_GEMINI_BASE_URL``;
* ``responses``: the OpenAI Responses API (``POST /v1/responses``, SSE), what
  Codex calls through a custom ``model_providers`` entry.

A script is a list of `Turn`s: the tool calls the "model" makes, then a text.
Which turn a request gets is read from the conversation it carries (how many
model turns it already holds), so a client's retry gets the same turn again.
Requests that are not the agent loop (a title, a classifier, a summary: no
tools offered) get a short text and consume nothing. A `Turn` with ``agent``
set is answered only to a conversation whose first user text holds that marker
(a subagent's prompt), from its own script.

Bounded: after ``max_requests`` requests every further one is refused with
HTTP 400 (and counted in ``overflow``), and after ``time_limit`` seconds the
server shuts itself down. Every request is recorded (`Recorded`), so a test
can check what the model was shown.
"""

from __future__ import annotations

import gzip
import itertools
import json
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Input = dict[str, Any] | str


@dataclass(frozen=True)
class Call:
    """One tool call of the model: a name and its input (a string for a freeform tool).

    The input may be a function of the conversation so far (the request body as
    JSON text): a scripted model that uses what a previous tool returned.
    """

    name: str
    input: Input | Callable[[str], Input]

    def resolved(self, conversation: str) -> Call:
        if callable(self.input):
            return Call(self.name, self.input(conversation))
        return self


@dataclass(frozen=True)
class Turn:
    calls: tuple[Call, ...] = ()
    text: str = ""


def turn(*calls: Call, text: str = "") -> Turn:
    return Turn(tuple(calls), text)


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: Any
    loop: bool  # an agent-loop request (tools offered)
    turn: int | None  # the script turn it was answered with


@dataclass
class Script:
    """The orchestrator's turns, and per marker the turns of a subagent."""

    turns: list[Turn]
    agents: dict[str, list[Turn]] = field(default_factory=dict)
    final: str = "All done."


DEFAULT_SIDE_TEXT = "ok"


class ModelServer:
    def __init__(
        self,
        api: str,
        script: Script,
        *,
        max_requests: int = 60,
        time_limit: float = 150.0,
    ) -> None:
        if api not in ("anthropic", "gemini", "responses"):
            raise ValueError(f"unknown api {api!r}")
        self.api = api
        self.script = script
        self.max_requests = max_requests
        self.time_limit = time_limit
        self.requests: list[Recorded] = []
        self.overflow = 0
        self.timed_out = False
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._timer = threading.Timer(time_limit, self._expire)
        self._timer.daemon = True

    # -- lifecycle

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> ModelServer:
        self._thread.start()
        self._timer.start()
        return self

    def stop(self) -> None:
        self._timer.cancel()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def _expire(self) -> None:
        self.timed_out = True
        threading.Thread(target=self._httpd.shutdown, daemon=True).start()

    # -- what the test reads

    def loop_requests(self) -> list[Recorded]:
        return [r for r in self.requests if r.loop]

    def shown(self) -> str:
        """Every agent-loop request body as one JSON text (what the model was shown)."""
        return "\n".join(json.dumps(r.body, ensure_ascii=False) for r in self.loop_requests())

    def tool_outputs(self) -> list[str]:
        """The text of every tool result the client sent back, in order, deduplicated."""
        seen: list[str] = []
        for request in self.loop_requests():
            for text in _tool_outputs(self.api, request.body):
                if text not in seen:
                    seen.append(text)
        return seen

    def answered_turns(self) -> set[int]:
        return {r.turn for r in self.loop_requests() if r.turn is not None}

    # -- HTTP

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                return

            def _body(self) -> Any:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                encoding = (self.headers.get("content-encoding") or "").lower()
                if encoding == "gzip":
                    raw = gzip.decompress(raw)
                elif encoding == "deflate":
                    raw = zlib.decompress(raw)
                elif encoding == "zstd":
                    raise ValueError("zstd request bodies are not supported")
                if not raw:
                    return None
                try:
                    return json.loads(raw)
                except ValueError:
                    return raw.decode("utf-8", "replace")

            def _send(self, status: int, body: bytes, content_type: str) -> None:
                self.send_response(status)
                self.send_header("content-type", content_type)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _serve(self) -> None:
                try:
                    body = self._body()
                except ValueError as exc:
                    self._send(400, json.dumps({"error": str(exc)}).encode(), "application/json")
                    return
                with server._lock:
                    if len(server.requests) >= server.max_requests:
                        server.overflow += 1
                        over = True
                    else:
                        over = False
                if over:
                    error = {"error": {"type": "invalid_request_error", "message": "request bound"}}
                    self._send(400, json.dumps(error).encode(), "application/json")
                    return
                status, payload, content_type = server._answer(
                    self.command, self.path, dict(self.headers), body
                )
                self._send(status, payload, content_type)

            do_POST = _serve
            do_GET = _serve
            do_HEAD = _serve
            do_PUT = _serve

        return Handler

    # -- answers

    def _answer(
        self, method: str, path: str, headers: dict[str, str], body: Any
    ) -> tuple[int, bytes, str]:
        loop = _is_loop(self.api, path, body)
        chosen: Turn | None = None
        index: int | None = None
        if loop:
            turns, index = self._pick(body)
            chosen = turns[index] if index < len(turns) else Turn(text=self.script.final)
            if any(callable(c.input) for c in chosen.calls):
                text = json.dumps(body, ensure_ascii=False)
                chosen = Turn(tuple(c.resolved(text) for c in chosen.calls), chosen.text)
        with self._lock:
            self.requests.append(Recorded(method, path, headers, body, loop, index))
        if chosen is None:
            chosen = Turn(text=DEFAULT_SIDE_TEXT)
        if self.api == "anthropic":
            return self._anthropic(path, body, chosen)
        if self.api == "gemini":
            return self._gemini(path, body, chosen)
        return self._responses(path, body, chosen)

    def _pick(self, body: Any) -> tuple[list[Turn], int]:
        first = _first_user_text(self.api, body)
        turns = self.script.turns
        for marker, agent_turns in self.script.agents.items():
            if marker in first:
                turns = agent_turns
                break
        return turns, _model_turns(self.api, body)

    def _next_id(self, prefix: str) -> str:
        return f"{prefix}{next(self._ids):04d}"

    def _anthropic(self, path: str, body: Any, chosen: Turn) -> tuple[int, bytes, str]:
        if "count_tokens" in path:
            return 200, b'{"input_tokens": 100}', "application/json"
        if not path.startswith("/v1/messages"):
            return (
                404,
                b'{"error":{"type":"not_found_error","message":"no such path"}}',
                "application/json",
            )
        model = body.get("model", "claude") if isinstance(body, dict) else "claude"
        blocks: list[dict[str, Any]] = []
        if chosen.text or not chosen.calls:
            blocks.append({"type": "text", "text": chosen.text or "ok"})
        for call in chosen.calls:
            blocks.append(
                {
                    "type": "tool_use",
                    "id": self._next_id("toolu_zod"),
                    "name": call.name,
                    "input": call.input,
                }
            )
        stop = "tool_use" if chosen.calls else "end_turn"
        message = {
            "id": self._next_id("msg_zod"),
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": blocks,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": 100, "output_tokens": 20},
        }
        if not (isinstance(body, dict) and body.get("stream")):
            return 200, json.dumps(message).encode(), "application/json"
        return 200, b"".join(_anthropic_events(message)), "text/event-stream"

    def _gemini(self, path: str, body: Any, chosen: Turn) -> tuple[int, bytes, str]:
        if ":countTokens" in path:
            return 200, b'{"totalTokens": 100}', "application/json"
        if ":generateContent" not in path and ":streamGenerateContent" not in path:
            return (
                404,
                b'{"error":{"code":404,"message":"no such path","status":"NOT_FOUND"}}',
                "application/json",
            )
        parts: list[dict[str, Any]] = []
        schema = _json_schema(body)
        if schema is not None and not chosen.calls:
            # generateJson (the model router's classifier, the next-speaker check):
            # an answer of the asked shape, or the client retries for minutes.
            parts.append({"text": json.dumps(_instance(schema))})
        elif chosen.text or not chosen.calls:
            parts.append({"text": chosen.text or DEFAULT_SIDE_TEXT})
        for call in chosen.calls:
            parts.append({"functionCall": {"name": call.name, "args": call.input}})
        response = {
            "candidates": [
                {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {
                "promptTokenCount": 100,
                "candidatesTokenCount": 20,
                "totalTokenCount": 120,
            },
            "modelVersion": "gemini-2.5-pro",
        }
        if ":streamGenerateContent" in path:
            return 200, f"data: {json.dumps(response)}\r\n\r\n".encode(), "text/event-stream"
        return 200, json.dumps(response).encode(), "application/json"

    def _responses(self, path: str, body: Any, chosen: Turn) -> tuple[int, bytes, str]:
        if not path.rstrip("/").endswith("/responses"):
            if path.rstrip("/").endswith("/models"):
                return 200, b'{"object":"list","data":[]}', "application/json"
            return 404, b'{"error":{"message":"no such path"}}', "application/json"
        freeform = _freeform_tools(body)
        items: list[dict[str, Any]] = []
        for call in chosen.calls:
            call_id = self._next_id("call_zod")
            if call.name in freeform or isinstance(call.input, str):
                text = call.input if isinstance(call.input, str) else json.dumps(call.input)
                items.append(
                    {
                        "type": "custom_tool_call",
                        "id": self._next_id("ctc_"),
                        "call_id": call_id,
                        "name": call.name,
                        "input": text,
                        "status": "completed",
                    }
                )
            else:
                items.append(
                    {
                        "type": "function_call",
                        "id": self._next_id("fc_"),
                        "call_id": call_id,
                        "name": call.name,
                        "arguments": json.dumps(call.input),
                        "status": "completed",
                    }
                )
        if chosen.text or not chosen.calls:
            items.append(
                {
                    "type": "message",
                    "id": self._next_id("msg_"),
                    "role": "assistant",
                    "status": "completed",
                    "content": [
                        {
                            "type": "output_text",
                            "text": chosen.text or DEFAULT_SIDE_TEXT,
                            "annotations": [],
                        }
                    ],
                }
            )
        return 200, b"".join(_responses_events(self._next_id("resp_"), items)), "text/event-stream"


# -- protocol details


def _sse(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


def _anthropic_events(message: dict[str, Any]) -> Iterator[bytes]:
    start = {
        **message,
        "content": [],
        "stop_reason": None,
        "usage": {"input_tokens": 100, "output_tokens": 1},
    }
    yield _sse("message_start", {"type": "message_start", "message": start})
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            yield _sse(
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": {"type": "text", "text": ""},
                },
            )
            yield _sse(
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "text_delta", "text": block["text"]},
                },
            )
        else:
            head = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            yield _sse(
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": head},
            )
            yield _sse(
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {
                        "type": "input_json_delta",
                        "partial_json": json.dumps(block["input"]),
                    },
                },
            )
        yield _sse("content_block_stop", {"type": "content_block_stop", "index": index})
    yield _sse(
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
            "usage": {"output_tokens": 20},
        },
    )
    yield _sse("message_stop", {"type": "message_stop"})


def _responses_events(response_id: str, items: list[dict[str, Any]]) -> Iterator[bytes]:
    now = int(time.time())
    base = {
        "id": response_id,
        "object": "response",
        "created_at": now,
        "status": "in_progress",
        "model": "zod-scripted",
        "output": [],
    }
    yield _sse("response.created", {"type": "response.created", "response": base})
    for index, item in enumerate(items):
        yield _sse(
            "response.output_item.added",
            {"type": "response.output_item.added", "output_index": index, "item": item},
        )
        yield _sse(
            "response.output_item.done",
            {"type": "response.output_item.done", "output_index": index, "item": item},
        )
    usage = {
        "input_tokens": 100,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 20,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 120,
    }
    done = {**base, "status": "completed", "output": items, "usage": usage}
    yield _sse("response.completed", {"type": "response.completed", "response": done})


def _is_loop(api: str, path: str, body: Any) -> bool:
    if not isinstance(body, dict):
        return False
    if api == "anthropic":
        if "count_tokens" in path:
            return False
        names = {t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)}
        return "Bash" in names or "Write" in names or "Edit" in names
    if api == "gemini":
        if ":countTokens" in path:
            return False
        declared = [
            d.get("name")
            for tool in body.get("tools") or []
            if isinstance(tool, dict)
            for d in tool.get("functionDeclarations") or []
        ]
        return bool(declared)
    return path.rstrip("/").endswith("/responses") and bool(body.get("tools"))


def _json_schema(body: Any) -> Any:
    if not isinstance(body, dict):
        return None
    config = body.get("generationConfig") or {}
    if config.get("responseMimeType") != "application/json":
        return None
    return config.get("responseJsonSchema") or config.get("responseSchema") or {}


def _instance(schema: Any) -> Any:
    """A value of the JSON schema's shape: enums take their first value."""
    if not isinstance(schema, dict):
        return None
    if schema.get("enum"):
        return schema["enum"][0]
    kind = str(schema.get("type", "object")).lower()
    if kind == "object":
        props = schema.get("properties") or {}
        return {name: _instance(props.get(name)) for name in schema.get("required") or list(props)}
    if kind == "array":
        return []
    if kind in ("integer", "number"):
        return 1
    if kind == "boolean":
        return False
    return "ok"


def _freeform_tools(body: Any) -> set[str]:
    if not isinstance(body, dict):
        return set()
    return {
        str(t.get("name"))
        for t in body.get("tools") or []
        if isinstance(t, dict) and t.get("type") == "custom"
    }


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(_text_of(part) for part in content)
    if isinstance(content, dict):
        for key in ("text", "content", "output"):
            if key in content:
                return _text_of(content[key])
    return ""


def _first_user_text(api: str, body: Any) -> str:
    if not isinstance(body, dict):
        return ""
    if api == "anthropic":
        for message in body.get("messages") or []:
            if message.get("role") == "user":
                return _text_of(message.get("content"))
    elif api == "gemini":
        for content in body.get("contents") or []:
            if content.get("role") == "user":
                return "\n".join(str(p.get("text", "")) for p in content.get("parts") or [])
    else:
        texts = [
            _text_of(item.get("content"))
            for item in body.get("input") or []
            if isinstance(item, dict) and item.get("role") == "user"
        ]
        return "\n".join(texts)
    return ""


MODEL_ITEMS = ("function_call", "custom_tool_call", "local_shell_call", "reasoning")


def _model_turns(api: str, body: Any) -> int:
    """How many model turns the conversation already holds."""
    if api == "anthropic":
        return sum(1 for m in body.get("messages") or [] if m.get("role") == "assistant")
    if api == "gemini":
        return sum(1 for c in body.get("contents") or [] if c.get("role") == "model")
    count = 0
    previous_was_model = False
    for item in body.get("input") or []:
        model = isinstance(item, dict) and (
            item.get("type") in MODEL_ITEMS
            or (item.get("type", "message") == "message" and item.get("role") == "assistant")
        )
        if model and not previous_was_model:
            count += 1
        previous_was_model = bool(model)
    return count


def _tool_outputs(api: str, body: Any) -> Iterator[str]:
    if not isinstance(body, dict):
        return
    if api == "anthropic":
        for message in body.get("messages") or []:
            content = message.get("content")
            if isinstance(content, list):
                for block in content:
                    if isinstance(block, dict) and block.get("type") == "tool_result":
                        yield _text_of(block.get("content"))
    elif api == "gemini":
        for content in body.get("contents") or []:
            for part in content.get("parts") or []:
                if isinstance(part, dict) and "functionResponse" in part:
                    yield json.dumps(part["functionResponse"].get("response"), ensure_ascii=False)
    else:
        for item in body.get("input") or []:
            if isinstance(item, dict) and item.get("type") in (
                "function_call_output",
                "custom_tool_call_output",
            ):
                yield _text_of(item.get("output"))

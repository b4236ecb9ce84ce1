"""The scripted model server itself, over real HTTP (httpx)."""

from __future__ import annotations

import json

import httpx

from ditto_nb.testing.scripted_model import PURPOSE_HEADER, ScriptedModel, ScriptedReply


def test_queue_models_and_usage() -> None:
    with ScriptedModel(model_name="tiny") as model:
        assert model.base_url == f"http://127.0.0.1:{model.port}/v1"
        models = httpx.get(f"{model.base_url}/models").json()
        assert models["data"][0]["id"] == "tiny"
        model.enqueue({"a": 1})
        model.enqueue("second", finish_reason="length")
        body = {"model": "tiny", "messages": [{"role": "user", "content": "x" * 40}]}
        first = httpx.post(f"{model.base_url}/chat/completions", json=body).json()
        assert json.loads(first["choices"][0]["message"]["content"]) == {"a": 1}
        assert first["usage"]["prompt_tokens"] == 10
        second = httpx.post(f"{model.base_url}/chat/completions", json=body).json()
        assert second["choices"][0]["finish_reason"] == "length"
        empty = httpx.post(f"{model.base_url}/chat/completions", json=body)
        assert empty.status_code == 500 and "no scripted reply" in empty.text
        assert model.call_count == 3 and model.unanswered == 1 and model.requests[0] == body


def test_responder_status_and_purpose_header() -> None:
    with ScriptedModel() as model:
        model.responder = lambda req: ScriptedReply(None, status=503) if req["purpose"] == "down" else None
        model.enqueue("queued")
        down = httpx.post(f"{model.base_url}/chat/completions", json={"messages": []}, headers={PURPOSE_HEADER: "down"})
        assert down.status_code == 503 and down.json()["error"]["code"] == 503
        ok = httpx.post(f"{model.base_url}/chat/completions", json={"messages": []}, headers={PURPOSE_HEADER: "up"})
        assert ok.json()["choices"][0]["message"]["content"] == "queued"
    model.stop()  # idempotent


def test_overlapping_calls_are_recorded() -> None:
    import threading

    with ScriptedModel() as model:
        together = threading.Barrier(3, timeout=10)

        def responder(request: dict[str, object]) -> str:
            if request["purpose"] == "together":
                together.wait()  # all three calls are in flight at once
            return "ok"

        model.responder = responder
        body = {"messages": []}
        httpx.post(f"{model.base_url}/chat/completions", json=body, headers={PURPOSE_HEADER: "alone"})
        httpx.post(f"{model.base_url}/chat/completions", json=body, headers={PURPOSE_HEADER: "alone"})
        assert model.overlaps == 0 and model.max_in_flight == 1
        threads = [threading.Thread(target=httpx.post, args=(f"{model.base_url}/chat/completions",),
                                    kwargs={"json": body, "headers": {PURPOSE_HEADER: "together"}}) for _ in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=15)
        assert model.overlaps == 2 and model.max_in_flight == 3

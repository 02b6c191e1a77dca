"""Optional LLM engine over an OpenAI-compatible chat-completions endpoint (off by default).

The rules still decide everything they can; the model is asked only about ties, with the
unit's facts and its nearest decided neighbours, and must answer a JSON object
``{"mode": "mandatory_success"|"skip", "rationale": "..."}``. Any transport or format
problem falls back to the neighbour vote, and the rationale says so.
"""

from __future__ import annotations

import json
import os
from typing import Mapping

import requests
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

from testing.config.modes import Mode
from tools.select.bucket.engines import Context, DeterministicEngine, neighbour_vote
from tools.select.bucket.facts import UnitFacts
from tools.select.bucket.rules import Verdict

SYSTEM_PROMPT = (
    "You classify one PyTorch device-generic test for an accelerator backend. Reply with only a JSON "
    'object {"mode": "mandatory_success" or "skip", "rationale": one sentence}. Choose '
    "mandatory_success only if the facts show the backend supports what the test runs."
)


def _session(retries: int) -> requests.Session:
    session = requests.Session()
    policy = Retry(
        total=retries,
        backoff_factor=0.2,
        status_forcelist=(429, 500, 502, 503, 504),
        allowed_methods=frozenset({"POST"}),
    )
    session.mount("http://", HTTPAdapter(max_retries=policy))
    session.mount("https://", HTTPAdapter(max_retries=policy))
    return session


class LLMEngine(DeterministicEngine):
    name = "llm"

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key_env: str = "OPENAI_API_KEY",
        timeout: float = 30.0,
        retries: int = 2,
    ) -> None:
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model = model
        self.api_key = os.environ.get(api_key_env, "")
        self.timeout = timeout
        self.session = _session(retries)

    def _ask(self, unit: UnitFacts, hint: Verdict) -> dict:
        user = {"facts": unit.to_prompt(), "neighbour_hint": {"mode": hint.mode, "why": hint.rationale[:600]}}
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        response = self.session.post(
            self.url,
            timeout=self.timeout,
            headers=headers,
            json={
                "model": self.model,
                "temperature": 0,
                "messages": [
                    {"role": "system", "content": SYSTEM_PROMPT},
                    {"role": "user", "content": json.dumps(user, sort_keys=True)},
                ],
            },
        )
        response.raise_for_status()
        content = response.json()["choices"][0]["message"]["content"]
        answer = json.loads(content)
        if (
            answer.get("mode") not in (Mode.mandatory_success, Mode.skip)
            or not str(answer.get("rationale", "")).strip()
        ):
            raise ValueError(f"unusable answer {content[:120]!r}")
        return answer

    def tie_break(
        self, unit: UnitFacts, decided: Mapping[str, Verdict], unit_tests: Mapping[str, str], ctx: Context
    ) -> Verdict:
        voters = {u: v for u, v in decided.items() if v.source == "rules"}
        hint = neighbour_vote(unit, voters, unit_tests, ctx.vectors, variant_vectors=ctx.variant_vectors)
        try:
            answer = self._ask(unit, hint)
        except (requests.RequestException, ValueError, KeyError, IndexError, TypeError) as exc:
            reason = str(exc).splitlines()[0][:160] if str(exc) else type(exc).__name__
            return Verdict(
                hint.mode,
                f"LLM unavailable ({reason}); {hint.rationale}",
                source="neighbours",
                evidence=hint.evidence,
            )
        return Verdict(
            Mode(answer["mode"]),
            f"LLM ({self.model}): {answer['rationale'].strip()}",
            source="llm",
            evidence=hint.evidence,
        )

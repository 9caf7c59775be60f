"""The pipeline's parts on their own: the TF-IDF measure, the LLM client (retries,
Retry-After, budget, cache), the prompt files, the parsers of replies, and seeds labelled
beside the generated problems."""

from __future__ import annotations

import math
import re
from email.utils import formatdate
from pathlib import Path

import pytest

from execrl.errors import UsageError
from execrl.problems.optim import load_optim_problems
from execrl.synthesis import (
    Budget,
    BudgetExhausted,
    EndpointFailed,
    EndpointSettings,
    LLMClient,
    PromptCache,
    RunSettings,
    SynthesisConfig,
    cosine_similarities,
    synthesize,
)
from execrl.synthesis.client import Meter, Spending, retry_after_seconds
from execrl.synthesis.filtering import duplicate_verdicts
from execrl.synthesis.generation import judge_verdict, problem_text
from execrl.synthesis.prompts import Template, load_prompts
from tests.synthesis.scripted import ScriptedEndpoint, program, response

MESSAGES = [{"role": "user", "content": "hello"}]


# -- TF-IDF cosine -----------------------------------------------------------------------------
def test_tfidf_cosine_matches_a_hand_computation():
    sims = cosine_similarities(["a b", "a c", "d"])
    idf_a, idf_b = math.log(4 / 3) + 1, math.log(4 / 2) + 1  # df(a) = 2, df(b) = df(c) = 1
    expected = idf_a**2 / (idf_a**2 + idf_b**2)
    assert sims[0, 1] == pytest.approx(expected)
    assert sims[0, 0] == pytest.approx(1.0) and sims[0, 2] == 0.0
    assert cosine_similarities(["Plant 3 makes 40 units", "plant 3 MAKES 40 units!"])[0, 1] == (
        pytest.approx(1.0)
    )


def test_duplicates_keep_the_first_and_name_what_they_copy():
    items = [
        ("a", "bakery bread flour oven profit"),
        ("b", "bakery bread flour oven profit margin"),
        ("c", "airline crews flight legs rest"),
    ]
    bench = [("nl4opt.jsonl:7", "airline crews flight legs rest hours")]
    verdicts = duplicate_verdicts(items, bench, 0.7)
    assert verdicts[0] is None
    assert verdicts[1] is not None and verdicts[1][0] == "duplicate"
    assert verdicts[1][1].endswith("with a")
    assert verdicts[2] is not None and verdicts[2][0] == "benchmark_duplicate"
    assert "nl4opt.jsonl:7" in verdicts[2][1]
    assert duplicate_verdicts(items, bench, 1.0)[1] is None  # only identical bags at 1.0


# -- the client --------------------------------------------------------------------------------
def client(url: str, tmp_path: Path, budget: Budget | None = None, **run) -> LLMClient:
    settings = RunSettings(budget=budget or Budget(), backoff_s=0.0, **run)
    return LLMClient(
        EndpointSettings(url=url, model="m"),
        settings,
        cache=PromptCache(tmp_path / "cache.jsonl"),
        spending=Spending(settings.budget),
    )


def test_retries_honour_retry_after_then_fail_in_one_line(tmp_path):
    with ScriptedEndpoint(lambda body: "hi") as endpoint:
        patient = client(endpoint.url, tmp_path, retries=2, max_backoff_s=1000.0)
        patient.run = patient.run.model_copy(update={"backoff_s": 1000.0})  # only Retry-After
        endpoint.fail_next = 2  # each 429 says Retry-After: 0
        assert patient.chat(MESSAGES, Meter()) == "hi"
        endpoint.fail_next, endpoint.fail_status = 5, 503
        hasty = client(endpoint.url, tmp_path / "other", retries=1)
        with pytest.raises(EndpointFailed, match=r"answered HTTP 503$"):
            hasty.chat(MESSAGES, Meter())


def test_the_wait_is_retry_after_or_capped_backoff(tmp_path):
    c = client("http://127.0.0.1:9/v1", tmp_path, max_backoff_s=5.0)
    c.run = c.run.model_copy(update={"backoff_s": 1.0})
    assert c._wait(0, "2") == 2.0 and c._wait(1, None) == 2.0 and c._wait(10, None) == 5.0
    assert retry_after_seconds("soon", default=1.5) == 1.5
    later = retry_after_seconds(formatdate(2_000_000_000, usegmt=True), default=0)
    assert later > 0


def test_an_unreachable_endpoint_is_one_line(tmp_path):
    c = client("http://127.0.0.1:9/v1", tmp_path, retries=0)
    with pytest.raises(EndpointFailed, match=re.escape("cannot reach http://127.0.0.1:9/v1/chat")):
        c.chat(MESSAGES, Meter())


def test_the_cache_pays_once_and_survives_a_torn_line(tmp_path):
    with ScriptedEndpoint(lambda body: body["messages"][-1]["content"].upper()) as endpoint:
        c = client(endpoint.url, tmp_path)
        meter = Meter()
        assert c.chat(MESSAGES, meter) == c.chat(MESSAGES, meter) == "HELLO"
        assert (endpoint.calls, meter.calls, meter.cached, meter.tokens) == (1, 1, 1, 10)
        assert c.chat(MESSAGES, meter, attempt=1) == "HELLO" and endpoint.calls == 2
        with (tmp_path / "cache.jsonl").open("a") as f:
            f.write('{"key": "torn", "te')
        again = client(endpoint.url, tmp_path)
        assert len(again.cache) == 2 and again.chat(MESSAGES, Meter()) == "HELLO"
        assert endpoint.calls == 2


def test_the_budget_stops_calls_and_tokens(tmp_path):
    with ScriptedEndpoint(lambda body: "ok") as endpoint:
        c = client(endpoint.url, tmp_path, budget=Budget(max_tokens=15))
        c.chat(MESSAGES, Meter())
        c.chat(MESSAGES, Meter(), attempt=1)  # 10 tokens spent < 15: allowed
        with pytest.raises(BudgetExhausted, match="token budget"):
            c.chat(MESSAGES, Meter(), attempt=2)
        assert c.chat(MESSAGES, Meter()) == "ok"  # cached calls are free
        c = client(endpoint.url, tmp_path / "b", budget=Budget(max_calls=1))
        c.chat(MESSAGES, Meter())
        with pytest.raises(BudgetExhausted, match="call budget"):
            c.chat(MESSAGES, Meter(), attempt=1)
        assert endpoint.calls == 3


# -- prompts and replies -----------------------------------------------------------------------
def config(**changes) -> SynthesisConfig:
    return SynthesisConfig(
        endpoint=EndpointSettings(url="http://127.0.0.1:9/v1", model="m"), **changes
    )


def test_the_bundled_prompts_are_complete():
    prompts = load_prompts(config())
    assert len(prompts.scenarios) >= 100
    assert len({s.id for s in prompts.scenarios}) == len(prompts.scenarios)
    assert sorted(prompts.augment) == ["modelling", "semantic", "solution"]
    assert len(prompts.roles) == 10 and len({r.id for r in prompts.roles}) == 10
    assert set(prompts.stage) == {"generate", "judge", "repair", "regenerate"}
    filled = prompts.stage["judge"].fill(question="Q?")
    assert '{"relevance": <1-5>' in filled and "Q?" in filled


def test_bad_prompt_files_are_one_line_usage_errors(tmp_path):
    roles = tmp_path / "roles.yaml"
    roles.write_text("- id: only\n")
    with pytest.raises(UsageError, match=r"roles.yaml\[0\]: entry 'only' has no `text`"):
        load_prompts(config(roles_file=str(roles)))
    with pytest.raises(UsageError, match="template 'harder' is not in the augment file"):
        load_prompts(config(augment=("harder",)))
    with pytest.raises(UsageError, match="`n_roles` is 11 but the roles file has 10"):
        load_prompts(config(n_roles=11))
    with pytest.raises(UsageError, match="placeholder 'seed'"):
        Template("t", "{seed}").fill(question="q")


def test_replies_are_parsed_leniently():
    assert problem_text("Sure!\n<problem> A farm. </problem> bye") == "A farm."
    assert problem_text("<PROBLEM>cut off") == "cut off"
    assert problem_text("  just text ") == "just text"
    verdict = judge_verdict('I think {"relevance": "4", "consistency": 2, "reason": "units"}')
    assert verdict == {"relevance": 4.0, "consistency": 2.0, "reason": "units"}
    assert judge_verdict('{not json} and {"relevance": 5}') is None


# -- seeds labelled beside the generated problems ----------------------------------------------
def test_included_seeds_measure_the_labels_agreement(tmp_path, executor):
    seeds = load_optim_problems()[1:3]

    def script(body):
        last = body["messages"][-1]["content"]
        if last.startswith("You review"):
            return '{"relevance": 5, "consistency": 5, "reason": "fine"}'
        seed = next(s for s in seeds if s.question.strip() == last)
        return seed.reference if seed.id == seeds[0].id else response(program(1.0))

    with ScriptedEndpoint(script) as endpoint:
        cfg = SynthesisConfig(
            endpoint=EndpointSettings(url=endpoint.url, model="m"),
            n_generate=0,
            include_seeds=True,
            n_roles=2,
        )
        result = synthesize(seeds, cfg, tmp_path / "run", executor=executor)
    agreement = result.report["agreement"]
    assert (agreement["rows_with_known_answer"], agreement["label_agrees"]) == (2, 1)
    assert result.report["kept_pairs"] == 2
    assert [s["rows_in"] for s in result.report["stages"]] == [2] * 7

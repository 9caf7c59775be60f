"""Running multi-turn episodes (spec/dense-rewards.md, "Multi-turn episodes"): a policy writes
programs, an executor runs them, failing episodes get feedback and go on.

A group of ``group_size`` episodes for one problem advances together, one turn at a time::

    turn 1   the problem as a chat  ──policy──▶ completion ──extract_code──▶ program
             every test runs (no early stop) ──▶ ExecutionRecord ──▶ turn reward
    passed?  the episode ends, solved
    failed?  the completion and a feedback message join the conversation; the model writes a
             new full program next turn, up to ``max_turns``

This is orchestration (it drives a ChatPolicy and an Executor, and re-runs listed failures on a
thread pool), so it sits in ``execrl.rl`` above the pure layers; what it is made of — the
feedback text, the turn rewards, the episode record (``Turn``, ``Trajectory``) and the
requests — is pure and lives in :mod:`execrl.envs.multiturn`. See docs/multiturn.md.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

from execrl.envs.environment import Environment
from execrl.envs.multiturn import (
    FeedbackConfig,
    Observed,
    Trajectory,
    Turn,
    TurnReward,
    default_prompt,
    episode_requests,
    failures_to_observe,
    format_feedback,
    observed_output,
    observing_program,
    pass_fraction,
)
from execrl.errors import ExecrlError, ExecutionError
from execrl.extract import extract_code
from execrl.problems.models import Problem
from execrl.sandbox.limits import Limits
from execrl.sandbox.protocol import ChatPolicy, Conversation, ExecutionRequest, Executor
from execrl.sandbox.records import ExecutionRecord


def run_episodes(
    problem: Problem,
    policy: ChatPolicy,
    executor: Executor,
    *,
    group_size: int = 4,
    max_turns: int = 4,
    feedback: FeedbackConfig | None = None,
    prompt: Callable[[Problem], Conversation] = default_prompt,
    env: Environment | None = None,
    turn_reward: TurnReward = pass_fraction,
    progress: bool = False,
) -> list[Trajectory]:
    """Run ``group_size`` episodes of at most ``max_turns`` turns on ``problem``.

    The tests are the correctness tests T0 ∪ T+ under the problem's limits, or what ``env``
    plans (its tests and hard cap). Every test runs each turn (no early stop), so each record
    holds the full pass/fail vector dense rewards need.
    """
    if group_size < 1 or max_turns < 1:
        raise ExecrlError(
            f"group_size and max_turns must be >= 1, got {group_size} and {max_turns}"
        )
    feedback = feedback or FeedbackConfig()
    make_request = episode_requests(problem, env)
    conversations = [list(prompt(problem)) for _ in range(group_size)]
    trajectories = [Trajectory(problem.id) for _ in range(group_size)]
    active = list(range(group_size))
    for turn in range(1, max_turns + 1):
        if not active:
            break
        # sample: one batch for every episode still running
        completions = _sample(policy, [conversations[i] for i in active])
        programs = [extract_code(c, problem.entry_point) for c in completions]
        # execute: the whole turn of the group at once, all tests each
        requests = [
            make_request(p, f"episode-{i}/turn-{turn}")
            for i, p in zip(active, programs, strict=True)
        ]
        records = list(executor.run_batch(requests, progress=progress, description=f"turn {turn}"))
        # feedback: only for episodes that go on
        last = turn == max_turns
        texts = _feedback_for(
            executor, problem, programs, records, requests, feedback, turn, max_turns, last
        )
        still = []
        for i, completion, program, record, text in zip(
            active, completions, programs, records, texts, strict=True
        ):
            trajectories[i].steps.append(
                Turn(
                    messages=tuple(dict(m) for m in conversations[i]),
                    completion=completion,
                    program=program,
                    record=record,
                    reward=turn_reward(record),
                    feedback=text,
                )
            )
            if text is not None:
                conversations[i] += [
                    {"role": "assistant", "content": completion},
                    {"role": "user", "content": text},
                ]
                still.append(i)
        active = still
    return trajectories


def _sample(policy: ChatPolicy, conversations: list[Conversation]) -> list[str]:
    """One completion per conversation (copies are passed: the policy cannot change ours)."""
    completions = policy.generate([list(c) for c in conversations])
    if len(completions) != len(conversations):
        raise ExecrlError(
            f"the policy returned {len(completions)} completions for {len(conversations)} "
            "conversations; it must return exactly one per conversation"
        )
    return completions


def observe_failures(
    executor: Executor,
    problem: Problem,
    program: str,
    record: ExecutionRecord,
    config: FeedbackConfig,
    limits: Limits,
) -> dict[str, Observed]:
    """Re-run the failing tests the feedback will list (:func:`failures_to_observe`) through
    ``executor.capture``, for their stdout and traceback: a record keeps only the verdict and
    a one-line detail. A re-run the sandbox (or the service) failed is left out (the feedback
    then shows the record's detail)."""
    wrapped = observing_program(program)
    observed = {}
    for test_id, stdin in failures_to_observe(problem, record, config):
        try:
            _, stdout = executor.capture(wrapped, stdin, limits)
        except ExecutionError:  # the sandbox (SandboxCrashed) or the service failed
            continue
        observed[test_id] = observed_output(stdout)
    return observed


def _feedback_for(
    executor: Executor,
    problem: Problem,
    programs: list[str],
    records: list[ExecutionRecord],
    requests: list[ExecutionRequest],
    config: FeedbackConfig,
    turn: int,
    max_turns: int,
    last: bool,
) -> list[str | None]:
    """The feedback message of each episode that failed this turn and has turns left."""

    def one(k: int) -> str | None:
        if last or records[k].all_passed:
            return None
        seen = observe_failures(
            executor, problem, programs[k], records[k], config, requests[k].limits
        )
        return format_feedback(
            problem, records[k], config, observed=seen, turn=turn, max_turns=max_turns
        )

    # Re-runs block on a free sandbox worker; episodes are observed side by side.
    with ThreadPoolExecutor(max_workers=max(1, min(8, len(records)))) as pool:
        return list(pool.map(one, range(len(records))))


class ScriptedPolicy:
    """A policy that replays fixed responses (for tests and examples).

    ``responses_per_turn[t]`` is used for every conversation at turn ``t + 1`` (the turn is
    the number of assistant messages already in the conversation): a string goes to every
    conversation, a list gives the i-th conversation of that call its i-th entry (the
    runner passes the episodes still running, in episode order). Every call is kept in
    ``calls``.
    """

    def __init__(self, responses_per_turn: Sequence[str | Sequence[str]]) -> None:
        self.responses_per_turn = list(responses_per_turn)
        self.calls: list[list[Conversation]] = []

    def generate(self, conversations: list[Conversation]) -> list[str]:
        self.calls.append([list(c) for c in conversations])
        out = []
        for i, conversation in enumerate(conversations):
            turn = sum(m["role"] == "assistant" for m in conversation)
            if turn >= len(self.responses_per_turn):
                raise ExecrlError(
                    f"ScriptedPolicy has responses for {len(self.responses_per_turn)} turn(s) "
                    f"but was asked for turn {turn + 1}; add responses or lower max_turns"
                )
            script = self.responses_per_turn[turn]
            if isinstance(script, str):
                out.append(script)
            elif i < len(script):
                out.append(script[i])
            else:
                raise ExecrlError(
                    f"ScriptedPolicy turn {turn + 1} has {len(script)} response(s) but was "
                    f"asked for conversation {i + 1} of {len(conversations)}"
                )
        return out

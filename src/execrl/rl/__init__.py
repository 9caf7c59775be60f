"""Reinforcement learning: advantage estimators (``advantages``), losses and KL (``losses``),
rollout generation with local models (``generation``), prompt selection and dynamic sampling
(``curriculum``), and the reference trainer (``train``: the run, the step from one
``state.TrainState`` to the next, and the loop, calling ``config``, ``policy``, ``prompts``,
``rollouts``, ``scorers``, ``update``, ``logprobs``, ``rollout_worker``, ``checkpoint``,
``runs``, ``step_log``, ``monitor`` and ``evaluation``; its report in ``train_report``).
torch and transformers load on first use (``generation.train_stack``): install them with
``make train-setup``."""

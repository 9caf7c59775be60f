"""Reinforcement learning: advantage estimators (``advantages``), losses and KL (``losses``),
rollout generation with local models (``generation``) and the reference trainer
(``trainer``, with its report in ``train_report``). torch and transformers are imported lazily,
inside the functions that need them: install them with ``make train-setup``."""

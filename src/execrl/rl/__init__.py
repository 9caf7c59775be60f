"""Reinforcement learning: rollout generation with local models (advantage estimators, losses
and the reference trainer live here too as they land). torch and transformers are imported
lazily, inside the functions that need them: install them with ``make train-setup``."""

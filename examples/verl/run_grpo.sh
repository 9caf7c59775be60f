#!/usr/bin/env bash
# GRPO with verl 0.9.1 and execrl as the reward (one node; see README.md for many).
#
#   bash examples/verl/run_grpo.sh [more Hydra overrides]
#
# EXECRL_EXECUTOR: where programs run — "local" (a sandbox pool in each of verl's reward
# workers), "http://cpu-node-1:8000,http://cpu-node-2:8000" (`execrl serve` servers) or
# "ray" (the Ray cluster verl runs on). EXECRL_VERL_WORKERS: sandboxes per reward worker
# with "local" (default: the node's cores / 8, for verl's 8 reward workers).
set -euo pipefail

DATA=${DATA:-data/execrl}
MODEL=${MODEL:-Qwen/Qwen2.5-Coder-1.5B-Instruct}
python examples/verl/make_dataset.py "$DATA"

python -m verl.trainer.main_ppo \
    algorithm.adv_estimator=grpo \
    data.train_files="$DATA/train.parquet" \
    data.val_files="$DATA/val.parquet" \
    data.train_batch_size=64 \
    data.max_prompt_length=1024 \
    data.max_response_length=2048 \
    actor_rollout_ref.model.path="$MODEL" \
    actor_rollout_ref.rollout.name=vllm \
    actor_rollout_ref.rollout.n=8 \
    actor_rollout_ref.actor.ppo_mini_batch_size=32 \
    actor_rollout_ref.actor.use_kl_loss=true \
    reward.custom_reward_function.path=pkg://execrl.integrations.verl \
    reward.custom_reward_function.name=compute_score_async \
    reward.reward_manager.name=naive \
    reward.num_workers=8 \
    +reward.custom_reward_function.reward_kwargs.executor="${EXECRL_EXECUTOR:-local}" \
    +reward.custom_reward_function.reward_kwargs.env=mc \
    trainer.logger='["console"]' \
    trainer.n_gpus_per_node=${GPUS:-8} \
    trainer.nnodes=1 \
    trainer.total_epochs=1 \
    "$@"

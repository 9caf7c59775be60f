#!/usr/bin/env bash
# GRPO with SkyRL (skyrl-train) and execrl as the environment (one node).
#
#   bash examples/skyrl/run_grpo.sh [more Hydra overrides]
#   TURNS=3 bash examples/skyrl/run_grpo.sh          # multi-turn repair episodes
#
# EXECRL_EXECUTOR: where programs run — "local" (a sandbox pool in the trainer's process,
# one sandbox per core unless EXECRL_VERL_WORKERS says), "http://cpu-node-1:8000,..."
# (`execrl serve` servers) or "ray". It must be set where the trainer's Ray task runs
# (e.g. in Ray's runtime_env), or give it as +environment.skyrl_gym.execrl.executor=...
#
# Key names follow SkyRL's examples/gsm8k/run_gsm8k.sh; newer skyrl-train moved the engine
# keys under generator.inference_engine.* (num_engines, tensor_parallel_size, backend...).
set -euo pipefail

DATA=${DATA:-data/execrl-skyrl}
MODEL=${MODEL:-Qwen/Qwen2.5-Coder-1.5B-Instruct}
GPUS=${GPUS:-4}
TURNS=${TURNS:-1}
if [ "$TURNS" -gt 1 ]; then ENV_CLASS=execrl-multiturn; else ENV_CLASS=execrl; fi

python examples/skyrl/make_dataset.py "$DATA" --turns "$TURNS"

python examples/skyrl/main_execrl.py \
    data.train_data="['$DATA/train.parquet']" \
    data.val_data="['$DATA/validation.parquet']" \
    trainer.algorithm.advantage_estimator=grpo \
    trainer.policy.model.path="$MODEL" \
    trainer.placement.colocate_all=true \
    trainer.strategy=fsdp2 \
    trainer.placement.policy_num_gpus_per_node="$GPUS" \
    trainer.placement.ref_num_gpus_per_node="$GPUS" \
    generator.num_inference_engines="$GPUS" \
    generator.inference_engine_tensor_parallel_size=1 \
    generator.backend=vllm \
    generator.run_engines_locally=true \
    generator.async_engine=true \
    generator.batched=false \
    generator.n_samples_per_prompt=8 \
    generator.max_turns="$TURNS" \
    generator.use_conversation_multi_turn=true \
    generator.sampling_params.max_generate_length=2048 \
    trainer.max_prompt_length=1024 \
    trainer.train_batch_size=64 \
    trainer.policy_mini_batch_size=32 \
    trainer.algorithm.use_kl_loss=true \
    trainer.epochs=1 \
    trainer.logger=console \
    environment.env_class="$ENV_CLASS" \
    environment.skyrl_gym.max_env_workers=32 \
    "$@"

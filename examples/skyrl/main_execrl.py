"""SkyRL's PPO entrypoint with execrl's environments registered.

    python examples/skyrl/main_execrl.py <SkyRL Hydra overrides>   # see run_grpo.sh

skyrl-gym looks environments up in a per-process registry: importing
``execrl.integrations.skyrl`` registers ``execrl`` and ``execrl-multiturn`` in the Ray task
that runs the trainer and its generator (the pattern of SkyRL's examples/multiply), with no
change to the SkyRL package.
"""

import hydra
import ray
from omegaconf import DictConfig
from skyrl_train.entrypoints.main_base import BasePPOExp, config_dir, validate_cfg
from skyrl_train.utils import initialize_ray


@ray.remote(num_cpus=1)
def skyrl_entrypoint(cfg: DictConfig) -> None:
    import execrl.integrations.skyrl  # noqa: F401  (registers the environments)

    BasePPOExp(cfg).run()


@hydra.main(config_path=config_dir, config_name="ppo_base_config", version_base=None)
def main(cfg: DictConfig) -> None:
    validate_cfg(cfg)
    initialize_ray(cfg)
    ray.get(skyrl_entrypoint.remote(cfg))


if __name__ == "__main__":
    main()

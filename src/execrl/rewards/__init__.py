"""Rewards: compositions of an Outcome's signals (spec §4), the naive raw-duration baselines,
and the scoring API a trainer calls."""

from execrl.extract import extract_code
from execrl.rewards.compositions import REWARDS, NaiveReward, Reward, reward
from execrl.rewards.maps import MAPS, bucket, linear, range_compressed, signed
from execrl.rewards.scoring import Group, Scored, rescore, score, score_batch

__all__ = [
    "MAPS",
    "REWARDS",
    "Group",
    "NaiveReward",
    "Reward",
    "Scored",
    "bucket",
    "extract_code",
    "linear",
    "range_compressed",
    "rescore",
    "reward",
    "score",
    "score_batch",
    "signed",
]

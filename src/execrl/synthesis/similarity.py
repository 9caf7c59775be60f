"""TF-IDF cosine similarity between questions (the filter stage's near-duplicate test).

The measure, stated exactly:

- tokens: lower-cased runs of letters and digits (``[a-z0-9]+`` after lower-casing), each
  number a token of its own;
- term frequency: raw counts in the question; inverse document frequency over the corpus
  (the candidates and the benchmark questions together): ``idf(t) = ln((1 + N) / (1 + df(t)))
  + 1`` (scikit-learn's smoothed form);
- each question's vector ``tf · idf`` is L2-normalised; similarity is the dot product of two
  vectors (1 for identical token bags, 0 for no shared token).

A candidate is a near-duplicate when its similarity to a benchmark question, or to an earlier
kept candidate, is at least the threshold (0.7 by default, as ReSocratic).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

import numpy as np

TOKEN = re.compile(r"[a-z0-9]+")


def tokens(text: str) -> list[str]:
    return TOKEN.findall(text.lower())


def tfidf_matrix(texts: Sequence[str]) -> np.ndarray:
    """Rows: the L2-normalised TF-IDF vectors of ``texts`` (the corpus is ``texts``)."""
    bags = [Counter(tokens(t)) for t in texts]
    vocabulary = sorted({term for bag in bags for term in bag})
    column = {term: j for j, term in enumerate(vocabulary)}
    df = Counter(term for bag in bags for term in bag)
    n = len(texts)
    idf = np.array([math.log((1 + n) / (1 + df[t])) + 1 for t in vocabulary])
    matrix = np.zeros((n, len(vocabulary)))
    for i, bag in enumerate(bags):
        for term, count in bag.items():
            matrix[i, column[term]] = count
    matrix *= idf
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)


def cosine_similarities(texts: Sequence[str]) -> np.ndarray:
    """(n, n) TF-IDF cosine similarities of ``texts`` with each other."""
    if not texts:
        return np.zeros((0, 0))
    m = tfidf_matrix(texts)
    return m @ m.T

#!/bin/bash
# Interleaved runs: old main (53d3bc1, worktree) and this tree, same load.
cd /work/main
for i in 1 2 3; do
  for side in old new; do
    if [ $side = old ]; then src=/tmp/oldmain; else src=/work/main; fi
    PYTHONPATH=$src/src .venv/bin/python $src/benchmarks/overhead.py --tests 300 --out /tmp/bench/overhead-$side-$i.json > /tmp/bench/overhead-$side-$i.log 2>&1
    PYTHONPATH=$src/src .venv/bin/python $src/benchmarks/humaneval_throughput.py --workers 2 --out /tmp/bench/humaneval-$side-$i.json > /tmp/bench/humaneval-$side-$i.log 2>&1
  done
done
echo done > /tmp/bench/finished

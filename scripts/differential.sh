#!/bin/sh
# The long run of the differential expression tests (docs/values.md): EXPRESSIONS per seed, for
# SEEDS seeds from FIRST, each compared with terraform console in value and type.
#   scripts/differential.sh [expressions per seed, default 20000] [first seed, default 1] [seeds, default 10]
set -e
cd "$(dirname "$0")/.."
EXPRESSIONS=${1:-20000}
FIRST=${2:-1}
SEEDS=${3:-10}
seed=$FIRST
while [ "$seed" -lt $((FIRST + SEEDS)) ]; do
  TFPHI_DIFF_EXPRESSIONS=$EXPRESSIONS TFPHI_DIFF_SEED=$seed CI=true \
    .venv/bin/python -m pytest -p no:cacheprovider -n 0 -q -s tests/oracle/test_differential_expressions.py || status=1
  seed=$((seed + 1))
done
exit ${status:-0}

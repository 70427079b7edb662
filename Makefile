.PHONY: test bench bench-large lint

test:
	.venv/bin/pytest

# quick benchmarks (a few minutes)
bench:
	.venv/bin/python benchmarks/classad.py
	.venv/bin/python benchmarks/lcg_replay.py --max-jobs 3000
	.venv/bin/python benchmarks/simulate.py month --slots 1000 --jobs 2000 --days 0.25
	.venv/bin/python benchmarks/startd_policy.py --machines 20 --hours 6
	.venv/bin/python benchmarks/submit.py

# full-size benchmarks: the scaling curve (~15 min), the 100k-slot headline (~3 min),
# the whole LCG trace (~3 min at 5-minute cycles, longer at 60 s), the simulator's stories
# (benchmarks/simulate.py: two users of 100,000 jobs, the 30-day 10,000-slot month, a
# 100,000-slot pool with 1,000,000 queued jobs, the README's example) and 100 machines
# running their startd policy for a day (~2.5 min)
bench-large:
	.venv/bin/python benchmarks/negotiation_cycle.py
	.venv/bin/python benchmarks/negotiation_cycle.py --headline
	.venv/bin/python benchmarks/lcg_replay.py --interval 300
	.venv/bin/python benchmarks/lcg_replay.py
	.venv/bin/python benchmarks/simulate.py
	.venv/bin/python benchmarks/startd_policy.py

lint:
	.venv/bin/ruff check src tests benchmarks
	.venv/bin/ruff format --check src tests benchmarks

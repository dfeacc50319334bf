"""`torchlint verify`: run each rule's program pair before and after torchlint's own fix.

For every rule with a pair (`fixtures/<CODE>/before.py` and `after.py`, installed as
`torchlint.verify.workloads`), the fixer must turn before.py into after.py; both programs then run
in fresh interpreters with the same environment and their JSON results must agree within the rule's
tolerance. On CUDA each program is also timed: runs of N and 2N steps between CUDA events, so that
start-up and warm-up cancel, repeated in alternating order; the speedup is the median of the
repeats' ratios with a confidence interval. On a CPU only equivalence is checked: CPU timings say
nothing about the GPU step a fix is for. torch is imported only by the subprocesses.

Modules: pairs (the programs and the fixer check), running (one program in a subprocess),
tolerances (equivalence), stats (timing statistics), verification (the per-rule procedure),
environment (torch and GPU versions), output and command (what the CLI prints and writes). sizes
and models shape the workloads; they are all the programs import, so this package imports nothing.
"""

"""What reproducer scripts copy: calling conventions, compiling and running one side, schedules,
dlight rules, tuning records, timing and finite differences. tvm, numpy and the standard library only,
and each other: passfuzz.findings.reproducer copies these functions into scripts that need nothing else."""

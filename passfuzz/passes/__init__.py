"""What passfuzz knows of TVM's passes: names with arguments (PassSpec), the catalogue of contracts,
conventions and tolerances, the contract checks, and what each pattern-rewriting pass branches on."""

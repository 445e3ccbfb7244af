# mk/deps.mk — `make deps`: install the Debian packages the build needs
# (mk/deps.sh says which and why). `check` (tests/module.mk), `demo`
# (mk/demo.mk) and `bench` depend on it; `bench` through deps-bench, which
# also asks for gprof (binutils). Silent when nothing is missing.
# Part of deepprof's build. MIT licence.

.PHONY: deps-bench

deps:
	@sh mk/deps.sh

deps-bench:
	@sh mk/deps.sh --bench

bench: deps-bench

# The rest of the front door: `make demo` and the deepprof binary's install
# rule. (Only recipes there refer to other modules' variables, so being read
# before their fragments does not matter.)
include mk/demo.mk
include mk/install.mk

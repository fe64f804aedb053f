# Front door. `make run` and `make test` are the two commands the README
# gives; both set the machine up first and are safe to repeat.
BUILD      ?= build
BUILD_SAN  ?= build-san
MESON_OPTS ?=

.PHONY: all setup build run test unit unit-san integration bench-smoke bench bench-fwd format format-check clean

all: build

setup:
	@scripts/setup.sh

$(BUILD)/build.ninja:
	meson setup $(BUILD) $(MESON_OPTS)

build: setup $(BUILD)/build.ninja
	ninja -C $(BUILD)

run: build
	@scripts/run.sh $(BUILD)

# Every test: unit, sanitizer build of the unit tests, integration, and
# the benchmarks on a tiny workload. Ends with "N passed, N failed".
test: build
	@scripts/test-all.sh $(BUILD) $(BUILD_SAN)

bench: build
	@bench/run.sh $(BUILD)

# Forwarding against l3fwd, testpmd, the kernel, and under churn (issue 6).
bench-fwd: build
	@bench/forwarding.sh $(BUILD)

FORMAT_FILES = $(shell git ls-files '*.c' '*.h')

format:
	clang-format -i $(FORMAT_FILES)

format-check:
	@clang-format --dry-run --Werror $(FORMAT_FILES) && echo "format: clean"

clean:
	rm -rf $(BUILD) $(BUILD_SAN)

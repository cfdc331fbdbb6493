# Convenience front end over CMake: `make demo`, `make check`, `make bench`, `make asan-check`,
# `make release-build`, `make fuzz`, `make stress-long`.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
# The makes that cmake --build starts inherit this: no "Entering directory" pair around every step.
MAKEFLAGS += --no-print-directory

.PHONY: all build demo check asan-check release-build bench install clean fuzz stress-long

all: build

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# The main demo: 4 ranks exchange messages under static credit flow control and report it. Builds
# only what it runs (the launcher, the demo and libcredo), not the tools and the test suite.
demo: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS) --target credorun credo_demo
	$(BUILD)/bin/credorun -n 4 --fc static --fc-report $(BUILD)/bin/credo_demo

check: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

asan-check:
	$(MAKE) check BUILD=build-asan CMAKE_FLAGS="-DCREDO_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug"

# -O3 sees through more calls than the default -O2 and warns where -O2 does not (a maybe-uninitialized
# once broke -DCMAKE_BUILD_TYPE=Release builds); CI builds it so warnings-as-errors holds there too.
release-build:
	$(MAKE) build BUILD=build-release CMAKE_FLAGS="-DCMAKE_BUILD_TYPE=Release"

# The long form of tests/stress (a few seconds per configuration in make check): every scheme at np 3
# and np 8 for STRESS_SECONDS each (default 1800; tests/stress/long.sh names the other knobs).
stress-long: build
	tests/stress/long.sh $(BUILD)

# libFuzzer on the GOAL text reader (fuzz/README.md): builds with clang into $(FUZZ_BUILD), runs for
# FUZZ_SECONDS (CI: make fuzz FUZZ_SECONDS=30) from the committed seeds; new inputs go to
# $(FUZZ_BUILD)/corpus, a crash to $(FUZZ_BUILD)/crash-* (and fails the target).
FUZZ_SECONDS ?= 600
FUZZ_BUILD ?= build-fuzz
FUZZ_CC ?= clang
FUZZ_SRC = fuzz/goal_text_fuzz.c src/goal/goal_text.c src/goal/goal_graph.c src/goal/goal_compile.c src/goal/goal_localop.c
fuzz:
	mkdir -p $(FUZZ_BUILD)/corpus
	$(FUZZ_CC) -g -O1 -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wno-unused-parameter -Werror -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -Isrc -Iinclude $(FUZZ_SRC) -o $(FUZZ_BUILD)/goal_text_fuzz
	$(FUZZ_BUILD)/goal_text_fuzz -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=30 -rss_limit_mb=2048 -malloc_limit_mb=256 -dict=fuzz/goal.dict -print_final_stats=1 -artifact_prefix=$(FUZZ_BUILD)/ $(FUZZ_BUILD)/corpus fuzz/corpus/goal_text

bench: build
	bench/side_by_side.sh $(BUILD)

install: build
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD) build-asan build-release build-fuzz

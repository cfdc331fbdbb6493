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

# libFuzzer (fuzz/README.md), two targets built with clang into $(FUZZ_BUILD) and run one after the
# other for FUZZ_SECONDS each (CI: make fuzz FUZZ_SECONDS=30) from the committed seeds: the GOAL text
# reader (new inputs to $(FUZZ_BUILD)/corpus, a crash to $(FUZZ_BUILD)/crash-*) and the packets the
# p2p progress engine parses (src/p2p/p2p_*.c over the real mailbox and flow control; new inputs to
# $(FUZZ_BUILD)/corpus-p2p_wire, a crash to $(FUZZ_BUILD)/p2p_wire-crash-*). A crash fails the target.
# P2P_FUZZ_AVOID names reported p2p findings the second target's peers step around (fuzz/README.md).
FUZZ_SECONDS ?= 600
FUZZ_BUILD ?= build-fuzz
FUZZ_CC ?= clang
P2P_FUZZ_AVOID ?=
FUZZ_CFLAGS = -g -O1 -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wno-unused-parameter -Werror -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -Isrc -Iinclude
FUZZ_SRC = fuzz/goal_text_fuzz.c src/goal/goal_text.c src/goal/goal_graph.c src/goal/goal_compile.c src/goal/goal_localop.c
# libfabric is the harness's own stand-in under the real ofi_ops.c (fuzz/p2p_wire_fuzz.c, P2P_FUZZ_NET);
# shm.c is #included by the harness (its state)
FUZZ_P2P_SRC = fuzz/p2p_wire_fuzz.c $(filter-out src/xport/ofi.c src/xport/ofi_none.c src/xport/shm.c,$(wildcard src/xport/*.c)) $(wildcard src/fc/*.c)
FUZZ_OPTS = -max_total_time=$(FUZZ_SECONDS) -timeout=30 -rss_limit_mb=2048 -malloc_limit_mb=256 -print_final_stats=1
fuzz:
	mkdir -p $(FUZZ_BUILD)/corpus $(FUZZ_BUILD)/corpus-p2p_wire
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_SRC) -o $(FUZZ_BUILD)/goal_text_fuzz
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_P2P_SRC) -o $(FUZZ_BUILD)/p2p_wire_fuzz
	$(FUZZ_BUILD)/goal_text_fuzz $(FUZZ_OPTS) -max_len=65536 -dict=fuzz/goal.dict -artifact_prefix=$(FUZZ_BUILD)/ $(FUZZ_BUILD)/corpus fuzz/corpus/goal_text
	UBSAN_OPTIONS=print_stacktrace=1 P2P_FUZZ_AVOID=$(P2P_FUZZ_AVOID) $(FUZZ_BUILD)/p2p_wire_fuzz $(FUZZ_OPTS) -max_len=4096 -artifact_prefix=$(FUZZ_BUILD)/p2p_wire- $(FUZZ_BUILD)/corpus-p2p_wire fuzz/corpus/p2p_wire
	mkdir -p $(FUZZ_BUILD)/corpus-p2p_net
	UBSAN_OPTIONS=print_stacktrace=1 P2P_FUZZ_NET=1 P2P_FUZZ_AVOID=$(P2P_FUZZ_AVOID) $(FUZZ_BUILD)/p2p_wire_fuzz $(FUZZ_OPTS) -max_len=4096 -artifact_prefix=$(FUZZ_BUILD)/p2p_net- $(FUZZ_BUILD)/corpus-p2p_net fuzz/corpus/p2p_wire

bench: build
	bench/side_by_side.sh $(BUILD)

install: build
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD) build-asan build-release build-fuzz

# Convenience front end over CMake: `make demo`, `make check`, `make bench`, `make asan-check`,
# `make release-build`.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
# The makes that cmake --build starts inherit this: no "Entering directory" pair around every step.
MAKEFLAGS += --no-print-directory

.PHONY: all build demo check asan-check release-build bench install clean

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

bench: build
	bench/side_by_side.sh $(BUILD)

install: build
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD) build-asan build-release

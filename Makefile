# Convenience front end over CMake: `make demo`, `make check`, `make bench`, `make asan-check`.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all build demo check asan-check bench install clean

all: build

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# The main demo: 4 ranks exchange messages under static credit flow control and report it.
demo: build
	$(BUILD)/bin/credorun -n 4 --fc static --fc-report $(BUILD)/bin/credo_demo

check: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

asan-check:
	$(MAKE) check BUILD=build-asan CMAKE_FLAGS="-DCREDO_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug"

bench: build
	bench/side_by_side.sh $(BUILD)

install: build
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD) build-asan

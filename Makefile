# RailMPI: the two commands that matter are `make run` and `make test` (see README.md).
BUILD    ?= build
ASAN_BUILD ?= build-asan
JOBS     ?= $(shell nproc)
PREFIX   ?= /usr/local
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=RelWithDebInfo

.PHONY: all deps build run test test-asan bench install clean

all: build

deps:
	@sh scripts/install-deps.sh

build: deps
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS) -DCMAKE_INSTALL_PREFIX=$(PREFIX)
	cmake --build $(BUILD) -j $(JOBS)

# The demo job: 4 ranks exchange messages and print a latency/bandwidth table.
run: build
	$(BUILD)/bin/mpiexec -n 4 $(BUILD)/examples/demo

# Every test: unit, launcher, ABI and MPI programs; then the same under ASan/UBSan.
test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) --timeout 120
	$(MAKE) test-asan

test-asan: deps
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DRAILMPI_SANITIZE=ON
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=0 ctest --output-on-failure -j $(JOBS) --timeout 180 -LE no-sanitizer

bench: build
	sh scripts/install-deps.sh openmpi-bin libopenmpi-dev
	sh bench/compare.sh $(BUILD)

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)

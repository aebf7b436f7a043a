# npuc top-level entry points. `make demo` and `make test` are the two
# commands of the README; both install what they need via tools/setup.sh.
BUILD      ?= build
BUILD_ASAN ?= build-asan
BUILD_FUZZ ?= build-fuzz
BUILD_M55  ?= build-m55
BUILD_TSAN ?= build-tsan
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
FUZZ_SECONDS ?= 30
# the tests the TSan build makes and runs: the driver, the host NPU's worker
# threads and the runtime's schedulers
TSAN_TESTS ?= driver|runtime
CMAKE_GEN  := -G Ninja

.PHONY: all setup build asan tsan fuzz demo test test-release test-asan test-tsan test-fuzz bench m55-example clean

all: build

setup:
	@bash tools/setup.sh

build: setup
	@cmake -S . -B $(BUILD) $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=Release >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

asan: setup
	@cmake -S . -B $(BUILD_ASAN) $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=Debug -DNPUC_SANITIZE=ON >/dev/null
	@cmake --build $(BUILD_ASAN) -j $(JOBS)

# ThreadSanitizer build: the driver, the host NPU's worker threads and the
# runtime's schedulers (tests matching driver|runtime).
tsan: setup
	@cmake -S . -B $(BUILD_TSAN) $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNPUC_TSAN=ON \
	  -DNPUC_TSAN_TESTS='$(TSAN_TESTS)' >/dev/null
	@cmake --build $(BUILD_TSAN) -j $(JOBS) --target tsan_tests

fuzz: setup
	@CC=clang cmake -S . -B $(BUILD_FUZZ) $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNPUC_FUZZ=ON -DNPUC_SANITIZE=ON >/dev/null
	@cmake --build $(BUILD_FUZZ) -j $(JOBS) --target fuzz_targets

demo: build
	@bash tools/demo.sh $(BUILD)

test-release: build
	@ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

test-asan: asan
	@ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --test-dir $(BUILD_ASAN) --output-on-failure -j $(JOBS)

test-tsan: tsan
	@TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
	  ctest --test-dir $(BUILD_TSAN) --output-on-failure -j $(JOBS) -R '$(TSAN_TESTS)'

test-fuzz: fuzz
	@bash tools/run_fuzz.sh $(BUILD_FUZZ) $(FUZZ_SECONDS)

test: test-release test-asan test-tsan test-fuzz
	@echo "all tests passed (release, ASan+UBSan, TSan, fuzz $(FUZZ_SECONDS)s)"

bench: build
	@for b in $(BUILD)/bench_*; do [ -x "$$b" ] && "$$b"; done
	@bash tools/bench_m55_size.sh $(BUILD_M55)-size

# The Cortex-M55 firmware on QEMU mps3-an547 (docs/embedded.md); MODEL=...
m55-example: build
	@bash tools/build_m55_example.sh --npuc $(BUILD)/npuc --build $(BUILD_M55) $(MODEL)

clean:
	rm -rf $(BUILD) $(BUILD_ASAN) $(BUILD_TSAN) $(BUILD_FUZZ) $(BUILD_M55) $(BUILD_M55)-size-*

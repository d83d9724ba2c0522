# linkd — the two commands of the README are `make run` and `make test`; everything else is a helper.
SHELL := /bin/bash
export PATH := $(PATH):/opt/swift/usr/bin
DATA_DIR ?= ./data
FUZZ_SECONDS ?= 30

.PHONY: deps test-deps build run serve demo test fuzz bench clean

deps:
	@scripts/ensure-deps.sh build

test-deps:
	@scripts/ensure-deps.sh test

## The release build (Swift runtime linked statically, packed relocations: scripts/build-release.sh).
build: deps
	scripts/build-release.sh

## Run linkd on its embedded default: SQLite, master key and signing keys in $(DATA_DIR), the demo manifests.
run: build
	.build/release/linkd serve --data-dir $(DATA_DIR)

serve: run

## The CLI verbs on the demo manifests, without the daemon.
demo: build
	@scripts/demo.sh .build/release/linkd $(DATA_DIR)/cli

## Build and run the whole test suite (starts a throwaway PostgreSQL on loopback for the store tests, stops it after).
test: test-deps
	scripts/test-postgres.sh start >/dev/null
	swift build --build-tests
	swift test --skip-build --no-parallel; status=$$?; scripts/test-postgres.sh stop; exit $$status

## The libFuzzer targets (docs/fuzzing.md): build them, run each for $(FUZZ_SECONDS) s from its seed corpus.
fuzz: deps
	scripts/fuzz.sh $(FUZZ_SECONDS)

bench: deps
	@scripts/bench.sh

clean:
	rm -rf .build

# linkd — the two commands of the README are `make run` and `make test`; everything else is a helper.
SHELL := /bin/bash
export PATH := $(PATH):/opt/swift/usr/bin
DATA_DIR ?= ./data

.PHONY: deps test-deps build run serve test bench clean

deps:
	@scripts/ensure-deps.sh build

test-deps:
	@scripts/ensure-deps.sh test

build: deps
	swift build -c release --product linkd

## Run linkd on its embedded default (data in $(DATA_DIR)).
run: build
	@scripts/demo.sh .build/release/linkd $(DATA_DIR)

## Start the daemon (early: health, readiness and metrics only; the API is the open serve issue).
serve: build
	.build/release/linkd serve --data-dir $(DATA_DIR)

## Build and run the whole test suite.
test: test-deps
	swift build --build-tests
	swift test --skip-build

bench: deps
	@scripts/bench.sh

clean:
	rm -rf .build

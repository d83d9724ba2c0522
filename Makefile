# linkd — the two commands of the README are `make run` and `make test`; everything else is a helper.
SHELL := /bin/bash
export PATH := $(PATH):/opt/swift/usr/bin
DATA_DIR ?= ./data

.PHONY: deps test-deps build run test bench clean

deps:
	@scripts/ensure-deps.sh build

test-deps:
	@scripts/ensure-deps.sh test

build: deps
	swift build -c release --product linkd

## Run linkd on its embedded default (data in $(DATA_DIR)).
run: build
	@scripts/demo.sh .build/release/linkd $(DATA_DIR)

## Build and run the whole test suite.
test: test-deps
	swift build --build-tests
	swift test --skip-build

bench: deps
	@scripts/bench.sh

clean:
	rm -rf .build

# linkd — the two commands of the README are `make run` and `make test`; everything else is a helper.
SHELL := /bin/bash
export PATH := $(PATH):/opt/swift/usr/bin
DATA_DIR ?= ./data
FUZZ_SECONDS ?= 30
PREFIX ?= /usr/local
DESTDIR ?=
IMAGE ?= localhost/linkd:latest

.PHONY: deps test-deps build run serve demo test fuzz bench clean install image deb test-deploy

deps:
	@scripts/ensure-deps.sh build

test-deps:
	@scripts/ensure-deps.sh test

## The release build (Swift runtime linked statically, packed relocations, the functions a start runs placed together:
## scripts/build-release.sh, scripts/linkd.order).
build: deps
	scripts/build-release.sh

## Run linkd on its embedded default: SQLite, master key and signing keys in $(DATA_DIR), the demo manifests.
run: build
	.build/release/linkd serve --data-dir $(DATA_DIR)

serve: run

## The CLI verbs on the demo manifests, without the daemon.
demo: build
	@scripts/demo.sh .build/release/linkd $(DATA_DIR)/cli

## Build and run the whole test suite: the debug build with the tests, which must print no warning for our own files
## (scripts/check-warnings.sh), the Swift tests (a throwaway PostgreSQL and pebble, Let's Encrypt's test ACME server,
## on loopback, stopped after), the TypeScript client against the daemon (scripts/test-typescript.sh), then the
## deployments from the release build (test-deploy: make install, the Debian package under systemd, the container
## image with podman).
test: test-deps build
	mkdir -p .build
	set -o pipefail; swift build --build-tests 2>&1 | tee .build/build-tests.log
	scripts/check-warnings.sh .build/build-tests.log
	scripts/test-postgres.sh start >/dev/null
	tmp=$$(mktemp -d /tmp/linkd-test-run.XXXXXX); TMPDIR=$$tmp swift test --skip-build --no-parallel; status=$$?; \
	  scripts/test-postgres.sh purge; scripts/test-pebble.sh stop >/dev/null; \
	  if [ $$status -eq 0 ]; then rm -rf $$tmp; else echo "the tests' temporary files are kept in $$tmp"; fi; \
	  [ $$status -eq 0 ] || exit $$status
	scripts/test-typescript.sh
	$(MAKE) --no-print-directory test-deploy

## The libFuzzer targets (docs/fuzzing.md): build them, run each for $(FUZZ_SECONDS) s from its seed corpus.
fuzz: deps
	scripts/fuzz.sh $(FUZZ_SECONDS)

bench: deps
	@scripts/bench.sh

## Install the release binary, templates and demo manifests: $(DESTDIR)$(PREFIX)/bin/linkd, …/share/linkd/{templates,examples}.
install: build
	scripts/install.sh --prefix $(PREFIX) --destdir "$(DESTDIR)"

## The container image $(IMAGE) (Containerfile) with podman, from the release binary; the base image from Debian's packages.
image: build
	scripts/make-image.sh $(IMAGE)

## The Debian package .build/packages/linkd_<version>_<arch>.deb (hardened systemd unit, /etc/linkd/linkd.yaml).
deb: build
	scripts/make-deb.sh

## Test the three deployments against the release binary: make install's layout, the .deb (with systemd), the image
## (its exit 77, "SKIP: containers cannot run on this machine", passes; LINKD_REQUIRE_CONTAINERS=1 makes it fail).
test-deploy: build
	scripts/test-install.sh
	scripts/test-deb.sh
	scripts/test-image.sh || [ $$? -eq 77 ]

clean:
	rm -rf .build

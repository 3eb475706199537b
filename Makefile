# Two commands for a fresh clone: `make run` and `make test`. Everything else here serves them.
SHELL := /bin/bash
export NEXT_TELEMETRY_DISABLED := 1
export NPM_CONFIG_UPDATE_NOTIFIER := false
export NPM_CONFIG_FUND := false
export NPM_CONFIG_AUDIT := false
PORT ?= 3000
# Debian packages from one list (deploy/debian-packages.txt, also read by the Dockerfile): [run] are what
# the server itself runs (GDAL for drone surveys), [test] only what the tests need.
RUN_PACKAGES := $(shell deploy/debian-packages.sh run)
TEST_PACKAGES := $(shell deploy/debian-packages.sh test)
SOURCES := $(shell find app components lib messages public -type f -not -path 'lib/db/generated/*' 2>/dev/null) instrumentation.ts next.config.ts package.json

.PHONY: run test install generate migrate build run-deps system-deps bench-deps services clean bench

run: run-deps install generate migrate build
	@echo "Fieldmap on http://localhost:$(PORT)"
	node --import tsx lib/server/serve.ts start -p $(PORT) --keepAliveTimeout 65000

test: install generate system-deps services build
	npm run -s typecheck
	npm run -s lint
	npm run -s depcheck
	node node_modules/tsx/dist/cli.mjs tests/run.ts

install: node_modules/.installed
# Not `npm ci`: this registry mirror lacks the other platforms' optional binaries (@swc/core-darwin-*,
# ...), so npm cannot record them in the lock and `npm ci` refuses it. `install --no-save` still installs
# exactly the locked versions and never rewrites the lock.
node_modules/.installed: package.json package-lock.json
	npm install --no-save --no-audit --no-fund --loglevel=error
	@touch $@

generate: lib/db/generated/.stamp
lib/db/generated/.stamp: node_modules/.installed prisma/models.prisma prisma/generate.ts
	npm run -s db:generate
	@touch $@

migrate: generate
	npm run -s db:migrate

build: .next/BUILD_ID
.next/BUILD_ID: node_modules/.installed lib/db/generated/.stamp $(SOURCES)
	npm run -s build

# Installs the missing ones of the packages given (PACKAGES=...), as root with apt-get; anywhere else it
# stops with the command to run, so that no feature is found missing only when a user needs it.
define install-debian-packages
	@missing=""; for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "Installing Debian packages:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	  else \
	    echo "Fieldmap needs these Debian packages:$$missing. Install them, then run make again:" >&2; \
	    echo "  sudo apt-get install -y$$missing" >&2; \
	    exit 1; \
	  fi; \
	fi
endef

run-deps:
	$(call install-debian-packages,$(RUN_PACKAGES))

# The tests need the run-time packages too (the drone tests run GDAL).
system-deps:
	$(call install-debian-packages,$(RUN_PACKAGES) $(TEST_PACKAGES))

# PostgreSQL and Redis are used when they answer; start them if installed and stopped.
services:
	@if command -v pg_ctlcluster >/dev/null && ! pg_isready -q -h 127.0.0.1 2>/dev/null; then \
	  pg_ctlcluster --skip-systemctl-redirect $$(ls /etc/postgresql | head -1) main start 2>/dev/null || true; fi
	@if command -v redis-server >/dev/null && ! redis-cli -h 127.0.0.1 ping >/dev/null 2>&1; then \
	  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save '' --appendonly no >/dev/null 2>&1 || true; fi

# The drone bench times OpenCV's own stitcher (Debian's python3-opencv) beside ours.
bench-deps:
	@dpkg -s python3-opencv >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-opencv >/dev/null; }

bench: install generate system-deps bench-deps services build
	npm run -s bench

clean:
	rm -rf .next node_modules lib/db/generated prisma/sqlite prisma/postgresql test-results

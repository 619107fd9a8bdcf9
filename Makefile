# zkraft: two commands matter. `make run` serves an in-memory standalone
# server on 127.0.0.1:2181; `make test` runs the tests. CI runs it, then
# `make check`.

GO ?= go

.PHONY: run lab test check flaky build vet crossvet oldgo kubecheck helmcheck release fmtcheck fuzz soak gozk bench ensemble-1 ensemble-2 ensemble-3

run:
	$(GO) run ./cmd/zkserver

# make lab runs a three-server ensemble in one process, each server with its
# web console and the lab's controls (kill, restart, partition, slow links,
# write load); it prints the URLs. LAB_ARGS="-n 5" for five servers.
lab:
	$(GO) run ./cmd/zklab $(LAB_ARGS)

# make build writes bin/zkserver, bin/zkbench and bin/zkcli, stamped with the build
# time that srvr's "built on" and `zkserver -version` print.
# Expanded once, so every binary and archive of one run carries the same time.
BUILD_TIME := $(or $(BUILD_TIME),$(shell date -u +%Y-%m-%dT%H:%M:%SZ))
LDFLAGS = -X github.com/zkraft/zkraft/internal/buildinfo.buildTime=$(BUILD_TIME)
build:
	$(GO) build ./...
	$(GO) build -buildvcs=auto -ldflags '$(LDFLAGS)' -o bin/ ./cmd/zkserver ./cmd/zkbench ./cmd/zkcli

# make release writes dist/zkraft-RELEASE_VERSION-GOOS-GOARCH.tar.gz (.zip for
# windows) for the six platforms below, each holding zkserver, zkcli, zkbench
# README.md, LICENSE and NOTICE, and dist/SHA256SUMS.
# RELEASE_VERSION is `git describe` (dev outside a git clone); the binaries report
# the module version Go stamps from the same commit (a tag, else a
# pseudo-version). Static (CGO_ENABLED=0) and -trimpath: the same commit,
# Go release and BUILD_TIME (make release BUILD_TIME=2026-01-02T03:04:05Z)
# give the same archives byte for byte (see internal/mkrelease).
RELEASE_VERSION := $(or $(RELEASE_VERSION),$(shell git describe --tags --always --dirty 2>/dev/null || echo dev))
release:
	rm -rf dist
	@for p in $(PLATFORMS); do echo "go build ($$p)"; \
		CGO_ENABLED=0 GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) build -trimpath -buildvcs=auto \
			-ldflags '$(LDFLAGS)' -o dist/build/$${p%/*}-$${p#*/}/ ./cmd/zkserver ./cmd/zkcli ./cmd/zkbench \
			|| exit 1; done
	$(GO) run ./internal/mkrelease -version $(RELEASE_VERSION) -time $(BUILD_TIME) -out dist \
		$(addprefix -doc ,README.md LICENSE NOTICE) $(foreach p,$(PLATFORMS),dist/build/$(subst /,-,$(p)))
	rm -rf dist/build

fmtcheck:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

# make test: gofmt, go vet, every package's tests with -race, then the
# recipes without it (see scripts/test.sh). Every step runs to its end,
# then one summary lists what failed and the slowest tests. LOAD=2 runs it
# beside two busy loops, as a loaded CI machine; TEST_P sets how many
# packages are tested at once.
test:
	GO=$(GO) PLATFORMS="$(PLATFORMS)" ./scripts/test.sh test

# make check: what CI runs after make test, slower or needing more than Go:
# the six-platform vet, a build with the oldest Go release go.mod allows,
# the Kubernetes manifests, and the migration round trip with ZooKeeper at
# 100k znodes. Steps that need the module proxy say so and are skipped
# when it is out of reach.
check:
	GO=$(GO) PLATFORMS="$(PLATFORMS)" ./scripts/test.sh check

# Type-checks the code and the tests for every platform zkraft ships for
# (go vet builds no binaries, so this is quick).
PLATFORMS = linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
crossvet:
	GO=$(GO) PLATFORMS="$(PLATFORMS)" ./scripts/test.sh crossvet

# go.mod's go line is the oldest Go release zkraft builds with: the newest
# standard library it calls (sync.WaitGroup.Go, Go 1.25; every dependency asks
# for 1.23 at most), so a program that embeds zkraft is not forced onto a newer
# Go. `make oldgo` builds and vets everything with exactly that release, which
# the go command fetches from the module proxy (golang.org/toolchain, once);
# when it cannot be fetched it says so and skips.
oldgo:
	GO=$(GO) PLATFORMS="$(PLATFORMS)" ./scripts/test.sh oldgo

# deploy/kubernetes validated offline: strict decoding into the Kubernetes
# API's Go types plus cross-object checks, in a module of its own so that
# the main module does not take the Kubernetes dependencies.
kubecheck:
	GO=$(GO) PLATFORMS="$(PLATFORMS)" ./scripts/test.sh kubecheck

# deploy/helm/zkraft rendered with Helm's Go library and checked offline, its
# default release's pods run as processes (part of make test; a module of
# its own, deploy/helm/check, as kubecheck's).
helmcheck:
	GO=$(GO) PLATFORMS="$(PLATFORMS)" ./scripts/test.sh helmcheck

# make flaky N=20 PKG=./integration runs one package's tests N times beside
# LOAD busy loops (default 2), each run a fresh test binary, then prints
# the failures per test (internal/testtally). RUN narrows to a -run
# pattern; FLAKY_FLAGS adds go test flags (default -race).
N ?= 20
flaky:
	GO=$(GO) ./scripts/flaky.sh

# Short fuzzing passes over the decoders and validators (not part of `make test`;
# the committed seed corpora run as ordinary tests there).
fuzz:
	$(GO) test ./wire/ -run '^$$' -fuzz FuzzReadFrame -fuzztime 30s
	$(GO) test ./wire/ -run '^$$' -fuzz FuzzDecodeRequest -fuzztime 30s
	$(GO) test ./datatree/ -run '^$$' -fuzz FuzzValidatePath -fuzztime 30s
	$(GO) test ./auth/sasl/ -run '^$$' -fuzz FuzzStep -fuzztime 30s
	$(GO) test ./auth/sasl/ -run '^$$' -fuzz FuzzParseDirectives -fuzztime 30s
	$(GO) test ./auth/sasl/ -run '^$$' -fuzz FuzzGSSAPIStep -fuzztime 30s
	@# consensus's test binary is large: minimizing each new input would
	@# otherwise take most of the 30 s (the default budget is 60 s).
	$(GO) test ./consensus/ -run '^$$' -fuzz FuzzScanSegment -fuzztime 30s -fuzzminimizetime 3s
	$(GO) test ./consensus/ -run '^$$' -fuzz FuzzRestoreSnapshot -fuzztime 30s -fuzzminimizetime 3s
	$(GO) test ./consensus/ -run '^$$' -fuzz FuzzOpenEntry -fuzztime 30s -fuzzminimizetime 3s
	$(GO) test ./consensus/ -run '^$$' -fuzz FuzzRestore$$ -fuzztime 30s -fuzzminimizetime 3s
	$(GO) test ./consensus/transport/ -run '^$$' -fuzz FuzzDecode -fuzztime 30s -fuzzminimizetime 3s
	$(GO) test ./migrate/ -run '^$$' -fuzz FuzzReadSnapshot -fuzztime 30s -fuzzminimizetime 3s
	$(GO) test ./migrate/ -run '^$$' -fuzz FuzzReadLog -fuzztime 30s -fuzzminimizetime 3s
	$(GO) test ./treejson/ -run '^$$' -fuzz FuzzImportTree -fuzztime 30s -fuzzminimizetime 3s

# Every table of docs/performance.md, zkraft beside Apache ZooKeeper 3.8
# (about 15 minutes; needs the Debian zookeeper package). BENCH=standalone
# (or latency, ensemble, memory, scale, start, lock) runs one part;
# BENCH=stability runs 10 minutes of load on each ensemble, watching for
# leader changes (STABILITY_DURATION=2m shortens it).
bench:
	./scripts/bench.sh $(BENCH)

# go-zookeeper's own ensemble tests (NoQuorum, Reconfig) against zkserver;
# LOAD=4 runs them beside four busy loops.
gozk:
	./scripts/gozk-tests.sh

# The soak (integration/soak_test.go, docs/reliability.md): mixed load on a
# durable three-node ensemble under leader kills, partitions and restarts
# for SOAK (default 1h; ZKRAFT_SOAK_PERIOD, ZKRAFT_SOAK_SEED also apply),
# ending with a summary table. Without -race: go-zookeeper v1.0.4 races with
# itself on reconnects with watches set, and the race detector's shadow
# memory would swamp the heap figures. Raise SOAK_TIMEOUT past SOAK + 30m
# for runs longer than 90 minutes.
SOAK ?= 1h
SOAK_TIMEOUT ?= 2h
soak:
	ZKRAFT_SOAK=$${ZKRAFT_SOAK:-$(SOAK)} $(GO) test -count=1 -timeout $(SOAK_TIMEOUT) -run '^TestSoak$$' -v ./integration/

# A three-node ensemble on this machine: run each in its own terminal.
# Each writes its myid into /tmp/zkraft-ensemble/N, as ZooKeeper expects.
ensemble-1 ensemble-2 ensemble-3: ensemble-%:
	mkdir -p /tmp/zkraft-ensemble/$*
	echo $* > /tmp/zkraft-ensemble/$*/myid
	$(GO) run ./cmd/zkserver examples/ensemble/zoo$*.cfg

# seatflow — make run (migrate, seed the demo cinema, serve on :8080) and make test.
SHELL := /bin/bash
export PATH := $(PATH):/usr/local/go/bin
GO ?= go
HTMX := static/vendor/htmx.min.js
JSQR := static/vendor/jsQR.js
# axe-core stays in node_modules (not embedded, never served): the browser tests read it
AXE := static/node_modules/axe-core/axe.min.js

.PHONY: run build test generate lint static services test-services test-deps bench bench-services bench-goals bench-order-script bench-stadium bench-reports soak fuzz cluster-up cluster-down cluster-test cluster-faults cluster-bench

## run: build, migrate, seed the demo cinema (printing demo passwords) and serve on :8080,
## with the demo's webhook and ticket secrets from DEMO_ENV (made once per checkout with
## random values, git-ignored; exported values win), printed like the passwords
DEMO_ENV := .seatflow-demo.env
run: build services
	./seatflow migrate
	./seatflow seed
	@secrets=$$(bash .ci/demo-env $(DEMO_ENV)) && eval "$$secrets" && \
		SEATFLOW_DEMO_PAYMENTS=true ./seatflow serve

## build: the seatflow binary with its browser assets
build: static
	$(GO) build -o seatflow .

## static: third-party browser assets from npm into static/vendor, and axe-core (the
## browser tests' accessibility check) into static/node_modules only
static: $(HTMX) $(JSQR) $(AXE)

$(HTMX) $(JSQR) $(AXE) &: static/package.json static/package-lock.json
	cd static && npm ci --no-audit --no-fund --silent
	cp static/node_modules/htmx.org/dist/htmx.min.js $(HTMX)
	cp static/node_modules/jsqr/dist/jsQR.js $(JSQR)
	touch $(AXE)

## services: start MariaDB and Redis when they are not answering (root on Debian),
## leaving the server's settings as they are; test-services also raises MariaDB's
## max_connections for make test's side-by-side runs
services:
	@bash .ci/services

test-services:
	@bash .ci/services --for-tests

## test: vet, check generated code, run every test against real MariaDB and Redis in four
## runs side by side: the services/ packages (each on a database and a Redis DB of its
## own, services/internal/testenv.RedisDBs, so two run at a time) with jobs and the load
## test's smoke run, then the fuzz targets (while the browser runs, the longest, go on);
## web's browser tests in two halves of similar length (they mostly wait on chromium),
## each on a database and key prefix of its own: BROWSER_TESTS_2
## (SEATFLOW_TEST_WEB_PART=browser2) on a private redis-server started here on a free
## port and stopped afterwards (.ci/test-redis; every Redis DB below 16 is taken and the
## machine's Redis may have only 16), the others (browser) on Redis DB 10; and the rest
## (web, handlers, views). web's test binary is built once before its three runs start,
## so they share the build. A private stripe-mock (.ci/stripe-mock) answers the Stripe
## provider's tests (SEATFLOW_TEST_STRIPE_MOCK). The other runs' output follows the last's
STORE_TEST_PKGS := ./services/... ./jobs/... ./web/loadtest/...
BROWSER_TESTS := Browser|TestConsole_ManagerDay
BROWSER_TESTS_2 := TestAxeBrowser|TestBrowser_Queue|TestBrowserUX_|TestBrowserCountdown
test: test-services test-deps static
	$(GO) vet ./...
	@$(MAKE) --no-print-directory generate
	@git diff --quiet -- '*_templ.go' 2>/dev/null || { echo "generated *_templ.go files differ from 'go tool templ generate': commit them"; git diff --stat -- '*_templ.go'; exit 1; }
	@log=$$(mktemp); blog=$$(mktemp); b2log=$$(mktemp); bin=$$(mktemp -d); rdir=$$(mktemp -d); sdir=$$(mktemp -d); \
	trap "rm -rf $$log $$blog $$b2log $$bin; bash .ci/test-redis stop $$rdir; bash .ci/stripe-mock stop $$sdir" EXIT; trap 'exit 130' INT TERM; \
	raddr=$$(bash .ci/test-redis start $$rdir) || exit 1; \
	saddr=$$(bash .ci/stripe-mock start $$sdir) || exit 1; export SEATFLOW_TEST_STRIPE_MOCK=$$saddr; \
	{ $(GO) test -race -count=1 -p 2 -timeout 15m $(STORE_TEST_PKGS) >$$log 2>&1; rc=$$?; \
	  $(MAKE) --no-print-directory fuzz FUZZTIME=$(FUZZTIME) >>$$log 2>&1 || rc=1; exit $$rc; } & pid=$$!; \
	$(GO) test -race -c -o $$bin/web.test ./web/; \
	SEATFLOW_TEST_WEB_PART=browser $(GO) test -race -count=1 -timeout 25m -run '$(BROWSER_TESTS)' -skip '$(BROWSER_TESTS_2)' ./web/ >$$blog 2>&1 & bpid=$$!; \
	SEATFLOW_TEST_WEB_PART=browser2 SEATFLOW_TEST_REDIS_ADDR=$$raddr $(GO) test -race -count=1 -timeout 25m -run '$(BROWSER_TESTS_2)' ./web/ >$$b2log 2>&1 & b2pid=$$!; \
	$(GO) test -race -count=1 -p 2 -timeout 25m -skip '$(BROWSER_TESTS)' $$($(GO) list ./... | grep -v -e /services -e /jobs -e /web/loadtest); rc=$$?; \
	wait $$pid; rc2=$$?; wait $$bpid; rc3=$$?; wait $$b2pid; rc4=$$?; cat $$log $$blog $$b2log; \
	test $$rc -eq 0 -a $$rc2 -eq 0 -a $$rc3 -eq 0 -a $$rc4 -eq 0

## fuzz: each fuzz target for FUZZTIME (default 20000 inputs, a few seconds each; crashes
## land in testdata/fuzz and become regular tests). A count, not a duration: Go 1.26's
## fuzzer can fail a duration run with a bare "context deadline exceeded" as its time
## ends (go.dev/issue/75804, fixed in Go 1.27)
FUZZTIME ?= 20000x
FUZZ_TARGETS := services:FuzzCanonicalEmail services:FuzzCheckText services/catalog:FuzzParseLayout services/orders:FuzzWebhookSignature services/orders:FuzzWebhookEvent handlers:FuzzParseOrderBody services/orders:FuzzVerifyTicketRef
fuzz:
	@for t in $(FUZZ_TARGETS); do pkg=$${t%%:*}; name=$${t##*:}; \
		echo "fuzz $$pkg $$name ($(FUZZTIME))"; \
		$(GO) test -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZTIME) ./$$pkg/ >/tmp/seatflow-fuzz.log 2>&1 || { cat /tmp/seatflow-fuzz.log; exit 1; }; \
	done

## test-deps: Debian's chromium and CJK fonts (the Chinese pages) for the browser tests, a
## TrueType CJK font (Droid Sans Fallback) the printed tickets embed for Chinese;
## stripe-mock (Stripe's API from fixtures) for the Stripe provider's tests
STRIPE_MOCK := github.com/stripe/stripe-mock@v0.203.0
test-deps:
	@command -v stripe-mock >/dev/null || [ -x "$$($(GO) env GOPATH)/bin/stripe-mock" ] || $(GO) install $(STRIPE_MOCK)
	@command -v chromium >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }
	@fc-list :lang=zh 2>/dev/null | grep -q . || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-noto-cjk >/dev/null; }
	@[ -f /usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf ] || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-droid-fallback >/dev/null; }

## generate: templ components (the generator is pinned in go.mod)
generate:
	$(GO) tool templ generate

## lint: gofmt and go vet
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "not gofmt'ed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

## bench: the load test's standard set (seatflow loadtest: ceilings, flash sale, the flash sale with ticket types and a voucher (printed beside the plain one), rejection storms, seat-map reads, V1 baseline; LOADTEST_FLAGS, default 10 s per phase and 32 clients) against a server it starts; report in loadtest-results/<timestamp>, then bench-order-script, bench-stadium and bench-reports
LOADTEST_FLAGS ?= -duration 10s -clients 32
bench: build services
	./seatflow loadtest $(LOADTEST_FLAGS)
	@$(MAKE) --no-print-directory bench-order-script
	@$(MAKE) --no-print-directory bench-stadium
	@$(MAKE) --no-print-directory bench-reports

## bench-goals: the order path's goals as the issue states them, on a median of three runs:
## the ceilings and the scenarios the goals read (flash, soldout, hotseats, seatmap-400), run
## three times one after the other; each run's report in loadtest-results/<timestamp>/run-<k>,
## the goals of every run with their medians printed and kept in goals.md beside them
bench-goals: build services
	./seatflow loadtest -runs 3 -scenarios flash,soldout,hotseats,seatmap-400 $(LOADTEST_FLAGS)

## bench-order-script: the order script's own Redis time per created order, one client on a
## private Redis, with its commands' share, a script making the same commands with no logic
## (web/loadtest/order_floor.lua) and an empty script's (BenchmarkOrderScript_RedisTimePerCall)
bench-order-script: services
	$(GO) test -run '^$$' -bench '^BenchmarkOrderScript_RedisTimePerCall$$' -benchtime 20000x -count 3 ./services/seats/

## bench-reports: a year of a 20-screen chain (two cinemas in two zones, 36,500 shows, 438,000
## paid orders, 876,000 seats, refunds, vouchers, both channels; services/reports/bench_test.go)
## built in the reports package's test database: the sales report of the year for every
## grouping, the best of three, against a plain full scan of order_seats measured in the same
## run, then the EXPLAIN of by=day; the figures are the lines starting "reports:" (goal < 2 s)
bench-reports: services
	$(GO) test -run '^$$' -bench '^BenchmarkSalesReport_YearOfChain$$' -benchtime=1x -count=1 -timeout 30m ./services/reports/

## bench-stadium: the 300 x 300 stadium (83,521 seats, 70 % taken; services/demo/stadium.go):
## hall writes, seat-map loads and the seat map's Redis bytes per seat (BenchmarkStadium),
## best-available choices a second and p99 on one core and the single-seat check
## (BenchmarkStadium_BestAvailable), then its pages in a browser (TestStadium_Browser; screenshots under
## SEATFLOW_SCREENSHOTS when set); the figures are the lines starting "stadium:"
bench-stadium: services test-deps static
	$(GO) test -run '^$$' -bench '^BenchmarkStadium$$' -benchtime=1x -count=1 -timeout 20m ./services/demo/
	$(GO) test -run '^$$' -bench '^BenchmarkStadium_BestAvailable$$' -benchtime=1x -count=1 ./services/seats/
	SEATFLOW_STADIUM=1 $(GO) test -count=1 -timeout 20m -run '^TestStadium_Browser$$' -v ./web/

## bench-services: order creation in-process (orders.Orders) against the raw Redis and MariaDB ceilings (SEATFLOW_BENCH_SECONDS per phase, default 3)
bench-services: services
	$(GO) test -run '^$$' -bench CreateOrderAgainstCeilings -benchtime=1x -count=1 ./services/orders/

## soak: buyers against one show for SEATFLOW_SOAK_SECONDS (default 90) while FLUSHALL, Redis restarts, DEBUG SLEEP, lost expiry tasks and killed steps are injected on a private redis-server; prints convergence times; then the large linearizability histories (TestLinearizable_SeatStoreLarge)
soak: services
	SEATFLOW_SOAK=1 $(GO) test -race -count=1 -timeout 30m -run '^(TestSoak_FaultsUnderLoad|TestLinearizable_SeatStoreLarge)$$' -v ./services/invariants/

## cluster-up: several instances on a Redis Cluster, all on 127.0.0.1 (.ci/cluster/up): Redis
## Cluster 7001-7006 (3 masters, 1 replica each), asynq's Redis 7010 (replica 7011), the
## database seatflow_cluster made afresh and seeded, CLUSTER_INSTANCES (default 3) instances
## on 8101.. with shared secrets (optional CLUSTER_CPU_QUOTA CPUs each), nginx on 8090;
## run folder .cluster/ (pids, logs, secrets)
cluster-up: build services
	@bash .ci/cluster/up

## cluster-down: stop what cluster-up started and remove .cluster/
cluster-down:
	@bash .ci/cluster/down

## cluster-test: against a running cluster, through the balancer: a race suite on several
## shows with its history check, the live seat map across instances, the load test's flash
## sale, then the invariant check against MySQL and every Redis master
cluster-test:
	@bash .ci/cluster/test

## cluster-faults: against a running cluster, during a sale through the balancer: kill -9 of
## an instance, CLUSTER FAILOVER FORCE of the busy show's master, kill -9 of that master
## (restarted as a replica), the busy show's slot migrated; each ends with reconciliation
## and the invariant and history checks, and reports its counts and convergence time;
## then a waiting room of 300 visitors reading their places: its master killed after its
## replica fell 3 s behind, then FLUSHALL on every master; every place no worse after each,
## admission tokens still accepted (FAULTS=MasterKilled or FAULTS=WaitingRoom runs one)
cluster-faults:
	@bash .ci/cluster/faults

## cluster-bench: against a running cluster, small machines simulated with CPU quotas (cgroup
## v1): the rejection path and a flash sale through the balancer on 1 and on 3 instances of
## 0.3 CPU each, then the hold script on 1 and on 3 Redis masters of 0.25 CPU each; prints
## the rates and ratios of one run (.ci/cluster/bench; not part of make test)
cluster-bench:
	@bash .ci/cluster/bench

package clustertest

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/redis/go-redis/v9"

	"seatflow/services/catalog"
	"seatflow/services/seats"
	"seatflow/services/store"
	"seatflow/web/loadtest"
)

// cluster is a running cluster as the tests see it: the balancer's address, each
// instance's own address, and the cluster's MySQL and Redis (a cluster client when
// SEATFLOW_REDIS_ADDR names several nodes).
type cluster struct {
	t         *testing.T
	base      string
	instances []string
	db        *sqlx.DB
	rdb       redis.UniversalClient
	catalog   *catalog.Catalog
	seats     *seats.SeatStore
	hc        *http.Client
	secret    string
}

// env returns the variable or its default.
func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// newCluster connects to the cluster named by SEATFLOW_CLUSTER_BASE, or skips the test
// when it is unset (make test).
func newCluster(t *testing.T) *cluster {
	base := os.Getenv("SEATFLOW_CLUSTER_BASE")
	if base == "" {
		t.Skip("SEATFLOW_CLUSTER_BASE is not set: make cluster-up, then make cluster-test")
	}
	c := &cluster{t: t, base: strings.TrimSuffix(base, "/"), secret: os.Getenv("SEATFLOW_PAYMENT_WEBHOOK_SECRET")}
	for _, b := range strings.Split(os.Getenv("SEATFLOW_CLUSTER_INSTANCES"), ",") {
		if b = strings.TrimSpace(b); b != "" {
			c.instances = append(c.instances, strings.TrimSuffix(b, "/"))
		}
	}
	var err error
	if c.db, err = store.OpenDB(env("SEATFLOW_MYSQL_DSN", "root@tcp(127.0.0.1:3306)/seatflow_cluster")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.db.Close() })
	addrs, err := store.ParseRedisAddrs(env("SEATFLOW_REDIS_ADDR", "127.0.0.1:6379"))
	if err != nil {
		t.Fatal(err)
	}
	if c.rdb, err = store.NewRedis(store.RedisConn{Addrs: addrs, PoolSize: 64}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.rdb.Close() })
	c.catalog = catalog.NewCatalog(c.db)
	c.seats = seats.NewSeatStore(c.rdb, c.db, c.catalog, env("SEATFLOW_REDIS_KEY_PREFIX", "sf"))
	c.hc = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 1024, MaxConnsPerHost: 1024}}
	return c
}

// answer is one HTTP answer: status, the instance that served it (the balancer's
// X-Seatflow-Upstream), the body, and when the request was sent and answered.
type answer struct {
	status     int
	upstream   string
	body       []byte
	sent, done time.Time
	err        error
}

// code is the error code of a non-2xx answer ("" when none).
func (a answer) code() string {
	var e struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(a.body, &e)
	return e.Error.Code
}

// do sends a JSON request to base+path with an optional bearer token and extra headers.
func (c *cluster) do(ctx context.Context, base, method, path, token string, in any, headers ...string) answer {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return answer{err: err}
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, base+path, body)
	if err != nil {
		return answer{err: err}
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return c.send(req)
}

// send sends req and records its answer: when it was sent and answered, the status,
// the body and the instance that served it (X-Seatflow-Upstream, set by the balancer).
func (c *cluster) send(req *http.Request) answer {
	a := answer{sent: time.Now()}
	resp, err := c.hc.Do(req)
	if err != nil {
		a.err, a.done = err, time.Now()
		return a
	}
	defer resp.Body.Close()
	a.body, a.err = io.ReadAll(resp.Body)
	a.done, a.status, a.upstream = time.Now(), resp.StatusCode, resp.Header.Get("X-Seatflow-Upstream")
	return a
}

// webhook sends the demo provider's signed approval of a payment through the balancer.
func (c *cluster) webhook(ctx context.Context, paymentID string, amount int64) answer {
	body, _ := json.Marshal(map[string]any{"payment_id": paymentID, "status": "approved", "amount_minor": amount,
		"sent_at": time.Now().UTC().Format(time.RFC3339)})
	req, err := http.NewRequestWithContext(ctx, "POST", c.base+"/api/v1/payments/demo/webhook", bytes.NewReader(body))
	if err != nil {
		return answer{err: err}
	}
	mac := hmac.New(sha256.New, []byte(c.secret))
	mac.Write(body)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Signature", hex.EncodeToString(mac.Sum(nil)))
	return c.send(req)
}

// fixtures inserts a movie for this test's halls and shows (named by the test and time).
func (c *cluster) fixtures(ctx context.Context) *loadtest.Fixtures {
	fx, err := loadtest.NewFixtures(ctx, c.db, fmt.Sprintf("ct%d", time.Now().UnixNano()%1e9), env("SEATFLOW_CURRENCY", "CNY"))
	if err != nil {
		c.t.Fatal(err)
	}
	return fx
}

// admin returns the token of a new admin account (a visitor of the fixtures made admin).
func (c *cluster) admin(ctx context.Context, fx *loadtest.Fixtures) string {
	b, err := fx.NewVisitors(ctx, 0, 1)
	if err != nil {
		c.t.Fatal(err)
	}
	if _, err := c.db.ExecContext(ctx, "UPDATE users SET role = 'admin' WHERE id = ?", b[0].ID); err != nil {
		c.t.Fatal(err)
	}
	return b[0].Token
}

// reconcile runs reconciliation through the admin API (showID 0: every show; dry: report
// only) and returns its findings; a run of another instance in progress is waited for.
func (c *cluster) reconcile(ctx context.Context, adminToken string, showID int64, dry bool) []seats.Finding {
	body := map[string]any{"dry_run": dry}
	if showID > 0 {
		body["show_id"] = fmt.Sprint(showID)
	}
	for attempt := 0; ; attempt++ {
		a := c.do(ctx, c.base, "POST", "/api/v1/admin/reconcile", adminToken, body)
		if a.status == http.StatusConflict && attempt < 10 {
			time.Sleep(2 * time.Second)
			continue
		}
		if a.err != nil || a.status != http.StatusOK {
			c.t.Fatalf("reconcile: %d %v %s", a.status, a.err, a.body)
		}
		var run struct {
			Status   string `json:"status"`
			Findings []struct {
				Kind    string  `json:"kind"`
				ShowID  string  `json:"show_id"`
				SeatID  *string `json:"seat_id"`
				OrderNo *string `json:"order_no"`
				Action  string  `json:"action"`
				Fixed   bool    `json:"fixed"`
				Detail  string  `json:"detail"`
			} `json:"findings"`
		}
		if err := json.Unmarshal(a.body, &run); err != nil || run.Status != "done" {
			c.t.Fatalf("reconcile: status %q (%v): %s", run.Status, err, a.body)
		}
		out := make([]seats.Finding, 0, len(run.Findings))
		for _, f := range run.Findings {
			fd := seats.Finding{Kind: f.Kind, Action: f.Action, Fixed: f.Fixed, Detail: f.Detail}
			fmt.Sscan(f.ShowID, &fd.ShowID)
			if f.SeatID != nil {
				fmt.Sscan(*f.SeatID, &fd.SeatID)
			}
			if f.OrderNo != nil {
				fd.OrderNo = *f.OrderNo
			}
			out = append(out, fd)
		}
		return out
	}
}
